/*
 * Files written in a directory through descriptors, never through names
 * another process can swap: a new file made O_EXCL|O_NOFOLLOW under a
 * temporary name (a name already there is never opened), written, fchmod'ed
 * and fsync'ed through its descriptor, then renamed over the final name. A
 * directory others can write cannot steer root's write elsewhere. Users:
 * status --textfile, the writers' lock, the per-boot symbol cache.
 */
#ifndef UCLAMP_AFILE_H
#define UCLAMP_AFILE_H

#include <stdbool.h>
#include <sys/types.h>

/* Open a directory, a symbolic link at its last component refused (-ELOOP or
 * -ENOTDIR): the descriptor, or -errno. abspath is used as given (no sysroot). */
int uc_dir_open(const char *path);

/* Open a directory only its owner may change (not a link; root's or ours; not
 * group- or other-writable), made with mode when missing (0: not made): the
 * descriptor, -EPERM when it fails the rule, -errno. Through the sysroot. */
int uc_dir_open_trusted(const char *abspath, mode_t mode);

struct uc_afile {
	int dfd;		/* the directory (the caller's, not closed here) */
	int fd;			/* the new file; -1 when none */
	char tmp[96];		/* its temporary name in dfd: ".NAME.PID.N" */
	dev_t dev;		/* and what it is, to tell it from a swapped name */
	ino_t ino;
};

/* A new empty file in dfd for name, mode by fchmod: 0 and a->fd, or -errno
 * (-EEXIST after 100 names taken). */
int uc_afile_create(struct uc_afile *a, int dfd, const char *name, mode_t mode);

/* fsync and rename over name: 0; -ESTALE when name is then not the file
 * written (swapped meanwhile: the caller says so); -errno. a->fd stays open. */
int uc_afile_commit(struct uc_afile *a, const char *name);

/* Give up: the temporary name removed if it is still the file made; close. */
void uc_afile_abort(struct uc_afile *a);
void uc_afile_close(struct uc_afile *a);

/* Whether fd and the name in dfd are the same file (the name not followed). */
bool uc_afile_is(int dfd, const char *name, int fd);

#endif
