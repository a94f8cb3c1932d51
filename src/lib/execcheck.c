/* Will execve() start this program? (see execcheck.h) */
#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "uclamp/execcheck.h"

#define BINPRM_BUF_SIZE 256	/* what the kernel reads of a file to pick its format */
#define MAX_DEPTH 5		/* exec_binprm: ELOOP at a sixth rewrite */
#define STK_LIM (8ul << 20)	/* _STK_LIM */
#define ARG_MAX_KERNEL 131072ul	/* ARG_MAX: 32 pages of strings, whatever the stack */

#if defined(__x86_64__)
#define NATIVE_MACHINE EM_X86_64
#define COMPAT_MACHINE EM_386	/* 32-bit x86 (IA32 emulation) */
#elif defined(__aarch64__)
#define NATIVE_MACHINE EM_AARCH64
#define COMPAT_MACHINE EM_ARM
#elif defined(__i386__)
#define NATIVE_MACHINE EM_386
#elif defined(__arm__)
#define NATIVE_MACHINE EM_ARM
#elif defined(__powerpc64__)
#define NATIVE_MACHINE EM_PPC64
#elif defined(__s390x__)
#define NATIVE_MACHINE EM_S390
#elif defined(__riscv)
#define NATIVE_MACHINE EM_RISCV
#endif

static int fail(struct uc_exec_why *why, const char *file, const char *role, int err)
{
	if (role && why->file[0] == '\0') {
		snprintf(why->file, sizeof(why->file), "%s", file);
		why->role = role;
	}
	return err;
}

/*
 * What open_exec() asks of a file: a regular file we may execute, not on a
 * noexec mount. Then its first bytes into buf (fd closed): their length, 0
 * when they cannot be read (an execute-only file: its inside is not looked
 * at), or -errno.
 */
static ssize_t exec_file(const char *path, int *fd, unsigned char *buf, size_t n)
{
	struct statvfs sv;
	struct stat st;
	ssize_t len;

	*fd = -1;
	if (stat(path, &st))
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -EACCES;	/* what execve() says for a directory, a FIFO, ... */
	if (faccessat(AT_FDCWD, path, X_OK, AT_EACCESS))
		return -errno;
	if (!statvfs(path, &sv) && (sv.f_flag & ST_NOEXEC))
		return -EACCES;
	*fd = open(path, O_RDONLY | O_CLOEXEC);
	if (*fd < 0)
		return 0;
	memset(buf, 0, n);
	len = pread(*fd, buf, n, 0);
	return len < 0 ? 0 : len;
}

/* ---- "#!" as fs/binfmt_script.c reads it ----------------------------------- */

static bool spacetab(char c)
{
	return c == ' ' || c == '\t';
}

static const char *next_non_spacetab(const char *first, const char *last)
{
	for (; first <= last; first++)
		if (!spacetab(*first))
			return first;
	return NULL;
}

static const char *next_terminator(const char *first, const char *last)
{
	for (; first <= last; first++)
		if (spacetab(*first) || !*first)
			return first;
	return NULL;
}

/* The interpreter named by a "#!" buffer (NUL-padded to BINPRM_BUF_SIZE):
 * 0, or -ENOEXEC where load_script() takes none. */
static int shebang(const char *b, char *name, size_t n)
{
	const char *buf_end = b + BINPRM_BUF_SIZE - 1, *i_end, *i_name, *i_sep;
	size_t len;

	/* strnchr(): the newline before any NUL */
	i_end = memchr(b, '\n', strnlen(b, BINPRM_BUF_SIZE));
	if (!i_end) {
		i_end = next_non_spacetab(b + 2, buf_end);
		if (!i_end || !next_terminator(i_end, buf_end))
			return -ENOEXEC;	/* all blanks, or the path may be cut */
		i_end = buf_end;
	}
	while (spacetab(i_end[-1]))
		i_end--;
	i_name = next_non_spacetab(b + 2, i_end);
	if (!i_name || i_name == i_end)
		return -ENOEXEC;
	i_sep = next_terminator(i_name, i_end);
	len = (size_t)((i_sep ? i_sep : i_end) - i_name);
	len = strnlen(i_name, len);
	if (len >= n)
		return -ENAMETOOLONG;
	memcpy(name, i_name, len);
	name[len] = '\0';
	return 0;
}

