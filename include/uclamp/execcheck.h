/*
 * Will execve() start this program? Checked without executing anything, so
 * that 'run' writes a clamp only for a command that can start. The kernel's
 * rules (fs/exec.c, binfmt_script.c, binfmt_elf.c; 6.1 and 7.x alike):
 *  - a regular file, executable for us, not on a noexec mount;
 *  - "#!": the first line within 256 bytes, the interpreter (looked up like
 *    the file, relative from the working directory, never a truncated path)
 *    may be a script itself: six files at most (ELOOP);
 *  - ELF: this machine's class and architecture (32-bit x86 on x86-64 too),
 *    ET_EXEC or ET_DYN, its PT_INTERP checked like the file (else ELIBBAD);
 *  - anything else is ENOEXEC, which execvp() runs with /bin/sh (checked);
 *  - arguments and environment within MAX_ARG_STRLEN each, a quarter of the
 *    stack limit in all (at least ARG_MAX, at most 6 MiB): else E2BIG.
 * Not checked, so exec can still fail after the write: the file replaced in
 * between, ETXTBSY, binfmt_misc formats, a file we may not read, a security
 * module's veto, ENOMEM.
 */
#ifndef UCLAMP_EXECCHECK_H
#define UCLAMP_EXECCHECK_H

#include <limits.h>

struct uc_exec_why {
	char file[PATH_MAX];	/* the file the error is about ("" when the command itself) */
	const char *role;	/* "interpreter", "program interpreter (PT_INTERP)", or NULL */
};

/* 0 when execve(path) can start, else the -errno exec would fail with (why
 * names the file, when it is another than path). */
int uc_exec_check(const char *path, struct uc_exec_why *why);

/* 0 when argv and envp fit what execve() takes, else -E2BIG. */
int uc_exec_args_fit(const char *path, char *const argv[], char *const envp[]);

#endif
