/*
 * check's foot-guns: clamps nothing here honours, the key on while every
 * clamp is at its default, a system util_min below 1024, RT threads whose
 * util_min no longer follows the RT default, the RT default at 1024 on a
 * battery. The kernel facts, from the 7.3-rc7 sources:
 * - sched_util_clamp_min bounds every requested util_min, the RT default
 *   included (uclamp_eff_get(): uclamp_default[] is the system limit;
 *   Documentation/admin-guide/sysctl/kernel.rst).
 * - user_defined is not exported (debug.c prints uclamp.min/max and their
 *   effective values only; sched_getattr returns the values), so a "reset"
 *   to 1024 instead of -1 is invisible on a CFS thread. On an RT thread it
 *   shows: every RT thread without a user-defined util_min is kept at
 *   sched_util_clamp_min_rt_default (__uclamp_update_util_min_rt_default()
 *   on every sysctl write, uclamp_reset() on a class change).
 * - kernel.rst: "In battery powered devices particularly, running at the
 *   maximum capacity and frequency will increase energy consumption".
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "uclamp/fastpath.h"
#include "uclamp/findings.h"
#include "uclamp/note.h"
#include "uclamp/sysroot.h"
#include "uclamp/tasks.h"
#include "uclamp/value.h"

const char *uc_find_level_name(enum uc_find_level l)
{
	return l == UC_FIND_WARNING ? "warning" : "info";
}

static struct uc_finding *add(struct uc_findings *fs, const char *id, enum uc_find_level level)
{
	struct uc_finding *f;

	if (fs->n == UC_FIND_MAX)
		return NULL;
	f = &fs->f[fs->n++];
	memset(f, 0, sizeof(*f));
	f->id = id;
	f->level = level;
	return f;
}

#define TEXT(f, ...) uc_note_set((f)->text, sizeof((f)->text), __VA_ARGS__)
#define FIX(f, ...) uc_note_set((f)->fix, sizeof((f)->fix), __VA_ARGS__)

static bool no_effect(enum uc_eff_verdict v)
{
	return v == UC_EFF_IGNORED || v == UC_EFF_NO_CPUFREQ;
}

/* clamps are set (or would be) where no policy lets them change the frequency */
static void rule_effect(const struct uc_find_input *in, struct uc_findings *fs)
{
	const struct uc_effect *e = in->effect;
	size_t clamped = in->tasks_clamped + in->cgroups_clamped;
	const struct uc_eff_policy *p;
	struct uc_finding *f;

	if (!e || !e->n || !no_effect(uc_effect_best(e, UC_EFF_MIN)) ||
	    !no_effect(uc_effect_best(e, UC_EFF_MAX)) || e->place == UC_PLACE_STEERS)
		return;
	p = &e->p[0];
	f = add(fs, "clamps-no-effect", clamped ? UC_FIND_WARNING : UC_FIND_INFO);
	if (!f)
		return;
	if (clamped)
		TEXT(f, "%zu threads and %zu cgroups have clamps that nothing here honours: %s; "
		     "placement: %s", in->tasks_clamped, in->cgroups_clamped, p->reason[UC_EFF_MAX],
		     uc_place_verdict_name(e->place));
	else
		TEXT(f, "clamps would not change anything here: %s; placement: %s",
		     p->reason[UC_EFF_MAX], uc_place_verdict_name(e->place));
	if (p->fix[0])
		FIX(f, "%s", p->fix);
}

/* where the kernel is not frequency-invariant, a util_min <= 819 requested
 * and honoured by nothing else (sugov.c: 1.25 x cur x min/1024 <= cur) */
