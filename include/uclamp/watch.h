/*
 * The rules daemon's core ('uclampctl watch'): keeps the [tasks] rules true
 * for processes that start later, and applies a [cgroup] section when its
 * group appears (watch_groups.c). It is fed decoded proc events
 * (procevents.h) and never reads the socket itself, so tests drive it with
 * synthetic events against a fake /proc (sysroot) and scripted syscalls.
 *
 * Never miss: a lost event (socket overrun, a gap in the per-CPU sequence,
 * a full queue) marks the state dirty and a full /proc rescan, at most one
 * a second, brings every process in line. Never hit the wrong process: a
 * process is (tgid, start time) plus a pidfd held from reading to writing.
 * Apply at EXEC (single-threaded then, later threads inherit), walk the
 * threads once; COMM re-matches one thread. Only values that differ are
 * written (the planner's no-op rule). No printing: messages go to a log
 * callback.
 */
#ifndef UCLAMP_WATCH_H
#define UCLAMP_WATCH_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "uclamp/guard.h"
#include "uclamp/procevents.h"
#include "uclamp/identity.h"
#include "uclamp/rules.h"
#include "uclamp/sched.h"

/* What the daemon and the matcher know of a task: each read once. */
struct uc_watch_seen {
	const struct uc_stat *st;	/* in: the process's stat (its identity), or NULL */
	struct uc_sched_attr sa;	/* out, if have_sa: the thread's attributes */
	bool have_sa;
	char comm[UC_PROC_COMM_LEN];	/* out: the thread's name if the rules read it, or "" */
};

/* One generation of rules behind the matcher seam (watch_rules.c adapts
 * the rules module; tests plug in a script). */
struct uc_watch_rules_ops {
	/* Match thread tid of process pid once: 0 and res filled (see
	 * rules.h), -ESRCH when the task is gone, other -errno. The daemon
	 * plans from res (uc_tasks_plan_one). seen: what the daemon has read
	 * already, and what the match read that it can use. */
	int (*match)(void *rules, pid_t pid, pid_t tid, struct uc_watch_seen *seen,
		     struct uc_rules_result *res);
	/* Rule idx's name, for logs (NULL: none); valid while the rules live. */
	const char *(*name)(void *rules, int idx);
	void (*free)(void *rules);
};

struct uc_config;

struct uc_watch_ruleset {
	const struct uc_watch_rules_ops *ops;
	void *rules;
	size_t nrules;
	/* the configuration the rules came from, owned by them: its [cgroup]
	 * sections are watch_groups.c's (NULL: none) */
	struct uc_config *config;
	bool sets_clamps;	/* some rule writes a clamp: would enable the fast path */
	bool allow_enable;	/* [fast-path] allow-enable = yes in the config */
	uint32_t events;	/* events beyond EXEC/COMM/EXIT the rules need (FORK, UID, GID) */
};

/* Why a full rescan ran. */
enum uc_watch_cause {
	UC_RESCAN_START,
	UC_RESCAN_OVERRUN,	/* the socket overran: ENOBUFS */
	UC_RESCAN_SEQ_GAP,	/* a per-CPU sequence number was skipped */
	UC_RESCAN_QUEUE_FULL,	/* our queue was full: events dropped */
	UC_RESCAN_RELOAD,	/* new rules */
	UC_RESCAN_LOCKED,	/* another writer held the lock: a batch was put off */
	UC_RESCAN_NCAUSES,
};
/* start overrun seq_gap queue_full reload locked */
const char *uc_watch_cause_name(enum uc_watch_cause c);

enum uc_watch_ev {
	UC_WEV_FORK, UC_WEV_EXEC, UC_WEV_COMM, UC_WEV_UID, UC_WEV_GID, UC_WEV_EXIT, UC_WEV_OTHER,
	UC_WEV_N,
};
const char *uc_watch_ev_name(enum uc_watch_ev e);	/* fork exec comm uid gid exit other */

/* exec -> apply latency buckets (upper bounds, seconds), then +Inf */
#define UC_WATCH_LAT_N 14
extern const double uc_watch_lat_bounds[UC_WATCH_LAT_N];

#define UC_WATCH_MAX_ERRNOS 16

