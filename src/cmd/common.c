/* The CLI layer's shared parts: messages, *_or_err parsers, the plan runner. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/common.h"
#include "uclamp/fastpath.h"
#include "uclamp/pid.h"
#include "uclamp/sched.h"
#include "uclamp/tasks.h"

__attribute__((format(printf, 3, 0)))
static void vmsg(FILE *f, const char *prefix, const char *fmt, va_list ap)
{
	fflush(stdout);
	fprintf(f, "%s", prefix);
	vfprintf(f, fmt, ap);
	fputc('\n', f);
}

void uc_errx(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(stderr, "uclampctl: ", fmt, ap);
	va_end(ap);
}

void uc_warnx(const struct uc_ctl *ctl, const char *fmt, ...)
{
	va_list ap;

	if (ctl->quiet)
		return;
	va_start(ap, fmt);
	vmsg(stderr, "uclampctl: warning: ", fmt, ap);
	va_end(ap);
}

void uc_info(const struct uc_ctl *ctl, const char *fmt, ...)
{
	va_list ap;

	if (ctl->quiet)
		return;
	va_start(ap, fmt);
	vmsg(stdout, "", fmt, ap);
	va_end(ap);
}

void uc_verbose(const struct uc_ctl *ctl, const char *fmt, ...)
{
	va_list ap;

	if (!ctl->verbose || ctl->quiet)
		return;
	va_start(ap, fmt);
	vmsg(stderr, "uclampctl: ", fmt, ap);
	va_end(ap);
}

noreturn void uc_usage_error(const struct uc_ctl *ctl, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(stderr, "uclampctl: ", fmt, ap);
	va_end(ap);
	fprintf(stderr, "Try 'uclampctl %s%s--help' for more information.\n",
		ctl->cmd ? ctl->cmd : "", ctl->cmd ? " " : "");
	exit(UC_EXIT_USAGE);
}

noreturn void uc_bad_option(const struct uc_ctl *ctl, int c, char **argv)
{
	if (c == ':')
		uc_usage_error(ctl, "option '%s' needs a value", argv[optind - 1]);
	if (optopt)
		uc_usage_error(ctl, "unknown option '-%c'", optopt);
	uc_usage_error(ctl, "unknown option '%s'", argv[optind - 1]);
}

int uc_dispatch(struct uc_ctl *ctl, const char *group, const struct uc_command *cmds,
		int argc, char **argv)
{
	static char name[128];
	size_t n = 0;

	while (cmds[n].name)
		n++;
	if (argc < 1 || !strcmp(argv[0], "-h") || !strcmp(argv[0], "--help")) {
		FILE *out = argc < 1 ? stderr : stdout;

		fprintf(out, "Usage:\n uclampctl %s%s<command> [options]\n\nCommands:\n",
			group ? group : "", group ? " " : "");
		for (size_t i = 0; i < n; i++)
			fprintf(out, " %-8s %s\n", cmds[i].name, cmds[i].help);
		fprintf(out, "\nRun 'uclampctl %s%s<command> --help' for its options.\n",
			group ? group : "", group ? " " : "");
		return argc < 1 ? UC_EXIT_USAGE : UC_EXIT_OK;
	}
	for (size_t i = 0; i < n; i++) {
		if (strcmp(argv[0], cmds[i].name))
			continue;
		snprintf(name, sizeof(name), "%s%s%s", group ? group : "", group ? " " : "", cmds[i].name);
		ctl->cmd = name;
		optind = 0;	/* GNU getopt: start over at argv[1] */
		return cmds[i].fn(ctl, argc, argv);
	}
	uc_usage_error(ctl, "unknown command '%s%s%s'", group ? group : "", group ? " " : "", argv[0]);
}

int uc_dispatch_group(struct uc_ctl *ctl, const char *group, const struct uc_command *cmds,
		      void (*usage)(FILE *out), int argc, char **argv)
{
	ctl->cmd = group;
	if (argc < 2) {
		usage(stderr);
		return UC_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		usage(stdout);
		return UC_EXIT_OK;
	}
	return uc_dispatch(ctl, group, cmds, argc - 1, argv + 1);
}

bool uc_output_opt(struct uc_ctl *ctl, int c, const char *arg)
{
	switch (c) {
	case 'o':
		ctl->out.columns = arg;
		return true;
	case 'J':
		ctl->out.json = true;
		return true;
	case 'r':
		ctl->out.raw = true;
		return true;
	case 'n':
		ctl->out.noheadings = true;
		return true;
	}
	return false;
}

