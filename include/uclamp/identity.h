/*
 * A task's identity: PID/TID plus its start time, so that a PID reused
 * between planning and writing is noticed (the new task is left alone).
 */
#ifndef UCLAMP_IDENTITY_H
#define UCLAMP_IDENTITY_H

#include <sys/types.h>

/* /proc/PID/task/TID/stat field 22 (starttime, clock ticks since boot).
 * 0, -ESRCH when the task is gone, -EINVAL for a line that does not parse. */
int uc_task_start_time(pid_t pid, pid_t tid, unsigned long long *start);

/* The start time from the text of a stat file; 0 or -EINVAL. */
int uc_stat_start_time(const char *stat, unsigned long long *start);

#endif
