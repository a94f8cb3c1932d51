/*
 * uclampctl apply: the host made to match uclampctl.conf(5). All is read and
 * checked before anything is planned, planned before anything is written, and
 * only values that differ are planned: a second run writes nothing.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/common.h"
#include "uclamp/config.h"

enum apply_mode { MODE_APPLY, MODE_CHECK, MODE_DRY_RUN };

static void usage(void)
{
	printf("Usage:\n"
		" uclampctl apply [options]\n"
		"\n"
		"Make this host's clamps match the declarative configuration:\n"
		" %s and %s/*.conf\n"
		"(name order; a later file wins per key). See uclampctl.conf(5).\n"
		"Only values that differ are written, so a second run changes nothing;\n"
		"a value the configuration does not set is left alone.\n"
		"Every file is checked first: one error anywhere and nothing is changed.\n"
		"A target that is not there (a group not created yet, a unit not running,\n"
		"a user not on this host) or cannot take the values (a task's own clamps\n"
		"conflict) is skipped, named on one line, and the rest is applied.\n"
		"If a write fails, the changes already made are undone.\n"
		"Consent to enabling the uclamp fast path comes from 'allow-enable = yes'\n"
		"in [fast-path], from --yes, or from the answer at the prompt.\n"
		"\n"
		"Options:\n"
		" -c, --config <path>    read this file, or this directory's *.conf, instead\n"
		"                        of the default locations; repeatable, later wins;\n"
		"                        'DIR/' is a directory that may be missing\n"
		"     --check            compare only: exit 0 when the host matches, 1 and the\n"
		"                        list of differences when it does not\n"
		CLI_WRITE_OPTS_HELP
		CLI_HELP_OPTS_HELP
		"\n"
		"Exit status: 0 applied or matching, 1 a change failed (the others were\n"
		"undone) or --check found differences, 2 an error in the configuration\n"
		"(file:line) or a value this host cannot take, 3 refused (would enable the\n"
		"uclamp fast path without consent), 4 the kernel lacks the uclamp part a\n"
		"section needs, 5 applied (or matching), but some targets were skipped.\n",
		UC_CONFIG_FILE, UC_CONFIG_DIR);
}

/* ---- JSON ------------------------------------------------------------------ */

/* The targets left alone: where, which, why (and a task's IDs). */
static void json_skips(struct cli_json *j, const struct uc_config *cfg)
{
	cli_json_open(j, "skipped", '[', false);
	for (size_t i = 0; cfg && i < cfg->nskips; i++) {
		const struct uc_conf_skip *k = &cfg->skips[i];

		cli_json_open(j, NULL, '{', true);
		cli_json_str(j, "file", k->loc.file);
		cli_json_int(j, "line", k->loc.line);
		cli_json_str(j, "section", k->section);
		cli_json_str(j, "target", k->target);
		if (k->pid) {
			cli_json_int(j, "pid", k->pid);
			cli_json_int(j, "tid", k->tid);
		}
		cli_json_str(j, "reason", k->why);
		cli_json_close(j, '}');
	}
	cli_json_close(j, ']');
	/* more than were kept: counted */
	cli_json_int(j, "skipped_total", cfg ? (long long)cfg->nskips_total : 0);
}

/* The report (empty when nothing was planned), then the config's own members. */
static void json_result(const struct cli_ctl *ctl, const struct uc_report *r, const char *mode,
			const struct uc_config *cfg, const char *error)
{
	struct cli_json j;

	cli_json_begin(&j, stdout, 3);
	cli_report_json(&j, ctl, r, mode);
	/* the recorded consent, for monitoring ("on, but not allowed here") */
	cli_json_bool(&j, "allow_enable", cfg && cfg->allow_enable.set && cfg->allow_enable.value);
	cli_json_open(&j, "errors", '[', true);
	for (size_t i = 0; cfg && i < cfg->nerrors; i++) {
		const struct uc_conf_error *e = &cfg->errors[i];
		char *s = NULL;

		if (!e->file)
			s = strdup(e->msg);
		else if (e->line)
			(void)!asprintf(&s, "%s:%d: %s", e->file, e->line, e->msg);
		else
			(void)!asprintf(&s, "%s: %s", e->file, e->msg);
		cli_json_str(&j, NULL, s ? s : e->msg);
		free(s);
	}
	if (error)
		cli_json_str(&j, NULL, error);
	cli_json_close(&j, ']');
	json_skips(&j, cfg);
	cli_json_end(&j);
	fflush(stdout);
}

