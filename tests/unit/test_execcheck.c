/*
 * test_execcheck.c: what execve() needs before its point of no return
 * (src/lib/execcheck.c), on real files in a temporary directory: a script
 * whose interpreter is missing, blanks around it, a relative one (from the
 * working directory), the chain's length (five interpreters, not six), a
 * "#!" line the kernel does not take (execvp then runs /bin/sh), a copy of
 * /bin/true whose PT_INTERP names a missing loader or one that is no ELF, an
 * ELF for another machine, modes, and arguments too large.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "uclamp/execcheck.h"
#include "fakeroot.h"

static char dir[PATH_MAX - 64];

static int setup(void **state)
{
	(void)state;
	return fr_create(dir, sizeof(dir), "execcheck");
}

static int teardown(void **state)
{
	(void)state;
	return fr_destroy(dir);
}

/* dir/name with text, mode */
static const char *put(const char *name, const char *text, mode_t mode)
{
	static char p[8][PATH_MAX];
	static int k;
	char *path = p[k++ % 8];

	assert_int_equal(fr_write(dir, name, text), 0);
	assert_int_equal(fr_path(path, PATH_MAX, dir, name), 0);
	assert_int_equal(chmod(path, mode), 0);
	return path;
}

static int check(const char *path, struct uc_exec_why *why)
{
	return uc_exec_check(path, why);
}

static void test_scripts(void **state)
{
	struct uc_exec_why why;
	char text[512], cwd[PATH_MAX];

	(void)state;
	assert_int_equal(check(put("ok", "#!/bin/sh\necho\n", 0755), &why), 0);
	/* the everyday break: the interpreter is not there */
	assert_int_equal(check(put("missing", "#!/nonexistent/python3\n", 0755), &why), -ENOENT);
	assert_string_equal(why.file, "/nonexistent/python3");
	assert_string_equal(why.role, "interpreter");
	/* blanks around it and an argument, as the kernel splits them */
	assert_int_equal(check(put("blanks", "#! \t/bin/sh  -e \t\nx\n", 0755), &why), 0);
	assert_int_equal(check(put("blanks2", "#!  /nonexistent/sh -e\n", 0755), &why), -ENOENT);
	assert_string_equal(why.file, "/nonexistent/sh");
	/* no newline: the file's end (NUL) ends the path */
	assert_int_equal(check(put("short", "#!/bin/sh", 0755), &why), 0);
	/* an interpreter that may be cut at 256 bytes is none: ENOEXEC, and
	 * execvp runs the file with /bin/sh */
	memset(text, 'a', sizeof(text));
	memcpy(text, "#!/", 3);
	text[sizeof(text) - 1] = '\0';
	assert_int_equal(check(put("long", text, 0755), &why), 0);
	assert_int_equal(check(put("blank", "#!   \n", 0755), &why), 0);
	/* a relative interpreter is looked up from the working directory */
	put("interp", "#!/bin/sh\n", 0755);
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	assert_int_equal(chdir(dir), 0);
	assert_int_equal(check(put("rel", "#!interp\n", 0755), &why), 0);
	assert_int_equal(chdir("/"), 0);
	assert_int_equal(check(put("rel", "#!interp\n", 0755), &why), -ENOENT);
	assert_string_equal(why.file, "interp");
	assert_int_equal(chdir(cwd), 0);
	/* no "#!" and no ELF: execvp runs it with /bin/sh */
	assert_int_equal(check(put("plain", "echo hello\n", 0755), &why), 0);
}

/* The command and five interpreters; a sixth is ELOOP (exec_binprm). */
static void test_chain(void **state)
{
	struct uc_exec_why why;
	char name[16], text[PATH_MAX + 8], path[PATH_MAX];

	(void)state;
	/* s0 -> s1 -> ... -> s4 -> /bin/sh: five rewrites */
	put("s4", "#!/bin/sh\n", 0755);
	for (int i = 3; i >= 0; i--) {
		assert_int_equal(fr_path(path, sizeof(path), dir, "s"), 0);
		snprintf(name, sizeof(name), "s%d", i);
		snprintf(text, sizeof(text), "#!%s%d\n", path, i + 1);
		put(name, text, 0755);
	}
	assert_int_equal(check(put("s0", text, 0755), &why), 0);
	/* one more in front: six */
	assert_int_equal(fr_path(path, sizeof(path), dir, "s0"), 0);
	snprintf(text, sizeof(text), "#!%s\n", path);
	assert_int_equal(check(put("s-1", text, 0755), &why), -ELOOP);
}

static void test_modes(void **state)
{
	struct uc_exec_why why;
	char d[PATH_MAX];

	(void)state;
	assert_int_equal(check(put("noexec", "#!/bin/sh\n", 0644), &why), -EACCES);
	assert_int_equal(fr_mkdir(dir, "adir"), 0);
	assert_int_equal(fr_path(d, sizeof(d), dir, "adir"), 0);
	assert_int_equal(check(d, &why), -EACCES);
	assert_int_equal(check("/nonexistent/cmd", &why), -ENOENT);
	assert_null(why.role);
	/* an interpreter we may not execute */
	put("inoexec", "#!/bin/sh\n", 0644);
	assert_int_equal(fr_path(d, sizeof(d), dir, "inoexec"), 0);
	{
		char text[PATH_MAX + 8];

		snprintf(text, sizeof(text), "#!%s\n", d);
		assert_int_equal(check(put("viaexec", text, 0755), &why), -EACCES);
		assert_string_equal(why.file, d);
	}
}

