/*
 * The daemon core against synthetic proc events, a fake /proc
 * ($UCLAMPCTL_SYSROOT), scripted sched syscalls and a scripted matcher:
 * apply at EXEC, thread walk, COMM re-match, thread forks, overrun / seq
 * gap / full queue -> rescan (debounced), PID reuse -> not applied, giving
 * up on a fought-over process (until it execs), the writers' lock held ->
 * no write, retried by a rescan (a warning naming the holder when it lasts), a
 * stop signal -> the write under way finishes, then no more; a reload that
 * does not take -> no consent; one daemon per status socket;
 * and the configuration loader: a bad file is refused with file:line,
 * consent comes from allow-enable.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "uclamp/config.h"
#include "uclamp/lock.h"
#include "uclamp/sched.h"
#include "uclamp/watch.h"
#include "fakeroot.h"

static char root[256];
static const struct fr_suite suite = { root, sizeof(root), "test-watch", true, { "run" } };

/* ---- the fake kernel ---------------------------------------------------- */

#define NT 96
static struct {
	pid_t tid;
	struct uc_sched_attr a;
} tasks[NT];
static int nset;
static pid_t set_tid[64];
static bool revert;	/* another writer: every set is undone at once */
static volatile sig_atomic_t stop_flag;
static bool stop_on_set;	/* a "signal" arrives during the first write */
static bool stat_gone_on_get;	/* a getattr removes /proc/TID/stat: no later read finds it */
static void unput_stat(pid_t pid);

static struct uc_sched_attr *task(pid_t tid)
{
	for (int i = 0; i < NT; i++)
		if (tasks[i].tid == tid)
			return &tasks[i].a;
	return NULL;
}

static int fake_getattr(pid_t tid, struct uc_sched_attr *a, unsigned int size, unsigned int flags)
{
	struct uc_sched_attr *t = task(tid);

	if (!t) {
		errno = ESRCH;
		return -1;
	}
	if (stat_gone_on_get)
		unput_stat(tid);
	*a = *t;
	a->size = 56;
	return 0;
}

static int fake_setattr(pid_t tid, struct uc_sched_attr *a, unsigned int flags)
{
	struct uc_sched_attr *t = task(tid);

	if (!t) {
		errno = ESRCH;
		return -1;
	}
	if (nset < 64)
		set_tid[nset] = tid;
	nset++;
	if (stop_on_set)
		stop_flag = SIGTERM;
	if (revert)
		return 0;
	if (a->sched_flags & UC_SCHED_FLAG_UTIL_CLAMP_MIN)
		t->sched_util_min = a->sched_util_min;
	if (a->sched_flags & UC_SCHED_FLAG_UTIL_CLAMP_MAX)
		t->sched_util_max = a->sched_util_max;
	return 0;
}

static const struct uc_sched_syscalls fake_sc = { fake_getattr, fake_setattr };

static int pidfd_mode;	/* 0: no pidfds (start time re-read), 1: alive, 2: exited */
static int fake_pidfd_open(pid_t pid)
{
	return pidfd_mode ? open("/dev/null", O_RDONLY | O_CLOEXEC) : -ENOSYS;
}

static int fake_pidfd_alive(int fd)
{
	return pidfd_mode == 1;
}

static const struct uc_watch_sys fake_sys = { fake_pidfd_open, fake_pidfd_alive };

