/*
 * The command line after the command's name: every command's option loop (the
 * shared groups and the global options handled once, the command's own handed
 * to its callback, one wording for every bad option) and the *_or_err parsers.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/common.h"
#include "uclamp/note.h"
#include "uclamp/value.h"
#include "uclamp/sched.h"

/* getopt_long (opterr = 0) returned c for a bad option: one line naming it, exit 2 */
static noreturn void bad_option(const struct cli_ctl *ctl, int c, char **argv)
{
	if (c == ':')
		cli_usage_error(ctl, "option '%s' needs a value", argv[optind - 1]);
	if (optopt)
		cli_usage_error(ctl, "unknown option '-%c'", optopt);
	cli_usage_error(ctl, "unknown option '%s'", argv[optind - 1]);
}

/* The shared groups' long options, in the order cli_parse_opts adds them. */
static const struct option output_longopts[] = {
	{ "output", required_argument, NULL, 'o' },
	{ "json", no_argument, NULL, 'J' },
	{ "raw", no_argument, NULL, 'r' },
	{ "noheadings", no_argument, NULL, 'n' },
	{ "list-columns", no_argument, NULL, CLI_OPT_LIST_COLUMNS },
	{ NULL, 0, NULL, 0 },
};
static const struct option write_longopts[] = {
	{ "yes", no_argument, NULL, 'y' },
	{ "dry-run", no_argument, NULL, 'n' },
	{ NULL, 0, NULL, 0 },
};
/* a write's report as JSON; a command with --format (watch) has -J there */
static const struct option report_longopts[] = {
	{ "json", no_argument, NULL, 'J' },
	{ NULL, 0, NULL, 0 },
};
static const struct option format_longopts[] = {
	{ "json", no_argument, NULL, 'J' },
	{ "format", required_argument, NULL, CLI_OPT_FORMAT },
	{ NULL, 0, NULL, 0 },
};
static const struct option help_longopts[] = {
	{ "help", no_argument, NULL, 'h' },
	CLI_GLOBAL_LONGOPTS,
	{ NULL, 0, NULL, 0 },
};

/* --wait SECONDS: 0 (do not wait) to a day */
static int wait_or_err(const struct cli_ctl *ctl, const char *s)
{
	unsigned long long v;

	if (uc_num_parse(s, 0, 86400, &v))
		cli_usage_error(ctl, "invalid value '%s' for --wait: use whole seconds, 0 to 86400 "
				"(0: do not wait for the uclampctl lock)", s);
	return (int)v;
}

bool cli_global_opt(struct cli_ctl *ctl, int c, const char *arg)
{
	switch (c) {
	case 'q':
		ctl->quiet = true;
		return true;
	case 'v':
		ctl->verbose++;
		return true;
	case CLI_OPT_WAIT:
		ctl->wait_s = wait_or_err(ctl, arg);
		return true;
	case 'V':
		printf("uclampctl %s\n", PACKAGE_VERSION);
		exit(CLI_EXIT_OK);
	}
	return false;
}

#define MAX_LONGOPTS 32

/* Append a NULL-ended option array to all[*n] (the caller sized all). */
static void add_longopts(struct option *all, size_t *n, const struct option *o)
{
	for (; o && o->name && *n < MAX_LONGOPTS - 1; o++)
		all[(*n)++] = *o;
	all[*n] = (struct option){ NULL, 0, NULL, 0 };
}

static int format_or_err(const struct cli_ctl *ctl, const struct cli_opts *o, const char *arg)
{
	/* --format's plain word is "text" everywhere; 'watch status' said "table"
	 * before: still accepted, so that scripts keep working (not offered) */
	const char *word = strcmp(arg, "table") ? arg : "text";
	char words[128];

	for (int i = 0; o->formats[i]; i++)
		if (!strcmp(o->formats[i], word))
			return i;
	uc_note_words(words, sizeof(words), "", o->formats, 0);
	cli_usage_error(ctl, "invalid format '%s' for --format: use %s", arg, words);
}

/* A missing value: say what the option takes where the parser knows it. */
static noreturn void needs_value(const struct cli_ctl *ctl, const struct cli_opts *o,
				 char **argv)
{
	char words[128];

	if ((o->shared & CLI_OPTS_OUTPUT) && optopt == 'o')
		cli_usage_error(ctl, "option '%s' needs a value: a list of columns "
				"(see --list-columns)", argv[optind - 1]);
	if ((o->shared & CLI_OPTS_FORMAT) && optopt == CLI_OPT_FORMAT) {
		uc_note_words(words, sizeof(words), "", o->formats, 0);
		cli_usage_error(ctl, "option '%s' needs a value: %s", argv[optind - 1], words);
	}
	bad_option(ctl, ':', argv);
}

