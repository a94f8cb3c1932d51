/* Shared by 'task set/reset' and 'run' (defined in src/cmd/task.c). */
#ifndef UCLAMPCTL_CMD_TASK_H
#define UCLAMPCTL_CMD_TASK_H

#include "cmd/common.h"
#include "uclamp/tasks.h"

/* The options that say what a task gets ('task set' and 'run'). */
enum { CLI_OPT_ROF = 0x210, CLI_OPT_NO_ROF };
#define CLI_WANT_LONGOPTS \
	CLI_CLAMP_LONGOPTS, \
	{ "reset-on-fork", no_argument, NULL, CLI_OPT_ROF }, \
	{ "no-reset-on-fork", no_argument, NULL, CLI_OPT_NO_ROF }
/* One of them into want (a struct uc_rule; as cli_opts.own): false when c is none of them. */
bool cli_want_opt(struct cli_ctl *ctl, int c, const char *arg, void *want);
/* After parsing: something to set, and min <= max; else a usage error. */
void cli_want_check(const struct cli_ctl *ctl, const struct uc_rule *want, const char *where);

/*
 * The selector options of 'task show/set/reset' and 'top': the selector
 * table's rows (selectors.h), --all and PIDs, parsed into one rule (its
 * values too, for set).
 */
struct cli_sel {
	struct uc_rule rule;
	pid_t *pids;
	size_t npids;
	bool all;
	const struct uc_sel_def *first_filter;	/* the first selector given, for messages */
};
void cli_sel_init(struct cli_sel *a);
void cli_sel_free(struct cli_sel *a);
/* own (NULL-ended) first, then the selectors and --all; one static array */
const struct option *cli_sel_longopts(const struct option *own);
void cli_sel_help(void);	/* their --help lines */
/* One of them into sel, a struct cli_sel (as cli_opts.own: false when c is none of
 * them); a bad value exits 2. */
bool cli_sel_opt(struct cli_ctl *ctl, int c, const char *arg, void *sel);
/* PIDs from argv[optind..]: with neither PIDs nor --all, every process when
 * default_all, else a usage error. */
void cli_sel_pids(const struct cli_ctl *ctl, struct cli_sel *a, int argc, char **argv,
		  bool default_all);
/* Per-task clamps can be read here (cli_task_support) and every PID given
 * exists: 0, or the exit code after saying why not (naming the missing PIDs). */
int cli_sel_ready(const struct cli_ctl *ctl, const struct cli_sel *a, bool writes);

/* Per-task clamps need this PID namespace's /proc (cli_procns_check, exit 1)
 * and CONFIG_UCLAMP_TASK: 0 when both are there, else print why (sched_getattr
 * would only show zeros there) and return CLI_EXIT_NOTSUPP. */
int cli_task_support(const struct cli_ctl *ctl);

/* Explains (once) what 'default' does on a kernel before 5.11. */
void cli_task_explain_reset(const struct cli_ctl *ctl, const struct uc_rule *want);

/* How 'task set/reset' and 'run' run their plan. */
struct cli_task_how {
	unsigned flags;		/* UC_WALK_* */
	bool wide;		/* --all without a selector: every task of every user */
	const char *as;		/* run: the name the task will have (CMD's), else NULL */
};

/* Plan the one rule want (its selectors and values) over pids (none: every
 * process), explaining refused tasks and a missing PID; runs the plan best
 * effort and returns the exit code (4 when the kernel said EOPNOTSUPP). */
int cli_task_plan_and_run(struct cli_ctl *ctl, const struct uc_rule *want, const pid_t *pids,
			  size_t npids, const struct cli_task_how *how);

#endif
