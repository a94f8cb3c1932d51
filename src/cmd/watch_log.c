/*
 * Logging and readiness for 'uclampctl watch', by systemd's protocols without
 * libsystemd: under systemd (stderr is the journal's stream), structured
 * journal fields (TARGET_PID, RULE, OLD_MIN, ...) in one datagram to the
 * journal's socket, else plain stderr lines; readiness and the watchdog as
 * one datagram to $NOTIFY_SOCKET ('@': the abstract namespace). So watch
 * loads no library for them, under systemd or not.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "cmd/watch_log.h"
#include "uclamp/escape.h"

#define JOURNAL_SOCKET "/run/systemd/journal/socket"

/* One datagram to an AF_UNIX socket path ('@' first: abstract); false if not sent. */
static bool send_dgram(const char *path, const void *buf, size_t len)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	socklen_t slen;
	ssize_t rc;
	int fd;

	if (!path || (path[0] != '/' && path[0] != '@') || strlen(path) >= sizeof(sa.sun_path))
		return false;
	strcpy(sa.sun_path, path);
	if (path[0] == '@')
		sa.sun_path[0] = '\0';
	slen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + strlen(path));
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return false;
	rc = sendto(fd, buf, len, MSG_NOSIGNAL, (struct sockaddr *)&sa, slen);
	close(fd);
	return rc == (ssize_t)len;
}

struct entry {
	char buf[8192];
	size_t len;
};

/* A field in the journal's binary form (NAME, '\n', the value's length as 64
 * bits little-endian, the value, '\n'): any byte may be in the value. */
__attribute__((format(printf, 3, 4)))
static void field(struct entry *e, const char *name, const char *fmt, ...)
{
	size_t nl = strlen(name), room = sizeof(e->buf) - e->len;
	char *p = e->buf + e->len;
	va_list ap;
	int vl;

	if (room < nl + 10 + 1)
		return;
	va_start(ap, fmt);
	vl = vsnprintf(p + nl + 9, room - nl - 10, fmt, ap);
	va_end(ap);
	if (vl < 0)
		return;
	if ((size_t)vl > room - nl - 11)
		vl = (int)(room - nl - 11);	/* cut: a line too long for the entry */
	memcpy(p, name, nl);
	p[nl] = '\n';
	for (int i = 0; i < 8; i++)
		p[nl + 1 + i] = (char)((uint64_t)vl >> (8 * i));
	p[nl + 9 + vl] = '\n';
	e->len += nl + 10 + (size_t)vl;
}

/* stderr is connected to the journal (systemd sets JOURNAL_STREAM=dev:ino). */
static int to_journal(void)
{
	static int cached = -1;

	if (cached < 0)
		cached = getenv("JOURNAL_STREAM") != NULL;
	return cached;
}

static bool journal(const struct uc_watch_log *l)
{
	struct entry e = { .len = 0 };

	field(&e, "PRIORITY", "%d", l->prio);
	if (l->pid > 0)
		field(&e, "TARGET_PID", "%d", (int)l->pid);
	if (l->tid > 0)
		field(&e, "TARGET_TID", "%d", (int)l->tid);
	if (l->old_min >= 0 || l->new_min >= 0) {
		field(&e, "OLD_MIN", "%d", l->old_min);
		field(&e, "NEW_MIN", "%d", l->new_min);
	}
	if (l->old_max >= 0 || l->new_max >= 0) {
		field(&e, "OLD_MAX", "%d", l->old_max);
		field(&e, "NEW_MAX", "%d", l->new_max);
	}
	if (l->reason)
		field(&e, "REASON", "%.40s", l->reason);
	if (l->line > 0)
		field(&e, "CONFIG_LINE", "%d", l->line);
	if (l->rule)
		field(&e, "RULE", "%s", l->rule);
	if (l->file)
		field(&e, "CONFIG_FILE", "%s", l->file);
	field(&e, "MESSAGE", "%s", l->msg);
	return send_dgram(JOURNAL_SOCKET, e.buf, e.len);
}

static void log_stderr(const struct uc_watch_log *e)
{
	if (e->file && e->line > 0)
		fprintf(stderr, "%s:%d: %s\n", e->file, e->line, e->msg);
	else if (e->file)
		fprintf(stderr, "%s: %s\n", e->file, e->msg);
	else
		fprintf(stderr, "uclampctl watch: %s\n", e->msg);
}

void watch_log(void *data, const struct uc_watch_log *l)
{
	const struct watch_log_ctx *c = data;
	struct uc_watch_log e = *l;
	char *msg, *file;

	if (c && l->prio > c->max_prio)
		return;
	/* messages name processes and cgroups: hostile bytes, escaped (escape.h) */
	msg = uc_escape_name_dup(l->msg ? l->msg : "");
	file = l->file ? uc_escape_name_dup(l->file) : NULL;
	e.msg = msg ? msg : "(out of memory)";
	e.file = l->file ? (file ? file : "?") : NULL;
	if (!to_journal() || !journal(&e))
		log_stderr(&e);
	free(msg);
	free(file);
}

void watch_notify(void *data, const char *state)
{
	send_dgram(getenv("NOTIFY_SOCKET"), state, strlen(state));
}

uint64_t watch_watchdog_usec(void)
{
	const char *u = getenv("WATCHDOG_USEC"), *p = getenv("WATCHDOG_PID");

	if (!u || (p && atol(p) != (long)getpid()))
		return 0;
	return strtoull(u, NULL, 10);
}
