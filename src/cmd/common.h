/* The CLI layer: the only code that prints and exits. */
#ifndef UCLAMPCTL_CMD_COMMON_H
#define UCLAMPCTL_CMD_COMMON_H

#include <stdbool.h>
#include <stdio.h>
#include <stdnoreturn.h>
#include <sys/types.h>

#include "uclamp/apply.h"
#include "uclamp/guard.h"
#include "uclamp/output.h"
#include "uclamp/plan.h"
#include "uclamp/value.h"

/* Exit codes, all commands (check has its own, see cmd/check.c). */
enum {
	UC_EXIT_OK = 0,
	UC_EXIT_FAIL = 1,	/* the operation failed (in part) */
	UC_EXIT_USAGE = 2,	/* usage error or invalid value */
	UC_EXIT_REFUSED = 3,	/* would enable the uclamp fast path, no consent */
	UC_EXIT_NOTSUPP = 4,	/* the kernel lacks uclamp (or the needed part) */
	UC_EXIT_EXEC_FAIL = 126,/* run: CMD found but not runnable */
	UC_EXIT_EXEC_ENOENT = 127,
};

/* The one control struct: global options, then what each command parses. */
struct uc_ctl {
	const char *cmd;	/* "task set", for messages */
	int verbose;
	bool quiet;
	bool yes;		/* -y/--yes: consent to enabling the fast path */
	bool dry_run;		/* -n/--dry-run on write commands */
	struct uc_out_opts out;
	const char *consent_hint;	/* how to consent, for the refusal line; NULL = "--yes" */
};

struct uc_command {
	const char *name;
	int (*fn)(struct uc_ctl *ctl, int argc, char **argv);
	const char *help;
};

/* Dispatch argv[0] through a table of subcommands; usage errors exit 2. */
int uc_dispatch(struct uc_ctl *ctl, const char *group, const struct uc_command *cmds,
		int argc, char **argv);

/* Messages: "uclampctl: ..." on stderr. warnx respects -q. */
void uc_errx(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void uc_warnx(const struct uc_ctl *ctl, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void uc_info(const struct uc_ctl *ctl, const char *fmt, ...) __attribute__((format(printf, 2, 3)));	/* stdout, not with -q */
void uc_verbose(const struct uc_ctl *ctl, const char *fmt, ...) __attribute__((format(printf, 2, 3)));	/* stderr, only with -v */
/* Print "uclampctl: MSG" and "Try 'uclampctl CMD --help' for more information." and exit 2. */
noreturn void uc_usage_error(const struct uc_ctl *ctl, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* getopt_long with a leading ':' in optstring (or opterr = 0) returned c for a
 * bad option: one line naming it ("needs a value" / "unknown option"), exit 2. */
noreturn void uc_bad_option(const struct uc_ctl *ctl, int c, char **argv);

/* *_or_err parsers: print one line naming the input and the fix, exit 2. */
void uc_value_or_err(const struct uc_ctl *ctl, const char *opt, const char *s, struct uc_value *v);
pid_t uc_pid_or_err(const struct uc_ctl *ctl, const char *s);
int uc_policy_or_err(const struct uc_ctl *ctl, const char *s);
uid_t uc_user_or_err(const struct uc_ctl *ctl, const char *s);

/* Shared long options for listings (-o -J -r -n) and write commands (-y -n). */
#define UC_OUTPUT_OPTS_HELP \
	" -o, --output <list>    columns to show (see --list-columns), +LIST to add\n" \
	" -J, --json             JSON output\n" \
	" -r, --raw              raw output (no alignment)\n" \
	" -n, --noheadings       no header line\n"
#define UC_WRITE_OPTS_HELP \
	" -y, --yes              consent to enabling the uclamp fast path (needed when\n" \
	"                        not on a terminal)\n" \
	" -n, --dry-run          print the plan and change nothing\n"

/* The listing options every table command takes, for its struct option array
 * (--list-columns returns 'L'), and their handling: true when c was one of
 * -o -J -r -n (the caller handles 'L' with its own columns). */
#define UC_OUTPUT_LONGOPTS \
	{ "output", required_argument, NULL, 'o' }, \
	{ "json", no_argument, NULL, 'J' }, \
	{ "raw", no_argument, NULL, 'r' }, \
	{ "noheadings", no_argument, NULL, 'n' }, \
	{ "list-columns", no_argument, NULL, 'L' }
bool uc_output_opt(struct uc_ctl *ctl, int c, const char *arg);

/* A command group ("system", "cgroup", ...): no subcommand is a usage error
 * (usage to stderr, exit 2), -h/--help prints usage, else uc_dispatch(). */
int uc_dispatch_group(struct uc_ctl *ctl, const char *group, const struct uc_command *cmds,
		      void (*usage)(FILE *out), int argc, char **argv);

/* Print a table's -o column list with their help (for --list-columns). */
void uc_print_columns(const struct uc_col *cols, size_t n);
/* Set up a table from ctl->out; an unknown column is a usage error (exit 2). */
void uc_table_or_err(const struct uc_ctl *ctl, struct uc_table *t, const char *json_name,
		     const struct uc_col *cols, size_t ncols, const char *defaults);

/* The fast path's state, as the guard needs it (fastpath.c; -v explains). */
enum uc_key_state uc_key_state_now(const struct uc_ctl *ctl);

/*
 * The common tail of every write command: empty plan -> "nothing to change"
 * (exit 0); --dry-run -> print the plan, exit 0; guard (warn / ask / refuse,
 * exit 3); execute; print what happened (failures one line each, then a
 * summary). Returns the exit code. 'consent_from_config' counts as --yes.
 */
int uc_run_plan(struct uc_ctl *ctl, struct uc_plan *plan, enum uc_exec_mode mode,
		bool consent_from_config);

/*
 * The guard step alone: warn, ask (only when may_ask and on a terminal) or
 * refuse. Returns 0 to go on, or UC_EXIT_REFUSED after saying why.
 */
int uc_guard_or_refuse(const struct uc_ctl *ctl, const struct uc_plan *plan, enum uc_key_state key,
		       bool consent_from_config, bool may_ask);

/* Print the plan (what --dry-run shows) to stdout. */
void uc_print_plan(const struct uc_ctl *ctl, const struct uc_plan *plan);

/* A short reason for -errno on a target of this kind (EPERM -> the capability needed, ...). */
const char *uc_strerr(enum uc_kind kind, int err, char *buf, size_t n);

/* Commands (src/cmd/<name>.c). */
int cmd_task(struct uc_ctl *ctl, int argc, char **argv);
int cmd_run(struct uc_ctl *ctl, int argc, char **argv);
int cmd_system(struct uc_ctl *ctl, int argc, char **argv);
int cmd_cgroup(struct uc_ctl *ctl, int argc, char **argv);
int cmd_status(struct uc_ctl *ctl, int argc, char **argv);
int cmd_check(struct uc_ctl *ctl, int argc, char **argv);
int cmd_keys(struct uc_ctl *ctl, int argc, char **argv);
int cmd_apply(struct uc_ctl *ctl, int argc, char **argv);
int cmd_watch(struct uc_ctl *ctl, int argc, char **argv);

#endif
