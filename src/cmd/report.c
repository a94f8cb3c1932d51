/*
 * Running a plan from the CLI and rendering its report: the one tail of
 * every write command (task set/reset, run, system set, cgroup set, apply).
 * The library runs the plan (uc_plan_run) and returns a report; this file
 * asks at the terminal, prints the report as text or JSON, and maps it to
 * the exit code.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/common.h"
#include "uclamp/fastpath.h"
#include "uclamp/history.h"
#include "uclamp/note.h"
#include "uclamp/tasks.h"

enum uc_key_state cli_key_state_now(const struct cli_ctl *ctl)
{
	struct uc_fastpath fp;

	uc_fastpath_detect_flags(&fp, 0);
	cli_verbose(ctl, "fast path (sched_uclamp_used): %s: %s", uc_key_state_name(fp.state),
		    fp.how[0] ? fp.how : uc_fp_source_name(fp.source));
	/* "may enable" should say why the state is not known */
	if (fp.state == UC_KEY_UNKNOWN)
		for (size_t i = 0; i < fp.nunavailable; i++)
			cli_verbose(ctl, "  %s", fp.unavailable[i]);
	return fp.state;
}

/* What a failed change's errno means for an admin; EPERM and EACCES below */
static const struct {
	int err;
	const char *text;
} errno_texts[] = {
	{ EROFS, "read-only file system (in a container? the host must change it)" },
	{ ESRCH, "no such process (it exited)" },
	{ ESTALE, "the process exited and its PID now belongs to another one (left alone)" },
	{ EOPNOTSUPP, CLI_NO_UCLAMP },
	{ ENOENT, "no such file (the kernel lacks this uclamp knob)" },
};

const char *cli_strerr(enum uc_kind kind, int err, char *buf, size_t n)
{
	const char *text = strerror(-err);

	if (-err == EPERM && kind == UC_KIND_TASK)
		text = "permission denied (another user's task needs CAP_SYS_NICE, e.g. root)";
	else if (-err == EPERM || -err == EACCES)
		/* root is refused too by a read-only (0444) knob or a security module */
		text = geteuid() == 0 ? "permission denied (even for root: a read-only knob "
					"or a security policy)"
				      : "permission denied (run as root)";
	for (size_t i = 0; i < sizeof(errno_texts) / sizeof(errno_texts[0]); i++)
		if (errno_texts[i].err == -err)
			text = errno_texts[i].text;
	snprintf(buf, n, "%s", text);
	return buf;
}

/* Where the report's non-error lines go: stdout, or stderr for 'run'. */
static FILE *out_of(const struct cli_ctl *ctl)
{
	return ctl->to_stderr ? stderr : stdout;
}

static const struct cli_col plan_cols[] = {
	{ "TARGET", 0.4, 0, CLI_COL_STR, "what changes: a task, sysctl or cgroup" },
	{ "ATTRIBUTE", 0.2, 0, CLI_COL_STR, "which value" },
	{ "FROM", 0.1, SCOLS_FL_RIGHT, CLI_COL_STR, "the current value" },
	{ "TO", 0.1, SCOLS_FL_RIGHT, CLI_COL_STR, "the new value" },
	{ "FAST_PATH", 0.1, 0, CLI_COL_STR, "whether the change enables the uclamp fast path" },
};

void cli_print_plan(const struct uc_plan *plan, FILE *f)
{
	struct cli_out_opts o = { .raw = false };
	struct uc_plan_it it = { 0 };
	struct cli_table t;
	char b1[256], b2[64];

	if (cli_table_init(&t, "plan", plan_cols, 5, "TARGET,ATTRIBUTE,FROM,TO,FAST_PATH", &o,
			   NULL))
		 return;

	for (const struct uc_change *c; (c = uc_plan_next(plan, &it));) {
		struct libscols_line *ln = cli_table_line(&t, NULL);

		cli_table_set(&t, ln, 0, uc_change_target(c, b1, sizeof(b1)));
		cli_table_set(&t, ln, 1, uc_attr_name(c->kind, c->attr));
		cli_table_set(&t, ln, 2, uc_change_value(c, c->from, b2, sizeof(b2)));
		cli_table_set(&t, ln, 3, uc_change_value(c, c->to, b2, sizeof(b2)));
		cli_table_set(&t, ln, 4, c->flips ? "enables" : "-");
	}
	fflush(stdout);
	cli_table_print(&t, f);
	cli_table_free(&t);
}

