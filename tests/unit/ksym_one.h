/* One symbol through uc_ksym_lookup_many, for the kallsyms unit test and its
 * fuzz target (tests/fuzz/fuzz_kallsyms.c): the library has no one-symbol call. */
#ifndef UC_TEST_KSYM_ONE_H
#define UC_TEST_KSYM_ONE_H

#include <stdint.h>

#include "uclamp/kmem.h"

/* 0 and *addr; -ENOENT absent; -EPERM present but zeroed (kptr_restrict) */
static inline int ksym_one(const char *abspath, const char *name, uint64_t *addr)
{
	struct uc_ksym s = { .name = name };
	int rc = uc_ksym_lookup_many(abspath, &s, 1, NULL);

	if (rc)
		return rc;
	if (s.rc == 0)
		*addr = s.addr;
	return s.rc;
}

#endif
