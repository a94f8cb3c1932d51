/*
 * uclampctl task show|set|reset: per-task clamps (sched_setattr per TID).
 * A task already at the requested values gets no syscall: a valid setattr
 * with a clamp flag enables sched_uclamp_used even when nothing changes.
 */
#include <errno.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/task.h"
#include "uclamp/cgroup.h"
#include "uclamp/effective.h"
#include "uclamp/procns.h"
#include "uclamp/sched.h"
#include "uclamp/selectors.h"
#include "uclamp/sysroot.h"

enum {
	OPT_ALL = 256,
	OPT_SEL,	/* OPT_SEL + i: the selector table's row i */
};

/*
 * The selector options come from the selector table (selectors.h), the
 * same words as the config's [tasks] keys; with --all, for show, set and
 * reset. own: the command's own options before them.
 */
const struct option *cli_sel_longopts(const struct option *own)
{
	static struct option v[UC_SEL_MAX + 16];
	size_t k = 0;

	for (; own && own->name && k < sizeof(v) / sizeof(v[0]) - UC_SEL_MAX - 2; own++)
		v[k++] = *own;
	for (size_t i = 0; i < uc_sel_ndefs; i++) {
		const struct uc_sel_def *d = &uc_sel_defs[i];

		if (d->option)
			v[k++] = (struct option){ d->option,
						  d->kind == UC_SEL_FLAG ? no_argument :
						  required_argument, NULL, OPT_SEL + (int)i };
	}
	v[k++] = (struct option){ "all", no_argument, NULL, OPT_ALL };
	v[k] = (struct option){ NULL, 0, NULL, 0 };
	return v;
}

#define SYNOPSIS_FILTERS "[--comm NAME] [--user U] [--cgroup PATH] ..."

static const char show_synopsis[] = "[options] [PID...]";
static const char set_synopsis[] =
	"[--min V] [--max V] [--[no-]reset-on-fork] [options] PID...\n"
	"[--min V] [--max V] ... --all " SYNOPSIS_FILTERS;
static const char reset_synopsis[] = "[options] PID...\n[options] --all " SYNOPSIS_FILTERS;

/* One option's help: its name in a 24-column field (pad), the text wrapped at 80. */
static __attribute__((format(printf, 2, 3))) void help_line(const char *pad, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	cli_vline_width(stdout, pad, 80, fmt, ap);
	va_end(ap);
}

void cli_sel_help(void)
{
	printf("     --all              every user-space process (instead of PIDs)\n");
	for (size_t i = 0; i < uc_sel_ndefs; i++) {
		const struct uc_sel_def *d = &uc_sel_defs[i];
		char opt[64], pad[64];

		if (!d->option)
			continue;
		if (d->short_opt)
			snprintf(opt, sizeof(opt), " -%c, --%s", d->short_opt, d->option);
		else if (d->kind == UC_SEL_FLAG)
			snprintf(opt, sizeof(opt), "     --%s", d->option);
		else
			snprintf(opt, sizeof(opt), "     --%s <%s>", d->option, d->arg);
		snprintf(pad, sizeof(pad), "%-24s", opt);
		help_line(pad, "%s", d->help);
	}
	printf("                        (a task must match every selector given; a list:\n"
	       "                        repeat the option or separate values with commas)\n");
}

void cli_sel_init(struct cli_sel *a)
{
	memset(a, 0, sizeof(*a));
	uc_sel_rule_init(&a->rule);
}

void cli_sel_free(struct cli_sel *a)
{
	uc_sel_free(&a->rule);
	free(a->pids);
}

/* A selector that reads the cgroup needs a cpu hierarchy; a plain --cgroup
 * path must exist (a glob may match nothing). */
