/*
 * getattr-loop PID | getattr-loop --all: the lower bound for reading every
 * thread's clamps: readdir of /proc/PID/task (or of /proc and each
 * process's task/) and one sched_getattr per TID, nothing else (no file
 * read, no output but a count). The floor for 'task show -a' and 'status'.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sched_attr.h"

static long ok, failed, sum;

static void threads_of(const char *pid)
{
	char path[64];
	struct dirent *de;
	struct attr a;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%s/task", pid);
	d = opendir(path);
	if (!d)
		return;	/* exited */
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if (syscall(SYS_sched_getattr, atoi(de->d_name), &a, sizeof(a), 0) == 0) {
			ok++;
			sum += a.util_min + a.util_max;	/* use the values */
		} else {
			failed++;
		}
	}
	closedir(d);
}

int main(int argc, char **argv)
{
	struct dirent *de;
	DIR *d;

	if (argc != 2) {
		fprintf(stderr, "usage: getattr-loop PID|--all\n");
		return 2;
	}
	if (strcmp(argv[1], "--all")) {
		threads_of(argv[1]);
	} else {
		d = opendir("/proc");
		if (!d) {
			perror("/proc");
			return 1;
		}
		while ((de = readdir(d)))
			if (de->d_name[0] >= '0' && de->d_name[0] <= '9')
				threads_of(de->d_name);
		closedir(d);
	}
	printf("read %ld, failed %ld (sum %ld)\n", ok, failed, sum);
	return ok ? 0 : 1;
}
