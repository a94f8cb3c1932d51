/*
 * libFuzzer: the clamp value parsers, the whole-number reader behind the PID,
 * --wait and --recheck options, and the PID parser (all value.c).
 * Beyond "no crash", what a parser accepts must round-trip: the formatted
 * value parses back to the same capacity units, everything accepted is in
 * range, and an accepted PID is digits only.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "uclamp/value.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_str(data, size), buf[32];
	struct uc_value v, back;
	unsigned long long num;
	int pct;
	pid_t pid;

	if (uc_value_parse(s, &v) == 0) {
		if (v.util != UC_RESET && (v.util < 0 || v.util > UC_CAPACITY_SCALE))
			abort();
		uc_util_format_pct(v.util, buf, sizeof(buf));
		if (uc_value_parse(buf, &back) || back.util != v.util)
			abort();
		if (v.util != UC_RESET && uc_pct100_to_util(uc_util_to_pct100(v.util)) != v.util)
			abort();
	}
	if (uc_pct_parse_kernel(s, &pct) == 0) {
		if (pct < 0 || pct > UC_PCT_MAX)
			abort();
		uc_pct100_format(pct, buf, sizeof(buf));
		{
			int again;

			if (uc_pct_parse_kernel(buf, &again) || again != pct)
				abort();
		}
	}
	/* in range, digits only, and a different answer only where the range says so */
	if (uc_num_parse(s, 10, 86400, &num) == 0) {
		if (num < 10 || num > 86400 || strspn(s, "0123456789") != strlen(s) ||
		    uc_num_parse(s, 0, 100000, &num) || num != strtoull(s, NULL, 10))
			abort();
	}
	if (uc_pid_parse(s, &pid) == 0) {
		if (pid <= 0 || strspn(s, "0123456789") != strlen(s))
			abort();
		snprintf(buf, sizeof(buf), "%d", (int)pid);
		{
			pid_t again;

			if (uc_pid_parse(buf, &again) || again != pid)
				abort();
		}
	}
	free(s);
	return 0;
}