/* ---- ELF as fs/binfmt_elf.c reads it --------------------------------------- */

/* Whether class/machine is one this kernel runs (every one on an arch not listed above). */
static bool elf_native(unsigned char cls, unsigned machine)
{
#ifdef NATIVE_MACHINE
	if (cls == (sizeof(void *) == 8 ? ELFCLASS64 : ELFCLASS32) && machine == NATIVE_MACHINE)
		return true;
#ifdef COMPAT_MACHINE
	if (cls == ELFCLASS32 && machine == COMPAT_MACHINE)
		return true;
#endif
	return false;
#else
	return true;
#endif
}

struct elf_info {
	unsigned char cls;
	unsigned type, machine, phentsize, phnum;
	uint64_t phoff;
};

/* The header's fields, or -ENOEXEC when it is no ELF header in our byte order. */
static int elf_header(const unsigned char *b, size_t len, struct elf_info *e)
{
	if (len < EI_NIDENT || memcmp(b, ELFMAG, SELFMAG))
		return -ENOEXEC;
	e->cls = b[EI_CLASS];
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	if (b[EI_DATA] != ELFDATA2LSB)
		return -ENOEXEC;
#else
	if (b[EI_DATA] != ELFDATA2MSB)
		return -ENOEXEC;
#endif
	if (e->cls == ELFCLASS64 && len >= sizeof(Elf64_Ehdr)) {
		Elf64_Ehdr h;

		memcpy(&h, b, sizeof(h));
		*e = (struct elf_info){ e->cls, h.e_type, h.e_machine, h.e_phentsize, h.e_phnum,
					h.e_phoff };
		return e->phentsize == sizeof(Elf64_Phdr) ? 0 : -ENOEXEC;
	}
	if (e->cls == ELFCLASS32 && len >= sizeof(Elf32_Ehdr)) {
		Elf32_Ehdr h;

		memcpy(&h, b, sizeof(h));
		*e = (struct elf_info){ e->cls, h.e_type, h.e_machine, h.e_phentsize, h.e_phnum,
					h.e_phoff };
		return e->phentsize == sizeof(Elf32_Phdr) ? 0 : -ENOEXEC;
	}
	return -ENOEXEC;
}

/* Program header i's type, file offset and size; -EIO when unreadable. */
static int elf_phdr(int fd, const struct elf_info *e, unsigned i, uint32_t *type, uint64_t *off,
		    uint64_t *size)
{
	off_t at = (off_t)(e->phoff + (uint64_t)i * e->phentsize);
	bool is64 = e->cls == ELFCLASS64;
	union {
		Elf64_Phdr p64;
		Elf32_Phdr p32;
	} u;
	size_t len = is64 ? sizeof(u.p64) : sizeof(u.p32);

	if (pread(fd, &u, len, at) != (ssize_t)len)
		return -EIO;
	*type = is64 ? u.p64.p_type : u.p32.p_type;
	*off = is64 ? u.p64.p_offset : u.p32.p_offset;
	*size = is64 ? u.p64.p_filesz : u.p32.p_filesz;
	return 0;
}

/* binfmt_misc has formats registered: a foreign binary may still run. */
static bool binfmt_misc_used(void)
{
	DIR *d = opendir("/proc/sys/fs/binfmt_misc");
	struct dirent *de;
	bool any = false;

	if (!d)
		return false;
	while (!any && (de = readdir(d)))
		any = de->d_name[0] != '.' && strcmp(de->d_name, "register") &&
		      strcmp(de->d_name, "status");
	closedir(d);
	return any;
}

/* PT_INTERP's file, as load_elf_binary() asks for it (the first PT_INTERP). */
static int elf_interp(int fd, const struct elf_info *e, struct uc_exec_why *why)
{
	static const char role[] = "program interpreter (PT_INTERP)";
	unsigned char buf[BINPRM_BUF_SIZE];
	char interp[PATH_MAX];
	struct elf_info ie;
	ssize_t len;
	int ifd, rc;

	for (unsigned i = 0; i < e->phnum; i++) {
		uint64_t off, size;
		uint32_t type;

		if ((rc = elf_phdr(fd, e, i, &type, &off, &size)))
			return rc;
		if (type != PT_INTERP)
			continue;
		if (size < 2 || size > PATH_MAX ||
		    pread(fd, interp, size, (off_t)off) != (ssize_t)size || interp[size - 1])
			return -ENOEXEC;
		len = exec_file(interp, &ifd, buf, sizeof(buf));
		if (ifd >= 0)
			close(ifd);
		if (len < 0)
			return fail(why, interp, role, (int)len);
		if (len && (elf_header(buf, (size_t)len, &ie) || !elf_native(ie.cls, ie.machine)))
			return fail(why, interp, role, -ELIBBAD);
		return 0;
	}
	return 0;	/* static: no loader */
}

