/*
 * test_history.c: the record of write runs (src/lib/history.c,
 * history_file.c) and undo's plan (src/lib/undo.c) in a fake root: a run
 * read back as written; a last record cut short anywhere is left out and
 * repaired by the next writer; a damaged record anywhere else, a value no
 * plan can hold, a record too large and a file another user could have
 * written are refused; the file stays bounded; another boot's record is not
 * shown; undo plans only what still holds what the run set, by identity.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/history_fmt.h"
#include "uclamp/cgroup.h"
#include "uclamp/history.h"
#include "uclamp/plan_run.h"
#include "uclamp/sched.h"
#include "uclamp/sysctl.h"
#include "fakeroot.h"

static char root[512];
static const struct fr_suite suite = { root, sizeof(root), "test-history", true, { "run" } };

#define BOOT "11111111-2222-3333-4444-555555555555"
static const struct uc_hist_note note = { .cmdline = "uclampctl system set --min 300 -y" };

/* ---- the fake host: sysctls, a cgroup v2 tree, tasks ------------------------------- */

static void put(const char *rel, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(const char *rel, const char *fmt, ...)
{
	char text[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	assert_int_equal(fr_write(root, rel, text), 0);
}

static struct { pid_t tid; int min, max; } tasks[2] = { { 500, 0, 300 }, { 501, 0, 300 } };

static int fake_getattr(pid_t tid, struct uc_sched_attr *a, unsigned int size, unsigned int flags)
{
	(void)size;
	(void)flags;
	for (size_t i = 0; i < 2; i++)
		if (tasks[i].tid == tid) {
			*a = (struct uc_sched_attr){ .size = 56, .sched_util_min = (uint32_t)tasks[i].min,
						     .sched_util_max = (uint32_t)tasks[i].max };
			return 0;
		}
	errno = ESRCH;
	return -1;
}

static const struct uc_sched_syscalls fake = { .getattr = fake_getattr };

static void stat_file(pid_t pid, unsigned long long start)
{
	char rel[64];

	snprintf(rel, sizeof(rel), "proc/%d/stat", (int)pid);
	put(rel, "%d (t) S 1 %d %d 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 %llu 0 0\n", (int)pid, (int)pid,
	    (int)pid, start);
}

static int setup(void **state)
{
	(void)state;
	/* root's record is in /run/uclampctl, a user's in the runtime directory */
	setenv("XDG_RUNTIME_DIR", "/run/user-test", 1);
	assert_int_equal(fr_mkdir(root, "run/user-test"), 0);
	put("proc/sys/kernel/random/boot_id", BOOT "\n");
	put("proc/sys/kernel/osrelease", "6.1.0\n");
	put("proc/sys/kernel/sched_util_clamp_min", "1024\n");
	put("proc/sys/kernel/sched_util_clamp_max", "1024\n");
	put("proc/sys/kernel/sched_util_clamp_min_rt_default", "1024\n");
	put("cg/grp/cpu.uclamp.min", "0.00\n");
	put("cg/grp/cpu.uclamp.max", "max\n");
	put("cg/cgroup.subtree_control", "cpu\n");
	fr_cgroup(root, "cg", UC_CG_V2);
	uc_sched_set_syscalls(&fake);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	uc_sched_set_syscalls(NULL);
	return fr_remove(root, "run/uclampctl") || fr_remove(root, "run/user-test") ||
	       fr_remove(root, "proc") || fr_remove(root, "cg") ? -1 : 0;
}

/* A plan of every kind the record keeps: a task's two clamps, a knob, a group. */
static void plan_all(struct uc_plan *p)
{
	static const struct uc_sched_attr sa = { .size = 56, .sched_util_max = 1024 };
	struct uc_change *c;

	uc_plan_init(p);
	c = uc_plan_add_task(p, 500, 501, "worker", &sa, UC_ATTR_MIN, 0, 100);
	c->start = 4242;
	c = uc_plan_add_task(p, 500, 501, "worker", &sa, UC_ATTR_MAX, 1024, 300);
	c->start = 4242;
	assert_non_null(uc_plan_add(p, UC_KIND_SYSCTL, UC_ATTR_MIN, "sched_util_clamp_min", 1024,
				    300));
	assert_non_null(uc_plan_add(p, UC_KIND_CGROUP, UC_ATTR_MAX, "grp", 10000, 4000));
}

/* the record's bytes: header, plan's RUN as run 1, its END (states as set) */
static struct hist_buf file_of(struct uc_plan *p)
{
	struct hist_buf b = { 0 };

	hist_put_head(&b, BOOT);
	hist_put_run(&b, 1, p, &note, UC_KEY_OFF, 1700000000, 0);
	for (size_t i = 0; i < p->n; i++)
		p->rec[i].state = UC_CH_DONE;
	p->rec[0].state = p->rec[1].state = UC_CH_GONE;
	hist_put_end(&b, 1, p, UC_KEY_ON, UC_RUN_OK);
	assert_false(b.oom);
	return b;
}

/* ---- the format ------------------------------------------------------------------- */

/* Every field comes back as written, the group with its directory's inode. */
static void test_roundtrip(void **state)
{
	struct uc_plan p;
	struct hist_buf b;
	struct uc_hist h;
	struct stat st;
	char why[256], grp[PATH_MAX];
	const struct uc_hist_run *r;

	(void)state;
	plan_all(&p);
	b = file_of(&p);
	assert_int_equal(uc_hist_parse(b.b, b.n, BOOT, &h, why, sizeof(why)), 0);
	assert_int_equal(h.n, 1);
	assert_false(h.torn);
	r = &h.runs[0];
	assert_int_equal(r->id, 1);
	assert_int_equal(r->time, 1700000000);
	assert_string_equal(r->cmdline, note.cmdline);
	assert_int_equal(r->key_before, UC_KEY_OFF);
	assert_int_equal(r->key_after, UC_KEY_ON);
	assert_true(r->ended);
	assert_int_equal(r->n, 4);
	assert_int_equal(r->v[0].kind, UC_KIND_TASK);
	assert_int_equal(r->v[0].pid, 500);
	assert_int_equal(r->v[0].tid, 501);
	assert_int_equal(r->v[0].start, 4242);
	assert_string_equal(r->v[0].label, "worker");
	assert_int_equal(r->v[1].from, 1024);
	assert_int_equal(r->v[1].to, 300);
	assert_int_equal(r->v[1].state, UC_CH_GONE);
	assert_string_equal(r->v[2].target, "sched_util_clamp_min");
	assert_int_equal(r->v[2].state, UC_CH_DONE);
	assert_string_equal(r->v[3].target, "grp");
	assert_int_equal(r->v[3].to, 4000);
	assert_int_equal(fr_path(grp, sizeof(grp), root, "cg/grp"), 0);
	assert_int_equal(stat(grp, &st), 0);
	assert_int_equal(r->v[3].ino, st.st_ino);
	assert_non_null(uc_hist_find(&h, 1));
	assert_null(uc_hist_find(&h, 2));
	uc_hist_free(&h);
	/* another boot's record: nothing of it shown */
	assert_int_equal(uc_hist_parse(b.b, b.n, "another-boot", &h, why, sizeof(why)), 0);
	assert_true(h.other_boot);
	assert_int_equal(h.n, 0);
	uc_hist_free(&h);
	free(b.b);
	uc_plan_free(&p);
}

/* A crash can leave any prefix of the last write, or zeros where it went:
 * left out, the runs before it kept. */
static void test_torn(void **state)
{
	struct uc_plan p;
	struct hist_buf b;
	struct uc_hist h;
	char why[256];
	size_t end_at;

	(void)state;
	plan_all(&p);
	b = file_of(&p);
	/* the END record is the last: cut it anywhere */
	end_at = b.n - (HIST_FRAME + 1 + 4 + 1 + 1 + 4 + p.n);
	for (size_t cut = end_at + 1; cut < b.n; cut++) {
		assert_int_equal(uc_hist_parse(b.b, cut, BOOT, &h, why, sizeof(why)), 0);
		assert_true(h.torn);
		assert_int_equal(h.n, 1);
		assert_false(h.runs[0].ended);	/* the run, without its end */
		uc_hist_free(&h);
	}
	/* the whole END there, but its checksum fails: a torn write too */
	b.b[b.n - 1] ^= 1;
	assert_int_equal(uc_hist_parse(b.b, b.n, BOOT, &h, why, sizeof(why)), 0);
	assert_true(h.torn);
	uc_hist_free(&h);
	b.b[b.n - 1] ^= 1;
	/* zeros after the last record: a write the disk had not got */
	memset(b.b + end_at, 0, b.n - end_at);
	assert_int_equal(uc_hist_parse(b.b, b.n, BOOT, &h, why, sizeof(why)), 0);
	assert_true(h.torn);
	assert_int_equal(h.n, 1);
	uc_hist_free(&h);
	free(b.b);
	uc_plan_free(&p);
}

static void expect_damaged(const uint8_t *buf, size_t n, const char *what)
{
	struct uc_hist h;
	char why[256];

	assert_int_equal(uc_hist_parse(buf, n, BOOT, &h, why, sizeof(why)), -EBADMSG);
	assert_int_equal(h.n, 0);
	assert_non_null(strstr(why, "damaged"));
	assert_non_null(strstr(why, what));
}

/* Anything out of place before the last record refuses the whole file. */
static void test_damaged(void **state)
{
	struct uc_plan p;
	struct hist_buf b, c = { 0 };
	size_t head = HIST_FRAME + 1 + 2 + strlen(BOOT);

	(void)state;
	plan_all(&p);
	b = file_of(&p);
	/* a flipped byte in the RUN record (not the last): its checksum */
	b.b[head + HIST_FRAME + 5] ^= 0x40;
	expect_damaged(b.b, b.n, "byte 51");
	b.b[head + HIST_FRAME + 5] ^= 0x40;
	/* its magic */
	b.b[head] = 'X';
	expect_damaged(b.b, b.n, "bad frame");
	hist_put_head(&c, BOOT);
	hist_put_head(&c, BOOT);	/* a second header */
	hist_put_run(&c, 1, &p, &note, 1, 0, 0);
	expect_damaged(c.b, c.n, "second header");
	c.n = 0;
	hist_put_run(&c, 1, &p, &note, 1, 0, 0);	/* no header first */
	hist_put_head(&c, BOOT);
	expect_damaged(c.b, c.n, "not the header");
	/* run numbers that do not rise */
	c.n = 0;
	hist_put_head(&c, BOOT);
	hist_put_run(&c, 2, &p, &note, 1, 0, 0);
	hist_put_run(&c, 2, &p, &note, 1, 0, 0);
	hist_put_head(&c, BOOT);	/* (the last record may be torn: one more after) */
	expect_damaged(c.b, c.n, "run");
	/* an END of a run that is not there (but could have been: its number is in range) */
	c.n = 0;
	hist_put_head(&c, BOOT);
	hist_put_run(&c, 1, &p, &note, 1, 0, 0);
	hist_put_end(&c, 3, &p, 2, UC_RUN_OK);
	hist_put_end(&c, 1, &p, 2, UC_RUN_OK);
	expect_damaged(c.b, c.n, "does not match");
	free(c.b);
	free(b.b);
	uc_plan_free(&p);
}

/* A record whose checksum holds but whose values no plan can hold: refused
 * (what undo would write comes from here). */
static void test_hostile_values(void **state)
{
	static const struct { enum uc_kind kind; enum uc_attr attr; const char *target;
			      long from, to; } bad[] = {
		{ UC_KIND_SYSCTL, UC_ATTR_MIN, "sched_util_clamp_min", 1024, 2000 },
		{ UC_KIND_SYSCTL, UC_ATTR_MIN, "sched_util_clamp_max", 1024, 300 },
		{ UC_KIND_CGROUP, UC_ATTR_MAX, "../../etc", 10000, 4000 },
		{ UC_KIND_CGROUP, UC_ATTR_MAX, "a/../../b", 10000, 4000 },
		{ UC_KIND_CGROUP, UC_ATTR_MIN, "grp", 0, 10001 },
		{ UC_KIND_CGROUP, UC_ATTR_CPU_WEIGHT, "grp", 0, 100 },
		{ UC_KIND_SUBTREE, UC_ATTR_CPU_CONTROLLER, "grp", 0, 2 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct hist_buf c = { 0 };
		struct uc_plan p;

		uc_plan_init(&p);
		assert_non_null(uc_plan_add(&p, bad[i].kind, bad[i].attr, bad[i].target,
					    bad[i].from, bad[i].to));
		hist_put_head(&c, BOOT);
		hist_put_run(&c, 1, &p, &note, 1, 0, 0);
		hist_put_head(&c, BOOT);	/* not last: no torn-tail leniency */
		expect_damaged(c.b, c.n, "no plan can hold");
		free(c.b);
		uc_plan_free(&p);
	}
}

/* ---- who may own it --------------------------------------------------------------- */

/* Owned by the caller, no write bits for others, a plain file with one link. */
static void test_trust(void **state)
{
	static const struct {
		bool dir;	/* the directory's stat is changed, else the file's */
		uid_t uid;
		mode_t mode;
		nlink_t nlink;
		const char *why;
	} bad[] = {
		{ true, 1000, S_IFDIR | 0755, 2, "its directory is owned by uid 1000, not uid 0" },
		{ true, 0, S_IFDIR | 0777, 2, "its directory is writable by group or others" },
		{ true, 0, S_IFREG | 0700, 1, "its directory is not a directory" },
		{ false, 1000, S_IFREG | 0600, 1, "it is owned by uid 1000, not uid 0" },
		{ false, 0, S_IFREG | 0620, 1, "writable by group or others (mode 0620)" },
		{ false, 0, S_IFREG | 0600, 2, "it has 2 links" },
		{ false, 0, S_IFIFO | 0600, 1, "it is not a regular file" },
	};
	const struct stat d = { .st_mode = S_IFDIR | 0755, .st_nlink = 2 };
	const struct stat f = { .st_mode = S_IFREG | 0600, .st_nlink = 1 };
	char why[160];

	(void)state;
	assert_int_equal(uc_hist_trusted(&d, &f, 0, why, sizeof(why)), 0);
	assert_int_equal(uc_hist_trusted(&d, NULL, 0, why, sizeof(why)), 0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct stat dd = d, ff = f, *st = bad[i].dir ? &dd : &ff;

		st->st_uid = bad[i].uid;
		st->st_mode = bad[i].mode;
		st->st_nlink = bad[i].nlink;
		assert_int_equal(uc_hist_trusted(&dd, &ff, 0, why, sizeof(why)), -EPERM);
		assert_non_null(strstr(why, bad[i].why));
	}
}

/* ---- the file --------------------------------------------------------------------- */

static char hist_path[PATH_MAX];

static const char *hpath(void)
{
	char dir[PATH_MAX];

	assert_int_equal(uc_hist_dir(dir, sizeof(dir)), 0);
	assert_int_equal(fr_path(hist_path, sizeof(hist_path), root, dir), 0);
	strcat(hist_path, "/" UC_HIST_NAME);
	return hist_path;
}

static unsigned record(struct uc_plan *p)
{
	unsigned id = 0;
	char why[256];

	assert_int_equal(uc_hist_begin(p, &note, UC_KEY_ON, &id, why, sizeof(why)), 0);
	for (size_t i = 0; i < p->n; i++)
		p->rec[i].state = UC_CH_DONE;
	assert_int_equal(uc_hist_end(id, p, UC_KEY_ON, UC_RUN_OK, why, sizeof(why)), 0);
	return id;
}

/* Begin, end, load; a torn tail is repaired by the next writer. */
static void test_file(void **state)
{
	struct uc_plan p;
	struct uc_hist h;
	char why[256];
	struct stat st;
	int fd;

	(void)state;
	assert_int_equal(uc_hist_load(&h, why, sizeof(why)), 0);	/* none yet */
	assert_int_equal(h.n, 0);
	plan_all(&p);
	assert_int_equal(record(&p), 1);
	assert_int_equal(record(&p), 2);
	assert_int_equal(stat(hpath(), &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	/* a crash in the middle of run 3's first write */
	fd = open(hpath(), O_WRONLY | O_APPEND);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "UCH1\x40\0\0\0\1\2\3\4abc", 15), 15);
	close(fd);
	assert_int_equal(uc_hist_load(&h, why, sizeof(why)), 0);
	assert_true(h.torn);
	assert_int_equal(h.n, 2);
	assert_int_equal(h.runs[1].n, 4);
	assert_true(h.runs[1].ended);
	assert_int_equal(h.runs[1].v[3].state, UC_CH_DONE);
	uc_hist_free(&h);
	assert_int_equal(record(&p), 3);
	assert_int_equal(uc_hist_load(&h, why, sizeof(why)), 0);
	assert_false(h.torn);
	assert_int_equal(h.n, 3);
	uc_hist_free(&h);
	/* another boot: not shown; its numbers do not go on */
	put("proc/sys/kernel/random/boot_id", "99999999-2222-3333-4444-555555555555\n");
	assert_int_equal(uc_hist_load(&h, why, sizeof(why)), 0);
	assert_true(h.other_boot);
	assert_int_equal(h.n, 0);
	assert_int_equal(record(&p), 1);
	assert_int_equal(uc_hist_load(&h, why, sizeof(why)), 0);
	assert_int_equal(h.n, 1);
	uc_hist_free(&h);
	uc_plan_free(&p);
}

/* Refused with a reason: damaged, too large, a link, another owner's mode. */
static void test_file_refused(void **state)
{
	struct uc_plan p;
	struct uc_hist h;
	char why[256], link[PATH_MAX];
	unsigned id;
	int fd;

	(void)state;
	plan_all(&p);
	record(&p);
	record(&p);
	/* damaged in the middle: a checksum (the reader checks every one) */
	fd = open(hpath(), O_WRONLY);
	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, "X", 1, 60), 1);
	assert_int_equal(uc_hist_load(&h, why, sizeof(why)), -EBADMSG);
	assert_non_null(strstr(why, "damaged"));
	assert_non_null(strstr(why, UC_HIST_NAME));
	/* a magic (the writer walks the frames): no writer appends to it */
	assert_int_equal(pwrite(fd, "X", 1, 51), 1);
	close(fd);
	assert_int_equal(uc_hist_begin(&p, &note, UC_KEY_ON, &id, why, sizeof(why)), -EBADMSG);
	assert_non_null(strstr(why, "damaged"));
	/* larger than a record may be */
	assert_int_equal(truncate(hpath(), UC_HIST_MAX + 1), 0);
	assert_int_equal(uc_hist_load(&h, why, sizeof(why)), -EFBIG);
	assert_non_null(strstr(why, "more than a record may hold"));
	/* writable by others */
	assert_int_equal(unlink(hpath()), 0);
	record(&p);
	assert_int_equal(chmod(hpath(), 0666), 0);
	assert_int_equal(uc_hist_load(&h, why, sizeof(why)), -EPERM);
	assert_non_null(strstr(why, "writable by group or others"));
	assert_int_equal(uc_hist_begin(&p, &note, UC_KEY_ON, &id, why, sizeof(why)), -EPERM);
	/* a symbolic link */
	assert_int_equal(unlink(hpath()), 0);
	snprintf(link, sizeof(link), "%s", hpath());
	assert_int_equal(symlink("/etc/passwd", link), 0);
	assert_int_equal(uc_hist_load(&h, why, sizeof(why)), -EPERM);
	assert_non_null(strstr(why, "symbolic link"));
	assert_int_equal(unlink(hpath()), 0);
	uc_plan_free(&p);
}

/* Bounded: the oldest runs make room; a run too large keeps only its count. */
static void test_bounded(void **state)
{
	static const struct uc_sched_attr sa = { .size = 56, .sched_util_max = 1024 };
	struct uc_plan big, huge;
	struct uc_hist h;
	struct stat st;
	char why[256];

	(void)state;
	uc_plan_init(&big);
	uc_plan_init(&huge);
	/* ~18,000 changes of 43 bytes (each its own process's: none share a group): 0.77 MiB a
	 * run */
	for (pid_t t = 1; t <= 18000; t++)
		assert_non_null(uc_plan_add_task(&big, t, t, NULL, &sa, UC_ATTR_MAX, 1024, 300));
	for (pid_t t = 1; t <= 30000; t++)
		assert_non_null(uc_plan_add_task(&huge, t, t, NULL, &sa, UC_ATTR_MAX, 1024, 300));
	for (unsigned i = 1; i <= 8; i++)
		assert_int_equal(record(&big), i);
	assert_int_equal(stat(hpath(), &st), 0);
	assert_true((size_t)st.st_size <= UC_HIST_MAX);
	assert_int_equal(uc_hist_load(&h, why, sizeof(why)), 0);
	assert_in_range(h.n, 2, 5);
	assert_int_equal(h.runs[h.n - 1].id, 8);	/* the newest kept, numbers go on */
	assert_int_equal(h.runs[h.n - 1].n, 18000);
	uc_hist_free(&h);
	assert_int_equal(record(&huge), 9);
	assert_int_equal(uc_hist_load(&h, why, sizeof(why)), 0);
	assert_true(h.runs[h.n - 1].flags & UC_HIST_TOO_LARGE);
	assert_int_equal(h.runs[h.n - 1].n, 0);
	assert_int_equal(h.runs[h.n - 1].ntotal, 30000);
	assert_true(h.runs[h.n - 1].ended);
	uc_hist_free(&h);
	uc_plan_free(&big);
	uc_plan_free(&huge);
}

/* ---- undo ------------------------------------------------------------------------- */

struct skips {
	size_t n;
	enum uc_undo_why why[8];
	long now[8];
};

static void on_skip(const struct uc_undo_skip *s, void *data)
{
	struct skips *k = data;

	assert_true(k->n < 8);
	k->why[k->n] = s->why;
	k->now[k->n++] = s->now;
}

/* What still holds what the run set goes back; what changed since, or is
 * not the same task or group any more, is left alone and named. */
static void test_undo(void **state)
{
	struct uc_plan p, u;
	struct uc_hist h;
	struct skips k = { 0 };
	char why[256];
	size_t skipped;

	(void)state;
	plan_all(&p);
	p.rec[0].pid = p.rec[1].pid = 500;
	p.rec[0].tid = p.rec[1].tid = 500;
	p.rec[0].start = p.rec[1].start = 4242;
	record(&p);
	assert_int_equal(uc_hist_load(&h, why, sizeof(why)), 0);
	/* the run's values in place: task 500 at min 100 max 300, the knob at 300, the group 40% */
	stat_file(500, 4242);
	tasks[0].min = 100;
	tasks[0].max = 300;
	put("proc/sys/kernel/sched_util_clamp_min", "300\n");
	put("cg/grp/cpu.uclamp.max", "40.00\n");
	uc_plan_init(&u);
	assert_int_equal(uc_undo_plan(&h.runs[0], &u, on_skip, &k, &skipped), 0);
	assert_int_equal(skipped, 0);
	assert_int_equal(u.n, 4);
	assert_int_equal(u.rec[0].kind, UC_KIND_TASK);
	assert_int_equal(u.rec[0].from, 100);
	assert_int_equal(u.rec[0].to, UC_RESET);	/* min 0 was the default */
	assert_int_equal(u.rec[1].from, 300);
	assert_int_equal(u.rec[1].to, UC_RESET);	/* max 1024 too */
	assert_int_equal(u.rec[1].start, 4242);	/* the executor checks it again */
	assert_int_equal(u.rec[2].kind, UC_KIND_CGROUP);
	assert_int_equal(u.rec[2].to, 10000);
	assert_int_equal(u.rec[3].kind, UC_KIND_SYSCTL);
	assert_int_equal(u.rec[3].to, 1024);
	uc_plan_free(&u);

	/* changed since: left alone, the value now named; already back: unchanged */
	put("proc/sys/kernel/sched_util_clamp_min", "500\n");
	put("cg/grp/cpu.uclamp.max", "max\n");
	tasks[0].max = 700;
	uc_plan_init(&u);
	assert_int_equal(uc_undo_plan(&h.runs[0], &u, on_skip, &k, &skipped), 0);
	assert_int_equal(u.n, 1);	/* the task's min alone */
	assert_int_equal(u.unchanged, 1);	/* the group, back at max */
	assert_int_equal(skipped, 2);
	assert_int_equal(k.why[0], UC_UNDO_CHANGED);
	assert_int_equal(k.now[0], 700);
	assert_int_equal(k.why[1], UC_UNDO_CHANGED);
	assert_int_equal(k.now[1], 500);
	uc_plan_free(&u);

	/* another process at the PID; the group made again */
	k.n = 0;
	stat_file(500, 9999);
	{
		char from[PATH_MAX], to[PATH_MAX];

		/* moved away, so the new one cannot have its inode number */
		assert_int_equal(fr_path(from, sizeof(from), root, "cg/grp"), 0);
		assert_int_equal(fr_path(to, sizeof(to), root, "cg/grp-old"), 0);
		assert_int_equal(rename(from, to), 0);
	}
	put("cg/grp/cpu.uclamp.min", "0.00\n");
	put("cg/grp/cpu.uclamp.max", "40.00\n");
	put("proc/sys/kernel/sched_util_clamp_min", "1024\n");
	uc_plan_init(&u);
	assert_int_equal(uc_undo_plan(&h.runs[0], &u, on_skip, &k, &skipped), 0);
	assert_int_equal(u.n, 0);
	assert_int_equal(skipped, 3);
	assert_int_equal(k.why[0], UC_UNDO_GONE);
	assert_int_equal(k.why[1], UC_UNDO_GONE);
	assert_int_equal(k.why[2], UC_UNDO_RECREATED);
	uc_plan_free(&u);
	uc_hist_free(&h);
	uc_plan_free(&p);
}

/* The record of threads 700..703 of process 700, min then max each, 702 gone (the RUN and
 * END of test_run_of_threads_same_bytes): read back a change a thread, in order. A file of
 * the first format (its header's type) is taken as another boot's. */
static void test_threads_read_back(struct hist_buf *rec)
{
	struct hist_buf b = { 0 };
	struct uc_hist h;
	char why[256];

	hist_put_head(&b, BOOT);
	hist_put_bytes(&b, rec->b, rec->n);
	assert_int_equal(uc_hist_parse(b.b, b.n, BOOT, &h, why, sizeof(why)), 0);
	assert_int_equal(h.n, 1);
	assert_int_equal(h.runs[0].n, 8);
	for (size_t i = 0; i < 8; i++) {
		const struct uc_hist_change *c = &h.runs[0].v[i];

		assert_int_equal(c->kind, UC_KIND_TASK);
		assert_int_equal(c->attr, i % 2 ? UC_ATTR_MAX : UC_ATTR_MIN);
		assert_int_equal(c->pid, 700);
		assert_int_equal(c->tid, 700 + (pid_t)(i / 2));
		assert_int_equal(c->start, 4242);
		assert_int_equal(c->from, i % 2 ? 1024 : 0);
		assert_int_equal(c->to, i % 2 ? 300 : 100);
		assert_null(c->label);
		assert_int_equal(c->state, i / 2 == 2 ? UC_CH_GONE : UC_CH_DONE);
	}
	uc_hist_free(&h);
	/* the header's type is the first byte of its payload */
	b.b[HIST_FRAME] = HIST_HEAD_V1;
	{
		uint32_t crc = hist_crc32(b.b + HIST_FRAME, 3 + strlen(BOOT));

		for (int i = 0; i < 4; i++)
			b.b[8 + i] = (uint8_t)(crc >> (8 * i));
	}
	assert_int_equal(uc_hist_parse(b.b, b.n, BOOT, &h, why, sizeof(why)), 0);
	assert_true(h.other_boot);
	assert_int_equal(h.n, 0);
	uc_hist_free(&h);
	free(b.b);
}

/* A run of threads is recorded as the same threads' changes one record each would be:
 * the same bytes, RUN and END (the record does not know how a plan stores them). */
static void test_run_of_threads_same_bytes(void **state)
{
	static const struct uc_task_change ch[] = {
		{ UC_ATTR_MIN, 0, 100 }, { UC_ATTR_MAX, 1024, 300 },
	};
	const struct uc_sched_attr sa = { .size = 56 };
	struct hist_buf a = { 0 }, b = { 0 };
	struct uc_plan run, each;

	(void)state;
	uc_plan_init(&run);
	uc_plan_init(&each);
	for (pid_t tid = 700; tid <= 703; tid++) {
		assert_int_equal(uc_plan_add_thread(&run, 700, tid, 4242, NULL, &sa, ch, 2), 0);
		for (size_t k = 0; k < 2; k++) {
			struct uc_change *c = uc_plan_add_task(&each, 700, tid, NULL, &sa,
							       ch[k].attr, ch[k].from, ch[k].to);

			assert_non_null(c);
			c->start = 4242;
			c->state = tid == 702 ? UC_CH_GONE : UC_CH_DONE;
		}
	}
	assert_int_equal(run.nrec, 2);
	run.rec[0].state = run.rec[1].state = UC_CH_DONE;
	for (size_t t = 0; t < 3; t++)
		run.rec[0].run->st[t].state = t == 1 ? UC_CH_GONE : UC_CH_DONE;
	hist_put_run(&a, 1, &run, &note, UC_KEY_OFF, 1700000000, 0);
	hist_put_end(&a, 1, &run, UC_KEY_ON, UC_RUN_OK);
	hist_put_run(&b, 1, &each, &note, UC_KEY_OFF, 1700000000, 0);
	hist_put_end(&b, 1, &each, UC_KEY_ON, UC_RUN_OK);
	assert_false(a.oom || b.oom);
	assert_int_equal(a.n, b.n);
	assert_memory_equal(a.b, b.b, a.n);
	test_threads_read_back(&a);
	free(a.b);
	free(b.b);
	uc_plan_free(&run);
	uc_plan_free(&each);
}

/* every record of buf[n] is whole and its checksum right: 0, else the offset of the first
 * that is not */
static size_t first_bad(const uint8_t *buf, size_t n)
{
	const uint8_t *pl;
	uint32_t len;
	size_t off = 0, at = 0;
	int rc;

	while ((rc = hist_next(buf, n, &off, true, &pl, &len)) == HIST_F_OK)
		at = off;
	return rc == HIST_F_END ? 0 : at + 1;
}

/* The RUN record's checksum, built change by change (a thread's changes of a run from
 * the same change of the thread before), is the checksum of its bytes: runs of one, two
 * and three changes a thread, with named threads, files and a long run among them. */
static void test_run_checksum(void **state)
{
	static const struct uc_task_change ch[] = {
		{ UC_ATTR_MIN, 0, 100 }, { UC_ATTR_MAX, 1024, 300 },
		{ UC_ATTR_RESET_ON_FORK, 0, 1 },
	};
	const struct uc_sched_attr sa = { .size = 56 };
	struct hist_buf b = { 0 };
	struct uc_plan p;
	pid_t tid = 1000;

	(void)state;
	uc_plan_init(&p);
	for (size_t k = 1; k <= 3; k++) {
		for (int i = 0; i < 700; i++, tid++)
			assert_int_equal(uc_plan_add_thread(&p, 1000, tid, 77, i % 300 == 5 ?
							    "named" : NULL, &sa, ch, k), 0);
		assert_non_null(uc_plan_add(&p, UC_KIND_CGROUP, UC_ATTR_MAX, "grp", 10000,
					    4000));
	}
	/* tids with every byte different from the one before */
	for (uint32_t t = 0x01020304; t < 0x01020304 + 20 * 0x01010101u; t += 0x01010101u)
		assert_int_equal(uc_plan_add_thread(&p, 1000, (pid_t)t, 77, NULL, &sa, ch, 1), 0);
	assert_true(p.nrec < 60);	/* runs, mostly */
	hist_put_head(&b, BOOT);
	hist_put_run(&b, 1, &p, &note, UC_KEY_OFF, 1700000000, 0);
	assert_false(b.oom);
	assert_int_equal(first_bad(b.b, b.n), 0);
	free(b.b);
	uc_plan_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip),
		cmocka_unit_test(test_run_of_threads_same_bytes),
		cmocka_unit_test(test_run_checksum),
		cmocka_unit_test(test_torn),
		cmocka_unit_test(test_damaged),
		cmocka_unit_test(test_hostile_values),
		cmocka_unit_test(test_trust),
		cmocka_unit_test_setup_teardown(test_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_file_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bounded, setup, teardown),
		cmocka_unit_test_setup_teardown(test_undo, setup, teardown),
	};

	return fr_run(&suite, tests, setup, NULL);
}