static void rule_min_low(const struct uc_find_input *in, struct uc_findings *fs)
{
	const struct uc_effect *e = in->effect;
	struct uc_finding *f;

	if (!e || e->inv != UC_INV_NO || !in->min_low || e->place == UC_PLACE_STEERS ||
	    uc_effect_best(e, UC_EFF_MIN) != UC_EFF_STEERS)
		return;
	if (!(f = add(fs, "min-below-tip", UC_FIND_WARNING)))
		return;
	TEXT(f, "%zu of %zu threads and cgroups asking for a uclamp_min ask for %d (80%%) or "
	     "less, which cannot raise the frequency here: the kernel is not "
	     "frequency-invariant (%s); placement: %s", in->min_low, in->min_clamped,
	     UC_SUGOV_MIN_TIP, e->inv_reason, uc_place_verdict_name(e->place));
	FIX(f, "a uclamp_min above %d raises it (each update multiplies the current frequency, "
	    "up to the top); for a floor below the top, raise scaling_min_freq instead",
	    UC_SUGOV_MIN_TIP);
}

/* the key is on, and nothing in sight needed it */
static void rule_key_noop(const struct uc_find_input *in, struct uc_findings *fs)
{
	struct uc_finding *f;

	if (in->key != UC_KEY_ON || in->tasks_rc || in->tasks_clamped || in->cgroups_clamped ||
	    in->rt_user_min || in->sys_rc || in->sys.min != 1024 || in->sys.max != 1024 ||
	    (in->sys.rt_default != UC_SYSCTL_ABSENT && in->sys.rt_default != 1024))
		return;
	if (!(f = add(fs, "key-on-defaults", UC_FIND_WARNING)))
		return;
	TEXT(f, "the uclamp fast path is on, but every thread, cgroup and system clamp is at its "
	     "default: a write that changed nothing turned it on (a launcher or sandbox setting "
	     "the default clamps, a cgroup write of its value), or clamps since removed");
	FIX(f, "only a reboot turns it off; then find what writes default clamps (uclampctl "
	    "never writes a value that is already set)");
}

/* some policies take uclamp_max as a request only */
static void rule_request_only(const struct uc_find_input *in, struct uc_findings *fs)
{
	const struct uc_effect *e = in->effect;
	struct uc_finding *f;
	size_t n = 0, first = 0;

	for (size_t i = 0; e && i < e->n; i++)
		if (e->p[i].v[UC_EFF_MAX] == UC_EFF_REQUEST_ONLY && !n++)
			first = i;
	if (!n || !(f = add(fs, "max-request-only", UC_FIND_INFO)))
		return;
	TEXT(f, "uclamp_max is a request only on %zu of %zu policies (policy%d: %s)", n, e->n,
	     e->p[first].id, e->p[first].reason[UC_EFF_MAX]);
}

static void rule_system_min(const struct uc_find_input *in, struct uc_findings *fs)
{
	struct uc_finding *f;

	if (in->sys_rc || in->sys.min == UC_SYSCTL_ABSENT || in->sys.min >= 1024)
		return;
	if (!(f = add(fs, "system-min", UC_FIND_WARNING)))
		return;
	TEXT(f, "kernel.sched_util_clamp_min = %ld caps every util_min at %ld, RT tasks' "
	     "default boost (%ld) included: it is a limit, not a default boost",
	     in->sys.min, in->sys.min,
	     in->sys.rt_default == UC_SYSCTL_ABSENT ? 1024 : in->sys.rt_default);
	FIX(f, "uclampctl system set --min 1024 (or --min max); to lower RT tasks' boost, "
	    "set --rt-default instead");
}

static void rule_rt_user(const struct uc_find_input *in, struct uc_findings *fs)
{
	struct uc_finding *f;

	if (!in->rt_user_min || !(f = add(fs, "rt-min-user-defined", UC_FIND_WARNING)))
		return;
	TEXT(f, "%zu RT threads have a util_min of their own (pid %d %s: %ld, the RT default "
	     "is %ld): set to a value, not reset with -1, they no longer follow "
	     "kernel.sched_util_clamp_min_rt_default", in->rt_user_min, (int)in->rt_user_pid,
	     in->rt_user_comm[0] ? in->rt_user_comm : "?", in->rt_user_value, in->sys.rt_default);
	FIX(f, "uclampctl task reset %d (writes -1; then it follows the RT default again)",
	    (int)in->rt_user_pid);
}

