/*
 * The exec->clamp probe: as its first act the program reads its own clamps
 * (sched_getattr) and keeps reading until util_max equals WANT or TIMEOUT_MS
 * passes. Prints "clamped US" (microseconds after start) or "unclamped".
 * usage: clampwait WANT_MAX TIMEOUT_MS [HOLD_MS]
 *
 * For the peer daemons (bench/watch-peers.sh) WANT may name another
 * attribute: "batch" (its policy is SCHED_BATCH: tuned's scheduler plugin)
 * or "cgroup:/PATH" (its cgroup v2 path is PATH: cgrulesengd). POLL_US in
 * the environment sets the interval between reads (default 200).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "../../../bench/sched_attr.h"	/* struct attr */

static long long now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
}

/* Is our cgroup (the v2 line "0::PATH") 'want'? */
static int in_cgroup(const char *want)
{
	char buf[4096];
	int fd = open("/proc/self/cgroup", O_RDONLY);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
	char *p;

	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	p = strstr(buf, "0::");
	if (!p)
		return 0;
	p += 3;
	p[strcspn(p, "\n")] = '\0';
	return !strcmp(p, want);
}

static int applied(const char *want)
{
	struct attr a;

	if (!strcmp(want, "batch"))
		return sched_getscheduler(0) == SCHED_BATCH;
	if (!strncmp(want, "cgroup:", 7))
		return in_cgroup(want + 7);
	memset(&a, 0, sizeof(a));
	return syscall(SYS_sched_getattr, 0, &a, sizeof(a), 0) == 0 &&
	       a.util_max == (unsigned)atoi(want);
}

int main(int argc, char **argv)
{
	long long t0 = now_us(), limit;
	const char *poll = getenv("POLL_US");
	useconds_t every = poll ? (useconds_t)atoi(poll) : 200;

	if (argc < 3)
		return 2;
	limit = atoll(argv[2]) * 1000LL;
	for (;;) {
		if (applied(argv[1])) {
			printf("clamped %lld\n", now_us() - t0);
			break;
		}
		if (now_us() - t0 > limit) {
			printf("unclamped\n");
			break;
		}
		usleep(every);
	}
	fflush(stdout);
	if (argc > 3)
		usleep((useconds_t)atoi(argv[3]) * 1000);
	return 0;
}