/* Nothing planned (no configuration, or errors): an empty report, with the
 * fast path's state as status and check say it ("unsupported" without uclamp). */
static void json_empty(const struct cli_ctl *ctl, const char *mode, const struct uc_config *cfg)
{
	struct uc_report r = { .key_read = true };

	r.key_before = r.key_after = cli_key_state_now(ctl);
	json_result(ctl, &r, mode, cfg, NULL);
}

/* ---- errors ---------------------------------------------------------------- */

static void print_errors(const struct uc_config *cfg)
{
	fflush(stdout);
	for (size_t i = 0; i < cfg->nerrors; i++) {
		const struct uc_conf_error *e = &cfg->errors[i];

		/* escaped: a message may quote a file name or a value */
		if (!e->file)
			cli_line(stderr, "uclampctl: %s", e->msg);
		else if (e->line)
			cli_line(stderr, "%s:%d: %s", e->file, e->line, e->msg);
		else
			cli_line(stderr, "%s: %s", e->file, e->msg);
	}
	if (cfg->nerrors_total > cfg->nerrors)
		fprintf(stderr, "uclampctl: ... and %zu more\n", cfg->nerrors_total - cfg->nerrors);
}

/* One line per target left alone: "file:line: skipped [cgroup x]: why". */
static void print_skips(const struct cli_ctl *ctl, const struct uc_config *cfg)
{
	if (ctl->quiet || !cfg->nskips_total)
		return;
	fflush(stdout);
	for (size_t i = 0; i < cfg->nskips; i++) {
		const struct uc_conf_skip *k = &cfg->skips[i];
		/* a cgroup's section names its target already */
		bool named = !strncmp(k->section, "cgroup ", 7);

		/* escaped: a task's name, a path */
		cli_line(stderr, "%s:%d: skipped %s%s[%s]: %s", k->loc.file, k->loc.line,
			 named ? "" : k->target, named ? "" : " of ", k->section, k->why);
	}
	if (cfg->nskips_total > cfg->nskips)
		fprintf(stderr, "uclampctl: ... and %zu more skipped\n",
			cfg->nskips_total - cfg->nskips);
}

/* The exit code for the errors: no kernel support first, then bad input. */
static int errors_exit(const struct uc_config *cfg)
{
	bool inval = false;

	for (size_t i = 0; i < cfg->nerrors; i++) {
		if (cfg->errors[i].err == -EOPNOTSUPP)
			return CLI_EXIT_NOTSUPP;
		if (cfg->errors[i].err == -EINVAL)
			inval = true;
	}
	return inval ? CLI_EXIT_USAGE : CLI_EXIT_FAIL;
}

static bool first_sys_set(const struct uc_config *cfg)
{
	for (size_t i = 0; i < UC_SYSCTL_NKNOBS; i++)
		if (cfg->sys[i].set)
			return true;
	return false;
}

/* ---- the modes --------------------------------------------------------------- */

static const char *const mode_names[] = { "apply", "check", "dry-run" };

/*
 * The plan runs through the one core like every write command; --check and
 * --dry-run are dry runs of it. -J reports the same run as data and never
 * prompts.
 */
struct config_plan_ctx {
	struct uc_config *cfg;
	enum apply_mode mode;
	bool json;
};

