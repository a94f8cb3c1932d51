/*
 * rules.c: selectors, globs, priorities, excludes, thread scope, the RT and
 * kernel-thread skips, and the lazy fill. The task is a scripted struct
 * (no /proc); the fill callback records which fields were asked for.
 * malloc is wrapped: matching must not allocate.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "uclamp/rules.h"
#include "uclamp/selectors.h"
#include "uclamp/sched.h"

/* ---- counting allocations (linked with --wrap) ---- */
static int nalloc;
void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t m);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t m);
void *__wrap_malloc(size_t n)
{
	nalloc++;
	return __real_malloc(n);
}
void *__wrap_calloc(size_t n, size_t m)
{
	nalloc++;
	return __real_calloc(n, m);
}

/* ---- a scripted task ---- */
struct fake {
	const char *comm, *tcomm, *cgroup, *exe, *cmdline, *argv0, *pcomm;
	uid_t uid;
	gid_t gid;
	int policy;
	bool kthread;
	int err;		/* returned for err_field */
	unsigned err_field;
	unsigned asked;		/* every field fill was asked for */
	int calls;
};

static int fake_fill(struct uc_proc *p, unsigned want, void *data)
{
	struct fake *f = data;

	f->asked |= want;
	f->calls++;
	if (want & f->err_field)
		return f->err;
	if (want & UC_PF_COMM)
		snprintf(p->comm, sizeof(p->comm), "%s", f->comm);
	if (want & UC_PF_TCOMM)
		snprintf(p->tcomm, sizeof(p->tcomm), "%s", f->tcomm ? f->tcomm : f->comm);
	if (want & UC_PF_STATUS) {
		p->uid = f->uid;
		p->gid = f->gid;
	}
	if (want & UC_PF_STAT) {
		p->kthread = f->kthread;
		p->state = 'S';
		p->ppid = 1;
	}
	if (want & UC_PF_POLICY)
		p->policy = f->policy;
	if ((want & UC_PF_CGROUP) && f->cgroup)
		snprintf(p->cgroup, sizeof(p->cgroup), "%s", f->cgroup);
	if ((want & UC_PF_EXE) && f->exe)
		snprintf(p->exe, sizeof(p->exe), "%s", f->exe);
	if ((want & UC_PF_CMDLINE) && f->cmdline) {
		snprintf(p->cmdline, sizeof(p->cmdline), "%s", f->cmdline);
		snprintf(p->argv0, sizeof(p->argv0), "%s", f->argv0 ? f->argv0 : "");
	}
	if (want & UC_PF_PARENT)
		snprintf(p->pcomm, sizeof(p->pcomm), "%s", f->pcomm ? f->pcomm : "");
	p->absent |= want & ((f->cgroup ? 0 : UC_PF_CGROUP) | (f->exe ? 0 : UC_PF_EXE) |
			     (f->cmdline ? 0 : UC_PF_CMDLINE));
	p->have |= want;
	return 0;
}

static struct uc_proc proc;

static struct uc_proc *task(struct fake *f, pid_t pid, pid_t tid)
{
	uc_proc_reset(&proc, pid, tid, fake_fill, f);
	return &proc;
}

/* A rule that takes every task (rt, kernel threads) and sets nothing yet. */
static struct uc_rule any_rule(void)
{
	return (struct uc_rule){ .rt = true, .kthreads = true, .min = UC_KEEP, .max = UC_KEEP,
				 .reset_on_fork = UC_KEEP };
}

#define STRS(...)                                                \
	((struct uc_strs){ (const char *const[]){ __VA_ARGS__ }, \
			   sizeof((const char *const[]){ __VA_ARGS__ }) / sizeof(char *) })

static int match(const struct uc_rule *v, size_t n, struct uc_proc *p, struct uc_rules_result *res)
{
	struct uc_rules rs;
	int rc;

	assert_int_equal(uc_rules_init(&rs, v, n), 0);
	nalloc = 0;
	rc = uc_rules_match(&rs, p, res);
	assert_int_equal(nalloc, 0);
	uc_rules_free(&rs);
	return rc;
}

/* ---- string and cgroup patterns ---- */

static void test_str_match(void **state)
{
	(void)state;
	assert_true(uc_rule_str_match("firefox", "firefox"));
	assert_false(uc_rule_str_match("firefox", "firefox-bin"));
	assert_true(uc_rule_str_match("fire*", "firefox-bin"));
	assert_true(uc_rule_str_match("kworker/?:*", "kworker/0:1H"));
	assert_false(uc_rule_str_match("[ab]x", "cx"));
	assert_true(uc_rule_str_match("a\\*b", "a*b"));	/* escaped: literal */
	assert_false(uc_rule_str_match("a\\*b", "axb"));
	assert_true(uc_rule_is_glob("a[b]"));
	assert_false(uc_rule_is_glob("plain/path"));
}