/* A copy of /bin/true with its PT_INTERP (and, if asked, e_machine) patched. */
static const char *elf_copy(const char *name, const char *interp, int machine)
{
	static char copy[PATH_MAX];
	char path[PATH_MAX];
	Elf64_Ehdr eh;
	int in = open("/bin/true", O_RDONLY), out;
	char buf[65536];
	ssize_t n;

	assert_true(in >= 0);
	assert_int_equal(fr_path(path, sizeof(path), dir, name), 0);
	out = open(path, O_RDWR | O_CREAT | O_TRUNC, 0755);
	assert_true(out >= 0);
	while ((n = read(in, buf, sizeof(buf))) > 0)
		assert_int_equal(write(out, buf, (size_t)n), n);
	close(in);
	assert_int_equal(pread(out, &eh, sizeof(eh), 0), (ssize_t)sizeof(eh));
	assert_int_equal(eh.e_ident[EI_CLASS], ELFCLASS64);
	for (int i = 0; interp && i < eh.e_phnum; i++) {
		Elf64_Phdr ph;

		assert_int_equal(pread(out, &ph, sizeof(ph), (off_t)(eh.e_phoff + i * sizeof(ph))),
				 (ssize_t)sizeof(ph));
		if (ph.p_type != PT_INTERP)
			continue;
		assert_true(strlen(interp) < ph.p_filesz);
		memset(buf, 0, ph.p_filesz);
		strcpy(buf, interp);
		assert_int_equal(pwrite(out, buf, ph.p_filesz, (off_t)ph.p_offset),
				 (ssize_t)ph.p_filesz);
		interp = NULL;
	}
	assert_null(interp);	/* /bin/true has a PT_INTERP */
	if (machine) {
		eh.e_machine = (Elf64_Half)machine;
		assert_int_equal(pwrite(out, &eh, sizeof(eh), 0), (ssize_t)sizeof(eh));
	}
	close(out);
	return strcpy(copy, path);
}

static bool binfmt_misc_used(void)
{
	DIR *d = opendir("/proc/sys/fs/binfmt_misc");
	struct dirent *de;
	bool any = false;

	while (d && !any && (de = readdir(d)))
		any = de->d_name[0] != '.' && strcmp(de->d_name, "register") &&
		      strcmp(de->d_name, "status");
	if (d)
		closedir(d);
	return any;
}

static void test_elf(void **state)
{
	struct uc_exec_why why;
	char cwd[PATH_MAX];

	(void)state;
	assert_int_equal(check("/bin/true", &why), 0);
	/* built against another libc: its loader is not here */
	assert_int_equal(check(elf_copy("badld", "/nonexistent/ld.so", 0), &why), -ENOENT);
	assert_string_equal(why.file, "/nonexistent/ld.so");
	assert_string_equal(why.role, "program interpreter (PT_INTERP)");
	/* a loader that is there but no ELF: ELIBBAD (a relative PT_INTERP is
	 * looked up from the working directory, as the kernel does) */
	put("ld", "#!/bin/sh\n", 0755);
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	assert_int_equal(chdir(dir), 0);
	assert_int_equal(check(elf_copy("notld", "./ld", 0), &why), -ELIBBAD);
	assert_string_equal(why.file, "./ld");
	/* a loader we may not execute */
	assert_int_equal(chmod("ld", 0644), 0);
	assert_int_equal(check(elf_copy("noxld", "./ld", 0), &why), -EACCES);
	assert_int_equal(chdir(cwd), 0);
#ifdef __x86_64__
	/* another machine's binary: the kernel says ENOEXEC, unless binfmt_misc
	 * (qemu-user) takes it, which is not looked into */
	assert_int_equal(check(elf_copy("arm", "/lib/ld-linux-aarch64.so.1", EM_AARCH64), &why),
			 binfmt_misc_used() ? 0 : -ENOEXEC);
#endif
}

static void test_args(void **state)
{
	char *argv[] = { (char *)"true", NULL, NULL };
	char *envp[] = { (char *)"A=1", NULL };
	char *big = malloc(200 * 1024);

	(void)state;
	assert_non_null(big);
	assert_int_equal(uc_exec_args_fit("/bin/true", argv, envp), 0);
	/* one string over MAX_ARG_STRLEN (32 pages) */
	memset(big, 'x', 200 * 1024 - 1);
	big[200 * 1024 - 1] = '\0';
	argv[1] = big;
	assert_int_equal(uc_exec_args_fit("/bin/true", argv, envp), -E2BIG);
	free(big);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scripts),
		cmocka_unit_test(test_chain),
		cmocka_unit_test(test_modes),
		cmocka_unit_test(test_elf),
		cmocka_unit_test(test_args),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
