/*
 * One writer at a time: an exclusive flock(2) on /run/uclampctl/lock (0600,
 * root's, in a directory root's alone; anything else replaced by a new inode)
 * from before a writer plans until its report is out (watch: per batch),
 * released while a person is asked. The holder's PID is in the file; the lock
 * goes with the process (close-on-exec), so it cannot go stale.
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
