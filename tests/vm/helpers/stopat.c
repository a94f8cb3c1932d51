/*
 * LD_PRELOAD shim: the process stops itself (SIGSTOP) right after its
 * UC_STOP_AT-th sched_setattr returns, so a scenario can send signals at an
 * exact point in the middle of a write phase, whatever the machine's load.
 * uclampctl calls sched_setattr through syscall(2), which this wraps.
 * build: gcc -shared -fPIC -o stopat.so stopat.c -ldl
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

long syscall(long n, ...)
{
	static long (*real)(long, ...);
	static long count;
	long a[6], rc;
	const char *at;
	va_list ap;

	va_start(ap, n);
	for (int i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	if (!real)
		real = (long (*)(long, ...))dlsym(RTLD_NEXT, "syscall");
	rc = real(n, a[0], a[1], a[2], a[3], a[4], a[5]);
	if (n == SYS_sched_setattr && (at = getenv("UC_STOP_AT")) && ++count == atol(at))
		kill(getpid(), SIGSTOP);
	return rc;
}
