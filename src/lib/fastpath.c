/*
 * The state of sched_uclamp_used (see fastpath.h for the order of methods).
 * Each method that cannot be used leaves a note in fp->unavailable; the
 * chosen one says how it knows in fp->how.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "uclamp/fastpath.h"
#include "uclamp/note.h"
#include "uclamp/sysroot.h"
#include "uclamp/tasks.h"

const char *uc_key_state_name(enum uc_key_state s)
{
	static const char *const names[] = { "unknown", "off", "on", "always-on", "unsupported" };

	return UC_NAME(names, s, "unknown");
}

static const struct uc_fp_ops real_ops = {
	.probe = uc_sched_probe,
	.cgroups = uc_fp_real_cgroups,
	.tasks = uc_fp_real_tasks,
};
static const struct uc_fp_ops *ops = &real_ops;

void uc_fastpath_set_ops(const struct uc_fp_ops *o)
{
	ops = o ? o : &real_ops;
}

const char *uc_fp_source_name(enum uc_fp_source s)
{
	static const char *const names[] = { "none", "kcore", "system-map", "evidence",
					     "kernel-version", "probe" };
	return UC_NAME(names, s, "none");
}

#define unavailable(fp, ...) UC_NOTE_ADD((fp)->unavailable, (fp)->nunavailable, __VA_ARGS__)

/* the key's own reason often repeats a method's note: say it once */
static bool noted(const struct uc_fastpath *fp, const char *why)
{
	for (size_t i = 0; i < fp->nunavailable; i++)
		if (strstr(why, fp->unavailable[i]) || strstr(fp->unavailable[i], why))
			return true;
	return false;
}

#define decide(fp, st, src, ...) do { \
	(fp)->state = (st); \
	(fp)->source = (src); \
	uc_note_set((fp)->how, sizeof((fp)->how), __VA_ARGS__); \
} while (0)

/* ---- the version rule ---- */

/* "a.b[.c][rest]": 0 and the numbers (c = -1 when absent), rest points after them */
static int parse_version(const char *s, int *a, int *b, int *c, const char **rest)
{
	char *end;
	long v[3] = { -1, -1, -1 };

	for (int i = 0; i < 3; i++) {
		if (*s < '0' || *s > '9')
			break;
		v[i] = strtol(s, &end, 10);
		if (v[i] > 100000)
			return -EINVAL;
		s = end;
		if (i < 2 && *s == '.' && s[1] >= '0' && s[1] <= '9')
			s++;
		else
			break;
	}
	if (v[0] < 0 || v[1] < 0)
		return -EINVAL;
	*a = (int)v[0];
	*b = (int)v[1];
	*c = (int)v[2];
	*rest = s;
	return 0;
}

enum uc_fp_kver uc_fp_version_rule(const char *release, const char *signature)
{
	int a, b, c;
	const char *rest;

	if (!release || parse_version(release, &a, &b, &c, &rest))
		return UC_FP_KVER_UNSURE;
	/* Ubuntu: "Ubuntu 5.4.0-42.46-generic 5.4.44"; the last word is upstream's */
	if (signature && a == 5 && b == 4) {
		const char *last = strrchr(signature, ' ');
		int a2, b2, c2;
		const char *r2;

		if (last && !parse_version(last + 1, &a2, &b2, &c2, &r2) && a2 == a && b2 == b &&
		    c2 >= 0) {
			c = c2;
			rest = "";
		}
	}
	if (a < 5 || (a == 5 && b < 3))
		return UC_FP_KVER_NO_UCLAMP;
	if (a > 5 || b >= 9)
		return UC_FP_KVER_HAS_KEY;
	if (b != 4)
		return UC_FP_KVER_PREDATES_KEY;	/* 5.3, 5.5-5.8 */
	/* 5.4: the key was backported to 5.4.62 */
	if (c < 0)
		return UC_FP_KVER_UNSURE;
	/* distro 5.4.0-N (Ubuntu) keeps the sublevel at 0 whatever it is based on */
	if (c == 0 && *rest == '-')
		return UC_FP_KVER_UNSURE;
	return c >= 62 ? UC_FP_KVER_HAS_KEY : UC_FP_KVER_PREDATES_KEY;
}

