/* uclampctl system show|set: the three sysctls. A changed value enables
 * sched_uclamp_used; an unchanged one is not written ("nothing to change"). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/common.h"
#include "uclamp/sysctl.h"
#include "uclamp/sysroot.h"

/*
 * The texts that name every knob are built from the knob table
 * (uc_sysctl_knobs), so that a new knob needs no change here.
 */
static char knobs_help[1024];		/* what each knob does */
static char set_synopsis[160];		/* "[--min V] [--max V] ... [options]" */
static char set_options[512];		/* set's --help lines for them */
static char knob_opts[96];		/* "--min, --max or --rt-default" */
static char knob_names[96];		/* "util_min, util_max or util_min_rt_default" */
static const char show_synopsis[] = "[options]";

/* The long option of knob i of the table */
#define OPT_KNOB 0x300

static void build_texts(void)
{
	size_t h, y = 0, o = 0;

	h = (size_t)snprintf(knobs_help, sizeof(knobs_help),
			     "The knobs (capacity units 0..1024, 1024 = a CPU's full capacity):\n");
	for (size_t i = 0; i < UC_SYSCTL_NKNOBS; i++) {
		const struct uc_sysctl_knob *kn = &uc_sysctl_knobs[i];
		const char *s = kn->about;
		char opt[40];

		for (bool first = true; *s; first = false) {
			size_t len = strcspn(s, "\n");

			if (h < sizeof(knobs_help))
				h += (size_t)snprintf(knobs_help + h, sizeof(knobs_help) - h,
						      " %-20s %.*s\n", first ? kn->knob : "",
						      (int)len, s);
			s += len + (s[len] == '\n');
		}
		snprintf(opt, sizeof(opt), "--%s <value>", kn->option);
		if (o < sizeof(set_options))
			o += (size_t)snprintf(set_options + o, sizeof(set_options) - o,
					      "     %-21s %s (%s)\n", opt, kn->knob, kn->file);
		if (y < sizeof(set_synopsis))
			y += (size_t)snprintf(set_synopsis + y, sizeof(set_synopsis) - y,
					      "[--%s V] ", kn->option);
	}
	if (y < sizeof(set_synopsis))
		snprintf(set_synopsis + y, sizeof(set_synopsis) - y, "[options]");
	uc_sysctl_options(knob_opts, sizeof(knob_opts), "--");
	uc_sysctl_knob_names(knob_names, sizeof(knob_names));
}

#define COLUMNS(NUM, TEXT, FLAG) \
	TEXT(KNOB, 0.2, 0, knob_names) \
	NUM(VALUE, 0.1, "capacity units (0..1024)") \
	TEXT(PERCENT, 0.1, SCOLS_FL_RIGHT, "the value as a percentage of 1024") \
	TEXT(SYSCTL, 0.3, 0, "the sysctl that holds it") \
	TEXT(NOTE, 0.3, 0, "why a knob is unavailable") \
	TEXT(MEANING, 0.4, SCOLS_FL_WRAP, "what the knob does")

enum { COLUMNS(CLI_COL_ID, CLI_COL_ID, CLI_COL_ID) NCOLS };
static const struct cli_col cols[] = { COLUMNS(CLI_COL_NUMBER, CLI_COL_TEXT, CLI_COL_FLAG) };

/* Read the knobs; print why not and return the exit code on failure. */
static int read_sysctls(struct uc_sysctl_values *v)
{
	int rc = uc_sysctl_read_all(v);

	if (uc_err_absent(rc))
		return cli_no_uclamp("/proc/sys/kernel/sched_util_clamp_min and _max are missing");
	if (rc) {
		char eb[256];

		cli_errx("cannot read the system clamps in /proc/sys/kernel: %s",
			cli_strerr(UC_KIND_SYSCTL, rc, eb, sizeof(eb)));
		return CLI_EXIT_FAIL;
	}
	return CLI_EXIT_OK;
}

static void usage_show(void)
{
	cli_usage_head(stdout, "system show", show_synopsis);
	printf("\nShow the system-wide clamps (kernel.sched_util_clamp_*).\n\n"
	       "Options:\n" CLI_OUTPUT_OPTS_HELP
	       CLI_HELP_OPTS_HELP
	       "\n%s", knobs_help);
}

