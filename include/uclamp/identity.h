/*
 * A task's identity: its process's PID plus start time, and for a thread
 * its TID still being in that process, so that a PID or TID reused between
 * planning and writing is noticed (the new task is left alone).
 */
#ifndef UCLAMP_IDENTITY_H
#define UCLAMP_IDENTITY_H

#include <sys/types.h>

/* /proc/PID/task/TID/stat (/proc/PID/stat for TID == PID) field 22 (starttime,
 * clock ticks since boot).
 * 0, -ESRCH when the task is gone, -EINVAL for a line that does not parse. */
int uc_task_start_time(pid_t pid, pid_t tid, unsigned long long *start);

/*
 * Is TID a thread of process PID right now? 0, or -ESRCH. One tgkill with
 * signal 0 (no /proc read); an answer other than ESRCH (EPERM for another
 * user's task, a security module's refusal) counts as there. Under a test's
 * fake root, whether /proc/PID/task/TID exists there.
 */
int uc_task_in_process(pid_t pid, pid_t tid);

/* The start time from the text of a stat file; 0 or -EINVAL. */
int uc_stat_start_time(const char *stat, unsigned long long *start);

#endif
