/*
 * libFuzzer: the per-boot symbol address cache (kmem.c: cache_read,
 * cache_line, cache_load): the input is the cache file after this boot's
 * boot_id line, in a fake root where kallsyms lists the key and there is no
 * kcore (so no value can be read and the key can never come out "on").
 * The cache is trusted only when root owns it, so this target only
 * reaches the parser when run as root (as CI does); otherwise it checks that
 * an untrusted cache is never used. A cache that parses is discarded (its
 * key reads nothing), one that does not is unused: never a hit, but for a
 * line that names the key absent.
 */
#include <fcntl.h>
#include <stdbool.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz.h"
#include "uclamp/kmem.h"

#define BOOT_ID "11111111-2222-3333-4444-555555555555"

static void setup(void)
{
	static const char ksyms[] = "ffffffff81000000 T _text\n"
				    "ffffffff82a10ab0 D sched_uclamp_used\n";
	char dir[PATH_MAX];

	fuzz_put("/proc/sys/kernel/random/boot_id", (const uint8_t *)BOOT_ID "\n",
		 sizeof(BOOT_ID));
	fuzz_put("/proc/kallsyms", (const uint8_t *)ksyms, sizeof(ksyms) - 1);
	fuzz_put("/run/uclampctl/.keep", (const uint8_t *)"", 0);
	snprintf(dir, sizeof(dir), "%s/run/uclampctl", fuzz_root());
	if (chmod(dir, 0755))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static bool ready;
	struct uc_kmem_key k = { .name = "sched_uclamp_used", .boolean = true };
	struct uc_kmem_info info;
	char path[PATH_MAX], *text = fuzz_str(data, size), *file;

	if (!ready) {
		setup();
		ready = true;
	}
	/* this boot's id first, so that the lines after it are parsed */
	if (asprintf(&file, BOOT_ID "\n%s", text) < 0)
		abort();
	fuzz_put("/run/uclampctl/ksyms", (const uint8_t *)file, strlen(file));
	snprintf(path, sizeof(path), "%s/run/uclampctl/ksyms", fuzz_root());
	if (chmod(path, 0600))
		abort();
	uc_kmem_read_keys_flags(&k, 1, &info, 0);
	/* no kcore: never a value, never "on", and a reason for it */
	if (k.rc == 0 || k.value != 0 || !k.why[0])
		abort();
	/* a cache whose key cannot be read is never a hit: it is discarded (what
	 * parsed) or unused (what did not); untrusted (not root), always unused.
	 * The one hit: a line that names the key absent ("name -"), which needs no
	 * read, and then the key is not there, never "on" */
	if ((info.cache == UC_KMEM_CACHE_HIT || k.cached) && !k.absent)
		abort();
	if (k.cached_on || (k.absent && (k.listed || k.addr)))
		abort();
	if (geteuid() != 0 && info.cache != UC_KMEM_CACHE_UNUSED)
		abort();
	free(file);
	free(text);
	return 0;
}
