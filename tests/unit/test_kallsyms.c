/*
 * test_kallsyms.c: kallsyms / System.map lookup (src/lib/kallsyms.c).
 *
 * Files are written into a fake root ($UCLAMPCTL_SYSROOT, set before the
 * library reads it), so the lookups go through sysroot.h like the real ones.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "uclamp/kmem.h"
#include "uclamp/sysroot.h"
#include "fakeroot.h"
#include "ksym_one.h"

static char root[512];
static const struct fr_suite suite = { root, sizeof(root), "test-kallsyms", true,
					{ "proc", "boot" } };

static void put(const char *abspath, const char *text)
{
	assert_int_equal(fr_write(root, abspath, text), 0);
}

/* text that may hold NUL bytes */
static void put_bin(const char *abspath, const char *data, size_t len)
{
	char p[600];
	FILE *f;

	assert_int_equal(fr_path(p, sizeof(p), root, abspath), 0);
	f = fopen(p, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

/* A slice of the 6.1 VM's /proc/kallsyms (root, kptr_restrict=0). */
static const char vm_kallsyms[] =
	"ffffffff88e00000 T _stext\n"
	"ffffffff88e00000 T _text\n"
	"ffffffff88e01000 T do_one_initcall\n"
	"ffffffff89a02c31 T _etext\n"
	"ffffffff89c00000 D __start_rodata\n"
	"ffffffff89c10000 D jiffies_64\n"
	"ffffffff89c10000 D jiffies\n"
	"ffffffff89c12340 D init_task\n"
	"ffffffff89c20000 d sched_domains_mutex\n"
	"ffffffff89c30000 R linux_banner\n"
	"ffffffff89d00000 T _sinittext\n"
	"ffffffff89d40000 T _einittext\n"
	"ffffffff89d46700 b __cfs_bandwidth_used\n"
	"ffffffff89d46710 B sched_uclamp_used\n"
	"ffffffff89d46720 B sched_smt_present\n"
	"ffffffff89d46730 B sched_schedstats\n"
	"ffffffff89d46740 B psi_disabled\n"
	"ffffffffc0001000 t helper_fn\t[e1000]\n"
	"ffffffffc0002000 d sched_uclamp_used\t[evil]\n"
	"ffffffffc0003000 b mod_data1\t[e1000]\n"
	"ffffffffc0003010 b mod_data2\t[e1000]\n";

static void parse_lines(void **state)
{
	static const struct {
		const char *line;
		int rc;
		uint64_t addr;
		char type;
		const char *name;
		bool module;
	} cases[] = {
		{ "ffffffff81000000 T _text\n", 0, 0xffffffff81000000ull, 'T', "_text", false },
		{ "ffffffff81000000 T _text", 0, 0xffffffff81000000ull, 'T', "_text", false },
		{ "ffffffff81000000 T _text\r\n", 0, 0xffffffff81000000ull, 'T', "_text", false },
		{ "ffffffffc0001000 t helper_fn\t[e1000]\n", 0, 0xffffffffc0001000ull, 't',
		  "helper_fn", true },
		{ "ffffffffc0001000 t bpf_prog_6deef7357e7b4530_sd_fw_egress\t[bpf]\n", 0,
		  0xffffffffc0001000ull, 't', "bpf_prog_6deef7357e7b4530_sd_fw_egress", true },
		{ "0000000000000000 B sched_uclamp_used\n", 0, 0, 'B', "sched_uclamp_used", false },
		{ "c1000000 T _text\n", 0, 0xc1000000ull, 'T', "_text", false },	/* 32-bit */
		{ "FFFFFFFF81000000 T _text\n", 0, 0xffffffff81000000ull, 'T', "_text", false },
		{ "ffffffff81000000 T foo.cold.12\n", 0, 0xffffffff81000000ull, 'T', "foo.cold.12",
		  false },
		/* 17 digits: wider than 64 bits */
		{ "1ffffffff81000000 T _text\n", -EINVAL, 0, 0, NULL, false },
		{ "xyz T _text\n", -EINVAL, 0, 0, NULL, false },
		{ "ffffffff81000000 T\n", -EINVAL, 0, 0, NULL, false },
		{ "ffffffff81000000 T \n", -EINVAL, 0, 0, NULL, false },
		{ "ffffffff81000000  T _text\n", -EINVAL, 0, 0, NULL, false },
		{ "ffffffff81000000 TT _text\n", -EINVAL, 0, 0, NULL, false },
		{ "ffffffff81000000 T _text junk\n", -EINVAL, 0, 0, NULL, false },
		{ "ffffffff81000000 T _text\t[unterminated\n", -EINVAL, 0, 0, NULL, false },
		{ " ffffffff81000000 T _text\n", -EINVAL, 0, 0, NULL, false },
		{ "\n", -EINVAL, 0, 0, NULL, false },
		{ "", -EINVAL, 0, 0, NULL, false },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t addr = 0;
		char type = 0;
		const char *name = NULL;
		size_t len = 0;
		bool module = false;
		int rc = uc_ksym_parse_line(cases[i].line, &addr, &type, &name, &len, &module);

		if (rc != cases[i].rc)
			fail_msg("'%s': rc %d, expected %d", cases[i].line, rc, cases[i].rc);
		if (rc)
			continue;
		assert_int_equal(addr, cases[i].addr);
		assert_int_equal(type, cases[i].type);
		assert_int_equal(len, strlen(cases[i].name));
		assert_memory_equal(name, cases[i].name, len);
		assert_int_equal(module, cases[i].module);
	}
}

static void lookup_basic(void **state)
{
	struct uc_ksym syms[] = {
		{ .name = "sched_uclamp_used" }, { .name = "_text" },
		{ .name = "__cfs_bandwidth_used" }, { .name = "no_such_symbol" },
		{ .name = "sched_uclamp" }, { .name = "helper_fn" },
	};
	struct uc_ksym_stats st;
	uint64_t a = 0;

	(void)state;
	put("/proc/kallsyms", vm_kallsyms);
	assert_int_equal(uc_ksym_lookup_many("/proc/kallsyms", syms, 6, &st), 0);
	assert_int_equal(syms[0].rc, 0);
	assert_int_equal(syms[0].addr, 0xffffffff89d46710ull);	/* not the module's */
	assert_int_equal(syms[0].type, 'B');
	assert_int_equal(syms[1].rc, 0);
	assert_int_equal(syms[1].addr, 0xffffffff88e00000ull);
	assert_int_equal(syms[2].rc, 0);
	assert_int_equal(syms[2].type, 'b');
	assert_int_equal(syms[3].rc, -ENOENT);
	assert_int_equal(syms[4].rc, -ENOENT);	/* a prefix is not a match */
	assert_int_equal(syms[5].rc, -ENOENT);	/* module symbols are never taken */
	assert_int_equal(st.lines, 21);
	assert_int_equal(st.modules, 4);
	assert_int_equal(st.bad, 0);
	assert_int_equal(st.nonzero, 17);
	/* jiffies_64 jiffies init_task sched_domains_mutex linux_banner + 4 keys (B) */
	assert_int_equal(st.data, 9);
	assert_true(uc_ksym_has_data_symbols(&st));

	assert_int_equal(ksym_one("/proc/kallsyms", "_etext", &a), 0);
	assert_int_equal(a, 0xffffffff89a02c31ull);
	assert_int_equal(ksym_one("/proc/kallsyms", "nope", &a), -ENOENT);
	assert_int_equal(ksym_one("/proc/no_such_file", "_text", &a), -ENOENT);
	assert_int_equal(uc_ksym_lookup_many("/proc/no_such_file", syms, 1, NULL), -ENOENT);
}

/* kptr_restrict: names listed, addresses zero */
static void zeroed_addresses(void **state)
{
	struct uc_ksym syms[] = {
		{ .name = "sched_uclamp_used" }, { .name = "_text" }, { .name = "absent" },
	};
	struct uc_ksym_stats st;
	char *z = strdup(vm_kallsyms), *p;
	uint64_t a = 42;

	(void)state;
	/* zero every address, as the kernel does for an unprivileged reader */
	for (p = z; *p; p = strchr(p, '\n') + 1)
		memset(p, '0', 16);
	put("/proc/kallsyms", z);
	free(z);
	assert_int_equal(uc_ksym_lookup_many("/proc/kallsyms", syms, 3, &st), 0);
	assert_int_equal(syms[0].rc, -EPERM);
	assert_int_equal(syms[0].type, 'B');	/* the name is there: the kernel has the key */
	assert_int_equal(syms[1].rc, -EPERM);
	assert_int_equal(syms[2].rc, -ENOENT);
	assert_int_equal(st.nonzero, 0);
	assert_true(uc_ksym_has_data_symbols(&st));	/* names still tell KALLSYMS_ALL */
	assert_int_equal(ksym_one("/proc/kallsyms", "sched_uclamp_used", &a), -EPERM);
	assert_int_equal(a, 42);	/* untouched */
}

static void duplicates_and_modules(void **state)
{
	struct uc_ksym syms[] = { { .name = "dup" }, { .name = "modonly" }, { .name = "late" } };
	struct uc_ksym_stats st;

	(void)state;
	put("/proc/kallsyms",
	    "ffffffffc0000000 t dup\t[first_mod]\n"	/* a module's comes first: skipped */
	    "ffffffff81000100 t dup\n"			/* the first vmlinux one: taken */
	    "ffffffff81000200 t dup\n"
	    "ffffffff81000300 T dup\n"
	    "ffffffffc0000100 d modonly\t[m]\n"
	    "ffffffffc0000200 d modonly\t[m2]\n"
	    "0000000000000000 t late\n"			/* zeroed first one decides */
	    "ffffffff81000400 t late\n");
	assert_int_equal(uc_ksym_lookup_many("/proc/kallsyms", syms, 3, &st), 0);
	assert_int_equal(syms[0].rc, 0);
	assert_int_equal(syms[0].addr, 0xffffffff81000100ull);
	assert_int_equal(syms[1].rc, -ENOENT);
	assert_int_equal(syms[2].rc, -EPERM);
	assert_int_equal(st.modules, 3);
	assert_int_equal(st.data, 0);	/* module data does not count */
}

/* A 6.18 kernel without KALLSYMS_ALL lists __start_/__stop_ markers typed
 * D/R/B, but no ordinary data symbol. */
static void kallsyms_all_heuristic(void **state)
{
	struct uc_ksym syms[] = { { .name = "sched_uclamp_used" } };
	struct uc_ksym_stats st;
	char buf[8192];
	size_t len = 0;

	(void)state;
	len += (size_t)snprintf(buf + len, sizeof(buf) - len, "ffffffff81000000 T _text\n");
	for (int i = 0; i < 40; i++)
		len += (size_t)snprintf(buf + len, sizeof(buf) - len,
					"ffffffff8240%04x %c __start_sec%d\n", i * 16, "DRB"[i % 3],
					i);
	len += (size_t)snprintf(buf + len, sizeof(buf) - len, "ffffffff83783000 B __init_begin\n");
	/* module data symbols do not count either */
	for (int i = 0; i < 20; i++)
		len += (size_t)snprintf(buf + len, sizeof(buf) - len,
					"ffffffffc000%04x d mod_var%d\t[m]\n", i * 16, i);
	put("/proc/kallsyms", buf);
	assert_int_equal(uc_ksym_lookup_many("/proc/kallsyms", syms, 1, &st), 0);
	assert_int_equal(syms[0].rc, -ENOENT);
	assert_int_equal(st.data, 0);
	assert_false(uc_ksym_has_data_symbols(&st));

	/* UC_KSYM_ALL_MIN - 1 ordinary data symbols: not yet */
	for (int i = 0; i < UC_KSYM_ALL_MIN - 1; i++)
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "ffffffff8300%04x d var%d\n",
					i * 16, i);
	put("/proc/kallsyms", buf);
	assert_int_equal(uc_ksym_lookup_many("/proc/kallsyms", syms, 1, &st), 0);
	assert_false(uc_ksym_has_data_symbols(&st));
	len += (size_t)snprintf(buf + len, sizeof(buf) - len, "ffffffff83010000 D last_var\n");
	put("/proc/kallsyms", buf);
	assert_int_equal(uc_ksym_lookup_many("/proc/kallsyms", syms, 1, &st), 0);
	assert_true(uc_ksym_has_data_symbols(&st));
	assert_false(uc_ksym_has_data_symbols(NULL));
}

static void bad_and_long_lines(void **state)
{
	struct uc_ksym syms[] = {
		{ .name = "after_long" }, { .name = "after_bad" }, { .name = "at_eof" },
	};
	struct uc_ksym_stats st;
	size_t n = 5000;
	char *buf = malloc(n + 512), *p = buf;

	(void)state;
	p += sprintf(p, "ffffffff81000000 T ");
	memset(p, 'x', n);	/* a 5000-character name: longer than any buffer */
	p += n;
	p += sprintf(p, "\nffffffff81000010 T after_long\n"
			"garbage line\n"
			"ffffffff81000000 T\n"
			"\n"
			"ffffffff81000020 T after_bad\n"
			"ffffffff81000030 T at_eof");	/* no final newline */
	put("/proc/kallsyms", buf);
	free(buf);
	assert_int_equal(uc_ksym_lookup_many("/proc/kallsyms", syms, 3, &st), 0);
	assert_int_equal(syms[0].rc, 0);
	assert_int_equal(syms[0].addr, 0xffffffff81000010ull);
	assert_int_equal(syms[1].rc, 0);
	assert_int_equal(syms[2].rc, 0);
	assert_int_equal(syms[2].addr, 0xffffffff81000030ull);
	assert_int_equal(st.bad, 4);
	assert_int_equal(st.lines, 3);
}

/* Start writing a large /proc/kallsyms (its path into p): _text first. */
static FILE *kallsyms_create(char *p, size_t n)
{
	FILE *f;

	assert_int_equal(fr_path(p, n, root, "proc/kallsyms"), 0);
	f = fopen(p, "w");
	assert_non_null(f);
	fprintf(f, "ffffffff81000000 T _text\n");
	return f;
}

/* 2 million lines (~70 MB): streamed (no line is kept), the symbol at the
 * very end found. Its speed is bench/'s job (run.sh 'cold'), not a timed test:
 * valgrind and sanitizers run this too. */
static void huge_file(void **state)
{
	const size_t nlines = 2000000;
	struct uc_ksym syms[] = { { .name = "sched_uclamp_used" }, { .name = "_text" } };
	struct uc_ksym_stats st;
	char p[600];
	FILE *f;

	(void)state;
	f = kallsyms_create(p, sizeof(p));
	for (size_t i = 1; i < nlines - 1; i++)
		fprintf(f, "ffffffff%08zx t some_function_name_%zu\n", 0x81000000 + i * 16, i);
	fprintf(f, "ffffffff89d46710 B sched_uclamp_used\n");
	fclose(f);

	assert_int_equal(uc_ksym_lookup_many("/proc/kallsyms", syms, 2, &st), 0);
	assert_int_equal(syms[0].rc, 0);
	assert_int_equal(syms[0].addr, 0xffffffff89d46710ull);
	assert_int_equal(st.lines, nlines);
	unlink(p);
}

/* The System.map + KASLR path's arithmetic and the check that the map
 * belongs to the running kernel. */
static void system_map_kaslr(void **state)
{
	static const char *const names[] = { "_text", "_etext", "_sinittext", "_einittext",
					     "sched_uclamp_used" };
	struct uc_ksym live[5], map[5];
	uint64_t off = 0, a;

	(void)state;
	/* the arithmetic: 6.1 VM numbers (link base 0xffffffff81000000) */
	assert_int_equal(uc_ksym_relocate(0xffffffff81f46710ull, 0xffffffff81000000ull,
					  0xffffffff88e00000ull),
			 0xffffffff89d46710ull);
	/* no KASLR */
	assert_int_equal(uc_ksym_relocate(0xffffffff81f46710ull, 0xffffffff81000000ull,
					  0xffffffff81000000ull),
			 0xffffffff81f46710ull);
	/* a negative offset (arm64 can load below the link address): wraps back */
	assert_int_equal(uc_ksym_relocate(0xffff800008123450ull, 0xffff800008000000ull,
					  0xffff800000010000ull),
			 0xffff800000133450ull);

	/* System.map (link-time) vs kallsyms (runtime) files */
	put("/boot/System.map-6.1.0-test",
	    "0000000000000000 D __per_cpu_start\n"
	    "ffffffff81000000 T _stext\n"
	    "ffffffff81000000 T _text\n"
	    "ffffffff81c02c31 T _etext\n"
	    "ffffffff81f00000 T _sinittext\n"
	    "ffffffff81f40000 T _einittext\n"
	    "ffffffff81f46710 B sched_uclamp_used\n");
	put("/proc/kallsyms",
	    "ffffffff88e00000 T _stext\n"
	    "ffffffff88e00000 T _text\n"
	    "ffffffff89a02c31 T _etext\n"
	    "ffffffff89d00000 T _sinittext\n"
	    "ffffffff89d40000 T _einittext\n");	/* no data symbols: no KALLSYMS_ALL */
	for (int i = 0; i < 5; i++)
		live[i].name = map[i].name = names[i];
	assert_int_equal(uc_ksym_lookup_many("/proc/kallsyms", live, 5, NULL), 0);
	assert_int_equal(uc_ksym_lookup_many("/boot/System.map-6.1.0-test", map, 5, NULL), 0);
	assert_int_equal(live[4].rc, -ENOENT);
	assert_int_equal(map[4].rc, 0);
	assert_int_equal(uc_ksym_map_matches(live, map, 4, &off), 0);
	assert_int_equal(off, 0xffffffff88e00000ull - 0xffffffff81000000ull);
	a = uc_ksym_relocate(map[4].addr, map[0].addr, live[0].addr);
	assert_int_equal(a, 0xffffffff89d46710ull);
	assert_int_equal(map[4].addr + off, a);

	/* a map from another build: _text agrees after relocation by definition,
	 * but _einittext does not */
	map[3].addr += 0x1000;
	assert_int_equal(uc_ksym_map_matches(live, map, 4, &off), -ESTALE);
	map[3].addr -= 0x1000;

	/* only _text to compare: cannot tell */
	assert_int_equal(uc_ksym_map_matches(live, map, 1, &off), -ENODATA);
	live[1].rc = live[2].rc = live[3].rc = -ENOENT;
	assert_int_equal(uc_ksym_map_matches(live, map, 4, &off), -ENODATA);
	live[1].rc = live[2].rc = live[3].rc = 0;

	/* kptr_restrict: live _text zeroed -> no offset */
	live[0].rc = -EPERM;
	assert_int_equal(uc_ksym_map_matches(live, map, 4, &off), -EPERM);
	live[0].rc = 0;
	map[0].rc = -ENOENT;
	assert_int_equal(uc_ksym_map_matches(live, map, 4, &off), -ENOENT);
	map[0].rc = 0;
	/* index 0 must be _text */
	assert_int_equal(uc_ksym_map_matches(live + 1, map + 1, 3, &off), -EINVAL);
}

/* A distro-sized table (150,000 lines, the last 40,000 modules'): once every
 * symbol is found and the counts have answered their questions, the rest of
 * the file is not read. With one symbol missing, or addresses all zero, all of it is. */
static void stops_early(void **state)
{
	const size_t nlines = 150000, nmod = 40000;
	struct uc_ksym syms[] = {
		{ .name = "_text" }, { .name = "sched_uclamp_used" }, { .name = "_einittext" },
	};
	struct uc_ksym_stats st;
	char p[4096];
	FILE *f;

	(void)state;
	f = kallsyms_create(p, sizeof(p));
	for (size_t i = 1; i < nlines - nmod - 3; i++)
		fprintf(f, "ffffffff%08zx %c sym_%zu\n", 0x81000000 + i * 16, i % 4 ? 't' : 'd', i);
	fprintf(f, "ffffffff89d46710 B sched_uclamp_used\nffffffff89f00000 T _einittext\n");
	fprintf(f, "ffffffff89f00010 b after_init\n");
	for (size_t i = 0; i < nmod; i++)
		fprintf(f, "ffffffffc%07zx t mod_fn_%zu\t[mod%zu]\n", i * 16, i, i % 50);
	fclose(f);

	assert_int_equal(uc_ksym_lookup_many("/proc/kallsyms", syms, 3, &st), 0);
	for (size_t i = 0; i < 3; i++)
		assert_int_equal(syms[i].rc, 0);
	assert_true(st.partial);
	assert_int_equal(st.lines, nlines - nmod - 1);	/* up to _einittext, no module line */
	assert_int_equal(st.modules, 0);
	assert_true(uc_ksym_has_data_symbols(&st));

	syms[1].name = "not_there";
	assert_int_equal(uc_ksym_lookup_many("/proc/kallsyms", syms, 3, &st), 0);
	assert_int_equal(syms[1].rc, -ENOENT);
	assert_false(st.partial);
	assert_int_equal(st.lines, nlines);
	assert_int_equal(st.modules, nmod);
	unlink(p);

	/* zeroed addresses: the "all zero" answer needs every line */
	put("/proc/kallsyms",
	    "0000000000000000 T _text\n0000000000000000 d a\n0000000000000000 d b\n"
	    "0000000000000000 d c\n0000000000000000 d dd\n0000000000000000 d e\n"
	    "0000000000000000 d f\n"
	    "0000000000000000 d g\n0000000000000000 d h\nffffffffc0000000 t m\t[mod]\n");
	syms[1].name = "h";
	syms[2].name = "a";
	assert_int_equal(uc_ksym_lookup_many("/proc/kallsyms", syms, 3, &st), 0);
	assert_int_equal(syms[0].rc, -EPERM);
	assert_false(st.partial);
	assert_int_equal(st.modules, 1);
	/* without stats the scan stops at the last symbol wanted */
	assert_int_equal(uc_ksym_lookup_many("/proc/kallsyms", syms, 3, NULL), 0);
	assert_int_equal(syms[1].rc, -EPERM);
}
/* Lines that look like a wanted one but are not symbol lines are never
 * taken (hostile input), however close to the usual shape; odd but valid
 * shapes (CRLF, short or uppercase addresses, spaces) are, as the parser says. */
static void odd_lines(void **state)
{
	static const char text[] =
		"zfffffff81000000 T want_a\n"		/* not hex */
		"ffffffff81000000 T want_a junk\n"	/* more after the name */
		"ffffffff81000000  T want_a\n"		/* two spaces */
		"ffffffff81000000 T  want_a\n"
		"1ffffffff81000000 T want_a\n"		/* 17 digits */
		"ffffffff81000000 \x01 want_a\n"	/* no type */
		"ffffffff81000000 T want_a\x80\n"	/* a byte no name has */
		"ffffffff81000000 T want_a\t[mod\n"	/* no ']' */
		"ffffffff81000000 T want_a\t[m]x\n"	/* more after it */
		"ffffffff81000000 T want_a\t[m]od]\n"	/* the first ']' counts */
		"ffffffff81000000 T want_a\0\n"		/* a NUL hides the rest */
		"ffffffff81000000 T want_a\0junk\n"
		"ffffffff81000000 t want_a [mod]\n"	/* a module line, space-separated */
		"ffffffff81000000 t want_a\t[]\n"
		"ffffffff81000000 T want_\n"		/* prefixes of wanted names */
		"ffffffff81000000 T want_aa\n"
		"ffffffff81000000 T want\n"
		"ffffffff81000010 T want_a\r\n"		/* CRLF */
		"81000020 t want_b\n"			/* short, uppercase: still hex */
		"FFFFFFFF81000030 D want_c  \t \n"	/* trailing blanks */
		"ffffffff81000040 T want_d\t[mod]\r\n"	/* a module line, CRLF */
		"ffffffff81000050 T want_d\r\n";
	struct uc_ksym syms[] = {
		{ .name = "want_a" }, { .name = "want_b" }, { .name = "want_c" },
		{ .name = "want_d" }, { .name = "want_" }, { .name = "not_there" },
	};
	struct uc_ksym_stats st;

	(void)state;
	put_bin("/proc/kallsyms", text, sizeof(text) - 1);
	assert_int_equal(uc_ksym_lookup_many("/proc/kallsyms", syms, 6, &st), 0);
	assert_int_equal(syms[0].rc, 0);
	assert_int_equal(syms[0].addr, 0xffffffff81000010ull);
	assert_int_equal(syms[0].type, 'T');
	assert_int_equal(syms[1].addr, 0x81000020ull);
	assert_int_equal(syms[1].type, 't');
	assert_int_equal(syms[2].addr, 0xffffffff81000030ull);
	assert_int_equal(syms[3].addr, 0xffffffff81000050ull);
	assert_int_equal(syms[4].rc, 0);
	assert_int_equal(syms[4].addr, 0xffffffff81000000ull);
	assert_int_equal(syms[5].rc, -ENOENT);
	assert_int_equal(st.bad, 12);
	assert_int_equal(st.lines, 10);
	assert_int_equal(st.modules, 3);
	assert_int_equal(st.nonzero, 7);
	assert_int_equal(st.data, 1);
	assert_false(st.partial);
}

/* 1022 bytes before the '\n' is the longest line taken; a line longer than
 * a whole block is dropped and the next one still read */
static void line_length_limit(void **state)
{
	const size_t huge = UC_KSYM_BLOCK + 5000;
	struct uc_ksym syms[] = { { .name = NULL }, { .name = "after" } };
	char *buf = malloc(2 * huge + 4096), *p, *name = malloc(1100);
	struct uc_ksym_stats st;

	(void)state;
	assert_non_null(buf);
	assert_non_null(name);
	for (size_t len = 1020; len <= 1024; len++) {
		/* a name that makes the line len bytes long: 19 + name */
		memset(name, 'n', len - 19);
		name[len - 19] = '\0';
		p = buf + sprintf(buf, "ffffffff81000000 T %s\n", name);
		p += sprintf(p, "ffffffff81000010 T after\n");
		put("/proc/kallsyms", buf);
		syms[0].name = name;
		assert_int_equal(uc_ksym_lookup_many("/proc/kallsyms", syms, 2, &st), 0);
		if ((syms[0].rc == 0) != (len <= 1022))
			fail_msg("a %zu-byte line: rc %d", len, syms[0].rc);
		assert_int_equal(st.bad, len <= 1022 ? 0 : 1);
		assert_int_equal(syms[1].addr, 0xffffffff81000010ull);
		/* the same line last, without a newline */
		sprintf(buf, "ffffffff81000010 T after\nffffffff81000000 T %s", name);
		put("/proc/kallsyms", buf);
		assert_int_equal(uc_ksym_lookup_many("/proc/kallsyms", syms, 2, &st), 0);
		if ((syms[0].rc == 0) != (len <= 1022))
			fail_msg("a %zu-byte last line: rc %d", len, syms[0].rc);
	}
	/* longer than a block, twice: in the middle and as the last line */
	p = buf + sprintf(buf, "ffffffff81000000 T ");
	memset(p, 'x', huge);
	p += huge;
	p += sprintf(p, "\nffffffff81000010 T after\nffffffff81000020 T ");
	memset(p, 'y', huge);
	p[huge] = '\0';
	put("/proc/kallsyms", buf);
	syms[0].name = "nothing";
	assert_int_equal(uc_ksym_lookup_many("/proc/kallsyms", syms, 2, &st), 0);
	assert_int_equal(syms[1].addr, 0xffffffff81000010ull);
	assert_int_equal(st.bad, 2);
	assert_int_equal(st.lines, 1);
	free(buf);
	free(name);
}

/* A wanted line at every cut a block can make through it (and the file's
 * last line, without a newline, across the next cut): found, counted once. */
static void lines_across_blocks(void **state)
{
	const char want[] = "ffffffff89d46710 B sched_uclamp_used\n";
	const size_t wl = sizeof(want) - 1, size = 2 * UC_KSYM_BLOCK + 256;
	struct uc_ksym syms[] = { { .name = "sched_uclamp_used" }, { .name = "last_one" },
				  { .name = "none" } };
	char *buf = malloc(size);
	struct uc_ksym_stats st;

	(void)state;
	assert_non_null(buf);
	for (size_t cut = 0; cut <= wl; cut++) {
		/* filler lines of 32 bytes, then one that puts want at BLOCK - cut */
		size_t at = UC_KSYM_BLOCK - cut, len = 0, nlines = 0;
		size_t fill = at - 40;	/* the filler ends where the padding line starts */

		while (len + 32 <= fill) {
			len += (size_t)sprintf(buf + len, "ffffffff81%06zx t f%09zu\n", nlines,
					       nlines);
			nlines++;
		}
		/* a padding line of at - len bytes (>= 21) */
		len += (size_t)sprintf(buf + len, "ffffffff82000000 d %.*s\n",
				       (int)(at - len - 20), "pppppppppppppppppppppppppppppppppppppp"
				       "pppppppppppppppppppppppppppppppppppppppp");
		assert_int_equal(len, at);
		memcpy(buf + len, want, wl);
		len += wl;
		nlines += 2;
		/* the last line straddles the second cut, with no newline */
		while (len + 32 <= 2 * UC_KSYM_BLOCK - cut) {
			len += (size_t)sprintf(buf + len, "ffffffff83%06zx t g%09zu\n", nlines,
					       nlines);
			nlines++;
		}
		len += (size_t)sprintf(buf + len, "ffffffff84000000 T last_one");
		nlines++;
		put_bin("/proc/kallsyms", buf, len);
		assert_int_equal(uc_ksym_lookup_many("/proc/kallsyms", syms, 3, &st), 0);
		if (syms[0].rc || syms[0].addr != 0xffffffff89d46710ull || syms[1].rc ||
		    syms[1].addr != 0xffffffff84000000ull)
			fail_msg("cut %zu: rc %d %d", cut, syms[0].rc, syms[1].rc);
		assert_int_equal(st.lines, nlines);
		assert_int_equal(st.bad, 0);
		/* early stop when the last one wanted is cut too */
		syms[1].name = "sched_uclamp_used";
		assert_int_equal(uc_ksym_lookup_many("/proc/kallsyms", syms, 2, NULL), 0);
		assert_int_equal(syms[1].addr, 0xffffffff89d46710ull);
		syms[1].name = "last_one";
	}
	free(buf);
}

/* The reference: each line through uc_ksym_parse_line alone, as the
 * line-by-line reader did. */
static void reference(const char *text, size_t size, struct uc_ksym *syms, size_t n,
		      struct uc_ksym_stats *st)
{
	const char *p = text, *e = text + size;

	memset(st, 0, sizeof(*st));
	for (size_t i = 0; i < n; i++)
		syms[i] = (struct uc_ksym){ .name = syms[i].name, .rc = -ENOENT };
	while (p < e) {
		const char *nl = memchr(p, '\n', (size_t)(e - p)), *name;
		size_t len = nl ? (size_t)(nl - p) : (size_t)(e - p), name_len;
		char line[1100], type;
		uint64_t addr;
		bool module;

		if (len > 1022 || memchr(p, '\0', len)) {
			st->bad++;
		} else {
			memcpy(line, p, len);
			line[len] = '\0';
			if (uc_ksym_parse_line(line, &addr, &type, &name, &name_len, &module)) {
				st->bad++;
			} else {
				st->lines++;
				st->modules += module;
				if (!module) {
					st->nonzero += addr != 0;
					st->data += strchr("bBdDrRgGsSvV", type) &&
						    strncmp(name, "__", 2);
					for (size_t i = 0; i < n; i++)
						if (!syms[i].type &&
						    strlen(syms[i].name) == name_len &&
						    !memcmp(syms[i].name, name, name_len)) {
							syms[i].type = type;
							syms[i].addr = addr;
							syms[i].rc = addr ? 0 : -EPERM;
						}
				}
			}
		}
		p = nl ? nl + 1 : e;
	}
}

/* Mutated lines against the reference: the word-by-word shape check
 * must take, count and refuse exactly what the parser does. */
static void same_as_parser(void **state)
{
	static const char *const shapes[] = {
		"ffffffff81000000 T sym_a\n", "ffffffffc0001000 t sym_b\t[mod]\n",
		"0000000000000000 d sym_c\n", "ffffffff81abcdef B __sym_d\n",
		"ffffffff81000000 r a_rather_longer_symbol_name_e\n",
		"ffffffffc0001000 t sym_a\t[__builtin__ftrace]\n",
	};
	static const char noise[] = { ' ', '\t', '\r', '\n', '[', ']', '\0', '\x80', '\x7f',
				      'G', 'A', '0', 'x', '_', 'd' };
	struct uc_ksym got[] = { { .name = "sym_a" }, { .name = "sym_b" }, { .name = "sym_c" },
				 { .name = "__sym_d" }, { .name = "a_rather_longer_symbol_name_e" },
				 { .name = "x" }, { .name = "none" } };
	struct uc_ksym want[7];
	struct uc_ksym_stats gs, ws;
	uint32_t seed = 12345;
	char *text = malloc(200000);

	(void)state;
	assert_non_null(text);
	for (int round = 0; round < 40; round++) {
		size_t len = 0;

		for (int l = 0; l < 2000; l++) {
			const char *s = shapes[(seed = seed * 1103515245 + 12345) >> 16 & 3 ?
					       (seed >> 8) % 6 : 0];
			size_t sl = strlen(s);

			memcpy(text + len, s, sl);
			/* one in four lines gets a byte or two changed */
			for (int m = 0; m < 2; m++) {
				seed = seed * 1103515245 + 12345;
				if ((seed >> 16) % 4 == 0)
					text[len + (seed >> 4) % sl] =
						noise[(seed >> 20) % sizeof(noise)];
			}
			len += sl;
		}
		if (round & 1)
			len--;	/* no final newline */
		put_bin("/proc/kallsyms", text, len);
		memcpy(want, got, sizeof(want));
		reference(text, len, want, 7, &ws);
		assert_int_equal(uc_ksym_lookup_many("/proc/kallsyms", got, 7, &gs), 0);
		assert_int_equal(gs.lines, ws.lines);
		assert_int_equal(gs.bad, ws.bad);
		assert_int_equal(gs.modules, ws.modules);
		assert_int_equal(gs.nonzero, ws.nonzero);
		assert_int_equal(gs.data, ws.data);
		for (size_t i = 0; i < 7; i++) {
			assert_int_equal(got[i].rc, want[i].rc);
			assert_int_equal(got[i].addr, want[i].addr);
			assert_int_equal(got[i].type, want[i].type);
		}
	}
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(parse_lines),
		cmocka_unit_test(lookup_basic),
		cmocka_unit_test(zeroed_addresses),
		cmocka_unit_test(duplicates_and_modules),
		cmocka_unit_test(kallsyms_all_heuristic),
		cmocka_unit_test(bad_and_long_lines),
		cmocka_unit_test(huge_file),
		cmocka_unit_test(stops_early),
		cmocka_unit_test(system_map_kaslr),
		cmocka_unit_test(odd_lines),
		cmocka_unit_test(line_length_limit),
		cmocka_unit_test(lines_across_blocks),
		cmocka_unit_test(same_as_parser),
	};

	return fr_run(&suite, tests, NULL, NULL);
}