static void test_cgroup_match(void **state)
{
	(void)state;
	assert_true(uc_rule_cgroup_match("system.slice", "system.slice"));
	assert_true(uc_rule_cgroup_match("/system.slice/", "system.slice/cron.service"));
	/* no prefix match */
	assert_false(uc_rule_cgroup_match("system.slice", "system.slice2/x"));
	assert_true(uc_rule_cgroup_match("", "anything/below"));		/* the root */
	assert_true(uc_rule_cgroup_match("/", ""));
	assert_false(uc_rule_cgroup_match("a", ""));
	assert_true(uc_rule_cgroup_match("user.slice/*.scope", "user.slice/session-2.scope/x/y"));
	/* '*' stops at '/' */
	assert_false(uc_rule_cgroup_match("*.scope", "user.slice/session-2.scope"));
	assert_true(uc_rule_cgroup_match("*/*.service", "system.slice/cron.service"));
}

/* ---- selectors ---- */

static void test_all_selectors_must_match(void **state)
{
	struct fake f = { .comm = "make",
			  .uid = 1000,
			  .gid = 100,
			  .policy = 0,
			  .cgroup = "user.slice/u",
			  .exe = "/usr/bin/make",
			  .cmdline = "make -j8 all",
			  .argv0 = "make",
			  .pcomm = "bash" };
	const uid_t uids[] = { 0, 1000 };
	const gid_t gids[] = { 100 };
	const int pols[] = { 3, 0 };
	struct uc_rule r = any_rule();
	struct uc_rules_result res;

	(void)state;
	r.comm = STRS("cc1", "make");
	r.uids = uids;
	r.nuids = 2;
	r.gids = gids;
	r.ngids = 1;
	r.policies = pols;
	r.npolicies = 2;
	r.cgroup = STRS("user.slice");
	r.exe = STRS("/usr/bin/*");
	r.argv0 = STRS("make");
	r.cmdline = STRS("* -j*");
	r.parent = STRS("bash", "zsh");
	r.min = 300;
	assert_int_equal(match(&r, 1, task(&f, 10, 10), &res), 0);
	assert_int_equal(res.winner[UC_RA_MIN], 0);
	assert_int_equal(res.value[UC_RA_MIN], 300);
	assert_int_equal(res.winner[UC_RA_MAX], -1);
	assert_int_equal(res.value[UC_RA_MAX], UC_KEEP);
	assert_int_equal(res.matched, 1);

	/* each selector alone can refuse */
	f.pcomm = "sh";
	assert_int_equal(match(&r, 1, task(&f, 10, 10), &res), 0);
	assert_int_equal(res.winner[UC_RA_MIN], -1);
	f.pcomm = "bash";
	f.gid = 5;
	assert_int_equal(match(&r, 1, task(&f, 10, 10), &res), 0);
	assert_int_equal(res.matched, 0);
	f.gid = 100;
	f.policy = 1;	/* fifo: not in the list */
	assert_int_equal(match(&r, 1, task(&f, 10, 10), &res), 0);
	assert_int_equal(res.matched, 0);
	f.policy = 0;
	f.cmdline = "make all";
	assert_int_equal(match(&r, 1, task(&f, 10, 10), &res), 0);
	assert_int_equal(res.matched, 0);
}

static void test_lazy_fill(void **state)
{
	struct fake f = { .comm = "bash", .exe = "/bin/bash", .cmdline = "bash", .cgroup = "x" };
	struct uc_rule r = any_rule();
	struct uc_rules_result res;
	struct uc_rules rs;

	(void)state;
	r.comm = STRS("make");
	r.exe = STRS("/usr/bin/make");
	r.cgroup = STRS("x");
	r.max = 100;
	assert_int_equal(uc_rules_init(&rs, &r, 1), 0);
	assert_int_equal(rs.need, UC_PF_COMM | UC_PF_EXE | UC_PF_CGROUP);
	uc_rules_free(&rs);
	/* comm refuses: exe and cgroup are never read */
	assert_int_equal(match(&r, 1, task(&f, 10, 10), &res), 0);
	assert_int_equal(f.asked, UC_PF_COMM);
	/* two rules needing comm: read once */
	f.asked = 0;
	f.calls = 0;
	{
		struct uc_rule two[2] = { r, r };

		assert_int_equal(match(two, 2, task(&f, 10, 10), &res), 0);
		assert_int_equal(f.calls, 1);
	}
	/* comm matches: exe next, cgroup not (exe refused) */
	f.comm = "make";
	f.asked = 0;
	assert_int_equal(match(&r, 1, task(&f, 10, 10), &res), 0);
	assert_int_equal(f.asked, UC_PF_COMM | UC_PF_EXE);
}

