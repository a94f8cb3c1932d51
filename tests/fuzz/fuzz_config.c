/*
 * libFuzzer target for the configuration parser (src/lib/config_parse.c):
 * any bytes go through uc_config_load_stream, then uc_config_validate, then
 * uc_config_free. It must never crash, leak or hang; errors are fine.
 *
 * Build and run by hand from a configured tree (config.h in the build dir):
 *
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
 *     -Iinclude -Isrc -include config.h -DSYSCONFDIR='"/etc"' \
 *     $(pkg-config --cflags smartcols libcgroup libnl-3.0) \
 *     tests/fuzz/fuzz_config.c src/lib/[a-z]*.c \
 *     $(pkg-config --libs smartcols libcgroup libnl-3.0) -o fuzz_config
 *   mkdir -p /tmp/fuzz-config && \
 *     ./fuzz_config -max_total_time=120 /tmp/fuzz-config tests/fuzz/corpus/config
 *
 * (the first directory collects new inputs; the seed corpus stays as it is)
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
