/*
 * uclampctl run: set clamps on ourselves, then exec the command. Clamps
 * survive exec and are inherited by children (unless reset-on-fork).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/task.h"
#include "uclamp/execcheck.h"

static void usage(void)
{
	printf("Usage:\n uclampctl run [--min V] [--max V] [--[no-]reset-on-fork] "
	       "[options] [--] CMD [ARGS...]\n\n"
	       "Run a command with clamps: set them on this process, then execute CMD,\n"
	       "which keeps them, and so do its children (unless --reset-on-fork).\n"
	       "Setting a clamp enables the uclamp fast path until reboot (asks first on\n"
	       "a terminal; otherwise needs --yes). Messages go to stderr, so CMD's output\n"
	       "stays its own; when all is well there are none (-v: the report).\n\n"
	       "Options:\n"
	       "     --min <value>      the requested minimum (util_min)\n"
	       "     --max <value>      the requested maximum (util_max)\n"
	       "     --reset-on-fork    CMD's children start at the default clamps\n"
	       "     --no-reset-on-fork CMD's children inherit its clamps (the default)\n"
	       CLI_WRITE_OPTS_HELP
	       "                        (with --dry-run, CMD is not run; -J: on stderr)\n"
	       CLI_HELP_OPTS_HELP
	       "\n"
	       "Values: %s.\n"
	       "CMD is looked up (in PATH unless it has a '/') before any clamp is set, and\n"
	       "what exec needs is checked: a script's #! interpreters, a binary's loader\n"
	       "(PT_INTERP), noexec mounts, the size of the arguments.\n"
	       "Exit status: CMD's, or 126 when CMD cannot be executed, 127 when it is not\n"
	       "found (nothing set then); 2-4 as for every command when the clamps cannot\n"
	       "be set (CMD does not run then).\n",
	       uc_value_forms);
}

/* Find CMD as execvp() will, before any clamp is written: a path with '/', else
 * each $PATH entry (unset: /bin:/usr/bin; empty: "."), a later one still after
 * EACCES or ENOENT, EACCES winning at the end; each checked for what execve()
 * needs up to its point of no return (uc_exec_check: the interpreters, the
 * loader, noexec, ...). 0 or execvp()'s errno, and why. */
static int exec_resolve(const char *cmd, struct uc_exec_why *why)
{
	const char *path = getenv("PATH");
	struct uc_exec_why w;
	char buf[PATH_MAX];
	int err = ENOENT;

	why->file[0] = '\0';
	why->role = NULL;
	if (!*cmd)
		return ENOENT;
	if (strchr(cmd, '/'))
		return -uc_exec_check(cmd, why);
	if (!path)
		path = "/bin:/usr/bin";
	for (const char *p = path;; p++) {
		const char *end = strchrnul(p, ':');
		int len = (int)(end - p), r;

		if (snprintf(buf, sizeof(buf), "%.*s%s%s", len, p, len ? "/" : "", cmd) <
		    (int)sizeof(buf)) {
			r = -uc_exec_check(buf, &w);
			if (!r)
				return 0;
			/* execvp goes on after these; any other error ends it */
			if (r != EACCES && r != ENOENT && r != ENOTDIR) {
				*why = w;
				return r;
			}
			/* said at the end: EACCES wins; else a missing interpreter */
			if (r == EACCES && err != EACCES) {
				err = EACCES;
				*why = w;
			} else if (err == ENOENT && w.role && !why->role) {
				*why = w;
			}
		}
		if (!*end)
			return err;
		p = end;
	}
}

static int exec_error(const char *cmd, int err, const struct uc_exec_why *why)
{
	if (why && why->role)
		cli_errx("cannot run '%s': its %s %s: %s; nothing changed", cmd, why->role,
			 why->file, strerror(err));
	else if (why)
		cli_errx("cannot run '%s': %s; nothing changed", cmd, strerror(err));
	else
		cli_errx("cannot run '%s': %s (after the clamps were set: if that enabled the "
			 "uclamp fast path, it stays on until reboot)", cmd, strerror(err));
	/* util-linux errexec(): 127 not found, 126 found but not runnable */
	return err == ENOENT ? CLI_EXIT_EXEC_ENOENT : CLI_EXIT_EXEC_FAIL;
}

int cmd_run(struct cli_ctl *ctl, int argc, char **argv)
{
	const struct cli_opts opts = {
		.longopts = CLI_LONGOPTS(CLI_WANT_LONGOPTS),
		.stop_at_arg = true, .shared = CLI_OPTS_WRITE,
		.own = cli_want_opt, .usage = usage,
	};
	/* ourselves, then CMD inherits: one rule that takes the PID it is given */
	struct uc_rule want = {
		.rt = true, .kthreads = true, .min = UC_KEEP, .max = UC_KEEP,
		.reset_on_fork = UC_KEEP,
	};
	pid_t self = getpid();
	struct cli_task_how th = { .flags = UC_WALK_ID_AS_GIVEN };
	char as[16];
	struct uc_exec_why why;
	int rc;

	cli_parse_opts(ctl, argc, argv, &opts, &want);
	if (optind >= argc)
		cli_usage_error(ctl, "no command to run: give CMD [ARGS...] after the options");
	cli_want_check(ctl, &want, " before CMD");
	/* a command that cannot start must not leave clamps (and the key) behind */
	rc = exec_resolve(argv[optind], &why);
	if (!rc)
		rc = -uc_exec_args_fit(argv[optind], argv + optind, environ);
	if (rc)
		return exec_error(argv[optind], rc, &why);

	rc = cli_task_support(ctl);
	if (rc)
		return rc;
	cli_task_explain_reset(ctl, &want);
	ctl->to_stderr = true;	/* the report goes to stderr: stdout belongs to CMD */
	/* the plan (and the record) name the task as it will be: CMD, whose
	 * name the kernel takes from the file it executes, cut to 15 bytes */
	snprintf(as, sizeof(as), "%s", strrchr(argv[optind], '/') ?
		 strrchr(argv[optind], '/') + 1 : argv[optind]);
	th.as = as;
	rc = cli_task_plan_and_run(ctl, &want, &self, 1, &th);
	if (rc || ctl->dry_run)
		return rc;
	/* a signal after the clamps were set (handlers are still ours): CMD does not start */
	if (cli_signals_caught()) {
		int sig = *cli_catch_signals();

		cli_errx("interrupted before '%s' started: not run", argv[optind]);
		return CLI_EXIT_SIGNAL + sig;
	}

	execvp(argv[optind], argv + optind);
	/* what the check cannot see: the file replaced since, ETXTBSY, ENOMEM, ... */
	return exec_error(argv[optind], errno, NULL);
}
