/*
 * Finding tasks in /proc (through sysroot, so tests can fake the tree) and
 * planning per-task clamp changes. Cost per selected thread: one
 * sched_getattr; files are read only when a selector or the output needs
 * them (status for --user and explicit PIDs, comm for --comm or labels).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "uclamp/cgroup.h"
#include "uclamp/identity.h"
#include "uclamp/sysroot.h"
#include "uclamp/tasks.h"
#include "uclamp/value.h"

/* A vanished task shows up as ENOENT (its /proc dir is gone) or ESRCH. */
static int gone_errno(int err)
{
	return err == -ENOENT ? -ESRCH : err;
}

/* Read at most n-1 bytes of a small /proc file (no need for the rest). */
static ssize_t read_head(const char *abspath, char *buf, size_t n)
{
	ssize_t len = 0, r;
	int fd = uc_open(abspath, O_RDONLY);

	if (fd < 0)
		return gone_errno(fd);
	while ((size_t)len < n - 1) {
		r = read(fd, buf + len, n - 1 - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			r = gone_errno(-errno);
			close(fd);
			return r;
		}
		if (r == 0)
			break;
		len += r;
	}
	close(fd);
	buf[len] = '\0';
	return len;
}

/* A /proc entry name as an ID: digits only, else -1. No strtol: this runs
 * once per thread, 10,000 times for a big process. */
static pid_t parse_id(const char *s)
{
	long v = 0;

	if (!*s)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || v > 99999999)
			return -1;
		v = v * 10 + (*s - '0');
	}
	return (pid_t)v;
}

int uc_task_exists(pid_t pid)
{
	char abspath[64], p[4096];
	struct stat stb;
	int rc;

	if (pid <= 0)
		return -ESRCH;
	if (pid == getpid())
		return 0;	/* ourselves ('run'), even when /proc is a test's fake tree */
	snprintf(abspath, sizeof(abspath), "/proc/%d", (int)pid);
	rc = uc_path(p, sizeof(p), abspath);
	if (rc)
		return rc;
	/* /proc/TID exists too (hidden from readdir): a thread ID is a task */
	if (stat(p, &stb) < 0)
		return gone_errno(-errno);
	return 0;
}

