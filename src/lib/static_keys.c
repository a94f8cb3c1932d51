/*
 * The scheduler's static keys. Kernel memory first (exact, root only; kmem.h;
 * sched_uclamp_used from fastpath.h), then the userspace view
 * (kernel-uclamp.md §7): a file that shows the key itself (smt/active,
 * sched_schedstats) is as good as the key; a setting that flips it
 * (numa_balancing, quotas, /proc/pressure, capacities) is an inference and
 * says so in 'how'.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "uclamp/keys.h"
#include "uclamp/note.h"
#include "uclamp/sysroot.h"

const char *uc_skey_state_name(enum uc_skey_state s)
{
	static const char *const names[] = { "unreadable", "off", "on", "absent", "unknown",
					     "always-on", "unsupported" };

	return UC_NAME(names, s, "unreadable");
}

enum key_id {
	K_UCLAMP, K_SMT, K_SCHEDSTATS, K_NUMA, K_CFS_BW, K_ENERGY, K_ASYM, K_CORE, K_PSI,
	/* from DEFINE_STATIC_KEY_* in 7.3-rc7 kernel/sched/ */
	K_SCX, K_SCX_ALL, K_SCX_SUBS, K_PROXY, K_RT_GROUP, K_CACHE_PRESENT, K_CACHE_ACTIVE,
	K_IRQTIME, K_CLUSTER,
	K_SHARED,	/* last: powerpc pseries only */
	NKEYS
};

/* alt: the same key under an older name, looked up by both; direct: a 0/1
 * file that shows the key itself; boot: a boot parameter that sets it, off
 * when it says 0/off, else dflt */
static const struct {
	const char *name;
	const char *meaning;
	const char *alt;
	const char *direct;
	const char *boot;
	enum uc_skey_state dflt;
} table[NKEYS] = {
	[K_UCLAMP] = { UC_KMEM_KEY_UCLAMP_USED,
		"uclamp bucket accounting on every enqueue/dequeue; "
		"the first clamp write enables it until reboot" },
	[K_SMT] = { "sched_smt_present",
		"SMT siblings exist: wakeups also search for a whole idle core "
		"(select_idle_core)", .direct = "/sys/devices/system/cpu/smt/active" },
	[K_SCHEDSTATS] = { "sched_schedstats",
		"schedstats collection: wait/sleep/iowait accounting in the hot paths" },
	[K_NUMA] = { "sched_numa_balancing",
		"automatic NUMA balancing: NUMA hinting faults and task placement work" },
	[K_CFS_BW] = { "__cfs_bandwidth_used",
		"CFS bandwidth control (a cgroup has a CPU quota): "
		"runtime accounting and throttling checks" },
	[K_ENERGY] = { UC_KMEM_KEY_ENERGY_PRESENT,
		"energy-aware scheduling: wakeups compute energy per performance domain "
		"(clamps steer it)" },
	[K_ASYM] = { UC_KMEM_KEY_ASYM_CPUCAPACITY,
		"CPUs of different capacity: wakeups check that the task fits the CPU "
		"(clamps steer it)" },
	[K_CORE] = { "__sched_core_enabled",
		"core scheduling (PR_SCHED_CORE cookies): "
		"picks are made for all SMT siblings together" },
	[K_PSI] = { "psi_disabled",
		"on = pressure stall information disabled (psi=0); "
		"off = PSI accounting on every task state change" },
	[K_SCX] = { "__scx_enabled",
		"a sched_ext (BPF) scheduler is loaded: scheduling goes through its ops; "
		"clamps bound the frequency, placement is its own",
		.alt = "__scx_ops_enabled" },	/* renamed in 6.13 */
	[K_SCX_ALL] = { "__scx_switched_all",
		"the BPF scheduler runs every task (switch_all), not only SCHED_EXT ones",
		.direct = "/sys/kernel/sched_ext/switch_all" },
	[K_SCX_SUBS] = { "__scx_has_subs",
		"sched_ext sub-schedulers exist (7.3): hot paths also walk the sub-scheduler "
		"tree" },
	[K_PROXY] = { "__sched_proxy_exec",
		"proxy execution (CONFIG_SCHED_PROXY_EXEC, on unless sched_proxy_exec=0): "
		"a blocked mutex waiter lends its scheduling context to the owner",
		/* DEFINE_STATIC_KEY_TRUE: on unless the command line says otherwise */
		.boot = "sched_proxy_exec", .dflt = UC_SKEY_ON },
	[K_RT_GROUP] = { "rt_group_sched",
		"RT group scheduling (CONFIG_RT_GROUP_SCHED, boot rt_group_sched=): per-cgroup "
		"RT bandwidth (cpu.rt_runtime_us)",
		/* the default depends on CONFIG_RT_GROUP_SCHED_DEFAULT_DISABLED */
		.boot = "rt_group_sched", .dflt = UC_SKEY_UNREADABLE },
	[K_CACHE_PRESENT] = { "sched_cache_present",
		"cache-aware scheduling is possible here (CONFIG_SCHED_CACHE, hardware support)" },
	[K_CACHE_ACTIVE] = { "sched_cache_active",
		"cache-aware scheduling is on: a process's threads are gathered on one LLC "
		"(debugfs sched/llc_balancing/enabled)" },
	[K_IRQTIME] = { "sched_clock_irqtime",
		"IRQ time accounting (CONFIG_IRQ_TIME_ACCOUNTING; off with noirqtime or an "
		"unstable TSC): IRQ time is kept out of task runtime on every clock update" },
	[K_CLUSTER] = { "sched_cluster_active",
		"cluster scheduling (CPUs sharing an L2 or cluster): wakeups and load "
		"balancing look at clusters" },
	[K_SHARED] = { "shared_processor",
		"shared-processor LPAR: vcpu_is_preempted() asks the hypervisor. "
		"On a dedicated LPAR it is off, so "
		"vcpu_is_preempted() is always false and the scheduler stops avoiding vCPUs "
		"that merely ceded while idle (upstream: schbench p99.9 wakeup latency "
		"6-8 ms -> ~90 us on a dedicated POWER9 LPAR)" },
};

