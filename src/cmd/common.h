/* The CLI layer: the only code that prints and exits. */
#ifndef UCLAMPCTL_CMD_COMMON_H
#define UCLAMPCTL_CMD_COMMON_H

#include <stdbool.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdnoreturn.h>
#include <sys/types.h>

#include "uclamp/guard.h"
#include "cmd/json.h"
#include "cmd/output.h"
#include "uclamp/plan.h"
#include "uclamp/plan_run.h"
#include "uclamp/value.h"

/* Exit codes, all commands (check has its own, see cmd/check.c). */
enum {
	CLI_EXIT_OK = 0,
	CLI_EXIT_FAIL = 1,	/* the operation failed (in part) */
	CLI_EXIT_USAGE = 2,	/* usage error or invalid value */
	CLI_EXIT_REFUSED = 3,	/* would enable the uclamp fast path, no consent */
	CLI_EXIT_NOTSUPP = 4,	/* the kernel lacks uclamp (or the needed part) */
	CLI_EXIT_SKIPPED = 5,	/* apply: the rest applied, some targets skipped */
	CLI_EXIT_EXEC_FAIL = 126,/* run: CMD found but not runnable */
	CLI_EXIT_EXEC_ENOENT = 127,
	/* + the signal: interrupted (130 SIGINT, 143 SIGTERM, 129 SIGHUP) */
	CLI_EXIT_SIGNAL = 128,
};

/* The one control struct: global options, then what each command parses. */
struct cli_ctl {
	const char *cmd;	/* "task set", for messages */
	int verbose;
	bool quiet;
	bool yes;		/* -y/--yes: consent to enabling the fast path */
	bool dry_run;		/* -n/--dry-run on write commands */
	struct cli_out_opts out;
	const char *consent_hint;	/* how to consent, for the refusal line; NULL = "--yes" */
	bool to_stderr;		/* run: reports go to stderr, stdout is CMD's */
	int wait_s;		/* --wait: how long a writer waits for the lock */
	int format;		/* --format/-J: an index in the command's cli_opts.formats */
	bool format_given;
	bool json;		/* -J on a write command: its report as JSON (never asks) */
	int argc;		/* the command line as typed: the record names a run by it */
	char **argv;
};

struct cli_command {
	const char *name;
	int (*fn)(struct cli_ctl *ctl, int argc, char **argv);
	const char *help;
	const char *synopsis;	/* after "uclampctl GROUP NAME"; '\n' between alternatives */
};

/* ---- messages and dispatch (src/cmd/common.c) ---- */

/* Dispatch argv[0] through a table of subcommands; usage errors exit 2. */
int cli_dispatch(struct cli_ctl *ctl, const char *group, const struct cli_command *cmds,
		int argc, char **argv);