static void cgroup_check(const struct cli_ctl *ctl, const struct uc_sel_def *d, const char *arg,
			 const struct uc_rule *r)
{
	const struct uc_strs *l = (const struct uc_strs *)((const char *)r + d->off);
	const struct uc_cg_info *info;
	char rel[PATH_MAX];

	if (!(d->need & UC_PF_CGROUP))
		return;
	/* only here: finding the hierarchy (libcgroup's init) is ~0.9 M instructions */
	info = uc_cg_layout();
	if (!info)
		cli_usage_error(ctl, "invalid --%s '%s': no cgroup hierarchy has the cpu "
				"controller here", d->option, arg);
	if (d->match != uc_rule_cgroup_match)
		return;
	for (size_t i = 0; i < l->n; i++) {
		const char *path = l->v[i] + strspn(l->v[i], "/");

		if (*path && !uc_rule_is_glob(path) &&
		    uc_cg_resolve(info, path, rel, sizeof(rel)) == -ENOENT)
			cli_usage_error(ctl, "invalid --%s '%s': no such cgroup under %s",
					d->option, l->v[i], info->mount);
	}
}

/* The selector options every subcommand shares; false when c is not one. */
bool cli_sel_opt(struct cli_ctl *ctl, int c, const char *arg, void *sel)
{
	struct cli_sel *a = sel;
	const struct uc_sel_def *d = NULL;
	char err[PATH_MAX + 160];
	int rc;

	if (c == OPT_ALL) {
		a->all = true;
		return true;
	}
	for (size_t i = 0; i < uc_sel_ndefs && !d; i++)
		if (c == OPT_SEL + (int)i || (c < 256 && c == uc_sel_defs[i].short_opt))
			d = &uc_sel_defs[i];
	if (!d)
		return false;
	rc = uc_sel_set(&a->rule, d, d->kind == UC_SEL_FLAG ? "yes" : arg, true, err,
			sizeof(err));
	if (rc == -ENOMEM)
		exit(cli_oom());
	if (rc)
		cli_usage_error(ctl, "--%s: %s", d->option, err);
	cgroup_check(ctl, d, arg, &a->rule);
	if (d->kind != UC_SEL_FLAG && !a->first_filter)
		a->first_filter = d;
	return true;
}

/* PIDs from the rest of argv; PIDs and --all exclude each other. */
void cli_sel_pids(const struct cli_ctl *ctl, struct cli_sel *a, int argc, char **argv,
			  bool default_all)
{
	size_t n = argc > optind ? (size_t)(argc - optind) : 0;

	if (n && a->all)
		cli_usage_error(ctl, "give PIDs or --all, not both");
	if (!n && !a->all) {
		if (!default_all && a->first_filter)
			cli_usage_error(ctl, "which tasks? --%s narrows a selection: give PIDs, "
					"or --all", a->first_filter->option);
		if (!default_all)
			cli_usage_error(ctl, "which tasks? give PIDs, or --all (optionally with "
					"selectors such as --comm, --user or --cgroup)");
		a->all = true;
	}
	if (!n)
		return;
	a->pids = calloc(n, sizeof(*a->pids));
	if (!a->pids)
		exit(cli_oom());
	for (size_t i = 0; i < n; i++)
		a->pids[i] = cli_pid_or_err(ctl, argv[optind + (int)i]);
	a->npids = n;
	a->rule.kthreads = true;	/* a PID named is taken, kernel thread or not */
}

/* Every explicit PID must exist: name all the missing ones (a writer: and
 * that it changed nothing). */
int cli_sel_ready(const struct cli_ctl *ctl, const struct cli_sel *a, bool writes)
{
	char buf[512];
	size_t len = 0, missing = 0;
	int rc = cli_task_support(ctl);

	if (rc)
		return rc;
	buf[0] = '\0';
	for (size_t i = 0; i < a->npids; i++) {
		if (uc_task_exists(a->pids[i]) == 0)
			continue;
		missing++;
		if (len < sizeof(buf) - 16)
			len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%d",
						missing > 1 ? ", " : "", (int)a->pids[i]);
	}
	if (!missing)
		return 0;
	cli_errx("no such process%s: %s%s", missing > 1 ? "es" : "", buf,
		 writes ? "; nothing changed" : "");
	return CLI_EXIT_FAIL;
}

