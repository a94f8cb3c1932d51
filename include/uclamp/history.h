/*
 * The record of write runs (history.c), for 'uclampctl history' and 'undo':
 * every run a person starts (task set/reset, run, system set, cgroup set,
 * apply, undo) appends what it is about to replace before the first write
 * (a RUN record: each target's identity, old and new value, when, which
 * command line) and what became of each change after the last (an END
 * record). The watch daemon's writes are not recorded (plan_run.h).
 *
 * Where: root's runs in /run/uclampctl/history, a user's in
 * $XDG_RUNTIME_DIR/uclampctl/history (nothing without one). Both are per
 * boot (tmpfs): the values recorded, task clamps, sysctls and cgroup files,
 * do not survive a reboot either, and a record of another boot (its boot_id)
 * is not shown and is replaced by the next write.
 *
 * The file: append-only records, each "UCH1", a payload length and the
 * payload's CRC-32 before the payload, written with one write(2) and fsync'd.
 * A last record that a crash cut short (its length runs past the end, or
 * its checksum fails) is left out; any other bad record (a wrong magic, a
 * checksum, a value out of range, an END without its RUN) refuses the whole
 * file: a damaged record is never trusted. So does a file or directory
 * another user could have written (the owner must be the caller, no write
 * bits for group or others, no symbolic link, one link), and a file larger
 * than UC_HIST_MAX. Bounded: a write that would pass UC_HIST_MAX first drops
 * the oldest runs (a new file renamed over the old); a run whose record
 * would pass UC_HIST_RUN_MAX is recorded without its changes (too large to
 * undo).
 */
#ifndef UCLAMP_HISTORY_H
#define UCLAMP_HISTORY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "uclamp/fastpath.h"
#include "uclamp/plan.h"

#define UC_HIST_NAME "history"
#define UC_HIST_MAX (4u << 20)		/* bytes: the whole file */
/* bytes: one run's record (~24,000 changes of their own, or 250,000 threads set alike) */
#define UC_HIST_RUN_MAX (1u << 20)

/* A run's flags, as recorded. */
enum {
	UC_HIST_WIDE = 1u << 0,		/* reached every task of every user (so asked) */
	UC_HIST_TOO_LARGE = 1u << 1,	/* its changes did not fit: counted, not recorded */
};

/* What the caller says about a run it records (uc_run_opts.record). */
struct uc_hist_note {
	const char *cmdline;	/* the command line, as typed */
	unsigned undoes;	/* 'undo': the run it puts back, else 0 */
	unsigned flags;		/* UC_HIST_WIDE */
};

/* One recorded change: a plan's change with its target's identity. */
struct uc_hist_change {
	uint8_t kind, attr;	/* enum uc_kind, enum uc_attr */
	/* from the END record (enum uc_change_state); UC_CH_PLANNED when the run
	 * has none (it stopped mid-run: a crash, a kill) */
	uint8_t state;
	pid_t pid, tid;			/* tasks */
	unsigned long long start;	/* tasks: the process's start time */
	/* cgroups: the group directory's inode, which a group removed and made
	 * again does not keep; 0 = unknown */
	uint64_t ino;
	long from, to;			/* as in struct uc_change */
	char *target, *label;		/* as in struct uc_change (NULL when empty) */
};

struct uc_hist_run {
	unsigned id;		/* 1, 2, ... per boot */
	unsigned undoes;	/* this run was 'undo RUN' */
	unsigned undone_by;	/* the newest later run that undid this one (0: none) */
	int64_t time;		/* seconds since the epoch */
	uid_t uid;
	unsigned flags;		/* UC_HIST_* */
	uint8_t key_before, key_after;	/* enum uc_key_state; after: UNKNOWN until ended */
	bool ended;		/* its END record is there */
	uint8_t outcome;	/* enum uc_run_outcome, when ended */
	size_t ntotal;		/* changes planned (n, unless too large) */
	char *cmdline;
	struct uc_hist_change *v;
	size_t n;
};

struct uc_hist {
	struct uc_hist_run *runs;	/* oldest first */
	size_t n;
	bool torn;		/* a last record cut short by a crash was left out */
	bool other_boot;	/* the file was another boot's: nothing shown */
	size_t bytes;		/* the file's size */
};

