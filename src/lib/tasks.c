/*
 * Finding tasks in /proc (through sysroot, so tests can fake the tree) and
 * planning per-task clamp changes. One walk evaluates a rule set (rules.h)
 * per task: the command line's selector is one rule, the config's [tasks]
 * sections are many. Cost per selected thread: one sched_getattr; files are
 * read only when a rule or the output needs them (uc_task_fill fills the
 * rules' process description lazily).
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

/* Read at most n-1 bytes of /proc/PID/NAME, or thread tid's (tid > 0, not pid): a small
 * file, no need for the rest. */
static ssize_t read_head(pid_t pid, pid_t tid, const char *name, char *buf, size_t n)
{
	char abspath[96];
	ssize_t len;

	if (tid <= 0 || tid == pid)
		snprintf(abspath, sizeof(abspath), "/proc/%d/%s", (int)pid, name);
	else
		snprintf(abspath, sizeof(abspath), "/proc/%d/task/%d/%s", (int)pid, (int)tid, name);
	len = uc_read_head(abspath, buf, n);
	return len < 0 ? gone_errno((int)len) : len;
}

/* A /proc entry name as an ID: digits only, else -1. No strtol: this runs
 * once per thread, 10,000 times for a big process. */
static pid_t parse_id(const char *s)
{
	unsigned long v = 0;
	const char *d = s;

	/* one compare a digit: a --threads walk parses 10,000 of these */
	for (; (unsigned char)(*d - '0') < 10; d++)
		v = v * 10 + (unsigned long)(*d - '0');
	/* at most 9 digits: what wrapped past that is refused, not used */
	if (d == s || *d || d - s > 9)
		return -1;
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
	ssize_t len = read_head(pid, tid, "comm", buf, n);

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
	ssize_t len = read_head(pid, 0, "status", buf, n);

	return len < 0 ? (int)len : 0;
}

/* The real user (Uid: real, effective, saved, fs: the first), the status left in buf. */
static int status_uid(pid_t pid, char *buf, size_t n, uid_t *uid)
{
	unsigned long v;
	int rc = read_status(pid, buf, n);

	if (!rc)
		rc = status_field(buf, "Uid", &v);
	if (!rc)
		*uid = (uid_t)v;
	return rc;
}

int uc_task_uid(pid_t pid, uid_t *uid)
{
	char buf[2048];

	return status_uid(pid, buf, sizeof(buf), uid);
}

