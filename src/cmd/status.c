/*
 * uclampctl status: the one page an admin reads first. What the kernel
 * supports, the fast path's state and how it is known, the system values,
 * the cgroup layout, how much is clamped, whether clamps can affect
 * anything here (cpufreq governors, CPU capacities, sched_ext), lockdown,
 * and one line of advice. As text, JSON (-J) or Prometheus text
 * (node_exporter textfile collector).
 */
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/common.h"
#include "uclamp/cgroup.h"
#include "uclamp/fastpath.h"
#include "uclamp/keys.h"
#include "uclamp/sysctl.h"
#include "uclamp/sysinfo.h"

enum format { FMT_TEXT, FMT_JSON, FMT_PROMETHEUS };

/* ---- text ---- */

static void row(const char *label, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void row(const char *label, const char *fmt, ...)
{
	va_list ap;

	printf("%-13s ", label);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

static const char *yes_no(int v)
{
	return v > 0 ? "yes" : v == 0 ? "no" : "unknown";
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
	for (size_t i = 0; i < s->ngov && used < sizeof(line);) {
		size_t j = i;
		int w;

		while (j + 1 < s->ngov && !strcmp(s->gov[j + 1].gov, s->gov[i].gov) &&
		       s->gov[j + 1].id == s->gov[j].id + 1)
			j++;
		if (j > i)
			w = snprintf(line + used, sizeof(line) - used, "%spolicy%d-%d %s", used ? ", " : "",
				     s->gov[i].id, s->gov[j].id, s->gov[i].gov);
		else
			w = snprintf(line + used, sizeof(line) - used, "%spolicy%d %s", used ? ", " : "",
				     s->gov[i].id, s->gov[i].gov);
		if (w < 0)
			break;
		used += (size_t)w;
		i = j + 1;
	}
	row("cpufreq", "%s", line);
	if (s->nschedutil < s->ngov)
		row("", "clamps act on frequency only under schedutil (%zu of %zu policies)", s->nschedutil,
		    s->ngov);
}

static void print_text(const struct uc_ctl *ctl, const struct uc_sysinfo *s)
{
	const struct uc_fastpath *fp = &s->fp;
	const struct uc_fp_scan *sc = &fp->scan;

	row("kernel", "%s", s->release[0] ? s->release : "unknown");
	row("uclamp", "tasks %s, cgroups %s, static key %s", yes_no(s->task), yes_no(s->task_group),
	    yes_no(fp->has_key));
	if (fp->source == UC_FP_SRC_NONE)
		row("fast path", "%s", uc_key_state_name(fp->state));
	else
		row("fast path", "%s (source: %s)", uc_key_state_name(fp->state), uc_fp_source_name(fp->source));
	row("", "%s", fp->how);
	for (size_t i = 0; i < fp->nevidence; i++)
		row(i ? "" : "evidence", "%s", fp->evidence[i]);
	if (ctl->verbose)
		for (size_t i = 0; i < fp->nunavailable; i++)
			row(i ? "" : "unavailable", "%s", fp->unavailable[i]);
	else if (fp->nunavailable && fp->state == UC_KEY_UNKNOWN)
		row("", "(uclampctl -v status says why the key could not be read)");
	if (fp->state == UC_KEY_UNSUPPORTED)
		goto tail;
	if (fp->sysctls) {
		char rt[32];

		if (sc->sys.rt_default == UC_SYSCTL_ABSENT)
			snprintf(rt, sizeof(rt), "n/a (before 5.9)");
		else
			snprintf(rt, sizeof(rt), "%ld", sc->sys.rt_default);
		row("system", "util_min %ld, util_max %ld, util_min_rt_default %s", sc->sys.min, sc->sys.max, rt);
	}
	if (s->cg_rc)
		row("cgroup", "no cpu controller hierarchy mounted");
	else if (s->cg.hybrid)
		row("cgroup", "v1 cpu at %s (hybrid; v2 at %s)", s->cg.mount, s->cg.unified);
	else
		row("cgroup", "v%d at %s", (int)s->cg.version, s->cg.mount);
	row("clamped", "%zu of %zu threads, %zu of %zu cgroups request non-default clamps", sc->tasks_nondefault,
	    sc->tasks, sc->cgroups_nondefault, sc->cgroups);
tail:
	print_governors(s);
	if (s->cap_rc == 0)
		row("capacity", "asymmetric: %s (clamps also steer task placement)", s->caps);
	else if (s->cap_rc == 1)
		row("capacity", "symmetric (%s)", s->caps);
	else
		row("capacity", "no cpu_capacity in sysfs (symmetric)");
	if (s->scx_rc)
		row("sched_ext", "not available");
	else
		row("sched_ext", "%s%s%s", s->scx, s->scx_ops[0] ? ", ops " : "", s->scx_ops);
	row("lockdown", "%s", s->ld_rc ? "not available" : s->lockdown);
	row("advice", "%s", s->advice);
}

/* ---- JSON: hand-built, all of it through these few helpers ---- */

struct jw {
	FILE *f;
	int depth;
	bool first;
};

/* a JSON string: escapes, and invalid UTF-8 (a comm can hold any byte) as U+FFFD */
static void jw_string(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	fputc('"', f);
	while (*p) {
		size_t len = *p < 0x80 ? 1 : (*p & 0xe0) == 0xc0 ? 2 : (*p & 0xf0) == 0xe0 ? 3 : (*p & 0xf8) == 0xf0 ? 4 : 0;
		bool ok = len > 0 && !(len == 2 && *p < 0xc2);

		for (size_t i = 1; ok && i < len; i++)
			ok = (p[i] & 0xc0) == 0x80;
		if (!ok) {
			fputs("\\ufffd", f);
			p++;
			continue;
		}
		if (len > 1) {
			fwrite(p, 1, len, f);
			p += len;
			continue;
		}
		switch (*p) {
		case '"': fputs("\\\"", f); break;
		case '\\': fputs("\\\\", f); break;
		case '\n': fputs("\\n", f); break;
		case '\t': fputs("\\t", f); break;
		case '\r': fputs("\\r", f); break;
		default:
			if (*p < 0x20)
				fprintf(f, "\\u%04x", *p);
			else
				fputc(*p, f);
		}
		p++;
	}
	fputc('"', f);
}

static void jw_key(struct jw *j, const char *key)
{
	fputs(j->first ? "\n" : ",\n", j->f);
	j->first = false;
	fprintf(j->f, "%*s", j->depth * 3, "");
	if (key) {
		jw_string(j->f, key);
		fputs(": ", j->f);
	}
}

static void jw_open(struct jw *j, const char *key, char c)
{
	if (j->depth || key)
		jw_key(j, key);
	fputc(c, j->f);
	j->depth++;
	j->first = true;
}

static void jw_close(struct jw *j, char c)
{
	j->depth--;
	if (!j->first)
		fprintf(j->f, "\n%*s", j->depth * 3, "");
	fputc(c, j->f);
	j->first = false;
}

static void jw_str(struct jw *j, const char *key, const char *val)
{
	jw_key(j, key);
	if (val)
		jw_string(j->f, val);
	else
		fputs("null", j->f);
}

static void jw_num(struct jw *j, const char *key, long long v)
{
	jw_key(j, key);
	fprintf(j->f, "%lld", v);
}

static void jw_tri(struct jw *j, const char *key, int v)
{
	jw_key(j, key);
	fputs(v > 0 ? "true" : v == 0 ? "false" : "null", j->f);
}

static void jw_null(struct jw *j, const char *key)
{
	jw_key(j, key);
	fputs("null", j->f);
}

static void print_json(const struct uc_sysinfo *s)
{
	const struct uc_fastpath *fp = &s->fp;
	const struct uc_fp_scan *sc = &fp->scan;
	struct jw j = { .f = stdout };
	char buf[64];

	jw_open(&j, NULL, '{');
	jw_open(&j, "kernel", '{');
	jw_str(&j, "release", s->release[0] ? s->release : NULL);
	jw_tri(&j, "uclamp_task", s->task);
	jw_tri(&j, "uclamp_task_group", s->task_group);
	jw_tri(&j, "static_key", fp->has_key);
	jw_close(&j, '}');

	jw_open(&j, "fast_path", '{');
	jw_str(&j, "state", uc_key_state_name(fp->state));
	jw_str(&j, "source", fp->source == UC_FP_SRC_NONE ? NULL : uc_fp_source_name(fp->source));
	jw_str(&j, "how", fp->how);
	if (fp->value_read) {
		jw_num(&j, "value", fp->value);
		snprintf(buf, sizeof(buf), "%#llx", (unsigned long long)fp->addr);
		jw_str(&j, "address", buf);
	} else {
		jw_null(&j, "value");
		jw_null(&j, "address");
	}
	jw_open(&j, "evidence", '[');
	for (size_t i = 0; i < fp->nevidence; i++)
		jw_str(&j, NULL, fp->evidence[i]);
	jw_close(&j, ']');
	jw_open(&j, "unavailable", '[');
	for (size_t i = 0; i < fp->nunavailable; i++)
		jw_str(&j, NULL, fp->unavailable[i]);
	jw_close(&j, ']');
	jw_close(&j, '}');

	jw_open(&j, "system", '{');
	if (fp->sysctls) {
		jw_num(&j, "util_min", sc->sys.min);
		jw_num(&j, "util_max", sc->sys.max);
		if (sc->sys.rt_default == UC_SYSCTL_ABSENT)
			jw_null(&j, "util_min_rt_default");
		else
			jw_num(&j, "util_min_rt_default", sc->sys.rt_default);
	} else {
		jw_null(&j, "util_min");
		jw_null(&j, "util_max");
		jw_null(&j, "util_min_rt_default");
	}
	jw_close(&j, '}');

	jw_open(&j, "cgroup", '{');
	if (s->cg_rc)
		jw_null(&j, "version");
	else
		jw_num(&j, "version", s->cg.version);
	jw_tri(&j, "hybrid", s->cg_rc ? -1 : s->cg.hybrid);
	jw_open(&j, "mounts", '[');
	if (!s->cg_rc)
		jw_str(&j, NULL, s->cg.mount);
	if (!s->cg_rc && s->cg.hybrid)
		jw_str(&j, NULL, s->cg.unified);
	jw_close(&j, ']');
	jw_close(&j, '}');

	jw_open(&j, "clamped", '{');
	jw_tri(&j, "scanned", sc->done && sc->complete);
	jw_num(&j, "threads", (long long)sc->tasks);
	jw_num(&j, "threads_nondefault", (long long)sc->tasks_nondefault);
	jw_num(&j, "cgroups", (long long)sc->cgroups);
	jw_num(&j, "cgroups_nondefault", (long long)sc->cgroups_nondefault);
	jw_close(&j, '}');

	jw_open(&j, "governors", '{');
	for (size_t i = 0; i < s->ngov; i++) {
		snprintf(buf, sizeof(buf), "policy%d", s->gov[i].id);
		jw_str(&j, buf, s->gov[i].gov);
	}
	jw_close(&j, '}');

	jw_open(&j, "cpu_capacity", '{');
	jw_tri(&j, "asymmetric", s->cap_rc == 0 ? 1 : s->cap_rc == 1 ? 0 : -1);
	jw_str(&j, "capacities", s->cap_rc >= 0 ? s->caps : NULL);
	jw_close(&j, '}');

	jw_open(&j, "sched_ext", '{');
	jw_str(&j, "state", s->scx_rc ? NULL : s->scx);
	jw_str(&j, "ops", s->scx_ops[0] ? s->scx_ops : NULL);
	jw_close(&j, '}');
	jw_str(&j, "lockdown", s->ld_rc ? NULL : s->lockdown);
	jw_str(&j, "advice", s->advice);
	jw_close(&j, '}');
	fputc('\n', stdout);
}

/* ---- Prometheus text format (node_exporter textfile collector) ---- */

/* a label value: backslash, double quote and newline escaped */
static void prom_label(const char *s)
{
	for (; *s; s++) {
		if (*s == '\\' || *s == '"')
			printf("\\%c", *s);
		else if (*s == '\n')
			fputs("\\n", stdout);
		else
			putchar(*s);
	}
}

static void prom_head(const char *name, const char *help)
{
	printf("# HELP %s %s\n# TYPE %s gauge\n", name, help, name);
}

static int state_value(enum uc_key_state st)
{
	switch (st) {
	case UC_KEY_OFF: return 0;
	case UC_KEY_ON: return 1;
	case UC_KEY_ALWAYS_ON: return 2;
	case UC_KEY_UNSUPPORTED: return -2;
	case UC_KEY_UNKNOWN: break;
	}
	return -1;
}

static void print_prometheus(const struct uc_sysinfo *s)
{
	const struct uc_fastpath *fp = &s->fp;
	const struct uc_fp_scan *sc = &fp->scan;

	prom_head("uclamp_fast_path_state",
		  "The uclamp fast path (static key sched_uclamp_used): 0 off, 1 on, 2 always-on, -1 unknown, -2 no uclamp.");
	printf("uclamp_fast_path_state{state=\"%s\",source=\"%s\"} %d\n", uc_key_state_name(fp->state),
	       fp->source == UC_FP_SRC_NONE ? "none" : uc_fp_source_name(fp->source), state_value(fp->state));
	prom_head("uclamp_supported", "Whether the kernel has uclamp: 1 yes, 0 no, -1 unknown.");
	printf("uclamp_supported{part=\"task\"} %d\n", s->task);
	printf("uclamp_supported{part=\"task_group\"} %d\n", s->task_group);
	printf("uclamp_supported{part=\"static_key\"} %d\n", fp->has_key);
	if (fp->sysctls) {
		prom_head("uclamp_system_clamp", "System-wide clamps (kernel.sched_util_clamp_*), capacity units 0..1024.");
		for (size_t i = 0; i < UC_SYSCTL_NKNOBS; i++) {
			const struct uc_sysctl_knob *k = &uc_sysctl_knobs[i];
			long val = uc_sysctl_value(&sc->sys, k->attr);

			if (val != UC_SYSCTL_ABSENT)
				printf("uclamp_system_clamp{sysctl=\"%s\"} %ld\n", k->file, val);
		}
	}
	if (sc->done) {
		prom_head("uclamp_threads", "Threads scanned.");
		printf("uclamp_threads %zu\n", sc->tasks);
		prom_head("uclamp_threads_nondefault", "Threads requesting clamps other than the defaults.");
		printf("uclamp_threads_nondefault %zu\n", sc->tasks_nondefault);
		prom_head("uclamp_cgroups", "Non-root cgroups of the cpu hierarchy.");
		printf("uclamp_cgroups %zu\n", sc->cgroups);
		prom_head("uclamp_cgroups_nondefault", "Cgroups with cpu.uclamp.min/max other than 0.00/max.");
		printf("uclamp_cgroups_nondefault %zu\n", sc->cgroups_nondefault);
	}
	prom_head("uclamp_cpufreq_policies", "cpufreq policies by governor (clamps act on frequency only under schedutil).");
	for (size_t i = 0; i < s->ngov; i++) {
		size_t n = 0;
		bool seen = false;

		for (size_t k = 0; k < i && !seen; k++)
			seen = !strcmp(s->gov[k].gov, s->gov[i].gov);
		if (seen)
			continue;
		for (size_t k = i; k < s->ngov; k++)
			n += !strcmp(s->gov[k].gov, s->gov[i].gov);
		fputs("uclamp_cpufreq_policies{governor=\"", stdout);
		prom_label(s->gov[i].gov);
		printf("\"} %zu\n", n);
	}
	if (s->cap_rc >= 0) {
		prom_head("uclamp_cpu_capacity_asymmetric", "1 when CPUs have different capacities (cpu_capacity).");
		printf("uclamp_cpu_capacity_asymmetric %d\n", s->cap_rc == 0);
	}
}

static void usage(void)
{
	printf("Usage:\n uclampctl status [options]\n\n"
	       "Show what an admin needs first: the kernel's uclamp support, the state of\n"
	       "the uclamp fast path (static key sched_uclamp_used) with how it is known and\n"
	       "the evidence, the system clamps, the cgroup layout, how many threads and\n"
	       "cgroups are clamped, and whether clamps can act here (cpufreq governors,\n"
	       "CPU capacities, sched_ext), the lockdown state and one line of advice.\n"
	       "Reading the key itself needs root (/proc/kallsyms + /proc/kcore); otherwise\n"
	       "the state comes from evidence of use, and 'unknown' when there is none.\n\n"
	       "Options:\n"
	       " -J, --json               JSON output\n"
	       "     --format <fmt>       text (default), json, or prometheus (metrics for\n"
	       "                          node_exporter's textfile collector)\n"
	       " -h, --help               display this help\n\n"
	       "With 'uclampctl -v status', also say why each way of reading the key was\n"
	       "unavailable (not root, lockdown, no /proc/kcore, kptr_restrict, ...).\n");
}

int cmd_status(struct uc_ctl *ctl, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'J' },
		{ "format", required_argument, NULL, 'F' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	enum format fmt = FMT_TEXT;
	struct uc_sysinfo *s;
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":Jh", longopts, NULL)) != -1) {
		switch (c) {
		case 'J':
			fmt = FMT_JSON;
			break;
		case 'F':
			if (!strcmp(optarg, "text"))
				fmt = FMT_TEXT;
			else if (!strcmp(optarg, "json"))
				fmt = FMT_JSON;
			else if (!strcmp(optarg, "prometheus"))
				fmt = FMT_PROMETHEUS;
			else
				uc_usage_error(ctl, "invalid format '%s' for --format: use text, json or prometheus",
					       optarg);
			break;
		case 'h':
			usage();
			return UC_EXIT_OK;
		case ':':
			uc_usage_error(ctl, "option '%s' needs a value: text, json or prometheus", argv[optind - 1]);
		default:
			uc_bad_option(ctl, c, argv);
		}
	}
	if (optind < argc)
		uc_usage_error(ctl, "unexpected argument '%s': 'status' takes no arguments", argv[optind]);
	if (ctl->out.json)
		fmt = FMT_JSON;

	s = malloc(sizeof(*s));
	if (!s) {
		uc_errx("out of memory");
		return UC_EXIT_FAIL;
	}
	uc_sysinfo_read(s);
	if (fmt == FMT_JSON)
		print_json(s);
	else if (fmt == FMT_PROMETHEUS)
		print_prometheus(s);
	else
		print_text(ctl, s);
	free(s);
	return UC_EXIT_OK;
}