/* The walk's flags for a selection. */
static unsigned walk_flags(const struct cli_sel *a)
{
	return UC_WALK_ID_AS_GIVEN | (a->all ? UC_WALK_SKIP_INIT : 0);
}

/* ---- support ---------------------------------------------------------------- */

int cli_procns_check(void)
{
	char why[128];
	pid_t seen;

	if (!uc_procns_check(&seen))
		return 0;
	if (seen)
		snprintf(why, sizeof(why), "belongs to another PID namespace (it shows this "
			 "process as PID %d, which is not its PID here)", (int)seen);
	else
		snprintf(why, sizeof(why), "is not this PID namespace's (it does not show this "
			 "process)");
	cli_errx("refused: /proc %s: its PIDs name other tasks here; mount this namespace's "
		 "/proc (unshare --mount-proc, or mount -t proc proc /proc)", why);
	return CLI_EXIT_FAIL;
}

int cli_task_support(const struct cli_ctl *ctl)
{
	int err = 0, sys;

	if (cli_procns_check())
		return CLI_EXIT_FAIL;
	/* the sysctls exist exactly when CONFIG_UCLAMP_TASK is built in */
	sys = uc_access("/proc/sys/kernel/sched_util_clamp_min");
	if (!sys)
		return 0;
	/* hidden /proc/sys (a container?): ask the kernel, without enabling anything */
	switch (uc_sched_probe(&err)) {
	case UC_SUPPORT_YES:
		cli_verbose(ctl, "kernel.sched_util_clamp_min is missing, but "
			    "sched_setattr knows clamps");
		return 0;
	case UC_SUPPORT_NOT_BUILT:
		return cli_no_uclamp("sched_setattr answers EOPNOTSUPP (clamps read as 0 there)");
	case UC_SUPPORT_PRE_5_3:
		return cli_no_uclamp("it is older than Linux 5.3");
	case UC_SUPPORT_UNKNOWN:
		break;
	}
	/* the kernel said nothing: "no uclamp" only if the sysctl is not there */
	if (uc_err_absent(sys))
		return cli_no_uclamp("kernel.sched_util_clamp_min is missing and the "
				     "sched_setattr probe failed (%s)", strerror(-err));
	cli_errx("cannot tell whether this kernel has uclamp: /proc/sys/kernel/"
		 "sched_util_clamp_min: %s; the sched_setattr probe: %s", strerror(-sys),
		 strerror(-err));
	return CLI_EXIT_FAIL;
}

/* ---- task show ------------------------------------------------------------------ */

#define COLUMNS(NUM, TEXT, FLAG) \
	NUM(PID, 5, "process ID") \
	NUM(TID, 5, "thread ID") \
	TEXT(COMM, 0.2, SCOLS_FL_TRUNC, "thread name (/proc/PID/task/TID/comm)") \
	TEXT(POLICY, 0.1, 0, "scheduling policy") \
	NUM(UTIL_MIN, 5, "requested min clamp (sched_getattr)") \
	NUM(UTIL_MAX, 5, "requested max clamp (sched_getattr)") \
	NUM(EFF_MIN, 5, "effective min after cgroup and system clamps " \
	    "(empty if unknown; -v: the source)") \
	NUM(EFF_MAX, 5, "effective max after cgroup and system clamps " \
	    "(empty if unknown; -v: the source)") \
	FLAG(RESET_ON_FORK, 3, "children start at the default clamps") \
	TEXT(CGROUP, 0.3, 0, "cgroup in the cpu hierarchy, relative to its root ('/': the root)") \
	TEXT(USER, 0.1, 0, "owner of the process (real user: what --user selects)")

