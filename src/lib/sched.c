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
static struct uc_sched_syscalls sys = {
	.getattr = real_getattr,
	.setattr = real_setattr,
};

void uc_sched_set_syscalls(const struct uc_sched_syscalls *sc)
{
	sys = sc ? *sc : real_syscalls;
}

int uc_sched_get(pid_t tid, struct uc_sched_attr *a)
{
	*a = (struct uc_sched_attr){ 0 };
	if (sys.getattr(tid, a, UC_SCHED_ATTR_SIZE_VER1, 0) < 0)
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

static int set_once(pid_t tid, const struct uc_sched_attr *cur, int min, int max, int rof)
{
	struct uc_sched_attr a = *cur;
	bool cur_rof = cur->sched_flags & UC_SCHED_FLAG_RESET_ON_FORK;
	uint64_t flags = UC_SCHED_FLAG_KEEP_PARAMS;

	a.size = UC_SCHED_ATTR_SIZE_VER1;
	a.sched_flags &= SENDABLE_FLAGS;
	if (rof != UC_KEEP && (bool)rof != cur_rof) {
		/* KEEP_POLICY makes the kernel take reset-on-fork from the task:
		 * name the current policy so the flag counts */
		if (rof)
			a.sched_flags |= UC_SCHED_FLAG_RESET_ON_FORK;
		else
			a.sched_flags &= ~(uint64_t)UC_SCHED_FLAG_RESET_ON_FORK;
	} else {
		flags |= UC_SCHED_FLAG_KEEP_POLICY;
	}
	if (min != UC_KEEP) {
		flags |= UC_SCHED_FLAG_UTIL_CLAMP_MIN;
		a.sched_util_min = (uint32_t)min;	/* -1 -> 0xffffffff, the reset */
	}
	if (max != UC_KEEP) {
		flags |= UC_SCHED_FLAG_UTIL_CLAMP_MAX;
		a.sched_util_max = (uint32_t)max;
	}
	a.sched_flags |= flags;
	if (sys.setattr(tid, &a, 0) < 0) {
		/* E2BIG: the kernel wrote its own struct size back; one without
		 * the clamp fields (48, before 5.3) cannot take clamps at all. A
		 * kernel whose struct grew takes our 56 bytes as they are. */
		if (errno == E2BIG && a.size < UC_SCHED_ATTR_SIZE_VER1)
			return -EOPNOTSUPP;
		return -errno;
	}
	return 0;
}

int uc_sched_set(pid_t tid, const struct uc_sched_attr *cur, int min, int max, int reset_on_fork)
{
	bool cur_rof = cur->sched_flags & UC_SCHED_FLAG_RESET_ON_FORK;
	bool resets = min == UC_RESET || max == UC_RESET;
	struct uc_sched_attr fresh;
	int kver, rc;

	/* refused here, before the kernel sees them: 5.11+ would take other
	 * negatives, flip the key and store garbage (-2 reads back as 2046) */
	if (!clamp_ok(min) || !clamp_ok(max))
		return -ERANGE;
	if (reset_on_fork != UC_KEEP && reset_on_fork != 0 && reset_on_fork != 1)
		return -EINVAL;
	if (min >= 0 && max >= 0 && min > max)
		return -EINVAL;	/* the kernel's answer too, without the round trip */
	if (min == UC_KEEP && max == UC_KEEP &&
	    (reset_on_fork == UC_KEEP || (bool)reset_on_fork == cur_rof))
		return 0;	/* nothing to send: no syscall */

	kver = resets ? uc_kernel_version() : 0;
	if (resets && kver && kver < UC_KVER(5, 11, 0))
		return set_once(tid, cur, explicit_reset(cur, min, false),
				explicit_reset(cur, max, true), reset_on_fork);

	rc = set_once(tid, cur, min, max, reset_on_fork);
	/* Unknown kernel version and -1 refused: a pre-5.11 kernel. Retry with
	 * explicit defaults, from freshly read attributes: before 5.15 the
	 * kernel applies the params we send, so they must be current. */
	if (rc == -EINVAL && resets && !kver) {
		rc = uc_sched_get(tid, &fresh);
		if (rc)
			return rc;
		rc = set_once(tid, &fresh, explicit_reset(&fresh, min, false),
			      explicit_reset(&fresh, max, true), reset_on_fork);
	}
	return rc;
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
	rc = sys.setattr(0, &a, 0) < 0 ? -errno : 0;
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