struct uc_watch_stats {
	/* rules generation: 1 after the first load, +1 per reload */
	uint64_t generation;
	uint64_t rules;
	uint64_t tracked, tracked_cap;
	uint64_t events[UC_WEV_N];
	uint64_t overruns, seq_gaps, queue_drops;
	uint64_t rescans[UC_RESCAN_NCAUSES];
	uint64_t applied;		/* tasks written (one setattr each) */
	uint64_t unchanged;		/* tasks matched and already right: no write */
	uint64_t would_apply;		/* --dry-run: tasks that would have been written */
	uint64_t gone;			/* exited before we could write */
	uint64_t identity_mismatch;	/* PID reused between event and write: not applied */
	uint64_t skipped_rt;		/* real-time tasks left alone (no allow-rt rule) */
	uint64_t given_up;		/* processes left alone after too many re-applies */
	uint64_t rechecks;		/* periodic re-checks of the tracked processes */
	/* tasks a re-check found changed back by another writer, and set again */
	uint64_t drift_corrected;
	uint64_t untracked;		/* matched but not tracked: table at its cap */
	/* writes refused: would enable the fast path, no consent */
	uint64_t refused;
	/* [cgroup] sections: how many, how many wait for their group now
	 * (gauges); groups written, found right, gone before the write,
	 * skipped (cannot take the values: cpu cannot be enabled, ...) */
	uint64_t groups, groups_waiting;
	uint64_t groups_applied, groups_unchanged, groups_gone, groups_skipped;
	uint64_t log_suppressed;	/* lines about processes not said (uc_watch_log_due) */
	uint64_t reloads, reload_failures;
	/* reloads that did not take and so withdrew the rules' allow-enable */
	uint64_t consent_withdrawn;
	uint64_t errors_total;
	struct { int err; uint64_t n; } errors[UC_WATCH_MAX_ERRNOS];	/* positive errno */
	uint64_t queue_len, queue_hiwater, queue_cap;
	uint64_t lat_buckets[UC_WATCH_LAT_N + 1];	/* non-cumulative; last = +Inf */
	uint64_t lat_count, lat_sum_ns;
	uint64_t pid, started;		/* daemon PID, start (unix seconds) */
};

/* Serialize as "key value" lines (the status socket's wire format), and
 * back. Parse: 0 or -EINVAL on a malformed line (unknown keys are skipped,
 * so an older client can read a newer daemon). */
int uc_watch_stats_format(const struct uc_watch_stats *s, char *buf, size_t n);
int uc_watch_stats_parse(const char *text, struct uc_watch_stats *s);

/* A log record: msg is the whole line; the rest are structured fields for
 * the journal (-1 / NULL when not about a task). prio is syslog's. */
struct uc_watch_log {
	int prio;
	const char *msg;
	pid_t pid, tid;
	const char *rule;
	int old_min, old_max, new_min, new_max;
	const char *reason;	/* "exec", "comm", "rescan", "reload", ... */
	const char *file;	/* config errors: file and line */
	int line;
};
typedef void (*uc_watch_log_fn)(void *data, const struct uc_watch_log *l);

/* Syscalls that tests must script (a fake /proc has fake PIDs). */
struct uc_watch_sys {
	/* fd, or -errno (-ENOSYS: check the start time instead) */
	int (*pidfd_open)(pid_t pid);
	int (*pidfd_alive)(int fd);	/* 1 alive, 0 exited */
};

struct uc_watch_opts {
	bool dry_run;			/* decide and log, write nothing */
	/* Consent, checked again by uc_plan_run() before every write: --yes,
	 * or the rule set's allow-enable. Without it a write that would flip
	 * the key is refused (counted), whatever the caller checked before. */
	bool yes;
	/* the fast path's state at start (the caller read it) */
	enum uc_key_state key;
	size_t max_tracked;		/* processes in the table; 0: default 65536 */
	size_t queue_cap;		/* events; 0: default 4096 */
	/* re-applies per minute, and re-checks in a row that find a process changed
	 * back, before giving up on it; 0: default 5 */
	unsigned reapply_limit;
	/* how often the tracked processes are checked for drift (their clamps set
	 * back by another writer: no event says so); 0: never */
	unsigned recheck_ms;
	unsigned rescan_interval_ms;	/* minimum between rescans; 0: default 1000 */
	/* another process holds the writers' lock this long: a warning; 0: 5000 */
	unsigned lock_warn_ms;
	uc_watch_log_fn log;
	void *log_data;
	const struct uc_watch_sys *sys;	/* NULL: the real ones */
};

struct uc_watch;

int uc_watch_new(const struct uc_watch_opts *o, struct uc_watch **out);
void uc_watch_free(struct uc_watch *w);

/* Take ownership of rs (the old set is freed): generation + 1. */
void uc_watch_set_rules(struct uc_watch *w, struct uc_watch_ruleset *rs);
const struct uc_watch_ruleset *uc_watch_rules(const struct uc_watch *w);

/* Whether the per-CPU sequence can show losses (false when the kernel
 * filters events for us: filtered ones use up numbers too). */
void uc_watch_set_seq_check(struct uc_watch *w, bool on);
/* Exit events do not come (the socket filter keeps them in the kernel): the
 * table drops exited processes itself, each time it has doubled. */
void uc_watch_set_lazy_exits(struct uc_watch *w, bool on);

/* Queue one event (a gap in its CPU's sequence or a full queue marks the
 * state dirty). Cheap: no /proc access. */
