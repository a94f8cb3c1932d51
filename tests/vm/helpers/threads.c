/*
 * threads N [NAME]: a process with N threads in all (main + N-1), each
 * blocked forever, named NAME. Prints "ready" once every thread exists.
 * Used by the VM scenarios and the benchmarks (bench/run.sh).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <unistd.h>

static void *block(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_attr_t attr;
	long n;

	if (argc < 2 || (n = strtol(argv[1], NULL, 10)) < 1) {
		fprintf(stderr, "usage: threads N [NAME]\n");
		return 2;
	}
	if (argc > 2)
		prctl(PR_SET_NAME, argv[2]);	/* threads inherit the name */
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 * 1024);	/* 10,000 threads fit in a small VM */
	for (long i = 1; i < n; i++) {
		pthread_t t;
		int rc = pthread_create(&t, &attr, block, NULL);

		if (rc) {
			fprintf(stderr, "threads: thread %ld of %ld: error %d\n", i + 1, n, rc);
			return 1;
		}
	}
	printf("ready\n");
	fflush(stdout);
	for (;;)
		pause();
}
