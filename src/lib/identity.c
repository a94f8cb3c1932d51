/* A task's identity (see identity.h). */
#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "uclamp/identity.h"
#include "uclamp/sysroot.h"

int uc_stat_start_time(const char *stat, unsigned long long *start)
{
	/* comm may hold ')' and spaces: fields start after the LAST ')' */
	const char *p = NULL, *s;
	unsigned long long v = 0;
	int field = 2;

	for (s = stat; *s; s++)
		if (*s == ')')
			p = s;
	if (!p)
		return -EINVAL;
	for (s = p + 1; *s && field < 22; s++)
		if (*s == ' ')
			field++;
	if (field != 22 || *s < '0' || *s > '9')
		return -EINVAL;
	for (; *s >= '0' && *s <= '9'; s++) {
		if (v > (~0ULL - 9) / 10)
			return -EINVAL;
		v = v * 10 + (unsigned long long)(*s - '0');
	}
	if (*s != ' ' && *s != '\n' && *s)
		return -EINVAL;
	*start = v;
	return 0;
}

int uc_task_start_time(pid_t pid, pid_t tid, unsigned long long *start)
{
	char path[64], buf[1024];
	ssize_t n;

	/* a process's: the file the walk read its start time from when planning */
	if (tid == pid)
		snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	else
		snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", (int)pid, (int)tid);
	n = uc_read_str(path, buf, sizeof(buf));
	if (n == -ENOENT)
		return -ESRCH;
	if (n < 0)
		return (int)n;
	return uc_stat_start_time(buf, start);
}

int uc_task_in_process(pid_t pid, pid_t tid)
{
	char abspath[64], p[4096];
	struct stat sb;

	if (!*uc_sysroot()) {
		/* signal 0: the kernel only looks TID up in PID's thread group */
		if (syscall(SYS_tgkill, pid, tid, 0) == 0 || errno != ESRCH)
			return 0;
		return -ESRCH;
	}
	snprintf(abspath, sizeof(abspath), "/proc/%d/task/%d", (int)pid, (int)tid);
	if (uc_path(p, sizeof(p), abspath))
		return 0;
	return stat(p, &sb) && errno == ENOENT ? -ESRCH : 0;
}
