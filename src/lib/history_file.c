/*
 * The record's file (history.h): where it lives, who may own it, reading it
 * whole, appending a record (one write(2), then fsync), and making room by
 * writing the newest runs to a new file renamed over the old one. Writers
 * take an exclusive flock(2) on the file (root's writers hold the uclampctl
 * lock too, a user's need not), readers a shared one; a writer that finds
 * the file renamed away under it while it waited opens the new one.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "history_fmt.h"
#include "uclamp/lock.h"
#include "uclamp/note.h"
#include "uclamp/sysroot.h"

/* why says what went wrong (printf): returns err. */
__attribute__((format(printf, 4, 5)))
static int say(char *why, size_t n, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	uc_note_vset(why, n, fmt, ap);
	va_end(ap);
	return err;
}

int uc_hist_dir(char *buf, size_t n)
{
	const char *xdg = getenv("XDG_RUNTIME_DIR");
	int len;

	/* root's record is root's alone: never where the environment points */
	if (geteuid() == 0)
		len = snprintf(buf, n, "%s", UC_LOCK_DIR);
	else if (xdg && xdg[0] == '/')
		len = snprintf(buf, n, "%s/uclampctl", xdg);
	else
		return -ENOENT;
	return len < 0 || (size_t)len >= n ? -ENAMETOOLONG : 0;
}

static int check_owner(const struct stat *st, const char *what, uid_t owner, char *why,
		       size_t n)
{
	if (st->st_uid != owner)
		return say(why, n, -EPERM, "%s is owned by uid %u, not uid %u", what,
			   (unsigned)st->st_uid, (unsigned)owner);
	if (st->st_mode & (S_IWGRP | S_IWOTH))
		return say(why, n, -EPERM, "%s is writable by group or others (mode 0%03o)", what,
			   (unsigned)(st->st_mode & 07777));
	return 0;
}

int uc_hist_trusted(const struct stat *dir, const struct stat *file, uid_t owner, char *why,
		    size_t n)
{
	if (!S_ISDIR(dir->st_mode))
		return say(why, n, -EPERM, "its directory is not a directory");
	if (check_owner(dir, "its directory", owner, why, n))
		return -EPERM;
	if (!file)
		return 0;
	if (!S_ISREG(file->st_mode))
		return say(why, n, -EPERM, "it is not a regular file");
	if (check_owner(file, "it", owner, why, n))
		return -EPERM;
	if (file->st_nlink != 1)
		return say(why, n, -EPERM, "it has %lu links (a record has one)",
			   (unsigned long)file->st_nlink);
	return 0;
}

/* ---- opening ---------------------------------------------------------------------- */

/* A failed call's -errno, why naming what failed and the error. */
static int sys_err(const char *what, char *why, size_t n)
{
	return say(why, n, -errno, "%s: %s", what, strerror(errno));
}

/* The record's file could not be opened: a symbolic link is not to be trusted. */
static int open_err(const char *path, char *why, size_t n)
{
	if (errno != ELOOP)
		return sys_err(path, why, n);
	return say(why, n, -EPERM, "%s: it is a symbolic link", path);
}

struct hfile {
	int dfd, fd;
	char path[PATH_MAX];	/* for messages: as the admin knows it (no sysroot) */
	uint8_t *buf;		/* the file, mapped (NULL when empty) */
	size_t size;
	struct stat dir;
};

static void hfile_close(struct hfile *f)
{
	if (f->buf)
		munmap(f->buf, f->size);
	if (f->fd >= 0)
		close(f->fd);
	if (f->dfd >= 0)
		close(f->dfd);
	f->fd = f->dfd = -1;
	f->buf = NULL;
}

