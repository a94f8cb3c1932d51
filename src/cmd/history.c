/*
 * uclampctl history [RUN]: the write runs recorded this boot (history.h),
 * a table like every listing; with RUN, what that run changed. The library
 * reads and checks the record; this file renders it, and says why a record
 * is not used (another user could have written it, damaged, too large).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cmd/common.h"
#include "uclamp/history.h"
#include "uclamp/lock.h"

static const char synopsis[] = "[RUN] [options]";

int cli_hist_load(const struct cli_ctl *ctl, struct uc_hist *h)
{
	char why[512];
	int rc = uc_hist_load(h, why, sizeof(why));

	switch (-rc) {
	case 0:
		break;
	case ENOENT:
		cli_errx("no record of this user's runs: %s", why);
		return CLI_EXIT_FAIL;
	case EPERM:
		cli_errx("refused to read the record: %s: a record another user could have "
			 "written is never trusted; remove it to start a new one", why);
		return CLI_EXIT_FAIL;
	case EBADMSG:
	case EFBIG:
		cli_errx("the record is not used: %s; remove it to start a new one", why);
		return CLI_EXIT_FAIL;
	default:
		cli_errx("cannot read the record: %s", why);
		return CLI_EXIT_FAIL;
	}
	if (h->torn)
		cli_warnx(ctl, "the record's last entry was cut short (a crash while it was "
			  "written) and is left out");
	if (h->other_boot)
		cli_verbose(ctl, "the record is another boot's: no runs of this boot yet");
	return 0;
}

unsigned cli_run_arg_or_err(const struct cli_ctl *ctl, int argc, char **argv)
{
	const char *s = argv[optind];
	unsigned long long v;

	if (argc - optind > 1)
		cli_usage_error(ctl, "one RUN at most: got '%s' and '%s'", argv[optind],
				argv[optind + 1]);
	if (optind >= argc)
		return 0;
	if (uc_num_parse(s, 1, 0xffffffffUL, &v) || s[0] == '0')
		cli_usage_error(ctl, "invalid run '%s': give a run's number (see 'uclampctl "
				"history')", s);
	return (unsigned)v;
}

bool cli_hist_flipped(const struct uc_hist_run *r)
{
	return r->key_before == UC_KEY_OFF && r->key_after == UC_KEY_ON;
}

/* A recorded change as a plan's, to name and show it as a plan does. */
void cli_hist_change(const struct uc_hist_change *h, struct uc_change *c)
{
	*c = (struct uc_change){
		.kind = h->kind, .attr = h->attr, .state = h->state, .pid = h->pid,
		.tid = h->tid, .target = h->target, .label = h->label, .from = h->from,
		.to = h->to, .start = h->start,
	};
}

#define COLUMNS(NUM, TEXT, FLAG) \
	NUM(RUN, 3, "the run's number ('uclampctl undo RUN')") \
	TEXT(TIME, 19, SCOLS_FL_STRICTWIDTH, "when it ran (local time)") \
	NUM(UNIXTIME, 10, "when it ran, in seconds since 1970") \
	NUM(UID, 5, "who ran it (user ID)") \
	NUM(CHANGES, 5, "how many changes it planned") \
	TEXT(OUTCOME, 14, 0, "done, failed (undone), interrupted, or stopped (no end recorded)") \
	TEXT(FAST_PATH, 0.05, 0, "'enabled': this run turned the uclamp fast path on") \
	TEXT(UNDO, 11, 0, "'undoes N', 'undone by N', or why it cannot be undone") \
	TEXT(COMMAND, 0.4, SCOLS_FL_WRAP, "the command line") \
	TEXT(TARGET, 0.3, 0, "a change (history RUN): the task, sysctl or cgroup") \
	TEXT(ATTRIBUTE, 0.15, 0, "a change: which value") \
	TEXT(FROM, 0.05, SCOLS_FL_RIGHT, "a change: the value it replaced") \
	TEXT(TO, 0.05, SCOLS_FL_RIGHT, "a change: the value it wrote") \
	TEXT(STATE, 0.1, 0, "a change: done, failed, gone, rolled back, skipped, or planned " \
	     "(the run stopped before its end was recorded)")

enum { COLUMNS(CLI_COL_ID, CLI_COL_ID, CLI_COL_ID) NCOLS };
static const struct cli_col cols[] = { COLUMNS(CLI_COL_NUMBER, CLI_COL_TEXT, CLI_COL_FLAG) };

static const char *outcome_text(const struct uc_hist_run *r, char *buf, size_t n)
{
	size_t failed = 0;

	if (!r->ended)
		return "stopped mid-run";
	for (size_t i = 0; i < r->n; i++)
		failed += r->v[i].state == UC_CH_FAILED || r->v[i].state == UC_CH_ROLLBACK_FAILED;
	switch (r->outcome) {
	case UC_RUN_OK:
		if (!failed)
			return "done";
		snprintf(buf, n, "done, %zu failed", failed);
		return buf;
	case UC_RUN_FAILED:
		return "failed, undone";
	case UC_RUN_INTERRUPTED:
		return "interrupted";
	default:
		return "nothing done";
	}
}