/*
 * The record's directory (absolute, before the sysroot): /run/uclampctl for
 * root, $XDG_RUNTIME_DIR/uclampctl for a user. -ENOENT when a user has no
 * (absolute) XDG_RUNTIME_DIR; -ENAMETOOLONG.
 */
int uc_hist_dir(char *buf, size_t n);

/*
 * May the record in this directory and file (lstat of the directory, fstat
 * of the open file; file NULL: the directory alone) be trusted by owner?
 * 0, or -EPERM with why ("owned by uid 1000, not uid 0", ...).
 */
int uc_hist_trusted(const struct stat *dir, const struct stat *file, uid_t owner, char *why,
		    size_t n);

/*
 * Parse a whole record file (buf, n bytes) into h (zeroed first). boot_id:
 * this boot's; a file of another boot is h->other_boot with no runs (NULL:
 * not compared). 0, or -EBADMSG with why naming the record and its byte
 * offset (h then holds nothing); -ENOMEM.
 */
int uc_hist_parse(const void *buf, size_t n, const char *boot_id, struct uc_hist *h, char *why,
		  size_t wn);

/*
 * Load the caller's record (uc_hist_dir): 0 (no file yet: no runs), or
 * -EPERM (not to be trusted), -EBADMSG (damaged), -EFBIG (too large),
 * -ENOENT (no directory for this user), another -errno; why says it.
 */
int uc_hist_load(struct uc_hist *h, char *why, size_t n);
void uc_hist_free(struct uc_hist *h);
/* Run id, or NULL. */
const struct uc_hist_run *uc_hist_find(const struct uc_hist *h, unsigned id);

/*
 * Record a run before its first write: the plan's changes (their from/to,
 * a task's start time, a group's inode read now), the time, the caller's
 * uid, the note, the key's state. *id receives the run's number. 0, or
 * -errno with why (not recorded; the run itself may go on).
 */
int uc_hist_begin(const struct uc_plan *p, const struct uc_hist_note *note,
		  enum uc_key_state key, unsigned *id, char *why, size_t n);
/* Record what became of run id's changes (p: the same plan, after the run). */
int uc_hist_end(unsigned id, const struct uc_plan *p, enum uc_key_state key_after, int outcome,
		char *why, size_t n);

/* ---- undo (undo.c): putting back what a recorded run replaced ---- */

enum uc_undo_why {
	UC_UNDO_GONE,		/* the task exited, or its PID is another process's now */
	UC_UNDO_RECREATED,	/* the group was removed (and maybe made again) */
	UC_UNDO_CHANGED,	/* it holds another value than the run set: changed since */
	UC_UNDO_CONFLICT,	/* putting it back would leave min above max (the other changed) */
	UC_UNDO_UNREADABLE,	/* it could not be read (err) */
	UC_UNDO_KEPT,		/* the cpu controller or systemd's CPUWeight: left as it is */
};

/* A recorded change undo leaves alone, and why. */
struct uc_undo_skip {
	enum uc_undo_why why;
	const struct uc_hist_change *c;
	long now;		/* UC_UNDO_CHANGED: the value now (as c->from/to) */
	int err;		/* UC_UNDO_UNREADABLE */
};
typedef void (*uc_undo_fn)(const struct uc_undo_skip *s, void *data);

/*
 * Plan putting back what run replaced into p: each change the run made (its
 * END says done, or could not be rolled back; without an END, any), when the
 * target is still the one the run wrote (a task's start time and thread
 * group, a group's inode, a knob) and still holds what the run set, goes
 * back to the run's old value (a task clamp at its kernel default as the
 * default, -1: sched_getattr cannot tell the two apart). One already at the
 * old value counts in p->unchanged; any other is left alone and on_skip
 * (optional) says why, counted in *skipped (but UC_UNDO_KEPT: by design).
 * The changes carry their identity (tasks: start time), so the executor
 * checks it again right before writing. 0 or -ENOMEM; a run recorded
 * without its changes (UC_HIST_TOO_LARGE) or with none: -ENODATA.
 */
int uc_undo_plan(const struct uc_hist_run *run, struct uc_plan *p, uc_undo_fn on_skip,
		 void *data, size_t *skipped);

#endif