#define setf(dst, ...) uc_note_set(dst, UC_SKEY_TEXT, __VA_ARGS__)

/* ---- userspace views ---- */

struct cap {
	int cpu;
	long cap;
};

static int cmp_cap(const void *a, const void *b)
{
	return ((const struct cap *)a)->cpu - ((const struct cap *)b)->cpu;
}

/* "cpu0-3 446, cpu4-7 1024" */
static void format_caps(const struct cap *c, size_t n, char *view, size_t len)
{
	size_t used = 0;

	view[0] = '\0';
	for (size_t i = 0, j; i < n && used < len; i = j + 1) {
		char v[24];

		for (j = i; j + 1 < n && c[j + 1].cap == c[i].cap && c[j + 1].cpu == c[j].cpu + 1;)
			j++;
		snprintf(v, sizeof(v), "%ld", c[i].cap);
		uc_note_range(view, len, &used, "cpu", c[i].cpu, c[j].cpu, v);
	}
}

int uc_cpu_capacity_symmetric(char *view, size_t n)
{
	DIR *d = uc_opendir("/sys/devices/system/cpu");
	struct cap *caps = NULL;
	size_t ncaps = 0, cap = 0;
	struct dirent *de;
	bool same = true;

	if (view && n)
		view[0] = '\0';
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		char p[300];
		const char *s = de->d_name;
		long v;

		if (strncmp(s, "cpu", 3) || !isdigit((unsigned char)s[3]) ||
		    strspn(s + 3, "0123456789") != strlen(s + 3))
			continue;
		snprintf(p, sizeof(p), "/sys/devices/system/cpu/%s/cpu_capacity", s);
		if (uc_read_long(p, &v))
			continue;
		if (ncaps == cap) {
			struct cap *nc = realloc(caps, (cap ? cap * 2 : 16) * sizeof(*caps));

			if (!nc) {
				free(caps);
				closedir(d);
				return -ENOMEM;
			}
			caps = nc;
			cap = cap ? cap * 2 : 16;
		}
		caps[ncaps++] = (struct cap){ atoi(s + 3), v };
	}
	closedir(d);
	if (!ncaps) {
		free(caps);
		return -ENOENT;
	}
	qsort(caps, ncaps, sizeof(*caps), cmp_cap);
	for (size_t i = 1; i < ncaps; i++)
		same &= caps[i].cap == caps[0].cap;
	if (view && n)
		format_caps(caps, ncaps, view, n);
	free(caps);
	return same ? 1 : 0;
}

