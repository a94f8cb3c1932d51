/*
 * uclampctl status: the one page an admin reads first. What the kernel
 * supports, the fast path's state and how it is known, the system values,
 * the cgroup layout, how much is clamped, whether clamps can affect
 * anything here (cpufreq governors, CPU capacities, sched_ext), lockdown,
 * and one line of advice. As text, JSON (-J) or Prometheus text
 * (node_exporter textfile collector).
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/common.h"
#include "uclamp/cgroup.h"
#include "uclamp/fastpath.h"
#include "uclamp/json.h"
#include "uclamp/kallsyms.h"
#include "uclamp/keys.h"
#include "uclamp/kmem.h"
#include "uclamp/sysroot.h"

enum format { FMT_TEXT, FMT_JSON, FMT_PROMETHEUS };

#define MAX_POLICIES 256

struct status {
	char release[128];
	struct uc_fastpath fp;
	int task, task_group;	/* 1 yes, 0 no, -1 unknown */
	int cg_rc;
	struct uc_cg_info cg;
	struct {
		int id;
		char gov[32];
	} gov[MAX_POLICIES];
	size_t ngov, nschedutil;
	int gov_rc;		/* -ENOENT: no cpufreq */
	int cap_rc;		/* 1 symmetric, 0 asymmetric, -errno */
	char caps[UC_SKEY_TEXT];
	int scx_rc;
	char scx[32], scx_ops[64];
	int ld_rc;
	char lockdown[32];
	char advice[256];
};

/* ---- gathering ---- */

static int cmp_gov(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;	/* id is the first member */
}

static void read_governors(struct status *s)
{
	DIR *d = uc_opendir("/sys/devices/system/cpu/cpufreq");
	struct dirent *de;

	s->gov_rc = d ? 0 : -errno;
	if (!d)
		return;
	while ((de = readdir(d)) && s->ngov < MAX_POLICIES) {
		char p[340];

		if (strncmp(de->d_name, "policy", 6) || !isdigit((unsigned char)de->d_name[6]))
			continue;
		snprintf(p, sizeof(p), "/sys/devices/system/cpu/cpufreq/%s/scaling_governor", de->d_name);
		s->gov[s->ngov].id = atoi(de->d_name + 6);
		if (uc_read_str(p, s->gov[s->ngov].gov, sizeof(s->gov[0].gov)) < 0)
			snprintf(s->gov[s->ngov].gov, sizeof(s->gov[0].gov), "?");
		s->nschedutil += !strcmp(s->gov[s->ngov].gov, "schedutil");
		s->ngov++;
	}
	closedir(d);
	qsort(s->gov, s->ngov, sizeof(s->gov[0]), cmp_gov);
}

/* CONFIG_X from /boot/config-REL: 1 y, 0 not set, -1 unknown */
static int boot_config(const char *release, const char *opt)
{
	char path[200], line[512];
	size_t olen = strlen(opt);
	int fd, found = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/boot/config-%s", release);
	fd = uc_open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	f = fdopen(fd, "r");
	if (!f) {
		close(fd);
		return -1;
	}
	while (found < 0 && fgets(line, sizeof(line), f)) {
		if (!strncmp(line, opt, olen) && line[olen] == '=')
			found = line[olen + 1] == 'y';
		else if (!strncmp(line, "# ", 2) && !strncmp(line + 2, opt, olen) &&
			 !strncmp(line + 2 + olen, " is not set", 11))
			found = 0;
	}
	fclose(f);
	return found;
}

/*
 * CONFIG_UCLAMP_TASK_GROUP from the symbol list: cpu_uclamp_min_write() is
 * a cftype callback (never inlined), and kallsyms lists text symbols, with
 * or without KALLSYMS_ALL and even with zeroed addresses. 1 listed, 0 not
 * in a real (long) list, -1 cannot tell.
 */
static int group_symbol(void)
{
	struct uc_ksym k[] = { { .name = "cpu_uclamp_min_write" }, { .name = "_text" } };
	struct uc_ksym_stats st;

	if (uc_ksym_lookup_many("/proc/kallsyms", k, 2, &st))
		return -1;
	if (k[0].rc != -ENOENT)
		return 1;
	return k[1].rc != -ENOENT && st.lines - st.modules >= 1000 ? 0 : -1;
}

static void support(struct status *s)
{
	const struct uc_fastpath *fp = &s->fp;

	if (fp->sysctls || fp->support == UC_SUPPORT_YES)
		s->task = 1;
	else if (fp->state == UC_KEY_UNSUPPORTED)
		s->task = 0;
	else
		s->task = -1;
	/* group support: a cgroup with the files, or cpu groups without them */
	if (s->task == 0)
		s->task_group = 0;
	else if (fp->scan.cgroups_uclamp)
		s->task_group = 1;
	else if (fp->scan.cgroups_cpu)
		s->task_group = 0;
	else if ((s->task_group = group_symbol()) < 0)
		s->task_group = boot_config(s->release, "CONFIG_UCLAMP_TASK_GROUP");
}

