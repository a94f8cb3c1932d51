/*
 * A reused PID at the prompt: start a victim process, run
 * "uclampctl task set ARGS... VICTIM" on a pty, and once it asks [y/N]
 * kill the victim, start another process at the same PID (clone3 with
 * set_tid: root in the initial PID namespace), then answer y.
 * Prints the CLI's output, then "status N", "pid P", and the newcomer's
 * clamps as "newcomer P min MIN max MAX" (/proc/P/sched); exit 0 when all
 * of that happened, 1 when the stage could not be set.
 * usage: pidreuse UCLAMPCTL ARGS...
 * With PIDREUSE_COMM=NAME in the environment the victim and the newcomer
 * both take that name (prctl) before the answer, and no PID is appended:
 * for a command that selects tasks by name (apply's [tasks]).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/sched.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

static char out[65536];
static size_t nout;

/* Read the pty into out until 'want' shows up (NULL: until EOF); 0 when seen. */
static int read_until(int m, const char *want, int timeout_ms)
{
	struct pollfd p = { .fd = m, .events = POLLIN };

	for (;;) {
		ssize_t n;

		if (want && strstr(out, want))
			return 0;
		if (poll(&p, 1, timeout_ms) <= 0)
			return -1;
		n = read(m, out + nout, sizeof(out) - 1 - nout);
		if (n <= 0)
			return want ? -1 : 0;
		nout += (size_t)n;
		out[nout] = '\0';
	}
}

/* A clamp from /proc/PID/sched ("uclamp.max   :   1024"); -1 if absent. */
static long clamp_of(pid_t pid, const char *name)
{
	char path[64], line[256];
	long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/sched", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *c = strchr(line, ':');

		if (c && !strncmp(line, name, strlen(name)) && line[strlen(name)] == ' ')
			v = strtol(c + 1, NULL, 10);
	}
	fclose(f);
	return v;
}

static void die(const char *what)
{
	fprintf(stderr, "pidreuse: %s: %s\n", what, strerror(errno));
	exit(1);
}

int main(int argc, char **argv)
{
	char pidarg[16], **args;
	const char *comm = getenv("PIDREUSE_COMM");
	pid_t victim, cli, again;
	long min, max;
	int m, st, ready[2];

	if (argc < 2)
		return 2;
	if (pipe(ready))
		die("pipe");
	victim = fork();
	if (victim < 0)
		die("fork");
	if (victim == 0) {
		if (comm)
			prctl(PR_SET_NAME, comm);
		pause();
		_exit(0);
	}
	usleep(100000);	/* the newcomer must start in a later clock tick */
	snprintf(pidarg, sizeof(pidarg), "%d", (int)victim);
	args = calloc((size_t)argc + 1, sizeof(*args));
	for (int i = 1; i < argc; i++)
		args[i - 1] = argv[i];
	args[argc - 1] = comm ? NULL : pidarg;
	m = posix_openpt(O_RDWR | O_NOCTTY);
	if (m < 0 || grantpt(m) || unlockpt(m))
		die("pty");
	cli = fork();
	if (cli < 0)
		die("fork");
	if (cli == 0) {
		int s;

		setsid();
		s = open(ptsname(m), O_RDWR);	/* the controlling terminal */
		if (s < 0)
			_exit(127);
		dup2(s, 0);
		dup2(s, 1);
		dup2(s, 2);
		close(m);
		execv(args[0], args);
		_exit(127);
	}
	if (read_until(m, "[y/N]", 60000)) {
		fprintf(stderr, "pidreuse: no [y/N] prompt; output so far:\n%s\n", out);
		kill(cli, SIGKILL);
		kill(victim, SIGKILL);
		return 1;
	}
	kill(victim, SIGKILL);
	waitpid(victim, NULL, 0);
	{
		pid_t tid = victim;
		struct clone_args ca = {
			.exit_signal = SIGCHLD, .set_tid = (uintptr_t)&tid, .set_tid_size = 1,
		};

		again = (pid_t)syscall(SYS_clone3, &ca, sizeof(ca));
	}
	if (again < 0) {
		kill(cli, SIGKILL);
		die("clone3 with set_tid");
	}
	if (again == 0) {
		if (comm)
			prctl(PR_SET_NAME, comm);
		if (write(ready[1], "r", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	{
		char r;

		if (read(ready[0], &r, 1) != 1)	/* named before the plan is made again */
			die("the newcomer's start");
	}
	if (write(m, "y\n", 2) != 2)
		die("write to the pty");
	read_until(m, NULL, 60000);
	if (waitpid(cli, &st, 0) < 0)
		die("waitpid");
	min = clamp_of(again, "uclamp.min");
	max = clamp_of(again, "uclamp.max");
	kill(again, SIGKILL);
	waitpid(again, NULL, 0);
	printf("%s\nstatus %d\npid %d\nnewcomer %d min %ld max %ld\n", out,
	       WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st), (int)victim, (int)again, min,
	       max);
	return 0;
}