struct quota_ctx {
	size_t groups, with_quota;
};

static int quota_cb(int dfd, const char *rel, void *data)
{
	struct quota_ctx *q = data;
	char buf[64];
	ssize_t len;

	q->groups++;
	/* v2 cpu.max "max 100000" / "50000 100000"; v1 cpu.cfs_quota_us -1 / N */
	len = uc_file_read_at(dfd, "cpu.max", buf, sizeof(buf), UC_READ_HEAD);
	if (len < 0)
		len = uc_file_read_at(dfd, "cpu.cfs_quota_us", buf, sizeof(buf), UC_READ_HEAD);
	if (len <= 0)
		return 0;
	if (strncmp(buf, "max", 3) && strncmp(buf, "-1", 2))
		q->with_quota++;
	return 0;
}

static void direct(struct uc_skey *k, const char *abspath, bool decided)
{
	long v;

	if (uc_read_long(abspath, &v))
		return;
	setf(k->view, "%s = %ld", abspath, v);
	if (decided)
		return;
	k->state = v ? UC_SKEY_ON : UC_SKEY_OFF;
	setf(k->how, "%s", abspath);
}

#define infer(k, st, ...) do { \
	(k)->state = (st); \
	setf((k)->how, __VA_ARGS__); \
} while (0)

static void view_schedstats(struct uc_skey *k, const struct uc_kmem_key *m, bool mem)
{
	direct(k, "/proc/sys/kernel/sched_schedstats", mem);
	/* the sysctl and the key both exist only with CONFIG_SCHEDSTATS */
	if (!mem && k->state == UC_SKEY_UNREADABLE && !m->listed &&
	    !uc_exists("/proc/sys/kernel/sched_schedstats"))
		infer(k, UC_SKEY_ABSENT,
		      "inferred: no kernel.sched_schedstats (no CONFIG_SCHEDSTATS)");
}

static void view_numa(struct uc_skey *k, const struct uc_kmem_key *m, bool mem)
{
	long v;
	int rc = uc_read_long("/proc/sys/kernel/numa_balancing", &v);

	if (rc == 0)
		setf(k->view, "kernel.numa_balancing = %ld", v);
	if (mem)
		return;
	if (rc == 0)
		infer(k, v ? UC_SKEY_ON : UC_SKEY_OFF,
		      "inferred: on iff kernel.numa_balancing != 0");
	/* the key may exist (6.1 defines it anyway); nothing can enable it */
	else if (uc_err_absent(rc))
		infer(k, UC_SKEY_OFF,
		      "inferred: no kernel.numa_balancing (no CONFIG_NUMA_BALANCING)");
}

static void view_cfs_bw(struct uc_skey *k, const struct uc_kmem_key *m, bool mem)
{
	struct quota_ctx q = { 0, 0 };
	int rc = uc_fp_walk_cgroups(quota_cb, &q);

	if (rc >= 0)
		setf(k->view, "%zu of %zu cpu cgroups have a quota", q.with_quota, q.groups);
	if (mem || rc < 0)
		return;
	infer(k, q.with_quota ? UC_SKEY_ON : UC_SKEY_OFF,
	      "inferred: on iff a cgroup has a CPU quota");
}

