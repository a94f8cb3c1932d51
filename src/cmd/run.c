/*
 * uclampctl run: set clamps on ourselves, then exec the command. Clamps
 * survive exec and are inherited by children (unless reset-on-fork).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd/task.h"

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
	       "CMD is looked up (in PATH unless it has a '/') before any clamp is set.\n"
	       "Exit status: CMD's, or 126 when CMD cannot be executed, 127 when it is not\n"
	       "found (nothing set then); 2-4 as for every command when the clamps cannot\n"
	       "be set (CMD does not run then).\n",
	       uc_value_forms);
}

/* 0 if execve() could start @path as a program: a file we may execute */
static int exec_check(const char *path)
{
	struct stat st;

	if (stat(path, &st))
		return errno;
	if (S_ISDIR(st.st_mode) || faccessat(AT_FDCWD, path, X_OK, AT_EACCESS))
		return EACCES;	/* what execve() says for a directory too */
	return 0;
}

/*
 * Find CMD as execvp() will, before any clamp is written: a name with a '/'
 * is the path; otherwise each $PATH entry in turn (unset: glibc's
 * /bin:/usr/bin, an empty entry: the working directory). Like execvp(), a
 * later entry may still hold a runnable one after EACCES, and EACCES wins
 * over ENOENT at the end. Returns 0 or the errno execvp() would fail with.
 */
static int exec_resolve(const char *cmd)
{
	const char *path = getenv("PATH");
	char buf[PATH_MAX];
	int err = ENOENT;

	if (!*cmd)
		return ENOENT;
	if (strchr(cmd, '/'))
		return exec_check(cmd);
	if (!path)
		path = "/bin:/usr/bin";
	for (const char *p = path;; p++) {
		const char *end = strchrnul(p, ':');
		int len = (int)(end - p), r;

		if (snprintf(buf, sizeof(buf), "%.*s%s%s", len, p, len ? "/" : "", cmd) <
		    (int)sizeof(buf)) {
			r = exec_check(buf);
			if (!r)
				return 0;
			if (r == EACCES)
				err = EACCES;
		}
		if (!*end)
			return err;
		p = end;
	}
}

static int exec_error(const char *cmd, int err)
{
	cli_errx("cannot run '%s': %s", cmd, strerror(err));
	/* util-linux errexec(): 127 not found, 126 found but not runnable */
	return err == ENOENT ? CLI_EXIT_EXEC_ENOENT : CLI_EXIT_EXEC_FAIL;
}

static bool run_opt(struct cli_ctl *ctl, int c, const char *arg, void *data)
{
	return cli_want_opt(ctl, c, arg, data);
}

int cmd_run(struct cli_ctl *ctl, int argc, char **argv)
{
	const struct cli_opts opts = {
		.longopts = CLI_LONGOPTS(CLI_WANT_LONGOPTS),
		.stop_at_arg = true, .shared = CLI_OPTS_WRITE,
		.own = run_opt, .usage = usage,
	};
	/* ourselves, then CMD inherits: one rule that takes the PID it is given */
	struct uc_rule want = {
		.rt = true, .kthreads = true, .min = UC_KEEP, .max = UC_KEEP,
		.reset_on_fork = UC_KEEP,
	};
	pid_t self = getpid();
	struct cli_task_how th = { .flags = UC_WALK_ID_AS_GIVEN };
	char as[16];
	int rc;

	if (!cli_parse_opts(ctl, argc, argv, &opts, &want))
		return CLI_EXIT_OK;
	if (optind >= argc)
		cli_usage_error(ctl, "no command to run: give CMD [ARGS...] after the options");
	cli_want_check(ctl, &want, " before CMD");
	/* a command that cannot start must not leave clamps (and the key) behind */
	rc = exec_resolve(argv[optind]);
	if (rc)
		return exec_error(argv[optind], rc);

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
	return exec_error(argv[optind], errno);	/* changed between the check and here */
}
