/*
 * Logging and readiness for 'uclampctl watch'. With libsystemd: structured
 * journal fields (TARGET_PID, RULE, OLD_MIN, ...) and sd_notify. Without:
 * plain stderr lines and the notify datagram sent by hand (the protocol is
 * one AF_UNIX datagram to $NOTIFY_SOCKET, '@' meaning the abstract
 * namespace), so the daemon runs the same under systemd either way.
 *
 * libsystemd is opened (dlopen) when watch first logs or notifies, not
 * linked: with the six libraries it pulls in it made the start of every
 * other command a few milliseconds slower. Built without it, or not
 * installed: the paths that do without.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <syslog.h>
#include <unistd.h>

#ifdef HAVE_LIBSYSTEMD
#include <stdbool.h>
#include <systemd/sd-daemon.h>
#include <systemd/sd-journal.h>
#endif

#include "cmd/watch_log.h"
#include "uclamp/escape.h"
#include "uclamp/dlib.h"

#ifdef HAVE_LIBSYSTEMD
static const char *const sd_names[] = { "sd_notify", "sd_journal_sendv", "sd_watchdog_enabled" };
static union {
	struct {
		__typeof__(sd_notify) *notify;
		__typeof__(sd_journal_sendv) *journal_sendv;
		__typeof__(sd_watchdog_enabled) *watchdog_enabled;
	} f;
	void *v[3];
} sdu;
#define sd sdu.f

/* libsystemd's three functions, looked up once; false: not installed */
static bool have_sd(void)
{
	static int state = -1;

	if (state < 0)
		state = !uc_dlib_load(UC_DLIB_SYSTEMD, sd_names, sdu.v, 3);
	return state;
}

/* stderr is connected to the journal (systemd sets JOURNAL_STREAM=dev:ino). */
static int to_journal(void)
{
	static int cached = -1;

	if (cached < 0)
		cached = getenv("JOURNAL_STREAM") != NULL;
	return cached;
}

static void journal(const struct uc_watch_log *l)
{
	char f[10][48];
	struct iovec iov[12];
	int n = 0;

#define FIELD(fmt, ...) do { \
		snprintf(f[n], sizeof(f[n]), fmt, __VA_ARGS__); \
		iov[n].iov_base = f[n]; \
		iov[n].iov_len = strlen(f[n]); \
		n++; \
	} while (0)
	FIELD("PRIORITY=%d", l->prio);
	if (l->pid > 0)
		FIELD("TARGET_PID=%d", (int)l->pid);
	if (l->tid > 0)
		FIELD("TARGET_TID=%d", (int)l->tid);
	if (l->old_min >= 0 || l->new_min >= 0) {
		FIELD("OLD_MIN=%d", l->old_min);
		FIELD("NEW_MIN=%d", l->new_min);
	}
	if (l->old_max >= 0 || l->new_max >= 0) {
		FIELD("OLD_MAX=%d", l->old_max);
		FIELD("NEW_MAX=%d", l->new_max);
	}
	if (l->reason)
		FIELD("REASON=%.40s", l->reason);
	if (l->line > 0)
		FIELD("CONFIG_LINE=%d", l->line);
#undef FIELD
	{
		char *msg = NULL, *rule = NULL, *file = NULL;

		if (asprintf(&msg, "MESSAGE=%s", l->msg) > 0) {
			iov[n].iov_base = msg;
			iov[n++].iov_len = strlen(msg);
		}
		if (l->rule && asprintf(&rule, "RULE=%s", l->rule) > 0) {
			iov[n].iov_base = rule;
			iov[n++].iov_len = strlen(rule);
		}
		if (l->file && n < 12 && asprintf(&file, "CONFIG_FILE=%s", l->file) > 0) {
			iov[n].iov_base = file;
			iov[n++].iov_len = strlen(file);
		}
		sd.journal_sendv(iov, n);
		free(msg);
		free(rule);
		free(file);
	}
}
#endif

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
#ifdef HAVE_LIBSYSTEMD
	if (to_journal() && have_sd())
		journal(&e);
	else
#endif
		log_stderr(&e);
	free(msg);
	free(file);
}

static void notify_by_hand(const char *state)
{
	const char *path = getenv("NOTIFY_SOCKET");
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	socklen_t len;
	int fd;

	if (!path || (path[0] != '/' && path[0] != '@') || strlen(path) >= sizeof(sa.sun_path))
		return;
	strcpy(sa.sun_path, path);
	if (path[0] == '@')
		sa.sun_path[0] = '\0';
	len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + strlen(path));
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return;
	sendto(fd, state, strlen(state), MSG_NOSIGNAL, (struct sockaddr *)&sa, len);
	close(fd);
}

void watch_notify(void *data, const char *state)
{
#ifdef HAVE_LIBSYSTEMD
	if (have_sd()) {
		sd.notify(0, state);
		return;
	}
#endif
	notify_by_hand(state);
}

uint64_t watch_watchdog_usec(void)
{
	const char *u = getenv("WATCHDOG_USEC"), *p = getenv("WATCHDOG_PID");

#ifdef HAVE_LIBSYSTEMD
	if (have_sd()) {
		uint64_t usec = 0;

		return sd.watchdog_enabled(0, &usec) > 0 ? usec : 0;
	}
#endif
	if (!u || (p && atol(p) != (long)getpid()))
		return 0;
	return strtoull(u, NULL, 10);
}