void uc_value_or_err(const struct uc_ctl *ctl, const char *opt, const char *s, struct uc_value *v)
{
	int rc = uc_value_parse(s, v);

	if (rc == 0)
		return;
	uc_usage_error(ctl, "invalid value '%s' for %s: %s; use %s", s, opt,
		       rc == -ERANGE ? "out of range" : "not a clamp value", uc_value_forms);
}

pid_t uc_pid_or_err(const struct uc_ctl *ctl, const char *s)
{
	pid_t pid = 0;

	if (uc_pid_parse(s, &pid))
		uc_usage_error(ctl, "invalid PID '%s': use a positive decimal process ID", s);
	return pid;
}

int uc_policy_or_err(const struct uc_ctl *ctl, const char *s)
{
	int p = uc_policy_parse(s);

	if (p < 0)
		uc_usage_error(ctl, "invalid policy '%s': use other, batch, idle, fifo, rr, deadline or ext", s);
	return p;
}

uid_t uc_user_or_err(const struct uc_ctl *ctl, const char *s)
{
	struct passwd *pw = getpwnam(s);
	char *end;
	unsigned long v;

	if (pw)
		return pw->pw_uid;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (*s && !errno && !*end && s[0] != '-' && v < (unsigned long)(uid_t)-1)
		return (uid_t)v;
	uc_usage_error(ctl, "unknown user '%s': use a user name or a numeric UID", s);
}

void uc_print_columns(const struct uc_col *cols, size_t n)
{
	for (size_t i = 0; i < n; i++)
		printf(" %14s  %s\n", cols[i].name, cols[i].help);
}

void uc_table_or_err(const struct uc_ctl *ctl, struct uc_table *t, const char *json_name,
		     const struct uc_col *cols, size_t ncols, const char *defaults)
{
	const char *bad = NULL;
	int rc = uc_table_init(t, json_name, cols, ncols, defaults, &ctl->out, &bad);

	if (rc == -EINVAL)
		uc_usage_error(ctl, "unknown column '%.*s' for --output: see --list-columns",
			       bad ? (int)strcspn(bad, ",") : 0, bad ? bad : "");
	if (rc) {
		uc_errx("cannot set up the table: %s", strerror(-rc));
		exit(UC_EXIT_FAIL);
	}
}

enum uc_key_state uc_key_state_now(const struct uc_ctl *ctl)
{
	struct uc_fastpath fp;

	uc_fastpath_detect(&fp);
	uc_verbose(ctl, "fast path (sched_uclamp_used): %s: %s", uc_key_state_name(fp.state),
		   fp.how[0] ? fp.how : uc_fp_source_name(fp.source));
	/* "may enable" should say why the state is not known */
	if (fp.state == UC_KEY_UNKNOWN)
		for (size_t i = 0; i < fp.nunavailable; i++)
			uc_verbose(ctl, "  %s", fp.unavailable[i]);
	return fp.state;
}

const char *uc_strerr(enum uc_kind kind, int err, char *buf, size_t n)
{
	switch (-err) {
	case EPERM:
		if (kind == UC_KIND_TASK) {
			snprintf(buf, n, "permission denied (another user's task needs CAP_SYS_NICE, e.g. root)");
			return buf;
		}
		/* fall through */
	case EACCES:
		/* root is refused too by a read-only (0444) knob or a security module */
		snprintf(buf, n, geteuid() == 0 ? "permission denied (even for root: a read-only knob or a security policy)"
						: "permission denied (run as root)");
		return buf;
	case EROFS:
		snprintf(buf, n, "read-only file system (in a container? the host must change it)");
		return buf;
	case ESRCH:
		snprintf(buf, n, "no such process (it exited)");
		return buf;
	case EOPNOTSUPP:
		snprintf(buf, n, "the kernel has no uclamp support (CONFIG_UCLAMP_TASK)");
		return buf;
	case ENOENT:
		snprintf(buf, n, "no such file (the kernel lacks this uclamp knob)");
		return buf;
	default:
		snprintf(buf, n, "%s", strerror(-err));
		return buf;
	}
}

static const struct uc_col plan_cols[] = {
	{ "TARGET", 0.4, 0, UC_COL_STR, "what changes: a task, sysctl or cgroup" },
	{ "ATTRIBUTE", 0.2, 0, UC_COL_STR, "which value" },
	{ "FROM", 0.1, SCOLS_FL_RIGHT, UC_COL_STR, "the current value" },
	{ "TO", 0.1, SCOLS_FL_RIGHT, UC_COL_STR, "the new value" },
	{ "FAST_PATH", 0.1, 0, UC_COL_STR, "whether the change enables the uclamp fast path" },
};

