/*
 * The rules daemon's core (see watch.h): events in, clamps out.
 *
 * Per process: open a pidfd, read the start time, check it against the
 * event (a process that started after its own EXEC event is a reused PID),
 * match each thread once and plan from that match (uc_tasks_plan_one, one
 * getattr: only what differs),
 * check the pidfd is still alive, write. The pidfd pins the PID from the
 * /proc read to the write, so a reused PID is never clamped by mistake.
 *
 * Never miss: a lost event (socket overrun, a per-CPU sequence gap, a full
 * queue) marks the state dirty and a full /proc rescan, at most one a
 * second, brings every process in line. Drift, which no event shows: every
 * recheck_ms the tracked processes are matched and written again; one
 * changed back reapply_limit times in a row is given up on. Lines about
 * processes, which any user can cause: at most 200 per 10 s, the rest
 * counted (log_suppressed) and said in one warning.
 */
#include <malloc.h>
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "uclamp/identity.h"
#include "uclamp/lock.h"
#include "uclamp/plan_run.h"
#include "uclamp/sched.h"
#include "uclamp/sysroot.h"
#include "uclamp/tasks.h"
#include "uclamp/watch.h"
#include "watch_table.h"

#define DEF_MAX_TRACKED 65536
#define DEF_QUEUE_CAP 4096
#define DEF_REAPPLY_LIMIT 5
#define DEF_RESCAN_MS 1000
#define DEF_LOCK_WARN_MS 5000
#define MAX_CPUS 4096
#define SEQ_SEEN 0x100000000ull
#define FORGET_MIN 64
/* lines about processes, which any user can cause (execs of a program a
 * rule matches, renames): at most LOG_BURST per LOG_WINDOW_MS */
#define LOG_BURST 200
#define LOG_WINDOW_MS 10000

struct uc_watch {
	struct uc_watch_opts o;
	struct uc_watch_sys sys;
	struct uc_watch_ruleset rs;
	bool have_rules;
	/* a reload did not take: the rules' allow-enable no longer counts */
	bool consent_withdrawn;
	struct uc_wtable table;
	struct uc_pev *q;
	size_t qhead, qlen;
	uint64_t *cpu_seq;		/* last seq | SEQ_SEEN */
	size_t ncpu;
	bool seq_check;
	/* exit events stay in the kernel: forget exited processes when the table
	 * reaches forget_at */
	bool lazy_exits;
	size_t forget_at;
	unsigned dirty;			/* 1 << cause */
	uint64_t last_rescan_ms;
	bool rescanned;
	uint64_t created_ms;		/* monotonic */
	uint64_t last_recheck_ms;	/* 0: not yet (the first is one interval after start) */
	uint32_t scan_mark;
	uint64_t tick_ns;
	pid_t self;
	enum uc_key_state key;		/* ON after our first write */
	struct uc_lock lock;		/* the writers' lock, held per batch */
	/* taken at a batch's first task a rule applies to: most events need no
	 * clamp read or written, and the lock is eight system calls */
	enum { BATCH_OPEN, BATCH_LOCKED, BATCH_LOCKED_OUT } batch;
	/* the executor for a main thread whose pidfd was just found alive */
	struct uc_exec_ops pidfd_ops;
	bool lock_logged;		/* the current contention was logged */
	bool lock_warned;		/* ... and warned about: it lasted */
	uint64_t lock_busy_since;	/* monotonic ms; 0: the lock was ours last time */
	volatile sig_atomic_t *stop;	/* set by a signal handler: finish the write, stop */
	uint64_t log_window;		/* monotonic ms: the window of lines about processes */
	unsigned log_lines;		/* said in it */
	uint64_t log_held;		/* suppressed in it: said in one line when it ends */
	struct uc_watch_stats st;
};

/* ---- small things ----------------------------------------------------------- */

static void vlog(const struct uc_watch *w, int prio, pid_t pid, const char *fmt, va_list ap)
{
	char msg[512];
	struct uc_watch_log l = {
		.prio = prio, .msg = msg, .pid = pid, .tid = -1,
		.old_min = -1, .old_max = -1, .new_min = -1, .new_max = -1,
	};

	if (!w->o.log)
		return;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	w->o.log(w->o.log_data, &l);
}

void uc_watch_logf(const struct uc_watch *w, int prio, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(w, prio, -1, fmt, ap);
	va_end(ap);
}

/* Milliseconds from now until at; 0: due. */
static long ms_until(uint64_t now, uint64_t at)
{
	return now >= at ? 0 : (long)(at - now);
}

long uc_watch_log_due(const struct uc_watch *w, uint64_t now_ms)
{
	return w->log_held ? ms_until(now_ms, w->log_window + LOG_WINDOW_MS) : -1;
}

void uc_watch_log_tick(struct uc_watch *w, uint64_t now_ms)
{
	if (now_ms < w->log_window + LOG_WINDOW_MS)
		return;
	if (w->log_held)
		uc_watch_logf(w, LOG_WARNING, "%llu lines about processes suppressed in the last "
			      "%llu s (at most %d per %d s: lines any user can cause are limited)",
			      (unsigned long long)w->log_held,
			      (unsigned long long)(now_ms - w->log_window) / 1000, LOG_BURST,
			      LOG_WINDOW_MS / 1000);
	w->log_window = now_ms;
	w->log_lines = 0;
	w->log_held = 0;
}

