/* IDs as the user types them: PIDs, users, groups (the command line and
 * the configuration accept exactly the same spellings). */
#ifndef UCLAMP_PID_H
#define UCLAMP_PID_H

#include <sys/types.h>

/*
 * Parse a PID: decimal digits only (no sign, no white space anywhere, no
 * hex), 1..INT_MAX. Returns 0 and *pid, -EINVAL (not a number of that
 * form) or -ERANGE (0, or larger than a pid_t holds).
 */
int uc_pid_parse(const char *s, pid_t *pid);

/*
 * A user or group: a name the system knows, else a number of decimal digits
 * only (no sign, no white space) below the (uid_t)-1 that means "none".
 * Returns 0 and the ID, or -EINVAL.
 */
int uc_uid_parse(const char *s, uid_t *uid);
int uc_gid_parse(const char *s, gid_t *gid);

#endif