static void view_asym(struct uc_skey *k, const struct uc_kmem_key *m, bool mem)
{
	char view[UC_SKEY_TEXT];
	int rc = uc_cpu_capacity_symmetric(view, sizeof(view));

	if (rc >= 0)
		setf(k->view, "cpu_capacity: %s", view);
	if (mem || rc < 0)
		return;
	infer(k, rc ? UC_SKEY_OFF : UC_SKEY_ON, "inferred from cpu*/cpu_capacity");
}

static void view_energy(struct uc_skey *k, const struct uc_kmem_key *m, bool mem)
{
	char buf[32];
	ssize_t len = uc_read_str("/proc/sys/kernel/sched_energy_aware", buf, sizeof(buf));

	if (len >= 0)
		setf(k->view, "kernel.sched_energy_aware = %s",
		     len ? buf : "(empty: EAS not possible)");
	if (mem)
		return;
	if (len == 0)
		infer(k, UC_SKEY_OFF,
		      "inferred: sched_energy_aware is empty (EAS not possible here)");
	else if (len > 0 && !strcmp(buf, "0"))
		infer(k, UC_SKEY_OFF, "inferred: EAS disabled by kernel.sched_energy_aware = 0");
	/* EAS needs asymmetric capacities */
	else if (uc_cpu_capacity_symmetric(NULL, 0) == 1)
		infer(k, UC_SKEY_OFF, "inferred: EAS needs CPUs of different capacity");
	else if (!m->listed || !k->why[0])
		setf(k->why, "no userspace view of EAS itself");
}

static void view_psi(struct uc_skey *k, const struct uc_kmem_key *m, bool mem)
{
	bool present = uc_exists("/proc/pressure");

	setf(k->view, "/proc/pressure %s", present ? "present" : "absent");
	if (mem)
		return;
	if (present)
		infer(k, UC_SKEY_OFF, "inferred: /proc/pressure exists (PSI enabled)");
	else if (m->listed)
		infer(k, UC_SKEY_ON, "inferred: the kernel has PSI but no /proc/pressure (psi=0)");
	else
		setf(k->why, "no /proc/pressure: PSI disabled (psi=0) or not built");
}

static void view_shared(struct uc_skey *k, const struct uc_kmem_key *m, bool mem)
{
	char buf[8192];
	ssize_t len = uc_read_str("/proc/powerpc/lparcfg", buf, sizeof(buf));
	const char *s;
	int v;

	/* lparcfg is a few KB; a larger one (-EFBIG) is not what we know */
	if (len < 0 || !(s = strstr(buf, "shared_processor_mode=")) ||
	    sscanf(s + 22, "%d", &v) != 1)
		return;
	setf(k->view, "lparcfg shared_processor_mode=%d", v);
	if (mem)
		return;
	/* lparcfg reads the live lppaca; the key was set from it at boot */
	infer(k, v ? UC_SKEY_ON : UC_SKEY_OFF, "inferred from /proc/powerpc/lparcfg (set at boot)");
}

/* one word of the kernel command line, "name" or "name=value": its value
 * ("" for a bare word), or NULL when absent or unreadable */
static const char *cmdline_arg(const char *name, char *buf, size_t n)
{
	static char line[4096];
	size_t len = strlen(name);

	uc_read_str("/proc/cmdline", line, sizeof(line));	/* "" when unreadable: no word */
	for (char *w = line; *w;) {
		size_t wl = strcspn(w, " \t");

		if (wl >= len && !strncmp(w, name, len) && (wl == len || w[len] == '=')) {
			snprintf(buf, n, "%.*s", wl > len ? (int)(wl - len - 1) : 0, w + len + 1);
			return buf;
		}
		w += wl;
		w += strspn(w, " \t");
	}
	return NULL;
}