static void test_absent_field_never_matches(void **state)
{
	struct fake f = { .comm = "kworker/0:1", .kthread = true };	/* no exe, no cmdline */
	struct uc_rule r = any_rule();
	struct uc_rules_result res;

	(void)state;
	r.exe = STRS("*");
	r.min = 1;
	assert_int_equal(match(&r, 1, task(&f, 10, 10), &res), 0);
	assert_int_equal(res.matched, 0);
	r.exe.n = 0;
	r.cmdline = STRS("*");
	assert_int_equal(match(&r, 1, task(&f, 10, 10), &res), 0);
	assert_int_equal(res.matched, 0);
}

static void test_read_error(void **state)
{
	struct fake f = { .comm = "make", .err = -ESRCH, .err_field = UC_PF_EXE };
	struct uc_rule r = any_rule();
	struct uc_rules_result res;

	(void)state;
	r.comm = STRS("make");
	r.exe = STRS("/x");
	r.min = 1;
	assert_int_equal(match(&r, 1, task(&f, 10, 10), &res), -ESRCH);
	f.err = -EACCES;
	assert_int_equal(match(&r, 1, task(&f, 10, 10), &res), -EACCES);
	/* a fill that does not deliver: -ENODATA, not a silent non-match */
	uc_proc_reset(&proc, 10, 10, NULL, NULL);
	assert_int_equal(match(&r, 1, &proc, &res), -ENODATA);
}

/* ---- priorities and excludes ---- */

static void test_later_rule_wins_per_attribute(void **state)
{
	struct fake f = { .comm = "make" };
	struct uc_rule v[3];
	struct uc_rules_result res;
	const struct uc_strs make = STRS("make");

	(void)state;
	for (int i = 0; i < 3; i++) {
		v[i] = any_rule();
		v[i].comm = make;
	}
	v[0].min = 100;
	v[0].max = 900;
	v[1].min = 200;
	v[2].reset_on_fork = 1;
	assert_int_equal(match(v, 3, task(&f, 10, 10), &res), 0);
	assert_int_equal(res.winner[UC_RA_MIN], 1);
	assert_int_equal(res.value[UC_RA_MIN], 200);
	assert_int_equal(res.winner[UC_RA_MAX], 0);
	assert_int_equal(res.value[UC_RA_MAX], 900);
	assert_int_equal(res.winner[UC_RA_RESET_ON_FORK], 2);
	assert_int_equal(res.matched, 3);
	/* an explicit priority beats file order */
	v[0].priority = 5;
	assert_int_equal(match(v, 3, task(&f, 10, 10), &res), 0);
	assert_int_equal(res.winner[UC_RA_MIN], 0);
	assert_int_equal(res.value[UC_RA_MIN], 100);
	/* a negative priority loses to the default 0 */
	v[0].priority = 0;
	v[1].priority = -1;
	assert_int_equal(match(v, 3, task(&f, 10, 10), &res), 0);
	assert_int_equal(res.winner[UC_RA_MIN], 0);
}

static void test_exclude(void **state)
{
	struct fake f = { .comm = "Xorg", .uid = 0 };
	struct uc_rule v[3];
	const uid_t root[] = { 0 };
	struct uc_rules_result res;

	(void)state;
	v[0] = any_rule();	/* every root task: max 512 */
	v[0].uids = root;
	v[0].nuids = 1;
	v[0].max = 512;
	v[1] = any_rule();	/* but not Xorg */
	v[1].comm = STRS("Xorg");
	v[1].exclude = true;
	v[2] = any_rule();	/* Xorg, higher priority: min 300 */
	v[2].comm = STRS("Xorg");
	v[2].min = 300;
	v[2].priority = 10;
	assert_int_equal(match(v, 3, task(&f, 10, 10), &res), 0);
	assert_int_equal(res.excluded_by, 1);
	assert_int_equal(res.winner[UC_RA_MAX], -1);	/* excluded from the root rule */
	assert_int_equal(res.winner[UC_RA_MIN], 2);	/* the higher one still applies */
	/* equal priority: the exclude wins even when the setting rule is later */
	v[0] = v[1];
	v[1] = any_rule();
	v[1].uids = root;
	v[1].nuids = 1;
	v[1].max = 512;
	assert_int_equal(match(v, 3, task(&f, 10, 10), &res), 0);
	assert_int_equal(res.excluded_by, 0);
	assert_int_equal(res.winner[UC_RA_MAX], -1);
	/* not matching the exclude: the root rule applies */
	f.comm = "sshd";
	assert_int_equal(match(v, 3, task(&f, 10, 10), &res), 0);
	assert_int_equal(res.excluded_by, -1);
	assert_int_equal(res.winner[UC_RA_MAX], 1);
}

/* ---- scope: threads, RT, kernel threads ---- */

