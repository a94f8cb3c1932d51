/*
 * uclampctl apply: make the host match the declarative configuration
 * (uclampctl.conf(5)). Everything is read and checked before anything is
 * planned, and everything is planned before anything is written: one error
 * anywhere and nothing changes. The plan holds only values that differ, so a
 * second run writes nothing and cannot flip sched_uclamp_used.
 *
 * Human output goes through uc_run_plan() like every write command. -J needs
 * the report as data, so it calls the same guard and executor itself
 * (uc_guard_check, uc_plan_execute) and never prompts.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/common.h"
#include "uclamp/config.h"
#include "uclamp/fastpath.h"

enum apply_mode { MODE_APPLY, MODE_CHECK, MODE_DRY_RUN };

static void usage(FILE *out)
{
	fprintf(out,
		"Usage:\n"
		" uclampctl apply [options]\n"
		"\n"
		"Make this host's clamps match the declarative configuration:\n"
		" %s and %s/*.conf\n"
		"(name order; a later file wins per key). See uclampctl.conf(5).\n"
		"Only values that differ are written, so a second run changes nothing.\n"
		"Every file is checked first: one error anywhere and nothing is changed.\n"
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
		UC_WRITE_OPTS_HELP
		" -J, --json             print the result as JSON (never prompts)\n"
		" -h, --help             display this help\n"
		"\n"
		"Exit status: 0 applied or matching, 1 a change failed (the others were\n"
		"undone) or --check found differences, 2 an error in the configuration\n"
		"(file:line) or a value this host cannot take, 3 refused (would enable the\n"
		"uclamp fast path without consent), 4 the kernel lacks the uclamp part a\n"
		"section needs.\n",
		UC_CONFIG_FILE, UC_CONFIG_DIR);
}

/* ---- JSON ------------------------------------------------------------------ */

static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p == '\n')
			fputs("\\n", f);
		else if (*p < 0x20 || *p == 0x7f)
			fprintf(f, "\\u%04x", *p);
		else
			fputc(*p, f);
	}
	fputc('"', f);
}

static void json_change(FILE *f, const struct uc_change *c, bool with_err)
{
	char b[256];

	fputs("{\"target\": ", f);
	json_str(f, uc_change_target(c, b, sizeof(b)));
	fputs(", \"kind\": ", f);
	json_str(f, uc_kind_name(c->kind));
	fputs(", \"attribute\": ", f);
	json_str(f, uc_attr_name(c->kind, c->attr));
	fputs(", \"from\": ", f);
	json_str(f, uc_change_value(c, c->from, b, sizeof(b)));
	fputs(", \"to\": ", f);
	json_str(f, uc_change_value(c, c->to, b, sizeof(b)));
	if (c->kind == UC_KIND_TASK)
		fprintf(f, ", \"pid\": %d, \"tid\": %d", (int)c->pid, (int)c->tid);
	fprintf(f, ", \"enables_fast_path\": %s", c->flips ? "true" : "false");
	if (with_err) {
		fputs(", \"state\": ", f);
		json_str(f, uc_change_state_name(c->state));
		fputs(", \"error\": ", f);
		json_str(f, uc_strerr(c->kind, c->err, b, sizeof(b)));
	}
	fputc('}', f);
}

/* The changes whose state matches 'want' (a bitmask of 1 << state). */
static void json_list(FILE *f, const char *name, const struct uc_plan *p, unsigned want, bool with_err)
{
	bool first = true;

	fprintf(f, ",\n  \"%s\": [", name);
	for (size_t i = 0; p && i < p->n; i++) {
		if (!(want & (1u << p->v[i].state)))
			continue;
		fputs(first ? "\n    " : ",\n    ", f);
		json_change(f, &p->v[i], with_err);
		first = false;
	}
	fputs(first ? "]" : "\n  ]", f);
}

/* Tasks that exited: while planning, or during the run (one TID may have several changes). */
static size_t gone_tasks(const struct uc_plan *p)
{
	size_t n = 0;

	for (size_t i = 0; p && i < p->n; i++)
		if (p->v[i].state == UC_CH_GONE && (i == 0 || p->v[i - 1].tid != p->v[i].tid ||
						    p->v[i - 1].state != UC_CH_GONE))
			n++;
	return n + (p ? p->gone : 0);
}

struct result {
	enum apply_mode mode;
	const struct uc_plan *plan;	/* NULL: nothing was planned (config errors) */
	const struct uc_config *cfg;
	enum uc_key_state before, after;
	const char *error;		/* refused, ... */
};

#define ST(s) (1u << (s))

