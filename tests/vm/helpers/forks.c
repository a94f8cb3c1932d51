/*
 * A fork storm: N children, one after another, each exits at once without
 * exec (fork and exit events only). usage: forks N
 */
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 0;

	for (long i = 0; i < n; i++) {
		pid_t pid = fork();

		if (pid < 0)
			return 1;
		if (!pid)
			_exit(0);
		waitpid(pid, NULL, 0);
	}
	return 0;
}