static void view_scx(struct uc_skey *k, const struct uc_kmem_key *m, bool mem)
{
	char buf[32];

	if (uc_read_str("/sys/kernel/sched_ext/state", buf, sizeof(buf)) < 0) {
		if (!mem && !m->listed && !uc_exists("/sys/kernel/sched_ext"))
			infer(k, UC_SKEY_ABSENT, "inferred: no /sys/kernel/sched_ext "
			      "(no CONFIG_SCHED_CLASS_EXT)");
		return;
	}
	setf(k->view, "/sys/kernel/sched_ext/state = %s", buf);
	if (!mem)
		infer(k, !strcmp(buf, "enabled") ? UC_SKEY_ON : UC_SKEY_OFF,
		      "inferred from /sys/kernel/sched_ext/state");
}

static void boot_arg(struct uc_skey *k, const struct uc_kmem_key *m, bool mem, const char *arg,
		     enum uc_skey_state dflt)
{
	char val[32];
	const char *v = cmdline_arg(arg, val, sizeof(val));
	bool off = v && (!strcmp(v, "0") || !strcmp(v, "off") || !strcmp(v, "n"));

	if (v)
		setf(k->view, "boot %s%s%s", arg, *v ? "=" : "", v);
	if (mem || !m->listed)
		return;
	if (v)
		infer(k, off ? UC_SKEY_OFF : UC_SKEY_ON, "inferred from the boot parameter %s",
		      arg);
	else if (dflt != UC_SKEY_UNREADABLE)
		infer(k, dflt, "inferred: the kernel's default (no %s= on the command line)", arg);
}

static void view_irqtime(struct uc_skey *k, const struct uc_kmem_key *m, bool mem)
{
	char val[8];

	if (cmdline_arg("noirqtime", val, sizeof(val))) {
		setf(k->view, "boot noirqtime");
		if (!mem && m->listed)
			infer(k, UC_SKEY_OFF, "inferred from the boot parameter noirqtime");
	}
}

/* llc_balancing/enabled is what the user asks for (sysctl_sched_cache_user),
 * not the key: active = present && asked, so only a 0 decides */
static void view_cache(struct uc_skey *k, const struct uc_kmem_key *m, bool mem)
{
	long v;

	if (uc_read_long("/sys/kernel/debug/sched/llc_balancing/enabled", &v))
		return;
	setf(k->view, "debugfs sched/llc_balancing/enabled = %ld (asked for)", v);
	if (!mem && v == 0)
		infer(k, UC_SKEY_OFF, "inferred: llc_balancing/enabled = 0");
}

static bool want_shared_processor(void)
{
#if defined(__powerpc__) || defined(__powerpc64__)
	return true;
#else
	return uc_exists("/proc/powerpc/lparcfg");
#endif
}

/* "sysctls 1024/1024/1024": every knob of the table, in its order. */
static void sysctls_view(char *view, const struct uc_sysctl_values *v)
{
	size_t o = (size_t)snprintf(view, UC_SKEY_TEXT, "sysctls");

	for (size_t i = 0; i < UC_SYSCTL_NKNOBS && o < UC_SKEY_TEXT; i++)
		o += (size_t)snprintf(view + o, UC_SKEY_TEXT - o, "%c%ld", i ? '/' : ' ',
				      uc_sysctl_value(v, uc_sysctl_knobs[i].attr));
}

static void uclamp_row(struct uc_skeys *ks, struct uc_skey *k)
{
	/* by enum uc_key_state */
	static const enum uc_skey_state states[] = { UC_SKEY_UNKNOWN, UC_SKEY_OFF, UC_SKEY_ON,
						     UC_SKEY_ALWAYS_ON, UC_SKEY_UNSUPPORTED };
	const struct uc_fastpath *fp = &ks->fp;

	k->state = UC_NAME(states, fp->state, k->state);
	if (fp->value_read) {
		k->have_count = true;
		k->count = fp->value;
		k->addr = fp->addr;
	}
	setf(k->how, "%s",
	     fp->source == UC_FP_SRC_NONE ? "unreadable" : uc_fp_source_name(fp->source));
	if (fp->state == UC_KEY_UNKNOWN)
		setf(k->why, "%s", fp->nunavailable ? fp->unavailable[0] : fp->how);
	else if (fp->source != UC_FP_SRC_KCORE && fp->source != UC_FP_SRC_SYSTEM_MAP)
		setf(k->why, "%s", fp->how);
	if (fp->sysctls)
		sysctls_view(k->view, &fp->scan.sys);
}