int uc_task_comm(pid_t pid, pid_t tid, char *buf, size_t n)
{
	char abspath[96];
	ssize_t len;

	if (tid <= 0 || tid == pid)
		snprintf(abspath, sizeof(abspath), "/proc/%d/comm", (int)pid);
	else
		snprintf(abspath, sizeof(abspath), "/proc/%d/task/%d/comm", (int)pid, (int)tid);
	len = read_head(abspath, buf, n);
	if (len < 0) {
		if (n)
			buf[0] = '\0';
		return (int)len;
	}
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

/* The first number after "\nKEY:" in /proc/PID/status. */
static int status_field(const char *status, const char *key, unsigned long *v)
{
	const char *s = status;
	size_t klen = strlen(key);
	char *end;

	while (s) {
		if (!strncmp(s, key, klen) && s[klen] == ':') {
			*v = strtoul(s + klen + 1, &end, 10);
			return end == s + klen + 1 ? -EINVAL : 0;
		}
		s = strchr(s, '\n');
		if (s)
			s++;
	}
	return -ENODATA;
}

/* The lines we need (Tgid, Uid) sit in the first few hundred bytes. */
static int read_status(pid_t pid, char *buf, size_t n)
{
	char abspath[64];
	ssize_t len;

	snprintf(abspath, sizeof(abspath), "/proc/%d/status", (int)pid);
	len = read_head(abspath, buf, n);
	return len < 0 ? (int)len : 0;
}

int uc_task_uid(pid_t pid, uid_t *uid)
{
	char buf[2048];
	unsigned long v;
	int rc = read_status(pid, buf, sizeof(buf));

	if (rc)
		return rc;
	rc = status_field(buf, "Uid", &v);	/* real, effective, saved, fs: the first */
	if (rc)
		return rc;
	*uid = (uid_t)v;
	return 0;
}

/* The process a (possibly thread) ID belongs to; the ID itself when unknown. */
static pid_t tgid_of(pid_t id)
{
	char buf[2048];
	unsigned long v;

	if (read_status(id, buf, sizeof(buf)) || status_field(buf, "Tgid", &v) || v == 0)
		return id;
	return (pid_t)v;
}

/* "effective uclamp.min      :     512" in /proc/PID/task/TID/sched */
static int sched_field(const char *text, const char *name, int *v)
{
	const char *s = strstr(text, name);
	char *end;
	long x;

	if (!s)
		return -ENODATA;
	s = strchr(s + strlen(name), ':');
	if (!s)
		return -ENODATA;
	x = strtol(s + 1, &end, 10);
	if (end == s + 1)
		return -ENODATA;
	*v = (int)x;
	return 0;
}

int uc_task_effective(pid_t pid, pid_t tid, int *eff_min, int *eff_max)
{
	char abspath[96], buf[16384];
	ssize_t len;
	int rc;

	snprintf(abspath, sizeof(abspath), "/proc/%d/task/%d/sched", (int)pid, (int)(tid > 0 ? tid : pid));
	len = read_head(abspath, buf, sizeof(buf));
	if (len < 0)
		return (int)len;
	rc = sched_field(buf, "effective uclamp.min", eff_min);
	if (!rc)
		rc = sched_field(buf, "effective uclamp.max", eff_max);
	return rc;
}

/* ---- the walk ---------------------------------------------------------- */

struct walk {
	const struct uc_selector *sel;
	uc_task_fn fn;
	void *data;
	struct uc_walk_stats *st;
};

static void note_failed(struct uc_walk_stats *st, int err, pid_t tid)
{
	if (!st->failed++) {
		st->first_err = err;
		st->first_err_tid = tid;
	}
}

/* Account for a read that failed: gone or failed. */
static void note_err(struct uc_walk_stats *st, int err, pid_t tid)
{
	if (err == -ESRCH)
		st->gone++;
	else
		note_failed(st, err, tid);
}

/* One thread: read its attributes, apply the policy filter, call back. */
static int visit_task(struct walk *w, pid_t pid, pid_t tid, const char *pcomm)
{
	const struct uc_selector *sel = w->sel;
	struct uc_task t = { .pid = pid, .tid = tid };
	int rc = uc_sched_get(tid, &t.sa);

	if (rc) {
		note_err(w->st, rc, tid);
		return 0;
	}
	if (sel->policy >= 0 && (int)t.sa.sched_policy != sel->policy)
		return 0;
	if (pcomm && tid == pid) {
		snprintf(t.comm, sizeof(t.comm), "%s", pcomm);
	} else if (sel->need_comm) {
		/* only a label: if the task exited, the write will say so */
		uc_task_comm(pid, tid, t.comm, sizeof(t.comm));
	}
	w->st->seen++;
	return w->fn(&t, w->data);
}

static bool comm_matches(const struct uc_selector *sel, const char *comm)
{
	for (size_t i = 0; i < sel->ncomms; i++)
		if (!strcmp(sel->comms[i], comm))
			return true;
	return false;
}

/* A cgroup path as a canonical relative one: no leading/trailing slashes. */
static void cg_canon(const char *in, char *out, size_t n)
{
	size_t len;

	while (*in == '/')
		in++;
	snprintf(out, n, "%s", in);
	len = strlen(out);
	while (len > 0 && out[len - 1] == '/')
		out[--len] = '\0';
}

/* Is the process in sel->cgroup, or a group below it? 1 yes, 0 no, -errno. */
static int cg_matches(const struct uc_selector *sel, pid_t pid)
{
	const struct uc_cg_info *info = uc_cg_layout();
	char want[PATH_MAX], rel[PATH_MAX];
	size_t len;
	int rc;

	if (!info)
		return -ENOENT;
	rc = uc_cg_of_pid(info, pid, rel, sizeof(rel));
	if (rc == -ENOENT || rc == -EXDEV)
		return 0;	/* no cpu hierarchy line, or outside our cgroup namespace */
	if (rc)
		return rc;
	cg_canon(sel->cgroup, want, sizeof(want));
	len = strlen(want);
	return !strncmp(rel, want, len) && (len == 0 || rel[len] == '\0' || rel[len] == '/');
}

/* Process-level selectors, then the main thread or every thread. */
static int visit_process(struct walk *w, pid_t pid)
{
	const struct uc_selector *sel = w->sel;
	char comm[16];
	const char *pcomm = NULL;
	struct dirent *de;
	DIR *dir;
	char abspath[64];
	int rc = 0;

	if (sel->has_uid) {
		uid_t uid;

		rc = uc_task_uid(pid, &uid);
		if (rc) {
			note_err(w->st, rc, pid);
			return 0;
		}
		if (uid != sel->uid)
			return 0;
	}
	if (sel->ncomms) {
		rc = uc_task_comm(pid, pid, comm, sizeof(comm));
		if (rc) {
			note_err(w->st, rc, pid);
			return 0;
		}
		if (!comm_matches(sel, comm))
			return 0;
		pcomm = comm;
	}
	if (sel->cgroup) {
		rc = cg_matches(sel, pid);
		if (rc < 0) {
			note_err(w->st, rc, pid);
			return 0;
		}
		if (!rc)
			return 0;
	}
	if (!sel->threads)
		return visit_task(w, pid, pid, pcomm);

	snprintf(abspath, sizeof(abspath), "/proc/%d/task", (int)pid);
	dir = uc_opendir(abspath);
	if (!dir) {
		note_err(w->st, gone_errno(-errno), pid);
		return 0;
	}
	rc = 0;
	while (!rc && (de = readdir(dir))) {
		pid_t tid = parse_id(de->d_name);

		if (tid > 0)
			rc = visit_task(w, pid, tid, pcomm);
	}
	closedir(dir);
	return rc;
}

static int walk_all(struct walk *w)
{
	struct dirent *de;
	DIR *dir = uc_opendir("/proc");
	pid_t self = getpid();
	int rc = 0;

	if (!dir)
		return -errno;
	while (!rc && (de = readdir(dir))) {
		pid_t pid = parse_id(de->d_name);

		/* not ourselves: we exit in a moment, a clamp on us is only a side effect */
		if (pid > 0 && pid != self)
			rc = visit_process(w, pid);
	}
	closedir(dir);
	return rc;
}

/* Explicit IDs: each once; a thread ID stands for itself, or for its
 * whole process with --threads. */
static int walk_pids(struct walk *w)
{
	const struct uc_selector *sel = w->sel;
	pid_t *done = calloc(sel->npids, sizeof(*done));
	size_t ndone = 0;
	int rc = 0;

	if (!done)
		return -ENOMEM;
	for (size_t i = 0; !rc && i < sel->npids; i++) {
		pid_t id = sel->pids[i], tgid = tgid_of(id);
		pid_t key = sel->threads ? tgid : id;
		bool seen = false;

		for (size_t k = 0; k < ndone && !seen; k++)
			seen = done[k] == key;
		if (seen)
			continue;
		done[ndone++] = key;
		if (sel->threads || tgid == id)
			rc = visit_process(w, tgid);
		else
			rc = visit_task(w, tgid, id, NULL);	/* one thread; process filters do not apply */
	}
	free(done);
	return rc;
}

int uc_tasks_walk(const struct uc_selector *sel, uc_task_fn fn, void *data, struct uc_walk_stats *st)
{
	struct uc_walk_stats local;
	struct walk w = { .sel = sel, .fn = fn, .data = data, .st = st ? st : &local };

	memset(w.st, 0, sizeof(*w.st));
	if (sel->cgroup && !uc_cg_layout())
		return -ENOENT;	/* no hierarchy with the cpu controller */
	/* every explicit PID must exist before anything is done */
	for (size_t i = 0; i < sel->npids; i++) {
		int rc = uc_task_exists(sel->pids[i]);

		if (rc) {
			w.st->first_err = rc;
			w.st->first_err_tid = sel->pids[i];
			return rc;
		}
	}
	if (sel->npids)
		return walk_pids(&w);
	if (sel->all)
		return walk_all(&w);
	return 0;
}

/* ---- the plan builder --------------------------------------------------- */

struct plan_ctx {
	struct uc_plan *p;
	const struct uc_task_want *want;
	struct uc_walk_stats *st;
	int rt_default;		/* read once, on the first RT task; -1 until then */
};

static int default_min(struct plan_ctx *c, const struct uc_sched_attr *sa)
{
	if (!uc_policy_is_rt((int)sa->sched_policy))
		return 0;
	if (c->rt_default < 0)
		c->rt_default = uc_sched_default_value(sa, false);
	return c->rt_default;
}

static void refuse(struct plan_ctx *c, const struct uc_task *t, enum uc_refusal_why why,
		   int end_min, int end_max)
{
	struct uc_task_refusal r = {
		.why = why, .pid = t->pid, .tid = t->tid, .policy = (int)t->sa.sched_policy,
		.cur_min = (int)t->sa.sched_util_min, .cur_max = (int)t->sa.sched_util_max,
		.end_min = end_min, .end_max = end_max,
	};

	memcpy(r.comm, t->comm, sizeof(r.comm));
	if (!c->st->refused++)
		c->st->first_refusal = r;
	c->p->failed++;
	if (c->want->on_refusal)
		c->want->on_refusal(&r, c->want->data);
}

static int plan_one(const struct uc_task *t, void *data)
{
	struct plan_ctx *c = data;
	const struct uc_task_want *want = c->want;
	int cur_min = (int)t->sa.sched_util_min, cur_max = (int)t->sa.sched_util_max;
	int cur_rof = !!(t->sa.sched_flags & UC_SCHED_FLAG_RESET_ON_FORK);
	int end_min = cur_min, end_max = cur_max;
	bool ch_min = false, ch_max = false, ch_rof = false;
	const char *label = t->comm[0] ? t->comm : NULL;
	unsigned long long start;
	size_t first;

	if (want->min != UC_KEEP) {
		end_min = want->min == UC_RESET ? default_min(c, &t->sa) : want->min;
		ch_min = end_min != cur_min;
	}
	if (want->max != UC_KEEP) {
		end_max = want->max == UC_RESET ? UC_CAPACITY_SCALE : want->max;
		ch_max = end_max != cur_max;
	}
	if (want->reset_on_fork != UC_KEEP)
		ch_rof = !!want->reset_on_fork != cur_rof;

	if (!ch_min && !ch_max && !ch_rof) {
		c->p->unchanged++;
		return 0;
	}
	if ((ch_min || ch_max) && end_min > end_max) {
		bool rt_max_only = want->min == UC_KEEP && uc_policy_is_rt((int)t->sa.sched_policy);

		refuse(c, t, rt_max_only ? UC_REFUSE_RT_MAX_BELOW_MIN : UC_REFUSE_MIN_GT_MAX, end_min, end_max);
		return 0;
	}
	/* the identity the executor checks right before the write (0: unknown, not checked) */
	if (uc_task_start_time(t->pid, t->tid, &start))
		start = 0;
	first = c->p->n;
	/* adjacent entries of one TID: the executor sends them in one setattr */
	if (ch_min && !uc_plan_add_task(c->p, t->pid, t->tid, label, &t->sa, UC_ATTR_MIN, cur_min, want->min))
		return -ENOMEM;
	if (ch_max && !uc_plan_add_task(c->p, t->pid, t->tid, label, &t->sa, UC_ATTR_MAX, cur_max, want->max))
		return -ENOMEM;
	if (ch_rof && !uc_plan_add_task(c->p, t->pid, t->tid, label, &t->sa, UC_ATTR_RESET_ON_FORK,
					cur_rof, !!want->reset_on_fork))
		return -ENOMEM;
	for (size_t i = first; i < c->p->n; i++)
		c->p->v[i].start = start;
	return 0;
}

static bool want_ok(int v)
{
	return v == UC_KEEP || v == UC_RESET || (v >= 0 && v <= UC_CAPACITY_SCALE);
}

int uc_tasks_plan(struct uc_plan *p, const struct uc_selector *sel, const struct uc_task_want *want,
		  struct uc_walk_stats *st)
{
	struct uc_walk_stats local;
	struct plan_ctx c = { .p = p, .want = want, .st = st ? st : &local, .rt_default = -1 };
	int rc;

	if (!want_ok(want->min) || !want_ok(want->max))
		return -ERANGE;
	if (want->reset_on_fork != UC_KEEP && want->reset_on_fork != 0 && want->reset_on_fork != 1)
		return -EINVAL;
	if (want->min >= 0 && want->max >= 0 && want->min > want->max)
		return -EINVAL;	/* wrong for every task: the caller's usage error */
	rc = uc_tasks_walk(sel, plan_one, &c, c.st);
	/* uc_tasks_walk zeroed the stats; refusals were counted during it */
	p->gone += c.st->gone;
	p->failed += c.st->failed;
	return rc;
}