/* ---- asking at the terminal --------------------------------------------------- */

/* The plan above the question, cut to its first PROMPT_PLAN_ROWS rows, its
 * tasks named as --dry-run names them (a large plan reads no names while
 * planning: these few are read now). */
#define PROMPT_PLAN_ROWS 10
static void plan_head(const struct uc_plan *plan)
{
	struct uc_change rows[PROMPT_PLAN_ROWS];
	char names[PROMPT_PLAN_ROWS][16];
	struct uc_plan head = { .rec = rows };
	struct uc_plan_it it = { 0 };
	const struct uc_change *c;

	while (head.nrec < PROMPT_PLAN_ROWS && (c = uc_plan_next(plan, &it))) {
		struct uc_change *row = &rows[head.nrec];

		*row = *c;
		if (row->kind == UC_KIND_TASK && !row->label &&
		    !uc_task_comm(row->pid, row->tid, names[head.nrec], sizeof(names[0])))
			row->label = names[head.nrec];
		head.n = ++head.nrec;
	}
	cli_print_plan(&head, stderr);
	if (plan->n > head.n)
		fprintf(stderr, "... and %zu more change(s) (--dry-run lists them all)\n",
			plan->n - head.n);
}

/* A write that reaches every task of every user says how far: in its
 * question, its refusal, or (--yes) a warning. */
static void wide_words(const char *what, const struct uc_plan *plan)
{
	size_t tasks = 0, users = 0;

	uc_plan_reach(plan, &tasks, &users);
	fflush(stdout);
	fprintf(stderr, "uclampctl: %s: this reaches every task of every user: %zu task(s) of "
		"%zu user(s)\n", what, tasks, users);
}

/* The guard's words: the library's fixed two lines, printed as they are
 * (cli_msg escapes every byte that is not printable, the line break too). */
static void guard_words(const char *what, enum uc_key_state key)
{
	fflush(stdout);
	fprintf(stderr, "uclampctl: %s: %s\n", what, uc_guard_warning(key));
}

/* What the run's callbacks share: the command, its planner, the question. */
struct fresh_ctx {
	struct cli_ctl *ctl;
	const struct cli_run *how;
};

static bool ask_yes(const struct uc_plan *plan, enum uc_key_state key, void *data)
{
	const struct fresh_ctx *fc = data;
	static unsigned asked;
	char line[32];

	if (asked++)
		fprintf(stderr, "uclampctl: the values changed while waiting for the answer, and "
			"the fresh plan needs consent again:\n");
	plan_head(plan);
	if (fc->how->wide)
		wide_words("warning", plan);
	if (uc_guard_cost(uc_plan_flips(plan), key))
		guard_words("warning", key);
	fputs("Continue? [y/N] ", stderr);
	fflush(stderr);
	if (!fgets(line, sizeof(line), stdin))
		return false;
	return !strcmp(line, "y\n") || !strcmp(line, "Y\n") || !strcmp(line, "yes\n");
}

static enum uc_key_state key_state(void *data)
{
	return cli_key_state_now(((const struct fresh_ctx *)data)->ctl);
}

static int fresh_plan(struct uc_plan *p, unsigned pass, void *data)
{
	struct fresh_ctx *fc = data;

	return fc->how->plan(fc->ctl, p, pass, fc->how->data);
}

static int fresh_lock(void *data)
{
	return cli_lock(((struct fresh_ctx *)data)->ctl);
}

static void fresh_unlock(void *data)
{
	(void)data;
	cli_unlock();
}

/* The command line as typed, for the record: an argument with a blank, a
 * quote or another shell character in single quotes. NULL: out of memory. */