static void advise(struct status *s)
{
	const struct uc_fastpath *fp = &s->fp;
	bool clamped = fp->scan.tasks_nondefault || fp->scan.cgroups_nondefault;

	if (fp->state == UC_KEY_UNSUPPORTED)
		snprintf(s->advice, sizeof(s->advice),
			 "this kernel has no uclamp (needs CONFIG_UCLAMP_TASK, Linux 5.3+): clamps cannot be used here");
	else if (s->scx_rc == 0 && !strcmp(s->scx, "enabled"))
		snprintf(s->advice, sizeof(s->advice),
			 "a sched_ext scheduler is loaded: what clamps do now depends on it");
	else if (s->ngov && !s->nschedutil)
		snprintf(s->advice, sizeof(s->advice),
			 "no CPU uses the schedutil governor: clamps will not change CPU frequency%s",
			 s->cap_rc == 0 ? " (only task placement)" : "");
	else if (!s->ngov)
		snprintf(s->advice, sizeof(s->advice), "no cpufreq policies: clamps cannot change CPU frequency here%s",
			 s->cap_rc == 0 ? " (only task placement)" : "");
	else if (fp->state == UC_KEY_OFF)
		snprintf(s->advice, sizeof(s->advice),
			 "the fast path is off: the first clamp write turns it on until reboot (uclampctl asks first)");
	else if (fp->state == UC_KEY_ON && !clamped)
		snprintf(s->advice, sizeof(s->advice),
			 "the fast path is on but nothing is clamped now: its cost stays until reboot");
	else if (fp->state == UC_KEY_ON || fp->state == UC_KEY_ALWAYS_ON)
		snprintf(s->advice, sizeof(s->advice), "the fast path is already %s: more clamps add no static-key cost",
			 uc_key_state_name(fp->state));
	else
		snprintf(s->advice, sizeof(s->advice),
			 "the fast path's state is unknown: run as root to read it (see -v); writes will ask first");
}

static void gather(struct status *s)
{
	char buf[128];

	memset(s, 0, sizeof(*s));
	if (uc_kernel_release(s->release, sizeof(s->release)) < 0)
		s->release[0] = '\0';
	uc_fastpath_detect_flags(&s->fp, UC_FP_FULL_SCAN);
	s->cg_rc = uc_cg_init(&s->cg);
	read_governors(s);
	s->cap_rc = uc_cpu_capacity_symmetric(s->caps, sizeof(s->caps));
	s->scx_rc = (int)uc_read_str("/sys/kernel/sched_ext/state", s->scx, sizeof(s->scx));
	s->scx_rc = s->scx_rc < 0 ? s->scx_rc : 0;
	if (s->scx_rc == 0 && uc_read_str("/sys/kernel/sched_ext/root/ops", buf, sizeof(buf)) > 0)
		snprintf(s->scx_ops, sizeof(s->scx_ops), "%.63s", buf);
	s->ld_rc = uc_lockdown_state(s->lockdown, sizeof(s->lockdown));
	support(s);
	advise(s);
}

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

static void print_governors(const struct status *s)
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

static void print_text(const struct cli_ctl *ctl, const struct status *s)
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

/* ---- JSON ---- */

