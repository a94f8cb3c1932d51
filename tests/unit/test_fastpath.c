/*
 * test_fastpath.c: detecting sched_uclamp_used (src/lib/fastpath.c,
 * evidence.c, kmem.c).
 *
 * - the evidence rules as pure functions (incl. RT and deadline tasks);
 * - the version rule table (5.3, 5.4.61, 5.4.62, 5.8, 5.9, 6.1, distro 5.4.0-N);
 * - the order of sources against a fake root ($UCLAMPCTL_SYSROOT): crafted
 *   proc/kallsyms, proc/kcore (ELF), boot/System.map-REL and sysctls, with
 *   the probe, the cgroups and the tasks scripted through uc_fastpath_set_ops().
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <elf.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "uclamp/fastpath.h"
#include "uclamp/sysroot.h"
#include "fakeroot.h"

#define CAP_SYS_RAWIO_NR 17	/* linux/capability.h */

static char root[512];
static const struct fr_suite suite = { root, sizeof(root), "test-fastpath", true,
					{ "proc/sys/kernel", "boot" } };

/* ---- fake root helpers ---- */
static void path_of(char *buf, size_t n, const char *abspath)
{
	assert_int_equal(fr_path(buf, n, root, abspath), 0);
}

static void put(const char *abspath, const char *text)
{
	assert_int_equal(fr_write(root, abspath, text), 0);
}

static void rm(const char *abspath)
{
	assert_int_equal(fr_remove(root, abspath), 0);
}

static bool has_note(char notes[][UC_FP_NOTE_LEN], size_t n, const char *needle)
{
	for (size_t i = 0; i < n; i++)
		if (strstr(notes[i], needle))
			return true;
	return false;
}

#define assert_note(arr, n, s) \
	do { \
		if (!has_note(arr, n, s)) { \
			for (size_t _i = 0; _i < (n); _i++) \
				print_message("    note: %s\n", (arr)[_i]); \
			fail_msg("no note contains '%s'", s); \
		} \
	} while (0)

/* ---- the kernel images ---- */
#define LINK_TEXT 0xffffffff81000000ull
#define LIVE_TEXT 0xffffffff88e00000ull		/* KASLR offset 0x7e00000 */
#define KEY_OFF 0xf46710ull			/* sched_uclamp_used - _text */
#define SEG_SIZE 0x1000000ull

/* kallsyms: with data symbols (KALLSYMS_ALL) or not, addresses or zeros */
static void put_kallsyms(bool all, bool with_key, bool zeroed)
{
	char buf[4096];
	size_t len = 0;
	uint64_t t = zeroed ? 0 : LIVE_TEXT;

#define L(fmt, ...) len += (size_t)snprintf(buf + len, sizeof(buf) - len, fmt "\n", __VA_ARGS__)
	L("%016llx T _stext", (unsigned long long)t);
	L("%016llx T _text", (unsigned long long)t);
	L("%016llx T _etext", (unsigned long long)(t ? t + 0xc02c31 : 0));
	L("%016llx T _sinittext", (unsigned long long)(t ? t + 0xf00000 : 0));
	L("%016llx T _einittext", (unsigned long long)(t ? t + 0xf40000 : 0));
	L("%016llx D __start_rodata", (unsigned long long)(t ? t + 0xe00000 : 0));
	if (all)
		for (int i = 0; i < 12; i++)
			L("%016llx D some_data_%d",
			  (unsigned long long)(t ? t + 0xe10000 + i * 8u : 0), i);
	if (with_key)
		L("%016llx B sched_uclamp_used", (unsigned long long)(t ? t + KEY_OFF : 0));
	L("%016llx t mod_fn\t[mod]", (unsigned long long)(t ? 0xffffffffc0000000ull : 0));
#undef L
	put("/proc/kallsyms", buf);
}

/* System.map at link addresses; anchor_skew moves _einittext (another build) */
static void put_map(const char *rel, bool with_key, uint64_t anchor_skew)
{
	char buf[1024], p[128];

	snprintf(buf, sizeof(buf),
		 "ffffffff81000000 T _stext\n"
		 "ffffffff81000000 T _text\n"
		 "%016llx T _etext\n"
		 "%016llx T _sinittext\n"
		 "%016llx T _einittext\n"
		 "%s",
		 LINK_TEXT + 0xc02c31, LINK_TEXT + 0xf00000, LINK_TEXT + 0xf40000 + anchor_skew,
		 with_key ? "ffffffff81f46710 B sched_uclamp_used\n" : "");
	snprintf(p, sizeof(p), "/boot/System.map-%s", rel);
	put(p, buf);
}

/* /proc/kcore: a PT_NOTE, then one PT_LOAD over the running text with the
 * key's 4 bytes set to value */
static void put_kcore(int32_t value)
{
	char p[512];
	Elf64_Ehdr eh;
	Elf64_Phdr ph[2];
	const uint64_t data_off = 0x2000;
	FILE *f;

	memset(&eh, 0, sizeof(eh));
	memset(ph, 0, sizeof(ph));
	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? ELFDATA2LSB : ELFDATA2MSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	eh.e_type = ET_CORE;
	eh.e_version = EV_CURRENT;
	eh.e_phoff = sizeof(eh);
	eh.e_ehsize = sizeof(eh);
	eh.e_phentsize = sizeof(Elf64_Phdr);
	eh.e_phnum = 2;
	ph[0].p_type = PT_NOTE;
	ph[0].p_offset = 0x1000;
	ph[0].p_filesz = 0x10;
	ph[1].p_type = PT_LOAD;
	ph[1].p_offset = data_off;
	ph[1].p_vaddr = LIVE_TEXT;
	ph[1].p_filesz = ph[1].p_memsz = SEG_SIZE;
	path_of(p, sizeof(p), "/proc/kcore");
	f = fopen(p, "w");
	assert_non_null(f);
	fwrite(&eh, sizeof(eh), 1, f);
	fwrite(ph, sizeof(ph), 1, f);
	/* junk around the key, so an off-by-some read is caught */
	fseek(f, (long)(data_off + KEY_OFF - 4), SEEK_SET);
	fwrite("\x55\x55\x55\x55", 4, 1, f);
	fwrite(&value, 4, 1, f);
	fwrite("\x77\x77\x77\x77", 4, 1, f);
	assert_int_equal(ftruncate(fileno(f), (off_t)(data_off + SEG_SIZE)), 0);
	fclose(f);
}

static void put_sysctls(long min, long max, long rt)
{
	char b[32];

	if (min < 0) {
		rm("/proc/sys/kernel/sched_util_clamp_min");
		rm("/proc/sys/kernel/sched_util_clamp_max");
		rm("/proc/sys/kernel/sched_util_clamp_min_rt_default");
		return;
	}
	snprintf(b, sizeof(b), "%ld\n", min);
	put("/proc/sys/kernel/sched_util_clamp_min", b);
	snprintf(b, sizeof(b), "%ld\n", max);
	put("/proc/sys/kernel/sched_util_clamp_max", b);
	snprintf(b, sizeof(b), "%ld\n", rt);
	put("/proc/sys/kernel/sched_util_clamp_min_rt_default", b);
}