/* May a line about a process be said now? Else it is counted, and said in
 * one line when the window ends (uc_watch_log_tick). */
static bool log_quota(struct uc_watch *w)
{
	if (!w->o.log)
		return false;
	uc_watch_log_tick(w, uc_now_ms());
	if (w->log_lines < LOG_BURST) {
		w->log_lines++;
		return true;
	}
	w->log_held++;
	w->st.log_suppressed++;
	return false;
}

/* A line about a process: limited (log_quota). */
static void plog(struct uc_watch *w, int prio, pid_t pid, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void plog(struct uc_watch *w, int prio, pid_t pid, const char *fmt, ...)
{
	va_list ap;

	if (!log_quota(w))
		return;
	va_start(ap, fmt);
	vlog(w, prio, pid, fmt, ap);
	va_end(ap);
}

static void count_err(struct uc_watch *w, int err)
{
	err = err < 0 ? -err : err;
	w->st.errors_total++;
	for (int i = 0; i < UC_WATCH_MAX_ERRNOS; i++) {
		if (w->st.errors[i].err == err || !w->st.errors[i].err) {
			w->st.errors[i].err = err;
			w->st.errors[i].n++;
			return;
		}
	}
	/* more distinct errnos than slots: the total still counts them */
}

/* A read that failed: the task exited before it (gone), or an error. */
static void count_fail(struct uc_watch *w, int rc)
{
	if (rc == -ESRCH)
		w->st.gone++;
	else
		count_err(w, rc);
}

static int real_pidfd_open(pid_t pid)
{
#ifdef SYS_pidfd_open
	int fd = (int)syscall(SYS_pidfd_open, pid, 0);

	return fd < 0 ? -errno : fd;
#else
	return -ENOSYS;
#endif
}

/* A pidfd polls readable once its process has exited. */
static int real_pidfd_alive(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, 0) == 0;
}

static const struct uc_watch_sys real_sys = { real_pidfd_open, real_pidfd_alive };

/* ---- life cycle ----------------------------------------------------------- */

int uc_watch_new(const struct uc_watch_opts *o, struct uc_watch **out)
{
	struct uc_watch *w = calloc(1, sizeof(*w));
	long hz = sysconf(_SC_CLK_TCK), ncpu = sysconf(_SC_NPROCESSORS_CONF);

	*out = NULL;
	if (!w)
		return -ENOMEM;
	w->o = *o;
	if (!w->o.max_tracked)
		w->o.max_tracked = DEF_MAX_TRACKED;
	if (!w->o.queue_cap)
		w->o.queue_cap = DEF_QUEUE_CAP;
	if (!w->o.reapply_limit)
		w->o.reapply_limit = DEF_REAPPLY_LIMIT;
	if (!w->o.rescan_interval_ms)
		w->o.rescan_interval_ms = DEF_RESCAN_MS;
	if (!w->o.lock_warn_ms)
		w->o.lock_warn_ms = DEF_LOCK_WARN_MS;
	w->sys = o->sys ? *o->sys : real_sys;
	w->ncpu = ncpu < 1 ? 1 : ncpu > MAX_CPUS ? MAX_CPUS : (size_t)ncpu;
	w->q = calloc(w->o.queue_cap, sizeof(*w->q));
	w->cpu_seq = calloc(w->ncpu, sizeof(*w->cpu_seq));
	if (!w->q || !w->cpu_seq) {
		uc_watch_free(w);
		return -ENOMEM;
	}
	w->seq_check = true;
	w->tick_ns = 1000000000ull / (uint64_t)(hz > 0 ? hz : 100);
	w->self = getpid();
	w->key = o->key;
	w->lock.fd = -1;
	/* a live pidfd, opened before the start time was read, proves what reading
	 * it again would (four system calls); other threads keep the per-thread
	 * check: a pidfd is the process's */
	w->pidfd_ops = uc_exec_default_ops;
	w->pidfd_ops.task_start = NULL;
	w->pidfd_ops.task_member = NULL;
	uc_wtable_init(&w->table, w->o.max_tracked);
	w->st.tracked_cap = w->o.max_tracked;
	w->st.queue_cap = w->o.queue_cap;
	w->st.pid = (uint64_t)w->self;
	w->st.started = (uint64_t)time(NULL);
	w->created_ms = uc_now_ms();
	*out = w;
	return 0;
}

static void free_rules(struct uc_watch_ruleset *rs)
{
	if (rs->ops && rs->ops->free)
		rs->ops->free(rs->rules);
	memset(rs, 0, sizeof(*rs));
}

void uc_watch_free(struct uc_watch *w)
{
	if (!w)
		return;
	free_rules(&w->rs);
	uc_lock_release(&w->lock);
	uc_wtable_free(&w->table);
	free(w->q);
	free(w->cpu_seq);
	free(w);
}

/* Forget a process's history of re-applies (and of being given up on). */
static void fresh_chance(struct uc_wproc *e)
{
	e->given_up = false;
	e->logged = false;
	e->writes = 0;
	e->drifts = 0;
}