static int system_show(struct cli_ctl *ctl, int argc, char **argv)
{
	static const struct cli_opts opts = {
		.shared = CLI_OPTS_OUTPUT, .usage = usage_show,
		.cols = cols, .ncols = NCOLS,
		.no_args = "'system show' takes no arguments",
	};
	struct uc_sysctl_values v;
	struct cli_table t;
	bool absent = false;
	int rc;

	cli_parse_opts(ctl, argc, argv, &opts, NULL);
	rc = read_sysctls(&v);
	if (rc)
		return rc;
	for (size_t i = 0; i < UC_SYSCTL_NKNOBS; i++)
		absent |= *uc_sysctl_field(&v, &uc_sysctl_knobs[i]) == UC_SYSCTL_ABSENT;
	cli_table_or_err(ctl, &t, "system", cols, NCOLS,
			absent ? "KNOB,VALUE,PERCENT,SYSCTL,NOTE" : "KNOB,VALUE,PERCENT,SYSCTL");
	for (size_t i = 0; i < UC_SYSCTL_NKNOBS; i++) {
		const struct uc_sysctl_knob *k = &uc_sysctl_knobs[i];
		struct libscols_line *ln = cli_table_line(&t, NULL);
		long val = uc_sysctl_value(&v, k->attr);
		char pb[32];

		cli_table_set(&t, ln, COL_KNOB, k->knob);
		cli_table_setf(&t, ln, COL_SYSCTL, "kernel.%s", k->file);
		cli_table_set(&t, ln, COL_MEANING, k->meaning);
		if (val == UC_SYSCTL_ABSENT) {
			cli_table_setf(&t, ln, COL_NOTE, "unavailable: the kernel is older than %s",
				       k->since);
			continue;
		}
		cli_table_setf(&t, ln, COL_VALUE, "%ld", val);
		cli_table_set(&t, ln, COL_PERCENT, uc_util_format_pct((int)val, pb, sizeof(pb)));
	}
	cli_table_print(&t, stdout);
	cli_table_free(&t);
	return CLI_EXIT_OK;
}

static const char *why_unwritable(int err, char *buf, size_t n)
{
	if (err == -EROFS)
		return "/proc/sys is read-only here (a container?): change it on the host";
	if ((err == -EACCES || err == -EPERM) && geteuid() != 0)
		return "permission denied: only root can change the system clamps";
	if (err == -EACCES || err == -EPERM)
		return "permission denied even for root "
		       "(a read-only knob: a container or a security policy?)";
	return cli_strerr(UC_KIND_SYSCTL, err, buf, n);
}

static void usage_set(void)
{
	cli_usage_head(stdout, "system set", set_synopsis);
	printf("\nSet the system-wide clamps. Values equal to the current ones are not written.\n"
	       "Writes are ordered so that min <= max holds after each one; an end state\n"
	       "with min > max is refused before anything is written; if a write fails,\n"
	       "the ones already made are restored. Changing any of the three enables the\n"
	       "uclamp fast path until reboot (asks first, or needs --yes).\n\n"
	       "Options:\n%s"
	       CLI_WRITE_OPTS_HELP
	       " -h, --help                display this help\n"
	       "\nValues: %s; 'default' is 1024.\n\n%s", set_options, uc_value_forms, knobs_help);
}

/* Refuse an end state with min > max: say which values and how to fix it. */
static noreturn void refuse_min_above_max(const struct cli_ctl *ctl,
					  const struct uc_sysctl_values *cur,
					  const struct uc_sysctl_values *want)
{
	long min = want->min == UC_KEEP ? cur->min : want->min == UC_RESET ? 1024 : want->min;
	long max = want->max == UC_KEEP ? cur->max : want->max == UC_RESET ? 1024 : want->max;

	cli_usage_error(ctl, "refusing: util_min would be %ld%s above util_max %ld%s; the kernel "
			"requires min <= max: lower --min or raise --max",
			min, want->min == UC_KEEP ? " (current)" : "", max,
			want->max == UC_KEEP ? " (current)" : "");
}

static bool set_opt(struct cli_ctl *ctl, int c, const char *arg, void *data)
{
	const struct uc_sysctl_knob *k;
	char opt[40];

	if (c < OPT_KNOB || c >= OPT_KNOB + UC_SYSCTL_NKNOBS)
		return false;
	k = &uc_sysctl_knobs[c - OPT_KNOB];	/* after the check: no pointer out of the table */
	snprintf(opt, sizeof(opt), "--%s", k->option);
	*uc_sysctl_field(data, k) = cli_util_or_err(ctl, opt, arg);
	return true;
}