static void run_row(struct cli_table *t, const struct uc_hist_run *r)
{
	struct libscols_line *ln = cli_table_line(t, NULL);
	time_t when = (time_t)r->time;
	char b[64];
	struct tm tm;

	cli_table_set_int(t, ln, COL_RUN, r->id);
	if (localtime_r(&when, &tm) && strftime(b, sizeof(b), "%Y-%m-%d %H:%M:%S", &tm))
		cli_table_set(t, ln, COL_TIME, b);
	cli_table_set_int(t, ln, COL_UNIXTIME, (long)r->time);
	cli_table_set_int(t, ln, COL_UID, (long)r->uid);
	cli_table_set_int(t, ln, COL_CHANGES, (long)r->ntotal);
	cli_table_set(t, ln, COL_OUTCOME, outcome_text(r, b, sizeof(b)));
	cli_table_set(t, ln, COL_FAST_PATH, cli_hist_flipped(r) ? "enabled" : NULL);
	if (r->flags & UC_HIST_TOO_LARGE)
		cli_table_set(t, ln, COL_UNDO, "too large to undo");
	else if (r->undone_by)
		cli_table_setf(t, ln, COL_UNDO, "undone by %u", r->undone_by);
	else if (r->undoes)
		cli_table_setf(t, ln, COL_UNDO, "undoes %u", r->undoes);
	/* the record is the caller's own, still: escaped like any name */
	cli_table_set(t, ln, COL_COMMAND, r->cmdline);
}

static void change_rows(struct cli_table *t, const struct uc_hist_run *r)
{
	for (size_t i = 0; i < r->n; i++) {
		struct libscols_line *ln = cli_table_line(t, NULL);
		struct uc_change c;
		char b[256];

		cli_hist_change(&r->v[i], &c);
		cli_table_set_int(t, ln, COL_RUN, r->id);
		cli_table_set(t, ln, COL_TARGET, uc_change_target(&c, b, sizeof(b)));
		cli_table_set(t, ln, COL_ATTRIBUTE, uc_attr_name(c.kind, c.attr));
		cli_table_set(t, ln, COL_FROM, uc_change_value(&c, c.from, b, sizeof(b)));
		cli_table_set(t, ln, COL_TO, uc_change_value(&c, c.to, b, sizeof(b)));
		cli_table_set(t, ln, COL_STATE, uc_change_state_name(c.state));
	}
}

static void usage(void)
{
	cli_usage_head(stdout, "history", synopsis);
	printf("\nList the runs of the commands that wrote clamps since boot (task set and\n"
	       "reset, run, system set, cgroup set, apply, undo), newest last; with RUN,\n"
	       "what that run changed: each target, the value it replaced and the one it\n"
	       "wrote. 'uclampctl undo RUN' puts a run's values back. Root's runs are\n"
	       "recorded in " UC_LOCK_DIR "/history, a user's in\n"
	       "$XDG_RUNTIME_DIR/uclampctl/history; the watch daemon's writes are not.\n\n"
	       "Options:\n" CLI_OUTPUT_OPTS_HELP CLI_HELP_OPTS_HELP);
}

static int history(struct cli_ctl *ctl, unsigned id)
{
	const struct uc_hist_run *one = NULL;
	struct cli_table t;
	struct uc_hist h;
	int rc;

	cli_table_or_err(ctl, &t, id ? "changes" : "runs", cols, NCOLS,
			 id ? "TARGET,ATTRIBUTE,FROM,TO,STATE" :
			 "RUN,TIME,CHANGES,OUTCOME,FAST_PATH,UNDO,COMMAND");
	rc = cli_hist_load(ctl, &h);
	if (rc) {
		cli_table_free(&t);
		return rc;
	}
	if (id && !(one = uc_hist_find(&h, id))) {
		cli_errx("no run %u in the record ('uclampctl history' lists them)", id);
		rc = CLI_EXIT_FAIL;
	} else if (one && (one->flags & UC_HIST_TOO_LARGE)) {
		cli_errx("run %u planned %zu changes, more than the record keeps of a run: "
			 "they are not recorded", id, one->ntotal);
		rc = CLI_EXIT_FAIL;
	} else if (one) {
		change_rows(&t, one);
	} else {
		for (size_t i = 0; i < h.n; i++)
			run_row(&t, &h.runs[i]);
		/* an empty table prints nothing: say why, where a person reads it */
		if (!h.n && !ctl->out.json && !ctl->out.raw && !ctl->out.noheadings)
			cli_info(ctl, "no write run recorded since boot");
	}
	if (!rc)
		cli_table_print(&t, stdout);
	cli_table_free(&t);
	uc_hist_free(&h);
	return rc;
}

int cmd_history(struct cli_ctl *ctl, int argc, char **argv)
{
	const struct cli_opts opts = {
		.shared = CLI_OPTS_OUTPUT, .usage = usage, .cols = cols, .ncols = NCOLS,
	};

	cli_parse_opts(ctl, argc, argv, &opts, NULL);
	return history(ctl, cli_run_arg_or_err(ctl, argc, argv));
}