void uc_watch_set_rules(struct uc_watch *w, struct uc_watch_ruleset *rs)
{
	free_rules(&w->rs);
	w->rs = *rs;
	memset(rs, 0, sizeof(*rs));
	w->have_rules = true;
	w->consent_withdrawn = false;
	w->st.generation++;
	w->st.rules = w->rs.nrules;
	/* a new generation: processes given up on get another chance */
	for (size_t i = 0; i < w->table.cap; i++)
		fresh_chance(&w->table.v[i]);
}

const struct uc_watch_ruleset *uc_watch_rules(const struct uc_watch *w)
{
	return w->have_rules ? &w->rs : NULL;
}

void uc_watch_set_seq_check(struct uc_watch *w, bool on)
{
	w->seq_check = on;
}

void uc_watch_set_lazy_exits(struct uc_watch *w, bool on)
{
	w->lazy_exits = on;
	w->forget_at = FORGET_MIN;
}

const struct uc_watch_stats *uc_watch_stats(struct uc_watch *w)
{
	w->st.tracked = w->table.n;
	w->st.queue_len = w->qlen;
	return &w->st;
}

/* A reload that does not take (refused, or a broken file): the file no longer
 * holds the running rules' consent, so they write nothing that enables the
 * fast path from now on. */
bool uc_watch_note_reload(struct uc_watch *w, bool ok)
{
	if (ok) {
		w->st.reloads++;
		return false;
	}
	w->st.reload_failures++;
	if (!w->have_rules || !w->rs.allow_enable || w->o.yes || w->consent_withdrawn)
		return false;
	w->consent_withdrawn = true;
	w->st.consent_withdrawn++;
	return true;
}

/* ---- identity ----------------------------------------------------------- */

struct ident {
	pid_t tgid;
	int pidfd;		/* -1: none (no pidfd_open): re-read the start time instead */
	/* as read: its start time and state ('Z': exited, not reaped yet); the
	 * rules' stat fields come from it */
	struct uc_stat st;
};

static int ident_open(struct uc_watch *w, pid_t tgid, struct ident *id)
{
	int rc;

	id->tgid = tgid;
	id->pidfd = w->sys.pidfd_open(tgid);
	if (id->pidfd == -ESRCH)
		return -ESRCH;
	if (id->pidfd < 0)
		id->pidfd = -1;
	rc = uc_task_stat(tgid, tgid, &id->st);
	if (rc && id->pidfd >= 0)
		close(id->pidfd);	/* a failed open leaves nothing to close */
	return rc;
}

/* Is it still the process we read? */
static bool ident_still(struct uc_watch *w, const struct ident *id)
{
	unsigned long long start;

	if (id->pidfd >= 0)
		return w->sys.pidfd_alive(id->pidfd) == 1;
	return !uc_task_start_time(id->tgid, id->tgid, &start) && start == id->st.start;
}

/* A process that started after the event about it is not the one the event was about. */
static bool started_after(const struct uc_watch *w, uint64_t start_ticks, uint64_t ts_ns)
{
	uint64_t boot_off = uc_clock_ns(CLOCK_BOOTTIME) - uc_clock_ns(CLOCK_MONOTONIC);

	return start_ticks * w->tick_ns > ts_ns + boot_off;
}

/* ---- forgetting ----------------------------------------------------------- */

static bool exited(const struct uc_wproc *e, void *data)
{
	unsigned long long start;

	(void)data;
	return uc_task_start_time(e->tgid, e->tgid, &start) || start != e->start;
}

/* Not seen by the rescan whose mark is *data. */
static bool unseen(const struct uc_wproc *e, void *data)
{
	return e->scan != *(const uint32_t *)data;
}

static void next_forget(struct uc_watch *w)
{
	size_t n = w->table.n;

	w->forget_at = n + (n > FORGET_MIN ? n : FORGET_MIN);
}

/* Without exit events the table learns of exits here: once it has doubled,
 * drop the processes gone (PID gone, or reused: another start time).
 * Amortized O(1) an entry; the table stays within twice the live ones. */
static void forget_exited(struct uc_watch *w)
{
	if (!w->lazy_exits || w->table.n < w->forget_at)
		return;
	uc_wtable_forget(&w->table, exited, NULL);
	next_forget(w);
	/* full of live processes: stop looking until a rescan tidies up */
	if (w->table.n >= w->table.max)
		w->forget_at = SIZE_MAX;
}

/* ---- applying ----------------------------------------------------------- */

struct round {
	const char *reason;
	bool recheck;		/* a periodic re-check: a write corrects drift */
	bool matched, wrote, refused;
};

static void note_latency(struct uc_watch *w, uint64_t ts_ns)
{
	uint64_t now = uc_clock_ns(CLOCK_MONOTONIC), d = now > ts_ns ? now - ts_ns : 0;
	double s = (double)d / 1e9;
	int i = 0;

	while (i < UC_WATCH_LAT_N && s > uc_watch_lat_bounds[i])
		i++;
	w->st.lat_buckets[i]++;
	w->st.lat_count++;
	w->st.lat_sum_ns += d;
}