/* ---- evidence scan ---- */

struct scan_ctx {
	struct uc_fastpath *fp;
	bool full;
};

static int on_cgroup(const struct uc_fp_cg_sample *c, void *data)
{
	struct scan_ctx *x = data;

	x->fp->scan.cgroups++;
	x->fp->scan.cgroups_cpu += c->cpu_files || c->has_files;
	if (!c->has_files)
		return 0;
	x->fp->scan.cgroups_uclamp++;
	if (!uc_fp_cgroup_evidence(c, x->fp))
		return 0;
	x->fp->scan.cgroups_nondefault++;
	return x->full ? 0 : 1;
}

static int on_task(const struct uc_fp_task_sample *t, void *data)
{
	struct scan_ctx *x = data;
	struct uc_fp_task_sample named = *t;
	char comm[32];

	x->fp->scan.tasks++;
	if (!uc_fp_task_evidence(t, x->fp->scan.sys.rt_default, NULL))
		return 0;
	/* only now read the name, for the note, while notes are still kept
	 * (10,000 clamped threads would be 10,000 reads for a count) */
	if (!named.comm && x->fp->nevidence < UC_FP_MAX_NOTES - 1 &&
	    uc_task_comm(t->pid, t->tid, comm, sizeof(comm)) == 0)
		named.comm = comm;
	uc_fp_task_evidence(&named, x->fp->scan.sys.rt_default, x->fp);
	x->fp->scan.tasks_nondefault++;
	return x->full ? 0 : 1;
}

/* Sysctls (already read), then cgroups, then tasks; the quick scan stops
 * at the first item. Returns whether there was evidence. */
static bool scan(struct uc_fastpath *fp, bool full)
{
	struct scan_ctx x = { .fp = fp, .full = full };
	size_t before = fp->scan.evidence;

	fp->scan.done = true;
	uc_fp_sysctl_evidence(&fp->scan.sys, fp);
	if (!full && fp->scan.evidence > before)
		return true;
	ops->cgroups(on_cgroup, &x);
	if (!full && fp->scan.evidence > before)
		return true;
	ops->tasks(on_task, &x);
	fp->scan.complete = full;
	if (fp->scan.evidence > fp->nevidence && fp->nevidence < UC_FP_MAX_NOTES) {
		size_t more = fp->scan.evidence - fp->nevidence;

		snprintf(fp->evidence[fp->nevidence++], UC_FP_NOTE_LEN, "and %zu more", more);
	}
	return fp->scan.evidence > before;
}

/* A 0 read from kcore, against what was seen: the sysctls (already read,
 * free) always, everything when the caller asked for the full scan anyway.
 * True (and the evidence noted) when they say the key was enabled. */
static bool zero_contradicted(struct uc_fastpath *fp, bool full)
{
	if (full)
		return scan(fp, true);
	return uc_fp_sysctl_evidence(&fp->scan.sys, fp);
}

/* ---- support ---- */