/* Messages, one line each. */
enum cli_msg_kind {
	CLI_MSG_ERROR,		/* "uclampctl: ..." on stderr, always */
	CLI_MSG_WARNING,	/* "uclampctl: warning: ..." on stderr, not with -q */
	CLI_MSG_INFO,		/* stdout (stderr for 'run'), not with -q */
	CLI_MSG_VERBOSE,	/* "uclampctl: ..." on stderr, only with -v */
};
void cli_msg(const struct cli_ctl *ctl, enum cli_msg_kind kind, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
#define cli_errx(...) cli_msg(NULL, CLI_MSG_ERROR, __VA_ARGS__)
#define cli_warnx(ctl, ...) cli_msg(ctl, CLI_MSG_WARNING, __VA_ARGS__)
#define cli_info(ctl, ...) cli_msg(ctl, CLI_MSG_INFO, __VA_ARGS__)
#define cli_verbose(ctl, ...) cli_msg(ctl, CLI_MSG_VERBOSE, __VA_ARGS__)
/* A library the command needs cannot be loaded (dlib.h's handler): one line,
 * exit cli_lib_exit (1; check's 3). Nothing was written yet. */
extern int cli_lib_exit;
noreturn void cli_lib_missing(const char *soname, const char *what, const char *why);
/* The one wording for a kernel without uclamp, "...: WHY"; returns 4. */
#define CLI_NO_UCLAMP "this kernel has no uclamp (CONFIG_UCLAMP_TASK, Linux 5.3+)"
int cli_no_uclamp(const char *why_fmt, ...) __attribute__((format(printf, 1, 2)));
/* "out of memory" on stderr; returns 1 (CLI_EXIT_FAIL). */
int cli_oom(void);
/* One line: prefix, the text escaped (uc_escape_name), newline, wrapped at
 * spaces to width columns, the lines after the first indented as far as the
 * prefix (width 0: one line). Every text line that can carry a name from
 * /proc or cgroupfs goes through here. */
void cli_vline_width(FILE *f, const char *prefix, int width, const char *fmt, va_list ap)
	__attribute__((format(printf, 4, 0)));
void cli_line(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* f's terminal width in columns; 0 when f is not a terminal. */
int cli_term_width(FILE *f);
/* A Prometheus metric's "# HELP" and "# TYPE" lines (type: "gauge", "counter", ...)
 * on stdout; a gauge's with its one sample, "NAME V". */
void cli_prom_head(const char *name, const char *help, const char *type);
void cli_prom_gauge(const char *name, const char *help, long long v);
/* Print "uclampctl: MSG" and "Try 'uclampctl CMD --help' for more information." and exit 2. */
noreturn void cli_usage_error(const struct cli_ctl *ctl, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* "Usage:" and one " uclampctl CMD SYNOPSIS" line per alternative of the synopsis. */
void cli_usage_head(FILE *out, const char *cmd, const char *synopsis);

/* A command group ("system", ...): its usage from the table (synopses, about,
 * details, the commands); no subcommand: usage error; else cli_dispatch(). */
int cli_dispatch_group(struct cli_ctl *ctl, const char *group, const struct cli_command *cmds,
		       const char *about, const char *details, int argc, char **argv);

/* ---- options (src/cmd/options.c) ---- */

/* The --help lines of the shared options (listing, writing, -h). */
#define CLI_OUTPUT_OPTS_HELP \
	" -o, --output <list>    columns to show (see --list-columns), +LIST to add\n" \
	" -J, --json             JSON output\n" \
	" -r, --raw              raw output (no alignment)\n" \
	" -n, --noheadings       no header line\n" \
	"     --list-columns     list the columns for --output\n"
#define CLI_HELP_OPTS_HELP \
	" -h, --help             display this help\n"
#define CLI_WRITE_OPTS_HELP \
	" -y, --yes              consent to enabling the uclamp fast path, and to a\n" \
	"                        change of every user's tasks (needed without a terminal)\n" \
	" -n, --dry-run          print the plan and change nothing\n" \
	" -J, --json             print the report as JSON (never asks: --yes to consent)\n"

/* The global options -q, -v, --wait, -V, before the command or after it (as
 * systemctl): no command may use q, v or V; -h after a command is its help. */
#define CLI_GLOBAL_SHORTOPTS "qvV"
#define CLI_OPT_WAIT 'w'		/* long-only: --wait */
#define CLI_GLOBAL_LONGOPTS \
	{ "quiet", no_argument, NULL, 'q' }, \
	{ "verbose", no_argument, NULL, 'v' }, \
	{ "wait", required_argument, NULL, CLI_OPT_WAIT }, \
	{ "version", no_argument, NULL, 'V' }
/* A global option c: set it in ctl (-V prints the version and exits 0);
 * false when c is none of them. */
bool cli_global_opt(struct cli_ctl *ctl, int c, const char *arg);

#define CLI_OPT_LIST_COLUMNS 'L'	/* long-only: --list-columns */
#define CLI_OPT_FORMAT 'F'		/* long-only: --format */
enum { CLI_OPT_MIN = 0x200, CLI_OPT_MAX };	/* --min, --max: every writer */

/* Which shared options a command takes; cli_parse_opts handles them. */
enum {
	CLI_OPTS_OUTPUT = 1 << 0,	/* -o -J -r -n --list-columns: into ctl->out */
	/* -y -n -J: ctl->yes, ctl->dry_run, ctl->json (-J is FORMAT's when both) */
	CLI_OPTS_WRITE = 1 << 1,
	CLI_OPTS_FORMAT = 1 << 2,	/* -J, --format WORD: ctl->format */
};

/* --min and --max, for the struct option array of a command that writes clamps */
#define CLI_CLAMP_LONGOPTS \
	{ "min", required_argument, NULL, CLI_OPT_MIN }, \
	{ "max", required_argument, NULL, CLI_OPT_MAX }

/* A command's own long options, for cli_opts.longopts: CLI_LONGOPTS({ ... }, ...) */
#define CLI_LONGOPTS(...) ((const struct option[]){ __VA_ARGS__, { NULL, 0, NULL, 0 } })

/* A command's options. */
struct cli_opts {
	const char *shortopts;		/* its own ("Rp:"): the groups' and h are added */
	bool stop_at_arg;		/* options end at the first argument (run: CMD's) */
	const struct option *longopts;	/* its own long ones, NULL-ended: the groups' are added */
	unsigned shared;		/* CLI_OPTS_* */
	/* the command's own option c: false when c is none of them (a usage error) */
	bool (*own)(struct cli_ctl *ctl, int c, const char *arg, void *data);
	void (*usage)(void);		/* -h, --help */
	const struct cli_col *cols;	/* CLI_OPTS_OUTPUT: --list-columns prints these */
	size_t ncols;
	const char *const *formats;	/* CLI_OPTS_FORMAT: --format's words, NULL-ended */
	const char *no_args;		/* set: positional arguments are refused, with this fix */
};

/* Parse argv: the shared groups, then o->own(); a bad option is one line and
 * exit 2; -h and --list-columns answer and exit 0. */
void cli_parse_opts(struct cli_ctl *ctl, int argc, char **argv, const struct cli_opts *o,
		    void *data);
/* The long name of option c ("min"), for messages. */
const char *cli_opt_name(const struct option *longopts, int c);

/* *_or_err parsers: print one line naming the input and the fix, exit 2. */
void cli_value_or_err(const struct cli_ctl *ctl, const char *opt, const char *s,
		      struct uc_value *v);
/* The same, for an option whose value is wanted in capacity units (v.util). */
int cli_util_or_err(const struct cli_ctl *ctl, const char *opt, const char *s);
pid_t cli_pid_or_err(const struct cli_ctl *ctl, const char *s);

/* Set up a table from ctl->out; an unknown column is a usage error (exit 2). */
void cli_table_or_err(const struct cli_ctl *ctl, struct cli_table *t, const char *json_name,
		     const struct cli_col *cols, size_t ncols, const char *defaults);

/* ---- running a plan and rendering its report (src/cmd/report.c) ---- */

/* The fast path's state, as the guard needs it (fastpath.c; -v explains). */
enum uc_key_state cli_key_state_now(const struct cli_ctl *ctl);

/* How a write command makes and runs its plan. */
struct cli_run {
	enum uc_exec_mode mode;
	bool consent_from_config;	/* allow-enable = yes counts as --yes */
	bool may_ask;			/* prompt on a terminal (-J never does) */
	bool key_always;		/* report the key's state even if the plan cannot flip it */
	/* reaches every task of every user (--all without a selector): says how
	 * many tasks and users, and asks (or needs --yes) whatever the key's state */
	bool wide;
	unsigned undoes;		/* undo: the run it puts back (for the record) */
	/* the plan from what the host holds now: pass 0, and again under the lock
	 * after a person answered; 0, or the exit code after saying why not */
	int (*plan)(struct cli_ctl *ctl, struct uc_plan *p, unsigned pass, void *data);
	/* -J: the command's own members after the report's; NULL: none */
	void (*json)(struct cli_json *j, void *data);
	void *data;			/* for plan() and json() */
};

/* Plan and run with the prompt, the lock (not held while a person answers) and
 * -v's key reader: 0 and r filled, or plan()'s or the lock's exit code. Free
 * *plan (the plan that ran) after the report. */
int cli_run_unrendered(struct cli_ctl *ctl, struct uc_plan *plan, const struct cli_run *how,
		 struct uc_report *r);
/* The guard's words on stderr: warning, refusal, "not confirmed". */
void cli_report_guard(const struct cli_ctl *ctl, const struct uc_report *r);
/* The report as text: "nothing to change", the dry-run plan, failures, the summary. */
void cli_report_text(const struct cli_ctl *ctl, const struct uc_report *r);
/* The report's members (command, mode, outcome, changes, failed, run, ...) into an
 * open JSON object; mode NULL: "write", or "dry-run" with --dry-run. */
void cli_report_json(struct cli_json *j, const struct cli_ctl *ctl, const struct uc_report *r,
		     const char *mode);
/* The exit code of a report: the one place that maps outcomes to codes. */
int cli_report_exit(const struct uc_report *r);

/* Every write command's tail: plan, run, the guard's words, the report. */
int cli_run_plan(struct cli_ctl *ctl, const struct cli_run *how);

/* ---- what a writer holds (src/cmd/writer.c) ---- */

#define CLI_LOCK_WAIT_DEFAULT 30	/* seconds, --wait */

/* Take the uclampctl lock (not for --dry-run), waiting up to ctl->wait_s with
 * one line naming the holder: 0, or CLI_EXIT_FAIL after saying why. Held until
 * exit or cli_unlock (before a question to a person). */
int cli_lock(const struct cli_ctl *ctl);
void cli_unlock(void);
/* SIGINT/SIGTERM/SIGHUP set the returned flag (to the first signal's number)
 * instead of killing: the run stops, undoes and reports. */
volatile sig_atomic_t *cli_catch_signals(void);
int cli_signals_caught(void);	/* how many came */

/* PIDs from /proc are ours only under our PID namespace's /proc: 0, or one
 * line saying to mount it and CLI_EXIT_FAIL. */
int cli_procns_check(void);

/* Print the plan (what --dry-run shows). */
void cli_print_plan(const struct uc_plan *plan, FILE *f);

/* A short reason for -errno on a target of this kind (EPERM -> the capability needed, ...). */
const char *cli_strerr(enum uc_kind kind, int err, char *buf, size_t n);

/* ---- the record of write runs (src/cmd/history.c) ---- */

struct uc_hist;
struct uc_hist_run;
struct uc_hist_change;
/* Load the caller's record (uc_hist_load): 0, or the exit code after one
 * line saying why it is not used (another user could have written it,
 * damaged, too large). */
int cli_hist_load(const struct cli_ctl *ctl, struct uc_hist *h);
/* The optional RUN after the options: its number, 0 when none given; more
 * than one, or not a run's number, is a usage error (exit 2). */
unsigned cli_run_arg_or_err(const struct cli_ctl *ctl, int argc, char **argv);
/* The run turned the fast path on (off before it, on after). */
bool cli_hist_flipped(const struct uc_hist_run *r);
/* A recorded change as a plan's change (its strings stay the record's). */
void cli_hist_change(const struct uc_hist_change *h, struct uc_change *c);

/* Commands (src/cmd/<name>.c). */
int cmd_task(struct cli_ctl *ctl, int argc, char **argv);
int cmd_top(struct cli_ctl *ctl, int argc, char **argv);
int cmd_run(struct cli_ctl *ctl, int argc, char **argv);
int cmd_system(struct cli_ctl *ctl, int argc, char **argv);
int cmd_cgroup(struct cli_ctl *ctl, int argc, char **argv);
int cmd_status(struct cli_ctl *ctl, int argc, char **argv);
int cmd_check(struct cli_ctl *ctl, int argc, char **argv);
int cmd_keys(struct cli_ctl *ctl, int argc, char **argv);
int cmd_apply(struct cli_ctl *ctl, int argc, char **argv);
/* apply after its options (also 'watch --oneshot'): load, check, plan and run
 * (check: compare only); the exit code. */
int cli_apply(struct cli_ctl *ctl, const char *const *configs, size_t nconfigs, bool check,
	      bool json);
int cmd_watch(struct cli_ctl *ctl, int argc, char **argv);
int cmd_history(struct cli_ctl *ctl, int argc, char **argv);
int cmd_undo(struct cli_ctl *ctl, int argc, char **argv);

#endif
