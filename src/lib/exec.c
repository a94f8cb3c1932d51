/*
 * The executor: runs a plan's changes in order. One syscall per thread: the
 * min/max/reset-on-fork changes of one TID sit next to each other in the
 * plan and go to the kernel together; a run of threads with the same changes
 * gets its struct built once, then per thread the identity check and the
 * sched_setattr. In atomic mode the first failure stops
 * the run and every change already made is undone, newest first (the reverse
 * of an order that kept min <= max also keeps it). A stop request (a signal)
 * ends the run between two writes, never inside an undo.
 */
#include <errno.h>
#include <time.h>

#include "uclamp/cgroup.h"
#include "uclamp/plan_run.h"
#include "uclamp/sched.h"
#include "uclamp/sysctl.h"
#include "uclamp/identity.h"
#include "uclamp/systemd.h"

static int real_cgroup_write(const char *path, enum uc_attr attr, long pct100)
{
	return uc_cg_write(path, attr, (int)pct100);
}

static int real_subtree_set(const char *path, int enable)
{
	return uc_cg_set_subtree_cpu(path, enable);
}

/* systemd realizes the unit's cgroup after answering: wait (10 s at most,
 * a slow boot) until cpu is on in the group's parent */
static int real_systemd_cpu(const struct uc_change *c)
{
	const struct timespec step = { 0, 50 * 1000 * 1000 };
	int rc = uc_sd_set_cpu_weight(c->label, c->to);

	for (int i = 0; !rc && i < 200; i++) {
		enum uc_cg_state st;

		if ((rc = uc_cg_state(c->target, &st)) || st != UC_CG_CPU_OFF)
			return rc;
		nanosleep(&step, NULL);
	}
	return rc ? rc : -ETIMEDOUT;
}

static int real_writable(const struct uc_change *c)
{
	switch (c->kind) {
	case UC_KIND_SYSCTL:
		return uc_sysctl_writable(c->attr);
	case UC_KIND_CGROUP:
	case UC_KIND_SUBTREE:
		return uc_cg_writable(c->target, uc_attr_name(c->kind, c->attr));
	case UC_KIND_TASK:
	case UC_KIND_SYSTEMD:
		break;
	}
	return 0;
}

const struct uc_exec_ops uc_exec_default_ops = {
	.task_setattr = uc_sched_send,
	.sysctl_write = uc_sysctl_write,
	.cgroup_write = real_cgroup_write,
	.subtree_set = real_subtree_set,
	.systemd_cpu = real_systemd_cpu,
	.task_start = uc_task_start_time,
	.task_member = uc_task_in_process,
	.cgroup_ident = uc_cg_ident,
	.writable = real_writable,
};

/* A group removed since planning: gone, as an exited task (not an errno a
 * write itself returns for a cgroup file). */
#define GROUP_GONE (-EIDRM)

/* Is this still the group that was planned? 0, GROUP_GONE or -ESTALE
 * (removed and made again under its path: another group). */
static int same_group(const struct uc_exec_ops *ops, const struct uc_change *c)
{
	unsigned long long now;
	int rc;

	if (!c->start || !ops->cgroup_ident)
		return 0;
	rc = ops->cgroup_ident(c->target, &now);
	if (rc == -ENOENT)
		return GROUP_GONE;
	if (rc)
		return rc;
	return now == c->start ? 0 : -ESTALE;
}

/* A cgroup write, only to the group that was planned; a write that finds
 * no file because the group went away meanwhile is gone too. What is left
 * is the moment between the check and the write: a group removed and made
 * again in it gets the value (the planned value, meant for that path). */
static int write_group(const struct uc_exec_ops *ops, const struct uc_change *c, long v)
{
	int rc = same_group(ops, c);

	if (rc)
		return rc;
	rc = ops->cgroup_write(c->target, c->attr, v);
	if (rc == -ENOENT && same_group(ops, c) == GROUP_GONE)
		return GROUP_GONE;
	return rc;
}

/* A task that exited or whose PID was reused, a group removed or made again. */
static bool gone(const struct uc_change *c, int rc)
{
	if (c->kind == UC_KIND_TASK)
		return rc == -ESRCH || rc == -ESTALE;
	return c->kind == UC_KIND_CGROUP && (rc == GROUP_GONE || rc == -ESTALE);
}

/* The threads of the group at c: its records' own (thread 0), and a run's. */
static size_t group_threads(const struct uc_change *c)
{
	return c->kind == UC_KIND_TASK && c->run ? 1 + c->run->n : 1;
}

/* Thread t of the group [c, c+n) is now st (err: -errno or 0). */
static inline void set_state(struct uc_change *c, size_t n, size_t t, enum uc_change_state st,
			     int err)
{
	if (t) {
		c->run->st[t - 1] = (struct uc_tidstate){ .state = st, .err = (uint8_t)-err };
		return;
	}
	for (size_t k = 0; k < n; k++) {
		c[k].state = st;
		c[k].err = err;
	}
}

