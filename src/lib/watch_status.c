/*
 * The status socket, root's: each client gets the counters as "key value"
 * lines, then EOF (a short send timeout: a slow client never blocks us). One
 * daemon per socket: one that answers is left alone, one that refuses (its
 * daemon died) is removed; at exit only the socket we bound (same inode).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include "uclamp/watch.h"

#define STATS_MAX 8192

static int fill_addr(struct sockaddr_un *sa, const char *path)
{
	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(sa->sun_path))
		return -ENAMETOOLONG;
	strcpy(sa->sun_path, path);
	return 0;
}

int uc_watch_status_owner(const char *path, pid_t *pid)
{
	struct sockaddr_un sa;
	struct ucred cred;
	socklen_t len = sizeof(cred);
	int fd, rc = fill_addr(&sa, path);

	*pid = 0;
	if (rc)
		return rc;
	/* non-blocking: a daemon whose backlog is full answers EAGAIN, not never */
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		rc = errno == ENOENT || errno == ECONNREFUSED ? 0 :
		     errno == EAGAIN || errno == EINPROGRESS ? 1 : -errno;
		close(fd);
		return rc;
	}
	/* the listener's credentials, as of its listen() */
	if (!getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) && cred.pid > 0)
		*pid = cred.pid;
	close(fd);
	return 1;
}

int uc_watch_status_listen(const char *path, struct uc_watch_listener *ls, pid_t *owner)
{
	struct sockaddr_un sa;
	char dir[sizeof(sa.sun_path)], *slash;
	struct stat st;
	mode_t old;
	int fd, rc = fill_addr(&sa, path);

	ls->fd = -1;
	*owner = 0;
	if (rc)
		return rc;
	strcpy(dir, path);
	slash = strrchr(dir, '/');
	if (slash && slash != dir) {
		*slash = '\0';
		if (mkdir(dir, 0755) < 0 && errno != EEXIST)
			return -errno;
	}
	rc = uc_watch_status_owner(path, owner);
	if (rc)
		return rc > 0 ? -EADDRINUSE : rc;
	if (!lstat(path, &st)) {
		if (!S_ISSOCK(st.st_mode))
			return -EEXIST;	/* not ours to remove */
		unlink(path);	/* refuses connections: its daemon is gone */
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	old = umask(0177);	/* 0600 from the start: no window for others */
	rc = bind(fd, (struct sockaddr *)&sa, sizeof(sa));
	umask(old);
	if (rc < 0 || lstat(path, &st) < 0 || listen(fd, 8) < 0) {
		rc = -errno;
		close(fd);
		return rc;
	}
	ls->fd = fd;
	ls->dev = st.st_dev;
	ls->ino = st.st_ino;
	ls->ctime = st.st_ctim;
	return 0;
}

void uc_watch_status_close(struct uc_watch_listener *ls, const char *path)
{
	struct stat st;

	if (ls->fd < 0)
		return;
	/* another daemon's socket by now (ours was removed and replaced): keep it;
	 * the change time too, as a file system may give a new file a freed inode */
	if (!lstat(path, &st) && S_ISSOCK(st.st_mode) && st.st_dev == ls->dev &&
	    st.st_ino == ls->ino && st.st_ctim.tv_sec == ls->ctime.tv_sec &&
	    st.st_ctim.tv_nsec == ls->ctime.tv_nsec)
		unlink(path);
	close(ls->fd);
	ls->fd = -1;
}

int uc_watch_status_serve(struct uc_watch *w, int lfd)
{
	struct timeval tv = { .tv_sec = 0, .tv_usec = 200000 };
	struct ucred cred;
	socklen_t len = sizeof(cred);
	char *buf;
	int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC), rc = 0;

	if (fd < 0)
		return errno == EAGAIN ? 0 : -errno;
	/* the file mode keeps others out; the peer check holds if it is ever loosened */
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0 || cred.uid != 0) {
		close(fd);
		return -EACCES;
	}
	buf = malloc(STATS_MAX);
	if (!buf) {
		close(fd);
		return -ENOMEM;
	}
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	rc = uc_watch_stats_format(uc_watch_stats(w), buf, STATS_MAX);
	if (!rc) {
		size_t n = strlen(buf), off = 0;

		while (off < n) {
			ssize_t k = send(fd, buf + off, n - off, MSG_NOSIGNAL);

			if (k < 0 && errno == EINTR)
				continue;
			if (k <= 0) {
				rc = -errno;
				break;
			}
			off += (size_t)k;
		}
	}
	free(buf);
	close(fd);
	return rc;
}

int uc_watch_status_query(const char *path, struct uc_watch_stats *s)
{
	struct sockaddr_un sa;
	struct timeval tv = { .tv_sec = 5 };
	char *buf;
	size_t off = 0;
	int fd, rc = fill_addr(&sa, path);

	if (rc)
		return rc;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		rc = -errno;
		close(fd);
		return rc;
	}
	buf = malloc(STATS_MAX);
	if (!buf) {
		close(fd);
		return -ENOMEM;
	}
	for (;;) {
		ssize_t k = read(fd, buf + off, STATS_MAX - 1 - off);

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			rc = -errno;
			break;
		}
		if (k == 0 || (off += (size_t)k) >= STATS_MAX - 1)
			break;
	}
	close(fd);
	buf[off] = '\0';
	if (!rc && !off)
		rc = -EACCES;	/* the daemon hung up on us: not root */
	if (!rc)
		rc = uc_watch_stats_parse(buf, s);
	free(buf);
	return rc;
}
