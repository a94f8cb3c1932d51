/* sched_getattr/sched_setattr for clamps (kernel-uclamp.md §3): every setattr
 * sends back the struct read, with KEEP_PARAMS and only the UTIL_CLAMP flags of
 * the clamps given, so nothing the user did not ask for is rewritten. */
#include <errno.h>
#include <strings.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "uclamp/sched.h"
#include "uclamp/sysctl.h"
#include "uclamp/sysroot.h"
#include "uclamp/value.h"

/* Linux policy numbers (include/uapi/linux/sched.h) */
#define POL_OTHER 0
#define POL_FIFO 1
#define POL_RR 2
#define POL_BATCH 3
#define POL_IDLE 5
#define POL_DEADLINE 6
#define POL_EXT 7

/* flags getattr reports that setattr may take back: RESET_ON_FORK, RECLAIM,
 * DL_OVERRUN. Others it may report (a newer kernel's) stay in the struct read
 * but are never sent back: their meaning on the way in is not ours to guess. */
#define SENDABLE_FLAGS 0x07ULL

static int real_getattr(pid_t tid, struct uc_sched_attr *a, unsigned int size, unsigned int flags)
{
	return (int)syscall(SYS_sched_getattr, tid, a, size, flags);
}

static int real_setattr(pid_t tid, struct uc_sched_attr *a, unsigned int flags)
{
	return (int)syscall(SYS_sched_setattr, tid, a, flags);
}

static const struct uc_sched_syscalls real_syscalls = {
	.getattr = real_getattr,
	.setattr = real_setattr,
};
static const struct uc_sched_syscalls *sys = &real_syscalls;

void uc_sched_set_syscalls(const struct uc_sched_syscalls *sc)
{
	sys = sc ? sc : &real_syscalls;
}

int uc_sched_get(pid_t tid, struct uc_sched_attr *a)
{
	int rc;

	*a = (struct uc_sched_attr){ 0 };
	/* the real call without the pointer's detour: once per thread */
	if (sys->getattr == real_getattr)
		rc = real_getattr(tid, a, UC_SCHED_ATTR_SIZE_VER1, 0);
	else
		rc = sys->getattr(tid, a, UC_SCHED_ATTR_SIZE_VER1, 0);
	if (rc < 0)
		return -errno;
	/* the kernel writes the size it copied: 48 before 5.3, no clamp fields */
	if (a->size < UC_SCHED_ATTR_SIZE_VER1)
		return -EOPNOTSUPP;
	return 0;
}

bool uc_policy_is_rt(int policy)
{
	return policy == POL_FIFO || policy == POL_RR;
}

int uc_sched_default_value(const struct uc_sched_attr *cur, bool is_max)
{
	long v;

	if (is_max)
		return UC_CAPACITY_SCALE;
	if (!uc_policy_is_rt((int)cur->sched_policy))
		return 0;
	/* RT tasks boost to the rt default (5.9+); before it existed, to 1024 */
	if (uc_sysctl_read(UC_ATTR_RT_DEFAULT, &v) == 0 && v >= 0 && v <= UC_CAPACITY_SCALE)
		return (int)v;
	return UC_CAPACITY_SCALE;
}

static bool clamp_ok(int v)
{
	return v == UC_KEEP || v == UC_RESET || (v >= 0 && v <= UC_CAPACITY_SCALE);
}

/* Kernels before 5.11 take no -1: turn a reset into the explicit default. */
static int explicit_reset(const struct uc_sched_attr *cur, int v, bool is_max)
{
	return v == UC_RESET ? uc_sched_default_value(cur, is_max) : v;
}

/* The struct for min/max/rof on a task whose attributes are cur (values checked). */
static void attr_build(const struct uc_sched_attr *cur, int min, int max, int rof,
		       struct uc_sched_attr *a)
{
	bool cur_rof = cur->sched_flags & UC_SCHED_FLAG_RESET_ON_FORK;
	uint64_t flags = UC_SCHED_FLAG_KEEP_PARAMS;

	*a = *cur;
	a->size = UC_SCHED_ATTR_SIZE_VER1;
	a->sched_flags &= SENDABLE_FLAGS;
	if (rof != UC_KEEP && (bool)rof != cur_rof) {
		/* KEEP_POLICY makes the kernel take reset-on-fork from the task:
		 * name the current policy so the flag counts */
		if (rof)
			a->sched_flags |= UC_SCHED_FLAG_RESET_ON_FORK;
		else
			a->sched_flags &= ~(uint64_t)UC_SCHED_FLAG_RESET_ON_FORK;
	} else {
		flags |= UC_SCHED_FLAG_KEEP_POLICY;
	}
	if (min != UC_KEEP) {
		flags |= UC_SCHED_FLAG_UTIL_CLAMP_MIN;
		a->sched_util_min = (uint32_t)min;	/* -1 -> 0xffffffff, the reset */
	}
	if (max != UC_KEEP) {
		flags |= UC_SCHED_FLAG_UTIL_CLAMP_MAX;
		a->sched_util_max = (uint32_t)max;
	}
	a->sched_flags |= flags;
}

int uc_sched_check(int min, int max, int reset_on_fork)
{
	/* refused here, before the kernel sees them: 5.11+ would take other
	 * negatives, flip the key and store garbage (-2 reads back as 2046) */
	if (!clamp_ok(min) || !clamp_ok(max))
		return -ERANGE;
	if (reset_on_fork != UC_KEEP && reset_on_fork != 0 && reset_on_fork != 1)
		return -EINVAL;
	if (min >= 0 && max >= 0 && min > max)
		return -EINVAL;	/* the kernel's answer too, without the round trip */
	return 0;
}

