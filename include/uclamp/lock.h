/*
 * One writer at a time: an exclusive flock(2) on /run/uclampctl/lock (0600,
 * root's: flock needs only a read-only open, so nobody else may open it; a
 * file that is anything else is replaced by a new inode, never corrected in
 * place, and the directory must be root's alone), held
 * by every command that writes from before it plans until its report is out
 * (the watch daemon takes it per batch); released while a person is asked,
 * then the plan is made again under it (uc_plan_run_fresh). The holder's PID is in the file, so
 * a waiter can name it. The lock goes with the process (exit, crash, exec:
 * the descriptor is close-on-exec), so a stale lock cannot exist.
 */
#ifndef UCLAMP_LOCK_H
#define UCLAMP_LOCK_H

#include <sys/types.h>

#define UC_LOCK_DIR "/run/uclampctl"
#define UC_LOCK_PATH UC_LOCK_DIR "/lock"

struct uc_lock {
	int fd;			/* -1 when not held */
};

/* Take the lock without waiting: 0, -EWOULDBLOCK (*holder: its PID, 0 if
 * unknown), -EPERM (untrusted directory), or -errno (-EACCES: not root). */
int uc_lock_try(struct uc_lock *l, pid_t *holder);

/* Wait up to timeout_ms for it (after uc_lock_try said -EWOULDBLOCK): 0 or -ETIMEDOUT. */
int uc_lock_wait(struct uc_lock *l, int timeout_ms);

void uc_lock_release(struct uc_lock *l);

#endif