static void rule_battery(const struct uc_find_input *in, struct uc_findings *fs)
{
	struct uc_finding *f;

	if (in->battery != 1 || in->sys_rc || in->sys.rt_default != 1024 ||
	    !(f = add(fs, "rt-default-battery", UC_FIND_INFO)))
		return;
	TEXT(f, "a battery-powered machine with kernel.sched_util_clamp_min_rt_default = 1024: "
	     "RT tasks run at the highest frequency (the kernel's documentation advises lowering "
	     "it on battery)");
	FIX(f, "uclampctl system set --rt-default 0 (this enables the uclamp fast path)");
}

void uc_findings_eval(const struct uc_find_input *in, struct uc_findings *fs)
{
	struct uc_findings tmp = { .n = 0 };

	memset(fs, 0, sizeof(*fs));
	rule_effect(in, &tmp);
	rule_min_low(in, &tmp);
	rule_key_noop(in, &tmp);
	rule_system_min(in, &tmp);
	rule_rt_user(in, &tmp);
	rule_request_only(in, &tmp);
	rule_battery(in, &tmp);
	for (int pass = 0; pass < 2; pass++)	/* warnings first */
		for (size_t i = 0; i < tmp.n; i++)
			if ((tmp.f[i].level == UC_FIND_WARNING) == !pass)
				fs->f[fs->n++] = tmp.f[i];
}

bool uc_find_rt_user_min(int policy, unsigned int util_min, long rt_default)
{
	if (!uc_policy_is_rt(policy))
		return false;
	return util_min != (unsigned long)(rt_default == UC_SYSCTL_ABSENT ? 1024 : rt_default);
}

int uc_find_battery(void)
{
	DIR *d = uc_opendir("/sys/class/power_supply");
	struct dirent *de;
	int found = 0;

	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while (!found && (de = readdir(d))) {
		char p[300], type[32];

		if (de->d_name[0] == '.')
			continue;
		snprintf(p, sizeof(p), "/sys/class/power_supply/%s/type", de->d_name);
		found = uc_read_str(p, type, sizeof(type)) > 0 && !strcmp(type, "Battery");
	}
	closedir(d);
	return found;
}

/* the walk leaves comm to the caller: read it for the one thread named */
static int task_cb(const struct uc_fp_task_sample *t, void *data)
{
	struct uc_find_input *in = data;
	bool rt = uc_policy_is_rt(t->policy);

	if (uc_find_rt_user_min(t->policy, t->min, in->sys.rt_default) && !in->rt_user_min++) {
		in->rt_user_pid = t->tid;
		in->rt_user_value = t->min;
		if (t->comm)
			uc_note_set(in->rt_user_comm, sizeof(in->rt_user_comm), "%s", t->comm);
		else
			uc_task_comm(t->pid, t->tid, in->rt_user_comm, sizeof(in->rt_user_comm));
	}
	/* an RT thread's min of 0 or 1024 is a default (kept at rt_default above) */
	in->tasks_clamped += t->max != 1024 || (!rt && t->min != 0);
	if (!rt && t->min != 0) {
		in->min_clamped++;
		in->min_low += t->min <= UC_SUGOV_MIN_TIP;
	}
	return 0;
}

static int cg_cb(const struct uc_fp_cg_sample *c, void *data)
{
	struct uc_find_input *in = data;

	in->cgroups_clamped += c->has_files && (c->min_pct100 != 0 || c->max_pct100 != 10000);
	if (c->has_files && c->min_pct100 > 0) {
		in->min_clamped++;
		in->min_low += uc_pct100_to_util(c->min_pct100) <= UC_SUGOV_MIN_TIP;
	}
	return 0;
}

void uc_find_input_read(struct uc_find_input *in, const struct uc_effect *effect,
			enum uc_key_state key)
{
	memset(in, 0, sizeof(*in));
	in->effect = effect;
	in->key = key;
	in->sys_rc = uc_sysctl_read_all(&in->sys);
	if (in->sys_rc)
		in->sys.rt_default = UC_SYSCTL_ABSENT;
	in->tasks_rc = uc_fp_real_tasks(task_cb, in);
	uc_fp_real_cgroups(cg_cb, in);
	in->battery = uc_find_battery();
}
