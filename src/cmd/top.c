/*
 * uclampctl top: what clamps do, live. Every -d seconds one pass over /proc
 * (uc_top_sample): per CPU its policy, frequencies, time in each P-state,
 * what ran there and schedutil's projection; per task (the selection, the
 * busiest first) its CPU, util, clamps and the P-state schedutil picks for
 * it. On a terminal the frame is redrawn in place (cursor home, each line
 * cleared to its end, the rest of the screen cleared: no curses); to a pipe
 * frames follow each other; -J writes one JSON object per sample and line.
 * It writes nothing and never flips the static key: getattr and reads.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "cmd/task.h"
#include "cmd/top.h"
#include "uclamp/effective.h"
#include "uclamp/sysroot.h"

enum { OPT_ONCE = 0x300 };

#define DEFAULT_DELAY 2.0
#define DEFAULT_TASKS 10
#define MAX_COUNT 1000000000L

struct top_args {
	struct cli_sel sel;
	double delay;
	long count;		/* 0: until interrupted */
	long ntasks;		/* 0: the default */
	bool once;
};

static void usage(void)
{
	cli_usage_head(stdout, "top", "[options] [PID...]");
	printf("\nWatch what clamps do, refreshed every few seconds: per CPU its cpufreq\n"
	       "policy, governor and driver, current, maximum and average frequency,\n"
	       "capacity, whether the kernel is frequency-invariant, the time in each\n"
	       "P-state over the interval, the highest clamps of the tasks that ran there\n"
	       "and the P-state schedutil picks; per task (the busiest threads, or those\n"
	       "selected) its CPU, PELT util, requested and effective clamps, the util\n"
	       "schedutil is left with after the clamps and the P-state it picks.\n"
	       "Reads only: writes nothing, never enables the uclamp fast path.\n\n"
	       "Options:\n"
	       " -d, --delay <seconds>  time between samples (default 2; 0.1 to 86400)\n"
	       " -n, --iterations <N>   stop after N samples (default: until interrupted)\n"
	       "     --once             one sample, one interval after the start (-n 1)\n"
	       " -t, --tasks <N>        show the N busiest tasks (default 10; every task\n"
	       "                        of the PIDs given)\n"
	       " -J, --json             one JSON object per sample, one per line\n"
	       "     --format <fmt>     text (default) or json\n");
	cli_sel_help();
	printf("                        (top always looks at every thread: -a is implied)\n");
	printf(CLI_HELP_OPTS_HELP);
}

/* --delay: decimal seconds, 0.1 to 86400 (no exponents, no signs) */
static double delay_or_err(const struct cli_ctl *ctl, const char *s)
{
	size_t ip = strspn(s, "0123456789"), fp = 0;
	double v;

	if (s[ip] == '.')
		fp = strspn(s + ip + 1, "0123456789");
	v = ip || fp ? strtod(s, NULL) : -1;
	if (!(ip || fp) || s[ip + (s[ip] == '.' ? 1 + fp : 0)] || ip > 5 || v < 0.1 || v > 86400)
		cli_usage_error(ctl, "invalid value '%s' for --delay: use seconds, 0.1 to 86400 "
				"(a decimal point allowed: 0.5)", s);
	return v;
}

static long count_or_err(const struct cli_ctl *ctl, const char *opt, const char *s, long max)
{
	unsigned long long v;

	if (uc_num_parse(s, 1, (unsigned long long)max, &v))
		cli_usage_error(ctl, "invalid value '%s' for %s: use a whole number, 1 to %ld", s,
				opt, max);
	return (long)v;
}

static bool top_opt(struct cli_ctl *ctl, int c, const char *arg, void *data)
{
	struct top_args *a = data;

	switch (c) {
	case 'd':
		a->delay = delay_or_err(ctl, arg);
		return true;
	case 'n':
		a->count = count_or_err(ctl, "--iterations", arg, MAX_COUNT);
		return true;
	case 't':
		a->ntasks = count_or_err(ctl, "--tasks", arg, 1000000);
		return true;
	case OPT_ONCE:
		a->once = true;
		return true;
	}
	return cli_sel_opt(ctl, c, arg, &a->sel);
}

/* ---- the rows -------------------------------------------------------------------- */

static long long ran_of(const struct uc_top_task *k)
{
	return k->ran > 0 ? k->ran : 0;
}

static int busiest_first(const void *pa, const void *pb)
{
	const struct uc_top_task *a = *(struct uc_top_task *const *)pa;
	const struct uc_top_task *b = *(struct uc_top_task *const *)pb;

	if (ran_of(a) != ran_of(b))
		return ran_of(a) > ran_of(b) ? -1 : 1;
	return a->tid < b->tid ? -1 : a->tid > b->tid;
}

/* the selected tasks, busiest first, the first n of them read in detail */
static int pick_rows(struct uc_top *t, struct top_frame *f, struct uc_top_task ***rows, size_t n)
{
	struct uc_top_task **v = realloc(*rows, (t->ntask ? t->ntask : 1) * sizeof(*v));
	size_t k = 0;

	if (!v)
		return -ENOMEM;
	*rows = v;
	for (size_t i = 0; i < t->ntask; i++)
		if (t->task[i].selected)
			v[k++] = &t->task[i];
	qsort(v, k, sizeof(*v), busiest_first);
	f->row = v;
	f->nrow = k < n ? k : n;
	for (size_t i = 0; i < f->nrow; i++)
		uc_top_detail(t, v[i]);
	return 0;
}

/* ---- the terminal ------------------------------------------------------------------ */

