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

/* What /proc/PID/stat says that uclampctl uses: the one parser of the file
 * (the walker's rule fields, the daemon's identity, the executor's check). */
struct uc_stat {
	char comm[16];			/* field 2, between the first '(' and the last ')' */
	char state;			/* 3: 'R', 'S', ..., 'Z' */
	pid_t ppid;			/* 4 */
	unsigned long flags;		/* 9: PF_* (PF_KTHREAD 0x00200000) */
	/* 14, 15: user and system time, clock ticks (USER_HZ): a thread's own
	 * in task/TID/stat, the whole process's in PID/stat */
	unsigned long long utime, stime;
	unsigned long long start;	/* 22: starttime, clock ticks since boot */
	int cpu;			/* 39: the CPU it last ran on; -1: the line ends before */
};
#define UC_PF_KTHREAD 0x00200000UL

/* Parse the text of a stat file: 0, or -EINVAL for a line that does not parse. */
int uc_stat_parse(const char *stat, struct uc_stat *st);
/* Read and parse /proc/PID/task/TID/stat (/proc/PID/stat for TID == PID):
 * 0, -ESRCH when the task is gone, -EINVAL. */
int uc_task_stat(pid_t pid, pid_t tid, struct uc_stat *st);

#endif
