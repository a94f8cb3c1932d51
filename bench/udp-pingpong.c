/*
 * udp-pingpong N: two processes bounce one byte N times over UDP on the
 * loopback (127.0.0.1), each blocking in recv: two wakeups a round trip.
 * Prints "rounds N ns T" with T the loop's CLOCK_MONOTONIC time (guest
 * instructions under -icount), taken around the loop only: process start
 * and socket setup are not in it. bench/fastpath-cost.sh runs it.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int udp_bound(struct sockaddr_in *a)
{
	socklen_t len = sizeof(*a);
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	if (fd < 0)
		return -1;
	a->sin_family = AF_INET;
	a->sin_port = 0;
	a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(fd, (struct sockaddr *)a, sizeof(*a)) < 0 ||
	    getsockname(fd, (struct sockaddr *)a, &len) < 0)
		return -1;
	return fd;
}

/* receive a byte, send it back; n times (the side that starts sends first) */
static int bounce(int fd, const struct sockaddr_in *to, long n, int first)
{
	char b = 'x';

	for (long i = 0; i < n; i++) {
		if (!first && recv(fd, &b, 1, 0) != 1)
			return -1;
		if (sendto(fd, &b, 1, 0, (const struct sockaddr *)to, sizeof(*to)) != 1)
			return -1;
		if (first && recv(fd, &b, 1, 0) != 1)
			return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct sockaddr_in a, b;
	struct timespec t0, t1;
	long n = argc > 1 ? atol(argv[1]) : 0;
	int fa, fb, st;
	pid_t pid;

	if (argc != 2 || n <= 0) {
		fprintf(stderr, "usage: udp-pingpong ROUNDS\n");
		return 2;
	}
	fa = udp_bound(&a);
	fb = udp_bound(&b);
	if (fa < 0 || fb < 0) {
		perror("udp-pingpong: socket");
		return 1;
	}
	pid = fork();
	if (pid < 0) {
		perror("udp-pingpong: fork");
		return 1;
	}
	if (pid == 0)
		_exit(bounce(fb, &a, n, 0) ? 1 : 0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (bounce(fa, &b, n, 1) < 0) {
		perror("udp-pingpong: ping");
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st)) {
		fprintf(stderr, "udp-pingpong: the other side failed\n");
		return 1;
	}
	printf("rounds %ld ns %lld\n", n,
	       (t1.tv_sec - t0.tv_sec) * 1000000000LL + (t1.tv_nsec - t0.tv_nsec));
	return 0;
}