/* known: the task's name as the rules read it ("": read it here) */
static void log_change(struct uc_watch *w, const struct uc_plan *p, const char *rule,
		       const char *known, const struct round *r, bool dry)
{
	struct uc_plan_it it = { 0 };
	const struct uc_change *c = uc_plan_next(p, &it);	/* one task's plan */
	struct uc_watch_log l = {
		.prio = LOG_INFO, .pid = c ? c->pid : 0, .tid = c ? c->tid : 0, .rule = rule,
		.old_min = -1, .old_max = -1, .new_min = -1, .new_max = -1, .reason = r->reason,
	};
	char comm[16] = "", msg[384], vals[160] = "", vb[32];
	size_t off = 0;

	if (!c || !log_quota(w))
		return;
	if (*known)
		snprintf(comm, sizeof(comm), "%s", known);
	else
		uc_task_comm(l.pid, l.tid, comm, sizeof(comm));
	for (; c; c = uc_plan_next(p, &it)) {
		if (c->attr == UC_ATTR_MIN) {
			l.old_min = (int)c->from;
			l.new_min = (int)c->to;
		} else if (c->attr == UC_ATTR_MAX) {
			l.old_max = (int)c->from;
			l.new_max = (int)c->to;
		}
		off += (size_t)snprintf(vals + off, sizeof(vals) - off, "%s%s %ld -> %s",
					off ? ", " : "", uc_attr_name(c->kind, c->attr), c->from,
					uc_change_value(c, c->to, vb, sizeof(vb)));
		if (off >= sizeof(vals))
			break;
	}
	snprintf(msg, sizeof(msg), "%spid %d tid %d (%s) rule '%s': %s (%s)",
		 dry ? "dry-run: would set " : "", (int)l.pid, (int)l.tid, comm,
		 rule ? rule : "?", vals, r->reason);
	l.msg = msg;
	w->o.log(w->o.log_data, &l);
}

/* Too many writes to one process in a minute: someone keeps undoing them. */
static bool over_limit(struct uc_watch *w, struct uc_wproc *e, pid_t tgid)
{
	uint32_t now_s = (uint32_t)(uc_now_ms() / 1000);

	if (!e)
		return false;
	if (now_s - e->window_start >= 60) {
		e->window_start = now_s;
		e->writes = 0;
	}
	if (e->writes <= w->o.reapply_limit)
		return false;
	e->given_up = true;
	w->st.given_up++;
	if (!e->logged) {
		plog(w, LOG_WARNING, tgid,
		     "pid %d: its clamps were changed back %u times within a minute by another "
		     "writer; leaving it alone until the rules change or it execs",
		     (int)tgid, (unsigned)e->writes - 1);
		e->logged = true;
	}
	return true;
}

/* The guard's view of the key: what the caller read at start, then ours. */
static enum uc_key_state cached_key(void *data)
{
	const struct uc_watch *w = data;

	return w->key;
}

/* Run a plan, the guard asked again (consent per write): --yes, or the rules'
 * allow-enable while it holds. ops: NULL, the real executor. */
static void run_plan(struct uc_watch *w, struct uc_plan *p, const struct uc_exec_ops *ops,
		     struct uc_report *rep)
{
	struct uc_run_opts ro = {
		.mode = UC_EXEC_BEST_EFFORT,
		.yes = w->o.yes || (w->rs.allow_enable && !w->consent_withdrawn),
		.key_state = cached_key,
		.data = w,
		.stop = w->stop,
		.ops = ops,
	};

	uc_plan_run(p, &ro, rep);
	if (rep->outcome == UC_RUN_REFUSED)
		w->st.refused++;
	else if (rep->targets[UC_CH_DONE] && rep->flips)
		w->key = UC_KEY_ON;
}

/* ---- batches: the writers' lock, the stop flag ------------------------------ */

void uc_watch_set_stop(struct uc_watch *w, volatile sig_atomic_t *stop)
{
	w->stop = stop;
}

static bool stopping(const struct uc_watch *w)
{
	return w->stop && *w->stop;
}

/* A batch holds the writers' lock, taken without waiting at its first task a
 * rule applies to (a daemon must not hang behind an 'apply'); held by another,
 * the rest is put off: dirty, rescanned one interval later. Dry runs take none. */
static void locked_out(struct uc_watch *w, pid_t holder, uint64_t now)
{
	char name[64] = "", who[96] = "an unknown process";

	if (!w->lock_busy_since)
		w->lock_busy_since = now;
	if (w->lock_warned || (w->lock_logged && now - w->lock_busy_since < w->o.lock_warn_ms))
		return;
	/* its comm as it is: the log escapes names */
	if (holder > 0 && !uc_task_comm(holder, 0, name, sizeof(name)))
		snprintf(who, sizeof(who), "PID %d (%s)", (int)holder, name);
	else if (holder > 0)
		snprintf(who, sizeof(who), "PID %d", (int)holder);
	if (!w->lock_logged)
		uc_watch_logf(w, LOG_INFO, "%s holds the writers' lock: retrying with a rescan",
			      who);
	else
		uc_watch_logf(w, LOG_WARNING,
			      "%s has held the writers' lock (%s) for %llu s: nothing is clamped "
			      "until it lets go", who, UC_LOCK_PATH,
			      (unsigned long long)(now - w->lock_busy_since) / 1000);
	w->lock_warned = w->lock_logged;
	w->lock_logged = true;
}

