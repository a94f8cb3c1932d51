/*
 * libFuzzer target for the configuration parser (src/lib/config_parse.c):
 * any bytes go through uc_config_load_stream, then uc_config_validate, then
 * uc_config_free. It must never crash, leak or hang; errors are fine.
 *
 * Built by 'make fuzz' with the other targets (tests/fuzz/build.sh, clang);
 * 'make fuzz-run' or 'tests/fuzz/run.sh SECONDS config' runs it from the
 * seeds in tests/fuzz/corpus/config (new inputs go to a scratch corpus).
 */
#include <stdint.h>
#include <stdio.h>

#include "uclamp/config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct uc_config c;
	FILE *f;

	if (!size)	/* fmemopen refuses an empty buffer */
		return 0;
	f = fmemopen((void *)data, size, "r");
	if (!f)
		return 0;
	uc_config_init(&c);
	uc_config_load_stream(&c, f, "fuzz.conf");
	fclose(f);
	uc_config_validate(&c);
	uc_config_free(&c);
	return 0;
}
