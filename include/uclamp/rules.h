/*
 * Task rules for the command line, apply's [tasks] and watch. Every selector
 * given must match (a list: any item; a glob by fnmatch(3)); per attribute the
 * highest priority wins, a tie the later rule; an exclude leaves the task to
 * higher priorities. Pure logic, no allocation in matching (rules.c).
 */
#ifndef UCLAMP_RULES_H
#define UCLAMP_RULES_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* What a uc_proc holds (have/absent bits) or a rule needs. */
enum uc_proc_field {
	UC_PF_COMM = 1u << 0,		/* comm: the process's (main thread's) name */
	UC_PF_TCOMM = 1u << 1,		/* tcomm: the thread's own name (tid != pid) */
	UC_PF_STATUS = 1u << 2,		/* uid, gid (real), from /proc/PID/status */
	UC_PF_STAT = 1u << 3,		/* state, ppid, kthread, start_time (/proc/PID/stat) */
	/* policy of the thread (the caller's sched_getattr) */
	UC_PF_POLICY = 1u << 4,
	/* cgroup relative to the cpu hierarchy, "" = its root */
	UC_PF_CGROUP = 1u << 5,
	UC_PF_EXE = 1u << 6,		/* the /proc/PID/exe target */
	UC_PF_CMDLINE = 1u << 7,	/* cmdline (NULs as spaces, bounded) and argv0 */
	UC_PF_PARENT = 1u << 8,		/* pcomm: the parent's comm */
};

#define UC_PROC_CMDLINE_MAX 4096	/* bytes of /proc/PID/cmdline read */
#define UC_PROC_COMM_LEN 16		/* TASK_COMM_LEN, NUL included */

struct uc_proc;
/* Fill the fields in want: their have bits, and absent ones (a kernel
 * thread's exe) in p->absent too. 0 or -errno (-ESRCH: gone). */
typedef int (*uc_proc_fill_fn)(struct uc_proc *p, unsigned want, void *data);

struct uc_proc {
	pid_t pid, tid;			/* set by the caller */
	unsigned have, absent;		/* UC_PF_* */
	uc_proc_fill_fn fill;		/* NULL: only what the caller filled */
	void *fill_data;

	char comm[UC_PROC_COMM_LEN];
	char tcomm[UC_PROC_COMM_LEN];
	uid_t uid;
	gid_t gid;
	char state;			/* 'R', 'S', ..., 'Z' */
	bool kthread;			/* PF_KTHREAD */
	pid_t ppid;
	unsigned long long start_time;	/* clock ticks after boot: identity with pid */
	int policy;
	char cgroup[PATH_MAX];
	char exe[PATH_MAX];
	char cmdline[UC_PROC_CMDLINE_MAX + 1];
	char argv0[256];		/* basename of argv[0] */
	char pcomm[UC_PROC_COMM_LEN];
};

/* Start describing a new task (tid == pid: the process/main thread). */
void uc_proc_reset(struct uc_proc *p, pid_t pid, pid_t tid, uc_proc_fill_fn fill, void *fill_data);
/* The same process, another of its threads: keeps the process's fields,
 * drops the per-thread ones (tcomm, policy). */
void uc_proc_set_thread(struct uc_proc *p, pid_t tid);
/* Make sure the fields in 'want' are there (calls fill for the missing ones). */
int uc_proc_need(struct uc_proc *p, unsigned want);

/* A name selector's values (its row in selectors.c says which): exact or glob. */
struct uc_strs {
	const char *const *v;
	size_t n;			/* 0: selector not given */
};

struct uc_rule {
	const char *name;		/* for messages, e.g. the [tasks NAME]; may be NULL */
	const void *origin;		/* the caller's (config section, ...) */
	/* selectors; n == 0: not given (any) */
	/* process comm; a non-main thread (threads = yes) also by its own name */
	struct uc_strs comm;
	const uid_t *uids;		/* real uid */
	size_t nuids;
	const gid_t *gids;		/* real gid */
	size_t ngids;
	const int *policies;		/* of the thread; naming fifo/rr implies rt */
	size_t npolicies;
	/* the group or any group below it; '/' does not match '*' */
	struct uc_strs cgroup;
	struct uc_strs exe;
	struct uc_strs argv0;
	struct uc_strs cmdline;
	struct uc_strs parent;
	struct uc_strs unit;		/* a systemd unit: a component of the cgroup path */
	/* scope */
	bool threads;			/* every thread, not only the main one */
	bool rt;			/* also real-time tasks (fifo, rr), skipped otherwise */
	bool kthreads;			/* also kernel threads, skipped otherwise */
	/* leave matched tasks alone (lower or equal priority) */
	bool exclude;
	/* matches no task: a section whose every user (or group) is unknown here */
	bool off;
	int priority;			/* higher wins */
	/* settings: UC_KEEP = not set */
	int min, max;			/* 0..1024 or UC_RESET */
	int reset_on_fork;		/* 0/1 */
};

/* The attributes a rule sets; a task's winner is chosen per attribute. */
enum uc_rule_attr { UC_RA_MIN, UC_RA_MAX, UC_RA_RESET_ON_FORK, UC_RA_N };

/* A rule set ready to match: evaluation order and the fields it needs. */
struct uc_rules {
	const struct uc_rule *v;	/* the caller's array, kept as is */
	size_t n;
	/* priority high to low, excludes first, later first; rules that are off
	 * are left out */
	size_t *order;
	size_t norder;
	/* UC_PF_* any rule can ask for (e.g. the daemon subscribes to the
	 * events that change them) */
	unsigned need;
	bool any_threads;		/* some rule has threads = yes */
};

/* Compile v[0..n) (which must outlive rs). -ENOMEM, or 0. */
int uc_rules_init(struct uc_rules *rs, const struct uc_rule *v, size_t n);
void uc_rules_free(struct uc_rules *rs);

struct uc_rules_result {
	int winner[UC_RA_N];		/* index into rs->v per attribute, -1: none */
	int value[UC_RA_N];		/* the winner's value, UC_KEEP when none */
	int excluded_by;		/* the exclude rule that stopped the rest, -1: none */
	size_t matched;			/* rules matching this task (excludes included) */
	/* a threads = yes rule matches the process: visit its threads */
	bool threads;
	bool skipped_rt;		/* a rule matched but the task is RT and the rule not rt */
	bool skipped_kthread;		/* the same for a kernel thread */
};

/* Match every rule against p: 0 (see res), or a field's -errno (-ESRCH). */
int uc_rules_match(const struct uc_rules *rs, struct uc_proc *p, struct uc_rules_result *res);

#endif