/* ---- the walk ---------------------------------------------------------------- */

/* -ENOEXEC with *binary false: no format the kernel knows (execvp: /bin/sh) */
static int check_at(const char *path, int depth, const char *role, bool *binary,
		    struct uc_exec_why *why)
{
	unsigned char buf[BINPRM_BUF_SIZE + 1];
	char interp[PATH_MAX];
	struct elf_info e;
	ssize_t len;
	int fd, rc;

	if (depth > MAX_DEPTH)
		return fail(why, path, role, -ELOOP);
	len = exec_file(path, &fd, buf, BINPRM_BUF_SIZE);
	buf[BINPRM_BUF_SIZE] = '\0';
	if (len <= 0) {
		if (fd >= 0)
			close(fd);
		return len < 0 ? fail(why, path, role, (int)len) : 0;
	}
	if (buf[0] == '#' && buf[1] == '!') {
		close(fd);
		rc = shebang((const char *)buf, interp, sizeof(interp));
		if (rc)
			return fail(why, path, role, rc);
		return check_at(interp, depth + 1, "interpreter", binary, why);
	}
	rc = elf_header(buf, (size_t)len, &e);
	if (!rc) {
		*binary = true;
		if (e.type != ET_EXEC && e.type != ET_DYN)
			rc = -ENOEXEC;
		else if (!elf_native(e.cls, e.machine))
			/* binfmt_misc may take it: not looked into */
			rc = binfmt_misc_used() ? 0 : -ENOEXEC;
		else
			rc = elf_interp(fd, &e, why);
	} else if (!memcmp(buf, ELFMAG, SELFMAG)) {
		*binary = true;
	}
	close(fd);
	if (rc == -ENOEXEC && *binary)
		return fail(why, path, role, rc);
	return rc;
}

int uc_exec_check(const char *path, struct uc_exec_why *why)
{
	bool binary = false;
	int rc;

	why->file[0] = '\0';
	why->role = NULL;
	rc = check_at(path, 0, NULL, &binary, why);
	/* no format: execvp() runs it with the shell (glibc's maybe_script_execute) */
	if (rc == -ENOEXEC && !binary && !binfmt_misc_used()) {
		why->file[0] = '\0';
		why->role = NULL;
		rc = check_at("/bin/sh", 0, "shell (execvp runs it with /bin/sh)", &binary, why);
	} else if (rc == -ENOEXEC && !binary) {
		rc = 0;	/* binfmt_misc may take it: not looked at */
	}
	return rc;
}

int uc_exec_args_fit(const char *path, char *const argv[], char *const envp[])
{
	unsigned long max_str = (unsigned long)sysconf(_SC_PAGESIZE) * 32, limit = STK_LIM / 4 * 3;
	size_t argc = 0, envc = 0, ptrs, total = strlen(path) + 1;
	struct rlimit rl;

	if (!getrlimit(RLIMIT_STACK, &rl) && rl.rlim_cur != RLIM_INFINITY &&
	    rl.rlim_cur / 4 < limit)
		limit = rl.rlim_cur / 4;
	if (limit < ARG_MAX_KERNEL)
		limit = ARG_MAX_KERNEL;
	for (char *const *v = argv; v && *v; v++, argc++) {
		size_t len = strlen(*v) + 1;

		if (len > max_str)
			return -E2BIG;
		total += len;
	}
	for (char *const *v = envp; v && *v; v++, envc++) {
		size_t len = strlen(*v) + 1;

		if (len > max_str)
			return -E2BIG;
		total += len;
	}
	ptrs = ((argc ? argc : 1) + envc) * sizeof(void *);
	if (limit <= ptrs || total > limit - ptrs)
		return -E2BIG;
	return 0;
}