void uc_print_plan(const struct uc_ctl *ctl, const struct uc_plan *plan)
{
	struct uc_out_opts o = { .raw = false };
	struct uc_table t;
	char b1[256], b2[64];

	if (uc_table_init(&t, "plan", plan_cols, 5, "TARGET,ATTRIBUTE,FROM,TO,FAST_PATH", &o, NULL))
		return;
	for (size_t i = 0; i < plan->n; i++) {
		const struct uc_change *c = &plan->v[i];
		struct libscols_line *ln = uc_table_line(&t, NULL);

		uc_table_set(&t, ln, 0, uc_change_target(c, b1, sizeof(b1)));
		uc_table_set(&t, ln, 1, uc_attr_name(c->kind, c->attr));
		uc_table_set(&t, ln, 2, uc_change_value(c, c->from, b2, sizeof(b2)));
		uc_table_set(&t, ln, 3, uc_change_value(c, c->to, b2, sizeof(b2)));
		uc_table_set(&t, ln, 4, c->flips ? "enables" : "-");
	}
	uc_table_print(&t, stdout);
	uc_table_free(&t);
}

/* Count targets (a task's min/max/flag changes are one target). */
static void count_states(const struct uc_plan *p, size_t cnt[UC_CH_SKIPPED + 1])
{
	memset(cnt, 0, sizeof(size_t) * (UC_CH_SKIPPED + 1));
	for (size_t i = 0; i < p->n; i++) {
		const struct uc_change *c = &p->v[i];

		if (i > 0 && c->kind == UC_KIND_TASK && p->v[i - 1].kind == UC_KIND_TASK &&
		    p->v[i - 1].tid == c->tid)
			continue;
		cnt[c->state]++;
	}
}

static size_t count_targets(const struct uc_plan *p)
{
	size_t cnt[UC_CH_SKIPPED + 1];

	count_states(p, cnt);
	return cnt[UC_CH_PLANNED];
}

static bool ask_yes(void)
{
	char line[32];

	fputs("Continue? [y/N] ", stderr);
	fflush(stderr);
	if (!fgets(line, sizeof(line), stdin))
		return false;
	return !strcmp(line, "y\n") || !strcmp(line, "Y\n") || !strcmp(line, "yes\n");
}

/* The task's owner is the caller (the kernel's same-owner test passes), so
 * an EPERM came from the capability rule, not from "another user's task". */
static bool own_task(pid_t pid)
{
	uid_t uid;

	return uc_task_uid(pid, &uid) == 0 && uid == geteuid();
}

/* One line per failed target (a task's clamps fail together), at most
 * MAX_FAILURE_LINES, then a count: 10,000 EPERMs are one problem, not 10,000. */
#define MAX_FAILURE_LINES 10
static void report_failures(const struct uc_plan *plan)
{
	char tb[256], eb[256];
	size_t shown = 0, more = 0;

	for (size_t i = 0; i < plan->n; i++) {
		const struct uc_change *c = &plan->v[i];

		if (c->state != UC_CH_FAILED && c->state != UC_CH_ROLLBACK_FAILED)
			continue;
		if (i > 0 && c->kind == UC_KIND_TASK && plan->v[i - 1].kind == UC_KIND_TASK &&
		    plan->v[i - 1].tid == c->tid)
			continue;
		if (shown == MAX_FAILURE_LINES) {
			more++;
			continue;
		}
		shown++;
		if (c->state == UC_CH_FAILED) {
			char ab[128];
			size_t len = 0;
			bool clears_rof = false;

			/* a task's attributes went to the kernel together: name them all */
			for (size_t k = i; k < plan->n && len < sizeof(ab); k++) {
				if (k > i && (plan->v[k].kind != UC_KIND_TASK || plan->v[k].tid != c->tid ||
					      c->kind != UC_KIND_TASK))
					break;
				len += (size_t)snprintf(ab + len, sizeof(ab) - len, "%s%s", k > i ? ", " : "",
							uc_attr_name(plan->v[k].kind, plan->v[k].attr));
				clears_rof |= plan->v[k].attr == UC_ATTR_RESET_ON_FORK && plan->v[k].to == 0;
			}
			/* the kernel lets only CAP_SYS_NICE clear reset-on-fork, even on one's own task */
			if (clears_rof && c->err == -EPERM)
				snprintf(eb, sizeof(eb), "permission denied (clearing reset-on-fork needs CAP_SYS_NICE, e.g. root)");
			else if (c->kind == UC_KIND_TASK && c->err == -EPERM && own_task(c->pid))
				snprintf(eb, sizeof(eb), "permission denied (needs CAP_SYS_NICE, which this process lacks)");
			else
				uc_strerr(c->kind, c->err, eb, sizeof(eb));
			uc_errx("%s: %s: %s", uc_change_target(c, tb, sizeof(tb)), ab, eb);
		} else {
			uc_errx("%s: %s: could not be restored to its old value: %s",
				uc_change_target(c, tb, sizeof(tb)), uc_attr_name(c->kind, c->attr),
				uc_strerr(c->kind, c->err, eb, sizeof(eb)));
		}
	}
	if (more)
		uc_errx("... and %zu more failure(s) like these", more);
}

