/*
 * A process whose second thread renames itself (prctl PR_SET_NAME), as
 * Chrome's RenderThread does. Prints "ready TID" when renamed, then sleeps.
 * usage: rename NAME SECONDS
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

static const char *name;

static void *thread(void *arg)
{
	sleep(1);	/* let the exec be handled first: the rename must re-match */
	prctl(PR_SET_NAME, name, 0, 0, 0);
	printf("ready %ld\n", (long)syscall(SYS_gettid));
	fflush(stdout);
	pause();
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t;

	if (argc < 3)
		return 2;
	name = argv[1];
	pthread_create(&t, NULL, thread, NULL);
	sleep((unsigned)atoi(argv[2]));
	return 0;
}
