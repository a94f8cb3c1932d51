/*
 * uclampctl status: the one page an admin reads first (uclamp/sysinfo.h and
 * effect.h read it), as text, JSON (-J) or Prometheus text.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/common.h"
#include "cmd/status_prom.h"
#include "uclamp/cgroup.h"
#include "uclamp/effect.h"
#include "uclamp/escape.h"
#include "uclamp/fastpath.h"
#include "uclamp/note.h"
#include "uclamp/sysctl.h"
#include "uclamp/sysinfo.h"
#include "uclamp/sysroot.h"

enum format { FMT_TEXT, FMT_JSON, FMT_PROMETHEUS };

static const char *const clamp[UC_EFF_NCLAMPS] = { "min", "max" };	/* by UC_EFF_MIN/MAX */

/* ---- text ---- */

static void row(const char *label, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void row(const char *label, const char *fmt, ...)
{
	static int width = -1;
	char prefix[32];
	va_list ap;

	/* on a terminal, wrapped to its width under the value column; into a pipe
	 * one line per row */
	if (width < 0)
		width = cli_term_width(stdout);
	snprintf(prefix, sizeof(prefix), "%-13s ", label);
	va_start(ap, fmt);
	cli_vline_width(stdout, prefix, width, fmt, ap);	/* evidence names tasks, cgroups */
	va_end(ap);
}

static const char *yes_no(int v)
{
	return v > 0 ? "yes" : v == 0 ? "no" : "unknown";
}

/* Whether the kernel has the static key at all (5.9+, 5.4.62+): said in words,
 * since a bare "yes" read as "the key is on" */
static const char *key_presence(const struct uc_sysinfo *s)
{
	if (s->fp.has_key > 0)
		return "present";
	if (s->fp.has_key < 0)
		return "unknown";
	return s->task > 0 ? "absent (5.3-5.8: the fast path is always on)" : "absent";
}

static void print_governors(const struct uc_sysinfo *s)
{
	char line[512];
	size_t used = 0;

	if (s->gov_rc || !s->ngov) {
		row("cpufreq", "no cpufreq policies (clamps cannot steer CPU frequency here)");
		return;
	}
	line[0] = '\0';
	for (size_t i = 0, j; i < s->ngov && used < sizeof(line); i = j + 1) {
		for (j = i; j + 1 < s->ngov && !strcmp(s->gov[j + 1].gov, s->gov[i].gov) &&
			    s->gov[j + 1].id == s->gov[j].id + 1;)
			j++;
		uc_note_range(line, sizeof(line), &used, "policy", s->gov[i].id, s->gov[j].id,
			      s->gov[i].gov);
	}
	row("cpufreq", "%s", line);
	if (s->nschedutil < s->ngov)
		row("", "clamps act on frequency only under schedutil (%zu of %zu policies)",
		    s->nschedutil, s->ngov);
}

/* the policies whose rows say the same, as "policy0-3" or "policy4" */
static bool same_row(const struct uc_eff_policy *a, const struct uc_eff_policy *b)
{
	return a->v[0] == b->v[0] && a->v[1] == b->v[1] && !strcmp(a->gov, b->gov) &&
	       !strcmp(a->driver, b->driver) && !strcmp(a->mode, b->mode) &&
	       !strcmp(a->reason[0], b->reason[0]) && !strcmp(a->reason[1], b->reason[1]);
}

static void print_effect(const struct cli_ctl *ctl, const struct uc_effect *e)
{
	for (size_t i = 0; i < e->n;) {
		const struct uc_eff_policy *p = &e->p[i];
		size_t j = i, used = 0;
		char name[128], what[96];

		while (j + 1 < e->n && same_row(p, &e->p[j + 1]))
			j++;
		if (p->id < 0) {
			row("frequency", "%s: %s", uc_eff_verdict_name(p->v[UC_EFF_MAX]),
			    p->reason[UC_EFF_MAX]);
			for (size_t k = 0; ctl->verbose && k < p->nevidence; k++)
				row("", "  read %s", p->evidence[k]);
			break;
		}
		snprintf(what, sizeof(what), "%s/%s%s%s", p->gov, p->driver, p->mode[0] ? " " : "",
			 p->mode);
		uc_note_range(name, sizeof(name), &used, "policy", p->id, e->p[j].id, what);
		row(i ? "" : "frequency", "%s: min %s, max %s", name,
		    uc_eff_verdict_name(p->v[UC_EFF_MIN]), uc_eff_verdict_name(p->v[UC_EFF_MAX]));
		if (!strcmp(p->reason[0], p->reason[1]))
			row("", "  %s", p->reason[0]);
		else
			for (int c = 0; c < UC_EFF_NCLAMPS; c++)
				row("", "  %s: %s", clamp[c], p->reason[c]);
		if (p->fix[0])
			row("", "  to change: %s", p->fix);
		for (size_t k = 0; ctl->verbose && k < p->nevidence; k++)
			row("", "  read %s", p->evidence[k]);
		i = j + 1;
	}
	row("placement", "%s: %s", uc_place_verdict_name(e->place), e->place_reason);
	for (size_t k = 0; ctl->verbose && k < e->nplace_evidence; k++)
		row("", "  read %s", e->place_evidence[k]);
	row("invariance", "%s: %s", uc_inv_name(e->inv), e->inv_reason);
	for (size_t k = 0; ctl->verbose && k < e->ninv_evidence; k++)
		row("", "  read %s", e->inv_evidence[k]);
}

static void print_text(const struct cli_ctl *ctl, const struct uc_sysinfo *s,
		       const struct uc_effect *e)
{
	const struct uc_fastpath *fp = &s->fp;
	const struct uc_fp_scan *sc = &fp->scan;

	row("kernel", "%s", s->release[0] ? s->release : "unknown");
	row("uclamp", "tasks %s, cgroups %s, static key sched_uclamp_used %s", yes_no(s->task),
	    yes_no(s->task_group), key_presence(s));
	if (fp->source == UC_FP_SRC_NONE)
		row("fast path", "%s", uc_key_state_name(fp->state));
	else
		row("fast path", "%s (source: %s)", uc_key_state_name(fp->state),
		    uc_fp_source_name(fp->source));
	row("", "%s", fp->how);
	for (size_t i = 0; i < fp->nevidence; i++)
		row(i ? "" : "evidence", "%s", fp->evidence[i]);
	if (ctl->verbose)
		for (size_t i = 0; i < fp->nunavailable; i++)
			row(i ? "" : "unavailable", "%s", fp->unavailable[i]);
	else if (fp->nunavailable && fp->state == UC_KEY_UNKNOWN)
		row("", "(uclampctl status -v says why the key could not be read)");
	if (fp->state == UC_KEY_UNSUPPORTED)
		goto tail;
	if (fp->sysctls) {
		char knobs[256];
		size_t len = 0;

		for (size_t i = 0; i < UC_SYSCTL_NKNOBS && len < sizeof(knobs); i++) {
			const struct uc_sysctl_knob *k = &uc_sysctl_knobs[i];
			long v = uc_sysctl_value(&sc->sys, k->attr);
			char val[32];

			if (v == UC_SYSCTL_ABSENT)
				snprintf(val, sizeof(val), "n/a (before %s)", k->since);
			else
				snprintf(val, sizeof(val), "%ld", v);
			len += (size_t)snprintf(knobs + len, sizeof(knobs) - len, "%s%s %s",
						i ? ", " : "", k->knob, val);
		}
		row("system", "%s", knobs);
	}
	if (!fp->sysctls && !uc_err_absent(sc->sys_rc))
		row("system", "cannot read the sysctls: %s", strerror(-sc->sys_rc));
	if (uc_err_absent(s->cg_rc))
		row("cgroup", "no cpu controller hierarchy mounted");
	else if (s->cg_rc)
		row("cgroup", "cannot find the cgroup hierarchies: %s", strerror(-s->cg_rc));
	else if (s->cg.hybrid)
		row("cgroup", "v1 cpu at %s (hybrid; v2 at %s)", s->cg.mount, s->cg.unified);
	else
		row("cgroup", "v%d at %s", (int)s->cg.version, s->cg.mount);
	row("clamped", "%zu of %zu threads, %zu of %zu cgroups request non-default clamps",
	    sc->tasks_nondefault, sc->tasks, sc->cgroups_nondefault, sc->cgroups);
tail:
	print_governors(s);
	print_effect(ctl, e);
	/* the same answer as JSON's cpu_capacity.asymmetric */
	if (e->asymmetric == 1)
		row("capacity", "asymmetric%s%s", e->caps[0] ? ": " : "", e->caps);
	else if (e->asymmetric == 0)
		row("capacity", "symmetric%s%s%s", e->caps[0] ? " (" : "", e->caps,
		    e->caps[0] ? ")" : "");
	else
		row("capacity", "unknown (no cpu_capacity files, sched_asym_cpucapacity unread)");
	if (s->scx_rc)
		row("sched_ext", "not available");
	else
		row("sched_ext", "%s%s%s", s->scx, s->scx_ops[0] ? ", ops " : "", s->scx_ops);
	row("lockdown", "%s", s->ld_rc ? "not available" : s->lockdown);
	row("advice", "%s", s->advice);
}

/* ---- JSON ---- */

static void json_effect(struct cli_json *j, const struct uc_effect *e)
{
	char buf[32];

	cli_json_open(j, "effect", '{', false);
	cli_json_open(j, "policies", '[', false);
	for (size_t i = 0; i < e->n; i++) {
		const struct uc_eff_policy *p = &e->p[i];

		cli_json_open(j, NULL, '{', false);
		snprintf(buf, sizeof(buf), "policy%d", p->id);
		cli_json_str(j, "policy", p->id < 0 ? NULL : buf);
		cli_json_str(j, "cpus", p->cpus[0] ? p->cpus : NULL);
		cli_json_str(j, "governor", p->gov[0] ? p->gov : NULL);
		cli_json_str(j, "driver", p->driver[0] ? p->driver : NULL);
		cli_json_str(j, "mode", p->mode[0] ? p->mode : NULL);
		for (int c = 0; c < UC_EFF_NCLAMPS; c++) {
			cli_json_open(j, clamp[c], '{', true);
			cli_json_str(j, "verdict", uc_eff_verdict_name(p->v[c]));
			cli_json_str(j, "reason", p->reason[c]);
			cli_json_close(j, '}');
		}
		cli_json_str(j, "fix", p->fix[0] ? p->fix : NULL);
		cli_json_strs(j, "evidence", p->evidence, p->nevidence);
		cli_json_close(j, '}');
	}
	cli_json_close(j, ']');
	cli_json_open(j, "placement", '{', false);
	cli_json_str(j, "verdict", uc_place_verdict_name(e->place));
	cli_json_str(j, "reason", e->place_reason);
	cli_json_tri(j, "asymmetric", e->asymmetric);
	cli_json_tri(j, "eas", e->eas);
	cli_json_tri(j, "sched_ext", e->scx);
	cli_json_str(j, "scheduler", e->scx_ops[0] ? e->scx_ops : NULL);
	cli_json_strs(j, "evidence", e->place_evidence, e->nplace_evidence);
	cli_json_close(j, '}');
	cli_json_open(j, "invariance", '{', false);
	cli_json_str(j, "state", uc_inv_name(e->inv));
	cli_json_str(j, "reason", e->inv_reason);
	cli_json_strs(j, "evidence", e->inv_evidence, e->ninv_evidence);
	cli_json_close(j, '}');
	cli_json_close(j, '}');
}

static void print_json(const struct uc_sysinfo *s, const struct uc_effect *e)
{
	const struct uc_fastpath *fp = &s->fp;
	const struct uc_fp_scan *sc = &fp->scan;
	struct cli_json j;
	char buf[64];

	cli_json_begin(&j, stdout, 3);
	cli_json_open(&j, "kernel", '{', false);
	cli_json_str(&j, "release", s->release[0] ? s->release : NULL);
	cli_json_tri(&j, "uclamp_task", s->task);
	cli_json_tri(&j, "uclamp_task_group", s->task_group);
	cli_json_tri(&j, "static_key", fp->has_key);
	cli_json_close(&j, '}');

	cli_json_open(&j, "fast_path", '{', false);
	cli_json_str(&j, "state", uc_key_state_name(fp->state));
	cli_json_str(&j, "source",
		     fp->source == UC_FP_SRC_NONE ? NULL : uc_fp_source_name(fp->source));
	cli_json_str(&j, "how", fp->how);
	if (fp->value_read) {
		cli_json_int(&j, "value", fp->value);
		snprintf(buf, sizeof(buf), "%#llx", (unsigned long long)fp->addr);
		cli_json_str(&j, "address", buf);
	} else {
		cli_json_str(&j, "value", NULL);
		cli_json_str(&j, "address", NULL);
	}
	cli_json_strs(&j, "evidence", fp->evidence, fp->nevidence);
	cli_json_strs(&j, "unavailable", fp->unavailable, fp->nunavailable);
	cli_json_close(&j, '}');

	cli_json_open(&j, "system", '{', false);
	for (size_t i = 0; i < UC_SYSCTL_NKNOBS; i++) {
		const struct uc_sysctl_knob *k = &uc_sysctl_knobs[i];
		long v = fp->sysctls ? uc_sysctl_value(&sc->sys, k->attr) : UC_SYSCTL_ABSENT;

		if (v == UC_SYSCTL_ABSENT)
			cli_json_str(&j, k->knob, NULL);
		else
			cli_json_int(&j, k->knob, v);
	}
	cli_json_close(&j, '}');

	cli_json_open(&j, "cgroup", '{', false);
	cli_json_num(&j, "version", s->cg_rc ? -1 : (int)s->cg.version);
	cli_json_tri(&j, "hybrid", s->cg_rc ? -1 : s->cg.hybrid);
	cli_json_open(&j, "mounts", '[', false);
	if (!s->cg_rc)
		cli_json_str(&j, NULL, s->cg.mount);
	if (!s->cg_rc && s->cg.hybrid)
		cli_json_str(&j, NULL, s->cg.unified);
	cli_json_close(&j, ']');
	cli_json_close(&j, '}');

	cli_json_open(&j, "clamped", '{', false);
	cli_json_tri(&j, "scanned", sc->done && sc->complete);
	cli_json_int(&j, "threads", (long long)sc->tasks);
	cli_json_int(&j, "threads_nondefault", (long long)sc->tasks_nondefault);
	cli_json_int(&j, "cgroups", (long long)sc->cgroups);
	cli_json_int(&j, "cgroups_nondefault", (long long)sc->cgroups_nondefault);
	cli_json_close(&j, '}');

	cli_json_open(&j, "governors", '{', false);
	for (size_t i = 0; i < s->ngov; i++) {
		snprintf(buf, sizeof(buf), "policy%d", s->gov[i].id);
		cli_json_str(&j, buf, s->gov[i].gov);
	}
	cli_json_close(&j, '}');

	cli_json_open(&j, "cpu_capacity", '{', false);
	cli_json_tri(&j, "asymmetric", e->asymmetric);
	cli_json_str(&j, "capacities", s->cap_rc >= 0 ? s->caps : NULL);
	cli_json_close(&j, '}');
	json_effect(&j, e);

	cli_json_open(&j, "sched_ext", '{', false);
	cli_json_str(&j, "state", s->scx_rc ? NULL : s->scx);
	cli_json_str(&j, "ops", s->scx_ops[0] ? s->scx_ops : NULL);
	cli_json_close(&j, '}');
	cli_json_str(&j, "lockdown", s->ld_rc ? NULL : s->lockdown);
	cli_json_str(&j, "advice", s->advice);
	cli_json_end(&j);
}

/* ---- Prometheus text format (node_exporter textfile collector) ---- */

static int state_value(enum uc_key_state st)
{
	static const int values[] = { -1, 0, 1, 2, -2 };	/* by enum uc_key_state */

	return UC_NAME(values, st, -1);
}

static void prom_effect(const struct uc_effect *e)
{
	cli_prom_head("uclamp_clamps_effective",
		      "Whether a clamp changes the CPU frequency, per cpufreq policy "
		      "(policy=\"none\": no cpufreq): 2 steers (bounds it), 1 request only "
		      "(the hardware may run faster), 0 no effect, -1 unknown.", "gauge");
	for (size_t i = 0; i < e->n; i++)
		for (int c = 0; c < UC_EFF_NCLAMPS; c++) {
			if (e->p[i].id < 0)
				fputs("uclamp_clamps_effective{policy=\"none\"", stdout);
			else
				printf("uclamp_clamps_effective{policy=\"policy%d\"", e->p[i].id);
			printf(",clamp=\"%s\",verdict=\"%s\"} %d\n", clamp[c],
			       uc_eff_verdict_name(e->p[i].v[c]),
			       uc_eff_verdict_value(e->p[i].v[c]));
		}
	cli_prom_head("uclamp_clamps_placement",
		      "Whether clamps steer task placement: 1 yes (asymmetric capacities), 0 no "
		      "(symmetric, or a sched_ext scheduler places tasks), -1 unknown.", "gauge");
	printf("uclamp_clamps_placement{verdict=\"%s\"} %d\n", uc_place_verdict_name(e->place),
	       e->place == UC_PLACE_STEERS ? 1 : e->place == UC_PLACE_UNKNOWN ? -1 : 0);
	cli_prom_gauge("uclamp_frequency_invariant",
		       "Whether the kernel is frequency-invariant here: 1 yes, 0 no (schedutil "
		       "scales the current frequency: uclamp_min <= 819 cannot raise it), "
		       "-1 unknown.",
		       e->inv == UC_INV_YES ? 1 : e->inv == UC_INV_NO ? 0 : -1);
}

static void print_prometheus(const struct uc_sysinfo *s, const struct uc_effect *e)
{
	const struct uc_fastpath *fp = &s->fp;
	const struct uc_fp_scan *sc = &fp->scan;

	cli_prom_head("uclamp_fast_path_state",
		      "The uclamp fast path (static key sched_uclamp_used): 0 off, 1 on, "
		      "2 always-on, -1 unknown, -2 no uclamp.", "gauge");
	printf("uclamp_fast_path_state{state=\"%s\",source=\"%s\"} %d\n",
	       uc_key_state_name(fp->state),
	       fp->source == UC_FP_SRC_NONE ? "none" : uc_fp_source_name(fp->source),
	       state_value(fp->state));
	cli_prom_head("uclamp_supported", "Whether the kernel has uclamp: 1 yes, 0 no, -1 unknown.",
		      "gauge");
	printf("uclamp_supported{part=\"task\"} %d\n", s->task);
	printf("uclamp_supported{part=\"task_group\"} %d\n", s->task_group);
	printf("uclamp_supported{part=\"static_key\"} %d\n", fp->has_key);
	if (fp->sysctls) {
		cli_prom_head("uclamp_system_clamp",
			      "System-wide clamps (kernel.sched_util_clamp_*), "
			      "capacity units 0..1024.", "gauge");
		for (size_t i = 0; i < UC_SYSCTL_NKNOBS; i++) {
			const struct uc_sysctl_knob *k = &uc_sysctl_knobs[i];
			long val = uc_sysctl_value(&sc->sys, k->attr);

			if (val != UC_SYSCTL_ABSENT)
				printf("uclamp_system_clamp{sysctl=\"%s\"} %ld\n", k->file, val);
		}
	}
	if (sc->done) {
		cli_prom_gauge("uclamp_threads", "Threads scanned.", (long long)sc->tasks);
		cli_prom_gauge("uclamp_threads_nondefault",
			       "Threads requesting clamps other than the defaults.",
			       (long long)sc->tasks_nondefault);
		cli_prom_gauge("uclamp_cgroups", "Non-root cgroups of the cpu hierarchy.",
			       (long long)sc->cgroups);
		cli_prom_gauge("uclamp_cgroups_nondefault",
			       "Cgroups with cpu.uclamp.min/max other than 0.00/max.",
			       (long long)sc->cgroups_nondefault);
	}
	cli_prom_head("uclamp_cpufreq_policies", "cpufreq policies by governor "
		      "(clamps act on frequency only under schedutil).", "gauge");
	for (size_t i = 0; i < s->ngov; i++) {
		char label[sizeof(s->gov[i].gov) * 3];	/* at most 3 bytes each, escaped */
		size_t n = 0;
		bool seen = false;

		for (size_t k = 0; k < i && !seen; k++)
			seen = !strcmp(s->gov[k].gov, s->gov[i].gov);
		if (seen)
			continue;
		for (size_t k = i; k < s->ngov; k++)
			n += !strcmp(s->gov[k].gov, s->gov[i].gov);
		uc_prom_label(s->gov[i].gov, label, sizeof(label));
		printf("uclamp_cpufreq_policies{governor=\"%s\"} %zu\n", label, n);
	}
	if (e->asymmetric >= 0)
		cli_prom_gauge("uclamp_cpu_capacity_asymmetric",
			       "1 when CPUs have different capacities (cpu_capacity or "
			       "sched_asym_cpucapacity).", e->asymmetric);
	prom_effect(e);
}

/* prometheus: the state, then the configuration and the watch daemon */
struct prom_all {
	const struct uc_sysinfo *s;
	const struct uc_effect *e;
	struct cli_status_prom more;
};

static void print_prom_all(void *data)
{
	const struct prom_all *p = data;

	print_prometheus(p->s, p->e);
	cli_status_prom_more(&p->more);
}

static void usage(void)
{
	printf("Usage:\n uclampctl status [options]\n\n"
	       "Show what an admin needs first: the kernel's uclamp support, the state of\n"
	       "the uclamp fast path (static key sched_uclamp_used) with how it is known and\n"
	       "the evidence, the system clamps, the cgroup layout, how many threads and\n"
	       "cgroups are clamped, and whether clamps can act here (cpufreq governors and\n"
	       "drivers, frequency invariance, CPU capacities, the sched_ext scheduler), the\n"
	       "lockdown state and one line of advice.\n"
	       "Reading the key itself needs root (/proc/kallsyms + /proc/kcore); otherwise\n"
	       "the state comes from evidence of use, and 'unknown' when there is none.\n\n"
	       "Options:\n"
	       " -J, --json               JSON output\n"
	       "     --format <fmt>       text (default), json, or prometheus (metrics for\n"
	       "                          node_exporter's textfile collector: also the\n"
	       "                          configuration's drift and the watch daemon's counters)\n"
	       "     --textfile <file>    write the prometheus metrics to <file> (implies\n"
	       "                          --format=prometheus): replaced whole, safe in a\n"
	       "                          directory others can write; left as it was on failure\n"
	       " -c, --config <path>      the configuration the drift is measured against\n"
	       "                          (default: uclampctl.conf and uclampctl.d)\n"
	       "     --socket <path>      the watch daemon's status socket\n"
	       " -h, --help               display this help\n\n"
	       "With 'uclampctl status -v', also say why each way of reading the key was\n"
	       "unavailable (not root, lockdown, no /proc/kcore, kptr_restrict, ...).\n");
}

enum { OPT_TEXTFILE = 0x100, OPT_SOCKET };

struct status_args {
	const char *textfile;
	const char **configs;
	size_t nconfigs;
	const char *socket;
};

static bool status_opt(struct cli_ctl *ctl, int c, const char *arg, void *data)
{
	struct status_args *a = data;

	(void)ctl;
	if (c == OPT_TEXTFILE)
		a->textfile = arg;
	else if (c == 'c')
		a->configs[a->nconfigs++] = arg;
	else if (c == OPT_SOCKET)
		a->socket = arg;
	return c == OPT_TEXTFILE || c == 'c' || c == OPT_SOCKET;
}

int cmd_status(struct cli_ctl *ctl, int argc, char **argv)
{
	/* as enum format */
	static const char *const formats[] = { "text", "json", "prometheus", NULL };
	const struct cli_opts opts = {
		.longopts = CLI_LONGOPTS({ "textfile", required_argument, NULL, OPT_TEXTFILE },
					  { "config", required_argument, NULL, 'c' },
					  { "socket", required_argument, NULL, OPT_SOCKET }),
		.shortopts = "c:", .own = status_opt,
		.shared = CLI_OPTS_FORMAT, .formats = formats,
		.usage = usage, .no_args = "'status' takes no arguments",
	};
	struct status_args a = { .configs = calloc((size_t)argc + 1, sizeof(char *)) };
	struct prom_all pa;
	enum format fmt;
	struct uc_sysinfo *s;
	struct uc_effect *e;
	int rc = CLI_EXIT_OK;

	if (!a.configs)
		return cli_oom();
	cli_parse_opts(ctl, argc, argv, &opts, &a);
	fmt = (enum format)ctl->format;
	if (ctl->out.json)
		fmt = FMT_JSON;
	if (a.textfile && !ctl->format_given && !ctl->out.json)
		fmt = FMT_PROMETHEUS;
	if ((a.textfile || a.nconfigs || a.socket) && fmt != FMT_PROMETHEUS)
		cli_usage_error(ctl, "--textfile, --config and --socket go with "
				"--format=prometheus");

	s = malloc(sizeof(*s));
	e = malloc(sizeof(*e));
	if (!s || !e) {
		free(s);
		free(e);
		free(a.configs);
		cli_errx("out of memory%s", a.textfile ? ": the textfile was left as it was" : "");
		return CLI_EXIT_FAIL;
	}
	uc_sysinfo_read(s);
	uc_effect_read_flags(e, 0);
	pa = (struct prom_all){ s, e, { a.configs, a.nconfigs, a.socket } };
	if (fmt == FMT_JSON)
		print_json(s, e);
	else if (fmt == FMT_PROMETHEUS && a.textfile)
		rc = cli_textfile(a.textfile, print_prom_all, &pa);
	else if (fmt == FMT_PROMETHEUS)
		print_prom_all(&pa);
	else
		print_text(ctl, s, e);
	free(e);
	free(s);
	free(a.configs);
	return rc;
}