enum { COLUMNS(CLI_COL_ID, CLI_COL_ID, CLI_COL_ID) NCOLS };
static const struct cli_col cols[] = { COLUMNS(CLI_COL_NUMBER, CLI_COL_TEXT, CLI_COL_FLAG) };
#define DEFAULT_COLS "PID,TID,COMM,POLICY,UTIL_MIN,UTIL_MAX,EFF_MIN,EFF_MAX,RESET_ON_FORK"

struct show_ctx {
	struct cli_table t;
	bool eff_shown;		/* EFF_* shown */
	struct uc_eff eff;	/* their source: the kernel's rule, or /proc/PID/task/TID/sched */
	const struct uc_cg_info *cg;	/* CGROUP shown and a cpu hierarchy exists */
	pid_t cg_pid;		/* the process whose group is in cg_path (threads share it) */
	char cg_path[PATH_MAX];
	pid_t user_pid;		/* the process whose owner is in user (threads share it) */
	char user[64];
	size_t rows;
};

/* "system.slice/foo.service" as 'cgroup' takes it, "/" for the root, "" when unknown */
static const char *cgroup_of(struct show_ctx *s, pid_t pid)
{
	if (pid != s->cg_pid) {
		s->cg_pid = pid;
		if (uc_cg_of_pid(s->cg, pid, s->cg_path, sizeof(s->cg_path)))
			s->cg_path[0] = '\0';
		else if (!s->cg_path[0])
			snprintf(s->cg_path, sizeof(s->cg_path), "/");
	}
	return s->cg_path;
}

/* The owner's name (its uid when it has none), "" when the process is gone */
static const char *user_of(struct show_ctx *s, pid_t pid)
{
	struct passwd *pw;
	uid_t uid;

	if (pid == s->user_pid)
		return s->user;
	s->user_pid = pid;
	s->user[0] = '\0';
	if (uc_task_uid(pid, &uid))
		return s->user;
	pw = getpwuid(uid);
	if (pw)
		snprintf(s->user, sizeof(s->user), "%s", pw->pw_name);
	else
		snprintf(s->user, sizeof(s->user), "%u", (unsigned)uid);
	return s->user;
}

/* The walk could not read some tasks: how many, and the first one's error. */
static void say_unreadable(const struct uc_walk_stats *st)
{
	char eb[256];

	cli_errx("could not read %zu task(s), e.g. tid %d: %s", st->failed,
		 (int)st->first_err_tid, cli_strerr(UC_KIND_TASK, st->first_err, eb, sizeof(eb)));
}

static int show_one(const struct uc_task *tk, void *data)
{
	struct show_ctx *s = data;
	struct cli_table *t = &s->t;
	struct libscols_line *ln = cli_table_line(t, NULL);
	struct uc_cg_clamps e;

	if (!ln)
		return -ENOMEM;
	cli_table_set_int(t, ln, COL_PID, tk->pid);
	cli_table_set_int(t, ln, COL_TID, tk->tid);
	cli_table_set(t, ln, COL_COMM, tk->comm);
	cli_table_set(t, ln, COL_POLICY, uc_policy_name((int)tk->sa.sched_policy));
	cli_table_set_int(t, ln, COL_UTIL_MIN, tk->sa.sched_util_min);
	cli_table_set_int(t, ln, COL_UTIL_MAX, tk->sa.sched_util_max);
	if (s->eff_shown && uc_eff_task(&s->eff, tk->pid, tk->tid, &tk->sa, &e) != UC_EFF_NONE) {
		cli_table_set_int(t, ln, COL_EFF_MIN, e.min);
		cli_table_set_int(t, ln, COL_EFF_MAX, e.max);
	}
	cli_table_set(t, ln, COL_RESET_ON_FORK,
		      tk->sa.sched_flags & UC_SCHED_FLAG_RESET_ON_FORK ? "yes" : "no");
	if (s->cg)
		cli_table_set(t, ln, COL_CGROUP, cgroup_of(s, tk->pid));
	if (t->map[COL_USER] >= 0)
		cli_table_set(t, ln, COL_USER, user_of(s, tk->pid));
	s->rows++;
	return 0;
}

