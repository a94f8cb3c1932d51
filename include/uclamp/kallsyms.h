/*
 * Symbol addresses from /proc/kallsyms and System.map ("ADDR TYPE NAME", one a
 * line), read as kallsyms.c says. The first occurrence outside a module wins.
 */
#ifndef UCLAMP_KALLSYMS_H
#define UCLAMP_KALLSYMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct uc_ksym {
	const char *name;	/* in */
	uint64_t addr;		/* out, valid when rc == 0 */
	char type;		/* out: 'T', 'B', 'd', ... when seen */
	/* out: 0, -ENOENT absent, -EPERM listed with a zeroed address */
	int rc;
};

struct uc_ksym_stats {
	size_t lines;		/* symbol lines parsed (vmlinux and modules) */
	size_t modules;		/* of which module ([mod]) lines */
	size_t bad;		/* lines that did not parse (ignored) */
	size_t nonzero;		/* vmlinux lines with a nonzero address */
	/* vmlinux data symbols (b d r g s v, either case) not named "__*" */
	size_t data;
	bool partial;		/* the scan stopped early: the counts cover the lines read */
};

/* A handful of ordinary data names proves CONFIG_KALLSYMS_ALL (without it only
 * "__start_*"/"__stop_*" markers are data). */
#define UC_KSYM_ALL_MIN 8
bool uc_ksym_has_data_symbols(const struct uc_ksym_stats *st);

/* read(2) size; exported for test_kallsyms.c (lines cut between blocks) */
#define UC_KSYM_BLOCK 65536

/* One pass resolving syms[0..n), each with its rc; it stops once all are found
 * (and st, if given, proves data symbols: st->partial). 0 or -errno. */
int uc_ksym_lookup_many(const char *abspath, struct uc_ksym *syms, size_t n,
			struct uc_ksym_stats *st);

/* Parse one line (name points into it): 0 or -EINVAL. Exported for
 * test_kallsyms.c and fuzz_kallsyms.c. */
int uc_ksym_parse_line(const char *line, uint64_t *addr, char *type, const char **name,
		       size_t *name_len, bool *module);

/* KASLR: a System.map address as running (offset live_text - map_text, mod 2^64). */
uint64_t uc_ksym_relocate(uint64_t map_addr, uint64_t map_text, uint64_t live_text);

/* Is a System.map the running kernel's? live[] and map[]: the same names
 * ("_text" first, then text anchors). 0 and *offset when they agree; -EPERM,
 * -ENOENT (no _text), -ENODATA (no anchor), -ESTALE (another build). */
int uc_ksym_map_matches(const struct uc_ksym *live, const struct uc_ksym *map, size_t n,
			uint64_t *offset);

#endif