static void print_json(const struct status *s)
{
	const struct uc_fastpath *fp = &s->fp;
	const struct uc_fp_scan *sc = &fp->scan;
	struct uc_json j;
	char buf[64];

	uc_json_init(&j, stdout, 3);
	uc_json_open(&j, NULL, '{', false);
	uc_json_open(&j, "kernel", '{', false);
	uc_json_str(&j, "release", s->release[0] ? s->release : NULL);
	uc_json_tri(&j, "uclamp_task", s->task);
	uc_json_tri(&j, "uclamp_task_group", s->task_group);
	uc_json_tri(&j, "static_key", fp->has_key);
	uc_json_close(&j, '}');

	uc_json_open(&j, "fast_path", '{', false);
	uc_json_str(&j, "state", uc_key_state_name(fp->state));
	uc_json_str(&j, "source", fp->source == UC_FP_SRC_NONE ? NULL : uc_fp_source_name(fp->source));
	uc_json_str(&j, "how", fp->how);
	if (fp->value_read) {
		uc_json_int(&j, "value", fp->value);
		snprintf(buf, sizeof(buf), "%#llx", (unsigned long long)fp->addr);
		uc_json_str(&j, "address", buf);
	} else {
		uc_json_null(&j, "value");
		uc_json_null(&j, "address");
	}
	uc_json_open(&j, "evidence", '[', false);
	for (size_t i = 0; i < fp->nevidence; i++)
		uc_json_str(&j, NULL, fp->evidence[i]);
	uc_json_close(&j, ']');
	uc_json_open(&j, "unavailable", '[', false);
	for (size_t i = 0; i < fp->nunavailable; i++)
		uc_json_str(&j, NULL, fp->unavailable[i]);
	uc_json_close(&j, ']');
	uc_json_close(&j, '}');

	uc_json_open(&j, "system", '{', false);
	if (fp->sysctls) {
		uc_json_int(&j, "util_min", sc->sys.min);
		uc_json_int(&j, "util_max", sc->sys.max);
		if (sc->sys.rt_default == UC_SYSCTL_ABSENT)
			uc_json_null(&j, "util_min_rt_default");
		else
			uc_json_int(&j, "util_min_rt_default", sc->sys.rt_default);
	} else {
		uc_json_null(&j, "util_min");
		uc_json_null(&j, "util_max");
		uc_json_null(&j, "util_min_rt_default");
	}
	uc_json_close(&j, '}');

	uc_json_open(&j, "cgroup", '{', false);
	if (s->cg_rc)
		uc_json_null(&j, "version");
	else
		uc_json_int(&j, "version", s->cg.version);
	uc_json_tri(&j, "hybrid", s->cg_rc ? -1 : s->cg.hybrid);
	uc_json_open(&j, "mounts", '[', false);
	if (!s->cg_rc)
		uc_json_str(&j, NULL, s->cg.mount);
	if (!s->cg_rc && s->cg.hybrid)
		uc_json_str(&j, NULL, s->cg.unified);
	uc_json_close(&j, ']');
	uc_json_close(&j, '}');

	uc_json_open(&j, "clamped", '{', false);
	uc_json_tri(&j, "scanned", sc->done && sc->complete);
	uc_json_int(&j, "threads", (long long)sc->tasks);
	uc_json_int(&j, "threads_nondefault", (long long)sc->tasks_nondefault);
	uc_json_int(&j, "cgroups", (long long)sc->cgroups);
	uc_json_int(&j, "cgroups_nondefault", (long long)sc->cgroups_nondefault);
	uc_json_close(&j, '}');

	uc_json_open(&j, "governors", '{', false);
	for (size_t i = 0; i < s->ngov; i++) {
		snprintf(buf, sizeof(buf), "policy%d", s->gov[i].id);
		uc_json_str(&j, buf, s->gov[i].gov);
	}
	uc_json_close(&j, '}');

	uc_json_open(&j, "cpu_capacity", '{', false);
	uc_json_tri(&j, "asymmetric", s->cap_rc == 0 ? 1 : s->cap_rc == 1 ? 0 : -1);
	uc_json_str(&j, "capacities", s->cap_rc >= 0 ? s->caps : NULL);
	uc_json_close(&j, '}');

	uc_json_open(&j, "sched_ext", '{', false);
	uc_json_str(&j, "state", s->scx_rc ? NULL : s->scx);
	uc_json_str(&j, "ops", s->scx_ops[0] ? s->scx_ops : NULL);
	uc_json_close(&j, '}');
	uc_json_str(&j, "lockdown", s->ld_rc ? NULL : s->lockdown);
	uc_json_str(&j, "advice", s->advice);
	uc_json_close(&j, '}');
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

static void print_prometheus(const struct status *s)
{
	const struct uc_fastpath *fp = &s->fp;
	const struct uc_fp_scan *sc = &fp->scan;
	static const char *const sysctl_names[] = {
		"sched_util_clamp_min", "sched_util_clamp_max", "sched_util_clamp_min_rt_default",
	};
	long vals[3] = { sc->sys.min, sc->sys.max, sc->sys.rt_default };

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
		for (size_t i = 0; i < 3; i++)
			if (vals[i] != UC_SYSCTL_ABSENT)
				printf("uclamp_system_clamp{sysctl=\"%s\"} %ld\n", sysctl_names[i], vals[i]);
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

int cmd_status(struct cli_ctl *ctl, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'J' },
		{ "format", required_argument, NULL, 'F' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	enum format fmt = FMT_TEXT;
	struct status *s;
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
				cli_usage_error(ctl, "invalid format '%s' for --format: use text, json or prometheus",
					       optarg);
			break;
		case 'h':
			usage();
			return CLI_EXIT_OK;
		case ':':
			cli_usage_error(ctl, "option '%s' needs a value: text, json or prometheus", argv[optind - 1]);
		default:
			cli_bad_option(ctl, c, argv);
		}
	}
	if (optind < argc)
		cli_usage_error(ctl, "unexpected argument '%s': 'status' takes no arguments", argv[optind]);
	if (ctl->out.json)
		fmt = FMT_JSON;

	s = malloc(sizeof(*s));
	if (!s) {
		cli_errx("out of memory");
		return CLI_EXIT_FAIL;
	}
	gather(s);
	if (fmt == FMT_JSON)
		print_json(s);
	else if (fmt == FMT_PROMETHEUS)
		print_prometheus(s);
	else
		print_text(ctl, s);
	free(s);
	return CLI_EXIT_OK;
}