/* The plan for want (cli_run's plan()): read the knobs, refuse what cannot be. */
static int sys_plan(struct cli_ctl *ctl, struct uc_plan *plan, unsigned pass, void *data)
{
	const struct uc_sysctl_values *want = data;
	struct uc_sysctl_values cur;
	struct uc_plan_it it = { 0 };
	const struct uc_change *c;
	int rc;

	(void)pass;
	rc = read_sysctls(&cur);
	if (rc)
		return rc;
	for (size_t i = 0; i < UC_SYSCTL_NKNOBS; i++) {
		const struct uc_sysctl_knob *k = &uc_sysctl_knobs[i];

		if (uc_sysctl_value(want, k->attr) == UC_KEEP ||
		    uc_sysctl_value(&cur, k->attr) != UC_SYSCTL_ABSENT)
			continue;
		cli_errx("cannot set --%s: kernel.%s does not exist (the kernel is older than "
			 "%s); nothing changed", k->option, k->file, k->since);
		return CLI_EXIT_NOTSUPP;
	}

	rc = uc_sysctl_plan(plan, &cur, want);
	if (rc == -EINVAL)
		refuse_min_above_max(ctl, &cur, want);
	if (rc) {
		cli_errx("cannot plan the change: %s", strerror(-rc));
		return uc_err_absent(rc) ? CLI_EXIT_NOTSUPP : CLI_EXIT_FAIL;
	}

	/* a read-only /proc/sys (container) or a non-root user: say so before
	 * asking for consent, instead of failing half-way */
	while (!ctl->dry_run && (c = uc_plan_next(plan, &it))) {
		char pb[128], eb[256];
		int err = uc_sysctl_writable(c->attr);

		if (!err)
			continue;
		cli_errx("cannot write %s: %s; nothing changed",
			 uc_sysctl_path(c->attr, pb, sizeof(pb)),
			 why_unwritable(err, eb, sizeof(eb)));
		return uc_err_absent(err) ? CLI_EXIT_NOTSUPP : CLI_EXIT_FAIL;
	}
	return 0;
}

static int system_set(struct cli_ctl *ctl, int argc, char **argv)
{
	struct option longopts[UC_SYSCTL_NKNOBS + 1] = { { NULL, 0, NULL, 0 } };
	char no_args[128];
	const struct cli_opts opts = {
		.longopts = longopts, .shared = CLI_OPTS_WRITE, .own = set_opt,
		.usage = usage_set, .no_args = no_args,
	};
	struct uc_sysctl_values want;
	const struct cli_run how = {
		.mode = UC_EXEC_ATOMIC, .may_ask = true, .plan = sys_plan, .data = &want,
	};
	bool any = false;

	for (size_t i = 0; i < UC_SYSCTL_NKNOBS; i++) {
		longopts[i] = (struct option){ uc_sysctl_knobs[i].option, required_argument, NULL,
					       OPT_KNOB + (int)i };
		*uc_sysctl_field(&want, &uc_sysctl_knobs[i]) = UC_KEEP;
	}
	snprintf(no_args, sizeof(no_args), "give values with %s", knob_opts);
	cli_parse_opts(ctl, argc, argv, &opts, &want);
	for (size_t i = 0; i < UC_SYSCTL_NKNOBS; i++)
		any |= *uc_sysctl_field(&want, &uc_sysctl_knobs[i]) != UC_KEEP;
	if (!any)
		cli_usage_error(ctl, "nothing to set: give %s (one or more)", knob_opts);

	return cli_run_plan(ctl, &how);
}

int cmd_system(struct cli_ctl *ctl, int argc, char **argv)
{
	static const struct cli_command cmds[] = {
		{ "show", system_show, "show the system-wide clamps", show_synopsis },
		{ "set", system_set, "set the system-wide clamps", set_synopsis },
		{ NULL, NULL, NULL, NULL },
	};

	build_texts();
	return cli_dispatch_group(ctl, "system", cmds,
				  "Show or set the system-wide clamps.\n", knobs_help, argc, argv);
}
