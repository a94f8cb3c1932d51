/* Is /proc this PID namespace's (see procns.h)? */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "uclamp/value.h"
#include "uclamp/procns.h"
#include "uclamp/sysroot.h"

/*
 * The NSpid line lists this process's PID in every namespace from the one
 * /proc was mounted in down to its own: more than one means an ancestor's
 * /proc (where our PID may even be the same number). No line (a kernel
 * without PID namespaces, a fake root): one namespace.
 */
static bool nspid_one(void)
{
	char buf[2048], *l;
	unsigned fields = 0;

	/* the line is near the top: the head is enough */
	if (uc_read_head("/proc/self/status", buf, sizeof(buf)) < 0)
		return true;
	l = strstr(buf, "\nNSpid:");
	if (!l)
		return true;
	for (l += strlen("\nNSpid:"); *l && *l != '\n'; l++)
		if ((*l == '\t' || *l == ' ') && l[1] >= '0' && l[1] <= '9')
			fields++;
	return fields <= 1;
}

int uc_procns_check(pid_t *seen)
{
	char p[4096], link[32];
	ssize_t n;
	pid_t pid;

	*seen = 0;
	if (uc_path(p, sizeof(p), "/proc/self"))
		return -EXDEV;
	n = readlink(p, link, sizeof(link) - 1);
	if (n < 0)
		/* a procfs of a namespace below ours cannot see us (ENOENT);
		 * a fake root without the link stands for ours */
		return *uc_sysroot() ? 0 : -EXDEV;
	link[n] = '\0';
	if (uc_pid_parse(link, &pid))
		return -EXDEV;
	*seen = pid;
	if (pid != getpid() || !nspid_one())
		return -EXDEV;
	return 0;
}