static bool unsupported(struct uc_fastpath *fp)
{
	if (fp->sysctls || fp->support == UC_SUPPORT_YES)
		return false;
	if (fp->support == UC_SUPPORT_NOT_BUILT)
		decide(fp, UC_KEY_UNSUPPORTED, UC_FP_SRC_PROBE,
		       "this kernel has no uclamp: sched_setattr says EOPNOTSUPP (no "
		       "CONFIG_UCLAMP_TASK) and there are no sched_util_clamp_* sysctls");
	else if (fp->support == UC_SUPPORT_PRE_5_3)
		decide(fp, UC_KEY_UNSUPPORTED, UC_FP_SRC_PROBE,
		       "this kernel has no uclamp: it predates 5.3 "
		       "(sched_attr has no clamp fields)");
	else if (uc_err_absent(fp->scan.sys_rc))
		decide(fp, UC_KEY_UNSUPPORTED, UC_FP_SRC_PROBE,
		       "this kernel has no uclamp: no sched_util_clamp_* sysctls (the "
		       "sched_setattr probe could not tell: %s)",
		       strerror(fp->probe_err < 0 ? -fp->probe_err : EIO));
	else {
		/* an error reading them is no proof that they are not there */
		unavailable(fp, "uclamp support: the sched_util_clamp_* sysctls cannot be read "
			    "(%s) and the sched_setattr probe could not tell (%s)",
			    strerror(-fp->scan.sys_rc),
			    strerror(fp->probe_err < 0 ? -fp->probe_err : EIO));
		return false;
	}
	return true;
}

/* 1 + 2: the key's address from kallsyms (or System.map), its value from
 * kcore; true when that is the answer, with nothing more to scan */
static bool from_kmem(struct uc_fastpath *fp, struct uc_kmem_key *key, enum uc_fp_kver kver,
		      bool full)
{
	struct uc_kmem_info info;

	uc_kmem_read_keys_flags(key, 1, &info, 0);
	for (size_t i = 0; i < info.nnotes; i++)
		unavailable(fp, "%s", info.notes[i]);
	if (key->rc == 0 && key->value == 0 && !key->via_map && zero_contradicted(fp, full)) {
		if (key->cached) {
			/* the cache's address may be another 0: ask /proc/kallsyms */
			unsigned long long was = (unsigned long long)key->addr;

			uc_kmem_read_keys_flags(key, 1, &info, UC_KMEM_NO_CACHE);
			for (size_t i = 0; i < info.nnotes; i++)
				unavailable(fp, "%s", info.notes[i]);
			unavailable(fp, "%s: 0 at the cached address %#llx against evidence of "
				    "use: cache discarded, /proc/kallsyms gives %#llx",
				    key->name, was, (unsigned long long)key->addr);
		}
		if (key->rc == 0 && key->value == 0 && !key->via_map) {
			/* two facts that disagree: say both, decide neither */
			fp->value_read = true;
			fp->addr = key->addr;
			decide(fp, UC_KEY_UNKNOWN, UC_FP_SRC_NONE,
			       "sched_uclamp_used reads 0 at %#llx (/proc/kcore, "
			       "address from /proc/kallsyms), but there is evidence "
			       "of use (%s): the two disagree",
			       (unsigned long long)key->addr, fp->evidence[0]);
			return true;
		}
	}
	if (key->listed)
		fp->has_key = 1;
	else if (key->absent)
		fp->has_key = 0;
	else if (kver == UC_FP_KVER_HAS_KEY)
		fp->has_key = 1;
	else if (kver == UC_FP_KVER_PREDATES_KEY)
		fp->has_key = 0;

	if (key->rc == 0) {
		fp->value_read = true;
		fp->value = key->value;
		fp->addr = key->addr;
		if (!key->via_map) {
			decide(fp, key->value ? UC_KEY_ON : UC_KEY_OFF, UC_FP_SRC_KCORE,
			       "sched_uclamp_used = %d, read from /proc/kcore at its "
			       "/proc/kallsyms address %#llx",
			       (int)key->value, (unsigned long long)key->addr);
		} else if (key->value) {
			decide(fp, UC_KEY_ON, UC_FP_SRC_SYSTEM_MAP,
			       "sched_uclamp_used = %d, read from /proc/kcore at "
			       "%#llx (%s + KASLR offset)",
			       (int)key->value, (unsigned long long)key->addr, info.map_path);
		} else if (scan(fp, full)) {
			/* a 0 that evidence contradicts: the map is not this kernel's after all */
			unavailable(fp, "%s gave 0 at %#llx, but there is evidence of "
				    "use: the map is not trusted",
				    info.map_path, (unsigned long long)key->addr);
			decide(fp, UC_KEY_ON, UC_FP_SRC_EVIDENCE, "evidence of use (%s)",
			       fp->evidence[0]);
		} else {
			decide(fp, UC_KEY_OFF, UC_FP_SRC_SYSTEM_MAP,
			       "sched_uclamp_used = 0, read from /proc/kcore at "
			       "%#llx (%s + KASLR offset)",
			       (unsigned long long)key->addr, info.map_path);
		}
	} else if (key->why[0] && !key->absent && !noted(fp, key->why)) {
		unavailable(fp, "sched_uclamp_used: %s", key->why);
	}
	return fp->state != UC_KEY_UNKNOWN && !full;
}

