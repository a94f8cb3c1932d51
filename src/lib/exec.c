/*
 * The executor: runs a plan's changes in order. One syscall per thread: the
 * min/max/reset-on-fork changes of one TID sit next to each other in the
 * plan and go to the kernel together. In atomic mode the first failure stops
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

static int real_task_set(const struct uc_change *c, size_t n, int min, int max, int rof)
{
	(void)n;
	if (!c->sa)
		return -EINVAL;	/* not made by uc_plan_add_task */
	return uc_sched_set(c->tid, c->sa, min, max, rof);
}

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
	.task_set = real_task_set,
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

/* How many changes from i on belong to the same task. */
static size_t task_group_len(const struct uc_plan *p, size_t i)
{
	size_t j = i + 1;

	while (j < p->n && p->v[j].kind == UC_KIND_TASK && p->v[j].tid == p->v[i].tid)
		j++;
	return j - i;
}

/* The process whose start time was last found unchanged (pid 0: none). */
struct seen_process {
	pid_t pid;
	unsigned long long start;
};

/*
 * Is this still the task that was planned? 0, -ESTALE (PID reused) or
 * -ESRCH. The process's start time is read for a main thread, and for the
 * first of a run of threads of one process; each thread is then checked to
 * be still in that process (a system call, where the start time is a /proc
 * read): a thread that exited is not in it, and its TID can go to a task of
 * another process only once it has left this one.
 */
static int same_task(const struct uc_exec_ops *ops, const struct uc_change *c,
		     struct seen_process *seen)
{
	unsigned long long now;
	int rc;

	if (!c->start || !ops->task_start)
		return 0;
	if (c->tid == c->pid || seen->pid != c->pid || seen->start != c->start) {
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
	if (c->tid == c->pid || !ops->task_member)
		return 0;
	return ops->task_member(c->pid, c->tid);
}

/* Write 'to' (forward) or 'from' (undo) for changes [i, i+n). */
static int run_one(const struct uc_exec_ops *ops, struct uc_change *c, size_t n, bool undo,
		   struct seen_process *seen)
{
	int min = UC_KEEP, max = UC_KEEP, rof = UC_KEEP, rc;

	switch (c->kind) {
	case UC_KIND_TASK:
		/* right before the write: a PID reused since planning is not ours to change */
		rc = same_task(ops, c, seen);
		if (rc)
			return rc;
		for (size_t k = 0; k < n; k++) {
			int v = (int)(undo ? c[k].from : c[k].to);

			if (c[k].attr == UC_ATTR_MIN)
				min = v;
			else if (c[k].attr == UC_ATTR_MAX)
				max = v;
			else if (c[k].attr == UC_ATTR_RESET_ON_FORK)
				rof = v;
		}
		return ops->task_set(c, n, min, max, rof);
	case UC_KIND_SYSCTL:
		return ops->sysctl_write(c->attr, undo ? c->from : c->to);
	case UC_KIND_CGROUP:
		return write_group(ops, c, undo ? c->from : c->to);
	case UC_KIND_SUBTREE:
		return ops->subtree_set(c->target, (int)(undo ? c->from : c->to));
	case UC_KIND_SYSTEMD:
		return undo ? 0 : ops->systemd_cpu ? ops->systemd_cpu(c) : -ENOSYS;
	}
	return -EINVAL;
}

static void set_state(struct uc_change *c, size_t n, enum uc_change_state st, int err)
{
	for (size_t k = 0; k < n; k++) {
		c[k].state = st;
		c[k].err = err;
	}
}

static void roll_back(struct uc_plan *p, size_t upto, const struct uc_exec_ops *ops,
		      struct uc_exec_report *r)
{
	struct seen_process seen = { 0 };
	size_t i = upto;

	while (i > 0) {
		size_t start = i - 1, n;
		int rc;

		/* find the start of the group that ends at i-1 */
		while (start > 0 && p->v[start].kind == UC_KIND_TASK &&
		       p->v[start - 1].kind == UC_KIND_TASK &&
		       p->v[start - 1].tid == p->v[start].tid)
			start--;
		n = i - start;
		i = start;
		/* systemd's cpu stays on (a runtime property, like systemctl
		 * set-property --runtime): no clamp came with it, it is done */
		if (p->v[start].state != UC_CH_DONE || p->v[start].kind == UC_KIND_SYSTEMD)
			continue;
		rc = run_one(ops, &p->v[start], n, true, &seen);
		if (rc == 0) {
			set_state(&p->v[start], n, UC_CH_ROLLED_BACK, 0);
			r->rolled_back += n;
		} else {
			set_state(&p->v[start], n, UC_CH_ROLLBACK_FAILED, rc);
			r->rollback_failed += n;
		}
		r->done -= n;
	}
}

static void skip_from(struct uc_plan *p, size_t i, struct uc_exec_report *r)
{
	for (size_t k = i; k < p->n; k++)
		p->v[k].state = UC_CH_SKIPPED;
	r->skipped = p->n - i;
}

int uc_plan_execute(struct uc_plan *p, enum uc_exec_mode mode, const struct uc_exec_ops *ops,
		    volatile sig_atomic_t *stop, struct uc_exec_report *r)
{
	struct seen_process seen = { 0 };
	size_t i = 0;

	if (!ops)
		ops = &uc_exec_default_ops;
	*r = (struct uc_exec_report){ 0 };
	while (i < p->n) {
		struct uc_change *c = &p->v[i];
		/* most tasks have one change: only look further when the next is the same TID's */
		size_t n = c->kind == UC_KIND_TASK && i + 1 < p->n && p->v[i + 1].tid == c->tid
				   ? task_group_len(p, i) : 1;
		int rc;

		if (stop && *stop) {
			r->stopped_by = *stop;
			if (mode == UC_EXEC_ATOMIC)
				roll_back(p, i, ops, r);
			skip_from(p, i, r);
			return r->first_err;
		}
		rc = run_one(ops, c, n, false, &seen);
		if (rc == 0) {
			set_state(c, n, UC_CH_DONE, 0);
			r->done += n;
		} else if (gone(c, rc)) {
			set_state(c, n, UC_CH_GONE, rc == -ESTALE ? rc : 0);
			r->gone += n;
		} else {
			set_state(c, n, UC_CH_FAILED, rc);
			r->failed += n;
			if (!r->first_err)
				r->first_err = rc;
			if (mode == UC_EXEC_ATOMIC) {
				roll_back(p, i, ops, r);
				skip_from(p, i + n, r);
				return rc;
			}
		}
		i += n;
	}
	return r->first_err;
}