int uc_sched_attr_for(const struct uc_sched_attr *cur, int min, int max, int reset_on_fork,
		      struct uc_sched_attr *a)
{
	bool cur_rof = cur->sched_flags & UC_SCHED_FLAG_RESET_ON_FORK;
	int kver, rc = uc_sched_check(min, max, reset_on_fork);

	if (rc)
		return rc;
	if (min == UC_KEEP && max == UC_KEEP &&
	    (reset_on_fork == UC_KEEP || (bool)reset_on_fork == cur_rof))
		return 1;	/* nothing to send: no syscall */
	kver = min == UC_RESET || max == UC_RESET ? uc_kernel_version() : 0;
	if (kver && kver < UC_KVER(5, 11, 0)) {
		min = explicit_reset(cur, min, false);
		max = explicit_reset(cur, max, true);
	}
	attr_build(cur, min, max, reset_on_fork, a);
	return 0;
}

static inline int setattr_once(pid_t tid, struct uc_sched_attr *a)
{
	if ((sys->setattr == real_setattr ? real_setattr(tid, a, 0) : sys->setattr(tid, a, 0)) == 0)
		return 0;
	/* E2BIG: the kernel wrote its own struct size back; one without the
	 * clamp fields (48, before 5.3) cannot take clamps at all. A kernel
	 * whose struct grew takes our 56 bytes as they are. The struct goes
	 * to the next task as it was. */
	if (errno == E2BIG && a->size != UC_SCHED_ATTR_SIZE_VER1) {
		bool old = a->size < UC_SCHED_ATTR_SIZE_VER1;

		a->size = UC_SCHED_ATTR_SIZE_VER1;
		if (old)
			return -EOPNOTSUPP;
		errno = E2BIG;
	}
	return -errno;
}

/* a clamp a's flags send as the reset (-1) */
static bool sends_reset(const struct uc_sched_attr *a, uint64_t flag, uint32_t v)
{
	return (a->sched_flags & flag) && v == (uint32_t)UC_RESET;
}

/* setattr_once said EINVAL (rc): the retry below, out of uc_sched_send's frame */
static __attribute__((noinline)) int send_retry(pid_t tid, struct uc_sched_attr *a, int rc)
{
	bool rmin, rmax;
	struct uc_sched_attr fresh, b;

	/* Unknown kernel version and -1 refused: a pre-5.11 kernel. Retry with
	 * explicit defaults, from freshly read attributes: before 5.15 the
	 * kernel applies the params we send, so they must be current. */
	rmin = sends_reset(a, UC_SCHED_FLAG_UTIL_CLAMP_MIN, a->sched_util_min);
	rmax = sends_reset(a, UC_SCHED_FLAG_UTIL_CLAMP_MAX, a->sched_util_max);
	if (!(rmin || rmax) || uc_kernel_version())
		return rc;
	rc = uc_sched_get(tid, &fresh);
	if (rc)
		return rc;
	b = fresh;
	b.size = UC_SCHED_ATTR_SIZE_VER1;
	b.sched_flags = a->sched_flags;
	b.sched_util_min = rmin ? (uint32_t)uc_sched_default_value(&fresh, false)
				: a->sched_util_min;
	b.sched_util_max = rmax ? (uint32_t)uc_sched_default_value(&fresh, true)
				: a->sched_util_max;
	return setattr_once(tid, &b);
}

int uc_sched_send(pid_t tid, struct uc_sched_attr *a)
{
	int rc = setattr_once(tid, a);

	return rc != -EINVAL ? rc : send_retry(tid, a, rc);
}

enum uc_support uc_sched_probe(int *err)
{
	struct uc_sched_attr a;
	int rc = uc_sched_get(0, &a);

	if (err)
		*err = rc;
	if (rc == -EOPNOTSUPP)
		return UC_SUPPORT_PRE_5_3;	/* getattr gave the 48-byte struct */
	if (rc)
		return UC_SUPPORT_UNKNOWN;
	/* 1025 fails uclamp_validate() before it enables the key */
	a.size = UC_SCHED_ATTR_SIZE_VER1;
	a.sched_flags = UC_SCHED_FLAG_KEEP_ALL | UC_SCHED_FLAG_UTIL_CLAMP_MIN;
	a.sched_util_min = UC_CAPACITY_SCALE + 1;
	rc = sys->setattr(0, &a, 0) < 0 ? -errno : 0;
	if (err)
		*err = rc;
	switch (rc) {
	case -EINVAL:
		return UC_SUPPORT_YES;
	case -EOPNOTSUPP:
		return UC_SUPPORT_NOT_BUILT;
	case -E2BIG:
		return UC_SUPPORT_PRE_5_3;
	default:
		return UC_SUPPORT_UNKNOWN;	/* EPERM from an LSM, ENOSYS from seccomp, ... */
	}
}

static const struct {
	const char *name;
	int policy;
} policies[] = {
	{ "other", POL_OTHER }, { "fifo", POL_FIFO }, { "rr", POL_RR }, { "batch", POL_BATCH },
	{ "idle", POL_IDLE }, { "deadline", POL_DEADLINE }, { "ext", POL_EXT },
	{ "normal", POL_OTHER },	/* the kernel's name for SCHED_OTHER */
};

const char *uc_policy_name(int policy)
{
	for (size_t i = 0; i < sizeof(policies) / sizeof(policies[0]); i++)
		if (policies[i].policy == policy)
			return policies[i].name;
	return "unknown";
}

int uc_policy_parse(const char *s)
{
	if (!s)
		return -EINVAL;
	if (!strncasecmp(s, "SCHED_", 6))
		s += 6;
	for (size_t i = 0; i < sizeof(policies) / sizeof(policies[0]); i++)
		if (!strcasecmp(s, policies[i].name))
			return policies[i].policy;
	return -EINVAL;
}