/* -v: where EFF_MIN/EFF_MAX came from */
static void verbose_eff_source(const struct cli_ctl *ctl, const struct uc_eff *e)
{
	if (e->n_rule)
		cli_verbose(ctl, "EFF_MIN/EFF_MAX of %zu task(s): the kernel's rule "
			    "(request within the cgroup's effective clamps, then the "
			    "system limits; %zu cgroup(s) read)",
			    e->n_rule, e->ngroups);
	if (e->n_proc)
		cli_verbose(ctl, "EFF_MIN/EFF_MAX of %zu task(s): /proc/PID/task/TID/sched (%s)",
			    e->n_proc,
			    e->why_proc ? e->why_proc : "their cgroup could not be read");
}

static void usage_show(void)
{
	cli_usage_head(stdout, "task show", show_synopsis);
	printf("\nShow the clamps of processes or threads: the requested values\n"
	       "(sched_getattr) and the effective ones after cgroup and system limits.\n"
	       "Without PIDs, every process (as with --all). Reading changes nothing.\n\n"
	       "Options:\n");
	cli_sel_help();
	printf(CLI_OUTPUT_OPTS_HELP CLI_HELP_OPTS_HELP);
}

static int task_show(struct cli_ctl *ctl, int argc, char **argv)
{
	const struct cli_opts opts = {
		.longopts = cli_sel_longopts(NULL),
		.shortopts = "a", .shared = CLI_OPTS_OUTPUT,
		.own = cli_sel_opt, .usage = usage_show, .cols = cols, .ncols = NCOLS,
	};
	struct cli_sel a;
	struct uc_rules rs;
	struct show_ctx s = { .rows = 0 };
	struct uc_walk_stats st;
	int rc;

	cli_sel_init(&a);
	cli_parse_opts(ctl, argc, argv, &opts, &a);
	cli_sel_pids(ctl, &a, argc, argv, true);
	cli_table_or_err(ctl, &s.t, "tasks", cols, NCOLS, DEFAULT_COLS);

	rc = cli_sel_ready(ctl, &a, false);
	if (rc)
		goto out;
	s.eff_shown = s.t.map[COL_EFF_MIN] >= 0 || s.t.map[COL_EFF_MAX] >= 0;
	if (uc_eff_init(&s.eff)) {
		rc = cli_oom();
		goto out;
	}
	if (s.t.map[COL_CGROUP] >= 0)
		s.cg = uc_cg_layout();	/* none: the column stays empty */

	rc = uc_rules_init(&rs, &a.rule, 1);
	if (!rc)
		rc = uc_tasks_walk(&rs, a.pids, a.npids,
				   walk_flags(&a) | (s.t.map[COL_COMM] >= 0 ? UC_WALK_COMM : 0),
				   show_one, &s, &st);
	uc_rules_free(&rs);
	if (rc == 0 || rc == -ESRCH) {
		/* ESRCH: an explicit PID exited after the check; show the rest */
		cli_table_print(&s.t, stdout);
	}
	if (s.eff_shown)
		verbose_eff_source(ctl, &s.eff);
	if (rc && rc != -ESRCH) {
		cli_errx("cannot list tasks: %s", strerror(-rc));
		rc = CLI_EXIT_FAIL;
	} else if (st.failed) {
		say_unreadable(&st);
		rc = CLI_EXIT_FAIL;
	} else {
		cli_verbose(ctl, "%zu task(s) shown, %zu exited while reading", s.rows, st.gone);
		rc = CLI_EXIT_OK;
	}
out:
	uc_eff_free(&s.eff);
	cli_table_free(&s.t);
	cli_sel_free(&a);
	return rc;
}

/* ---- task set / reset: shared with run ------------------------------------------ */