/* 4: uclamp without the key, else unknown */
static void from_version(struct uc_fastpath *fp, const struct uc_kmem_key *key,
			 enum uc_fp_kver kver, const char *rel)
{
	if (!key->listed && kver == UC_FP_KVER_PREDATES_KEY)
		decide(fp, UC_KEY_ALWAYS_ON, UC_FP_SRC_KERNEL_VERSION,
		       "kernel %s has uclamp but predates the static key (5.9, 5.4.62): "
		       "clamp accounting always runs", rel);
	else if (key->absent && kver != UC_FP_KVER_HAS_KEY)
		decide(fp, UC_KEY_ALWAYS_ON, UC_FP_SRC_KERNEL_VERSION,
		       "the kernel has uclamp but no sched_uclamp_used symbol (%s): it predates "
		       "the key, clamp accounting always runs", key->why);
	else {
		if (key->absent)
			unavailable(fp, "sched_uclamp_used is missing from a full symbol list on "
				    "kernel %s, which should have it", rel);
		decide(fp, UC_KEY_UNKNOWN, UC_FP_SRC_NONE,
		       "the key could not be read and there is no evidence of use "
		       "(defaults do not prove it is off)");
	}
}

int uc_fastpath_detect_flags(struct uc_fastpath *fp, unsigned int flags)
{
	bool full = flags & UC_FP_FULL_SCAN;
	/* boolean in kmem.c's list: 0 or 1 (-1 while being enabled) */
	struct uc_kmem_key key = { .name = UC_KMEM_KEY_UCLAMP_USED };
	char rel[128], sig[256];
	enum uc_fp_kver kver;

	memset(fp, 0, sizeof(*fp));
	fp->state = UC_KEY_UNKNOWN;
	fp->source = UC_FP_SRC_NONE;
	fp->has_key = -1;

	/* 0. is there uclamp at all? */
	fp->scan.sys_rc = uc_sysctl_read_all(&fp->scan.sys);
	fp->sysctls = fp->scan.sys.min != UC_SYSCTL_ABSENT && fp->scan.sys.max != UC_SYSCTL_ABSENT;
	fp->support = ops->probe(&fp->probe_err);
	if (unsupported(fp)) {
		fp->has_key = 0;
		return 0;
	}
	uc_kernel_release(rel, sizeof(rel));
	uc_read_str("/proc/version_signature", sig, sizeof(sig));
	kver = uc_fp_version_rule(rel[0] ? rel : NULL, sig[0] ? sig : NULL);
	if (from_kmem(fp, &key, kver, full))
		return 0;
	/* 3. evidence (a full scan runs for its counts after the key was read too) */
	if (!fp->scan.done && scan(fp, full) && fp->state == UC_KEY_UNKNOWN)
		decide(fp, UC_KEY_ON, UC_FP_SRC_EVIDENCE, "evidence of use: %s%s", fp->evidence[0],
		       fp->scan.evidence > 1 ? " (and more)" : "");
	if (fp->state == UC_KEY_UNKNOWN)
		from_version(fp, &key, kver, rel);
	return 0;
}