/* ---- scripted probe, cgroups, tasks ---- */
static enum uc_support probe_answer;
static int probe_errno = -EPERM;	/* an UNKNOWN probe's error */
static struct uc_fp_cg_sample fake_cgs[64];
static size_t nfake_cgs;
static struct uc_fp_task_sample fake_tasks[64];
static size_t nfake_tasks;
static int cg_calls, task_calls, tasks_visited;

static enum uc_support fake_probe(int *err)
{
	*err = probe_answer == UC_SUPPORT_YES ? -EINVAL :
	       probe_answer == UC_SUPPORT_NOT_BUILT ? -EOPNOTSUPP : probe_errno;
	return probe_answer;
}

static int fake_cgroups(uc_fp_cg_fn fn, void *data)
{
	cg_calls++;
	for (size_t i = 0; i < nfake_cgs; i++)
		if (fn(&fake_cgs[i], data))
			return 1;
	return 0;
}

static int fake_tasks_walk(uc_fp_task_fn fn, void *data)
{
	task_calls++;
	for (size_t i = 0; i < nfake_tasks; i++) {
		tasks_visited++;
		if (fn(&fake_tasks[i], data))
			return 1;
	}
	return 0;
}

static const struct uc_fp_ops fake_ops = { fake_probe, fake_cgroups, fake_tasks_walk };

static void add_task(pid_t tid, int policy, uint32_t min, uint32_t max)
{
	fake_tasks[nfake_tasks++] = (struct uc_fp_task_sample){
		.pid = tid, .tid = tid, .comm = "t", .policy = policy, .min = min, .max = max
	};
}

static void add_cg(const char *path, int min, int max)
{
	fake_cgs[nfake_cgs++] = (struct uc_fp_cg_sample){ .path = path, .has_files = true,
							  .min_pct100 = min, .max_pct100 = max };
}

/* A 6.1 uclamp system, nothing used: every source available. */
static int setup_system(void **state)
{
	(void)state;
	put("/proc/sys/kernel/osrelease", "6.1.0-test\n");
	rm("/proc/version_signature");
	/* no per-boot cache (setup_cache makes one) */
	rm("/proc/sys/kernel/random/boot_id");
	put("/proc/sys/kernel/kptr_restrict", "0\n");
	put("/proc/sys/kernel/perf_event_paranoid", "2\n");
	put_sysctls(1024, 1024, 1024);
	put_kallsyms(true, true, false);
	put_kcore(0);
	rm("/boot/System.map-6.1.0-test");
	probe_answer = UC_SUPPORT_YES;
	probe_errno = -EPERM;
	nfake_cgs = nfake_tasks = 0;
	cg_calls = task_calls = tasks_visited = 0;
	add_cg("system.slice", 0, 10000);
	add_cg("user.slice", 0, 10000);
	add_task(1, 0, 0, 1024);
	add_task(2, 1, 1024, 1024);	/* an RT task: min 1024 by default */
	add_task(3, 6, 0, 1024);	/* deadline */
	uc_fastpath_set_ops(&fake_ops);
	return 0;
}

static void detect(struct uc_fastpath *fp, unsigned flags, enum uc_key_state want,
		   enum uc_fp_source src)
{
	assert_int_equal(uc_fastpath_detect_flags(fp, flags), 0);
	if (fp->state != want || fp->source != src) {
		print_message("    how: %s\n", fp->how);
		for (size_t i = 0; i < fp->nunavailable; i++)
			print_message("    unavailable: %s\n", fp->unavailable[i]);
		fail_msg("state %s/%s, expected %s/%s", uc_key_state_name(fp->state),
			 uc_fp_source_name(fp->source), uc_key_state_name(want),
			 uc_fp_source_name(src));
	}
	assert_true(fp->how[0] != '\0');
}

/* ================= the evidence rules ================= */

static void evidence_sysctls(void **state)
{
	struct uc_sysctl_values v = { 1024, 1024, 1024 };
	struct uc_fastpath fp;

	(void)state;
	memset(&fp, 0, sizeof(fp));
	assert_false(uc_fp_sysctl_evidence(&v, &fp));
	v.rt_default = UC_SYSCTL_ABSENT;	/* 5.3-5.8: no rt_default */
	assert_false(uc_fp_sysctl_evidence(&v, &fp));
	assert_int_equal(fp.nevidence, 0);
	v.min = 512;
	assert_true(uc_fp_sysctl_evidence(&v, &fp));
	assert_int_equal(fp.nevidence, 1);
	assert_string_equal(fp.evidence[0], "sysctl sched_util_clamp_min = 512 (default 1024)");
	v.min = 1024;
	v.max = 0;
	assert_true(uc_fp_sysctl_evidence(&v, NULL));
	v.max = 1024;
	v.rt_default = 0;
	assert_true(uc_fp_sysctl_evidence(&v, &fp));
	assert_note(fp.evidence, fp.nevidence, "sched_util_clamp_min_rt_default = 0");
	assert_int_equal(fp.scan.evidence, 2);
}

