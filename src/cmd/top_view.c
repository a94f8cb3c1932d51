/*
 * 'uclampctl top''s two views of a sample: text lines no wider than the
 * terminal (the tables through output.c, every name escaped) and one JSON
 * object per line (json.c; its shape is in uclampctl(8)).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/top.h"
#include "uclamp/escape.h"
#include "uclamp/note.h"

/* ---- what cannot be seen --------------------------------------------------------- */

#define note(f, ...) UC_NOTE_ADD((f)->note, (f)->nnote, __VA_ARGS__)

void top_notes(struct top_frame *f)
{
	const struct uc_top *t = f->t;
	bool no_tis = false;

	f->nnote = 0;
	if (!t->nf)
		note(f, "frequency unaffected: %s", t->e->p[0].reason[UC_EFF_MAX]);
	for (size_t i = 0; i < t->nf; i++)
		no_tis |= t->f[i].delta_rc == -ENODATA;
	if (no_tis)
		note(f, "time in state: a policy has no stats/time_in_state "
			"(CONFIG_CPU_FREQ_STAT)");
	if (t->nf && t->e->inv == UC_INV_UNKNOWN)
		note(f, "frequency invariance unknown (run as root to read the kernel's key): "
			"PRED assumes the invariant formula");
	if (t->no_sched_file)
		note(f, "util: this kernel has no /proc/PID/task/TID/sched (CONFIG_SCHED_DEBUG "
			"before 6.15): no util, no prediction");
	if (!t->no_sched_file && t->no_util_avg)
		note(f, "util: a sched file shows no se.avg.util_avg: no util for its task");
	if (!t->no_sched_file && !t->no_util_avg && t->no_util_est)
		note(f, "util_est: not shown by this kernel (the UTIL_EST feature off?): "
			"util is util_avg alone");
	if (!t->no_sched_file && t->no_eff)
		note(f, "effective clamps: the sched file shows none (no UCLAMP_TASK lines)");
	if (t->denied)
		note(f, "%zu task(s) could not be read (permission denied), e.g. TID %d: "
			"run as root to see them", t->denied, (int)t->denied_tid);
}

/* ---- text ---------------------------------------------------------------------------- */

