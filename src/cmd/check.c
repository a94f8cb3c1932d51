/*
 * uclampctl check: is the uclamp fast path (sched_uclamp_used) on? For
 * scripts: the answer is the exit status (its own codes, not the usual
 * ones), plus one line saying which state and how it is known.
 */
#include <stdio.h>

#include "cmd/common.h"
#include "uclamp/fastpath.h"

enum {
	CHECK_OFF = 0,
	CHECK_ON = 1,		/* on, or always-on (uclamp without the key) */
	CHECK_UNKNOWN = 3,
	CHECK_NO_UCLAMP = 4,
};

static void usage(void)
{
	printf("Usage:\n uclampctl check [options]\n\n"
	       "Tell whether the uclamp fast path (static key sched_uclamp_used) is on,\n"
	       "in the exit status and one line saying how it is known.\n\n"
	       "Options:\n"
	       " -q, --quiet    print nothing, only set the exit status\n"
	       " -v, --verbose  also print the evidence found and why other methods\n"
	       "                were unavailable\n"
	       " -h, --help     display this help\n\n"
	       "Exit status:\n"
	       " 0  off: no clamp was ever set since boot (read from kernel memory)\n"
	       " 1  on, or always-on (a uclamp kernel older than the key: 5.3-5.8)\n"
	       " 2  usage error\n"
	       " 3  unknown: the key cannot be read (needs root) and there is no evidence\n"
	       " 4  the kernel has no uclamp\n");
}

static int exit_of(enum uc_key_state s)
{
	switch (s) {
	case UC_KEY_OFF: return CHECK_OFF;
	case UC_KEY_ON:
	case UC_KEY_ALWAYS_ON: return CHECK_ON;
	case UC_KEY_UNSUPPORTED: return CHECK_NO_UCLAMP;
	case UC_KEY_UNKNOWN: break;
	}
	return CHECK_UNKNOWN;
}

/* -q and -v here as before the command: 'uclampctl check -q' is the script's form */
static bool check_opt(struct cli_ctl *ctl, int c, const char *arg, void *data)
{
	(void)arg;
	(void)data;
	if (c == 'q')
		ctl->quiet = true;
	else if (c == 'v')
		ctl->verbose++;
	return c == 'q' || c == 'v';
}

int cmd_check(struct cli_ctl *ctl, int argc, char **argv)
{
	const struct cli_opts opts = {
		.longopts = CLI_LONGOPTS({ "quiet", no_argument, NULL, 'q' },
					  { "verbose", no_argument, NULL, 'v' }),
		.shortopts = "qv", .own = check_opt, .usage = usage,
		.no_args = "'check' takes no arguments",
	};
	struct uc_fastpath fp;

	if (!cli_parse_opts(ctl, argc, argv, &opts, NULL))
		return CLI_EXIT_OK;

	uc_fastpath_detect(&fp);
	if (ctl->quiet)
		return exit_of(fp.state);
	/* the evidence names tasks and cgroups: escaped lines */
	if (fp.source == UC_FP_SRC_NONE)
		cli_line(stdout, "%s: %s", uc_key_state_name(fp.state), fp.how);
	else
		cli_line(stdout, "%s (%s): %s", uc_key_state_name(fp.state),
			 uc_fp_source_name(fp.source), fp.how);
	if (ctl->verbose) {
		for (size_t i = 0; i < fp.nevidence; i++)
			cli_line(stdout, "  evidence: %s", fp.evidence[i]);
		for (size_t i = 0; i < fp.nunavailable; i++)
			cli_line(stdout, "  unavailable: %s", fp.unavailable[i]);
	}
	return exit_of(fp.state);
}