/* One of the shared groups' options: true when it was (and is now handled). */
static bool shared_opt(struct cli_ctl *ctl, const struct cli_opts *o, int c, const char *arg)
{
	if (o->shared & CLI_OPTS_OUTPUT) {
		switch (c) {
		case 'o': ctl->out.columns = arg; return true;
		case 'J': ctl->out.json = true; return true;
		case 'r': ctl->out.raw = true; return true;
		case 'n': ctl->out.noheadings = true; return true;
		}
	}
	if (o->shared & CLI_OPTS_WRITE) {
		switch (c) {
		case 'y': ctl->yes = true; return true;
		case 'n': ctl->dry_run = true; return true;
		}
		if (c == 'J' && !(o->shared & CLI_OPTS_FORMAT)) {
			ctl->json = true;
			return true;
		}
	}
	if ((o->shared & CLI_OPTS_FORMAT) && (c == 'J' || c == CLI_OPT_FORMAT)) {
		ctl->format = format_or_err(ctl, o, c == 'J' ? "json" : arg);
		ctl->format_given = true;
		return true;
	}
	return false;
}

void cli_parse_opts(struct cli_ctl *ctl, int argc, char **argv, const struct cli_opts *o,
		    void *data)
{
	struct option longopts[MAX_LONGOPTS];
	char shortopts[64];
	size_t n = 0;
	int c;

	add_longopts(longopts, &n, o->longopts);
	add_longopts(longopts, &n, o->shared & CLI_OPTS_OUTPUT ? output_longopts : NULL);
	add_longopts(longopts, &n, o->shared & CLI_OPTS_WRITE ? write_longopts : NULL);
	add_longopts(longopts, &n,
		     (o->shared & (CLI_OPTS_WRITE | CLI_OPTS_FORMAT)) == CLI_OPTS_WRITE ?
		     report_longopts : NULL);
	add_longopts(longopts, &n, o->shared & CLI_OPTS_FORMAT ? format_longopts : NULL);
	add_longopts(longopts, &n, help_longopts);
	/* ':' first: a missing value comes back as ':' (needs_value); -J: report or format */
	snprintf(shortopts, sizeof(shortopts), "%s:%s%s%s%sh" CLI_GLOBAL_SHORTOPTS,
		 o->stop_at_arg ? "+" : "",
		 o->shortopts ? o->shortopts : "", o->shared & CLI_OPTS_OUTPUT ? "o:Jrn" : "",
		 o->shared & CLI_OPTS_WRITE ? "yn" : "",
		 o->shared & (CLI_OPTS_WRITE | CLI_OPTS_FORMAT) ? "J" : "");
	opterr = 0;
	while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		if (shared_opt(ctl, o, c, optarg) || cli_global_opt(ctl, c, optarg))
			continue;
		if (o->own && o->own(ctl, c, optarg, data))
			continue;
		if (c == 'h') {
			o->usage();
			exit(CLI_EXIT_OK);
		}
		if (c == CLI_OPT_LIST_COLUMNS && (o->shared & CLI_OPTS_OUTPUT)) {
			for (size_t i = 0; i < o->ncols; i++)
				printf(" %14s  %s\n", o->cols[i].name, o->cols[i].help);
			exit(CLI_EXIT_OK);
		}
		if (c == ':')
			needs_value(ctl, o, argv);
		bad_option(ctl, c, argv);
	}
	if (o->no_args && optind < argc)
		cli_usage_error(ctl, "unexpected argument '%s': %s", argv[optind], o->no_args);
}

const char *cli_opt_name(const struct option *longopts, int c)
{
	for (; longopts->name; longopts++)
		if (longopts->val == c)
			return longopts->name;
	return "?";
}

/* ---- option values ---- */

void cli_value_or_err(const struct cli_ctl *ctl, const char *opt, const char *s, struct uc_value *v)
{
	int rc = uc_value_parse(s, v);

	if (rc == 0)
		return;
	cli_usage_error(ctl, "invalid value '%s' for %s: %s; use %s", s, opt,
		       rc == -ERANGE ? "out of range" : "not a clamp value", uc_value_forms);
}

int cli_util_or_err(const struct cli_ctl *ctl, const char *opt, const char *s)
{
	struct uc_value v;

	cli_value_or_err(ctl, opt, s, &v);
	return v.util;
}

pid_t cli_pid_or_err(const struct cli_ctl *ctl, const char *s)
{
	pid_t pid = 0;

	if (uc_pid_parse(s, &pid))
		cli_usage_error(ctl, "invalid PID '%s': use a positive decimal process ID", s);
	return pid;
}

void cli_table_or_err(const struct cli_ctl *ctl, struct cli_table *t, const char *json_name,
		     const struct cli_col *cols, size_t ncols, const char *defaults)
{
	const char *bad = NULL;
	int rc = cli_table_init(t, json_name, cols, ncols, defaults, &ctl->out, &bad);

	if (rc == -EINVAL)
		cli_usage_error(ctl, "unknown column '%.*s' for --output: see --list-columns",
			       bad ? (int)strcspn(bad, ",") : 0, bad ? bad : "");
	if (rc) {
		cli_errx("cannot set up the table: %s", strerror(-rc));
		exit(CLI_EXIT_FAIL);
	}
}