bool cli_want_opt(struct cli_ctl *ctl, int c, const char *arg, void *data)
{
	struct uc_rule *want = data;

	switch (c) {
	case CLI_OPT_MIN:
		want->min = cli_util_or_err(ctl, "--min", arg);
		return true;
	case CLI_OPT_MAX:
		want->max = cli_util_or_err(ctl, "--max", arg);
		return true;
	case CLI_OPT_ROF:
	case CLI_OPT_NO_ROF:
		if (want->reset_on_fork != UC_KEEP && want->reset_on_fork != (c == CLI_OPT_ROF))
			cli_usage_error(ctl, "--reset-on-fork and --no-reset-on-fork exclude "
					"each other");
		want->reset_on_fork = c == CLI_OPT_ROF;
		return true;
	}
	return false;
}

void cli_want_check(const struct cli_ctl *ctl, const struct uc_rule *want, const char *where)
{
	if (want->min == UC_KEEP && want->max == UC_KEEP && want->reset_on_fork == UC_KEEP)
		cli_usage_error(ctl, "nothing to set: give --min, --max and/or --reset-on-fork%s",
				where);
	if (want->min >= 0 && want->max >= 0 && want->min > want->max)
		cli_usage_error(ctl, "--min %d is above --max %d: the kernel requires min <= max",
				want->min, want->max);
}

void cli_task_explain_reset(const struct cli_ctl *ctl, const struct uc_rule *want)
{
	int kver;

	if (want->min != UC_RESET && want->max != UC_RESET)
		return;
	kver = uc_kernel_version();
	if (!kver || kver >= UC_KVER(5, 11, 0))
		return;
	cli_warnx(ctl, "this kernel (older than 5.11) cannot reset a clamp to the default (-1): "
		  "writing the default values instead (min 0, RT tasks the RT default; max 1024), "
		  "which then count as set by the task");
}

struct refusal_ctx {
	const struct cli_ctl *ctl;
	const struct uc_rule *want;
	size_t n;
};
#define REFUSALS_SHOWN 10

static void on_refusal(const struct uc_task_refusal *r, void *data)
{
	struct refusal_ctx *rc = data;
	const struct uc_rule *w = rc->want;
	char who[96], comm[16];
	/* named as a plan's change is */
	struct uc_change as = { .kind = UC_KIND_TASK, .pid = r->pid, .tid = r->tid };

	if (++rc->n > REFUSALS_SHOWN && !rc->ctl->verbose)
		return;
	snprintf(comm, sizeof(comm), "%s", r->comm);
	if (!comm[0])
		/* only for the few refused */
		uc_task_comm(r->pid, r->tid, comm, sizeof(comm));
	as.label = comm[0] ? comm : NULL;
	uc_change_target(&as, who, sizeof(who));

	if (r->why == UC_SKIP_ZOMBIE) {
		cli_info(rc->ctl, "%s: left alone: it has exited (a zombie its "
			 "parent has not reaped yet)",
			 who);
		return;
	}
	if (r->why == UC_SKIP_INIT) {
		cli_info(rc->ctl, "%s: left alone: it is PID 1, and every process it starts "
			 "inherits its clamps; name it (PID 1) to change it",
			 who);
		return;
	}
	if (r->why == UC_REFUSE_RT_MAX_BELOW_MIN) {
		cli_errx("%s: skipped: it is a real-time task (%s) with util_min %d (RT tasks get "
			 "kernel.sched_util_clamp_min_rt_default unless they ask for a min), above "
			 "--max %d; the kernel refuses min > max (EINVAL): add --min %d or lower",
			 who, uc_policy_name(r->policy), r->end_min, r->end_max, r->end_max);
		return;
	}
	cli_errx("%s: skipped: util_min would be %d%s, above util_max %d%s; the kernel "
		 "requires min <= max: %s %d",
		 who, r->end_min, w->min == UC_KEEP ? " (its current value)" : "", r->end_max,
		 w->max == UC_KEEP ? " (its current value)" : "",
		 w->max == UC_KEEP ? "add --max" : "use --min",
		 w->max == UC_KEEP ? r->end_min : r->end_max);
}