static void test_thread_scope(void **state)
{
	struct fake f = { .comm = "chrome", .tcomm = "RenderThread" };
	struct uc_rule v[2];
	struct uc_rules_result res;

	(void)state;
	v[0] = any_rule();	/* main thread only */
	v[0].comm = STRS("chrome");
	v[0].max = 200;
	v[1] = any_rule();	/* threads by name */
	v[1].comm = STRS("Render*");
	v[1].threads = true;
	v[1].min = 700;
	/* the main thread: rule 0; rule 1 matches no process name, no threads to visit */
	assert_int_equal(match(v, 2, task(&f, 10, 10), &res), 0);
	assert_int_equal(res.winner[UC_RA_MAX], 0);
	assert_int_equal(res.winner[UC_RA_MIN], -1);
	/* another thread: not rule 0's; rule 1 by the thread's own name */
	uc_proc_set_thread(&proc, 11);
	assert_int_equal(match(v, 2, &proc, &res), 0);
	assert_int_equal(res.winner[UC_RA_MAX], -1);
	assert_int_equal(res.winner[UC_RA_MIN], 1);
	/* a threads rule on the process name says: visit the threads */
	v[1].comm = STRS("chrome");
	assert_int_equal(match(v, 2, task(&f, 10, 10), &res), 0);
	assert_true(res.threads);
	v[1].threads = false;
	assert_int_equal(match(v, 2, task(&f, 10, 10), &res), 0);
	assert_false(res.threads);
}

static void test_exclude_keeps_thread_visit(void **state)
{
	struct fake f = { .comm = "app", .policy = 1 };	/* main thread fifo */
	const int fifo[] = { 1 };
	struct uc_rule v[2];
	struct uc_rules_result res;

	(void)state;
	v[0] = any_rule();
	v[0].comm = STRS("app");
	v[0].threads = true;
	v[0].max = 100;
	v[1] = any_rule();
	v[1].policies = fifo;
	v[1].npolicies = 1;
	v[1].exclude = true;
	assert_int_equal(match(v, 2, task(&f, 10, 10), &res), 0);
	assert_int_equal(res.excluded_by, 1);
	assert_int_equal(res.winner[UC_RA_MAX], -1);
	assert_true(res.threads);	/* the other threads may not be fifo */
}

static void test_rt_and_kthread_skip(void **state)
{
	struct fake f = { .comm = "pipewire", .policy = 1 };
	const int fifo[] = { 1 };
	struct uc_rule r = any_rule();
	struct uc_rules_result res;

	(void)state;
	r.comm = STRS("pipewire");
	r.min = 500;
	r.rt = false;
	assert_int_equal(match(&r, 1, task(&f, 10, 10), &res), 0);
	assert_int_equal(res.winner[UC_RA_MIN], -1);
	assert_true(res.skipped_rt);
	r.rt = true;
	assert_int_equal(match(&r, 1, task(&f, 10, 10), &res), 0);
	assert_int_equal(res.winner[UC_RA_MIN], 0);
	/* naming fifo asks for RT tasks */
	r.rt = false;
	r.policies = fifo;
	r.npolicies = 1;
	assert_int_equal(match(&r, 1, task(&f, 10, 10), &res), 0);
	assert_int_equal(res.winner[UC_RA_MIN], 0);
	/* kernel threads only when the rule says so */
	f = (struct fake){ .comm = "kswapd0", .kthread = true };
	r = any_rule();
	r.comm = STRS("kswapd*");
	r.min = 1;
	r.kthreads = false;
	assert_int_equal(match(&r, 1, task(&f, 10, 10), &res), 0);
	assert_true(res.skipped_kthread);
	assert_int_equal(res.winner[UC_RA_MIN], -1);
	r.kthreads = true;
	assert_int_equal(match(&r, 1, task(&f, 10, 10), &res), 0);
	assert_int_equal(res.winner[UC_RA_MIN], 0);
}

static void test_empty_rule_set(void **state)
{
	struct fake f = { .comm = "x" };
	struct uc_rules_result res;

	(void)state;
	assert_int_equal(match(NULL, 0, task(&f, 10, 10), &res), 0);
	assert_int_equal(res.matched, 0);
	assert_int_equal(f.calls, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_str_match),
		cmocka_unit_test(test_cgroup_match),
		cmocka_unit_test(test_all_selectors_must_match),
		cmocka_unit_test(test_lazy_fill),
		cmocka_unit_test(test_absent_field_never_matches),
		cmocka_unit_test(test_read_error),
		cmocka_unit_test(test_later_rule_wins_per_attribute),
		cmocka_unit_test(test_exclude),
		cmocka_unit_test(test_thread_scope),
		cmocka_unit_test(test_exclude_keeps_thread_visit),
		cmocka_unit_test(test_rt_and_kthread_skip),
		cmocka_unit_test(test_empty_rule_set),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
