/*
 * The rules daemon's core ('uclampctl watch'), fed decoded proc events; how it
 * never misses a process nor hits a reused PID: see watch_core.c. No printing.
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
#include "uclamp/sysroot.h"	/* uc_now_ms(): the now_ms the calls below take */

/* What the daemon and the matcher know of a task: each read once. */
struct uc_watch_seen {
	const struct uc_stat *st;	/* in: the process's stat (its identity), or NULL */
	struct uc_sched_attr sa;	/* out, if have_sa: the thread's attributes */
	bool have_sa;
	char comm[UC_PROC_COMM_LEN];	/* out: the thread's name if the rules read it, or "" */
};

/* One generation of rules behind the matcher seam: watch_rules.c's, or the
 * script of test_watch.c (matching by TID), the seam's only other user. */
struct uc_watch_rules_ops {
	/* Match thread tid of process pid: 0 and res filled, -ESRCH (gone), -errno.
	 * seen: what the daemon read already, and what the match read. */
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
	/* the configuration, owned by the rules; its [cgroup] sections are watch_groups.c's */
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
/* start overrun seq_gap queue_full reload locked (an int: a renderer's callback) */
const char *uc_watch_cause_name(int c);

enum uc_watch_ev {
	UC_WEV_FORK, UC_WEV_EXEC, UC_WEV_COMM, UC_WEV_UID, UC_WEV_GID, UC_WEV_EXIT, UC_WEV_OTHER,
	UC_WEV_N,
};
const char *uc_watch_ev_name(int e);	/* fork exec comm uid gid exit other */

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

/* "key value" lines (the status socket's wire format), and back: 0 or -EINVAL
 * on a malformed line; unknown keys are skipped (an older client, a newer daemon). */
int uc_watch_stats_format(const struct uc_watch_stats *s, char *buf, size_t n);
int uc_watch_stats_parse(const char *text, struct uc_watch_stats *s);

/* A log record: msg is the whole line, the rest journal fields (-1/NULL: none). */
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
	/* --yes (or the rules' allow-enable), checked by uc_plan_run() before every
	 * write: without it a write that would flip the key is refused (counted). */
	bool yes;
	/* the fast path's state at start (the caller read it) */
	enum uc_key_state key;
	size_t max_tracked;		/* processes in the table; 0: default 65536 */
	size_t queue_cap;		/* events; 0: default 4096 */
	/* re-applies a minute (or re-checks in a row) before giving up; 0: 5 */
	unsigned reapply_limit;
	/* how often the tracked processes are checked for drift; 0: never */
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

/* Whether the per-CPU sequence shows losses (not with a kernel-side filter). */
void uc_watch_set_seq_check(struct uc_watch *w, bool on);
/* No exit events (filtered): the table drops exited processes as it doubles. */
void uc_watch_set_lazy_exits(struct uc_watch *w, bool on);

/* Queue one event, no /proc access (a sequence gap or a full queue: dirty). */
void uc_watch_push(struct uc_watch *w, const struct uc_pev *ev);
/* The socket overran: events were lost. */
void uc_watch_overrun(struct uc_watch *w);
/* A signal handler's flag, read between writes: the batch stops there. */
void uc_watch_set_stop(struct uc_watch *w, volatile sig_atomic_t *stop);

/* Handle up to max queued events under the writers' lock (held by another:
 * put off, cause "locked"); returns how many are left. */
size_t uc_watch_process(struct uc_watch *w, size_t max);

/* Mark dirty (rescan wanted) for a cause. */
void uc_watch_mark_dirty(struct uc_watch *w, enum uc_watch_cause c);
/* -1: not dirty; else milliseconds until the rescan may run (0: now). */
long uc_watch_rescan_due(const struct uc_watch *w, uint64_t now_ms);
/* Scan /proc and apply the rules to every process; clears dirty (counted per
 * pending cause, else as c). 0 or -errno. */
int uc_watch_rescan(struct uc_watch *w, enum uc_watch_cause c, uint64_t now_ms);

/* Drift (watch_core.c): the tracked processes matched and written again every
 * recheck_ms. -1: none due; else ms until it is. */
long uc_watch_recheck_due(const struct uc_watch *w, uint64_t now_ms);
void uc_watch_recheck(struct uc_watch *w, uint64_t now_ms);

const struct uc_watch_stats *uc_watch_stats(struct uc_watch *w);
/* Count a reload that took (ok) or not; one that did not withdraws the rules'
 * allow-enable (not --yes) until rules are set again: true when it did. */
bool uc_watch_note_reload(struct uc_watch *w, bool ok);

/* Lines about processes, which any user can cause: at most 200 per 10 s, the
 * rest counted and said in one warning (watch_core.c). -1: nothing held. */
long uc_watch_log_due(const struct uc_watch *w, uint64_t now_ms);
void uc_watch_log_tick(struct uc_watch *w, uint64_t now_ms);

/* Log through the callback (printf-style); used by the loop and the loader too. */
void uc_watch_logf(const struct uc_watch *w, int prio, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* For watch_groups.c: plan() one group (0, 1 skipped, -errno) under the lock
 * (-EBUSY: held, retry) and run it with the daemon's consent; what and reason
 * go to the log. 0 or -errno. */
int uc_watch_run_group(struct uc_watch *w, int (*plan)(struct uc_plan *p, void *data), void *data,
		       const char *what, const char *reason);
/* The [cgroup] gauges: sections, and those waiting for their group. */
void uc_watch_note_groups(struct uc_watch *w, size_t sections, size_t waiting);

/* ---- [cgroup] sections, applied when their group appears or is made anew
 * (watch_groups.c) ----------------------------------------------------------- */

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

/* Load and validate the configuration (n == 0: the default files) into a rule
 * set: 0 after skip() for each target this host lacks, -EINVAL after err() for
 * each problem, -ENOMEM; nothing of a failed load is kept. */
int uc_watch_rules_load(const char *const *paths, size_t n, struct uc_watch_ruleset *out,
			uc_watch_conf_err_fn err, uc_watch_conf_skip_fn skip, void *data);

/* ---- the event loop (watch_loop.c) ---------------------------------------- */

/* How the loop talks to its host (systemd's notify protocol). */
struct uc_watch_loop_opts {
	const char *const *config_paths;	/* watched with inotify; reloads are debounced */
	size_t nconfig;
	/* 0 and *rs filled, or -errno after logging why (the old rules stay) */
	int (*load)(void *data, struct uc_watch_ruleset *rs);
	/* May these rules run? false: refused (the callback logs why). */
	bool (*may_run)(void *data, const struct uc_watch_ruleset *rs);
	void *data;
	/* "READY=1", "RELOADING=1", "STATUS=...", "WATCHDOG=1", "STOPPING=1" */
	void (*notify)(void *data, const char *state);
	/* 0: no watchdog timer (idle means asleep) */
	uint64_t watchdog_usec;
	const char *status_socket;		/* NULL: none */
	int rcvbuf;				/* 0: 16 MiB */
};

/* Subscribe, scan /proc once, serve events until SIGTERM/SIGINT (SIGHUP
 * reloads): 0, or the setup's -errno (-EPERM, -ETIMEDOUT: no ack,
 * -EPROTONOSUPPORT, -EADDRINUSE: a live daemon at status_socket). */
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
/* Who serves path: 1 a daemon answers (*pid, 0 if unknown), 0 nothing does
 * (or a stale socket), -errno cannot tell (-EACCES: not root). */
int uc_watch_status_owner(const char *path, pid_t *pid);
/* Listen at path, root only: 0, -EADDRINUSE (*owner answers there), -EEXIST
 * (not a socket there), -errno. A stale socket is replaced. */
int uc_watch_status_listen(const char *path, struct uc_watch_listener *ls, pid_t *owner);
/* Stop listening; remove path only if it is still the socket we bound. */
void uc_watch_status_close(struct uc_watch_listener *ls, const char *path);
/* Answer one client on the listening fd: the counters, then close. */
int uc_watch_status_serve(struct uc_watch *w, int lfd);
/* Ask the daemon: 0 and s filled, -ENOENT/-ECONNREFUSED (not running), -EACCES. */
int uc_watch_status_query(const char *path, struct uc_watch_stats *s);

#endif