/* The configuration's plan against the host (cli_run's plan()). */
static int config_plan(struct cli_ctl *ctl, struct uc_plan *plan, unsigned pass, void *data)
{
	struct config_plan_ctx *cp = data;
	int rc;

	(void)pass;
	rc = uc_config_plan(cp->cfg, plan);
	if (rc == -ENOMEM)
		exit(cli_oom());
	if (!rc && !cp->cfg->nerrors_total)
		return 0;
	rc = errors_exit(cp->cfg);
	if (cp->json)
		json_empty(ctl, mode_names[cp->mode], cp->cfg);
	print_errors(cp->cfg);
	cli_errx("cannot apply the configuration: nothing changed");
	return rc;
}

/*
 * --check found nothing to change: say what was compared, and what is not
 * (apply manages only what the configuration sets, so a value removed from
 * it is not looked at, nor put back).
 */
static void check_matches(const struct cli_ctl *ctl, const struct uc_plan *plan,
			  const struct uc_config *cfg)
{
	if (cfg->nskips_total)
		cli_info(ctl, "no differences in what could be checked: %zu value(s) match, "
			 "%zu target(s) skipped (above)", plan->unchanged, cfg->nskips_total);
	else if (!plan->unchanged && !cfg->ncgroups && !first_sys_set(cfg))
		cli_info(ctl, "no differences: %s (0 value(s) checked)", cfg->ntasks ?
			 "no running task matches a [tasks] section" :
			 "the configuration sets nothing");
	else
		cli_info(ctl, "no differences: the host matches the configuration "
			 "(%zu value(s) checked)", plan->unchanged);
	cli_info(ctl, "not checked: values the configuration does not set (apply leaves "
		 "them alone, also one removed from it; see uclampctl.conf(5))");
}

static int run(struct cli_ctl *ctl, struct uc_plan *plan, enum apply_mode mode, bool json,
	       struct uc_config *cfg)
{
	struct config_plan_ctx cp = { .cfg = cfg, .mode = mode, .json = json };
	struct cli_run how = {
		.mode = UC_EXEC_ATOMIC,
		.consent_from_config = cfg->allow_enable.set && cfg->allow_enable.value,
		.may_ask = !json,
		.key_always = json,
		.plan = config_plan,
		.data = &cp,
	};
	const char *error = NULL;
	struct uc_report r;
	int rc;

	if (mode == MODE_CHECK)
		ctl->dry_run = true;	/* reads only: no lock */
	rc = cli_run_unrendered(ctl, plan, &how, &r);
	if (rc)
		return rc;
	rc = cli_report_exit(&r);
	/* a run that did what it could: say that it skipped some */
	if (rc == CLI_EXIT_OK && cfg->nskips_total)
		rc = CLI_EXIT_SKIPPED;
	print_skips(ctl, cfg);
	if (mode == MODE_CHECK) {
		if (plan->n)
			rc = CLI_EXIT_FAIL;
		if (json)
			json_result(ctl, &r, mode_names[mode], cfg, NULL);
		else if (!plan->n)
			check_matches(ctl, plan, cfg);
		else if (!ctl->quiet) {
			printf("the host differs from the configuration:\n");
			cli_print_plan(plan, stdout);
		}
		return rc;
	}
	cli_report_guard(ctl, &r);
	if (!json) {
		cli_report_text(ctl, &r);
		if (cfg->nskips_total && r.outcome != UC_RUN_REFUSED &&
		    r.outcome != UC_RUN_NOT_CONFIRMED)
			cli_warnx(ctl, "%zu target(s) skipped (named above), not in the plan: %s",
				  cfg->nskips_total,
				  r.outcome == UC_RUN_DRY ? "the rest would be applied"
				  : r.outcome == UC_RUN_NOTHING ? "the rest matches"
				  : "the rest was applied");
		return rc;
	}
	if (r.outcome == UC_RUN_REFUSED)
		error = "refused: the plan would enable the uclamp fast path and there is no "
			"consent (--yes or allow-enable = yes); nothing changed";
	else if (r.outcome == UC_RUN_FAILED)
		error = "a change failed: the changes already made were undone "
			"(see failed and rolled_back)";
	else if (r.outcome == UC_RUN_UNWRITABLE)
		error = "refused: a target cannot be written (see failed); "
			"checked before anything was written: nothing changed";
	else if (r.outcome == UC_RUN_INTERRUPTED)
		error = "interrupted: the changes already made were undone (see rolled_back); "
			"nothing changed";
	if (error && r.outcome != UC_RUN_REFUSED)
		cli_errx("%s", error);
	json_result(ctl, &r, mode_names[mode], cfg, error);
	return rc;
}