void uc_watch_push(struct uc_watch *w, const struct uc_pev *ev);
/* The socket overran: events were lost. */
void uc_watch_overrun(struct uc_watch *w);
/*
 * A signal handler's flag (the signal number), read between writes: the
 * write under way finishes (uc_plan_run's stop), the batch stops there.
 * NULL (the default): never.
 */
void uc_watch_set_stop(struct uc_watch *w, volatile sig_atomic_t *stop);

/*
 * Batches (uc_watch_process, uc_watch_rescan) hold the writers' lock
 * (uclamp/lock.h), taken without waiting; when another writer holds it the
 * batch is put off: dirty (cause "locked"), the rescan one interval later.
 */
/* Handle up to max queued events; returns how many are left. */
size_t uc_watch_process(struct uc_watch *w, size_t max);
size_t uc_watch_queued(const struct uc_watch *w);

/* Mark dirty (rescan wanted) for a cause. */
void uc_watch_mark_dirty(struct uc_watch *w, enum uc_watch_cause c);
/* -1: not dirty; else milliseconds until the rescan may run (0: now). */
long uc_watch_rescan_due(const struct uc_watch *w, uint64_t now_ms);
/* Scan /proc and apply the rules to every process; clears dirty. Counts
 * one rescan per pending cause (or 'c' when none is pending). 0 or -errno. */
int uc_watch_rescan(struct uc_watch *w, enum uc_watch_cause c, uint64_t now_ms);

/*
 * Drift: no event says that another writer set a clamp back, so every
 * recheck_ms the processes in the table (those a rule matched) are read and
 * matched again, and what differs is written (counted in drift_corrected).
 * One stat and one sched_getattr per thread of a tracked process: the cost
 * is bounded by the table. A process found changed back at reapply_limit
 * re-checks in a row is given up on, as one fought over by events is. -1:
 * none due (off, a dry run, nothing tracked); else milliseconds until it is.
 */
long uc_watch_recheck_due(const struct uc_watch *w, uint64_t now_ms);
void uc_watch_recheck(struct uc_watch *w, uint64_t now_ms);

const struct uc_watch_stats *uc_watch_stats(struct uc_watch *w);
/* Count a reload that took (ok) or kept the old rules. One that did not
 * take withdraws the running rules' allow-enable (--yes stays): no write
 * that would enable the fast path until rules are set again. True when this
 * call withdrew it. */
bool uc_watch_note_reload(struct uc_watch *w, bool ok);

/*
 * Lines about processes (a clamp written, a write refused or failed), which
 * any user can cause by exec'ing a program a rule matches: at most 200 per
 * 10 s; the rest are counted (log_suppressed) and said in one warning when
 * the window ends. The loop's timer asks when (-1: nothing held) and ticks.
 */
long uc_watch_log_due(const struct uc_watch *w, uint64_t now_ms);
void uc_watch_log_tick(struct uc_watch *w, uint64_t now_ms);

