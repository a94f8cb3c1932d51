/*
 * Will execve() start this program? What the kernel needs before exec's point
 * of no return, checked without executing anything, so that 'run' writes a
 * clamp (which may enable the fast path for good) only for a command that
 * can start. The kernel's rules (fs/exec.c, fs/binfmt_script.c,
 * fs/binfmt_elf.c; the same in 6.1 and 7.x):
 *  - the file: a regular file, executable for us, not on a noexec mount;
 *  - "#!": the first line within 256 bytes (BINPRM_BUF_SIZE); spaces and tabs
 *    around the interpreter; an interpreter path that may be truncated is
 *    no interpreter. The interpreter is looked up like the file, a relative
 *    one from the working directory, and may be a script itself: six files
 *    at most (the command and five interpreters; exec_binprm's depth > 5 is
 *    ELOOP);
 *  - ELF: this machine's class and architecture (32-bit x86 on x86-64 too),
 *    ET_EXEC or ET_DYN; its PT_INTERP (the dynamic loader, ld.so) must exist,
 *    be executable, not on a noexec mount, and be an ELF for this machine
 *    (else ELIBBAD);
 *  - anything else the kernel refuses with ENOEXEC, and execvp() then runs
 *    it with /bin/sh, which is checked instead;
 *  - the arguments and the environment fit (E2BIG: each string at most
 *    MAX_ARG_STRLEN, all of them a quarter of the stack limit, at least
 *    ARG_MAX, at most 6 MiB).
 * Not checked, so exec can still fail after a clamp was written: the file
 * replaced between the check and the exec, a file open for writing
 * (ETXTBSY), a format binfmt_misc handles (its interpreter is not looked
 * at), an executable we may not read (its inside cannot be looked at), a
 * security module's veto, and ENOMEM.
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