struct task_plan_ctx {
	const struct uc_rule *want;
	const pid_t *pids;
	size_t npids;
	const struct cli_task_how *how;
};

/* The plan for one selection (cli_run's plan()): refusals and warnings on pass 0 only. */
static int task_plan(struct cli_ctl *ctl, struct uc_plan *plan, unsigned pass, void *data)
{
	struct task_plan_ctx *tp = data;
	struct refusal_ctx rctx = { .ctl = ctl, .want = tp->want };
	struct uc_walk_stats st;
	struct uc_rules rs;
	int rc;

	rc = uc_rules_init(&rs, tp->want, 1);
	if (!rc)
		rc = uc_tasks_plan(plan, &rs, tp->pids, tp->npids, tp->how->flags,
				   pass ? NULL : on_refusal, &rctx, &st);
	uc_rules_free(&rs);
	if (!rc && tp->how->as)	/* run: named by the command it is about to become */
		rc = uc_plan_name_tasks(plan, tp->how->as);
	if (rc) {
		if (rc == -ESRCH)
			cli_errx("no such process: %d; nothing changed", (int)st.first_err_tid);
		else
			cli_errx("cannot plan the change: %s; nothing changed", strerror(-rc));
		return CLI_EXIT_FAIL;
	}
	if (pass)
		return 0;
	if (rctx.n > REFUSALS_SHOWN && !ctl->verbose)
		cli_errx("... and %zu more task(s) skipped for the same reasons (-v lists them)",
			rctx.n - REFUSALS_SHOWN);
	if (st.failed)
		say_unreadable(&st);
	if (!tp->npids && st.seen == 0 && !ctl->quiet)
		cli_warnx(ctl, "no task matches the selection");
	return 0;
}

int cli_task_plan_and_run(struct cli_ctl *ctl, const struct uc_rule *want, const pid_t *pids,
			  size_t npids, const struct cli_task_how *th)
{
	struct task_plan_ctx tp = { .want = want, .pids = pids, .npids = npids, .how = th };
	const struct cli_run how = {
		.mode = UC_EXEC_BEST_EFFORT, .may_ask = true, .wide = th->wide,
		.plan = task_plan, .data = &tp,
	};

	return cli_run_plan(ctl, &how);
}

/* ---- task set --------------------------------------------------------------------- */

static void usage_set(void)
{
	cli_usage_head(stdout, "task set", set_synopsis);
	printf("\nSet the requested clamps of tasks. Only the clamps given change; a task\n"
	       "already at the requested values gets no system call and counts as\n"
	       "unchanged. Any real change enables the uclamp fast path until reboot\n"
	       "(asks first on a terminal; otherwise needs --yes). So does --all without a\n"
	       "selector, which changes every task of every user, even with the fast path\n"
	       "on. A task that exits on the way counts as gone; a failure on one task\n"
	       "does not stop the others.\n\n"
	       "Options:\n"
	       "     --min <value>      the requested minimum (util_min)\n"
	       "     --max <value>      the requested maximum (util_max)\n"
	       "     --reset-on-fork    children of the task start at the default clamps\n"
	       "     --no-reset-on-fork children inherit the task's clamps (needs privilege)\n");
	cli_sel_help();
	printf(CLI_WRITE_OPTS_HELP
	       CLI_HELP_OPTS_HELP
	       "\n"
	       "Values: %s.\n"
	       "Real-time tasks have util_min 1024 unless set (the RT default): to set a\n"
	       "lower --max on them, give --min too.\n", uc_value_forms);
}

static const struct option want_longopts[] = {
	CLI_WANT_LONGOPTS,
	{ NULL, 0, NULL, 0 },
};

