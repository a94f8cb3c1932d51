/*
 * sched_getattr/sched_setattr for clamps. The syscalls go through a small
 * table so unit tests can script the kernel's answers without root.
 */
#ifndef UCLAMP_SCHED_H
#define UCLAMP_SCHED_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* The kernel ABI (include/uapi/linux/sched/types.h), our own copy: glibc
 * 2.36 has no struct sched_attr, 2.41 has one under that name. */
struct uc_sched_attr {
	uint32_t size;
	uint32_t sched_policy;
	uint64_t sched_flags;
	int32_t sched_nice;
	uint32_t sched_priority;
	uint64_t sched_runtime;
	uint64_t sched_deadline;
	uint64_t sched_period;
	uint32_t sched_util_min;
	uint32_t sched_util_max;
};
#define UC_SCHED_ATTR_SIZE_VER0 48
#define UC_SCHED_ATTR_SIZE_VER1 56

#define UC_SCHED_FLAG_RESET_ON_FORK 0x01
#define UC_SCHED_FLAG_KEEP_POLICY 0x08
#define UC_SCHED_FLAG_KEEP_PARAMS 0x10
#define UC_SCHED_FLAG_UTIL_CLAMP_MIN 0x20
#define UC_SCHED_FLAG_UTIL_CLAMP_MAX 0x40
#define UC_SCHED_FLAG_KEEP_ALL (UC_SCHED_FLAG_KEEP_POLICY | UC_SCHED_FLAG_KEEP_PARAMS)

#define UC_KEEP (-2)	/* "leave this clamp / flag as it is" */

struct uc_sched_syscalls {
	/* raw syscall semantics: return 0, or -1 with errno set */
	int (*getattr)(pid_t tid, struct uc_sched_attr *a, unsigned int size, unsigned int flags);
	int (*setattr)(pid_t tid, struct uc_sched_attr *a, unsigned int flags);
};
/* sc is used (not copied) until NULL restores the real syscalls. A test seam (tests/unit). */
void uc_sched_set_syscalls(const struct uc_sched_syscalls *sc);

/* sched_getattr(tid) with size 56. -EOPNOTSUPP when the kernel returned a
 * struct shorter than 56 bytes (pre-5.3); other -errno as the kernel says. */
int uc_sched_get(pid_t tid, struct uc_sched_attr *a);

/*
 * Set a task's requested clamps from its attributes cur (min, max: 0..1024,
 * UC_RESET or UC_KEEP; reset-on-fork 0/1 or UC_KEEP), nothing else rewritten
 * (sched.c says how), in two steps for many tasks with the same attributes
 * and values (a process's threads): the struct to send, built once (0; 1 when
 * there is nothing to send; -ERANGE/-EINVAL refused here), then one
 * sched_setattr a task: 0 or -errno (-ESRCH, -EPERM, ...). uc_sched_send
 * leaves *a as it was for the next task.
 */
int uc_sched_attr_for(const struct uc_sched_attr *cur, int min, int max, int reset_on_fork,
		      struct uc_sched_attr *a);
int uc_sched_send(pid_t tid, struct uc_sched_attr *a);
/* Values uc_sched_attr_for can take? 0, -ERANGE (a clamp), -EINVAL (the flag, or min > max). */
int uc_sched_check(int min, int max, int reset_on_fork);

/* The value a UC_RESET would give this task's clamp (RT min -> rt_default). */
int uc_sched_default_value(const struct uc_sched_attr *cur, bool is_max);

enum uc_support {
	UC_SUPPORT_UNKNOWN,
	UC_SUPPORT_YES,		/* EINVAL for util_min = 1025 */
	UC_SUPPORT_NOT_BUILT,	/* EOPNOTSUPP: no CONFIG_UCLAMP_TASK */
	UC_SUPPORT_PRE_5_3,	/* E2BIG: no clamp fields */
};
/* The key-neutral probe on the calling thread: sched_setattr with
 * util_min = 1025, which the kernel rejects before it enables the key. */
enum uc_support uc_sched_probe(int *err);

/* Scheduling policies by name: other batch idle fifo rr deadline ext. */
const char *uc_policy_name(int policy);
int uc_policy_parse(const char *s);	/* policy, or -EINVAL */
bool uc_policy_is_rt(int policy);

#endif
