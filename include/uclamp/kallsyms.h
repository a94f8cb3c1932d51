/*
 * Symbol addresses from /proc/kallsyms and System.map. Both are text, one
 * symbol a line: "ADDR TYPE NAME" (kallsyms adds "\t[module]" for module
 * symbols). Files are read in UC_KSYM_BLOCK blocks (kallsyms has ~10^5
 * lines): a line of the usual shape is checked word by word and its name
 * compared only when a hash says it may be wanted; other lines, and every
 * match, go through uc_ksym_parse_line.
 * Paths are absolute and go through sysroot.h (uc_open).
 *
 * Duplicates: static symbols can share a name; the FIRST occurrence outside
 * a module is taken. Module symbols (and [bpf], [__builtin__ftrace]) are
 * never taken: every symbol this tool needs lives in vmlinux.
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

/*
 * Without CONFIG_KALLSYMS_ALL, kallsyms keeps only text symbols plus a few
 * dozen "__start_*"/"__stop_*" section markers typed D/R/B; with it there
 * are tens of thousands of data symbols. A handful of ordinary data names
 * is therefore proof enough that data symbols are listed.
 */
#define UC_KSYM_ALL_MIN 8
bool uc_ksym_has_data_symbols(const struct uc_ksym_stats *st);

/* read(2) size; exported for test_kallsyms.c (lines cut between blocks) */
#define UC_KSYM_BLOCK 65536

/* One pass over the file resolving syms[0..n) (each gets its own rc). It
 * stops as soon as every symbol is found (the file is ~10^5 lines, modules
 * last) and, with st, once the counts also prove data symbols
 * (uc_ksym_has_data_symbols) and a nonzero address: st->partial then. With a
 * symbol missing, the whole file is read. A line longer than 1022 bytes
 * is counted bad. Returns 0, or -errno when the file
 * cannot be opened or read. */
int uc_ksym_lookup_many(const char *abspath, struct uc_ksym *syms, size_t n,
			struct uc_ksym_stats *st);

/* Parse one line. 0 and the fields (name points into line, up to *name_len
 * bytes; *module set for "[mod]" lines), -EINVAL when it is not a symbol line.
 * Used inside kallsyms.c; exported for test_kallsyms.c and fuzz_kallsyms.c. */
int uc_ksym_parse_line(const char *line, uint64_t *addr, char *type, const char **name,
		       size_t *name_len, bool *module);

/* KASLR: the running address of a System.map symbol, given both files'
 * _text (offset = live_text - map_text, modulo 2^64 so it may be "negative"). */
uint64_t uc_ksym_relocate(uint64_t map_addr, uint64_t map_text, uint64_t live_text);

/*
 * Does a System.map belong to the running kernel? live[] and map[] are the
 * same names looked up in kallsyms and in the map; index 0 must be "_text",
 * the rest are text anchors both list whatever the config (_etext,
 * _sinittext, ...). 0 and *offset when _text is known in both and every
 * anchor found in both agrees after relocation, with at least one checked;
 * -EPERM live _text zeroed, -ENOENT _text missing, -ENODATA no anchor to
 * compare, -ESTALE an anchor disagrees (a different build).
 */
int uc_ksym_map_matches(const struct uc_ksym *live, const struct uc_ksym *map, size_t n,
			uint64_t *offset);

#endif
