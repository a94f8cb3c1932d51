/*
 * The status socket: a root-only unix stream socket; each client gets the
 * counters as "key value" lines (watch_stats.c), then EOF. The daemon never
 * blocks on a slow client: a short send timeout, then it hangs up.
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

int uc_watch_status_listen(const char *path)
{
	struct sockaddr_un sa;
	char dir[sizeof(sa.sun_path)], *slash;
	mode_t old;
	int fd, rc = fill_addr(&sa, path);

	if (rc)
		return rc;
	strcpy(dir, path);
	slash = strrchr(dir, '/');
	if (slash && slash != dir) {
		*slash = '\0';
		if (mkdir(dir, 0755) < 0 && errno != EEXIST)
			return -errno;
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	unlink(path);	/* a stale socket of an earlier run */
	old = umask(0177);	/* 0600 from the start: no window for others */
	rc = bind(fd, (struct sockaddr *)&sa, sizeof(sa));
	umask(old);
	if (rc < 0 || listen(fd, 8) < 0) {
		rc = -errno;
		close(fd);
		return rc;
	}
	return fd;
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