static bool batch_begin(struct uc_watch *w)
{
	uint64_t now = uc_now_ms();
	pid_t holder;
	int rc;

	if (w->o.dry_run)
		return true;
	rc = uc_lock_try(&w->lock, &holder);
	if (rc && rc != -EWOULDBLOCK) {
		/* as the CLI does: no /run/uclampctl for us (not root, a read-only
		 * /run): the kernel refuses such a user's writes to others' tasks */
		if (!w->lock_logged)
			uc_watch_logf(w, LOG_WARNING,
				      "no uclampctl lock (%s: %s): going on without it",
				      UC_LOCK_PATH, strerror(-rc));
		w->lock_logged = true;
		return true;
	}
	if (!rc) {
		if (w->lock_warned)
			uc_watch_logf(w, LOG_INFO, "the writers' lock is ours again after %llu s",
				      (unsigned long long)(now - w->lock_busy_since) / 1000);
		w->lock_logged = w->lock_warned = false;
		w->lock_busy_since = 0;
		return true;
	}
	locked_out(w, holder, now);
	uc_watch_mark_dirty(w, UC_RESCAN_LOCKED);
	w->rescanned = true;
	w->last_rescan_ms = now;	/* the retry: one interval from now */
	w->qlen = 0;
	return false;
}

/* May this batch read clamps to write now? Takes the lock the first time. */
static bool batch_write(struct uc_watch *w)
{
	if (w->batch == BATCH_OPEN)
		w->batch = batch_begin(w) ? BATCH_LOCKED : BATCH_LOCKED_OUT;
	return w->batch == BATCH_LOCKED;
}

static void batch_end(struct uc_watch *w)
{
	if (w->batch == BATCH_LOCKED)
		uc_lock_release(&w->lock);
	w->batch = BATCH_OPEN;
}

/* Run a plan for one task and count what became of it. */
static void write_plan(struct uc_watch *w, const struct ident *id, pid_t tid, struct uc_plan *p,
		       const char *rule, const char *comm, struct uc_wproc *e, struct round *r)
{
	struct uc_report rep;

	/* the main thread's live pidfd: ident_still() has just checked it (apply_task) */
	run_plan(w, p, tid == id->tgid && id->pidfd >= 0 ? &w->pidfd_ops : NULL, &rep);
	if (rep.outcome == UC_RUN_REFUSED) {
		if (!r->refused)
			plog(w, LOG_ERR, id->tgid,
			     "pid %d tid %d: rule '%s' would enable the uclamp fast path and there "
			     "is no consent%s: not applied",
			     (int)id->tgid, (int)tid, rule ? rule : "?",
			     w->consent_withdrawn ? " (withdrawn by a reload that did not take)" :
			     "");
		r->refused = true;
	} else if (rep.targets[UC_CH_DONE]) {
		w->st.applied++;
		if (r->recheck)
			w->st.drift_corrected++;
		if (!r->wrote && e)
			e->writes++;
		r->wrote = true;
		log_change(w, p, rule, comm, r, false);
	} else if (rep.targets[UC_CH_GONE]) {
		w->st.gone++;
	} else if (rep.targets[UC_CH_FAILED]) {
		count_err(w, rep.first_err);
		plog(w, LOG_WARNING, id->tgid,
		     "pid %d tid %d: cannot set the clamps of rule '%s': %s", (int)id->tgid,
		     (int)tid, rule ? rule : "?", strerror(-rep.first_err));
	}
}

/* One thread: match once, plan from that match (only what differs), check
 * identity, write. Returns whether the rules want the process's other
 * threads visited. */
static bool apply_task(struct uc_watch *w, const struct ident *id, pid_t tid, struct uc_wproc **ep,
		       struct round *r)
{
	struct uc_rules_result res;
	struct uc_task t = { .pid = id->tgid, .tid = tid, .start = id->st.start, .match = &res,
			     .state = tid == id->tgid ? id->st.state : '?' };
	struct uc_walk_stats ws;
	struct uc_plan p;
	const char *rule;
	struct uc_watch_seen seen = { .st = &id->st };
	bool held = w->batch == BATCH_LOCKED;
	int rc = w->rs.ops->match(w->rs.rules, id->tgid, tid, &seen, &res);

