/* uclampctl - control utilization clamping (uclamp) safely. main: the global
 * options and the command table; each command lives in src/cmd/<name>.c. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/common.h"
#include "uclamp/dlib.h"

static const struct cli_command commands[] = {
	{ "status", cmd_status,
	  "show uclamp support, the fast path's state and what uclamp can affect", NULL },
	{ "check", cmd_check,
	  "exit 0 if the uclamp fast path is off, 1 on, 3 unknown, 4 no uclamp", NULL },
	{ "keys", cmd_keys, "show the scheduler static keys that gate fast-path cost", NULL },
	{ "task", cmd_task, "show, set or reset per-task clamps (sched_setattr)", NULL },
	{ "top", cmd_top, "watch util, clamps and CPU frequency live (reads only)", NULL },
	{ "run", cmd_run, "run a command with clamps", NULL },
	{ "system", cmd_system, "show or set the system-wide clamps (sysctls)", NULL },
	{ "cgroup", cmd_cgroup, "show or set cgroup clamps (cpu.uclamp.min/max)", NULL },
	{ "apply", cmd_apply, "apply or check a declarative configuration", NULL },
	{ "watch", cmd_watch, "keep the [tasks] rules true for processes that start later", NULL },
	{ "history", cmd_history, "list the write runs this boot, what each replaced", NULL },
	{ "undo", cmd_undo, "put back what a write run replaced", NULL },
	{ NULL, NULL, NULL, NULL },
};

static void usage(FILE *out)
{
	fputs("Usage:\n"
	      " uclampctl [options] <command> [<args>]\n"
	      "\n"
	      "Control utilization clamping (uclamp) for tasks, cgroups and the system,\n"
	      "without turning on the kernel's uclamp fast path by accident.\n"
	      "\n"
	      "Commands:\n", out);
	for (size_t i = 0; commands[i].name; i++)
		fprintf(out, " %-8s %s\n", commands[i].name, commands[i].help);
	fputs("\n"
	      "Options:\n"
	      " -q, --quiet     print only errors\n"
	      " -v, --verbose   say more (repeat for more)\n"
	      "     --wait <s>  how long a write waits for another uclampctl to finish\n"
	      "                 (the uclampctl lock; default 30, 0 = do not wait)\n"
	      " -h, --help      display this help\n"
	      " -V, --version   display version\n"
	      "These may also follow the command ('uclampctl status -v'), except -h:\n"
	      "there it shows the command's help.\n"
	      "\n"
	      "Values: 0..1024 capacity units, N% or N.NN% (0-100), max, default (or -1).\n"
	      "Exit status: 0 ok, 1 failed, 2 usage or invalid value, 3 refused (would\n"
	      "enable the uclamp fast path, or change every task of every user, without\n"
	      "consent), 4 the kernel lacks uclamp,\n"
	      "128+N interrupted by signal N (130 SIGINT, 143 SIGTERM): what was done\n"
	      "is undone (task changes: reported).\n"
	      "Run 'uclampctl <command> --help' for a command's options; see uclampctl(8).\n",
	      out);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		CLI_GLOBAL_LONGOPTS,
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct cli_ctl ctl = { .cmd = NULL, .wait_s = CLI_LOCK_WAIT_DEFAULT, .argc = argc };
	int c, rc;

	/* the command line as typed, for the record: getopt reorders argv */
	ctl.argv = malloc(((size_t)argc + 1) * sizeof(*ctl.argv));
	if (!ctl.argv) {
		fputs("uclampctl: out of memory\n", stderr);
		return CLI_EXIT_FAIL;
	}
	memcpy(ctl.argv, argv, ((size_t)argc + 1) * sizeof(*argv));
	uc_dlib_on_missing(cli_lib_missing);
	/* '+': stop at the command; its options are its own */
	while ((c = getopt_long(argc, argv, "+" CLI_GLOBAL_SHORTOPTS "h", longopts, NULL)) != -1) {
		if (cli_global_opt(&ctl, c, optarg))
			continue;
		if (c == 'h')
			usage(stdout);
		else
			fputs("Try 'uclampctl --help' for more information.\n", stderr);
		rc = c == 'h' ? CLI_EXIT_OK : CLI_EXIT_USAGE;
		goto out;
	}
	if (optind >= argc) {
		usage(stderr);
		rc = CLI_EXIT_USAGE;
		goto out;
	}
	rc = cli_dispatch(&ctl, NULL, commands, argc - optind, argv + optind);
out:
	free(ctl.argv);
	return rc;
}
