/*
 * cfload CPU BUSY_US PERIOD_US [COUNTFILE]: the load of the cpufreq
 * scenarios, pinned to CPU: spin BUSY_US microseconds, sleep to the next
 * PERIOD_US boundary (absolute CLOCK_MONOTONIC deadlines), forever; with
 * BUSY_US >= PERIOD_US a busy loop that never sleeps. COUNTFILE holds the
 * number of wake-ups so far (rewritten at each one), so that a scenario can
 * start judging a clamp from the task's second wake-up after it, as LISA's
 * UtilClamp test does. C, not a shell loop: under TCG a script's own cost
 * per period would inflate the "light" task's util several times.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static long long now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000LL + t.tv_nsec;
}

int main(int argc, char **argv)
{
	long long busy, period, next, n = 0;
	cpu_set_t set;
	int fd = -1;

	if (argc < 4) {
		fprintf(stderr, "usage: cfload CPU BUSY_US PERIOD_US [COUNTFILE]\n");
		return 2;
	}
	CPU_ZERO(&set);
	CPU_SET(atoi(argv[1]), &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		perror("cfload: sched_setaffinity");
		return 1;
	}
	busy = atoll(argv[2]) * 1000LL;
	period = atoll(argv[3]) * 1000LL;
	if (argc > 4 && (fd = open(argv[4], O_WRONLY | O_CREAT | O_TRUNC, 0644)) < 0) {
		perror(argv[4]);
		return 1;
	}
	if (busy >= period)
		for (;;)
			;
	for (next = now_ns();;) {
		long long t = now_ns();
		struct timespec ts;
		char buf[24];
		int len;

		while (now_ns() - t < busy)
			;
		next += period;
		if (next <= now_ns())
			next = now_ns();	/* late: start again from now */
		ts.tv_sec = next / 1000000000LL;
		ts.tv_nsec = next % 1000000000LL;
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
		len = snprintf(buf, sizeof(buf), "%lld\n", ++n);
		if (fd >= 0 && pwrite(fd, buf, (size_t)len, 0) != len)
			return 1;
	}
}
