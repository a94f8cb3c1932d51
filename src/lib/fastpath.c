/* fastpath.c: placeholder until detection lands (issue 4): always unknown. */
#include <string.h>

#include "uclamp/fastpath.h"

const char *uc_fp_source_name(enum uc_fp_source s)
{
	static const char *const names[] = { "none", "kcore", "system-map", "evidence", "kernel-version", "probe" };
	return (unsigned)s < sizeof(names) / sizeof(names[0]) ? names[s] : "none";
}

int uc_fastpath_detect(struct uc_fastpath *fp)
{
	memset(fp, 0, sizeof(*fp));
	fp->state = UC_KEY_UNKNOWN;
	fp->source = UC_FP_SRC_NONE;
	return 0;
}