	if (rc == -ESRCH)
		return false;
	if (rc) {
		count_err(w, rc);
		return false;
	}
	if (uc_task_rule(&res) < 0) {
		if (res.skipped_rt)
			w->st.skipped_rt++;
		return res.threads;
	}
	rule = w->rs.ops->name ? w->rs.ops->name(w->rs.rules, uc_task_rule(&res)) : NULL;
	r->matched = true;
	if (!*ep) {
		forget_exited(w);
		*ep = uc_wtable_add(&w->table, id->tgid);
		if (*ep)
			(*ep)->start = id->st.start;
		else
			w->st.untracked++;
	}
	if (*ep && (*ep)->given_up)
		return false;
	/* a rule applies: plan from values read under the writers' lock, never
	 * from the middle of another writer's run (an 'apply' may still roll back) */
	if (!batch_write(w))
		return false;	/* locked out: the rescan comes back to it */
	/* read by the match for the policy (under the lock), or now */
	if (seen.have_sa && held)
		t.sa = seen.sa;
	else
		rc = uc_sched_get(tid, &t.sa);
	if (rc) {
		count_fail(w, rc);
		return res.threads;
	}
	uc_plan_init(&p);
	rc = uc_tasks_plan_one(&p, &t, NULL, NULL, &ws);
	if (!rc && p.gone) {
		w->st.gone++;	/* a zombie: exited, not reaped yet */
		goto out;
	}
	if (rc || ws.refused) {
		count_err(w, rc ? rc : -EINVAL);
		if (ws.refused)
			plog(w, LOG_WARNING, id->tgid,
			     "pid %d tid %d: rule '%s' cannot apply: util_min %d "
			     "would be above util_max %d",
			     (int)id->tgid, (int)tid, rule ? rule : "?",
			     ws.first_refusal.end_min, ws.first_refusal.end_max);
		goto out;
	}
	if (!p.n) {
		w->st.unchanged += p.unchanged;
		goto out;
	}
	if (w->o.dry_run) {
		w->st.would_apply++;
		log_change(w, &p, rule, seen.comm, r, true);
		goto out;
	}
	/* a re-check has its own limit: in a row (note_drift), not per minute */
	if (!r->wrote && !r->recheck && over_limit(w, *ep, id->tgid))
		goto out;
	if (!ident_still(w, id)) {
		w->st.identity_mismatch++;
		goto out;
	}
	write_plan(w, id, tid, &p, rule, seen.comm, *ep, r);
out:
	uc_plan_free(&p);
	return res.threads;
}

/* The other threads of a process, after its main thread. */
struct others {
	struct uc_watch *w;
	const struct ident *id;
	struct uc_wproc **ep;
	struct round *r;
};

static int apply_other(pid_t tid, int taskfd, void *data)
{
	struct others *o = data;

	(void)taskfd;
	if (tid != o->id->tgid)
		apply_task(o->w, o->id, tid, o->ep, o->r);
	return 0;
}

/* A re-check that set a process's clamps again (another writer had changed
 * them back): after reapply_limit in a row it is left alone, until it execs or
 * the rules change; a re-check that finds it right starts the count again. */
static void note_drift(struct uc_watch *w, struct uc_wproc *e, const struct round *r, pid_t tgid)
{
	if (!e || !r->recheck || e->given_up)
		return;
	if (!r->wrote) {
		e->drifts = 0;
		return;
	}
	if (e->drifts < UINT8_MAX)
		e->drifts++;
	if (e->drifts < w->o.reapply_limit)
		return;
	e->given_up = true;
	w->st.given_up++;
	if (!e->logged)
		plog(w, LOG_WARNING, tgid,
		     "pid %d: its clamps were changed back by another writer at %u re-checks in "
		     "a row; leaving it alone until the rules change or it execs",
		     (int)tgid, (unsigned)e->drifts);
	e->logged = true;
}

/* A process (every thread, or only 'only_tid'). ts_ns: the EXEC/FORK event's time, 0 for none. */
static void apply_process(struct uc_watch *w, pid_t tgid, pid_t only_tid, uint64_t ts_ns,
			  const char *reason)
{
	struct round r = { .reason = reason, .recheck = !strcmp(reason, "recheck") };
	struct uc_wproc *e;
	struct ident id;
	int rc;

	if (tgid <= 0 || tgid == w->self || !w->have_rules)
		return;
	rc = ident_open(w, tgid, &id);
	if (rc) {
		count_fail(w, rc);
		return;
	}
	if (ts_ns && started_after(w, id.st.start, ts_ns)) {
		w->st.identity_mismatch++;
		goto out;
	}
	e = uc_wtable_get(&w->table, tgid);
	if (e && e->start != id.st.start) {
		/* the PID now names another process: start afresh */
		uc_wtable_del(&w->table, tgid);
		e = NULL;
	}
	if (e) {
		e->scan = w->scan_mark;
		if (!strcmp(reason, "exec")) {
			/* a new program: a new chance, even for one given up on */
			fresh_chance(e);
			e->window_start = (uint32_t)(uc_now_ms() / 1000);
		}
		if (e->given_up)
			goto out;
	}
	if (only_tid > 0) {
		apply_task(w, &id, only_tid, &e, &r);
	} else if (apply_task(w, &id, tgid, &e, &r)) {
		/* the main thread first: it says whether the others matter */
		struct others o = { w, &id, &e, &r };

		rc = uc_tasks_each_tid(tgid, apply_other, &o);
		if (rc) {
			count_fail(w, rc);
			goto out;
		}
	}
	if (e)
		e->scan = w->scan_mark;
	note_drift(w, e, &r, tgid);
	if (ts_ns && (r.wrote || (w->o.dry_run && r.matched)))
		note_latency(w, ts_ns);
out:
	if (id.pidfd >= 0)
		close(id.pidfd);
}

/* ---- events --------------------------------------------------------------- */

/* the connector's event per enum uc_watch_ev; anything else is UC_WEV_OTHER */
static const uint32_t ev_bits[UC_WEV_OTHER] = {
	UC_PEV_FORK, UC_PEV_EXEC, UC_PEV_COMM, UC_PEV_UID, UC_PEV_GID, UC_PEV_EXIT,
};

static enum uc_watch_ev ev_type(uint32_t what)
{
	int t = 0;

	while (t < UC_WEV_OTHER && ev_bits[t] != what)
		t++;
	return (enum uc_watch_ev)t;
}

