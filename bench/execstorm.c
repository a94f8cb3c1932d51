/*
 * An exec storm at a fixed rate: for SECONDS, one fork+exec of PROG ARGS
 * every INTERVAL_US (children run side by side, so a daemon that never
 * applies slows nothing down), then waits for them all. Prints "execs N".
 * usage: execstorm SECONDS INTERVAL_US PROG [ARGS...]
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long long now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
}

int main(int argc, char **argv)
{
	long long end, next, every;
	long n = 0;

	if (argc < 4)
		return 2;
	every = atoll(argv[2]);
	end = now_us() + atoll(argv[1]) * 1000000LL;
	for (next = now_us(); next < end; next += every) {
		long long t = now_us();
		pid_t pid;

		if (t < next)
			usleep((useconds_t)(next - t));
		pid = fork();
		if (pid < 0) {
			perror("fork");
			break;
		}
		if (!pid) {
			execv(argv[3], argv + 3);
			_exit(127);
		}
		n++;
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
	}
	while (wait(NULL) > 0)
		;
	fprintf(stderr, "execs %ld\n", n);
	return 0;
}
