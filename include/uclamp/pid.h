/* Process IDs as the user types them. */
#ifndef UCLAMP_PID_H
#define UCLAMP_PID_H

#include <sys/types.h>

/*
 * Parse a PID: decimal digits only (no sign, no white space anywhere, no
 * hex), 1..INT_MAX. Returns 0 and *pid, -EINVAL (not a number of that
 * form) or -ERANGE (0, or larger than a pid_t holds).
 */
int uc_pid_parse(const char *s, pid_t *pid);

#endif