enum { OPT_CHECK = 0x100 };

/* What apply's own options parse into. */
struct apply_args {
	const char **configs;	/* --config, every one given */
	size_t nconfigs;
	bool check;
};

static bool apply_opt(struct cli_ctl *ctl, int c, const char *arg, void *data)
{
	struct apply_args *a = data;

	(void)ctl;
	if (c == 'c')
		a->configs[a->nconfigs++] = arg;
	else if (c == OPT_CHECK)
		a->check = true;
	return c == 'c' || c == OPT_CHECK;
}

int cli_apply(struct cli_ctl *ctl, const char *const *configs, size_t nconfigs, bool check,
	      bool json)
{
	enum apply_mode mode;
	struct uc_config cfg;
	struct uc_plan plan;
	int rc;

	mode = check ? MODE_CHECK : ctl->dry_run ? MODE_DRY_RUN : MODE_APPLY;
	uc_config_init(&cfg);
	if (nconfigs) {
		for (size_t i = 0; i < nconfigs; i++)
			if (uc_config_load_path(&cfg, configs[i]) == -ENOMEM)
				exit(cli_oom());
	} else if (uc_config_load_default(&cfg) == -ENOMEM) {
		exit(cli_oom());
	}
	if (uc_config_validate(&cfg)) {
		if (json)
			json_empty(ctl, mode_names[mode], &cfg);
		print_errors(&cfg);
		cli_errx("%zu error(s) in the configuration: nothing changed", cfg.nerrors_total);
		uc_config_free(&cfg);
		return CLI_EXIT_USAGE;
	}
	uc_plan_init(&plan);
	if (!cfg.nfiles) {
		/* like an empty file: the boot service is only started when one exists */
		if (json)
			json_empty(ctl, mode_names[mode], &cfg);
		else if (nconfigs)
			cli_info(ctl, "no configuration: no *.conf in %s%s: nothing to do",
				 configs[0],
				 nconfigs > 1 ? " or the other --config directories" : "");
		else
			cli_info(ctl, "no configuration: %s does not exist and %s "
				 "has no *.conf: nothing to do",
				 UC_CONFIG_FILE, UC_CONFIG_DIR);
		rc = CLI_EXIT_OK;
		goto out;
	}

	/* [tasks] take PIDs from /proc */
	if (cfg.ntasks && (rc = cli_procns_check())) {
		if (json)
			json_empty(ctl, mode_names[mode], &cfg);
		goto out;
	}
	rc = run(ctl, &plan, mode, json, &cfg);
out:
	uc_plan_free(&plan);
	uc_config_free(&cfg);
	return rc;
}

int cmd_apply(struct cli_ctl *ctl, int argc, char **argv)
{
	const struct cli_opts opts = {
		.longopts = CLI_LONGOPTS({ "config", required_argument, NULL, 'c' },
					  { "check", no_argument, NULL, OPT_CHECK }),
		.shortopts = "c:", .shared = CLI_OPTS_WRITE,
		.own = apply_opt, .usage = usage,
		.no_args = "apply takes only options (a file goes with --config)",
	};
	struct apply_args a = { .configs = calloc((size_t)argc + 1, sizeof(char *)) };
	int rc;

	ctl->consent_hint = "--yes or 'allow-enable = yes' in [fast-path]";

	if (!a.configs)
		exit(cli_oom());
	cli_parse_opts(ctl, argc, argv, &opts, &a);
	if (a.check && ctl->dry_run)
		cli_usage_error(ctl, "--check and --dry-run exclude each other: "
				"--check already changes nothing");
	rc = cli_apply(ctl, a.configs, a.nconfigs, a.check, ctl->json);
	free(a.configs);
	return rc;
}