/* The process whose start time was last found unchanged (pid 0: none). */
struct seen_process {
	pid_t pid;
	unsigned long long start;
};

/*
 * Is tid still the task c planned? 0, -ESTALE (PID reused) or -ESRCH. The
 * process's start time is read for a main thread, and for the first of a run
 * of threads of one process; each thread is then checked to be still in that
 * process (a system call, where the start time is a /proc read): a thread
 * that exited is not in it, and its TID can go to a task of another process
 * only once it has left this one.
 */
static inline int same_task(const struct uc_exec_ops *ops, const struct uc_change *c, pid_t tid,
			    struct seen_process *seen)
{
	unsigned long long now;
	int rc;

	if (!c->start || !ops->task_start)
		return 0;
	if (tid == c->pid || seen->pid != c->pid || seen->start != c->start) {
		seen->pid = 0;
		rc = ops->task_start(c->pid, c->pid, &now);
		if (rc == -ENOENT)
			rc = -ESRCH;
		if (rc)
			return rc;
		if (now != c->start)
			return -ESTALE;
		seen->pid = c->pid;
		seen->start = c->start;
	}
	if (tid == c->pid || !ops->task_member)
		return 0;
	return ops->task_member(c->pid, tid);
}

/*
 * The struct that changes [c, c+n) of one task: their 'to' values (forward)
 * or 'from' (undo), sent over the attributes read while planning. An undo
 * starts from what the write left: the reset-on-fork flag it wrote. Built
 * once for all the threads of a run.
 */
static int task_attr(const struct uc_change *c, size_t n, bool undo, struct uc_sched_attr *a)
{
	const struct uc_sched_attr *cur = c->sa;
	struct uc_sched_attr after;
	int min = UC_KEEP, max = UC_KEEP, rof = UC_KEEP;

	if (c->kind != UC_KIND_TASK)
		return 0;	/* a file's value is in its record */
	if (!cur)
		return -EINVAL;	/* not made by uc_plan_add_task */
	for (size_t k = 0; k < n; k++) {
		int v = (int)(undo ? c[k].from : c[k].to);

		if (c[k].attr == UC_ATTR_MIN) {
			min = v;
		} else if (c[k].attr == UC_ATTR_MAX) {
			max = v;
		} else if (c[k].attr == UC_ATTR_RESET_ON_FORK) {
			rof = v;
			if (undo) {
				after = *cur;
				after.sched_flags &= ~(uint64_t)UC_SCHED_FLAG_RESET_ON_FORK;
				if (c[k].to)
					after.sched_flags |= UC_SCHED_FLAG_RESET_ON_FORK;
				cur = &after;
			}
		}
	}
	return uc_sched_attr_for(cur, min, max, rof, a);
}

/* What one group writes, worked out once: a task's struct (arc:
 * uc_sched_attr_for's answer), or nothing (a file's value is in its record). */
struct group_write {
	struct uc_sched_attr a;
	int arc;
};

/* Write thread t of task group c with w's struct, right after its identity check. */
static inline int write_task(const struct uc_exec_ops *ops, const struct uc_change *c, size_t t,
			     struct group_write *w, struct seen_process *seen)
{
	pid_t tid = t ? c->run->tid[t - 1] : c->tid;
	/* right before the write: a PID reused since planning is not ours to change */
	int rc = same_task(ops, c, tid, seen);

	if (!rc)
		rc = w->arc;
	return rc ? (rc > 0 ? 0 : rc) : ops->task_setattr(tid, &w->a);
}

/* Write a file's (or ask systemd for) 'to' (forward) or 'from' (undo). */
static int write_file(const struct uc_exec_ops *ops, const struct uc_change *c, bool undo)
{
	switch (c->kind) {
	case UC_KIND_SYSCTL:
		return ops->sysctl_write(c->attr, undo ? c->from : c->to);
	case UC_KIND_CGROUP:
		return write_group(ops, c, undo ? c->from : c->to);
	case UC_KIND_SUBTREE:
		return ops->subtree_set(c->target, (int)(undo ? c->from : c->to));
	case UC_KIND_SYSTEMD:
		return undo ? 0 : ops->systemd_cpu ? ops->systemd_cpu(c) : -ENOSYS;
	case UC_KIND_TASK:
		break;
	}
	return -EINVAL;
}

/* Undo the done threads [0, nth) of the group at i, the last first. */
static void undo_group(struct uc_plan *p, size_t i, size_t nth, const struct uc_exec_ops *ops,
		       struct seen_process *seen, struct uc_exec_report *r)
{
	struct uc_change *c = &p->rec[i];
	size_t n = uc_plan_group_len(p, i);
	struct group_write w;

