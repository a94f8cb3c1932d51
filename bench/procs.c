/*
 * procs N: N processes in all (this one + N-1 forked children), each
 * blocked forever; prints "ready" once they all exist. Forks of one small
 * binary share their pages, so thousands fit in a small VM.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long n;

	if (argc < 2 || (n = strtol(argv[1], NULL, 10)) < 1) {
		fprintf(stderr, "usage: procs N\n");
		return 2;
	}
	for (long i = 1; i < n; i++) {
		pid_t pid = fork();

		if (pid < 0) {
			perror("procs: fork");
			return 1;
		}
		if (pid == 0) {
			prctl(PR_SET_PDEATHSIG, SIGKILL);	/* go when the parent goes */
			for (;;)
				pause();
		}
	}
	printf("ready\n");
	fflush(stdout);
	for (;;)
		pause();
}