static void usage_reset(void)
{
	cli_usage_head(stdout, "task reset", reset_synopsis);
	printf("\nReset both clamps of tasks to the kernel default (-1): max 1024, min 0\n"
	       "(real-time tasks: kernel.sched_util_clamp_min_rt_default). Tasks already\n"
	       "at the defaults are left alone. Kernels before 5.11 cannot reset: there\n"
	       "the default values are written instead. Enables the uclamp fast path\n"
	       "until reboot like any clamp change. --all without a selector changes every\n"
	       "task of every user: it asks (or needs --yes) even with the fast path on.\n\n"
	       "Options:\n");
	cli_sel_help();
	printf(CLI_WRITE_OPTS_HELP CLI_HELP_OPTS_HELP);
}

struct set_args {
	struct cli_sel a;
	bool reset;
};

static bool set_opt(struct cli_ctl *ctl, int c, const char *arg, void *data)
{
	struct set_args *sa = data;

	if (sa->reset && (c == CLI_OPT_MIN || c == CLI_OPT_MAX || c == CLI_OPT_ROF ||
			  c == CLI_OPT_NO_ROF))
		cli_usage_error(ctl, "'task reset' resets both clamps and takes no --%s; "
				"use 'task set'", cli_opt_name(want_longopts, c));
	return cli_sel_opt(ctl, c, arg, &sa->a) || cli_want_opt(ctl, c, arg, &sa->a.rule);
}

/* 'task set' and 'task reset' (which one is said, not read from argv[0]: a writer's
 * mode must not hang on how the command was spelled) */
static int set_or_reset(struct cli_ctl *ctl, int argc, char **argv, bool reset)
{
	const struct cli_opts opts = {
		.shortopts = "a", .longopts = cli_sel_longopts(want_longopts),
		.shared = CLI_OPTS_WRITE,
		.own = set_opt, .usage = reset ? usage_reset : usage_set,
	};
	struct set_args sa = { .reset = reset };
	struct cli_sel *a = &sa.a;
	struct uc_rule *want = &a->rule;
	struct cli_task_how th;
	int rc;

	cli_sel_init(a);
	cli_parse_opts(ctl, argc, argv, &opts, &sa);
	if (reset)
		want->min = want->max = UC_RESET;
	cli_want_check(ctl, want, "");
	cli_sel_pids(ctl, a, argc, argv, false);

	rc = cli_sel_ready(ctl, a, true);
	if (rc)
		goto out;
	/* names in messages cost one read per task: only for few tasks or a dry run
	 * (a question names the ten rows it shows) */
	th = (struct cli_task_how){
		.flags = walk_flags(a), .wide = a->all && !a->first_filter,
	};
	if (ctl->dry_run || (a->npids && !a->rule.threads))
		th.flags |= UC_WALK_COMM;
	cli_task_explain_reset(ctl, want);
	rc = cli_task_plan_and_run(ctl, want, a->pids, a->npids, &th);
out:
	cli_sel_free(a);
	return rc;
}

static int task_set(struct cli_ctl *ctl, int argc, char **argv)
{
	return set_or_reset(ctl, argc, argv, false);
}

static int task_reset(struct cli_ctl *ctl, int argc, char **argv)
{
	return set_or_reset(ctl, argc, argv, true);
}

int cmd_task(struct cli_ctl *ctl, int argc, char **argv)
{
	static const struct cli_command cmds[] = {
		{ "show", task_show, "show the clamps of tasks", show_synopsis },
		{ "set", task_set, "set the clamps of tasks", set_synopsis },
		{ "reset", task_reset, "reset the clamps of tasks to the kernel default",
		  reset_synopsis },
		{ NULL, NULL, NULL, NULL },
	};

	return cli_dispatch_group(ctl, "task", cmds,
				  "Show, set or reset the clamps tasks request for "
				  "themselves (sched_setattr):\n"
				  "util_min, a floor, and util_max, a cap, in "
				  "capacity units 0..1024.\n",
				  NULL, argc, argv);
}
