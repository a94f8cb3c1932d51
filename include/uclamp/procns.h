/*
 * Is /proc this PID namespace's? Under another's (`unshare -p -f` without
 * --mount-proc) every PID read there is some other task here. One check for
 * every command that takes PIDs from /proc.
 */
#ifndef UCLAMP_PROCNS_H
#define UCLAMP_PROCNS_H

#include <sys/types.h>

/* 0 when /proc is ours (/proc/self is us, in one namespace); -EXDEV when not,
 * *seen the PID it gives us (0: none). A fake root without proc/self is ours. */
int uc_procns_check(pid_t *seen);

#endif
