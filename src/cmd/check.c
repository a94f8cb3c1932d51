/*
 * uclampctl check: is the uclamp fast path (sched_uclamp_used) on? For
 * scripts: the answer is the exit status (its own codes, not the usual
 * ones), plus one line saying which state and how it is known.
 */
#include <stdio.h>
#include <stdlib.h>

#include "cmd/common.h"
#include "uclamp/effect.h"
#include "uclamp/fastpath.h"
#include "uclamp/findings.h"

enum {
	CHECK_OFF = 0,
	CHECK_ON = 1,		/* on, or always-on (uclamp without the key) */
	CHECK_UNKNOWN = 3,
	CHECK_NO_UCLAMP = 4,
	CHECK_FINDINGS = 5,	/* --strict: a finding of level warning */
};

enum { OPT_STRICT = 1000 };

static void usage(void)
{
	printf("Usage:\n uclampctl check [options]\n\n"
	       "Tell whether the uclamp fast path (static key sched_uclamp_used) is on,\n"
	       "in the exit status and one line saying how it is known; then the\n"
	       "findings: clamps nothing here honours (cpufreq governor and driver, a\n"
	       "util_min too low to raise the frequency where the kernel is not\n"
	       "frequency-invariant), the fast path on while every clamp is at its default,\n"
	       "a system util_min below 1024, RT threads whose util_min no longer follows\n"
	       "the RT default, the RT default at 1024 on a battery. Nothing is written.\n\n"
	       "Options:\n"
	       " -q, --quiet         print nothing, only set the exit status (no findings\n"
	       "                     are looked for unless --strict)\n"
	       " -v, --verbose       also print the evidence found and why other methods\n"
	       "                     were unavailable\n"
	       " -J, --json          JSON output (state, source, how, findings)\n"
	       "     --format <fmt>  text (default) or json\n"
	       "     --strict        exit 5 when there is a finding of level warning\n"
	       " -h, --help          display this help\n\n"
	       "Exit status:\n"
	       " 0  off: no clamp was ever set since boot (read from kernel memory)\n"
	       " 1  on, or always-on (a uclamp kernel older than the key: 5.3-5.8)\n"
	       " 2  usage error\n"
	       " 3  unknown: the key cannot be read (needs root) and there is no evidence,\n"
	       "    an error (named on stderr), or a library it needs cannot be loaded\n"
	       " 4  the kernel has no uclamp\n"
	       " 5  --strict only: a finding of level warning (instead of 0, 1 or 3)\n");
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

/* -q and -v are the global options (cli_global_opt), after the command too */
static bool check_opt(struct cli_ctl *ctl, int c, const char *arg, void *data)
{
	(void)ctl;
	(void)arg;
	if (c != OPT_STRICT)
		return false;
	*(bool *)data = true;
	return true;
}

static void print_json(const struct uc_fastpath *fp, const struct uc_findings *fs)
{
	struct cli_json j;

	cli_json_begin(&j, stdout, 3);
	cli_json_str(&j, "state", uc_key_state_name(fp->state));
	cli_json_str(&j, "source",
		     fp->source == UC_FP_SRC_NONE ? NULL : uc_fp_source_name(fp->source));
	cli_json_str(&j, "how", fp->how);
	cli_json_strs(&j, "evidence", fp->evidence, fp->nevidence);
	cli_json_open(&j, "findings", '[', false);
	for (size_t i = 0; i < fs->n; i++) {
		cli_json_open(&j, NULL, '{', false);
		cli_json_str(&j, "id", fs->f[i].id);
		cli_json_str(&j, "level", uc_find_level_name(fs->f[i].level));
		cli_json_str(&j, "text", fs->f[i].text);
		cli_json_str(&j, "fix", fs->f[i].fix[0] ? fs->f[i].fix : NULL);
		cli_json_close(&j, '}');
	}
	cli_json_close(&j, ']');
	cli_json_end(&j);
}

static void print_text(const struct cli_ctl *ctl, const struct uc_fastpath *fp,
		       const struct uc_findings *fs)
{
	/* the evidence and the findings name tasks and cgroups: escaped lines */
	if (fp->source == UC_FP_SRC_NONE)
		cli_line(stdout, "%s: %s", uc_key_state_name(fp->state), fp->how);
	else
		cli_line(stdout, "%s (%s): %s", uc_key_state_name(fp->state),
			 uc_fp_source_name(fp->source), fp->how);
	if (ctl->verbose) {
		for (size_t i = 0; i < fp->nevidence; i++)
			cli_line(stdout, "  evidence: %s", fp->evidence[i]);
		for (size_t i = 0; i < fp->nunavailable; i++)
			cli_line(stdout, "  unavailable: %s", fp->unavailable[i]);
	}
	for (size_t i = 0; i < fs->n; i++) {
		cli_line(stdout, "%s: %s (%s)", uc_find_level_name(fs->f[i].level), fs->f[i].text,
			 fs->f[i].id);
		if (fs->f[i].fix[0])
			cli_line(stdout, "  fix: %s", fs->f[i].fix);
	}
}

/* the findings, unless nothing would show them or there is no uclamp */
static int findings(struct uc_findings *fs, const struct uc_fastpath *fp, bool want)
{
	struct uc_find_input in;
	struct uc_effect *e;

	fs->n = 0;
	if (!want || fp->state == UC_KEY_UNSUPPORTED)
		return 0;
	e = malloc(sizeof(*e));
	if (!e)
		return -1;
	uc_effect_read_flags(e, 0);
	uc_find_input_read(&in, e, fp->state);
	uc_findings_eval(&in, fs);
	free(e);
	return 0;
}

int cmd_check(struct cli_ctl *ctl, int argc, char **argv)
{
	static const char *const formats[] = { "text", "json", NULL };
	bool strict = false;
	const struct cli_opts opts = {
		.longopts = CLI_LONGOPTS({ "strict", no_argument, NULL, OPT_STRICT }),
		.own = check_opt, .usage = usage,
		.shared = CLI_OPTS_FORMAT, .formats = formats,
		.no_args = "'check' takes no arguments",
	};
	struct uc_fastpath fp;
	struct uc_findings fs;
	int rc;

	cli_parse_opts(ctl, argc, argv, &opts, &strict);
	cli_lib_exit = CHECK_UNKNOWN;	/* 1 would say "on" */

	uc_fastpath_detect_flags(&fp, 0);
	if (findings(&fs, &fp, strict || !ctl->quiet)) {
		/* not CLI_EXIT_FAIL: 1 is "on" here */
		cli_errx("out of memory: the findings are not known");
		return CHECK_UNKNOWN;
	}
	rc = exit_of(fp.state);
	for (size_t i = 0; strict && rc != CHECK_NO_UCLAMP && i < fs.n; i++)
		if (fs.f[i].level == UC_FIND_WARNING)
			rc = CHECK_FINDINGS;
	if (ctl->quiet)
		return rc;
	if (ctl->format == 1 || ctl->out.json)
		print_json(&fp, &fs);
	else
		print_text(ctl, &fp, &fs);
	return rc;
}