/* the row's kernel-memory record: the alternative spelling when only it is
 * in this kernel (kmem keeps 'absent' for a name a full symbol list lacks) */
static const struct uc_kmem_key *pick(const struct uc_kmem_key *m, const struct uc_kmem_key *alt)
{
	if (!alt || m->listed || m->rc == 0)
		return m;
	return alt->listed || alt->rc == 0 ? alt : m;
}

int uc_skeys_read(struct uc_skeys *ks)
{
	struct uc_kmem_key mem[2 * NKEYS];
	static void (*const views[NKEYS])(struct uc_skey *, const struct uc_kmem_key *, bool) = {
		[K_SCHEDSTATS] = view_schedstats, [K_NUMA] = view_numa, [K_CFS_BW] = view_cfs_bw,
		[K_ENERGY] = view_energy, [K_ASYM] = view_asym, [K_PSI] = view_psi,
		[K_SHARED] = view_shared, [K_SCX] = view_scx, [K_CACHE_ACTIVE] = view_cache,
		[K_IRQTIME] = view_irqtime,
	};
	size_t nk = want_shared_processor() ? NKEYS : K_SHARED;
	size_t altidx[NKEYS] = { 0 }, nmem = nk - 1;

	memset(ks, 0, sizeof(*ks));
	uc_fastpath_detect_flags(&ks->fp, 0);
	memset(mem, 0, sizeof(mem));
	for (size_t i = 1; i < nk; i++) {
		mem[i - 1].name = table[i].name;
		if (table[i].alt) {
			altidx[i] = nmem;
			mem[nmem++].name = table[i].alt;
		}
	}
	uc_kmem_read_keys_flags(mem, nmem, &ks->info, 0);

	for (size_t i = 0; i < nk; i++) {
		struct uc_skey *k = &ks->k[ks->n++];
		const struct uc_kmem_key *m = i ? pick(&mem[i - 1],
						       altidx[i] ? &mem[altidx[i]] : NULL) : NULL;

		k->name = i ? m->name : table[i].name;
		k->meaning = table[i].meaning;
		if (i == K_UCLAMP) {
			uclamp_row(ks, k);
			continue;
		}
		k->state = UC_SKEY_UNREADABLE;
		if (m->rc == 0) {
			k->state = m->value ? UC_SKEY_ON : UC_SKEY_OFF;
			k->have_count = true;
			k->count = m->value;
			k->addr = m->addr;
			setf(k->how, "%s", m->via_map ? "system-map" : "kcore");
		} else if (m->absent) {
			k->state = UC_SKEY_ABSENT;
			setf(k->how, "symbol lists");
			setf(k->why, "%s", m->why);
		} else {
			setf(k->why, "%s", m->why[0] ? m->why : "no address");
		}
		if (views[i])
			views[i](k, m, m->rc == 0 || m->absent);
		else if (table[i].direct)
			direct(k, table[i].direct, m->rc == 0 || m->absent);
		else if (table[i].boot)
			boot_arg(k, m, m->rc == 0 || m->absent, table[i].boot, table[i].dflt);
		if (k->state == UC_SKEY_UNREADABLE && !k->how[0])
			setf(k->how, "unreadable (%s)", k->why[0] ? k->why : "no userspace view");
		if (k->state != UC_SKEY_UNREADABLE && k->state != UC_SKEY_ABSENT && m->rc)
			k->why[0] = '\0';	/* the view answered */
	}
	return 0;
}