static void json_result(const struct result *r)
{
	static const char *const modes[] = { "apply", "check", "dry-run" };
	const struct uc_plan *p = r->plan;
	/* apply: what was written and stays; check/dry-run: what would be */
	unsigned kept = r->mode == MODE_APPLY ? ST(UC_CH_DONE) | ST(UC_CH_ROLLBACK_FAILED) : ST(UC_CH_PLANNED);
	bool changed = false;
	FILE *f = stdout;

	for (size_t i = 0; p && i < p->n; i++)
		if (kept & ST(p->v[i].state))
			changed = true;
	fprintf(f, "{\n  \"changed\": %s,\n  \"mode\": \"%s\"", changed ? "true" : "false", modes[r->mode]);
	json_list(f, "changes", p, kept, false);
	json_list(f, "failed", p, ST(UC_CH_FAILED) | ST(UC_CH_ROLLBACK_FAILED), true);
	json_list(f, "rolled_back", p, ST(UC_CH_ROLLED_BACK), false);
	fprintf(f, ",\n  \"unchanged\": %zu,\n  \"gone\": %zu", p ? p->unchanged : 0, gone_tasks(p));
	fprintf(f, ",\n  \"fast_path\": {\"before\": \"%s\", \"after\": \"%s\"}", uc_key_state_name(r->before),
		uc_key_state_name(r->after));
	fprintf(f, ",\n  \"enables_fast_path\": %s", p && uc_plan_flips(p) ? "true" : "false");
	/* the recorded consent, for monitoring ("on, but not allowed here") */
	fprintf(f, ",\n  \"allow_enable\": %s",
		r->cfg && r->cfg->allow_enable.set && r->cfg->allow_enable.value ? "true" : "false");
	fputs(",\n  \"errors\": [", f);
	for (size_t i = 0; r->cfg && i < r->cfg->nerrors; i++) {
		const struct uc_conf_error *e = &r->cfg->errors[i];
		char *s = NULL;

		if (!e->file)
			s = strdup(e->msg);
		else if (e->line)
			(void)!asprintf(&s, "%s:%d: %s", e->file, e->line, e->msg);
		else
			(void)!asprintf(&s, "%s: %s", e->file, e->msg);
		fputs(i ? ", " : "", f);
		json_str(f, s ? s : e->msg);
		free(s);
	}
	if (r->error) {
		fputs(r->cfg && r->cfg->nerrors ? ", " : "", f);
		json_str(f, r->error);
	}
	fputs("]\n}\n", f);
	fflush(f);
}

/* ---- errors ---------------------------------------------------------------- */

static void print_errors(const struct uc_config *cfg)
{
	fflush(stdout);
	for (size_t i = 0; i < cfg->nerrors; i++) {
		const struct uc_conf_error *e = &cfg->errors[i];

		if (!e->file)
			fprintf(stderr, "uclampctl: %s\n", e->msg);
		else if (e->line)
			fprintf(stderr, "%s:%d: %s\n", e->file, e->line, e->msg);
		else
			fprintf(stderr, "%s: %s\n", e->file, e->msg);
	}
	if (cfg->nerrors_total > cfg->nerrors)
		fprintf(stderr, "uclampctl: ... and %zu more\n", cfg->nerrors_total - cfg->nerrors);
}

/* The exit code for the errors: no kernel support first, then bad input. */
static int errors_exit(const struct uc_config *cfg)
{
	bool inval = false;

	for (size_t i = 0; i < cfg->nerrors; i++) {
		if (cfg->errors[i].err == -EOPNOTSUPP)
			return UC_EXIT_NOTSUPP;
		if (cfg->errors[i].err == -EINVAL)
			inval = true;
	}
	return inval ? UC_EXIT_USAGE : UC_EXIT_FAIL;
}

static void oom(void)
{
	uc_errx("out of memory");
	exit(UC_EXIT_FAIL);
}

/* ---- the modes --------------------------------------------------------------- */

/* --check: differences are the plan's changes; nothing is written. */
static int do_check(struct uc_ctl *ctl, const struct uc_plan *plan, bool json, struct result *r)
{
	if (json) {
		json_result(r);
		return plan->n ? UC_EXIT_FAIL : UC_EXIT_OK;
	}
	if (!plan->n) {
		uc_info(ctl, "no differences: the host matches the configuration (%zu value(s) checked)",
			plan->unchanged);
		return UC_EXIT_OK;
	}
	if (!ctl->quiet) {
		printf("the host differs from the configuration:\n");
		uc_print_plan(ctl, plan);
	}
	return UC_EXIT_FAIL;
}

