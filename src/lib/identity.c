/* A task's identity (see identity.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "uclamp/identity.h"
#include "uclamp/sysroot.h"

/* A number field: digits only, ending at a space, a newline or the end. */
static const char *stat_number(const char *s, unsigned long long *v)
{
	unsigned long long x = 0;
	const char *d = s;

	for (; *d >= '0' && *d <= '9'; d++) {
		if (x > (~0ULL - 9) / 10)
			return NULL;
		x = x * 10 + (unsigned long long)(*d - '0');
	}
	if (d == s || (*d != ' ' && *d != '\n' && *d))
		return NULL;
	*v = x;
	return d;
}

/* field 2: the comm between "PID (" and the last ')', cut at 15 bytes */
static void stat_comm(const char *stat, const char *close, char comm[16])
{
	const char *open = strchr(stat, '(');
	size_t n = open && open < close ? (size_t)(close - open - 1) : 0;

	if (n > 15)
		n = 15;
	if (n)
		memcpy(comm, open + 1, n);
	comm[n] = '\0';
}

/* After field 22 (s at the space before 23): field 39, the last CPU, or -1 */
static int stat_cpu(const char *s)
{
	unsigned long long v;

	for (int field = 23; field < 39; field++) {
		if (*s != ' ')
			return -1;
		s += 1 + strcspn(s + 1, " \n");
	}
	if (*s != ' ' || !stat_number(s + 1, &v) || v > 65535)
		return -1;
	return (int)v;
}

int uc_stat_parse(const char *stat, struct uc_stat *out)
{
	/* comm may hold ')' and spaces: fields start after the LAST ')' */
	const char *s = strrchr(stat, ')');
	struct uc_stat st;
	unsigned long long v;

	if (!s || s[1] != ' ' || !s[2] || s[2] == ' ')
		return -EINVAL;
	stat_comm(stat, s, st.comm);
	st.state = s[2];
	s += 3;
	for (int field = 4; field <= 22; field++) {
		if (*s != ' ')
			return -EINVAL;
		s++;
		if (field == 4 || field == 9 || field == 14 || field == 15 || field == 22) {
			s = stat_number(s, &v);
			if (!s)
				return -EINVAL;
			if (field == 4)
				st.ppid = (pid_t)v;
			else if (field == 9)
				st.flags = (unsigned long)v;
			else if (field == 14)
				st.utime = v;
			else if (field == 15)
				st.stime = v;
			else
				st.start = v;
		} else {
			size_t len = strcspn(s, " \n");

			if (!len)
				return -EINVAL;
			s += len;
		}
	}
	st.cpu = stat_cpu(s);
	*out = st;
	return 0;
}

int uc_task_stat(pid_t pid, pid_t tid, struct uc_stat *st)
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
	return uc_stat_parse(buf, st);
}

int uc_task_start_time(pid_t pid, pid_t tid, unsigned long long *start)
{
	struct uc_stat st;
	int rc = uc_task_stat(pid, tid, &st);

	if (!rc)
		*start = st.start;
	return rc;
}

/* A test's fake tree: the thread's directory there. */
static __attribute__((noinline)) int in_fake_process(pid_t pid, pid_t tid)
{
	char abspath[64], p[4096];
	struct stat sb;

	snprintf(abspath, sizeof(abspath), "/proc/%d/task/%d", (int)pid, (int)tid);
	if (uc_path(p, sizeof(p), abspath))
		return 0;
	return stat(p, &sb) && errno == ENOENT ? -ESRCH : 0;
}

int uc_task_in_process(pid_t pid, pid_t tid)
{
	/* once per thread of a run: the fake tree's buffers kept out of this frame */
	if (*uc_sysroot())
		return in_fake_process(pid, tid);
	/* signal 0: the kernel only looks TID up in PID's thread group */
	if (syscall(SYS_tgkill, pid, tid, 0) == 0 || errno != ESRCH)
		return 0;
	return -ESRCH;
}