static char *command_line(const struct cli_ctl *ctl)
{
	size_t len = sizeof("uclampctl");
	char *s, *d;

	for (int i = 1; i < ctl->argc; i++)
		len += 4 * strlen(ctl->argv[i]) + 3;
	s = d = malloc(len);
	if (!s)
		return NULL;
	d += sprintf(d, "uclampctl");
	for (int i = 1; i < ctl->argc; i++) {
		const char *a = ctl->argv[i];
		bool quote = !*a || a[strcspn(a, " \t\n'\"\\$`*?[]{}()<>|;&~#!")];

		*d++ = ' ';
		if (quote)
			*d++ = '\'';
		for (; *a; a++)
			if (*a == '\'' && quote)
				d += sprintf(d, "'\\''");
			else
				*d++ = *a;
		if (quote)
			*d++ = '\'';
	}
	*d = '\0';
	return s;
}

int cli_run_unrendered(struct cli_ctl *ctl, struct uc_plan *plan, const struct cli_run *how,
		 struct uc_report *r)
{
	struct fresh_ctx fc = { .ctl = ctl, .how = how };
	const struct uc_fresh f = {
		.plan = fresh_plan, .lock = fresh_lock, .unlock = fresh_unlock, .data = &fc,
	};
	char *cmdline = ctl->dry_run ? NULL : command_line(ctl);
	const struct uc_hist_note note = {
		.cmdline = cmdline, .undoes = how->undoes, .flags = how->wide ? UC_HIST_WIDE : 0,
	};
	struct uc_run_opts o = {
		.mode = how->mode,
		.dry_run = ctl->dry_run,
		.yes = ctl->yes || how->consent_from_config,
		.key_always = how->key_always || ctl->json,
		.wide = how->wide,
		/* -J never asks: a document on stdout is no conversation */
		.ask = how->may_ask && !ctl->json && isatty(STDIN_FILENO) &&
		       isatty(STDERR_FILENO) ? ask_yes : NULL,
		.key_state = key_state,
		.data = &fc,
		.stop = ctl->dry_run ? NULL : cli_catch_signals(),
		/* a dry run writes nothing: nothing to record */
		.record = ctl->dry_run ? NULL : &note,
	};
	int rc = uc_plan_run_fresh(plan, &f, &o, r);

	free(cmdline);
	return rc > 0 ? rc : 0;	/* a write's -errno is in the report */
}

/* ---- text --------------------------------------------------------------------- */

/* Whether the run is in the record ('uclampctl undo' can put it back). */
static void report_record(const struct cli_ctl *ctl, const struct uc_report *r)
{
	if (r->run_id && !r->record_err)
		cli_verbose(ctl, "recorded as run %u: 'uclampctl undo %u' puts it back", r->run_id,
			    r->run_id);
	else if (r->record_err == -ENOENT)	/* a user without a runtime directory */
		cli_verbose(ctl, "not recorded: %s", r->record_why);
	else if (r->record_err && r->run_id)
		cli_warnx(ctl, "the end of run %u is not recorded: %s", r->run_id, r->record_why);
	else if (r->record_err)
		cli_warnx(ctl, "not recorded, so 'uclampctl undo' cannot put this run back: %s",
			  r->record_why);
}