void uc_watch_mark_dirty(struct uc_watch *w, enum uc_watch_cause c)
{
	w->dirty |= 1u << c;
}

void uc_watch_overrun(struct uc_watch *w)
{
	w->st.overruns++;
	uc_watch_mark_dirty(w, UC_RESCAN_OVERRUN);
}

static void check_seq(struct uc_watch *w, const struct uc_pev *ev)
{
	uint64_t *s;

	if (!w->seq_check || ev->cpu >= w->ncpu)
		return;
	s = &w->cpu_seq[ev->cpu];
	if ((*s & SEQ_SEEN) && ev->seq != (uint32_t)(*s + 1) &&
	    (int32_t)(ev->seq - (uint32_t)*s) > 0) {
		w->st.seq_gaps++;
		uc_watch_mark_dirty(w, UC_RESCAN_SEQ_GAP);
	}
	*s = SEQ_SEEN | ev->seq;
}

void uc_watch_push(struct uc_watch *w, const struct uc_pev *ev)
{
	enum uc_watch_ev t = ev_type(ev->what);

	w->st.events[t]++;
	check_seq(w, ev);
	if (t == UC_WEV_EXIT && ev->pid == ev->tgid)
		/* cheap and order-safe: a queued EXEC for this PID finds it gone */
		uc_wtable_del(&w->table, ev->tgid);
	if (t == UC_WEV_EXIT || t == UC_WEV_OTHER || !w->have_rules)
		return;
	/* forks, uid and gid changes only when a rule asks; a thread inherits its
	 * creator's clamps: only new processes' forks */
	if (t != UC_WEV_EXEC && t != UC_WEV_COMM &&
	    (!(ev->what & w->rs.events) || (t == UC_WEV_FORK && ev->pid != ev->tgid)))
		return;
	if (w->qlen == w->o.queue_cap) {
		w->st.queue_drops++;
		uc_watch_mark_dirty(w, UC_RESCAN_QUEUE_FULL);
		return;
	}
	w->q[(w->qhead + w->qlen) % w->o.queue_cap] = *ev;
	w->qlen++;
	if (w->qlen > w->st.queue_hiwater)
		w->st.queue_hiwater = w->qlen;
}

size_t uc_watch_process(struct uc_watch *w, size_t max)
{
	/* a lock-out empties the queue: the rescan covers what was in it */
	while (w->qlen && max-- && !stopping(w)) {
		struct uc_pev ev = w->q[w->qhead];
		enum uc_watch_ev t = ev_type(ev.what);

		w->qhead = (w->qhead + 1) % w->o.queue_cap;
		w->qlen--;
		/* its name the reason; a rename is about one thread, exec and fork are timed */
		apply_process(w, ev.tgid, t == UC_WEV_COMM ? ev.pid : 0,
			      t == UC_WEV_EXEC || t == UC_WEV_FORK ? ev.ts_ns : 0,
			      uc_watch_ev_name(t));
	}
	batch_end(w);
	return w->qlen;
}

/* ---- rescans -------------------------------------------------------------- */

long uc_watch_rescan_due(const struct uc_watch *w, uint64_t now_ms)
{
	if (!w->dirty)
		return -1;
	return w->rescanned ? ms_until(now_ms, w->last_rescan_ms + w->o.rescan_interval_ms) : 0;
}

/* Say why events were lost, if they were: a rescan is never silent about it. */
static void log_lost(const struct uc_watch *w, unsigned dirty)
{
	const unsigned lost = 1u << UC_RESCAN_OVERRUN | 1u << UC_RESCAN_SEQ_GAP |
			      1u << UC_RESCAN_QUEUE_FULL;
	char why[96] = "";
	size_t len = 0;

	if (!(dirty & lost))
		return;
	for (int i = 0; i < UC_RESCAN_NCAUSES; i++)
		if (dirty & lost & (1u << i) && len < sizeof(why))
			len += (size_t)snprintf(why + len, sizeof(why) - len, "%s%s",
						len ? ", " : "", uc_watch_cause_name(i));
	uc_watch_logf(w, LOG_WARNING, "proc events were lost (%s; %llu overruns, %llu sequence "
		      "gaps, %llu queue drops so far): rescanning /proc so that no process is "
		      "missed", why, (unsigned long long)w->st.overruns,
		      (unsigned long long)w->st.seq_gaps, (unsigned long long)w->st.queue_drops);
}

static int rescan_one(pid_t pid, void *data)
{
	struct uc_watch *w = data;

	if (stopping(w))
		return 1;
	apply_process(w, pid, 0, 0, "rescan");
	return w->batch == BATCH_LOCKED_OUT;
}