/* the text escaped, wrapped at spaces to width, continuation lines indented by 2 */
static void wrapped(FILE *out, size_t width, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void wrapped(FILE *out, size_t width, const char *fmt, ...)
{
	char raw[1024], *esc, *s;
	size_t indent = 0;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(raw, sizeof(raw), fmt, ap);
	va_end(ap);
	esc = uc_escape_name_dup(raw);
	for (s = esc; s && *s; indent = 2) {
		size_t room = width > indent + 10 ? width - indent : 10, cut = strlen(s);

		if (cut > room) {
			cut = room;
			while (cut > room / 2 && s[cut] != ' ')
				cut--;
			if (s[cut] != ' ')
				cut = room;
		}
		fprintf(out, "%*s%.*s\n", (int)indent, "", (int)cut, s);
		s += cut;
		s += strspn(s, " ");
	}
	free(esc);
}

static long mhz(long khz)
{
	return (khz + 500) / 1000;
}

static const char *formula_name(const struct uc_top *t)
{
	return uc_sugov_formula_of(t->e->kver) == UC_SUGOV_PRE_6_8 ? "before 6.8" : "6.8+";
}

static bool alike(const struct uc_eff_policy *a, const struct uc_eff_policy *b)
{
	return !strcmp(a->gov, b->gov) && !strcmp(a->driver, b->driver) &&
	       !strcmp(a->mode, b->mode) && a->v[0] == b->v[0] && a->v[1] == b->v[1];
}

/* "policy0-3 schedutil/acpi-cpufreq: min steers, max steers" per run of alike policies */
static void text_policies(const struct top_frame *f, FILE *out, size_t width)
{
	const struct uc_effect *e = f->t->e;

	for (size_t i = 0; i < f->t->nf;) {
		const struct uc_eff_policy *p = &e->p[i];
		size_t j = i, used = 0;
		char ids[32];

		while (j + 1 < f->t->nf && alike(p, &e->p[j + 1]))
			j++;
		/* "policy0-3 " */
		uc_note_range(ids, sizeof(ids), &used, "policy", p->id, e->p[j].id, "");
		wrapped(out, width, "%s%s/%s%s%s: min %s, max %s", ids, p->gov, p->driver,
			p->mode[0] ? " " : "", p->mode, uc_eff_verdict_name(p->v[UC_EFF_MIN]),
			uc_eff_verdict_name(p->v[UC_EFF_MAX]));
		i = j + 1;
	}
}

#define CPU_COLUMNS(NUM, TEXT, FLAG) \
	NUM(CPU, 3, "the CPU") \
	NUM(POL, 3, "its cpufreq policy (N of policyN)") \
	NUM(CUR, 4, "scaling_cur_freq, MHz: the last frequency set") \
	NUM(MAX, 4, "scaling_max_freq, MHz") \
	NUM(AVG, 4, "cpuinfo_avg_freq, MHz (6.13+, with APERF/MPERF or AMU)") \
	NUM(CAP, 4, "capacity: the scale of util and clamps") \
	NUM(BUSY, 5, "share of the interval its tasks ran, %") \
	NUM(UTIL, 4, "util of the tasks that ran there (util_avg or util_est, the larger)") \
	NUM(HI_MIN, 4, "the highest effective uclamp_min among them") \
	NUM(HI_MAX, 4, "the highest effective uclamp_max among them") \
	NUM(PRED, 4, "the P-state schedutil picks for that util, MHz") \
	TEXT(TIME_IN_STATE, 0.3, SCOLS_FL_TRUNC, "time in each P-state over the interval")

/* two tables in one file: their column IDs get their own prefixes */
#define CPU_COL(id, ...) CC_##id,
#define TASK_COL(id, ...) TC_##id,
enum { CPU_COLUMNS(CPU_COL, CPU_COL, CPU_COL) NCPUCOLS };
static const struct cli_col cpu_cols[] = {
	CPU_COLUMNS(CLI_COL_NUMBER, CLI_COL_TEXT, CLI_COL_FLAG)
};

#define TASK_COLUMNS(NUM, TEXT, FLAG) \
	NUM(PID, 5, "process ID") \
	NUM(TID, 5, "thread ID") \
	TEXT(COMM, 0.2, SCOLS_FL_TRUNC, "thread name") \
	NUM(CPU, 3, "the CPU it last ran on") \
	NUM(BUSY, 5, "share of the interval it ran, %") \
	NUM(UTIL, 4, "se.avg.util_avg") \
	NUM(EST, 4, "util_est") \
	NUM(RMIN, 4, "requested uclamp_min") \
	NUM(RMAX, 4, "requested uclamp_max") \
	NUM(EMIN, 4, "effective uclamp_min") \
	NUM(EMAX, 4, "effective uclamp_max") \
	NUM(SUGOV, 5, "the util schedutil is left with after the clamps") \
	NUM(PRED, 4, "the P-state schedutil picks while it runs, MHz")

enum { TASK_COLUMNS(TASK_COL, TASK_COL, TASK_COL) NTASKCOLS };
static const struct cli_col task_cols[] = {
	TASK_COLUMNS(CLI_COL_NUMBER, CLI_COL_TEXT, CLI_COL_FLAG)
};

static void set_num(struct cli_table *tb, struct libscols_line *ln, int col, long v)
{
	if (v >= 0)
		cli_table_set_int(tb, ln, col, v);
}

static void set_pct(struct cli_table *tb, struct libscols_line *ln, int col, double v)
{
	if (v >= 0)
		cli_table_setf(tb, ln, col, "%.1f", v > 100 ? 100.0 : v);
}

static double busy(const struct uc_top *t, long long ticks)
{
	if (ticks < 0 || t->interval <= 0)
		return -1;
	return 100.0 * (double)ticks / ((double)t->hz * t->interval);
}

/* "800:98% 1200:2%": the P-states held, the longest first */
static void tis_text(const struct uc_top_freq *q, char *buf, size_t n)
{
	bool done[UC_EFF_MAX_FREQS] = { false };
	size_t len = 0;

	buf[0] = '\0';
	if (q->delta_rc || !q->total)
		return;
	for (size_t k = 0; k < q->f.n && len < n; k++) {
		size_t best = q->f.n;

		for (size_t i = 0; i < q->f.n; i++)
			if (!done[i] && q->d[i] && (best == q->f.n || q->d[i] > q->d[best]))
				best = i;
		if (best == q->f.n)
			break;
		done[best] = true;
		len += (size_t)snprintf(buf + len, n - len, "%s%ld:%llu%%", len ? " " : "",
					mhz(q->f.khz[best]), 100 * q->d[best] / q->total);
	}
}

static void text_cpus(const struct top_frame *f, FILE *out, size_t width)
{
	const struct cli_out_opts o = { .columns = NULL };
	const struct uc_top *t = f->t;
	struct cli_table tb;
	char tis[256];

	/* no cpufreq: no frequency columns (a line said: frequency unaffected) */
	if (cli_table_init(&tb, "cpus", cpu_cols, NCPUCOLS,
			   t->nf ? "CPU,POL,CUR,MAX,AVG,CAP,BUSY,UTIL,HI_MIN,HI_MAX,PRED,"
				   "TIME_IN_STATE"
				 : "CPU,CAP,BUSY,UTIL,HI_MIN,HI_MAX", &o, NULL))
		return;
	for (size_t i = 0; i < t->ncpu; i++) {
		const struct uc_top_cpu *c = &t->cpu[i];
		const struct uc_top_freq *q = c->policy >= 0 ? &t->f[c->policy] : NULL;
		struct libscols_line *ln = cli_table_line(&tb, NULL);

		cli_table_set_int(&tb, ln, CC_CPU, c->cpu);
		if (q) {
			cli_table_set_int(&tb, ln, CC_POL, t->e->p[c->policy].id);
			set_num(&tb, ln, CC_CUR, q->f.cur > 0 ? mhz(q->f.cur) : -1);
			set_num(&tb, ln, CC_MAX, q->f.max > 0 ? mhz(q->f.max) : -1);
			set_num(&tb, ln, CC_AVG, q->f.avg > 0 ? mhz(q->f.avg) : -1);
			tis_text(q, tis, sizeof(tis));
			cli_table_set(&tb, ln, CC_TIME_IN_STATE, tis);
		}
		cli_table_set_int(&tb, ln, CC_CAP, c->capacity);
		set_pct(&tb, ln, CC_BUSY, busy(t, (long long)c->ran));
		set_num(&tb, ln, CC_UTIL, c->util);
		set_num(&tb, ln, CC_HI_MIN, c->hi_min);
		set_num(&tb, ln, CC_HI_MAX, c->hi_max);
		if (!c->pred_rc)
			set_num(&tb, ln, CC_PRED, mhz(c->pred.settle));
	}
	cli_table_print_width(&tb, out, width);
	cli_table_free(&tb);
}

static void text_tasks(const struct top_frame *f, FILE *out, size_t width)
{
	const struct cli_out_opts o = { .columns = NULL };
	const struct uc_top *t = f->t;
	struct cli_table tb;

	if (cli_table_init(&tb, "tasks", task_cols, NTASKCOLS,
			   "PID,TID,COMM,CPU,BUSY,UTIL,EST,RMIN,RMAX,EMIN,EMAX,SUGOV,PRED", &o,
			   NULL))
		return;
	for (size_t i = 0; i < f->nrow; i++) {
		const struct uc_top_task *k = f->row[i];
		struct libscols_line *ln = cli_table_line(&tb, NULL);
		struct uc_sugov_out p;

		cli_table_set_int(&tb, ln, TC_PID, k->pid);
		cli_table_set_int(&tb, ln, TC_TID, k->tid);
		cli_table_set(&tb, ln, TC_COMM, k->comm);	/* libsmartcols escapes it */
		set_num(&tb, ln, TC_CPU, k->cpu);
		set_pct(&tb, ln, TC_BUSY, busy(t, k->ran));
		if (!k->sf_rc) {
			set_num(&tb, ln, TC_UTIL, k->sf.util_avg);
			set_num(&tb, ln, TC_EST, k->sf.util_est);
		}
		if (!k->attr_rc) {
			cli_table_set_int(&tb, ln, TC_RMIN, (long)k->sa.sched_util_min);
			cli_table_set_int(&tb, ln, TC_RMAX, (long)k->sa.sched_util_max);
		}
		set_num(&tb, ln, TC_EMIN, k->eff_min);
		set_num(&tb, ln, TC_EMAX, k->eff_max);
		if (!uc_top_project(t, k, &p)) {
			cli_table_set_int(&tb, ln, TC_SUGOV, (long)p.util);
			cli_table_set_int(&tb, ln, TC_PRED, mhz(p.settle));
		}
	}
	cli_table_print_width(&tb, out, width);
	cli_table_free(&tb);
}

void top_text(const struct top_frame *f, FILE *out, size_t width)
{
	const struct uc_top *t = f->t;
	const struct uc_effect *e = t->e;

	wrapped(out, width, "uclampctl top: sample %llu, every %g s, Linux %s, schedutil %s",
		t->samples - 1, f->delay, e->release[0] ? e->release : "(unknown)",
		formula_name(t));
	text_policies(f, out, width);
	if (t->nf)
		wrapped(out, width, "frequency-invariant: %s: %s", uc_inv_name(e->inv),
			e->inv_reason);
	for (size_t i = 0; i < f->nnote; i++)
		wrapped(out, width, "%s", f->note[i]);
	fputc('\n', out);
	text_cpus(f, out, width);
	fputc('\n', out);
	if (f->nrow)
		text_tasks(f, out, width);
	else
		wrapped(out, width, "(no selected task)");
}

/* ---- JSON ------------------------------------------------------------------------------ */

static void json_cpu(struct cli_json *j, const struct uc_top *t, const struct uc_top_cpu *c)
{
	const struct uc_top_freq *q = c->policy >= 0 ? &t->f[c->policy] : NULL;

	cli_json_open(j, NULL, '{', true);
	cli_json_int(j, "cpu", c->cpu);
	cli_json_num(j, "policy", q ? t->e->p[c->policy].id : -1);
	cli_json_num(j, "cur_khz", q ? q->f.cur : -1);
	cli_json_num(j, "max_khz", q ? q->f.max : -1);
	cli_json_num(j, "avg_khz", q && q->f.avg > 0 ? q->f.avg : -1);
	cli_json_int(j, "capacity", c->capacity);
	cli_json_int(j, "ran_ms", (long long)(c->ran * 1000 / (unsigned long long)t->hz));
	cli_json_int(j, "tasks", (long long)c->ntasks);
	cli_json_num(j, "util", c->util);
	cli_json_num(j, "highest_min", c->hi_min);
	cli_json_num(j, "highest_max", c->hi_max);
	cli_json_int(j, "rq_min", c->rq_min);
	cli_json_int(j, "rq_max", c->rq_max);
	cli_json_num(j, "predicted_util", c->pred_rc ? -1 : (long long)c->pred.util);
	cli_json_num(j, "predicted_khz", c->pred_rc ? -1 : c->pred.settle);
	if (q && !q->delta_rc) {
		cli_json_open(j, "time_in_state", '[', true);
		for (size_t i = 0; i < q->f.n; i++) {
			cli_json_open(j, NULL, '{', true);
			cli_json_int(j, "khz", q->f.khz[i]);
			cli_json_int(j, "ms", (long long)q->d[i] * 10);
			cli_json_close(j, '}');
		}
		cli_json_close(j, ']');
	} else {
		cli_json_str(j, "time_in_state", NULL);
	}
	cli_json_close(j, '}');
}

static void json_task(struct cli_json *j, const struct uc_top *t, const struct uc_top_task *k)
{
	struct uc_sugov_out p;
	int prc = uc_top_project(t, k, &p);

	cli_json_open(j, NULL, '{', true);
	cli_json_int(j, "pid", k->pid);
	cli_json_int(j, "tid", k->tid);
	cli_json_str(j, "comm", k->comm);
	cli_json_num(j, "cpu", k->cpu);
	cli_json_num(j, "ran_ms", k->ran < 0 ? -1 : k->ran * 1000 / t->hz);
	cli_json_num(j, "util_avg", k->sf_rc ? -1 : k->sf.util_avg);
	cli_json_num(j, "util_est", k->sf_rc ? -1 : k->sf.util_est);
	cli_json_num(j, "util_min", k->attr_rc ? -1 : (long long)k->sa.sched_util_min);
	cli_json_num(j, "util_max", k->attr_rc ? -1 : (long long)k->sa.sched_util_max);
	cli_json_num(j, "eff_min", k->eff_min);
	cli_json_num(j, "eff_max", k->eff_max);
	cli_json_num(j, "sugov_util", prc ? -1 : (long long)p.util);
	cli_json_num(j, "predicted_khz", prc ? -1 : p.settle);
	cli_json_close(j, '}');
}

static void json_policies(struct cli_json *j, const struct uc_top *t)
{
	cli_json_open(j, "policies", '[', true);
	for (size_t i = 0; i < t->nf; i++) {
		const struct uc_eff_policy *p = &t->e->p[i];

		cli_json_open(j, NULL, '{', true);
		cli_json_int(j, "policy", p->id);
		cli_json_str(j, "cpus", p->cpus);
		cli_json_str(j, "governor", p->gov);
		cli_json_str(j, "driver", p->driver);
		cli_json_str(j, "min", uc_eff_verdict_name(p->v[UC_EFF_MIN]));
		cli_json_str(j, "max", uc_eff_verdict_name(p->v[UC_EFF_MAX]));
		cli_json_close(j, '}');
	}
	cli_json_close(j, ']');
}

void top_json(const struct top_frame *f, FILE *out)
{
	const struct uc_top *t = f->t;
	struct cli_json j;

	cli_json_begin(&j, out, 0);
	cli_json_int(&j, "sample", (long long)t->samples - 1);
	cli_json_double(&j, "interval", t->interval);
	cli_json_str(&j, "kernel", t->e->release);
	cli_json_str(&j, "formula", formula_name(t));
	cli_json_str(&j, "frequency", t->nf ? "cpufreq" : uc_eff_verdict_name(t->e->p[0].v[1]));
	cli_json_str(&j, "invariant", uc_inv_name(t->e->inv));
	cli_json_str(&j, "invariant_reason", t->e->inv_reason);
	json_policies(&j, t);
	cli_json_open(&j, "cpus", '[', true);
	for (size_t i = 0; i < t->ncpu; i++)
		json_cpu(&j, t, &t->cpu[i]);
	cli_json_close(&j, ']');
	cli_json_open(&j, "tasks", '[', true);
	for (size_t i = 0; i < f->nrow; i++)
		json_task(&j, t, f->row[i]);
	cli_json_close(&j, ']');
	cli_json_open(&j, "notes", '[', true);
	for (size_t i = 0; i < f->nnote; i++)
		cli_json_str(&j, NULL, f->note[i]);
	cli_json_close(&j, ']');
	cli_json_end(&j);
}