/* The record's directory, checked (create: made when missing). -ENOENT: none yet. */
static int open_dir(struct hfile *f, bool create, char *why, size_t n)
{
	char rel[PATH_MAX - 16], abs[PATH_MAX], w[160];
	int rc = uc_hist_dir(rel, sizeof(rel));

	f->fd = f->dfd = -1;
	f->buf = NULL;
	f->path[0] = '\0';
	if (rc == -ENOENT)
		return say(why, n, -ENOENT, "no place for a user's record: XDG_RUNTIME_DIR is "
			   "not set (root's runs are recorded in %s)", UC_LOCK_DIR);
	snprintf(f->path, sizeof(f->path), "%s/%s", rel, UC_HIST_NAME);
	if (rc || (rc = uc_path(abs, sizeof(abs), rel)))
		return say(why, n, rc, "%s: %s", rel, strerror(-rc));
	if (create && mkdir(abs, geteuid() == 0 ? 0755 : 0700) && errno != EEXIST)
		return sys_err(rel, why, n);
	f->dfd = open(abs, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (f->dfd < 0 || fstat(f->dfd, &f->dir))
		return sys_err(rel, why, n);
	if (uc_hist_trusted(&f->dir, NULL, geteuid(), w, sizeof(w)))
		return say(why, n, -EPERM, "%s: %s", f->path, w);
	return 0;
}

/* The open file may be trusted (trust rules, size): f->size. */
static int check_file(struct hfile *f, char *why, size_t n)
{
	struct stat st;
	char w[160];

	if (fstat(f->fd, &st))
		return say(why, n, -EIO, "%s: %s", f->path, strerror(errno));
	if (uc_hist_trusted(&f->dir, &st, geteuid(), w, sizeof(w)))
		return say(why, n, -EPERM, "%s: %s", f->path, w);
	if (st.st_size > (off_t)UC_HIST_MAX)
		return say(why, n, -EFBIG, "%s: %lld bytes, more than a record may hold (%u)",
			   f->path, (long long)st.st_size, UC_HIST_MAX);
	f->size = (size_t)st.st_size;
	return 0;
}

/*
 * Map the checked file: a writer looks at its frames' headers and its last
 * record only, so a 4 MiB record is not copied for every run (every writer
 * takes the flock: nothing truncates it under the mapping).
 */
static int map_file(struct hfile *f, char *why, size_t n)
{
	if (!f->size)
		return 0;
	f->buf = mmap(NULL, f->size, PROT_READ, MAP_PRIVATE, f->fd, 0);
	if (f->buf == MAP_FAILED) {
		f->buf = NULL;
		return say(why, n, -EIO, "%s: %s", f->path, strerror(errno));
	}
	return 0;
}

int uc_hist_load(struct uc_hist *h, char *why, size_t n)
{
	struct hfile f;
	char id[64], w[256];
	int rc;

	memset(h, 0, sizeof(*h));
	rc = open_dir(&f, false, why, n);
	if (rc == -ENOENT && f.path[0])
		return 0;	/* nothing recorded yet */
	if (!rc) {
		f.fd = openat(f.dfd, UC_HIST_NAME, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
		if (f.fd < 0 && errno == ENOENT) {
			hfile_close(&f);
			return 0;
		}
		if (f.fd < 0)
			rc = open_err(f.path, why, n);
	}
	if (!rc && flock(f.fd, LOCK_SH))
		rc = -errno;
	if (!rc)
		rc = check_file(&f, why, n);
	if (!rc)
		rc = map_file(&f, why, n);
	if (!rc) {
		rc = uc_hist_parse(f.buf, f.size, uc_boot_id(id, sizeof(id)) ? NULL : id, h, w,
				   sizeof(w));
		if (rc)
			snprintf(why, n, "%s: %s", f.path, w);
	}
	hfile_close(&f);
	return rc;
}

/* ---- writing ---------------------------------------------------------------------- */

/* What a writer knows of the file it appends to. */
struct wstate {
	struct hist_walk w;	/* its frames (not walked when known: see ours) */
	char boot[64];		/* this boot's id */
	bool fresh;		/* another boot's file, or none: start this boot's */
};

/*
 * The file as this process left it after its last record (a run's RUN,
 * before its END): when it is still that file at that size, its tail is that
 * whole record, so the END needs no look at the rest (a 10,000-thread run's
 * RUN is 400 KB to check again otherwise).
 */
static struct {
	dev_t dev;
	ino_t ino;
	off_t size;
	unsigned last_id;
} ours;

static void remember(struct hfile *f, unsigned last_id)
{
	struct stat st;

	ours.size = -1;
	if (!fstatat(f->dfd, UC_HIST_NAME, &st, AT_SYMLINK_NOFOLLOW)) {
		ours.dev = st.st_dev;
		ours.ino = st.st_ino;
		ours.size = st.st_size;
		ours.last_id = last_id;
	}
}

/* Open and lock the file to append to (made if missing), checked. */
static int writer_lock(struct hfile *f, struct stat *st, char *why, size_t n)
{
	int rc = open_dir(f, true, why, n);

	/* a writer that made room renamed a new file over the one we waited for */
	for (int tries = 0; !rc && tries < 5; tries++) {
		struct stat b;

		f->fd = openat(f->dfd, UC_HIST_NAME, O_RDWR | O_CREAT | O_APPEND | O_NOFOLLOW |
			       O_NONBLOCK | O_CLOEXEC, 0600);
		if (f->fd < 0)
			return open_err(f->path, why, n);
		if (flock(f->fd, LOCK_EX) || fstat(f->fd, st))
			return sys_err(f->path, why, n);
		if (!fstatat(f->dfd, UC_HIST_NAME, &b, AT_SYMLINK_NOFOLLOW) &&
		    st->st_ino == b.st_ino && st->st_dev == b.st_dev)
			return 0;
		close(f->fd);
		f->fd = -1;
	}
	if (!rc)
		rc = say(why, n, -EAGAIN, "%s: replaced again and again while waiting for it",
			 f->path);
	return rc;
}

/* Open, lock and look at the file to append need bytes to: ws says what is there. */
static int writer_open(struct hfile *f, struct wstate *ws, size_t need, char *why, size_t n)
{
	struct stat st;
	int rc = writer_lock(f, &st, why, n);

	memset(ws, 0, sizeof(*ws));
	uc_boot_id(ws->boot, sizeof(ws->boot));
	if (!rc)
		rc = check_file(f, why, n);
	if (!rc && st.st_dev == ours.dev && st.st_ino == ours.ino && st.st_size == ours.size &&
	    (size_t)st.st_size + need <= UC_HIST_MAX) {
		/* as we left it: no look at its frames */
		ws->w.good = f->size;
		ws->w.last_id = ours.last_id;
		return 0;
	}
	if (!rc)
		rc = map_file(f, why, n);
	if (rc)
		return rc;
	hist_walk(f->buf, f->size, false, &ws->w);
	if (ws->w.damaged)
		return say(why, n, -EBADMSG, "%s: damaged: a bad record at byte %zu", f->path,
			   ws->w.damaged_at);
	ws->fresh = !ws->w.boot_id || ws->w.boot_len != strlen(ws->boot) ||
		    memcmp(ws->w.boot_id, ws->boot, ws->w.boot_len);
	return 0;
}

static int write_all(int fd, const uint8_t *p, size_t n)
{
	while (n) {
		ssize_t r = write(fd, p, n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return r ? -errno : -EIO;
		p += r;
		n -= (size_t)r;
	}
	return 0;
}

/*
 * A new file: this boot's header, the newest runs that fit in half the
 * bound (from a RUN record on), then rec; renamed over the old one.
 */
static int rewrite(struct hfile *f, const struct wstate *ws, const struct hist_buf *rec)
{
	const struct hist_walk *w = &ws->w;
	struct hist_buf nb = { 0 };
	size_t off = w->first_run, cut = w->good;
	const uint8_t *pl;
	uint32_t len;
	int fd, rc;

	hist_put_head(&nb, ws->boot);
	/* the first RUN from which the rest fits */
	while (!ws->fresh && off < w->good) {
		size_t at = off;

		if (hist_next(f->buf, w->good, &off, false, &pl, &len) != HIST_F_OK)
			break;
		if (pl[0] == HIST_RUN && w->good - at + rec->n <= UC_HIST_MAX / 2) {
			cut = at;
			break;
		}
	}
	if (!ws->fresh && cut < w->good)
		hist_put_bytes(&nb, f->buf + cut, w->good - cut);
	if (nb.oom) {
		free(nb.b);
		return -ENOMEM;
	}
	fd = openat(f->dfd, UC_HIST_NAME ".tmp", O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW |
		    O_CLOEXEC, 0600);
	if (fd < 0) {
		free(nb.b);
		return -errno;
	}
	rc = write_all(fd, nb.b, nb.n);
	if (!rc)
		rc = write_all(fd, rec->b, rec->n);
	if (!rc && (fchmod(fd, 0600) || fsync(fd)))
		rc = -errno;
	close(fd);
	free(nb.b);
	if (!rc && renameat(f->dfd, UC_HIST_NAME ".tmp", f->dfd, UC_HIST_NAME))
		rc = -errno;
	if (rc)
		unlinkat(f->dfd, UC_HIST_NAME ".tmp", 0);
	else
		fsync(f->dfd);
	return rc;
}

/* Append rec to the open file, making room or starting this boot's file first. */
static int put(struct hfile *f, const struct wstate *ws, const struct hist_buf *rec,
	       unsigned last_id, char *why, size_t n)
{
	const struct hist_walk *w = &ws->w;
	int rc;

	if (ws->fresh || w->good + rec->n > UC_HIST_MAX) {
		rc = rewrite(f, ws, rec);
	} else {
		/* a last record a crash cut short goes first */
		rc = w->torn && ftruncate(f->fd, (off_t)w->good) ? -errno : 0;
		/* nothing half-written stays */
		if (!rc && (rc = write_all(f->fd, rec->b, rec->n)))
			(void)!ftruncate(f->fd, (off_t)w->good);
		if (!rc && fsync(f->fd))
			rc = -errno;
	}
	if (rc)
		snprintf(why, n, "%s: %s", f->path, strerror(-rc));
	else
		remember(f, last_id);
	return rc;
}

int uc_hist_begin(const struct uc_plan *p, const struct uc_hist_note *note,
		  enum uc_key_state key, unsigned *id, char *why, size_t n)
{
	struct hist_buf rec = { 0 };
	struct hfile f = { .dfd = -1, .fd = -1 };
	struct wstate ws;
	int rc = writer_open(&f, &ws, UC_HIST_MAX, why, n);

	if (!rc) {
		/* another boot's numbers do not go on */
		*id = ws.fresh ? 1 : ws.w.last_id + 1;
		hist_put_run(&rec, *id, p, note, (int)key, (int64_t)time(NULL), geteuid());
		rc = rec.oom ? -ENOMEM : put(&f, &ws, &rec, *id, why, n);
	}
	if (rc == -ENOMEM)
		snprintf(why, n, "out of memory");
	free(rec.b);
	hfile_close(&f);
	return rc;
}

int uc_hist_end(unsigned id, const struct uc_plan *p, enum uc_key_state key_after, int outcome,
		char *why, size_t n)
{
	struct hist_buf rec = { 0 };
	struct hfile f = { .dfd = -1, .fd = -1 };
	struct wstate ws;
	int rc;

	hist_put_end(&rec, id, p, (int)key_after, outcome);
	rc = rec.oom ? -ENOMEM : writer_open(&f, &ws, rec.n, why, n);
	if (!rc)
		rc = put(&f, &ws, &rec, ws.w.last_id, why, n);
	if (rc == -ENOMEM)
		snprintf(why, n, "out of memory");
	free(rec.b);
	hfile_close(&f);
	return rc;
}
