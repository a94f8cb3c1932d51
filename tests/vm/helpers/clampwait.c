/*
 * The exec->clamp probe: as its first act the program reads its own clamps
 * (sched_getattr) and keeps reading until util_max equals WANT or TIMEOUT_MS
 * passes. Prints "clamped US" (microseconds after start) or "unclamped".
 * usage: clampwait WANT_MAX TIMEOUT_MS [HOLD_MS]
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

struct attr {
	uint32_t size, policy;
	uint64_t flags;
	int32_t nice;
	uint32_t prio;
	uint64_t runtime, deadline, period;
	uint32_t util_min, util_max;
};

static long long now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
}

int main(int argc, char **argv)
{
	long long t0 = now_us(), limit;
	unsigned want;
	struct attr a;

	if (argc < 3)
		return 2;
	want = (unsigned)atoi(argv[1]);
	limit = atoll(argv[2]) * 1000LL;
	for (;;) {
		memset(&a, 0, sizeof(a));
		if (syscall(SYS_sched_getattr, 0, &a, sizeof(a), 0) == 0 && a.util_max == want) {
			printf("clamped %lld\n", now_us() - t0);
			break;
		}
		if (now_us() - t0 > limit) {
			printf("unclamped\n");
			break;
		}
		usleep(200);
	}
	fflush(stdout);
	if (argc > 3)
		usleep((useconds_t)atoi(argv[3]) * 1000);
	return 0;
}
