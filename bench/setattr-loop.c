/*
 * setattr-loop [--get] [--check] PID MAX: the lower bound for "util_max = MAX on every
 * thread of PID": readdir /proc/PID/task and one sched_setattr per TID,
 * nothing else (no comparison, no plan). It relies on KEEP_PARAMS filling in
 * the current params, true from Linux 5.15 on.
 * With --get, each thread's sched_getattr comes first and a thread already
 * at MAX gets no write: the floor for a tool that keeps that getattr (so a
 * no-op never writes), as uclampctl does.
 * With --check, tgkill(PID, TID, 0) right before each write as well: the
 * floor for a tool that also checks, per thread, that the TID still belongs
 * to PID (uclampctl's identity check, HACKING.md "Design: a task's identity").
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sched_attr.h"

int main(int argc, char **argv)
{
	/* KEEP_ALL | UTIL_CLAMP_MAX */
	struct attr a = { .size = sizeof(a), .flags = 0x08 | 0x10 | 0x40 };
	struct attr cur;
	char path[64];
	struct dirent *de;
	long ok = 0, failed = 0, same = 0;
	int get = 0, check = 0, i = 1;
	int pid, tid;
	DIR *d;

	for (; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "--get"))
			get = 1;
		else if (!strcmp(argv[i], "--check"))
			check = 1;
		else
			break;
	}
	if (argc - i != 2) {
		fprintf(stderr, "usage: setattr-loop [--get] [--check] PID MAX\n");
		return 2;
	}
	pid = atoi(argv[i]);
	a.util_max = (uint32_t)atoi(argv[i + 1]);
	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	d = opendir(path);
	if (!d) {
		perror(path);
		return 1;
	}
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		tid = atoi(de->d_name);
		if (get) {
			if (syscall(SYS_sched_getattr, tid, &cur, sizeof(cur), 0)) {
				failed++;
				continue;
			}
			if (cur.util_max == a.util_max) {
				same++;
				continue;
			}
		}
		if (check && syscall(SYS_tgkill, pid, tid, 0)) {
			failed++;
			continue;
		}
		if (syscall(SYS_sched_setattr, tid, &a, 0) == 0)
			ok++;
		else
			failed++;
	}
	closedir(d);
	printf("set %ld, already %ld, failed %ld\n", ok, same, failed);
	return failed ? 1 : 0;
}