static void evidence_cgroups(void **state)
{
	static const struct {
		bool files;
		int min, max;
		bool evidence;
		const char *note;
	} cases[] = {
		{ true, 0, 10000, false, NULL },
		/* no files (root, no UCLAMP_TASK_GROUP): nothing */
		{ false, 5000, 5000, false, NULL },
		{ true, 2050, 10000, true, "cpu.uclamp.min = 20.50 (default 0.00)" },
		{ true, 0, 8000, true, "cpu.uclamp.max = 80.00 (default max)" },
		{ true, 1, 9999, true, "cpu.uclamp.min = 0.01, cpu.uclamp.max = 99.99" },
		{ true, 10000, 10000, true, "cpu.uclamp.min = max" },
		{ true, 0, 0, true, "cpu.uclamp.max = 0.00" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct uc_fp_cg_sample c = { .path = "a/b",
					     .has_files = cases[i].files,
					     .min_pct100 = cases[i].min,
					     .max_pct100 = cases[i].max };
		struct uc_fastpath fp;

		memset(&fp, 0, sizeof(fp));
		if (uc_fp_cgroup_evidence(&c, &fp) != cases[i].evidence)
			fail_msg("case %zu: evidence %d expected", i, cases[i].evidence);
		assert_int_equal(fp.nevidence, cases[i].evidence ? 1 : 0);
		if (cases[i].note) {
			assert_note(fp.evidence, fp.nevidence, cases[i].note);
			assert_note(fp.evidence, fp.nevidence, "cgroup a/b:");
		}
	}
}

static void evidence_tasks(void **state)
{
	enum { OTHER = 0, FIFO = 1, RR = 2, BATCH = 3, IDLE = 5, DL = 6, EXT = 7 };
	static const struct {
		int policy;
		uint32_t min, max;
		long rt_default;
		bool evidence;
	} cases[] = {
		/* fair tasks: defaults 0/1024 */
		{ OTHER, 0, 1024, 1024, false },
		{ OTHER, 100, 1024, 1024, true },
		{ OTHER, 0, 800, 1024, true },
		{ OTHER, 1024, 1024, 1024, true },
		{ OTHER, 0, 0, 1024, true },
		{ BATCH, 0, 1024, 1024, false },
		{ IDLE, 10, 1024, 1024, true },
		{ EXT, 0, 1024, 1024, false },
		/* RT tasks read min = rt_default (1024 unless changed): not evidence */
		{ FIFO, 1024, 1024, 1024, false },
		{ RR, 1024, 1024, 1024, false },
		{ FIFO, 1024, 1024, UC_SYSCTL_ABSENT, false },	/* 5.3-5.8 */
		{ FIFO, 512, 1024, 512, false },	/* follows a changed rt_default */
		/* a user's 1024, or not yet synced: unprovable */
		{ FIFO, 1024, 1024, 512, false },
		{ FIFO, 512, 1024, 1024, true },
		{ FIFO, 512, 1024, UC_SYSCTL_ABSENT, true },
		{ FIFO, 0, 1024, 1024, true },
		{ RR, 1024, 512, 1024, true },		/* max always proves it */
		/* deadline: min may follow rt_default or be 0, depending on the kernel */
		{ DL, 0, 1024, 1024, false },
		{ DL, 1024, 1024, 1024, false },
		{ DL, 300, 1024, 300, false },
		{ DL, 300, 1024, 1024, true },
		{ DL, 0, 900, 1024, true },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct uc_fp_task_sample t = { 10, 11, "worker", cases[i].policy,
					       cases[i].min, cases[i].max };
		struct uc_fastpath fp;

		memset(&fp, 0, sizeof(fp));
		if (uc_fp_task_evidence(&t, cases[i].rt_default, &fp) != cases[i].evidence)
			fail_msg("case %zu (policy %d min %u max %u rt_default "
				 "%ld): expected evidence %d", i, cases[i].policy, cases[i].min,
				 cases[i].max, cases[i].rt_default, cases[i].evidence);
		if (cases[i].evidence)
			assert_note(fp.evidence, fp.nevidence,
				    "task 10, thread 11 (worker) requests");
	}
}

/* Every rule over lists (one item per sysctl): the number of items that
 * are evidence. */
static size_t all_evidence(const struct uc_sysctl_values *sys, const struct uc_fp_cg_sample *cg,
		      size_t ncg, const struct uc_fp_task_sample *tasks, size_t ntasks,
		      struct uc_fastpath *fp)
{
	size_t n = 0;
	long rtd = sys ? sys->rt_default : UC_SYSCTL_ABSENT;

	if (sys) {
		/* one item per sysctl */
		struct uc_sysctl_values one = { UC_SYSCTL_ABSENT, UC_SYSCTL_ABSENT,
						UC_SYSCTL_ABSENT };

		one.min = sys->min;
		n += uc_fp_sysctl_evidence(&one, fp);
		one.min = UC_SYSCTL_ABSENT;
		one.max = sys->max;
		n += uc_fp_sysctl_evidence(&one, fp);
		one.max = UC_SYSCTL_ABSENT;
		one.rt_default = sys->rt_default;
		n += uc_fp_sysctl_evidence(&one, fp);
	}
	for (size_t i = 0; i < ncg; i++)
		n += uc_fp_cgroup_evidence(&cg[i], fp);
	for (size_t i = 0; i < ntasks; i++)
		n += uc_fp_task_evidence(&tasks[i], rtd, fp);
	return n;
}

static void evidence_lists(void **state)
{
	struct uc_sysctl_values sys = { 1024, 900, 1024 };
	struct uc_fp_cg_sample cg[] = {
		{ .path = "a", .has_files = true, .min_pct100 = 0, .max_pct100 = 10000 },
		{ .path = "b", .has_files = true, .min_pct100 = 0, .max_pct100 = 5000 },
		{ .path = "c", .has_files = false, .min_pct100 = 9, .max_pct100 = 9 },
	};
	struct uc_fp_task_sample t[] = {
		{ 1, 1, "init", 0, 0, 1024 },
		{ 2, 2, "rt", 1, 1024, 1024 },
		{ 3, 3, "boosted", 0, 512, 1024 },
		{ 4, 4, NULL, 1, 1024, 1024 },
	};
	struct uc_fastpath fp;

	(void)state;
	memset(&fp, 0, sizeof(fp));
	assert_int_equal(all_evidence(&sys, cg, 3, t, 4, &fp), 3);
	assert_int_equal(fp.nevidence, 3);
	assert_note(fp.evidence, fp.nevidence, "sched_util_clamp_max = 900");
	assert_note(fp.evidence, fp.nevidence, "cgroup b: cpu.uclamp.max = 50.00");
	assert_note(fp.evidence, fp.nevidence, "task 3 (boosted) requests min 512 (default 0)");
	/* nothing at all: zero, and no notes */
	sys.max = 1024;
	memset(&fp, 0, sizeof(fp));
	assert_int_equal(all_evidence(&sys, cg, 1, t, 2, &fp), 0);
	assert_int_equal(fp.nevidence, 0);
	assert_int_equal(all_evidence(NULL, NULL, 0, NULL, 0, NULL), 0);
}

/* ================= the version rule ================= */

static void version_rule(void **state)
{
	static const struct {
		const char *rel, *sig;
		enum uc_fp_kver want;
	} cases[] = {
		{ "4.19.0-21-amd64", NULL, UC_FP_KVER_NO_UCLAMP },
		{ "5.2.21", NULL, UC_FP_KVER_NO_UCLAMP },
		{ "5.3", NULL, UC_FP_KVER_PREDATES_KEY },
		{ "5.3.0", NULL, UC_FP_KVER_PREDATES_KEY },
		{ "5.3.18-59.37-default", NULL, UC_FP_KVER_PREDATES_KEY },
		{ "5.4.0", NULL, UC_FP_KVER_PREDATES_KEY },
		{ "5.4.61", NULL, UC_FP_KVER_PREDATES_KEY },
		{ "5.4.61-android11-2-00001", NULL, UC_FP_KVER_PREDATES_KEY },
		{ "5.4.62", NULL, UC_FP_KVER_HAS_KEY },
		{ "5.4.62-rt38", NULL, UC_FP_KVER_HAS_KEY },
		{ "5.4.300", NULL, UC_FP_KVER_HAS_KEY },
		{ "5.4", NULL, UC_FP_KVER_UNSURE },
		/* Ubuntu: sublevel unknown */
		{ "5.4.0-42-generic", NULL, UC_FP_KVER_UNSURE },
		{ "5.4.0-42-generic", "Ubuntu 5.4.0-42.46-generic 5.4.44",
		  UC_FP_KVER_PREDATES_KEY },
		{ "5.4.0-150-generic", "Ubuntu 5.4.0-150.167-generic 5.4.233", UC_FP_KVER_HAS_KEY },
		{ "5.4.0-42-generic", "garbage", UC_FP_KVER_UNSURE },
		{ "5.5.19", NULL, UC_FP_KVER_PREDATES_KEY },
		{ "5.8", NULL, UC_FP_KVER_PREDATES_KEY },
		{ "5.8.18", NULL, UC_FP_KVER_PREDATES_KEY },
		{ "5.8.0-63-generic", NULL, UC_FP_KVER_PREDATES_KEY },
		{ "5.9", NULL, UC_FP_KVER_HAS_KEY },
		{ "5.9.0", NULL, UC_FP_KVER_HAS_KEY },
		{ "5.10.0-23-amd64", NULL, UC_FP_KVER_HAS_KEY },
		{ "5.15.0-91-generic", "Ubuntu 5.15.0-91.101-generic 5.15.131",
		  UC_FP_KVER_HAS_KEY },
		{ "6.1", NULL, UC_FP_KVER_HAS_KEY },
		{ "6.1.192-uclamp", NULL, UC_FP_KVER_HAS_KEY },
		{ "7.2.13", NULL, UC_FP_KVER_HAS_KEY },
		{ "5", NULL, UC_FP_KVER_UNSURE },
		{ "linux", NULL, UC_FP_KVER_UNSURE },
		{ "", NULL, UC_FP_KVER_UNSURE },
		{ NULL, NULL, UC_FP_KVER_UNSURE },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		enum uc_fp_kver got = uc_fp_version_rule(cases[i].rel, cases[i].sig);

		if (got != cases[i].want)
			fail_msg("'%s' (%s): %d, expected %d",
				 cases[i].rel ? cases[i].rel : "(null)",
				 cases[i].sig ? cases[i].sig : "-", got, cases[i].want);
	}
}

/* ================= the order of sources ================= */

static void kcore_off_on(void **state)
{
	struct uc_fastpath fp;

	(void)state;
	detect(&fp, 0, UC_KEY_OFF, UC_FP_SRC_KCORE);
	assert_true(fp.value_read);
	assert_int_equal(fp.value, 0);
	assert_int_equal(fp.addr, LIVE_TEXT + KEY_OFF);
	assert_int_equal(fp.has_key, 1);
	assert_non_null(strstr(fp.how, "sched_uclamp_used = 0"));
	/* the guard's quick path does not scan once the key is read */
	assert_int_equal(cg_calls + task_calls, 0);
	assert_false(fp.scan.done);

	put_kcore(1);
	detect(&fp, 0, UC_KEY_ON, UC_FP_SRC_KCORE);
	assert_int_equal(fp.value, 1);
	/* -1: being enabled right now */
	put_kcore(-1);
	detect(&fp, 0, UC_KEY_ON, UC_FP_SRC_KCORE);
	/* a 0 that evidence contradicts is neither off nor on: unknown, both facts said */
	put_kcore(0);
	put_sysctls(512, 1024, 1024);
	detect(&fp, UC_FP_FULL_SCAN, UC_KEY_UNKNOWN, UC_FP_SRC_NONE);
	assert_int_equal(fp.scan.evidence, 1);
	assert_non_null(strstr(fp.how, "reads 0 at 0xffffffff89d46710"));
	assert_non_null(strstr(fp.how, "evidence of use (sysctl sched_util_clamp_min = 512"));
	/* the quick path checks the sysctls it has read anyway, and scans nothing */
	cg_calls = task_calls = 0;
	detect(&fp, 0, UC_KEY_UNKNOWN, UC_FP_SRC_NONE);
	assert_int_equal(cg_calls + task_calls, 0);
	assert_non_null(strstr(fp.how, "the two disagree"));
	/* sched_uclamp_used is only ever 0 or 1 (-1 while being enabled): 2 is a wrong address */
	put_sysctls(1024, 1024, 1024);
	put_kcore(2);
	detect(&fp, 0, UC_KEY_UNKNOWN, UC_FP_SRC_NONE);
	assert_note(fp.unavailable, fp.nunavailable, "is not a 0/1 static key count");
	/* a count no static key can have: a wrong address, not a state */
	put_sysctls(1024, 1024, 1024);
	put_kcore(0x41414141);
	detect(&fp, 0, UC_KEY_UNKNOWN, UC_FP_SRC_NONE);
	assert_note(fp.unavailable, fp.nunavailable, "static key count");
}

/* ================= the per-boot address cache is a hint ================= */

#define BOOT_ID "11111111-2222-3333-4444-555555555555"
#define CACHE "/run/uclampctl/ksyms"

/* 4 bytes of kcore's segment at _text + off (put_kcore writes the key's) */
static void poke_kcore(uint64_t off, int32_t value)
{
	char p[512];
	FILE *f;

	path_of(p, sizeof(p), "/proc/kcore");
	f = fopen(p, "r+");
	assert_non_null(f);
	assert_int_equal(fseek(f, (long)(0x2000 + off), SEEK_SET), 0);
	assert_int_equal(fwrite(&value, 4, 1, f), 1);
	fclose(f);
}

static void put_cache(uint64_t addr)
{
	char buf[128];

	snprintf(buf, sizeof(buf), "%s\nsched_uclamp_used %llx\n", BOOT_ID,
		 (unsigned long long)addr);
	put(CACHE, buf);
	path_of(buf, sizeof(buf), CACHE);
	assert_int_equal(chmod(buf, 0600), 0);
}

static uint64_t cache_addr(void)
{
	char p[512], id[64];
	unsigned long long a = 0;
	FILE *f;

	path_of(p, sizeof(p), CACHE);
	f = fopen(p, "r");
	if (!f)
		return 0;
	if (fscanf(f, "%63s sched_uclamp_used %llx", id, &a) != 2)
		a = 0;
	fclose(f);
	return a;
}

/* uc_kmem_read_keys_flags for sched_uclamp_used alone, as fastpath.c asks */
static int read_key(struct uc_kmem_key *k, struct uc_kmem_info *info)
{
	memset(k, 0, sizeof(*k));
	k->name = "sched_uclamp_used";
	k->boolean = true;
	uc_kmem_read_keys_flags(k, 1, info, 0);
	return info->cache;
}

static int setup_cache(void **state)
{
	char p[512];

	if (geteuid() != 0)
		return 0;	/* the test skips */
	setup_system(state);
	path_of(p, sizeof(p), "/proc/sys/kernel/random");
	mkdir(p, 0755);
	put("/proc/sys/kernel/random/boot_id", BOOT_ID "\n");
	path_of(p, sizeof(p), "/run");
	mkdir(p, 0755);
	path_of(p, sizeof(p), "/run/uclampctl");
	mkdir(p, 0700);
	rm(CACHE);
	return 0;
}

static void cache_is_a_hint(void **state)
{
	const uint64_t key = LIVE_TEXT + KEY_OFF, other = LIVE_TEXT + KEY_OFF + 0x100;
	struct uc_kmem_key k;
	struct uc_kmem_info info;
	struct uc_fastpath fp;

	(void)state;
	if (geteuid() != 0)
		skip();	/* the cache is root's */
	/* a fresh read writes it; the next one uses it */
	assert_int_equal(read_key(&k, &info), UC_KMEM_CACHE_UNUSED);
	assert_int_equal(cache_addr(), key);
	assert_int_equal(read_key(&k, &info), UC_KMEM_CACHE_HIT);
	assert_true(k.cached);
	assert_int_equal(k.value, 0);

	/* a value no 0/1 key has (the sysctl's 1024, a guard word): re-read, repaired */
	poke_kcore(KEY_OFF + 0x100, 1024);
	put_cache(other);
	assert_int_equal(read_key(&k, &info), UC_KMEM_CACHE_DISCARDED);
	assert_int_equal(k.rc, 0);
	assert_int_equal(k.value, 0);
	assert_int_equal(k.addr, key);
	assert_false(k.cached);
	assert_note(info.notes, info.nnotes,
		    CACHE ": sched_uclamp_used: 1024 at 0xffffffff89d46810 is not a 0/1");
	assert_int_equal(cache_addr(), key);
	detect(&fp, 0, UC_KEY_OFF, UC_FP_SRC_KCORE);

	/* another key that is on: an "on" is never taken from the cache alone */
	poke_kcore(KEY_OFF + 0x100, 1);
	put_cache(other);
	detect(&fp, 0, UC_KEY_OFF, UC_FP_SRC_KCORE);
	assert_int_equal(fp.addr, key);
	assert_note(fp.unavailable, fp.nunavailable, "reads 1 at its cached address");
	assert_int_equal(cache_addr(), key);
	/* ... while a real "on" through the right address is confirmed without a note */
	put_kcore(1);
	detect(&fp, 0, UC_KEY_ON, UC_FP_SRC_KCORE);
	assert_int_equal(fp.nunavailable, 0);

	/* a 0 that evidence contradicts: cache discarded, kallsyms re-read */
	put_kcore(1);
	poke_kcore(KEY_OFF + 0x100, 0);
	put_cache(other);
	put_sysctls(512, 1024, 1024);
	detect(&fp, 0, UC_KEY_ON, UC_FP_SRC_KCORE);
	assert_int_equal(fp.addr, key);
	assert_note(fp.unavailable, fp.nunavailable,
		    "0 at the cached address 0xffffffff89d46810 against evidence of use: cache "
		    "discarded, /proc/kallsyms gives 0xffffffff89d46710");
	assert_int_equal(cache_addr(), key);
	/* still contradicted after the re-read: unknown, both facts */
	put_kcore(0);
	put_cache(other);
	detect(&fp, 0, UC_KEY_UNKNOWN, UC_FP_SRC_NONE);
	assert_non_null(strstr(fp.how, "reads 0 at 0xffffffff89d46710"));
	assert_non_null(strstr(fp.how, "sysctl sched_util_clamp_min = 512"));
	put_sysctls(1024, 1024, 1024);

	/* addresses kcore does not cover: re-read */
	put_cache(0xffffffffa0000000ull);
	assert_int_equal(read_key(&k, &info), UC_KMEM_CACHE_DISCARDED);
	assert_int_equal(k.addr, key);
	assert_int_equal(cache_addr(), key);
}

/* kallsyms with the fast path's key and effect.c's two, after _text by these offsets */
#define ASYM_OFF (KEY_OFF + 0x60)
#define EAS_OFF (KEY_OFF + 0x50)
static void put_kallsyms_shared(uint64_t asym_off)
{
	char buf[4096];

	snprintf(buf, sizeof(buf),
		 "%016llx T _text\n%016llx T _etext\n%016llx T _sinittext\n"
		 "%016llx T _einittext\n"
		 "%016llx D d1\n%016llx D d2\n%016llx D d3\n%016llx D d4\n"
		 "%016llx D d5\n%016llx D d6\n%016llx D d7\n%016llx D d8\n"
		 "%016llx B sched_uclamp_used\n%016llx B sched_energy_present\n"
		 "%016llx B sched_asym_cpucapacity\n",
		 LIVE_TEXT, LIVE_TEXT + 0xc02c31, LIVE_TEXT + 0xf00000, LIVE_TEXT + 0xf40000,
		 LIVE_TEXT + 0xe10000, LIVE_TEXT + 0xe10008, LIVE_TEXT + 0xe10010,
		 LIVE_TEXT + 0xe10018, LIVE_TEXT + 0xe10020, LIVE_TEXT + 0xe10028,
		 LIVE_TEXT + 0xe10030, LIVE_TEXT + 0xe10038, LIVE_TEXT + KEY_OFF,
		 LIVE_TEXT + EAS_OFF, LIVE_TEXT + asym_off);
	put("/proc/kallsyms", buf);
}

static bool cache_has(const char *line)
{
	char buf[4096];

	return fr_read(root, CACHE, buf, sizeof(buf)) >= 0 && strstr(buf, line);
}

/* effect.c's read: both placement keys, as it asks */
static void read_placement(struct uc_kmem_key k[2], struct uc_kmem_info *info)
{
	memset(k, 0, 2 * sizeof(*k));
	k[0].name = UC_KMEM_KEY_ASYM_CPUCAPACITY;
	k[1].name = UC_KMEM_KEY_ENERGY_PRESENT;
	uc_kmem_read_keys_flags(k, 2, info, 0);
}

/* 'check' asks for the fast path's key, then effect.c's two: with a cold
 * cache, the first call's kallsyms pass caches all three (a key at 1 as
 * confirmed), so the second needs no kallsyms; and the reverse order */
static void cache_one_pass(void **state)
{
	struct uc_kmem_key k, pk[2];
	struct uc_kmem_info info;

	(void)state;
	if (geteuid() != 0)
		skip();
	put_kallsyms_shared(ASYM_OFF);
	poke_kcore(EAS_OFF, 1);
	poke_kcore(ASYM_OFF, 2);	/* counted: two asymmetric root domains */
	assert_int_equal(read_key(&k, &info), UC_KMEM_CACHE_UNUSED);
	assert_int_equal(k.rc, 0);
	assert_int_equal(k.addr, LIVE_TEXT + KEY_OFF);
	assert_true(cache_has("\nsched_energy_present ffffffff89d46760 1\n"));
	assert_true(cache_has("\nsched_asym_cpucapacity ffffffff89d46770\n"));
	/* no kallsyms now: only the cache can give the addresses */
	rm("/proc/kallsyms");
	read_placement(pk, &info);
	assert_int_equal(info.cache, UC_KMEM_CACHE_HIT);
	assert_int_equal(pk[0].rc, 0);
	assert_int_equal(pk[0].addr, LIVE_TEXT + ASYM_OFF);
	assert_int_equal(pk[0].value, 2);
	assert_int_equal(pk[1].rc, 0);
	assert_int_equal(pk[1].addr, LIVE_TEXT + EAS_OFF);
	assert_int_equal(pk[1].value, 1);
	assert_true(pk[1].boolean);	/* kmem.c's list says so */
	assert_int_equal(info.nnotes, 0);
	assert_int_equal(read_key(&k, &info), UC_KMEM_CACHE_HIT);

	/* the other way round */
	rm(CACHE);
	put_kallsyms_shared(ASYM_OFF);
	read_placement(pk, &info);
	assert_int_equal(info.cache, UC_KMEM_CACHE_UNUSED);
	rm("/proc/kallsyms");
	assert_int_equal(read_key(&k, &info), UC_KMEM_CACHE_HIT);
	assert_int_equal(k.addr, LIVE_TEXT + KEY_OFF);
	assert_int_equal(k.value, 0);

	/* a key the caller did not ask for that cannot be read: nothing said
	 * about it to this caller; cached anyway (its reader re-checks it) */
	rm(CACHE);
	put_kallsyms_shared(SEG_SIZE + 0x1000);	/* beyond kcore's segment */
	assert_int_equal(read_key(&k, &info), UC_KMEM_CACHE_UNUSED);
	assert_int_equal(k.rc, 0);
	assert_int_equal(info.nnotes, 0);
	assert_true(cache_has("\nsched_uclamp_used ffffffff89d46710\n"));
	read_placement(pk, &info);
	assert_int_equal(info.cache, UC_KMEM_CACHE_DISCARDED);
	assert_int_equal(pk[0].rc, -EFAULT);
	assert_note(info.notes, info.nnotes, "sched_asym_cpucapacity: /proc/kcore at");
	put_kallsyms(true, true, false);
}

/* what the cache file must be; anything else is not read, and rewritten */
static void cache_file_checks(void **state)
{
	static const char *const bad_texts[] = {
		/* another boot */
		"99999999-2222-3333-4444-555555555555\nsched_uclamp_used ffffffff89d46810\n",
		BOOT_ID "\nsched_uclamp_used ffffffff89d46811\n",	/* not 4-byte aligned */
		BOOT_ID "\nsched_uclamp_used 0\n",
		BOOT_ID "\nsched_uclamp_used 1ffffffff89d46810\n",	/* wider than 64 bits */
		BOOT_ID "\nsched_uclamp_used ffffffff89d46810 junk\n",
		BOOT_ID "\nsched_uclamp_used -ffffffff89d46810\n",
		BOOT_ID "\nsched_uclamp_used ffffffff89d46810\n"
			"sched_uclamp_used ffffffff89d46810\n",
		/* one address twice */
		BOOT_ID "\nsched_uclamp_used ffffffff89d46810\nother_key ffffffff89d46810\n",
		BOOT_ID "\nsched_uclamp_used ffffffff89d46810\nbad line\n",
		BOOT_ID "\nsched/uclamp ffffffff89d46810\n",
	};
	const uint64_t key = LIVE_TEXT + KEY_OFF, other = LIVE_TEXT + KEY_OFF + 0x100;
	struct uc_kmem_key k;
	struct uc_kmem_info info;
	char p[512], big[8192];
	size_t i;

	(void)state;
	if (geteuid() != 0)
		skip();
	path_of(p, sizeof(p), CACHE);
	/* the reference: a well-formed cache at a (wrong, but 0) address is used */
	put_cache(other);
	assert_int_equal(read_key(&k, &info), UC_KMEM_CACHE_HIT);
	assert_int_equal(k.addr, other);

	for (i = 0; i < sizeof(bad_texts) / sizeof(bad_texts[0]); i++) {
		put(CACHE, bad_texts[i]);
		assert_int_equal(chmod(p, 0600), 0);
		if (read_key(&k, &info) != UC_KMEM_CACHE_UNUSED || k.addr != key)
			fail_msg("cache text %zu was used", i);
		assert_int_equal(cache_addr(), key);	/* rewritten */
	}
	/* modes other than 0600 */
	for (mode_t m = 0400; m <= 0700; m += 0100) {
		if (m == 0600)
			continue;
		put_cache(other);
		assert_int_equal(chmod(p, m), 0);
		assert_int_equal(read_key(&k, &info), UC_KMEM_CACHE_UNUSED);
		assert_int_equal(k.addr, key);
	}
	put_cache(other);
	assert_int_equal(chmod(p, 0640), 0);
	assert_int_equal(read_key(&k, &info), UC_KMEM_CACHE_UNUSED);
	/* not owned by root */
	put_cache(other);
	assert_int_equal(chown(p, 65534, 65534), 0);
	assert_int_equal(read_key(&k, &info), UC_KMEM_CACHE_UNUSED);
	/* a symlink to a good file, a second hard link, a directory, too big */
	{
		char target[512];

		put("/run/good", BOOT_ID "\nsched_uclamp_used ffffffff89d46810\n");
		path_of(target, sizeof(target), "/run/good");
		assert_int_equal(chmod(target, 0600), 0);
		unlink(p);
		assert_int_equal(symlink(target, p), 0);
		assert_int_equal(read_key(&k, &info), UC_KMEM_CACHE_UNUSED);
		unlink(p);
		assert_int_equal(link(target, p), 0);
		assert_int_equal(read_key(&k, &info), UC_KMEM_CACHE_UNUSED);
		unlink(target);
	}
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	memcpy(big, BOOT_ID "\nsched_uclamp_used ffffffff89d46810\n#", 57);
	put(CACHE, big);
	assert_int_equal(chmod(p, 0600), 0);
	assert_int_equal(read_key(&k, &info), UC_KMEM_CACHE_UNUSED);
	/* a group/other-writable directory */
	put_cache(other);
	path_of(p, sizeof(p), "/run/uclampctl");
	assert_int_equal(chmod(p, 0770), 0);
	assert_int_equal(read_key(&k, &info), UC_KMEM_CACHE_UNUSED);
	assert_int_equal(chmod(p, 0700), 0);
	assert_int_equal(read_key(&k, &info), UC_KMEM_CACHE_HIT);
}

static void full_scan_counts(void **state)
{
	struct uc_fastpath fp;

	(void)state;
	add_cg("a", 2000, 10000);
	add_cg("a/b", 0, 10000);
	fake_cgs[nfake_cgs++] = (struct uc_fp_cg_sample){ .path = "nofiles", .has_files = false };
	add_task(10, 0, 100, 1024);
	add_task(11, 0, 0, 512);
	for (int i = 0; i < 20; i++)
		add_task(100 + i, 0, 1, 1024);
	/* kcore's 0 against this evidence: unknown; the full scan still counts */
	detect(&fp, UC_FP_FULL_SCAN, UC_KEY_UNKNOWN, UC_FP_SRC_NONE);
	assert_true(fp.scan.done);
	assert_true(fp.scan.complete);
	assert_int_equal(fp.scan.cgroups, 5);
	assert_int_equal(fp.scan.cgroups_uclamp, 4);
	assert_int_equal(fp.scan.cgroups_nondefault, 1);
	assert_int_equal(fp.scan.tasks, 25);
	assert_int_equal(fp.scan.tasks_nondefault, 22);
	assert_int_equal(fp.scan.evidence, 23);
	assert_int_equal(fp.nevidence, UC_FP_MAX_NOTES);
	assert_string_equal(fp.evidence[UC_FP_MAX_NOTES - 1], "and 8 more");

	/* quick detection with no key: stops at the first evidence */
	rm("/proc/kcore");
	tasks_visited = 0;
	detect(&fp, 0, UC_KEY_ON, UC_FP_SRC_EVIDENCE);
	assert_int_equal(fp.scan.evidence, 1);
	assert_int_equal(task_calls, 1);
	assert_non_null(strstr(fp.how, "cgroup a: cpu.uclamp.min = 20.00"));
	assert_int_equal(tasks_visited, 0);
}

static void system_map_path(void **state)
{
	struct uc_fastpath fp;

	(void)state;
	put_kallsyms(false, false, false);	/* no KALLSYMS_ALL */
	put_map("6.1.0-test", true, 0);
	put_kcore(1);
	detect(&fp, 0, UC_KEY_ON, UC_FP_SRC_SYSTEM_MAP);
	assert_int_equal(fp.addr, LIVE_TEXT + KEY_OFF);	/* relocated by the KASLR offset */
	assert_non_null(strstr(fp.how, "/boot/System.map-6.1.0-test"));
	assert_note(fp.unavailable, fp.nunavailable, "CONFIG_KALLSYMS_ALL");

	put_kcore(0);
	detect(&fp, 0, UC_KEY_OFF, UC_FP_SRC_SYSTEM_MAP);
	/* a 0 contradicted by evidence: the map is not trusted */
	put_sysctls(1024, 1024, 0);
	detect(&fp, 0, UC_KEY_ON, UC_FP_SRC_EVIDENCE);
	assert_note(fp.unavailable, fp.nunavailable, "the map is not trusted");
	put_sysctls(1024, 1024, 1024);

	/* a map of another build: refused, then evidence */
	put_map("6.1.0-test", true, 0x1000);
	detect(&fp, 0, UC_KEY_UNKNOWN, UC_FP_SRC_NONE);
	assert_note(fp.unavailable, fp.nunavailable, "does not match the running kernel");
	add_task(50, 0, 0, 100);
	detect(&fp, 0, UC_KEY_ON, UC_FP_SRC_EVIDENCE);
	nfake_tasks--;

	/* no map at all */
	rm("/boot/System.map-6.1.0-test");
	detect(&fp, 0, UC_KEY_UNKNOWN, UC_FP_SRC_NONE);
	assert_note(fp.unavailable, fp.nunavailable, "no /boot/System.map-6.1.0-test");
	assert_int_equal(fp.has_key, 1);	/* 6.1 has it, by version */

	/* a full map that lacks the key: this uclamp kernel predates it */
	put("/proc/sys/kernel/osrelease", "5.4.0-42-generic\n");
	put_map("5.4.0-42-generic", false, 0);
	detect(&fp, 0, UC_KEY_ALWAYS_ON, UC_FP_SRC_KERNEL_VERSION);
	assert_int_equal(fp.has_key, 0);
	rm("/boot/System.map-5.4.0-42-generic");
}

static void kallsyms_blocked(void **state)
{
	struct uc_fastpath fp;

	(void)state;
	/* kptr_restrict: names, no addresses */
	put_kallsyms(true, true, true);
	put("/proc/sys/kernel/kptr_restrict", "2\n");
	detect(&fp, 0, UC_KEY_UNKNOWN, UC_FP_SRC_NONE);
	assert_note(fp.unavailable, fp.nunavailable, "kptr_restrict=2");
	assert_int_equal(fp.has_key, 1);	/* listed, even without an address */
	assert_true(fp.scan.done);
	assert_int_equal(task_calls, 1);	/* looked for evidence everywhere */
	add_task(60, 0, 0, 1000);
	detect(&fp, 0, UC_KEY_ON, UC_FP_SRC_EVIDENCE);
	assert_non_null(strstr(fp.how, "task 60 (t) requests max 1000"));
	nfake_tasks--;
	put("/proc/sys/kernel/kptr_restrict", "1\n");
	detect(&fp, 0, UC_KEY_UNKNOWN, UC_FP_SRC_NONE);
	assert_note(fp.unavailable, fp.nunavailable, "kptr_restrict=1");
	put("/proc/sys/kernel/kptr_restrict", "0\n");
	detect(&fp, 0, UC_KEY_UNKNOWN, UC_FP_SRC_NONE);
	assert_note(fp.unavailable, fp.nunavailable, "perf_event_paranoid=2");

	/* no kallsyms at all */
	rm("/proc/kallsyms");
	detect(&fp, 0, UC_KEY_UNKNOWN, UC_FP_SRC_NONE);
	assert_note(fp.unavailable, fp.nunavailable, "CONFIG_KALLSYMS");
	/* ... on a 5.8 kernel: always-on by version */
	put("/proc/sys/kernel/osrelease", "5.8.18\n");
	detect(&fp, 0, UC_KEY_ALWAYS_ON, UC_FP_SRC_KERNEL_VERSION);
	assert_int_equal(fp.has_key, 0);
	/* ... but evidence comes first */
	put_sysctls(100, 1024, UC_SYSCTL_ABSENT);
	rm("/proc/sys/kernel/sched_util_clamp_min_rt_default");
	detect(&fp, 0, UC_KEY_ON, UC_FP_SRC_EVIDENCE);
}

static void kcore_blocked(void **state)
{
	struct uc_fastpath fp;

	(void)state;
	rm("/proc/kcore");
	detect(&fp, 0, UC_KEY_UNKNOWN, UC_FP_SRC_NONE);
	assert_note(fp.unavailable, fp.nunavailable, "CONFIG_PROC_KCORE");
	assert_false(fp.value_read);
	/* a kcore that is not an ELF core */
	put("/proc/kcore", "not an elf file at all, sorry\n");
	detect(&fp, 0, UC_KEY_UNKNOWN, UC_FP_SRC_NONE);
	assert_note(fp.unavailable, fp.nunavailable, "bad magic");
}

static void key_absent_from_full_list(void **state)
{
	struct uc_fastpath fp;

	(void)state;
	put_kallsyms(true, false, false);	/* KALLSYMS_ALL, no key */
	put("/proc/sys/kernel/osrelease", "5.4.30\n");
	detect(&fp, 0, UC_KEY_ALWAYS_ON, UC_FP_SRC_KERNEL_VERSION);
	/* a distro 5.4.0-N: the version cannot tell, the symbol list can */
	put("/proc/sys/kernel/osrelease", "5.4.0-42-generic\n");
	detect(&fp, 0, UC_KEY_ALWAYS_ON, UC_FP_SRC_KERNEL_VERSION);
	assert_non_null(strstr(fp.how, "no sched_uclamp_used symbol"));
	/* a 6.1 kernel without the symbol contradicts itself: stay unknown */
	put("/proc/sys/kernel/osrelease", "6.1.0-test\n");
	detect(&fp, 0, UC_KEY_UNKNOWN, UC_FP_SRC_NONE);
	assert_note(fp.unavailable, fp.nunavailable, "should have it");
	/* Ubuntu's signature tells the sublevel */
	put("/proc/sys/kernel/osrelease", "5.4.0-150-generic\n");
	put("/proc/version_signature", "Ubuntu 5.4.0-150.167-generic 5.4.233\n");
	detect(&fp, 0, UC_KEY_UNKNOWN, UC_FP_SRC_NONE);
	put_kallsyms(false, false, false);
	put("/proc/sys/kernel/osrelease", "5.4.0-42-generic\n");
	put("/proc/version_signature", "Ubuntu 5.4.0-42.46-generic 5.4.44\n");
	detect(&fp, 0, UC_KEY_ALWAYS_ON, UC_FP_SRC_KERNEL_VERSION);
}

static void support(void **state)
{
	struct uc_fastpath fp;

	(void)state;
	/* no sysctls and EOPNOTSUPP: no uclamp; nothing else is tried */
	put_sysctls(-1, 0, 0);
	probe_answer = UC_SUPPORT_NOT_BUILT;
	detect(&fp, UC_FP_FULL_SCAN, UC_KEY_UNSUPPORTED, UC_FP_SRC_PROBE);
	assert_non_null(strstr(fp.how, "CONFIG_UCLAMP_TASK"));
	assert_int_equal(cg_calls + task_calls, 0);
	assert_false(fp.sysctls);
	probe_answer = UC_SUPPORT_PRE_5_3;
	detect(&fp, 0, UC_KEY_UNSUPPORTED, UC_FP_SRC_PROBE);
	assert_non_null(strstr(fp.how, "5.3"));
	/* the probe could not run (seccomp, LSM), and no sysctls */
	probe_answer = UC_SUPPORT_UNKNOWN;
	detect(&fp, 0, UC_KEY_UNSUPPORTED, UC_FP_SRC_PROBE);
	assert_non_null(strstr(fp.how, "could not tell"));
	/* the probe says yes: the sysctls are just not visible (a container) */
	probe_answer = UC_SUPPORT_YES;
	detect(&fp, 0, UC_KEY_OFF, UC_FP_SRC_KCORE);
	/* sysctls present but the probe says no: the files win (fake roots) */
	put_sysctls(1024, 1024, 1024);
	probe_answer = UC_SUPPORT_NOT_BUILT;
	detect(&fp, 0, UC_KEY_OFF, UC_FP_SRC_KCORE);
	assert_true(fp.sysctls);
}

/* An error is no absence (uc_err_absent): uclamp sysctls that cannot be read
 * (EISDIR here, as EMFILE or EIO would) and a probe that could not run
 * (ENOMEM) leave the answer to the key, never "unsupported". */
static void support_errors(void **state)
{
	char p[PATH_MAX];
	struct uc_fastpath fp;

	(void)state;
	put_sysctls(-1, 0, 0);
	assert_int_equal(fr_path(p, sizeof(p), root, "/proc/sys/kernel/sched_util_clamp_min"), 0);
	assert_int_equal(mkdir(p, 0755), 0);
	put("/proc/sys/kernel/sched_util_clamp_max", "1024\n");
	probe_answer = UC_SUPPORT_UNKNOWN;
	probe_errno = -ENOMEM;
	detect(&fp, 0, UC_KEY_OFF, UC_FP_SRC_KCORE);
	assert_false(fp.sysctls);
	assert_note(fp.unavailable, fp.nunavailable, "cannot be read (Is a directory)");
	assert_note(fp.unavailable, fp.nunavailable, "could not tell (Cannot allocate memory)");
	/* and without the key to read: unknown */
	rm("/proc/kcore");
	detect(&fp, 0, UC_KEY_UNKNOWN, UC_FP_SRC_NONE);
	assert_int_equal(rmdir(p), 0);
}

static void lockdown(void **state)
{
	char buf[32];

	(void)state;
	assert_int_equal(fr_mkdir(root, "/sys/kernel/security"), 0);
	rm("/sys/kernel/security/lockdown");
	assert_int_equal(uc_lockdown_state(buf, sizeof(buf)), -ENOENT);
	put("/sys/kernel/security/lockdown", "[none] integrity confidentiality\n");
	assert_int_equal(uc_lockdown_state(buf, sizeof(buf)), 0);
	assert_string_equal(buf, "none");
	put("/sys/kernel/security/lockdown", "none integrity [confidentiality]\n");
	assert_int_equal(uc_lockdown_state(buf, sizeof(buf)), 0);
	assert_string_equal(buf, "confidentiality");
	put("/sys/kernel/security/lockdown", "none integrity confidentiality\n");
	assert_int_equal(uc_lockdown_state(buf, sizeof(buf)), -EINVAL);
	rm("/sys/kernel/security/lockdown");
}

/* the one-line reasons for kcore and kallsyms */
static void reasons(void **state)
{
	char buf[UC_KMEM_NOTE_LEN];

	(void)state;
	assert_int_equal(fr_mkdir(root, "/sys/kernel/security"), 0);

	uc_kmem_kcore_reason(-ENOENT, buf, sizeof(buf));
	assert_string_equal(buf, "no /proc/kcore (kernel built without CONFIG_PROC_KCORE)");
	/* lockdown=confidentiality blocks it for root too; integrity does not */
	put("/sys/kernel/security/lockdown", "none integrity [confidentiality]\n");
	uc_kmem_kcore_reason(-EPERM, buf, sizeof(buf));
	assert_string_equal(buf, "kernel lockdown=confidentiality blocks /proc/kcore");
	put("/sys/kernel/security/lockdown", "none [integrity] confidentiality\n");
	uc_kmem_kcore_reason(-EPERM, buf, sizeof(buf));
	if (geteuid() != 0)
		assert_non_null(strstr(buf, "needs root with CAP_SYS_RAWIO (running as uid"));
	else if (!uc_have_cap(CAP_SYS_RAWIO_NR))
		assert_string_equal(buf,
				    "/proc/kcore needs CAP_SYS_RAWIO, which this process lacks");
	else
		assert_string_equal(buf, "/proc/kcore: permission denied (a security module?)");
	rm("/sys/kernel/security/lockdown");
	uc_kmem_kcore_reason(-EIO, buf, sizeof(buf));
	assert_string_equal(buf, "/proc/kcore: Input/output error");

	put("/proc/sys/kernel/kptr_restrict", "2\n");
	uc_kmem_hidden_reason(buf, sizeof(buf));
	assert_string_equal(buf, "kptr_restrict=2 hides kernel addresses in "
			    "/proc/kallsyms from everyone");
	put("/proc/sys/kernel/kptr_restrict", "1\n");
	uc_kmem_hidden_reason(buf, sizeof(buf));
	assert_non_null(strstr(buf, "kptr_restrict=1 hides kernel addresses in "
			       "/proc/kallsyms without CAP_SYSLOG"));
	put("/proc/sys/kernel/kptr_restrict", "0\n");
	put("/proc/sys/kernel/perf_event_paranoid", "2\n");
	uc_kmem_hidden_reason(buf, sizeof(buf));
	assert_non_null(strstr(buf, "(kptr_restrict=0, perf_event_paranoid=2; run as root)"));
	put("/proc/sys/kernel/perf_event_paranoid", "1\n");
	uc_kmem_hidden_reason(buf, sizeof(buf));
	assert_string_equal(buf, "/proc/kallsyms shows zeroed addresses (kptr_restrict)");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(evidence_sysctls),
		cmocka_unit_test(evidence_cgroups),
		cmocka_unit_test(evidence_tasks),
		cmocka_unit_test(evidence_lists),
		cmocka_unit_test(version_rule),
		cmocka_unit_test_setup(kcore_off_on, setup_system),
		cmocka_unit_test_setup(full_scan_counts, setup_system),
		cmocka_unit_test_setup(cache_is_a_hint, setup_cache),
		cmocka_unit_test_setup(cache_file_checks, setup_cache),
		cmocka_unit_test_setup(cache_one_pass, setup_cache),
		cmocka_unit_test_setup(system_map_path, setup_system),
		cmocka_unit_test_setup(kallsyms_blocked, setup_system),
		cmocka_unit_test_setup(kcore_blocked, setup_system),
		cmocka_unit_test_setup(key_absent_from_full_list, setup_system),
		cmocka_unit_test_setup(support, setup_system),
		cmocka_unit_test_setup(support_errors, setup_system),
		cmocka_unit_test(lockdown),
		cmocka_unit_test(reasons),
	};

	return fr_run(&suite, tests, NULL, NULL);
}
