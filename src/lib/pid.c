/* Process IDs (see pid.h). Digits by hand: strtol skips leading white space
 * (" 12", "\t12") and takes a sign, which a PID argument must not have. */
#include <errno.h>
#include <limits.h>

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