int uc_plan_reach(const struct uc_plan *p, size_t *tasks, size_t *users)
{
	struct uc_plan_it it = { 0 };
	const struct uc_change *c;
	uid_t *uids = NULL;
	size_t nu = 0, cap = 0;
	pid_t last = 0, last_tid = 0;

	*tasks = *users = 0;
	while ((c = uc_plan_next(p, &it))) {
		size_t k = 0;
		uid_t u;

		if (c->kind != UC_KIND_TASK)
			continue;
		if (c->tid != last_tid)
			(*tasks)++;
		last_tid = c->tid;
		/* a process's threads are adjacent: one read per process */
		if (c->pid == last || uc_task_uid(c->pid, &u))
			continue;
		last = c->pid;
		while (k < nu && uids[k] != u)
			k++;
		if (k < nu)
			continue;
		if (nu == cap) {
			uid_t *v = realloc(uids, (cap = cap ? cap * 2 : 16) * sizeof(*v));

			if (!v) {
				free(uids);
				return -ENOMEM;
			}
			uids = v;
		}
		uids[nu++] = u;
	}
	free(uids);
	*users = nu;
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

int uc_task_effective(pid_t pid, pid_t tid, int *eff_min, int *eff_max)
{
	struct uc_sched_file sf;
	int rc = uc_task_sched_file(pid, tid, &sf);

	if (rc == -EINVAL)
		return -ENODATA;	/* not the file we know: nothing shown */
	if (rc)
		return gone_errno(rc);
	if (sf.eff_min < 0 || sf.eff_max < 0)
		return -ENODATA;
	*eff_min = (int)sf.eff_min;
	*eff_max = (int)sf.eff_max;
	return 0;
}

/* ---- filling a rule's process description (uc_proc) ------------------- */

/* The first character after "\nState:\t" in /proc/PID/status. */
static char status_state(const char *status)
{
	const char *s = strstr(status, "State:");

	if (!s)
		return '?';
	s += 6;
	while (*s == ' ' || *s == '\t')
		s++;
	return *s ? *s : '?';
}

static int fill_cmdline(struct uc_proc *p)
{
	ssize_t len = read_head(p->pid, 0, "cmdline", p->cmdline, sizeof(p->cmdline));
	const char *a0, *slash;
	size_t n;

	if (len == -ESRCH && uc_task_exists(p->pid) == 0)
		/* a test tree without the file: nothing known, as a kernel thread */
		len = 0;
	if (len < 0)
		return (int)len;
	/* argv[0] ends at the first NUL; its basename, then NULs as spaces */
	a0 = p->cmdline;
	slash = strrchr(a0, '/');
	a0 = slash ? slash + 1 : a0;
	n = strnlen(a0, sizeof(p->argv0) - 1);
	memcpy(p->argv0, a0, n);
	p->argv0[n] = '\0';
	while (len > 0 && p->cmdline[len - 1] == '\0')
		len--;
	for (ssize_t i = 0; i < len; i++)
		if (p->cmdline[i] == '\0')
			p->cmdline[i] = ' ';
	p->cmdline[len] = '\0';
	if (!len)
		p->absent |= UC_PF_CMDLINE;	/* kernel thread or zombie */
	return 0;
}

void uc_proc_take_stat(struct uc_proc *p, const struct uc_stat *st)
{
	p->state = st->state;
	p->ppid = st->ppid;
	p->kthread = (st->flags & UC_PF_KTHREAD) != 0;
	p->start_time = st->start;
	p->have |= UC_PF_STAT;
}

static int fill_stat(struct uc_proc *p)
{
	char buf[1024];
	struct uc_stat st;
	unsigned long v;
	int rc = uc_task_stat(p->pid, p->pid, &st);

	if (!rc) {
		uc_proc_take_stat(p, &st);
		return 0;
	}
	if (rc != -ESRCH && rc != -EINVAL)
		return rc;
	/* no usable stat (a test tree): status, and "no cmdline, child of kthreadd" */
	rc = read_status(p->pid, buf, sizeof(buf));
	if (rc)
		return rc;
	p->state = status_state(buf);
	p->ppid = status_field(buf, "PPid", &v) ? 0 : (pid_t)v;
	p->start_time = 0;
	rc = uc_task_fill(p, UC_PF_CMDLINE, NULL);	/* unless read already */
	if (rc)
		return rc;
	p->kthread = (p->pid == 2 || p->ppid == 2) && (p->absent & UC_PF_CMDLINE);
	return 0;
}

static int fill_status(struct uc_proc *p)
{
	char buf[2048];
	unsigned long v;
	int rc = status_uid(p->pid, buf, sizeof(buf), &p->uid);

	if (rc)
		return rc;
	/* a test tree may leave Gid out: only a group selector needs it */
	p->gid = status_field(buf, "Gid", &v) ? (gid_t)-1 : (gid_t)v;
	return 0;
}

static int fill_exe(struct uc_proc *p)
{
	char abspath[64], path[PATH_MAX];
	ssize_t len;
	int rc;

	snprintf(abspath, sizeof(abspath), "/proc/%d/exe", (int)p->pid);
	rc = uc_path(path, sizeof(path), abspath);
	if (rc)
		return rc;
	len = readlink(path, p->exe, sizeof(p->exe) - 1);
	if (len < 0) {
		rc = -errno;
		if (rc != -ENOENT)
			return rc;
		rc = uc_task_exists(p->pid);	/* ENOENT: gone, or a kernel thread */
		if (rc)
			return rc;
		len = 0;
		p->absent |= UC_PF_EXE;
	}
	p->exe[len] = '\0';
	return 0;
}

static int fill_cgroup(struct uc_proc *p)
{
	const struct uc_cg_info *info = uc_cg_layout();
	int rc;

	if (!info) {
		p->absent |= UC_PF_CGROUP;
		return 0;
	}
	rc = uc_cg_of_pid(info, p->pid, p->cgroup, sizeof(p->cgroup));
	if (rc == -ENOENT || rc == -EXDEV) {
		/* no cpu hierarchy line, or outside our cgroup namespace */
		p->absent |= UC_PF_CGROUP;
		return 0;
	}
	return rc;
}

static int fill_parent(struct uc_proc *p)
{
	if (p->ppid <= 0 || uc_task_comm(p->ppid, p->ppid, p->pcomm, sizeof(p->pcomm)))
		p->absent |= UC_PF_PARENT;	/* none, or gone since: no parent to match */
	return 0;
}

static int fill_policy(struct uc_proc *p)
{
	struct uc_sched_attr sa;
	int rc = uc_sched_get(p->tid, &sa);

	if (rc)
		return rc;
	p->policy = (int)sa.sched_policy;
	return 0;
}

int uc_task_fill(struct uc_proc *p, unsigned want, void *data)
{
	static const struct {
		unsigned field, after;	/* after: needed first */
		int (*fn)(struct uc_proc *p);
	} steps[] = {
		{ UC_PF_STATUS, 0, fill_status },
		{ UC_PF_CMDLINE, 0, fill_cmdline },
		{ UC_PF_STAT, 0, fill_stat },
		{ UC_PF_EXE, 0, fill_exe },
		{ UC_PF_CGROUP, 0, fill_cgroup },
		{ UC_PF_POLICY, 0, fill_policy },
		{ UC_PF_PARENT, UC_PF_STAT, fill_parent },
	};
	int rc;

	(void)data;
	if (want & UC_PF_COMM) {
		rc = uc_task_comm(p->pid, p->pid, p->comm, sizeof(p->comm));
		if (rc)
			return rc;
		p->have |= UC_PF_COMM;
	}
	if (want & UC_PF_TCOMM) {
		rc = uc_task_comm(p->pid, p->tid, p->tcomm, sizeof(p->tcomm));
		if (rc)
			return rc;
		p->have |= UC_PF_TCOMM;
	}
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		if (!(want & steps[i].field) || (p->have & steps[i].field))
			continue;
		if (steps[i].after && !(p->have & steps[i].after)) {
			rc = uc_task_fill(p, steps[i].after, data);
			if (rc)
				return rc;
		}
		rc = steps[i].fn(p);
		if (rc)
			return rc;
		p->have |= steps[i].field;
	}
	return 0;
}