int uc_guard_or_refuse(const struct uc_ctl *ctl, const struct uc_plan *plan, enum uc_key_state key,
		       bool consent_from_config, bool may_ask)
{
	struct uc_consent consent = {
		.yes = ctl->yes || consent_from_config,
		.interactive = may_ask && isatty(STDIN_FILENO) && isatty(STDERR_FILENO),
	};

	switch (uc_guard_check(plan, key, &consent)) {
	case UC_GUARD_GO:
		if (uc_plan_flips(plan))
			uc_verbose(ctl, "the uclamp fast path is already %s: no new cost", uc_key_state_name(key));
		return 0;
	case UC_GUARD_GO_WARN:
		uc_warnx(ctl, "%s", uc_guard_warning(key));
		return 0;
	case UC_GUARD_ASK:
		fprintf(stderr, "uclampctl: warning: %s\n", uc_guard_warning(key));
		if (ask_yes())
			return 0;
		uc_errx("not confirmed: nothing changed");
		return UC_EXIT_REFUSED;
	case UC_GUARD_REFUSE:
		break;
	}
	uc_errx("refused: %s", uc_guard_warning(key));
	uc_errx("nothing changed; consent with %s, or see the plan with --dry-run",
		ctl->consent_hint ? ctl->consent_hint : "--yes");
	return UC_EXIT_REFUSED;
}

int uc_run_plan(struct uc_ctl *ctl, struct uc_plan *plan, enum uc_exec_mode mode,
		bool consent_from_config)
{
	enum uc_key_state key = UC_KEY_UNKNOWN;
	struct uc_exec_report r;
	int rc;
	size_t cnt[UC_CH_SKIPPED + 1];
	bool flips = uc_plan_flips(plan);

	if (plan->n == 0) {
		if (plan->failed) {
			uc_errx("nothing changed: %zu target(s) refused or unreadable (see above), %zu already at the requested values",
				plan->failed, plan->unchanged);
			return UC_EXIT_FAIL;
		}
		uc_info(ctl, "nothing to change (%zu already at the requested values%s)", plan->unchanged,
			plan->gone ? ", some exited" : "");
		return UC_EXIT_OK;
	}
	if (flips)
		key = uc_key_state_now(ctl);
	if (ctl->dry_run) {
		uc_print_plan(ctl, plan);
		printf("%zu to change, %zu unchanged; ", count_targets(plan), plan->unchanged);
		if (!flips)
			printf("this plan does not enable the uclamp fast path\n");
		else if (key == UC_KEY_ON || key == UC_KEY_ALWAYS_ON)
			printf("the uclamp fast path is already %s\n", uc_key_state_name(key));
		else
			printf("this plan %s enable the uclamp fast path (sched_uclamp_used is %s)\n",
			       key == UC_KEY_OFF ? "would" : "may", uc_key_state_name(key));
		printf("dry run: nothing changed\n");
		return UC_EXIT_OK;
	}

	rc = uc_guard_or_refuse(ctl, plan, key, consent_from_config, true);
	if (rc)
		return rc;

	uc_plan_execute(plan, mode, NULL, &r);
	report_failures(plan);
	count_states(plan, cnt);
	if (mode == UC_EXEC_ATOMIC && r.failed) {
		uc_errx("failed: %zu change(s) undone%s%s", cnt[UC_CH_ROLLED_BACK],
			cnt[UC_CH_ROLLBACK_FAILED] ? ", some could NOT be undone (see above)" : "",
			flips ? "; the fast path, if enabled, stays on until reboot" : "");
		return UC_EXIT_FAIL;
	}
	if (!ctl->quiet) {
		printf("changed %zu, unchanged %zu, gone %zu, failed %zu\n", cnt[UC_CH_DONE],
		       plan->unchanged, cnt[UC_CH_GONE] + plan->gone, cnt[UC_CH_FAILED] + plan->failed);
	}
	return (r.failed || plan->failed) ? UC_EXIT_FAIL : UC_EXIT_OK;
}
