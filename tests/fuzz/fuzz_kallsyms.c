/*
 * libFuzzer: the kallsyms / System.map parser (kallsyms.c): every line
 * through uc_ksym_parse_line, then the input as a fake root's
 * /proc/kallsyms and System.map through the streaming lookup and the
 * map-against-kernel check that fast-path detection uses.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "uclamp/kmem.h"
#include "../unit/ksym_one.h"

static const char *const names[] = {
	"_text", "_etext", "_sinittext", "_einittext", "sched_uclamp_used", "sched_smt_present"
};
#define NNAMES (sizeof(names) / sizeof(names[0]))

static void lines(const char *s)
{
	while (*s) {
		const char *nl = strchr(s, '\n'), *name;
		size_t len = nl ? (size_t)(nl - s) : strlen(s), name_len;
		char line[512];
		uint64_t addr;
		char type;
		bool module;

		if (len < sizeof(line)) {
			memcpy(line, s, len);
			line[len] = '\0';
			if (uc_ksym_parse_line(line, &addr, &type, &name, &name_len,
					       &module) == 0 &&
			    (name < line || name + name_len > line + len))
				abort();	/* the name must lie inside the line */
		}
		if (!nl)
			break;
		s = nl + 1;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_str(data, size);
	struct uc_ksym live[NNAMES], map[NNAMES];
	struct uc_ksym_stats st;
	uint64_t off, addr;
	size_t half = size / 2;

	lines(s);
	/* the first half as kallsyms, the second as the System.map */
	fuzz_put("/proc/kallsyms", data, half);
	fuzz_put("/boot/System.map", data + half, size - half);
	memset(live, 0, sizeof(live));
	memset(map, 0, sizeof(map));
	for (size_t i = 0; i < NNAMES; i++)
		live[i].name = map[i].name = names[i];
	if (uc_ksym_lookup_many("/proc/kallsyms", live, NNAMES, &st) == 0) {
		if (st.modules > st.lines || st.nonzero > st.lines)
			abort();
		uc_ksym_has_data_symbols(&st);
	}
	if (uc_ksym_lookup_many("/boot/System.map", map, NNAMES, NULL) == 0 &&
	    uc_ksym_map_matches(live, map, 4, &off) == 0)
		uc_ksym_relocate(map[4].addr, map[0].addr, live[0].addr);
	ksym_one("/proc/kallsyms", "sched_uclamp_used", &addr);
	free(s);
	return 0;
}