/* ---- the walk: one pass over /proc, every rule per task ---------------- */

struct walk {
	const struct uc_rules *rs;
	/* /proc/PID/task of the process being walked, -1 when not open */
	int taskfd;
	int visit_rc;		/* the last visit_task's answer (not the directory's) */
	bool all_threads;	/* a rule may take threads: visit them all */
	unsigned flags;		/* UC_WALK_* */
	uc_task_fn fn;
	void *data;
	struct uc_walk_stats *st;
	/*
	 * What the callback gets, one for the whole walk: filled in per
	 * thread, not built anew (a --threads walk visits 10,000 of them).
	 * task.sa: of proc.tid, once UC_PF_POLICY is in proc.have.
	 */
	struct uc_task task;
	/*
	 * The rules' answer for a thread other than the main one, kept for the
	 * process's next threads when no rule looks at a thread's own fields
	 * (its name, its policy): it would be the same for each of them.
	 */
	struct uc_rules_result thread_res;
	const struct uc_rules *thread_res_rs;	/* NULL: nothing kept */
	pid_t thread_res_pid;
	/*
	 * That process when its next threads need nothing of their own but their
	 * attributes (the answer kept, no name wanted): task holds the rest. 0: none.
	 */
	pid_t next_same;
	struct uc_proc proc;
};