/* -J without --check: the same guard and executor as uc_run_plan(), data out. */
static int do_json(struct uc_ctl *ctl, struct uc_plan *plan, bool consent_from_config, struct result *r)
{
	struct uc_exec_report rep;
	int rc;

	if (r->mode == MODE_DRY_RUN || !plan->n) {
		json_result(r);
		return UC_EXIT_OK;
	}
	rc = uc_guard_or_refuse(ctl, plan, r->before, consent_from_config, false);
	if (rc) {
		r->error = "refused: the plan would enable the uclamp fast path and there is no consent "
			   "(--yes or allow-enable = yes); nothing changed";
		json_result(r);
		return rc;
	}
	rc = uc_plan_execute(plan, UC_EXEC_ATOMIC, NULL, &rep);
	r->after = uc_plan_flips(plan) ? uc_key_state_now(ctl) : r->before;
	if (rc) {
		r->error = "a change failed: the changes already made were undone (see failed and rolled_back)";
		uc_errx("%s", r->error);
	}
	json_result(r);
	return rc ? UC_EXIT_FAIL : UC_EXIT_OK;
}

int cmd_apply(struct uc_ctl *ctl, int argc, char **argv)
{
	enum { OPT_CHECK = 0x100 };
	static const struct option longopts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "check", no_argument, NULL, OPT_CHECK },
		{ "dry-run", no_argument, NULL, 'n' },
		{ "yes", no_argument, NULL, 'y' },
		{ "json", no_argument, NULL, 'J' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char **configs = calloc((size_t)argc + 1, sizeof(*configs));
	const char *first_config;
	size_t nconfigs = 0;
	bool check = false, json = false;
	struct uc_config cfg;
	struct uc_plan plan;
	struct result r = { .mode = MODE_APPLY };
	int c, rc;

	ctl->consent_hint = "--yes or 'allow-enable = yes' in [fast-path]";

	if (!configs)
		oom();
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":c:nyJh", longopts, NULL)) != -1) {
		switch (c) {
		case 'c':
			configs[nconfigs++] = optarg;
			break;
		case OPT_CHECK:
			check = true;
			break;
		case 'n':
			ctl->dry_run = true;
			break;
		case 'y':
			ctl->yes = true;
			break;
		case 'J':
			json = true;
			break;
		case 'h':
			usage(stdout);
			free(configs);
			return UC_EXIT_OK;
		default:
			uc_bad_option(ctl, c, argv);
		}
	}
	if (optind < argc)
		uc_usage_error(ctl, "unexpected argument '%s': apply takes only options (a file goes with --config)",
			       argv[optind]);
	if (check && ctl->dry_run)
		uc_usage_error(ctl, "--check and --dry-run exclude each other: --check already changes nothing");
	r.mode = check ? MODE_CHECK : ctl->dry_run ? MODE_DRY_RUN : MODE_APPLY;

	uc_config_init(&cfg);
	r.cfg = &cfg;
	if (nconfigs) {
		for (size_t i = 0; i < nconfigs; i++)
			if (uc_config_load_path(&cfg, configs[i]) == -ENOMEM)
				oom();
	} else if (uc_config_load_default(&cfg) == -ENOMEM) {
		oom();
	}
	first_config = nconfigs ? configs[0] : NULL;
	free(configs);
	if (uc_config_validate(&cfg)) {
		if (json)
			json_result(&r);
		print_errors(&cfg);
		uc_errx("%zu error(s) in the configuration: nothing changed", cfg.nerrors_total);
		uc_config_free(&cfg);
		return UC_EXIT_USAGE;
	}
	uc_plan_init(&plan);
	if (!cfg.nfiles) {
		/* like an empty file: the boot service is only started when one exists */
		if (json)
			json_result(&r);
		else if (nconfigs)	/* only directories were given (argv outlives configs) */
			uc_info(ctl, "no configuration: no *.conf in %s%s: nothing to do", first_config,
				nconfigs > 1 ? " or the other --config directories" : "");
		else
			uc_info(ctl, "no configuration: %s does not exist and %s has no *.conf: nothing to do",
				UC_CONFIG_FILE, UC_CONFIG_DIR);
		rc = UC_EXIT_OK;
		goto out;
	}

	rc = uc_config_plan(&cfg, &plan);
	if (rc == -ENOMEM)
		oom();
	if (rc || cfg.nerrors_total) {
		rc = errors_exit(&cfg);
		if (json)
			json_result(&r);
		print_errors(&cfg);
		uc_errx("cannot apply the configuration: nothing changed");
		goto out;
	}
	r.plan = &plan;
	if (json) {
		struct uc_fastpath fp;

		uc_fastpath_detect(&fp);
		r.before = r.after = fp.state;
	}
	if (check)
		rc = do_check(ctl, &plan, json, &r);
	else if (json)
		rc = do_json(ctl, &plan, cfg.allow_enable.set && cfg.allow_enable.value, &r);
	else
		rc = uc_run_plan(ctl, &plan, UC_EXEC_ATOMIC, cfg.allow_enable.set && cfg.allow_enable.value);
out:
	uc_plan_free(&plan);
	uc_config_free(&cfg);
	return rc;
}