static void put(const char *rel, const char *text)
{
	char p[512];
	FILE *f;

	snprintf(p, sizeof(p), "%s%s", root, rel);
	f = fopen(p, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void unput_stat(pid_t pid)
{
	char p[512];

	snprintf(p, sizeof(p), "%s/proc/%d/stat", root, (int)pid);
	unlink(p);
}

static void mkd(const char *fmt, ...)
{
	char rel[256], p[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(rel, sizeof(rel), fmt, ap);
	va_end(ap);
	snprintf(p, sizeof(p), "%s%s", root, rel);
	mkdir(p, 0755);
}

/* A process with threads tids[0] (== pid) .. tids[n-1], started at 'start' ticks. */
static void add_proc(pid_t pid, const pid_t *tids, int n, unsigned long long start)
{
	char rel[128], text[512];

	mkd("/proc/%d", (int)pid);
	mkd("/proc/%d/task", (int)pid);
	snprintf(text, sizeof(text),
		 "%d (p%d) S 1 %d %d 0 -1 4194560 0 0 0 0 0 0 0 0 20 0 %d 0 %llu 0 0\n", (int)pid,
		 (int)pid, (int)pid, (int)pid, n, start);
	snprintf(rel, sizeof(rel), "/proc/%d/stat", (int)pid);
	put(rel, text);
	for (int i = 0; i < n; i++) {
		mkd("/proc/%d/task/%d", (int)pid, (int)tids[i]);
		/* /proc/TID exists too (hidden from readdir) */
		mkd("/proc/%d", (int)tids[i]);
		snprintf(rel, sizeof(rel), "/proc/%d/status", (int)tids[i]);
		snprintf(text, sizeof(text), "Name:\tp\nTgid:\t%d\nPid:\t%d\nUid:\t0\t0\t0\t0\n",
			 (int)pid, (int)tids[i]);
		put(rel, text);
		for (int k = 0; k < NT; k++) {
			if (!tasks[k].tid || tasks[k].tid == tids[i]) {
				tasks[k].tid = tids[i];
				tasks[k].a = (struct uc_sched_attr){ .size = 56,
								     .sched_util_max = 1024 };
				break;
			}
		}
	}
}

/* ---- the scripted matcher ------------------------------------------------ */

static struct {
	pid_t tid;
	int max;
	bool threads;
} rules[NT];
static int nrules;

static int fake_match(void *r, pid_t pid, pid_t tid, struct uc_watch_seen *seen,
		      struct uc_rules_result *res)
{
	(void)r;
	(void)pid;
	memset(res, 0, sizeof(*res));
	res->excluded_by = -1;
	for (int a = 0; a < UC_RA_N; a++) {
		res->winner[a] = -1;
		res->value[a] = UC_KEEP;
	}
	for (int i = 0; i < nrules; i++) {
		if (rules[i].tid != tid)
			continue;
		res->winner[UC_RA_MAX] = i;
		res->value[UC_RA_MAX] = rules[i].max;
		res->threads = rules[i].threads;
		res->matched = 1;
		return 0;
	}
	return 0;
}

static const char *fake_name(void *r, int idx)
{
	(void)r;
	(void)idx;
	return "r";
}

static const struct uc_watch_rules_ops fake_ops = { .match = fake_match, .name = fake_name };

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The daemon's last warning (or worse), as it would log it. */
static char last_warning[512];

static int nchanges;	/* lines saying a clamp was written */

static void log_cb(void *data, const struct uc_watch_log *l)
{
	(void)data;
	if (l->prio <= LOG_WARNING)
		snprintf(last_warning, sizeof(last_warning), "%s", l->msg);
	nchanges += strstr(l->msg, " rule 'r': ") != NULL;
}

static struct uc_watch *mk_opts(size_t qcap, bool yes, enum uc_key_state key)
{
	struct uc_watch_opts o = {
		.sys = &fake_sys, .queue_cap = qcap, .reapply_limit = 2, .yes = yes, .key = key,
		.log = log_cb,
	};
	struct uc_watch_ruleset rs = { .ops = &fake_ops, .nrules = 1, .sets_clamps = true };
	struct uc_watch *w;

	assert_int_equal(uc_watch_new(&o, &w), 0);
	uc_watch_set_rules(w, &rs);
	return w;
}

static struct uc_watch *mk(size_t qcap)
{
	return mk_opts(qcap, true, UC_KEY_OFF);
}

static struct uc_pev ev(uint32_t what, pid_t pid, pid_t tgid, uint32_t cpu, uint32_t seq)
{
	return (struct uc_pev){
		.what = what, .pid = pid, .tgid = tgid, .cpu = cpu, .seq = seq, .ts_ns = mono_ns()
	};
}

static int setup(void **state)
{
	assert_int_equal(fr_remove(root, "proc"), 0);
	assert_int_equal(fr_mkdir(root, "proc"), 0);
	memset(tasks, 0, sizeof(tasks));
	memset(rules, 0, sizeof(rules));
	nrules = 0;
	nset = 0;
	revert = false;
	pidfd_mode = 0;
	stop_flag = 0;
	stop_on_set = false;
	stat_gone_on_get = false;
	last_warning[0] = '\0';
	nchanges = 0;
	return 0;
}

/* ---- tests ------------------------------------------------------------------ */

static void test_exec_applies(void **state)
{
	const pid_t t[] = { 100 };
	struct uc_watch *w = mk(0);
	struct uc_pev e = ev(UC_PEV_EXEC, 100, 100, 0, 1);

	add_proc(100, t, 1, 1);
	rules[nrules++] = (typeof(rules[0])){ 100, 300, false };
	uc_watch_push(w, &e);
	assert_int_equal(uc_watch_stats(w)->queue_len, 1);
	uc_watch_process(w, 10);
	assert_int_equal(nset, 1);
	assert_int_equal(task(100)->sched_util_max, 300);
	assert_int_equal(uc_watch_stats(w)->applied, 1);
	assert_int_equal(uc_watch_stats(w)->lat_count, 1);
	assert_int_equal(uc_watch_stats(w)->tracked, 1);
	/* again: already right, no write (sched_getattr first) */
	uc_watch_push(w, &e);
	uc_watch_process(w, 10);
	assert_int_equal(nset, 1);
	assert_int_equal(uc_watch_stats(w)->unchanged, 1);
	/* a process no rule matches: nothing */
	add_proc(101, (pid_t[]){ 101 }, 1, 1);
	e = ev(UC_PEV_EXEC, 101, 101, 0, 2);
	uc_watch_push(w, &e);
	uc_watch_process(w, 10);
	assert_int_equal(nset, 1);
	/* an EXIT drops the table entry */
	e = ev(UC_PEV_EXIT, 100, 100, 0, 3);
	uc_watch_push(w, &e);
	assert_int_equal(uc_watch_stats(w)->tracked, 0);
	uc_watch_free(w);
}

static void test_threads_and_comm(void **state)
{
	const pid_t t[] = { 200, 201, 202 };
	struct uc_watch *w = mk(0);
	struct uc_pev e;

	add_proc(200, t, 3, 1);
	/* the main thread's rule visits the threads: 200 and 201 match, 202 not */
	rules[nrules++] = (typeof(rules[0])){ 200, 400, true };
	rules[nrules++] = (typeof(rules[0])){ 201, 400, true };
	e = ev(UC_PEV_EXEC, 200, 200, 0, 1);
	uc_watch_push(w, &e);
	uc_watch_process(w, 10);
	assert_int_equal(nset, 2);
	assert_int_equal(task(201)->sched_util_max, 400);
	assert_int_equal(task(202)->sched_util_max, 1024);
	/* a thread fork: inherited, nothing to do, nothing queued */
	e = (struct uc_pev){
		.what = UC_PEV_FORK, .pid = 203, .tgid = 200, .parent_pid = 200, .parent_tgid = 200
	};
	uc_watch_push(w, &e);
	assert_int_equal(uc_watch_stats(w)->queue_len, 0);
	assert_int_equal(uc_watch_stats(w)->events[UC_WEV_FORK], 1);
	/* thread 202 renamed: COMM re-matches that thread only */
	rules[nrules++] = (typeof(rules[0])){ 202, 100, false };
	e = ev(UC_PEV_COMM, 202, 200, 0, 2);
	uc_watch_push(w, &e);
	uc_watch_process(w, 10);
	assert_int_equal(nset, 3);
	assert_int_equal(set_tid[2], 202);
	assert_int_equal(task(202)->sched_util_max, 100);
	uc_watch_free(w);
}

static void test_overrun_rescan(void **state)
{
	const pid_t t[] = { 300 };
	struct uc_watch *w = mk(0);
	uint64_t now = 100000;

	add_proc(300, t, 1, 1);
	rules[nrules++] = (typeof(rules[0])){ 300, 500, false };
	assert_int_equal(uc_watch_rescan_due(w, now), -1);	/* clean: nothing to do */
	uc_watch_overrun(w);
	assert_int_equal(uc_watch_rescan_due(w, now), 0);
	assert_string_equal(last_warning, "");
	assert_int_equal(uc_watch_rescan(w, UC_RESCAN_START, now), 0);
	assert_int_equal(uc_watch_stats(w)->rescans[UC_RESCAN_OVERRUN], 1);
	/* said, not only counted */
	assert_non_null(strstr(last_warning, "proc events were lost (overrun; 1 overruns"));
	assert_int_equal(uc_watch_stats(w)->rescans[UC_RESCAN_START], 0);
	/* the lost EXEC, caught by the scan */
	assert_int_equal(task(300)->sched_util_max, 500);
	/* debounced: the next one waits out the second */
	uc_watch_overrun(w);
	assert_int_equal(uc_watch_rescan_due(w, now + 200), 800);
	assert_int_equal(uc_watch_rescan_due(w, now + 1000), 0);
	uc_watch_free(w);
}

static void test_lock_held(void **state)
{
	const pid_t t[] = { 310 };
	struct uc_lock other = { .fd = -1 };
	struct uc_watch *w = mk(0);
	struct uc_pev e = ev(UC_PEV_EXEC, 310, 310, 0, 1);
	uint64_t now;
	long due;

	add_proc(310, t, 1, 1);
	rules[nrules++] = (typeof(rules[0])){ 310, 300, false };
	assert_int_equal(uc_lock_try(&other, NULL), 0);	/* an 'apply' holds the lock */
	uc_watch_push(w, &e);
	assert_int_equal(uc_watch_process(w, 10), 0);
	assert_int_equal(nset, 0);				/* no write */
	assert_int_equal(task(310)->sched_util_max, 1024);
	/* not dropped: dirty, the rescan comes from the debounce timer, not at once */
	now = uc_now_ms();
	due = uc_watch_rescan_due(w, now);
	assert_true(due > 0 && due <= 1000);
	/* still held at the retry: no write, still dirty, nothing counted as done */
	assert_int_equal(uc_watch_rescan(w, UC_RESCAN_START, now + 1000), 0);
	assert_int_equal(nset, 0);
	assert_int_equal(uc_watch_stats(w)->rescans[UC_RESCAN_LOCKED], 0);
	assert_true(uc_watch_rescan_due(w, uc_now_ms()) > 0);
	/* released: the next retry writes */
	uc_lock_release(&other);
	assert_int_equal(uc_watch_rescan(w, UC_RESCAN_START, uc_now_ms() + 1000), 0);
	assert_int_equal(nset, 1);
	assert_int_equal(task(310)->sched_util_max, 300);
	assert_int_equal(uc_watch_stats(w)->rescans[UC_RESCAN_LOCKED], 1);
	assert_int_equal(uc_watch_rescan_due(w, uc_now_ms()), -1);
	/* the batch let go of the lock */
	assert_int_equal(uc_lock_try(&other, NULL), 0);
	uc_lock_release(&other);
	uc_watch_free(w);
}

/* The lock is taken at a batch's first task a rule applies to: events no
 * rule takes go through while an 'apply' holds it, without a lock-out or a
 * rescan; a task a rule takes is never read from the middle of the other
 * writer's run, even when its values look right already (that run may
 * still roll back): locked out, retried by the rescan. */
static void test_lock_only_to_write(void **state)
{
	const pid_t t[] = { 330 }, u[] = { 331 };
	struct uc_lock other = { .fd = -1 };
	struct uc_watch *w = mk(0);
	struct uc_pev e = ev(UC_PEV_EXEC, 330, 330, 0, 2), f = ev(UC_PEV_EXEC, 331, 331, 0, 1);

	(void)state;
	add_proc(330, t, 1, 1);
	add_proc(331, u, 1, 1);
	rules[nrules++] = (typeof(rules[0])){ 330, 300, false };	/* none for 331 */
	task(330)->sched_util_max = 300;
	assert_int_equal(uc_lock_try(&other, NULL), 0);
	uc_watch_push(w, &f);
	assert_int_equal(uc_watch_process(w, 10), 0);
	assert_int_equal(nset, 0);
	assert_int_equal(uc_watch_rescan_due(w, uc_now_ms()), -1);	/* not locked out */
	/* a rule takes 330: its values are not read while the lock is held */
	uc_watch_push(w, &e);
	uc_watch_process(w, 10);
	assert_int_equal(nset, 0);
	assert_int_equal(uc_watch_stats(w)->unchanged, 0);
	assert_true(uc_watch_rescan_due(w, uc_now_ms()) > 0);
	/* released: the retry reads it and finds it in place */
	uc_lock_release(&other);
	assert_int_equal(uc_watch_rescan(w, UC_RESCAN_START, uc_now_ms() + 1000), 0);
	assert_int_equal(nset, 0);
	assert_int_equal(uc_watch_stats(w)->unchanged, 1);
	assert_int_equal(uc_watch_rescan_due(w, uc_now_ms()), -1);
	uc_watch_free(w);
}

/* A live pidfd is the main thread's identity check: the executor does not
 * read /proc/PID/stat again (here it is gone by then); without a pidfd it
 * must, and a start time it cannot read is a task gone, not a write. */
static void test_pidfd_is_the_check(void **state)
{
	struct uc_watch *w = mk(0);
	struct uc_pev e = ev(UC_PEV_EXEC, 340, 340, 0, 1);

	(void)state;
	add_proc(340, (pid_t[]){ 340 }, 1, 1);
	rules[nrules++] = (typeof(rules[0])){ 340, 300, false };
	stat_gone_on_get = true;
	pidfd_mode = 1;
	uc_watch_push(w, &e);
	uc_watch_process(w, 10);
	assert_int_equal(nset, 1);
	assert_int_equal(task(340)->sched_util_max, 300);
	/* no pidfd: the start time is read again, and it is not there */
	add_proc(341, (pid_t[]){ 341 }, 1, 1);
	rules[nrules++] = (typeof(rules[0])){ 341, 300, false };
	pidfd_mode = 0;
	e = ev(UC_PEV_EXEC, 341, 341, 0, 2);
	uc_watch_push(w, &e);
	uc_watch_process(w, 10);
	assert_int_equal(nset, 1);
	assert_int_equal(task(341)->sched_util_max, 1024);
	uc_watch_free(w);
}

/* A lock held for long is a warning that names the holder by its comm, as
 * it is: watch's log escapes it (the first contention is only information). */
static void test_lock_held_warns(void **state)
{
	const pid_t t[] = { 320 };
	struct uc_lock other = { .fd = -1 };
	struct uc_watch_opts o = {
		.sys = &fake_sys, .yes = true, .key = UC_KEY_OFF, .log = log_cb, .lock_warn_ms = 20,
	};
	struct uc_watch_ruleset rs = { .ops = &fake_ops, .nrules = 1, .sets_clamps = true };
	struct uc_pev e = ev(UC_PEV_EXEC, 320, 320, 0, 1);
	const struct timespec pause = { 0, 40 * 1000 * 1000 };
	char rel[64], want[96];
	struct uc_watch *w;

	assert_int_equal(uc_watch_new(&o, &w), 0);
	uc_watch_set_rules(w, &rs);
	add_proc(320, t, 1, 1);
	rules[nrules++] = (typeof(rules[0])){ 320, 300, false };
	/* the holder: this process (the file's PID: a fake root has no /proc/locks) */
	mkd("/proc/%d", (int)getpid());
	snprintf(rel, sizeof(rel), "/proc/%d/comm", (int)getpid());
	put(rel, "fl\x1b[8mck\n");
	assert_int_equal(uc_lock_try(&other, NULL), 0);
	uc_watch_push(w, &e);
	uc_watch_process(w, 10);
	assert_int_equal(nset, 0);
	assert_string_equal(last_warning, "");
	nanosleep(&pause, NULL);
	uc_watch_rescan(w, UC_RESCAN_START, uc_now_ms());
	assert_int_equal(nset, 0);
	snprintf(want, sizeof(want), "PID %d (fl\x1b[8mck) has held the writers' lock",
		 (int)getpid());
	assert_non_null(strstr(last_warning, want));
	/* once per contention */
	last_warning[0] = '\0';
	uc_watch_rescan(w, UC_RESCAN_START, uc_now_ms());
	assert_string_equal(last_warning, "");
	uc_lock_release(&other);
	uc_watch_rescan(w, UC_RESCAN_START, uc_now_ms());
	assert_int_equal(nset, 1);
	uc_watch_free(w);
}

static void test_stop_mid_batch(void **state)
{
	struct uc_watch *w = mk(0);
	struct uc_pev a = ev(UC_PEV_EXEC, 320, 320, 0, 1), b = ev(UC_PEV_EXEC, 321, 321, 0, 2);

	add_proc(320, (pid_t[]){ 320 }, 1, 1);
	add_proc(321, (pid_t[]){ 321 }, 1, 1);
	rules[nrules++] = (typeof(rules[0])){ 320, 300, false };
	rules[nrules++] = (typeof(rules[0])){ 321, 300, false };
	uc_watch_set_stop(w, &stop_flag);
	stop_on_set = true;	/* SIGTERM while the first write is under way */
	uc_watch_push(w, &a);
	uc_watch_push(w, &b);
	assert_int_equal(uc_watch_process(w, 10), 1);	/* the second is left */
	assert_int_equal(nset, 1);
	assert_int_equal(task(320)->sched_util_max, 300);	/* the write under way finished */
	assert_int_equal(task(321)->sched_util_max, 1024);
	/* stopping: no more batches */
	assert_int_equal(uc_watch_process(w, 10), 1);
	assert_int_equal(uc_watch_rescan(w, UC_RESCAN_START, 0), 0);
	assert_int_equal(nset, 1);
	uc_watch_free(w);
}

static void test_seq_gap(void **state)
{
	struct uc_watch *w = mk(0);
	struct uc_pev e = ev(UC_PEV_EXIT, 1, 1, 1, 10);

	uc_watch_push(w, &e);
	e.seq = 11;
	uc_watch_push(w, &e);
	assert_int_equal(uc_watch_rescan_due(w, 0), -1);
	e.cpu = 0;	/* another CPU has its own numbers */
	e.seq = 500;
	uc_watch_push(w, &e);
	assert_int_equal(uc_watch_rescan_due(w, 0), -1);
	e.cpu = 1;
	e.seq = 13;	/* 12 is missing */
	uc_watch_push(w, &e);
	assert_int_equal(uc_watch_stats(w)->seq_gaps, 1);
	assert_int_equal(uc_watch_rescan_due(w, 0), 0);
	uc_watch_rescan(w, UC_RESCAN_START, 0);
	assert_int_equal(uc_watch_stats(w)->rescans[UC_RESCAN_SEQ_GAP], 1);
	assert_non_null(strstr(last_warning, "lost (seq_gap; 0 overruns, 1 sequence gaps"));
	/* filtered subscription: gaps mean nothing */
	uc_watch_set_seq_check(w, false);
	e.seq = 20;
	uc_watch_push(w, &e);
	assert_int_equal(uc_watch_stats(w)->seq_gaps, 1);
	uc_watch_free(w);
}

static void test_queue_full(void **state)
{
	struct uc_watch *w = mk(2);
	struct uc_pev e = ev(UC_PEV_EXEC, 400, 400, 0, 1);

	uc_watch_set_seq_check(w, false);
	for (int i = 0; i < 3; i++)
		uc_watch_push(w, &e);
	assert_int_equal(uc_watch_stats(w)->queue_len, 2);
	assert_int_equal(uc_watch_stats(w)->queue_drops, 1);
	assert_int_equal(uc_watch_stats(w)->queue_hiwater, 2);
	assert_int_equal(uc_watch_rescan_due(w, 0), 0);
	uc_watch_rescan(w, UC_RESCAN_START, 0);
	assert_int_equal(uc_watch_stats(w)->rescans[UC_RESCAN_QUEUE_FULL], 1);
	assert_non_null(strstr(last_warning, "lost (queue_full;"));
	assert_non_null(strstr(last_warning, "1 queue drops so far"));
	assert_int_equal(uc_watch_stats(w)->queue_len, 0);
	uc_watch_free(w);
}

static void test_pid_reuse(void **state)
{
	const pid_t t[] = { 500 };
	struct uc_watch *w = mk(0);
	struct timespec bt;
	struct uc_pev e;

	/* the process in /proc started long after the event about "it" */
	clock_gettime(CLOCK_BOOTTIME, &bt);
	add_proc(500, t, 1,
		 (unsigned long long)(bt.tv_sec + 3600) * (unsigned long long)sysconf(_SC_CLK_TCK));
	rules[nrules++] = (typeof(rules[0])){ 500, 300, false };
	e = ev(UC_PEV_EXEC, 500, 500, 0, 1);
	uc_watch_push(w, &e);
	uc_watch_process(w, 10);
	assert_int_equal(nset, 0);
	assert_int_equal(uc_watch_stats(w)->identity_mismatch, 1);
	/* the pidfd says the process exited between reading /proc and writing */
	add_proc(501, (pid_t[]){ 501 }, 1, 1);
	rules[nrules++] = (typeof(rules[0])){ 501, 300, false };
	pidfd_mode = 2;
	e = ev(UC_PEV_EXEC, 501, 501, 0, 2);
	uc_watch_push(w, &e);
	uc_watch_process(w, 10);
	assert_int_equal(nset, 0);
	assert_int_equal(uc_watch_stats(w)->identity_mismatch, 2);
	/* alive: written */
	pidfd_mode = 1;
	uc_watch_push(w, &e);
	uc_watch_process(w, 10);
	assert_int_equal(nset, 1);
	uc_watch_free(w);
}

/* Exit events filtered in the kernel: the table forgets the exited itself,
 * once it has reached 64 entries (then each time it doubles). */
static void test_lazy_exits(void **state)
{
	struct uc_watch *w = mk(0);
	char rel[32];
	struct uc_pev e;

	(void)state;
	for (pid_t p = 1000; p < 1066; p++) {
		add_proc(p, (pid_t[]){ p }, 1, 1);
		rules[nrules++] = (typeof(rules[0])){ p, 300, false };
	}
	uc_watch_set_lazy_exits(w, true);
	for (pid_t p = 1000; p < 1064; p++) {
		e = ev(UC_PEV_EXEC, p, p, 0, (uint32_t)p);
		uc_watch_push(w, &e);
	}
	uc_watch_process(w, 100);
	assert_int_equal(uc_watch_stats(w)->tracked, 64);
	/* half of them exit: no event tells us, /proc does */
	for (pid_t p = 1000; p < 1032; p++) {
		snprintf(rel, sizeof(rel), "proc/%d", (int)p);
		assert_int_equal(fr_remove(root, rel), 0);
	}
	e = ev(UC_PEV_EXEC, 1064, 1064, 0, 2000);
	uc_watch_push(w, &e);
	uc_watch_process(w, 10);
	assert_int_equal(uc_watch_stats(w)->tracked, 33);
	/* below the next mark (66): no look, an exit stays until then */
	assert_int_equal(fr_remove(root, "proc/1032"), 0);
	e = ev(UC_PEV_EXEC, 1065, 1065, 0, 2001);
	uc_watch_push(w, &e);
	uc_watch_process(w, 10);
	assert_int_equal(uc_watch_stats(w)->tracked, 34);
	assert_int_equal(nset, 66);
	uc_watch_free(w);
}

/* Someone undoes every write; six rescans re-apply (limit 2: given up). */
static void fought_over(struct uc_watch *w)
{
	revert = true;
	for (int i = 0; i < 6; i++) {
		uc_watch_mark_dirty(w, UC_RESCAN_OVERRUN);
		uc_watch_rescan(w, UC_RESCAN_START, (uint64_t)i * 2000);
	}
}

/*
 * What any user can make the daemon log is limited: an exec of a program a
 * rule matches writes a clamp and says so, and here another writer undoes it
 * each time (a user resetting its own clamps), so each of 260 execs is a
 * write. 200 lines are said in the window, 60 counted; when the window ends
 * one warning says how many, and the count is in 'watch status'.
 */
static void test_log_limited(void **state)
{
	const pid_t t[] = { 100 };
	struct uc_watch *w = mk(0);
	struct uc_pev e;
	uint64_t now = uc_now_ms();

	(void)state;
	add_proc(100, t, 1, 1);
	rules[nrules++] = (typeof(rules[0])){ 100, 300, false };
	revert = true;
	for (uint32_t i = 0; i < 260; i++) {
		e = ev(UC_PEV_EXEC, 100, 100, 0, i + 1);
		uc_watch_push(w, &e);
		uc_watch_process(w, 10);
	}
	assert_int_equal(uc_watch_stats(w)->applied, 260);
	assert_int_equal(nchanges, 200);
	assert_int_equal(uc_watch_stats(w)->log_suppressed, 60);
	assert_string_equal(last_warning, "");
	/* the loop's timer: due at the window's end, then the summary */
	assert_true(uc_watch_log_due(w, now) > 0);
	/* (the window began at the first line, a little after 'now') */
	assert_int_equal(uc_watch_log_due(w, now + 20000), 0);
	uc_watch_log_tick(w, now + 20000);
	assert_non_null(strstr(last_warning, "60 lines about processes suppressed"));
	assert_int_equal(uc_watch_log_due(w, now + 20000), -1);
	/* a new window: lines again */
	e = ev(UC_PEV_EXEC, 100, 100, 0, 300);
	uc_watch_push(w, &e);
	uc_watch_process(w, 10);
	assert_int_equal(nchanges, 201);
	uc_watch_free(w);
}

static void test_give_up(void **state)
{
	const pid_t t[] = { 600 };
	struct uc_watch *w = mk(0);
	struct uc_pev e = ev(UC_PEV_EXEC, 600, 600, 0, 1);

	add_proc(600, t, 1, 1);
	rules[nrules++] = (typeof(rules[0])){ 600, 300, false };
	fought_over(w);
	/* limit 2 re-applies: 1 + 2 writes, then left alone */
	assert_int_equal(nset, 3);
	assert_int_equal(uc_watch_stats(w)->given_up, 1);
	/* an exec is a new program: a new chance, and the rule for the new
	 * program (here at 500) clamps it */
	revert = false;
	rules[0].max = 500;
	uc_watch_push(w, &e);
	uc_watch_process(w, 10);
	assert_int_equal(nset, 4);
	assert_int_equal(task(600)->sched_util_max, 500);
	uc_watch_free(w);
}

/*
 * Drift: another writer sets a clamp back, and no event says so. A re-check
 * (every recheck_ms, of the processes in the table only) reads and writes it
 * again, counted; one that finds it right writes nothing; a writer that
 * changes it back at every re-check is given up on after reapply_limit
 * re-checks in a row (logged), until the process execs. Off: never due.
 */
static void test_recheck_corrects_drift(void **state)
{
	const pid_t t[] = { 650 }, t2[] = { 651 };
	struct uc_watch_opts o = {
		.sys = &fake_sys, .reapply_limit = 2, .yes = true, .key = UC_KEY_OFF,
		.recheck_ms = 60000, .log = log_cb,
	};
	struct uc_watch_ruleset rs = { .ops = &fake_ops, .nrules = 1, .sets_clamps = true };
	struct uc_pev e = ev(UC_PEV_EXEC, 650, 650, 0, 1);
	struct uc_watch *w;
	uint64_t now;

	assert_int_equal(uc_watch_new(&o, &w), 0);
	/* read after the daemon's start, which the first re-check counts from:
	 * read before, a millisecond tick between the two (valgrind) made it due late */
	now = uc_now_ms();
	uc_watch_set_rules(w, &rs);
	assert_int_equal(uc_watch_recheck_due(w, now), -1);	/* nothing tracked */
	add_proc(650, t, 1, 1);
	add_proc(651, t2, 1, 1);	/* no rule matches it: not tracked, never read again */
	rules[nrules++] = (typeof(rules[0])){ 650, 300, false };
	uc_watch_push(w, &e);
	uc_watch_process(w, 10);
	assert_int_equal(nset, 1);
	assert_true(uc_watch_recheck_due(w, now) > 0);
	assert_int_equal(uc_watch_recheck_due(w, now + 60000), 0);

	/* set back by another writer: corrected at the next re-check */
	task(650)->sched_util_max = 1024;
	uc_watch_recheck(w, now + 60000);
	assert_int_equal(nset, 2);
	assert_int_equal(task(650)->sched_util_max, 300);
	assert_int_equal(uc_watch_stats(w)->rechecks, 1);
	assert_int_equal(uc_watch_stats(w)->drift_corrected, 1);
	assert_true(uc_watch_recheck_due(w, now + 60000) > 0);
	/* right: read, nothing written, and the count in a row starts again */
	uc_watch_recheck(w, now + 120000);
	assert_int_equal(nset, 2);
	assert_int_equal(uc_watch_stats(w)->drift_corrected, 1);

	/* changed back at every re-check: 2 in a row, then left alone */
	revert = true;
	task(650)->sched_util_max = 1024;
	uc_watch_recheck(w, now + 180000);
	uc_watch_recheck(w, now + 240000);
	assert_int_equal(nset, 4);
	assert_int_equal(uc_watch_stats(w)->given_up, 1);
	assert_non_null(strstr(last_warning, "changed back by another writer at 2 re-checks in a row"));
	uc_watch_recheck(w, now + 300000);
	assert_int_equal(nset, 4);
	assert_int_equal(uc_watch_stats(w)->rechecks, 5);
	/* an exec: a new chance */
	revert = false;
	uc_watch_push(w, &e);
	uc_watch_process(w, 10);
	assert_int_equal(nset, 5);
	assert_int_equal(task(650)->sched_util_max, 300);
	uc_watch_free(w);

	/* off (recheck_ms 0), or a dry run: never due */
	o.recheck_ms = 0;
	assert_int_equal(uc_watch_new(&o, &w), 0);
	uc_watch_set_rules(w, &(struct uc_watch_ruleset){ .ops = &fake_ops, .nrules = 1 });
	uc_watch_push(w, &e);
	uc_watch_process(w, 10);
	assert_int_equal(uc_watch_recheck_due(w, now + 600000), -1);
	uc_watch_free(w);
}

/* A reload that does not take withdraws the running rules' allow-enable at
 * once: the next matching process is refused (logged, counted), not written;
 * rules that are set again bring their own consent. */
static void test_reload_withdraws_consent(void **state)
{
	const pid_t t[] = { 820 }, t2[] = { 821 };
	struct uc_watch_opts o = { .sys = &fake_sys, .key = UC_KEY_OFF, .log = log_cb };
	struct uc_watch_ruleset rs = {
		.ops = &fake_ops, .nrules = 1, .sets_clamps = true, .allow_enable = true
	};
	struct uc_pev e = ev(UC_PEV_EXEC, 820, 820, 0, 1), e2 = ev(UC_PEV_EXEC, 821, 821, 0, 2);
	struct uc_watch *w;

	assert_int_equal(uc_watch_new(&o, &w), 0);
	uc_watch_set_rules(w, &rs);
	add_proc(820, t, 1, 1);
	add_proc(821, t2, 1, 1);
	rules[nrules++] = (typeof(rules[0])){ 820, 300, false };
	rules[nrules++] = (typeof(rules[0])){ 821, 300, false };

	assert_true(uc_watch_note_reload(w, false));
	uc_watch_push(w, &e);
	uc_watch_process(w, 10);
	assert_int_equal(nset, 0);
	assert_int_equal(task(820)->sched_util_max, 1024);
	assert_int_equal(uc_watch_stats(w)->refused, 1);
	assert_int_equal(uc_watch_stats(w)->consent_withdrawn, 1);
	assert_int_equal(uc_watch_stats(w)->generation, 1);
	assert_non_null(strstr(last_warning, "pid 820 tid 820"));
	assert_non_null(strstr(last_warning, "withdrawn"));

	/* a second failure: still withdrawn (counted once), each refusal logged */
	assert_false(uc_watch_note_reload(w, false));
	last_warning[0] = '\0';
	uc_watch_push(w, &e2);
	uc_watch_process(w, 10);
	assert_int_equal(nset, 0);
	assert_int_equal(uc_watch_stats(w)->refused, 2);
	assert_int_equal(uc_watch_stats(w)->consent_withdrawn, 1);
	assert_int_equal(uc_watch_stats(w)->reload_failures, 2);
	assert_non_null(strstr(last_warning, "pid 821 tid 821"));

	/* a reload that takes, with allow-enable: consent again */
	rs = (struct uc_watch_ruleset){
		.ops = &fake_ops, .nrules = 1, .sets_clamps = true, .allow_enable = true
	};
	uc_watch_set_rules(w, &rs);
	uc_watch_push(w, &e);
	uc_watch_process(w, 10);
	assert_int_equal(nset, 1);
	assert_int_equal(task(820)->sched_util_max, 300);
	uc_watch_free(w);

	/* --yes is the operator's, not the file's: a failed reload keeps it */
	o.yes = true;
	rs = (struct uc_watch_ruleset){
		.ops = &fake_ops, .nrules = 1, .sets_clamps = true, .allow_enable = true
	};
	assert_int_equal(uc_watch_new(&o, &w), 0);
	uc_watch_set_rules(w, &rs);
	assert_false(uc_watch_note_reload(w, false));
	uc_watch_push(w, &e2);
	uc_watch_process(w, 10);
	assert_int_equal(nset, 2);
	assert_int_equal(uc_watch_stats(w)->consent_withdrawn, 0);
	uc_watch_free(w);
}

/* No consent: the core's run refuses a write that would flip the key, even
 * if the caller forgot to check; once the key is on, nothing is left to pay. */
static void test_refusal_without_consent(void **state)
{
	const pid_t t[] = { 800 };
	struct uc_watch *w = mk_opts(0, false, UC_KEY_OFF);
	struct uc_pev e = ev(UC_PEV_EXEC, 800, 800, 0, 1);

	add_proc(800, t, 1, 1);
	rules[nrules++] = (typeof(rules[0])){ 800, 300, false };
	uc_watch_push(w, &e);
	uc_watch_process(w, 10);
	assert_int_equal(nset, 0);
	assert_int_equal(uc_watch_stats(w)->refused, 1);
	assert_int_equal(uc_watch_stats(w)->applied, 0);
	uc_watch_free(w);
	w = mk_opts(0, false, UC_KEY_ON);
	uc_watch_push(w, &e);
	uc_watch_process(w, 10);
	assert_int_equal(nset, 1);
	assert_int_equal(uc_watch_stats(w)->refused, 0);
	uc_watch_free(w);
}

/* ---- the loader ------------------------------------------------------------- */

static int nerr, errline;
static void on_err(void *data, const struct uc_conf_error *e)
{
	nerr++;
	errline = e->line;
}

static void test_load(void **state)
{
	struct uc_watch_ruleset rs;
	char path[300];
	const char *p = path;

	snprintf(path, sizeof(path), "%s/good.conf", root);
	put("/good.conf", "[tasks a]\ncomm = x\nmax = 300\n");
	assert_int_equal(uc_watch_rules_load(&p, 1, &rs, on_err, NULL, NULL), 0);
	assert_int_equal(rs.nrules, 1);
	assert_true(rs.sets_clamps);
	assert_false(rs.allow_enable);	/* no consent in the file */
	rs.ops->free(rs.rules);

	put("/good.conf",
	    "[fast-path]\nallow-enable = yes\n[tasks a]\ncomm = x\nreset-on-fork = yes\n");
	assert_int_equal(uc_watch_rules_load(&p, 1, &rs, on_err, NULL, NULL), 0);
	assert_true(rs.allow_enable);
	assert_false(rs.sets_clamps);	/* a flag alone does not enable the fast path */
	rs.ops->free(rs.rules);

	/* a bad value: refused, with its line */
	put("/good.conf", "[tasks a]\ncomm = x\n\nmax = 5000\n");
	nerr = 0;
	assert_int_equal(uc_watch_rules_load(&p, 1, &rs, on_err, NULL, NULL), -EINVAL);
	assert_int_equal(nerr, 1);
	assert_int_equal(errline, 4);
	assert_null(rs.ops);
}

/* The matcher takes the stat the daemon read for identity (no second read:
 * here it says "kernel thread", the file does not) and hands back what it
 * read itself: the attributes behind the policy check, the name. */
static void test_match_seen(void **state)
{
	struct uc_watch_ruleset rs;
	struct uc_rules_result res;
	struct uc_stat kst = { .state = 'S', .ppid = 2, .flags = UC_PF_KTHREAD, .start = 1 };
	struct uc_watch_seen seen = { 0 };
	char path[300];
	const char *p = path;

	(void)state;
	snprintf(path, sizeof(path), "%s/m.conf", root);
	put("/m.conf", "[tasks a]\ncomm = p900\nmax = 300\n");
	assert_int_equal(uc_watch_rules_load(&p, 1, &rs, on_err, NULL, NULL), 0);
	add_proc(900, (pid_t[]){ 900 }, 1, 1);
	put("/proc/900/comm", "p900\n");
	task(900)->sched_util_max = 700;
	assert_int_equal(rs.ops->match(rs.rules, 900, 900, &seen, &res), 0);
	assert_true(res.winner[UC_RA_MAX] >= 0);
	assert_true(seen.have_sa);
	assert_int_equal(seen.sa.sched_util_max, 700);
	assert_string_equal(seen.comm, "p900");
	seen.st = &kst;
	assert_int_equal(rs.ops->match(rs.rules, 900, 900, &seen, &res), 0);
	assert_true(res.skipped_kthread);
	assert_true(res.winner[UC_RA_MAX] < 0);
	rs.ops->free(rs.rules);
}

/* A reload that fails leaves the running rules alone: same generation, same matcher. */
static void test_reload_keeps_rules(void **state)
{
	struct uc_watch *w = mk(0);
	struct uc_watch_ruleset rs;
	char path[300];
	const char *p = path;
	const pid_t t[] = { 700 };

	snprintf(path, sizeof(path), "%s/bad.conf", root);
	put("/bad.conf", "[tasks a]\nmax = 300\n");	/* no selector */
	assert_int_equal(uc_watch_rules_load(&p, 1, &rs, on_err, NULL, NULL), -EINVAL);
	assert_int_equal(uc_watch_stats(w)->generation, 1);
	assert_ptr_equal(uc_watch_rules(w)->ops, &fake_ops);
	add_proc(700, t, 1, 1);
	rules[nrules++] = (typeof(rules[0])){ 700, 300, false };
	uc_watch_rescan(w, UC_RESCAN_RELOAD, 0);
	assert_int_equal(task(700)->sched_util_max, 300);
	uc_watch_free(w);
}

static void test_stats_roundtrip(void **state)
{
	struct uc_watch_stats a = { .generation = 3, .applied = 7, .overruns = 2 }, b;
	char buf[8192];

	a.rescans[UC_RESCAN_SEQ_GAP] = 4;
	a.events[UC_WEV_COMM] = 9;
	a.errors[0].err = EPERM;
	a.errors[0].n = 5;
	a.lat_buckets[UC_WATCH_LAT_N] = 1;
	assert_int_equal(uc_watch_stats_format(&a, buf, sizeof(buf)), 0);
	assert_int_equal(uc_watch_stats_parse(buf, &b), 0);
	assert_memory_equal(&a, &b, sizeof(a));
	assert_int_equal(uc_watch_stats_format(&a, buf, 40), -ENOSPC);
	assert_int_equal(uc_watch_stats_parse("applied\n", &b), -EINVAL);
}

/* ---- the status socket ------------------------------------------------------- */

/* A socket bound at path: listening (a live daemon) or not (a dead one's). */
static int bound(const char *path, bool listening)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	assert_true(fd >= 0);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	if (listening)
		assert_int_equal(listen(fd, 1), 0);
	return fd;
}

static bool same_file(const char *path, const struct stat *was)
{
	struct stat st;

	return !lstat(path, &st) && st.st_dev == was->st_dev && st.st_ino == was->st_ino;
}

/* A socket that answers is a live daemon's: left alone, its PID named. One
 * that refuses is stale: replaced. Not a socket: not ours to remove. At the
 * end only the socket this listener bound is removed. */
static void test_status_socket(void **state)
{
	struct uc_watch_listener ls, ls2;
	char path[300];
	struct stat live, st;
	pid_t owner = -1;
	int fd;

	snprintf(path, sizeof(path), "%s/s.sock", root);
	unlink(path);
	assert_int_equal(uc_watch_status_owner(path, &owner), 0);

	fd = bound(path, true);
	assert_int_equal(lstat(path, &live), 0);
	assert_int_equal(uc_watch_status_owner(path, &owner), 1);
	assert_int_equal(owner, getpid());
	owner = -1;
	assert_int_equal(uc_watch_status_listen(path, &ls, &owner), -EADDRINUSE);
	assert_int_equal(owner, getpid());
	assert_int_equal(ls.fd, -1);
	assert_true(same_file(path, &live));	/* not stolen */
	close(fd);				/* its daemon dies: the socket refuses now */

	assert_int_equal(uc_watch_status_owner(path, &owner), 0);
	assert_int_equal(uc_watch_status_listen(path, &ls, &owner), 0);
	assert_true(ls.fd >= 0);		/* the stale one replaced */
	assert_int_equal(lstat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_int_equal(uc_watch_status_owner(path, &owner), 1);

	/* someone replaced our socket meanwhile: at exit, theirs stays */
	assert_int_equal(unlink(path), 0);
	fd = bound(path, true);
	assert_int_equal(lstat(path, &live), 0);
	uc_watch_status_close(&ls, path);
	assert_int_equal(ls.fd, -1);
	assert_true(same_file(path, &live));
	close(fd);
	assert_int_equal(unlink(path), 0);

	/* ours still: removed at exit */
	assert_int_equal(uc_watch_status_listen(path, &ls, &owner), 0);
	uc_watch_status_close(&ls, path);
	assert_int_not_equal(lstat(path, &st), 0);

	/* not a socket: left alone */
	put("/s.sock", "x");
	assert_int_equal(uc_watch_status_listen(path, &ls2, &owner), -EEXIST);
	assert_int_equal(lstat(path, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_int_equal(unlink(path), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_exec_applies, setup),
		cmocka_unit_test_setup(test_threads_and_comm, setup),
		cmocka_unit_test_setup(test_overrun_rescan, setup),
		cmocka_unit_test_setup(test_lock_held, setup),
		cmocka_unit_test_setup(test_lock_held_warns, setup),
		cmocka_unit_test_setup(test_lock_only_to_write, setup),
		cmocka_unit_test_setup(test_match_seen, setup),
		cmocka_unit_test_setup(test_pidfd_is_the_check, setup),
		cmocka_unit_test_setup(test_stop_mid_batch, setup),
		cmocka_unit_test_setup(test_seq_gap, setup),
		cmocka_unit_test_setup(test_queue_full, setup),
		cmocka_unit_test_setup(test_pid_reuse, setup),
		cmocka_unit_test_setup(test_lazy_exits, setup),
		cmocka_unit_test_setup(test_give_up, setup),
		cmocka_unit_test_setup(test_recheck_corrects_drift, setup),
		cmocka_unit_test_setup(test_log_limited, setup),
		cmocka_unit_test_setup(test_refusal_without_consent, setup),
		cmocka_unit_test_setup(test_reload_withdraws_consent, setup),
		cmocka_unit_test_setup(test_load, setup),
		cmocka_unit_test_setup(test_reload_keeps_rules, setup),
		cmocka_unit_test(test_stats_roundtrip),
		cmocka_unit_test(test_status_socket),
	};

	uc_sched_set_syscalls(&fake_sc);
	return fr_run(&suite, tests, NULL, NULL);
}