/* Account for a read that failed: gone or failed. */
static void note_err(struct uc_walk_stats *st, int err, pid_t tid)
{
	if (err == -ESRCH) {
		st->gone++;
	} else if (!st->failed++) {
		st->first_err = err;
		st->first_err_tid = tid;
	}
}

/* The policy comes with the sched_getattr the plan needs anyway: keep it. */
static int walk_getattr(struct walk *w, struct uc_proc *p)
{
	int rc = uc_sched_get(p->tid, &w->task.sa);

	if (rc)
		return rc;
	p->policy = (int)w->task.sa.sched_policy;
	p->have |= UC_PF_POLICY;
	return 0;
}

static int walk_fill(struct uc_proc *p, unsigned want, void *data)
{
	if (want & UC_PF_POLICY) {
		int rc = walk_getattr(data, p);

		if (rc)
			return rc;
		want &= ~UC_PF_POLICY;
	}
	return want ? uc_task_fill(p, want, NULL) : 0;
}

int uc_task_rule(const struct uc_rules_result *res)
{
	for (int a = 0; a < UC_RA_N; a++)
		if (res->winner[a] >= 0)
			return res->winner[a];
	return -1;
}

/* comm of thread tid through its process's open task/ directory: two path
 * components instead of five, once per thread; "" when unreadable (a label) */