static void term_size(bool tty, size_t *cols, size_t *lines)
{
	struct winsize ws;

	*cols = 80;
	*lines = 0;	/* no limit */
	if (tty && !ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) && ws.ws_col >= 40) {
		*cols = ws.ws_col;
		*lines = ws.ws_row > 2 ? ws.ws_row - 1 : 0;
	}
}

/* One frame: on a terminal over the last one (home, each line cleared to its
 * end, the rest of the screen cleared), at most as many lines as fit. */
static void show(const struct top_frame *f, bool tty, bool json, unsigned long long nth)
{
	char *buf = NULL, *line, *eol;
	size_t len = 0, cols, lines, n = 0;
	FILE *m;

	if (json) {
		top_json(f, stdout);
		fflush(stdout);
		return;
	}
	term_size(tty, &cols, &lines);
	m = open_memstream(&buf, &len);
	if (!m)
		return;
	top_text(f, m, cols);
	fclose(m);
	if (tty)
		fputs("\033[H", stdout);
	else if (nth > 1)
		fputc('\n', stdout);
	for (line = buf; *line && (!lines || n < lines); line = eol + !!*eol, n++) {
		size_t w;

		eol = line + strcspn(line, "\n");
		w = (size_t)(eol - line) < cols ? (size_t)(eol - line) : cols;
		while (w && line[w - 1] == ' ')
			w--;	/* the table's padding */
		printf("%.*s%s\n", (int)w, line, tty ? "\033[K" : "");
	}
	if (tty)
		fputs("\033[J", stdout);
	fflush(stdout);
	free(buf);
}

static void sleep_until(uint64_t *next_ns, double delay)
{
	struct timespec ts;

	*next_ns += (uint64_t)(delay * 1e9);
	ts.tv_sec = (time_t)(*next_ns / 1000000000ull);
	ts.tv_nsec = (long)(*next_ns % 1000000000ull);
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

/* ---- the loop ------------------------------------------------------------------------ */

static int loop(struct cli_ctl *ctl, struct uc_top *t, const struct top_args *a)
{
	bool tty = isatty(STDOUT_FILENO), json = ctl->format == 1;
	size_t n = a->ntasks ? (size_t)a->ntasks : a->sel.npids ? (size_t)-1 : DEFAULT_TASKS;
	struct top_frame f = { .t = t, .delay = a->delay };
	struct uc_top_task **rows = NULL;
	uint64_t next = uc_clock_ns(CLOCK_MONOTONIC);
	int rc = 0;

	for (long i = 0; !rc && (!a->count || i < a->count); i++) {
		sleep_until(&next, a->delay);
		rc = uc_top_sample(t);
		if (!rc)
			rc = pick_rows(t, &f, &rows, n);
		if (rc)
			break;
		top_notes(&f);
		show(&f, tty && !json, json, t->samples - 1);
	}
	free(rows);
	if (rc) {
		cli_errx("cannot sample the tasks: %s", strerror(-rc));
		return CLI_EXIT_FAIL;
	}
	return CLI_EXIT_OK;
}

static int run(struct cli_ctl *ctl, struct top_args *a)
{
	struct uc_effect *e = calloc(1, sizeof(*e));
	struct uc_top t = { .pids = a->sel.pids, .npids = a->sel.npids };
	struct uc_rules rs;
	struct uc_eff eff;
	int rc;

	if (!e || uc_eff_init(&eff)) {
		free(e);
		return cli_oom();
	}
	uc_effect_read_flags(e, UC_EFFECT_NO_WRITE);	/* not even the symbol cache */
	t.e = e;
	t.eff = &eff;
	rc = uc_rules_init(&rs, &a->sel.rule, 1);
	if (!rc) {
		t.rs = &rs;
		rc = uc_top_init(&t);
		if (rc)
			cli_errx("cannot read the tasks in /proc: %s", strerror(-rc));
		else
			rc = loop(ctl, &t, a);
		uc_rules_free(&rs);
	} else {
		cli_oom();
	}
	uc_top_free(&t);
	uc_eff_free(&eff);
	free(e);
	return rc < 0 ? CLI_EXIT_FAIL : rc;
}

int cmd_top(struct cli_ctl *ctl, int argc, char **argv)
{
	static const char *const formats[] = { "text", "json", NULL };
	static const struct option own[] = {
		{ "delay", required_argument, NULL, 'd' },
		{ "iterations", required_argument, NULL, 'n' },
		{ "tasks", required_argument, NULL, 't' },
		{ "once", no_argument, NULL, OPT_ONCE },
		{ NULL, 0, NULL, 0 },
	};
	const struct cli_opts opts = {
		.longopts = cli_sel_longopts(own), .shortopts = "ad:n:t:",
		.shared = CLI_OPTS_FORMAT, .formats = formats, .own = top_opt, .usage = usage,
	};
	struct top_args a = { .delay = DEFAULT_DELAY };
	int rc;

	cli_sel_init(&a.sel);
	cli_parse_opts(ctl, argc, argv, &opts, &a);
	if (a.once && a.count > 1)
		cli_usage_error(ctl, "--once and -n %ld exclude each other: give one", a.count);
	if (a.once)
		a.count = 1;
	cli_sel_pids(ctl, &a.sel, argc, argv, true);
	a.sel.rule.threads = true;	/* the scheduler's unit: every thread */
	rc = cli_sel_ready(ctl, &a.sel, false);
	if (!rc)
		rc = run(ctl, &a);
	cli_sel_free(&a.sel);
	return rc;
}
