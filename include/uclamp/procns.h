/*
 * Is /proc this PID namespace's? PIDs read from /proc name the tasks that
 * sched_setattr(2), tgkill(2) and the identity checks reach only when /proc
 * was mounted in the caller's PID namespace. Under another namespace's /proc
 * (`unshare -p -f` without --mount-proc, `nsenter -p` into a container) every
 * PID read there is some other task here, and a start time read there
 * checks /proc against itself. One check for every command that takes PIDs
 * from /proc.
 */
#ifndef UCLAMP_PROCNS_H
#define UCLAMP_PROCNS_H

#include <sys/types.h>

/*
 * 0 when /proc is ours: /proc/self names this process by its own PID, and
 * (kernels with PID namespaces) /proc/self/status lists it in one namespace
 * only. -EXDEV when it is not; *seen is then the PID /proc gives this
 * process (0: /proc cannot see it, or /proc/self is unreadable, e.g. no
 * procfs at all). Under a test's fake root, a root without a proc/self
 * symbolic link stands for our own /proc.
 */
int uc_procns_check(pid_t *seen);

#endif
