/*
 * Storms an unprivileged user can raise at the watch daemon.
 *   storm exec SECONDS PROG   fork and exec PROG (no arguments) as fast as it
 *                             can; prints the number of execs
 *   storm rename SECONDS NAME rename the calling thread to NAME and back
 *                             ("uc-other") as fast as it can; after each rename
 *                             to NAME, reset its own clamps (a write the daemon
 *                             then sees undone); prints the number of renames
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../../bench/sched_attr.h"	/* struct attr */

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	unsigned long n = 0;
	double end;

	if (argc < 4)
		return 2;
	end = now() + atof(argv[2]);
	if (!strcmp(argv[1], "exec")) {
		while (now() < end) {
			pid_t p = fork();

			if (p == 0) {
				execl(argv[3], argv[3], (char *)NULL);
				_exit(127);
			}
			if (p > 0 && waitpid(p, NULL, 0) == p)
				n++;
		}
	} else {
		/* keep all, min 0 max 1024: the defaults, as a user may set them */
		struct attr a = { .size = sizeof(a), .flags = 0x18 | 0x60, .util_max = 1024 };

		while (now() < end) {
			prctl(PR_SET_NAME, argv[3], 0, 0, 0);
			usleep(1000);
			syscall(SYS_sched_setattr, 0, &a, 0);
			prctl(PR_SET_NAME, "uc-other", 0, 0, 0);
			n++;
		}
	}
	printf("%lu\n", n);
	return 0;
}