/* Log through the callback (printf-style); used by the loop and the loader too. */
void uc_watch_logf(const struct uc_watch *w, int prio, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

uint64_t uc_watch_now_ms(void);	/* CLOCK_MONOTONIC */


/*
 * For watch_groups.c: one group's plan, made by plan() (0 planned, 1
 * skipped: say why through the log, or -errno) under the writers' lock
 * (taken without waiting: -EBUSY when another writer holds it, retry later)
 * and run through the guard with the daemon's consent, best effort; what
 * (e.g. "[cgroup nginx.service]") and reason ("appeared") go to the log.
 * Counted in groups_*, refused, errors. 0 or -errno.
 */
int uc_watch_run_group(struct uc_watch *w, int (*plan)(struct uc_plan *p, void *data), void *data,
		       const char *what, const char *reason);
/* The [cgroup] gauges: sections, and those waiting for their group. */
void uc_watch_note_groups(struct uc_watch *w, size_t sections, size_t waiting);

/* ---- [cgroup] sections whose group appears later (watch_groups.c) ---------- */

/*
 * Each [cgroup] section of the rules' configuration is applied when its
 * group appears, and again whenever it is made anew (a restarted service
 * gets a new group with the defaults; the executor writes only the group it
 * planned, uc_cg_ident). inotify, bounded: one watch on the directory each
 * section waits in (its group's parent, or the deepest ancestor there is),
 * never a recursive one. A unit name resolves through systemd: a running
 * unit's group, else where it will be (uc_sd_unit_future_cgroup).
 */
struct uc_watch_groups;

/* The sections of w's rules (none: *out NULL, 0). Nothing is read yet. */
int uc_watch_groups_new(struct uc_watch *w, struct uc_watch_groups **out);
void uc_watch_groups_free(struct uc_watch_groups *g);
int uc_watch_groups_fd(const struct uc_watch_groups *g);	/* for epoll; -1: none */
/* Resolve, watch and apply every section (start, reload, a lost event). */
void uc_watch_groups_sync(struct uc_watch_groups *g, const char *reason);
/* The inotify fd is readable: apply the sections whose group appeared. */
void uc_watch_groups_event(struct uc_watch_groups *g);
/* -1: nothing to retry; else ms until the retry of sections a held lock put off. */
long uc_watch_groups_due(const struct uc_watch_groups *g, uint64_t now_ms);
void uc_watch_groups_retry(struct uc_watch_groups *g, uint64_t now_ms);

/* ---- the rules from the configuration (watch_rules.c) --------------------- */

#define UC_WATCH_MAX_RULES 1024

struct uc_conf_error;
struct uc_conf_skip;
typedef void (*uc_watch_conf_err_fn)(void *data, const struct uc_conf_error *e);
typedef void (*uc_watch_conf_skip_fn)(void *data, const struct uc_conf_skip *k);

/* Load the configuration (paths, or the default locations when n == 0),
 * validate it fully and compile its [tasks] sections into a rule set
 * (at most UC_WATCH_MAX_RULES), its [cgroup] sections kept for
 * watch_groups.c (rs->config). Returns 0 after calling skip (may be NULL)
 * once per target the files name that this host lacks (a user), or -EINVAL
 * after calling err once per problem (file:line), or -ENOMEM. Nothing of a
 * failed load is kept. */
int uc_watch_rules_load(const char *const *paths, size_t n, struct uc_watch_ruleset *out,
			uc_watch_conf_err_fn err, uc_watch_conf_skip_fn skip, void *data);

/* ---- the event loop (watch_loop.c) ---------------------------------------- */

/* How the loop talks to its host: systemd's sd_notify when there is one. */
struct uc_watch_loop_opts {
	const char *const *config_paths;	/* watched with inotify; reloads are debounced */
	size_t nconfig;
	/* Load, validate and compile the rules: 0 and *rs filled, or -errno
	 * after logging why (file:line); the old rules then stay. */
	int (*load)(void *data, struct uc_watch_ruleset *rs);
	/* May these rules run? false: refused (the callback logs why). */
	bool (*may_run)(void *data, const struct uc_watch_ruleset *rs);
	void *data;
	/* "READY=1", "RELOADING=1", "STATUS=...", "WATCHDOG=1", "STOPPING=1" */
	void (*notify)(void *data, const char *state);
	/* 0: no watchdog timer (idle means asleep) */
	uint64_t watchdog_usec;
	const char *status_socket;		/* NULL: none */
	int ack_timeout_ms;			/* 0: 3000 */
	int rcvbuf;				/* 0: 16 MiB */
};

/* Subscribe, wait for the ack, scan /proc once, then serve events until
 * SIGTERM or SIGINT (SIGHUP reloads). Returns 0 after a clean stop, or the
 * setup's -errno: -EPERM (the connector needs CAP_NET_ADMIN before 6.6),
 * -ETIMEDOUT (no ack: a non-initial user/PID namespace, or no
 * CONFIG_PROC_EVENTS), -EPROTONOSUPPORT (no CONFIG_CONNECTOR), -EADDRINUSE
 * (a live daemon answers at status_socket). */
int uc_watch_run(struct uc_watch *w, const struct uc_watch_loop_opts *lo);

/* ---- the status socket (watch_status.c) ----------------------------------- */

#define UC_WATCH_SOCKET "/run/uclampctl/watch.sock"

/* The listening socket and the file it bound (only that file is removed). */
struct uc_watch_listener {
	int fd;			/* -1: none */
	dev_t dev;
	ino_t ino;
	struct timespec ctime;
};
/* Who serves path: 1 when a daemon answers there (*pid: its PID, 0 if
 * unknown), 0 when nothing does (no file, or a socket that refuses
 * connections: stale), -errno when we cannot tell (-EACCES: not root). */
int uc_watch_status_owner(const char *path, pid_t *pid);
/* Listen at path, root only (its directory is created): 0, -EADDRINUSE when a
 * live daemon answers there (*owner: its PID), -EEXIST when something other
 * than a socket is there, or -errno. A stale socket is replaced. */
int uc_watch_status_listen(const char *path, struct uc_watch_listener *ls, pid_t *owner);
/* Stop listening; remove path only if it is still the socket we bound. */
void uc_watch_status_close(struct uc_watch_listener *ls, const char *path);
/* Answer one client on the listening fd: the counters, then close. */
int uc_watch_status_serve(struct uc_watch *w, int lfd);
/* Ask the daemon: 0 and s filled, -ENOENT/-ECONNREFUSED (not running), -EACCES. */
int uc_watch_status_query(const char *path, struct uc_watch_stats *s);

#endif