int uc_watch_rescan(struct uc_watch *w, enum uc_watch_cause c, uint64_t now_ms)
{
	unsigned dirty;
	bool locked_out;
	int rc;

	if (!w->dirty)
		w->dirty = 1u << c;
	if (stopping(w))
		return 0;
	dirty = w->dirty;
	w->dirty = 0;
	w->rescanned = true;
	w->last_rescan_ms = now_ms;
	/* queued events are about processes the scan is about to see */
	w->qlen = 0;
	w->scan_mark++;
	rc = uc_tasks_each_pid(rescan_one, w);
	locked_out = w->batch == BATCH_LOCKED_OUT;
	batch_end(w);
	if (locked_out) {
		/* not done: batch_begin() set the retry; the causes wait for it */
		w->dirty |= dirty;
		return 0;
	}
	/* counted and said once the scan went through, not for a lock-out */
	log_lost(w, dirty);
	for (int i = 0; i < UC_RESCAN_NCAUSES; i++)
		if (dirty & (1u << i))
			w->st.rescans[i]++;
	if (rc < 0)
		return rc;
	if (stopping(w))
		return 0;	/* cut short: its marks are not the whole table's */
	uc_wtable_forget(&w->table, unseen, &w->scan_mark);
	next_forget(w);
#ifdef __GLIBC__
	/* a scan's transient buffers: give them back, the daemon lives long */
	malloc_trim(0);
#endif
	return 0;
}

/* ---- re-checks: drift ------------------------------------------------------ */

long uc_watch_recheck_due(const struct uc_watch *w, uint64_t now_ms)
{
	if (!w->o.recheck_ms || w->o.dry_run || !w->table.n || !w->have_rules)
		return -1;
	return ms_until(now_ms, (w->last_recheck_ms ? w->last_recheck_ms : w->created_ms) +
			w->o.recheck_ms);
}

void uc_watch_recheck(struct uc_watch *w, uint64_t now_ms)
{
	pid_t *v;
	size_t n = 0;

	w->last_recheck_ms = now_ms ? now_ms : 1;
	if (!w->table.n || stopping(w))
		return;
	/* the PIDs first: a re-check may drop and add entries as it goes */
	v = malloc(w->table.n * sizeof(*v));
	if (!v) {
		count_err(w, -ENOMEM);
		return;
	}
	for (size_t i = 0; i < w->table.cap && n < w->table.n; i++)
		if (w->table.v[i].tgid && !w->table.v[i].given_up)
			v[n++] = w->table.v[i].tgid;
	w->st.rechecks++;
	for (size_t i = 0; i < n && !stopping(w) && w->batch != BATCH_LOCKED_OUT; i++)
		apply_process(w, v[i], 0, 0, "recheck");
	batch_end(w);
	free(v);
}

/* ---- [cgroup] sections (for watch_groups.c) ---------------------------------- */

void uc_watch_note_groups(struct uc_watch *w, size_t sections, size_t waiting)
{
	w->st.groups = sections;
	w->st.groups_waiting = waiting;
}

/* One line per change: "cgroup.max 'x': max -> 40.00" with what and why. */
static void log_group(const struct uc_watch *w, const struct uc_plan *p, const char *what,
		      const char *reason, bool dry)
{
	struct uc_plan_it it = { 0 };
	const struct uc_change *c;
	char t[256], a[32], b[32];

	while ((c = uc_plan_next(p, &it))) {
		if (!dry && c->state != UC_CH_DONE)
			continue;
		uc_watch_logf(w, LOG_INFO, "%s%s %s: %s %s -> %s (%s)",
			      dry ? "dry-run: would set " : "", what,
			      uc_change_target(c, t, sizeof(t)), uc_attr_name(c->kind, c->attr),
			      uc_change_value(c, c->from, a, sizeof(a)),
			      uc_change_value(c, c->to, b, sizeof(b)), reason);
	}
}

static void group_report(struct uc_watch *w, const struct uc_plan *p, const struct uc_report *rep,
			 const char *what, const char *reason)
{
	if (rep->outcome == UC_RUN_REFUSED) {
		uc_watch_logf(w, LOG_ERR, "%s would enable the uclamp fast path and there is no "
			      "consent%s: not applied", what, w->consent_withdrawn ?
			      " (withdrawn by a reload that did not take)" : "");
		return;
	}
	if (rep->targets[UC_CH_DONE]) {
		w->st.groups_applied++;
		log_group(w, p, what, reason, false);
	}
	if (rep->targets[UC_CH_GONE])
		w->st.groups_gone++;
	if (rep->targets[UC_CH_FAILED]) {
		count_err(w, rep->first_err);
		uc_watch_logf(w, LOG_WARNING, "%s: cannot set its clamps: %s", what,
			      strerror(-rep->first_err));
	}
}

int uc_watch_run_group(struct uc_watch *w, int (*plan)(struct uc_plan *p, void *data), void *data,
		       const char *what, const char *reason)
{
	struct uc_report rep;
	struct uc_plan p;
	int rc = 0;

	/* the values it is planned from are read under the lock, as for tasks */
	if (!w->o.dry_run && !batch_write(w)) {
		w->batch = BATCH_OPEN;
		return -EBUSY;
	}
	uc_plan_init(&p);
	rc = plan(&p, data);
	if (rc == 1) {
		w->st.groups_skipped++;
		rc = 0;
	} else if (rc < 0) {
		count_err(w, rc);
	} else if (!p.n) {
		w->st.groups_unchanged++;
	} else if (w->o.dry_run) {
		w->st.would_apply++;
		log_group(w, &p, what, reason, true);
	} else {
		run_plan(w, &p, NULL, &rep);
		group_report(w, &p, &rep, what, reason);
	}
	uc_plan_free(&p);
	batch_end(w);
	return rc;
}
