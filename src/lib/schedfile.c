/*
 * /proc/PID/task/TID/sched, read by name (see tasks.h). What the kernel
 * prints there (kernel/sched/debug.c proc_sched_show_task(), 6.1 and
 * 7.3-rc7): "COMM (PID, #threads: N)", a line of dashes, then one
 * "%-45s:%21Ld" line per field (".%06ld" after times). The fields this
 * reads, by version:
 *   se.avg.util_avg                     SMP kernels (every version here)
 *   se.avg.util_est.ewma, .enqueued     before 6.8 (the kernel's util_est is their max)
 *   se.avg.util_est                     6.8+ (11137d384996 "sched/fair: Simplify
 *                                       util_est"); a patch posted since prints
 *                                       it only while the UTIL_EST feature is on
 *   effective uclamp.min/max            5.7+ with UCLAMP_TASK
 * The header holds the task's comm, which any user chooses: nothing up to
 * the end of the header line is read, and a field counts only the first time.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "uclamp/sysroot.h"
#include "uclamp/tasks.h"

enum { F_UTIL_AVG, F_EST, F_EST_EWMA, F_EST_ENQ, F_EFF_MIN, F_EFF_MAX, NFIELDS };

static const struct {
	const char *name;
	long max;		/* larger values are not a util or a clamp: junk */
} fields[NFIELDS] = {
	[F_UTIL_AVG] = { "se.avg.util_avg", 1L << 20 },
	[F_EST] = { "se.avg.util_est", 1L << 20 },
	[F_EST_EWMA] = { "se.avg.util_est.ewma", 1L << 20 },
	[F_EST_ENQ] = { "se.avg.util_est.enqueued", 1L << 20 },
	[F_EFF_MIN] = { "effective uclamp.min", 1024 },
	[F_EFF_MAX] = { "effective uclamp.max", 1024 },
};

/* The end of the header line "COMM (PID, #threads: N)": its last
 * "#threads: " (a comm, which any user chooses, may hold one too, but only
 * before the kernel's own; no field line holds one). */
static const char *after_header(const char *text)
{
	const char *s = NULL, *h;

	for (h = strstr(text, "#threads: "); h; h = strstr(h + 1, "#threads: "))
		s = h;
	return s ? s + strcspn(s, "\n") : NULL;
}

/* "   123" up to the end of the line (or a '.' of a time): the value, or -1 */
static long line_value(const char *s, long max)
{
	long v = 0;
	const char *d;

	s += strspn(s, " \t");
	for (d = s; *d >= '0' && *d <= '9'; d++) {
		if (v > (LONG_MAX - 9) / 10)
			return -1;
		v = v * 10 + (*d - '0');
	}
	if (d == s || (*d && *d != '\n' && *d != '.' && *d != ' '))
		return -1;
	return v > max ? -1 : v;
}

int uc_sched_file_parse(const char *text, struct uc_sched_file *sf)
{
	long v[NFIELDS];
	const char *s = after_header(text);

	for (int i = 0; i < NFIELDS; i++)
		v[i] = -1;
	*sf = (struct uc_sched_file){ -1, -1, false, -1, -1 };
	if (!s)
		return -EINVAL;
	while ((s = strchr(s, '\n')) && *++s) {
		size_t len = strcspn(s, "\n"), name = strcspn(s, ":\n");

		if (name >= len)
			continue;	/* no ':' on this line (the NUMA lines) */
		while (name && s[name - 1] == ' ')
			name--;
		for (int i = 0; i < NFIELDS; i++)
			if (v[i] < 0 && strlen(fields[i].name) == name &&
			    !strncmp(s, fields[i].name, name)) {
				v[i] = line_value(s + strcspn(s, ":") + 1, fields[i].max);
				break;
			}
	}
	sf->util_avg = v[F_UTIL_AVG];
	sf->util_est = v[F_EST];
	if (sf->util_est < 0 && (v[F_EST_EWMA] >= 0 || v[F_EST_ENQ] >= 0)) {
		sf->util_est = v[F_EST_EWMA] > v[F_EST_ENQ] ? v[F_EST_EWMA] : v[F_EST_ENQ];
		sf->util_est_split = true;
	}
	sf->eff_min = v[F_EFF_MIN];
	sf->eff_max = v[F_EFF_MAX];
	return 0;
}

int uc_task_sched_file(pid_t pid, pid_t tid, struct uc_sched_file *sf)
{
	char abspath[96], buf[16384];
	ssize_t len;

	*sf = (struct uc_sched_file){ -1, -1, false, -1, -1 };
	snprintf(abspath, sizeof(abspath), "/proc/%d/task/%d/sched", (int)pid,
		 (int)(tid > 0 ? tid : pid));
	/* read only: a write to this file resets the task's statistics */
	len = uc_read_head(abspath, buf, sizeof(buf));
	if (len < 0)
		return (int)len;
	return uc_sched_file_parse(buf, sf);
}