void cli_report_guard(const struct cli_ctl *ctl, const struct uc_report *r)
{
	switch (r->outcome) {
	case UC_RUN_REFUSED:
		if (r->wide)
			wide_words("refused", r->plan);
		if (uc_guard_cost(r->flips, r->key_before))
			guard_words("refused", r->key_before);
		cli_errx("nothing changed; consent with %s, or see the plan with --dry-run",
			 ctl->consent_hint ? ctl->consent_hint : "--yes");
		return;
	case UC_RUN_NOT_CONFIRMED:
		cli_errx("not confirmed: nothing changed");
		return;
	case UC_RUN_NOTHING:
	case UC_RUN_DRY:
	case UC_RUN_UNWRITABLE:
		return;
	case UC_RUN_OK:
	case UC_RUN_FAILED:
	case UC_RUN_INTERRUPTED:
		break;
	}
	if (r->replanned)
		cli_warnx(ctl, "the values changed while waiting for the answer: the plan was "
			  "made again from what was read under the lock, and that is what ran");
	/* consented with --yes: how far it reached, as the question would have said */
	if (r->wide && r->verdict != UC_GUARD_ASK && !ctl->quiet)
		wide_words("warning", r->plan);
	report_record(ctl, r);
	/* consent was given: one line (the cost is in the refusal and --help),
	 * the warning's first without its ':' */
	if (r->verdict == UC_GUARD_GO_WARN) {
		const char *w = uc_guard_warning(r->key_before);
		size_t len = strcspn(w, "\n");

		cli_warnx(ctl, "%.*s", (int)(len && w[len - 1] == ':' ? len - 1 : len), w);
	} else if (r->verdict == UC_GUARD_GO && r->flips)
		cli_verbose(ctl, "the uclamp fast path is already %s: no new cost",
			    uc_key_state_name(r->key_before));
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
static void report_failures(const struct uc_report *r)
{
	const struct uc_plan *plan = r->plan;
	struct uc_plan_it it = { 0 };
	const struct uc_change *c;
	char tb[256], eb[256];
	size_t shown = 0, more = 0;
	pid_t last = 0;		/* the TID of the task change before */

	if (!r->targets[UC_CH_FAILED] && !r->targets[UC_CH_ROLLBACK_FAILED])
		return;	/* no pass over 10,000 changes to find none */
	while ((c = uc_plan_next(plan, &it))) {
		bool same = c->kind == UC_KIND_TASK && last == c->tid;

		last = c->kind == UC_KIND_TASK ? c->tid : 0;
		if ((c->state != UC_CH_FAILED && c->state != UC_CH_ROLLBACK_FAILED) || same)
			continue;
		if (shown == MAX_FAILURE_LINES) {
			more++;
			continue;
		}
		shown++;
		if (c->state == UC_CH_FAILED) {
			char ab[128];
			const char *why;
			size_t len = 0;
			bool clears_rof = false;
			/* a task's attributes went to the kernel together: name them all */
			struct uc_plan_it at = it;
			const struct uc_change *k = c;

			for (; k && len < sizeof(ab); k = uc_plan_next(plan, &at)) {
				if (k != c && (k->kind != UC_KIND_TASK || k->tid != c->tid ||
					       c->kind != UC_KIND_TASK))
					break;
				len += (size_t)snprintf(ab + len, sizeof(ab) - len, "%s%s",
							k == c ? "" : ", ",
							uc_attr_name(k->kind, k->attr));
				clears_rof |= k->attr == UC_ATTR_RESET_ON_FORK && k->to == 0;
			}
			/* the kernel lets only CAP_SYS_NICE clear reset-on-fork,
			 * even on one's own task */
			if (clears_rof && c->err == -EPERM)
				why = "permission denied (clearing reset-on-fork needs "
				      "CAP_SYS_NICE, e.g. root)";
			else if (c->kind == UC_KIND_TASK && c->err == -EPERM && own_task(c->pid))
				why = "permission denied (needs CAP_SYS_NICE, which this process "
				      "lacks)";
			else
				why = cli_strerr(c->kind, c->err, eb, sizeof(eb));
			cli_errx("%s: %s: %s", uc_change_target(c, tb, sizeof(tb)), ab, why);
		} else {
			cli_errx("%s: %s: could not be restored to its old value: %s",
				 uc_change_target(c, tb, sizeof(tb)),
				 uc_attr_name(c->kind, c->attr),
				 cli_strerr(c->kind, c->err, eb, sizeof(eb)));
		}
	}
	if (more)
		cli_errx("... and %zu more failure(s) like these", more);
}

static void report_dry_run(const struct uc_report *r, FILE *f)
{
	enum uc_key_state key = r->key_before;

	cli_print_plan(r->plan, f);
	/* two lines: each fits in 80 columns */
	fprintf(f, "%zu to change, %zu unchanged\n", r->targets[UC_CH_PLANNED], r->unchanged);
	if (!r->flips)
		fprintf(f, "this plan does not enable the uclamp fast path\n");
	else if (key == UC_KEY_ON || key == UC_KEY_ALWAYS_ON)
		fprintf(f, "the uclamp fast path is already %s\n", uc_key_state_name(key));
	else if (key == UC_KEY_UNSUPPORTED)
		fprintf(f, "%s: cannot be applied\n", CLI_NO_UCLAMP);
	else
		fprintf(f, "this plan %s enable the uclamp fast path (sched_uclamp_used is %s)\n",
			key == UC_KEY_OFF ? "would" : "may", uc_key_state_name(key));
	fprintf(f, "dry run: nothing changed\n");
}

/* "SIGINT", for messages and JSON */
static const char *sig_name(int sig)
{
	switch (sig) {
	case SIGINT: return "SIGINT";
	case SIGTERM: return "SIGTERM";
	case SIGHUP: return "SIGHUP";
	}
	return "a signal";
}

static void report_interrupted(const struct cli_ctl *ctl, const struct uc_report *r, FILE *f)
{
	if (r->mode == UC_EXEC_ATOMIC) {
		cli_errx("interrupted by %s: the write under way finished, then %zu change(s) were "
			 "undone%s: nothing changed%s",
			 sig_name(r->stopped_by), r->targets[UC_CH_ROLLED_BACK],
			 r->targets[UC_CH_ROLLBACK_FAILED] ?
			 ", some could NOT be undone (see above)" : "",
			 r->flips && r->targets[UC_CH_ROLLED_BACK] ?
			 "; the fast path, if enabled, stays on until reboot" : "");
	} else {
		cli_errx("interrupted by %s: stopped after the write under way; %zu target(s) not "
			 "attempted; the changes made stay",
			 sig_name(r->stopped_by), r->targets[UC_CH_SKIPPED]);
		if (!ctl->quiet)
			fprintf(f, "changed %zu, unchanged %zu, gone %zu, "
				"failed %zu, not attempted %zu\n",
				r->targets[UC_CH_DONE], r->unchanged, uc_report_gone(r),
				uc_report_failed(r), r->targets[UC_CH_SKIPPED]);
	}
	if (cli_signals_caught() > 1)
		cli_errx("%d more signal(s) came while stopping: noted; the run completed its undo "
			 "and report first", cli_signals_caught() - 1);
}

/* The summary of a run that went as asked: not for 'run' unless -v (its
 * stderr is CMD's, which starts right after: a wrapper such as nice(1) says
 * nothing when all is well). */
static bool summary(const struct cli_ctl *ctl)
{
	return !ctl->quiet && (!ctl->to_stderr || ctl->verbose);
}

void cli_report_text(const struct cli_ctl *ctl, const struct uc_report *r)
{
	FILE *f = out_of(ctl);

	switch (r->outcome) {
	case UC_RUN_NOTHING:
		if (r->failed) {
			cli_errx("nothing changed: %zu target(s) refused or unreadable (see "
				 "above), %zu already at the requested values",
				 r->failed, r->unchanged);
			return;
		}
		if (summary(ctl)) {
			fflush(stdout);
			fprintf(f, "nothing to change (%zu already at the requested values%s)\n",
				r->unchanged, r->gone ? ", some exited" : "");
		}
		return;
	case UC_RUN_DRY:
		report_dry_run(r, f);
		return;
	case UC_RUN_REFUSED:
	case UC_RUN_NOT_CONFIRMED:
		return;
	case UC_RUN_UNWRITABLE:
		report_failures(r);
		cli_errx("refused: %zu target(s) cannot be written (checked before anything was "
			 "written, so the fast path was not enabled): nothing changed",
			 r->targets[UC_CH_FAILED]);
		return;
	case UC_RUN_OK:
	case UC_RUN_FAILED:
	case UC_RUN_INTERRUPTED:
		break;
	}
	report_failures(r);
	if (r->outcome == UC_RUN_INTERRUPTED) {
		report_interrupted(ctl, r, f);
		return;
	}
	if (r->outcome == UC_RUN_FAILED) {
		cli_errx("failed: %zu change(s) undone%s%s", r->targets[UC_CH_ROLLED_BACK],
			 r->targets[UC_CH_ROLLBACK_FAILED] ?
			 ", some could NOT be undone (see above)" : "",
			 r->flips ? "; the fast path, if enabled, stays on until reboot" : "");
		return;
	}
	if (summary(ctl))
		fprintf(f, "changed %zu, unchanged %zu, gone %zu, failed %zu\n",
			r->targets[UC_CH_DONE], r->unchanged, uc_report_gone(r),
			uc_report_failed(r));
}

/* ---- JSON --------------------------------------------------------------------- */

#define ST(s) (1u << (s))

/* A value as a number: capacity units for tasks and sysctls (-1: the
 * default), percent for a cgroup's file (max: 100), true/false for flags,
 * CPUWeight (null: not set). */
static void json_value(struct cli_json *j, const char *key, const struct uc_change *c, long v)
{
	if (c->attr == UC_ATTR_RESET_ON_FORK || c->attr == UC_ATTR_CPU_CONTROLLER)
		cli_json_bool(j, key, v);
	else if (c->kind == UC_KIND_SYSTEMD && v < 0)
		cli_json_str(j, key, NULL);
	else if (c->kind == UC_KIND_CGROUP)
		cli_json_double(j, key, (double)v / 100);
	else
		cli_json_int(j, key, v);
}

/* "ok", "nothing", "dry-run", ...: what happened to the run */
static const char *outcome_name(enum uc_run_outcome o)
{
	static const char *const names[] = { "nothing", "dry-run", "refused", "not-confirmed",
					     "unwritable", "ok", "failed", "interrupted" };

	return UC_NAME(names, o, "?");
}

static void json_change(struct cli_json *j, const struct uc_change *c, bool with_err)
{
	char b[256];

	cli_json_open(j, NULL, '{', true);
	cli_json_str(j, "target", uc_change_target(c, b, sizeof(b)));
	cli_json_str(j, "kind", uc_kind_name(c->kind));
	cli_json_str(j, "attribute", uc_attr_name(c->kind, c->attr));
	json_value(j, "from", c, c->from);
	json_value(j, "to", c, c->to);
	if (c->kind == UC_KIND_TASK) {
		cli_json_int(j, "pid", c->pid);
		cli_json_int(j, "tid", c->tid);
	}
	cli_json_bool(j, "enables_fast_path", c->flips);
	if (with_err) {
		cli_json_str(j, "state", uc_change_state_name(c->state));
		cli_json_str(j, "error", cli_strerr(c->kind, c->err, b, sizeof(b)));
	}
	cli_json_close(j, '}');
}

/* The changes whose state is in 'want' (a mask of ST(state)). */
static void json_list(struct cli_json *j, const char *name, const struct uc_plan *p, unsigned want,
		      bool with_err)
{
	struct uc_plan_it it = { 0 };
	const struct uc_change *c;

	cli_json_open(j, name, '[', false);
	while (p && (c = uc_plan_next(p, &it)))
		if (want & ST(c->state))
			json_change(j, c, with_err);
	cli_json_close(j, ']');
}

void cli_report_json(struct cli_json *j, const struct cli_ctl *ctl, const struct uc_report *r,
		     const char *mode)
{
	const struct uc_plan *p = r->plan;
	/* a run: what was written and stays; a dry run: what would be */
	unsigned kept = r->outcome == UC_RUN_DRY ? ST(UC_CH_PLANNED)
						  : ST(UC_CH_DONE) | ST(UC_CH_ROLLBACK_FAILED);
	struct uc_plan_it it = { 0 };
	const struct uc_change *c;
	bool changed = false;

	while (!changed && p && (c = uc_plan_next(p, &it)))
		changed = kept & ST(c->state);
	cli_json_str(j, "command", ctl->cmd);
	cli_json_bool(j, "changed", changed);
	cli_json_str(j, "mode", mode ? mode : ctl->dry_run ? "dry-run" : "write");
	cli_json_str(j, "outcome", outcome_name(r->outcome));
	json_list(j, "changes", p, kept, false);
	json_list(j, "failed", p, ST(UC_CH_FAILED) | ST(UC_CH_ROLLBACK_FAILED), true);
	json_list(j, "rolled_back", p, ST(UC_CH_ROLLED_BACK), false);
	cli_json_int(j, "unchanged", (long long)r->unchanged);
	cli_json_int(j, "gone", (long long)uc_report_gone(r));
	cli_json_open(j, "fast_path", '{', true);
	/* not read (nothing could enable it): null, as in status -J */
	cli_json_str(j, "before", r->key_read ? uc_key_state_name(r->key_before) : NULL);
	cli_json_str(j, "after", r->key_read ? uc_key_state_name(r->key_after) : NULL);
	cli_json_close(j, '}');
	cli_json_bool(j, "enables_fast_path", r->flips);
	/* the record's number: 'uclampctl undo RUN' */
	cli_json_num(j, "run", r->run_id ? (long long)r->run_id : -1);
	if (r->outcome == UC_RUN_INTERRUPTED) {
		cli_json_str(j, "interrupted", sig_name(r->stopped_by));
		cli_json_int(j, "not_attempted", (long long)r->targets[UC_CH_SKIPPED]);
	}
}

/* The report as one JSON document (-J of a write command), on stdout (run: stderr). */
static void report_json_doc(const struct cli_ctl *ctl, const struct uc_report *r,
			    const struct cli_run *how)
{
	FILE *f = out_of(ctl);
	struct cli_json j;

	fflush(stdout);
	cli_json_begin(&j, f, 3);
	cli_report_json(&j, ctl, r, NULL);
	if (how->json)
		how->json(&j, how->data);
	cli_json_end(&j);
	fflush(f);
}

/* ---- the exit code --------------------------------------------------------------- */

/* EOPNOTSUPP from the kernel: no uclamp for this target, exit 4. */
static bool any_notsupp(const struct uc_plan *p)
{
	struct uc_plan_it it = { 0 };
	const struct uc_change *c;

	while ((c = uc_plan_next(p, &it)))
		if (c->state == UC_CH_FAILED && c->err == -EOPNOTSUPP)
			return true;
	return false;
}

int cli_report_exit(const struct uc_report *r)
{
	switch (r->outcome) {
	case UC_RUN_NOTHING:
		return r->failed ? CLI_EXIT_FAIL : CLI_EXIT_OK;
	case UC_RUN_DRY:
		return CLI_EXIT_OK;
	case UC_RUN_REFUSED:
	case UC_RUN_NOT_CONFIRMED:
		return CLI_EXIT_REFUSED;
	case UC_RUN_INTERRUPTED:
		return CLI_EXIT_SIGNAL + r->stopped_by;
	case UC_RUN_OK:
	case UC_RUN_FAILED:
		if (!uc_report_failed(r))
			return CLI_EXIT_OK;
		break;
	case UC_RUN_UNWRITABLE:
		break;
	}
	return any_notsupp(r->plan) ? CLI_EXIT_NOTSUPP : CLI_EXIT_FAIL;
}

int cli_run_plan(struct cli_ctl *ctl, const struct cli_run *how)
{
	struct uc_report r;
	struct uc_plan plan;
	int rc;

	uc_plan_init(&plan);
	rc = cli_run_unrendered(ctl, &plan, how, &r);
	if (!rc) {
		cli_report_guard(ctl, &r);
		if (ctl->json)
			report_json_doc(ctl, &r, how);
		else
			cli_report_text(ctl, &r);
		rc = cli_report_exit(&r);
	}
	uc_plan_free(&plan);
	return rc;
}