static void comm_at(int taskfd, pid_t tid, char *buf, size_t n)
{
	char rel[32], *r = rel + sizeof(rel) - 6;
	unsigned int v = (unsigned int)tid;
	ssize_t len;
	int fd;

	buf[0] = '\0';
	memcpy(r, "/comm", 6);	/* "TID/comm" right to left: no snprintf per thread */
	do
		*--r = (char)('0' + v % 10);
	while (v /= 10);
	fd = openat(taskfd, r, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	len = read(fd, buf, n - 1);
	close(fd);
	buf[len > 0 ? len : 0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
}

/* Start on a task of another process (or the same one again): nothing kept. */
static void walk_reset(struct walk *w, pid_t pid, pid_t tid)
{
	uc_proc_reset(&w->proc, pid, tid, walk_fill, w);
	w->thread_res_rs = NULL;
	w->next_same = 0;
}

/* Reading tid's attributes failed: gone, or counted with the rule that wanted it. */
static int getattr_failed(struct walk *w, const struct uc_rules_result *res, int rc, pid_t tid)
{
	if (!w->st->failed && rc != -ESRCH)
		w->st->first_err_rule = uc_task_rule(res);
	note_err(w->st, rc, tid);
	return 0;
}

/* The next thread of w->next_same's process: as the one before, but its attributes. A
 * --threads walk over 10,000 threads is this, once the first thread is done. */
static int visit_same(struct walk *w, pid_t tid)
{
	struct uc_task *t = &w->task;
	int rc = uc_sched_get(tid, &t->sa);

	if (rc)
		return getattr_failed(w, &w->thread_res, rc, tid);
	t->tid = tid;
	/* the main thread may have come between (a directory's order is its own) */
	t->match = &w->thread_res;
	t->state = '?';
	w->st->seen++;
	return w->fn(t, w->data);
}

/* One thread of w->proc's process: match, read its attributes, call back. */
static int visit_task(struct walk *w, pid_t tid)
{
	struct uc_proc *p = &w->proc;
	struct uc_rules_result own, *res = &own;
	struct uc_task *t = &w->task;
	bool same_for_threads = tid != p->pid &&
				!(w->rs->need & (UC_PF_TCOMM | UC_PF_POLICY));
	int rc = 0;

	if (w->next_same == p->pid && tid != p->pid)
		return visit_same(w, tid);
	if (tid != p->tid)
		uc_proc_set_thread(p, tid);
	if (same_for_threads && w->thread_res_rs == w->rs && w->thread_res_pid == p->pid) {
		res = &w->thread_res;
	} else {
		rc = uc_rules_match(w->rs, p, res);
		if (!rc && same_for_threads) {
			w->thread_res = own;
			w->thread_res_rs = w->rs;
			w->thread_res_pid = p->pid;
			res = &w->thread_res;
		}
	}
	if (!rc && !res->matched) {
		if (res->skipped_kthread && tid == p->pid)
			w->st->kthreads++;
		return 0;
	}
	if (!rc && !(p->have & UC_PF_POLICY)) {
		rc = walk_getattr(w, p);	/* not through uc_proc_need: once per thread */
		if (rc)
			return getattr_failed(w, res, rc, tid);
	}
	if (rc) {
		note_err(w->st, rc, tid);
		return 0;
	}
	t->pid = p->pid;
	t->tid = tid;
	t->match = res;
	t->comm[0] = '\0';
	/*
	 * /proc/PID/stat, read once per process: the state to tell a zombie
	 * main thread and the start time, the identity the executor checks
	 * again before the write. If it cannot be read, the write will say why.
	 */
	if ((p->have & UC_PF_STAT) || !uc_proc_need(p, UC_PF_STAT)) {
		t->state = tid == p->pid ? p->state : '?';
		t->start = p->start_time;
	} else {
		t->state = '?';
		t->start = 0;
	}
	if (tid == p->pid && (p->have & UC_PF_COMM))
		snprintf(t->comm, sizeof(t->comm), "%s", p->comm);
	else if (tid != p->pid && (p->have & UC_PF_TCOMM))
		snprintf(t->comm, sizeof(t->comm), "%s", p->tcomm);
	else if ((w->flags & UC_WALK_COMM) && w->taskfd >= 0)
		comm_at(w->taskfd, tid, t->comm, sizeof(t->comm));
	else if (w->flags & UC_WALK_COMM)
		/* only a label: if the task exited, the write will say so */
		uc_task_comm(p->pid, tid, t->comm, sizeof(t->comm));
	/* a thread as any other of its process: the next ones need only their attributes */
	if (same_for_threads && !(w->flags & UC_WALK_COMM))
		w->next_same = p->pid;
	w->st->seen++;
	return w->fn(t, w->data);
}

/* uc_tasks_each_tid, inline where the walk calls it: its fn called directly */
static inline __attribute__((always_inline)) int each_tid(pid_t pid, uc_tid_fn fn,
							  void *data)
{
	/* the entries as getdents64 leaves them, without readdir's copy and
	 * checks: once per thread, 10,000 times for a big process */
	union {
		struct dirent64 de;
		char b[32768];
	} buf;
	char abspath[64], p[4096];
	ssize_t len;
	int fd, rc = 0;

	snprintf(abspath, sizeof(abspath), "/proc/%d/task", (int)pid);
	if (uc_path(p, sizeof(p), abspath))
		return -ENAMETOOLONG;
	fd = open(p, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return gone_errno(-errno);
	/* an error reading it ends the list, as readdir's NULL would */
	while (!rc && (len = getdents64(fd, buf.b, sizeof(buf.b))) > 0) {
		for (ssize_t off = 0; !rc && off < len;) {
			const struct dirent64 *de = (const struct dirent64 *)(buf.b + off);
			pid_t tid = parse_id(de->d_name);

			off += de->d_reclen;
			if (tid > 0)
				rc = fn(tid, fd, data);
		}
	}
	close(fd);
	return rc;
}

int uc_tasks_each_tid(pid_t pid, uc_tid_fn fn, void *data)
{
	return each_tid(pid, fn, data);
}

int uc_tasks_each_pid(uc_pid_fn fn, void *data)
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
			rc = fn(pid, data);
	}
	closedir(dir);
	return rc;
}

static int visit_tid(pid_t tid, int taskfd, void *data)
{
	struct walk *w = data;

	w->taskfd = taskfd;
	/* visit_task's first test, here: a --threads walk's threads go straight on */
	if (w->next_same == w->proc.pid && tid != w->proc.pid)
		w->visit_rc = visit_same(w, tid);
	else
		w->visit_rc = visit_task(w, tid);
	return w->visit_rc;
}

/* The main thread, or every thread when a rule may take them (a uc_pid_fn). */
static int visit_process(pid_t pid, void *data)
{
	struct walk *w = data;
	int rc;

	walk_reset(w, pid, pid);
	if (!w->all_threads)
		return visit_task(w, pid);
	w->visit_rc = 0;
	rc = each_tid(pid, visit_tid, w);
	w->taskfd = -1;
	if (rc && !w->visit_rc) {
		note_err(w->st, rc, pid);	/* the task directory: gone, or unreadable */
		return 0;
	}
	return rc;
}

/* Explicit IDs: each once; a thread ID stands for itself, or for its
 * whole process with --threads. */
static int walk_pids(struct walk *w, const pid_t *pids, size_t npids)
{
	pid_t *done = calloc(npids, sizeof(*done));
	size_t ndone = 0;
	int rc = 0;

	if (!done)
		return -ENOMEM;
	for (size_t i = 0; !rc && i < npids; i++) {
		pid_t id = pids[i], tgid = tgid_of(id);
		pid_t key = w->all_threads ? tgid : id;
		bool seen = false;

		for (size_t k = 0; k < ndone && !seen; k++)
			seen = done[k] == key;
		if (seen)
			continue;
		done[ndone++] = key;
		if (w->all_threads || tgid == id) {
			rc = visit_process(tgid, w);
		} else if (!(w->flags & UC_WALK_ID_AS_GIVEN)) {
			walk_reset(w, tgid, id);
			rc = visit_task(w, id);
		} else {
			/* the command line: one thread, process filters do not apply */
			struct uc_rule any = {
				.rt = true, .kthreads = true, .threads = true,
				.min = w->rs->v[0].min, .max = w->rs->v[0].max,
				.reset_on_fork = w->rs->v[0].reset_on_fork,
			};
			size_t order0 = 0;
			const struct uc_rules one = { .v = &any, .n = 1, .order = &order0,
						      .norder = 1 };
			const struct uc_rules *saved = w->rs;

			w->rs = &one;
			walk_reset(w, tgid, id);
			rc = visit_task(w, id);
			w->rs = saved;
		}
	}
	free(done);
	return rc;
}

/* Every explicit PID must exist before anything is done. */
static int pids_exist(const pid_t *pids, size_t npids, struct uc_walk_stats *st)
{
	for (size_t i = 0; i < npids; i++) {
		int rc = uc_task_exists(pids[i]);

		if (rc) {
			st->first_err = rc;
			st->first_err_tid = pids[i];
			return rc;
		}
	}
	return 0;
}

int uc_tasks_walk(const struct uc_rules *rs, const pid_t *pids, size_t npids, unsigned flags,
		  uc_task_fn fn, void *data, struct uc_walk_stats *st)
{
	struct uc_walk_stats local;
	struct walk *w;
	int rc;

	st = st ? st : &local;
	memset(st, 0, sizeof(*st));
	st->first_err_rule = -1;
	rc = pids_exist(pids, npids, st);
	if (rc || !rs->n)
		return rc;
	w = calloc(1, sizeof(*w));	/* uc_proc holds a few paths: not on the stack */
	if (!w)
		return -ENOMEM;
	*w = (struct walk){ .rs = rs, .all_threads = rs->any_threads, .flags = flags,
			    .taskfd = -1, .fn = fn, .data = data, .st = st };
	rc = npids ? walk_pids(w, pids, npids) : uc_tasks_each_pid(visit_process, w);
	free(w);
	return rc;
}

/* ---- the plan builder --------------------------------------------------- */

/* The thread planned last, when the next ones of its process can go as it went. */
struct last_thread {
	pid_t pid;		/* its process; 0: none */
	unsigned long long start;
	const struct uc_rules_result *match;
	struct uc_sched_attr sa;
	size_t n;		/* the plan's changes after it: nothing added since */
	bool added;		/* its changes went in (else it was unchanged) */
};

struct plan_ctx {
	struct uc_plan *p;
	uc_refusal_fn on_refusal;
	void *data;
	bool skip_init;		/* --all: PID 1 is left alone (its children inherit) */
	struct uc_walk_stats *st;
	int rt_default;		/* read once, on the first RT task; -1 until then */
	struct last_thread last;
};

static int default_min(struct plan_ctx *c, const struct uc_sched_attr *sa)
{
	if (!uc_policy_is_rt((int)sa->sched_policy))
		return 0;
	if (c->rt_default < 0)
		c->rt_default = uc_sched_default_value(sa, false);
	return c->rt_default;
}

static void refuse(struct plan_ctx *c, const struct uc_task *t, enum uc_refusal_why why, int rule,
		   int end_min, int end_max)
{
	struct uc_task_refusal r = {
		.why = why, .pid = t->pid, .tid = t->tid, .policy = (int)t->sa.sched_policy,
		.cur_min = (int)t->sa.sched_util_min, .cur_max = (int)t->sa.sched_util_max,
		.end_min = end_min, .end_max = end_max, .rule = rule,
	};

	memcpy(r.comm, t->comm, sizeof(r.comm));
	if (why == UC_SKIP_ZOMBIE || why == UC_SKIP_INIT) {
		c->st->skipped++;
		if (why == UC_SKIP_ZOMBIE)
			c->p->gone++;	/* it has exited */
	} else {
		if (!c->st->refused++)
			c->st->first_refusal = r;
		c->p->failed++;
	}
	if (c->on_refusal)
		c->on_refusal(&r, c->data);
}

/* The rule deciding min > max for a refusal: the winner of the value that moved. */
static int refusal_rule(const struct uc_task *t, bool ch_max)
{
	if (!t->match)
		return -1;
	if (ch_max && t->match->winner[UC_RA_MAX] >= 0)
		return t->match->winner[UC_RA_MAX];
	return t->match->winner[UC_RA_MIN];
}

/* What a task should look like: its winning rules' values; UC_KEEP leaves one alone. */
struct want {
	int min, max, reset_on_fork;
};

static int plan_task(struct plan_ctx *c, const struct uc_task *t, const struct want *want)
{
	int cur_min = (int)t->sa.sched_util_min, cur_max = (int)t->sa.sched_util_max;
	int cur_rof = !!(t->sa.sched_flags & UC_SCHED_FLAG_RESET_ON_FORK);
	int end_min = cur_min, end_max = cur_max;
	bool ch_min = false, ch_max = false, ch_rof = false;
	enum uc_refusal_why why = UC_REFUSE_NONE;
	struct uc_task_change ch[3];
	size_t n = 0;

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
	if (t->state == 'Z')
		why = UC_SKIP_ZOMBIE;
	else if (c->skip_init && t->pid == 1)
		why = UC_SKIP_INIT;
	else if ((ch_min || ch_max) && end_min > end_max)
		why = want->min == UC_KEEP && uc_policy_is_rt((int)t->sa.sched_policy) ?
		      UC_REFUSE_RT_MAX_BELOW_MIN : UC_REFUSE_MIN_GT_MAX;
	if (why != UC_REFUSE_NONE) {
		refuse(c, t, why, refusal_rule(t, ch_max), end_min, end_max);
		return 0;
	}
	/* one TID's changes together: the executor sends them in one setattr; with the
	 * identity it checks right before the write (start 0: unknown, not checked) */
	if (ch_min)
		ch[n++] = (struct uc_task_change){ UC_ATTR_MIN, cur_min, want->min };
	if (ch_max)
		ch[n++] = (struct uc_task_change){ UC_ATTR_MAX, cur_max, want->max };
	if (ch_rof)
		ch[n++] = (struct uc_task_change){ UC_ATTR_RESET_ON_FORK, cur_rof,
						   !!want->reset_on_fork };
	return uc_plan_add_thread(c->p, t->pid, t->tid, t->start, t->comm, &t->sa, ch, n);
}

/* t is a thread as the one planned last (unnamed, of its process, with the same rules'
 * answer and attributes): the same outcome, without working it out again. */
static bool as_last(const struct plan_ctx *c, const struct uc_task *t)
{
	const struct last_thread *l = &c->last;

	return l->pid == t->pid && t->tid != t->pid && t->match == l->match &&
	       t->start == l->start && !t->comm[0] && c->p->n == l->n &&
	       !memcmp(&t->sa, &l->sa, sizeof(t->sa));
}

/* plan_one for a task not as the last one: worked out (kept out of plan_one's frame) */
static __attribute__((noinline)) int plan_new(struct plan_ctx *c, const struct uc_task *t)
{
	const struct uc_rules_result *m = t->match;
	size_t n0 = c->p->n, u0 = c->p->unchanged;
	struct want w;
	int rc;

	if (m->excluded_by >= 0 && uc_task_rule(m) < 0)
		return 0;	/* left alone: not "unchanged", nothing was asked */
	w = (struct want){
		.min = m->value[UC_RA_MIN], .max = m->value[UC_RA_MAX],
		.reset_on_fork = m->value[UC_RA_RESET_ON_FORK],
	};
	rc = plan_task(c, t, &w);
	c->last.pid = 0;
	/* planned or unchanged, nothing refused: the next threads like it go the same way */
	if (!rc && t->tid != t->pid && !t->comm[0] && (c->p->n > n0 || c->p->unchanged > u0))
		c->last = (struct last_thread){
			.pid = t->pid, .start = t->start, .match = t->match, .sa = t->sa,
			.n = c->p->n, .added = c->p->n > n0,
		};
	return rc;
}

static int plan_one(const struct uc_task *t, void *data)
{
	struct plan_ctx *c = data;
	int rc;

	if (!as_last(c, t))
		return plan_new(c, t);
	/* a --threads run's 10,000 threads, after the first two */
	if (!c->last.added) {
		c->p->unchanged++;
		return 0;
	}
	rc = uc_plan_add_same(c->p, t->tid);
	c->last.n = c->p->n;
	return rc;
}

int uc_tasks_plan(struct uc_plan *p, const struct uc_rules *rs, const pid_t *pids, size_t npids,
		  unsigned flags, uc_refusal_fn on_refusal, void *data, struct uc_walk_stats *st)
{
	struct uc_walk_stats local;
	struct plan_ctx c = { .p = p, .on_refusal = on_refusal, .data = data,
			      .skip_init = (flags & UC_WALK_SKIP_INIT) && !npids,
			      .st = st ? st : &local, .rt_default = -1 };
	int rc;

	/* values the kernel can take at all, before any task is read; min > max
	 * is wrong for every task: the caller's usage error */
	for (size_t i = 0; i < rs->n; i++) {
		rc = uc_sched_check(rs->v[i].min, rs->v[i].max, rs->v[i].reset_on_fork);
		if (rc)
			return rc;
	}
	rc = uc_tasks_walk(rs, pids, npids, flags, plan_one, &c, c.st);
	/* the walk zeroed the stats; refusals were counted during it */
	p->gone += c.st->gone;
	p->failed += c.st->failed;
	return rc;
}

int uc_tasks_plan_one(struct uc_plan *p, const struct uc_task *t, uc_refusal_fn on_refusal,
		      void *data, struct uc_walk_stats *st)
{
	struct plan_ctx c = { .p = p, .on_refusal = on_refusal, .data = data, .st = st,
			      .rt_default = -1 };

	memset(st, 0, sizeof(*st));
	st->first_err_rule = -1;
	return plan_one(t, &c);
}