	/* systemd's cpu stays on (a runtime property, like systemctl
	 * set-property --runtime): no clamp came with it, it is done */
	if (c->kind == UC_KIND_SYSTEMD)
		return;
	w.arc = task_attr(c, n, true, &w.a);
	while (nth-- > 0) {
		int rc;

		if ((nth ? c->run->st[nth - 1].state : c->state) != UC_CH_DONE)
			continue;
		rc = c->kind == UC_KIND_TASK ? write_task(ops, c, nth, &w, seen) :
		     write_file(ops, c, true);
		set_state(c, n, nth, rc ? UC_CH_ROLLBACK_FAILED : UC_CH_ROLLED_BACK, rc);
		if (rc)
			r->rollback_failed += n;
		else
			r->rolled_back += n;
		r->done -= n;
	}
}

/* Undo everything done before thread t of the group at i, newest first. */
static void roll_back(struct uc_plan *p, size_t i, size_t t, const struct uc_exec_ops *ops,
		      struct uc_exec_report *r)
{
	struct seen_process seen = { 0 };

	if (t)
		undo_group(p, i, t, ops, &seen, r);
	while (i > 0) {
		i = uc_plan_group_start(p, i - 1);
		undo_group(p, i, group_threads(&p->rec[i]), ops, &seen, r);
	}
}

/* Thread t of the group at i and everything after it: not attempted. */
static void skip_from(struct uc_plan *p, size_t i, size_t t, struct uc_exec_report *r)
{
	for (; i < p->nrec; t = 0) {
		struct uc_change *c = &p->rec[i];
		size_t n = uc_plan_group_len(p, i);

		for (; t < group_threads(c); t++) {
			set_state(c, n, t, UC_CH_SKIPPED, 0);
			r->skipped += n;
		}
		i += n;
	}
}

/*
 * A run's threads from t on (t > 0), while its process's start time stands
 * checked (seen): per thread write_task's member check and write, and no
 * more. Returns the first thread not done: nth, or one it attempted that
 * failed (*rc: why), or one it left for the full path (*rc 0: a stop
 * request, the main thread).
 */
static size_t write_run(const struct uc_exec_ops *ops, struct uc_change *c, size_t t,
			size_t nth, struct group_write *w, volatile sig_atomic_t *stop, int *rc)
{
	struct uc_tidrun *run = c->run;
	pid_t pid = c->pid;

	for (; t < nth && !(stop && *stop); t++) {
		pid_t tid = run->tid[t - 1];

		if (tid == pid)
			break;
		*rc = ops->task_member(pid, tid);
		if (!*rc)
			*rc = ops->task_setattr(tid, &w->a);
		if (*rc)
			return t;
		run->st[t - 1] = (struct uc_tidstate){ .state = UC_CH_DONE };
	}
	*rc = 0;
	return t;
}

int uc_plan_execute(struct uc_plan *p, enum uc_exec_mode mode, const struct uc_exec_ops *ops,
		    volatile sig_atomic_t *stop, struct uc_exec_report *r)
{
	struct seen_process seen = { 0 };

	if (!ops)
		ops = &uc_exec_default_ops;
	*r = (struct uc_exec_report){ 0 };
	for (size_t i = 0; i < p->nrec;) {
		struct uc_change *c = &p->rec[i];
		size_t n = uc_plan_group_len(p, i), nth = group_threads(c);
		struct group_write w;
		bool run;

		w.arc = task_attr(c, n, false, &w.a);	/* once for all of a run's threads */
		/* write_task's checks that hold for every thread of the run */
		run = nth > 1 && !w.arc && c->start && ops->task_start && ops->task_member;
		for (size_t t = 0; t < nth; t++) {
			int rc = 0;	/* not 0 here: thread t written by write_run, and failed */

			if (run && t && seen.pid == c->pid && seen.start == c->start) {
				size_t t0 = t;

				t = write_run(ops, c, t, nth, &w, stop, &rc);
				r->done += (t - t0) * n;
				if (t == nth)
					break;
			}
			if (!rc && stop && *stop) {
				r->stopped_by = *stop;
				if (mode == UC_EXEC_ATOMIC)
					roll_back(p, i, t, ops, r);
				skip_from(p, i, t, r);
				return r->first_err;
			}
			if (!rc)
				rc = c->kind == UC_KIND_TASK ? write_task(ops, c, t, &w, &seen) :
				     write_file(ops, c, false);
			if (rc == 0) {
				set_state(c, n, t, UC_CH_DONE, 0);
				r->done += n;
			} else if (gone(c, rc)) {
				set_state(c, n, t, UC_CH_GONE, rc == -ESTALE ? rc : 0);
				r->gone += n;
			} else {
				set_state(c, n, t, UC_CH_FAILED, rc);
				r->failed += n;
				if (!r->first_err)
					r->first_err = rc;
				if (mode == UC_EXEC_ATOMIC) {
					roll_back(p, i, t, ops, r);
					skip_from(p, i, t + 1, r);
					return rc;
				}
			}
		}
		i += n;
	}
	return r->first_err;
}
