/*
 * uclampctl run: set clamps on ourselves, then exec the command. Clamps
 * survive exec and are inherited by children (unless reset-on-fork).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/task.h"

enum { OPT_MIN = 256, OPT_MAX, OPT_ROF };

static void usage(void)
{
	printf("Usage:\n uclampctl run [--min V] [--max V] [--reset-on-fork] "
	       "[options] [--] CMD [ARGS...]\n\n"
	       "Run a command with clamps: set them on this process, then execute CMD,\n"
	       "which keeps them, and so do its children (unless --reset-on-fork).\n"
	       "Setting a clamp enables the uclamp fast path until reboot (asks first on\n"
	       "a terminal; otherwise needs --yes). Messages go to stderr, so CMD's output\n"
	       "stays its own.\n\n"
	       "Options:\n"
	       "     --min <value>      the requested minimum (util_min)\n"
	       "     --max <value>      the requested maximum (util_max)\n"
	       "     --reset-on-fork    CMD's children start at the default clamps\n"
	       CLI_WRITE_OPTS_HELP
	       "                        (with --dry-run, CMD is not run)\n"
	       " -h, --help             display this help\n\n"
	       "Values: %s.\n"
	       "Exit status: CMD's, or 126 when CMD cannot be executed, 127 when it is not\n"
	       "found; 2-4 as for every command when the clamps cannot be set (CMD does\n"
	       "not run then).\n",
	       uc_value_forms);
}

int cmd_run(struct cli_ctl *ctl, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "min", required_argument, NULL, OPT_MIN },
		{ "max", required_argument, NULL, OPT_MAX },
		{ "reset-on-fork", no_argument, NULL, OPT_ROF },
		CLI_WRITE_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	struct uc_task_want want = { .min = UC_KEEP, .max = UC_KEEP, .reset_on_fork = UC_KEEP };
	pid_t self = getpid();
	struct uc_selector sel = { .pids = &self, .npids = 1 };
	int c, rc;

	opterr = 0;
	/* '+': options end at CMD, whose own options are left alone */
	while ((c = getopt_long(argc, argv, "+:ynh", longopts, NULL)) != -1) {
		if (cli_write_opt(ctl, c))
			continue;
		switch (c) {
		case OPT_MIN: want.min = cli_util_or_err(ctl, "--min", optarg); break;
		case OPT_MAX: want.max = cli_util_or_err(ctl, "--max", optarg); break;
		case OPT_ROF: want.reset_on_fork = 1; break;
		case 'h':
			usage();
			return CLI_EXIT_OK;
		default:
			cli_bad_option(ctl, c, argv);
		}
	}
	if (optind >= argc)
		cli_usage_error(ctl, "no command to run: give CMD [ARGS...] after the options");
	if (want.min == UC_KEEP && want.max == UC_KEEP && want.reset_on_fork == UC_KEEP)
		cli_usage_error(ctl, "nothing to set: give --min, --max and/or "
				"--reset-on-fork before CMD");
	if (want.min >= 0 && want.max >= 0 && want.min > want.max)
		cli_usage_error(ctl, "--min %d is above --max %d: the kernel requires min <= max",
				want.min, want.max);

	rc = cli_task_support(ctl);
	if (rc)
		return rc;
	sel.need_comm = ctl->dry_run;
	cli_task_explain_reset(ctl, &want);
	ctl->to_stderr = true;	/* the report goes to stderr: stdout belongs to CMD */
	rc = cli_task_plan_and_run(ctl, &sel, &want);
	if (rc || ctl->dry_run)
		return rc;
	/* a signal after the clamps were set (handlers are still ours): CMD does not start */
	if (cli_signals_caught()) {
		int sig = *cli_catch_signals();

		cli_errx("interrupted before '%s' started: not run", argv[optind]);
		return CLI_EXIT_SIGNAL + sig;
	}

	execvp(argv[optind], argv + optind);
	rc = errno;
	cli_errx("cannot run '%s': %s", argv[optind], strerror(rc));
	/* util-linux errexec(): 127 not found, 126 found but not runnable */
	return rc == ENOENT ? CLI_EXIT_EXEC_ENOENT : CLI_EXIT_EXEC_FAIL;
}
