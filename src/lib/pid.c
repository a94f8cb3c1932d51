/* IDs as typed (see pid.h). Digits by hand: strtol skips leading white space
 * (" 12", "\t12") and takes a sign, which a PID argument must not have. */
#include <errno.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>

#include "uclamp/pid.h"

int uc_pid_parse(const char *s, pid_t *pid)
{
	long long v = 0;

	if (!s || !*s)
		return -EINVAL;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -EINVAL;
		if (v <= INT_MAX)
			v = v * 10 + (*s - '0');	/* stops growing once past INT_MAX */
	}
	if (v == 0 || v > INT_MAX)
		return -ERANGE;
	*pid = (pid_t)v;
	return 0;
}

/* Digits only, below (unsigned)-1: strtoul would take "+5", " 5" and "-1". */
static int numeric_id(const char *s, unsigned *id)
{
	unsigned long long v = 0;

	if (!*s)
		return -EINVAL;
	for (const char *p = s; *p; p++) {
		if (*p < '0' || *p > '9')
			return -EINVAL;
		v = v * 10 + (unsigned)(*p - '0');
		if (v >= (unsigned)-1)
			return -EINVAL;
	}
	*id = (unsigned)v;
	return 0;
}

int uc_uid_parse(const char *s, uid_t *uid)
{
	struct passwd *pw = getpwnam(s);

	if (pw) {
		*uid = pw->pw_uid;
		return 0;
	}
	return numeric_id(s, uid);
}

int uc_gid_parse(const char *s, gid_t *gid)
{
	struct group *gr = getgrnam(s);

	if (gr) {
		*gid = gr->gr_gid;
		return 0;
	}
	return numeric_id(s, gid);
}
