/*
 * The daemon's one event loop: epoll over the connector socket, a signalfd,
 * inotify on the configuration and on the directories [cgroup] sections wait
 * in, a timerfd for debounced work (rescans at most one a second, reloads,
 * re-checks, groups put off by a held lock), the status socket, and a watchdog
 * timer only when systemd asks: nothing fires while nothing happens. At start:
 * subscribe and wait for the ack, scan /proc once, READY=1, events: a process
 * that starts in between is in the scan or in the events.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/inotify.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <syslog.h>
#include <unistd.h>

#include "uclamp/procevents.h"
#include "uclamp/sysroot.h"
#include "uclamp/watch.h"

#define RELOAD_DEBOUNCE_MS 200
#define ACK_TIMEOUT_MS 3000
#define READ_BATCH 256
/* work per wakeup: a storm that fills the socket as fast as it is read must
 * not keep the loop from its signals, the watchdog and the status socket
 * (epoll is level-triggered: the rest comes next round). A time, not a count:
 * an event costs a millisecond under emulation, microseconds on hardware. */
#define DRAIN_BUDGET_MS 100
#define BASE_EVENTS (UC_PEV_EXEC | UC_PEV_COMM)

enum { K_NL, K_SIG, K_INO, K_TIMER, K_WDOG, K_STATUS, K_GROUPS };

struct loop {
	struct uc_watch *w;
	const struct uc_watch_loop_opts *lo;
	struct uc_procev *pe;
	/* what we subscribed to (0: everything, pre-6.6 form) */
	uint32_t mask;
	/* the socket filter is on: exits and threads' forks never reach us */
	bool bpf;
	int ep, sfd, ino, tfd, wfd;
	struct uc_watch_listener ls;	/* the status socket */
	struct uc_watch_groups *groups;	/* the rules' [cgroup] sections; NULL: none */
	uint64_t reload_at;		/* monotonic ms; 0: none pending */
	bool stop;
	sigset_t old_mask, stop_set;
	struct sigaction old_int, old_term;
	bool handlers;			/* old_int/old_term hold what to restore */
	/* watched file names per inotify wd (files in a parent dir) */
	char names[16][NAME_MAX + 1];
	int name_wd[16];
	size_t nnames;
};

static void notify(struct loop *l, const char *state)
{
	if (l->lo->notify)
		l->lo->notify(l->lo->data, state);
}

static void notify_status(struct loop *l)
{
	const struct uc_watch_stats *s = uc_watch_stats(l->w);
	uint64_t rescans = 0;
	char buf[256];

	for (int i = 0; i < UC_RESCAN_NCAUSES; i++)
		rescans += s->rescans[i];
	snprintf(buf, sizeof(buf),
		 "STATUS=rules generation %llu (%llu rules), %llu tracked, %llu applied, "
		 "%llu rescans, %llu errors",
		 (unsigned long long)s->generation, (unsigned long long)s->rules,
		 (unsigned long long)s->tracked, (unsigned long long)s->applied,
		 (unsigned long long)rescans, (unsigned long long)s->errors_total);
	notify(l, buf);
}

static int ep_add(struct loop *l, int fd, uint64_t key)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.u64 = key };

	return epoll_ctl(l->ep, EPOLL_CTL_ADD, fd, &ev) < 0 ? -errno : 0;
}

/*
 * The [cgroup] sections of the rules now in force, looked at once (their
 * groups applied when there, watched for otherwise). Called with the
 * rules' first generation and after every reload that takes: the old
 * watcher points into the old rules' configuration.
 */
static void groups_start(struct loop *l, const char *reason)
{
	int rc = uc_watch_groups_new(l->w, &l->groups);

	if (!rc && !l->groups)
		return;
	if (!rc && !(rc = ep_add(l, uc_watch_groups_fd(l->groups), K_GROUPS))) {
		uc_watch_groups_sync(l->groups, reason);
		return;
	}
	uc_watch_logf(l->w, LOG_ERR, "cannot watch for the [cgroup] sections' groups: %s",
		      strerror(-rc));
	uc_watch_groups_free(l->groups);
	l->groups = NULL;
}

static void groups_stop(struct loop *l)
{
	/* closing the inotify fd takes it out of the epoll set */
	uc_watch_groups_free(l->groups);
	l->groups = NULL;
}

/*
 * What the rules need from the kernel. Exits only free table entries: with
 * the socket filter on they stay in the kernel (a fork storm of processes no
 * rule matches wakes us for nothing) and the table forgets lazily (watch_core.c).
 */
static uint32_t want_mask(const struct loop *l)
{
	const struct uc_watch_ruleset *rs = uc_watch_rules(l->w);

	return BASE_EVENTS | (l->bpf ? 0 : UC_PEV_EXIT) | (rs ? rs->events : 0);
}

/* (Re)build the socket filter from the rules; off when the kernel refuses it. */
static void set_filter(struct loop *l)
{
	l->bpf = true;	/* first: want_mask() leaves exits out for the filter */
	if (uc_procev_set_filter(l->pe, want_mask(l)))
		l->bpf = false;	/* no filter at all: every event comes */
	uc_watch_set_lazy_exits(l->w, l->bpf);
}

static int subscribe(struct loop *l)
{
	/* before 6.6 the 8-byte request is dropped without an answer: do not wait for it */
	uint32_t mask;
	int rc;

	set_filter(l);	/* first: the ack passes it, events after it are filtered */
	mask = uc_kernel_version() >= UC_KVER(6, 6, 0) ? want_mask(l) : 0;
	rc = uc_procev_subscribe(l->pe, true, mask, ACK_TIMEOUT_MS);
	if (rc)
		return rc;
	l->mask = uc_procev_filtered(l->pe) ? mask : 0;
	/* filtered events still use up sequence numbers: gaps mean nothing then */
	uc_watch_set_seq_check(l->w, !uc_procev_filtered(l->pe) && !l->bpf);
	return 0;
}

/* ---- inotify on the configuration ---------------------------------------- */

/* Watch the name 'name' in the directory 'dir' (once). */
static void watch_name(struct loop *l, const char *dir, const char *name, uint32_t m)
{
	int wd = inotify_add_watch(l->ino, *dir ? dir : "/", m);

	if (wd < 0)
		return;
	for (size_t i = 0; i < l->nnames; i++)
		if (l->name_wd[i] == wd && !strcmp(l->names[i], name))
			return;
	if (l->nnames == sizeof(l->names) / sizeof(l->names[0]))
		return;
	snprintf(l->names[l->nnames], sizeof(l->names[0]), "%s", name);
	l->name_wd[l->nnames++] = wd;
}

/* Watch every configuration path: a directory for its *.conf, every path by
 * name in its parent (editors rename; a drop-in directory may come later).
 * Again before each reload; watching a watched directory gives the same watch. */
static void watch_config(struct loop *l)
{
	const uint32_t m = IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_CREATE | IN_DELETE |
			   IN_ATTRIB;

	for (size_t i = 0; i < l->lo->nconfig; i++) {
		char path[PATH_MAX], *slash;
		struct stat st;
		size_t len;

		if (uc_path(path, sizeof(path), l->lo->config_paths[i]))
			continue;
		len = strlen(path);
		while (len > 1 && path[len - 1] == '/')
			path[--len] = '\0';	/* "DIR/": a directory that may be missing */
		if (!stat(path, &st) && S_ISDIR(st.st_mode))
			inotify_add_watch(l->ino, path, m);
		slash = strrchr(path, '/');
		if (!slash || !slash[1])
			continue;
		*slash = '\0';
		watch_name(l, path, slash + 1, m);
	}
}

/* Does this event concern the configuration? In a watched file's parent
 * directory only that file does; in a config directory, *.conf does. */
static bool relevant(const struct loop *l, const struct inotify_event *ev)
{
	bool file_dir = false;
	size_t len;

	for (size_t i = 0; i < l->nnames; i++) {
		if (l->name_wd[i] != ev->wd)
			continue;
		file_dir = true;
		if (ev->len && !strcmp(ev->name, l->names[i]))
			return true;
	}
	if (file_dir || !ev->len)
		return false;
	len = strlen(ev->name);
	return len > 5 && !strcmp(ev->name + len - 5, ".conf");
}

static void on_inotify(struct loop *l)
{
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	ssize_t n;

	while ((n = read(l->ino, buf, sizeof(buf))) > 0) {
		for (char *p = buf; p < buf + n;) {
			struct inotify_event *ev = (struct inotify_event *)p;

			if (relevant(l, ev) && !l->reload_at)
				l->reload_at = uc_now_ms() + RELOAD_DEBOUNCE_MS;
			p += sizeof(*ev) + ev->len;
		}
	}
}

/* ---- reload ------------------------------------------------------------------ */

static void reload(struct loop *l, const char *why)
{
	struct uc_watch_ruleset rs = { 0 };
	const struct uc_watch_stats *s;
	char buf[96];
	int rc;

	l->reload_at = 0;
	watch_config(l);
	snprintf(buf, sizeof(buf), "RELOADING=1\nMONOTONIC_USEC=%llu",
		 (unsigned long long)uc_now_ms() * 1000ull);
	notify(l, buf);
	rc = l->lo->load(l->lo->data, &rs);
	s = uc_watch_stats(l->w);
	if (rc || (l->lo->may_run && !l->lo->may_run(l->lo->data, &rs))) {
		if (!rc && rs.ops && rs.ops->free)
			rs.ops->free(rs.rules);
		bool withdrawn = uc_watch_note_reload(l->w, false);

		uc_watch_logf(l->w, LOG_ERR,
			      "reload (%s) failed: keeping the rules of generation %llu%s", why,
			      (unsigned long long)s->generation,
			      withdrawn ? " without their consent (allow-enable): nothing that "
			      "would enable the uclamp fast path is written until a reload "
			      "takes" : "");
	} else {
		groups_stop(l);
		uc_watch_set_rules(l->w, &rs);
		uc_watch_note_reload(l->w, true);
		uc_watch_logf(l->w, LOG_INFO, "reload (%s): rules generation %llu, %llu rule(s)",
			      why, (unsigned long long)s->generation, (unsigned long long)s->rules);
		/* a filter that lacks what the new rules need: ask again */
		if (l->bpf)
			set_filter(l);
		if (l->mask && (want_mask(l) & ~l->mask) && subscribe(l))
			uc_watch_logf(l->w, LOG_WARNING,
				      "could not widen the event subscription; rescans cover it");
		uc_watch_mark_dirty(l->w, UC_RESCAN_RELOAD);
		groups_start(l, "reload");
	}
	notify(l, "READY=1");
	notify_status(l);
}

/* ---- the loop ------------------------------------------------------------------ */

/*
 * SIGTERM/SIGINT while work runs: the handler sets the flag that the core
 * reads between writes (the write under way finishes, the batch stops).
 * While the loop sleeps they stay blocked and come through the signalfd.
 */
static volatile sig_atomic_t stop_sig;

static void on_stop_signal(int sig)
{
	stop_sig = sig;
}

static void work_begin(struct loop *l)
{
	sigprocmask(SIG_UNBLOCK, &l->stop_set, NULL);
}

static void work_end(struct loop *l)
{
	sigprocmask(SIG_BLOCK, &l->stop_set, NULL);
	if (stop_sig)
		l->stop = true;
}

static int push_cb(const struct uc_pev *ev, void *data)
{
	struct uc_watch *w = data;

	uc_watch_push(w, ev);
	return 0;
}

/* Drain the socket, handling events as they come: read a batch, handle it. */
static void on_netlink(struct loop *l)
{
	uint64_t until = uc_now_ms() + DRAIN_BUDGET_MS;

	while (uc_now_ms() < until) {
		int n = uc_procev_read(l->pe, push_cb, l->w, READ_BATCH);

		if (n == -ENOBUFS) {
			uc_watch_overrun(l->w);
			continue;	/* the socket stays usable: keep reading */
		}
		if (n < 0) {
			uc_watch_logf(l->w, LOG_ERR, "reading proc events: %s", strerror(-n));
			uc_watch_overrun(l->w);
			break;
		}
		uc_watch_process(l->w, SIZE_MAX);
		if (n == 0 || stop_sig)
			break;
	}
}

static void on_signal(struct loop *l)
{
	struct signalfd_siginfo si;

	while (read(l->sfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		if (si.ssi_signo == SIGHUP)
			reload(l, "SIGHUP");
		else
			l->stop = true;
	}
}

/* The nearer of two delays in ms (-1: none). */
static long sooner(long a, long b)
{
	return a < 0 || (b >= 0 && b < a) ? b : a;
}

/* Arm the one-shot timer for the nearest of: a pending rescan, a re-check
 * for drift, a group retry, the summary of suppressed log lines, a pending reload. */
static void arm_timer(struct loop *l)
{
	uint64_t now = uc_now_ms();
	long next = sooner(uc_watch_rescan_due(l->w, now), uc_watch_recheck_due(l->w, now));
	struct itimerspec its = { 0 };

	next = sooner(next, uc_watch_groups_due(l->groups, now));
	next = sooner(next, uc_watch_log_due(l->w, now));
	if (l->reload_at)
		next = sooner(next, l->reload_at > now ? (long)(l->reload_at - now) : 0);
	if (next >= 0) {
		if (next == 0)
			next = 1;	/* 0 would disarm */
		its.it_value.tv_sec = next / 1000;
		its.it_value.tv_nsec = (next % 1000) * 1000000L;
	}
	timerfd_settime(l->tfd, 0, &its, NULL);
}

static void on_timer(struct loop *l)
{
	uint64_t exp, now = uc_now_ms();

	if (read(l->tfd, &exp, sizeof(exp)) < 0 && errno != EAGAIN)
		return;
	uc_watch_log_tick(l->w, now);
	if (l->reload_at && l->reload_at <= now)
		reload(l, "configuration changed");
}

static void maybe_rescan(struct loop *l)
{
	uint64_t now = uc_now_ms();

	if (uc_watch_rescan_due(l->w, now) == 0) {
		int rc = uc_watch_rescan(l->w, UC_RESCAN_START, now);

		if (rc)
			uc_watch_logf(l->w, LOG_ERR, "rescan: cannot read /proc: %s",
				      strerror(-rc));
		notify_status(l);
	}
	if (uc_watch_recheck_due(l->w, now) == 0)
		uc_watch_recheck(l->w, now);
	if (uc_watch_groups_due(l->groups, now) == 0)
		uc_watch_groups_retry(l->groups, now);
}

static int setup(struct loop *l)
{
	struct sigaction sa = { .sa_handler = on_stop_signal };
	sigset_t set;
	int rc;

	sigemptyset(&l->stop_set);
	sigaddset(&l->stop_set, SIGTERM);
	sigaddset(&l->stop_set, SIGINT);
	set = l->stop_set;
	sigaddset(&set, SIGHUP);
	if (sigprocmask(SIG_BLOCK, &set, &l->old_mask) < 0)
		return -errno;
	sigemptyset(&sa.sa_mask);
	stop_sig = 0;
	if (sigaction(SIGTERM, &sa, &l->old_term) < 0 || sigaction(SIGINT, &sa, &l->old_int) < 0)
		return -errno;
	l->handlers = true;
	l->sfd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	l->ep = epoll_create1(EPOLL_CLOEXEC);
	l->ino = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	l->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (l->sfd < 0 || l->ep < 0 || l->ino < 0 || l->tfd < 0)
		return -errno;
	rc = uc_procev_open(&l->pe, l->lo->rcvbuf ? l->lo->rcvbuf : 16 << 20);
	if (rc)
		return rc;
	rc = subscribe(l);
	if (rc)
		return rc;
	watch_config(l);
	if ((rc = ep_add(l, uc_procev_fd(l->pe), K_NL)) || (rc = ep_add(l, l->sfd, K_SIG)) ||
	    (rc = ep_add(l, l->ino, K_INO)) || (rc = ep_add(l, l->tfd, K_TIMER)))
		return rc;
	if (l->lo->status_socket) {
		pid_t owner;

		rc = uc_watch_status_listen(l->lo->status_socket, &l->ls, &owner);
		/* another daemon serves it: two would fight over the same tasks */
		if (rc == -EADDRINUSE)
			return rc;
		if (rc)
			uc_watch_logf(l->w, LOG_WARNING, "no status socket at %s: %s",
				      l->lo->status_socket, strerror(-rc));
		else if ((rc = ep_add(l, l->ls.fd, K_STATUS)))
			return rc;
	}
	if (l->lo->watchdog_usec) {
		uint64_t half = l->lo->watchdog_usec / 2;
		struct timespec ts = { (time_t)(half / 1000000), (long)(half % 1000000) * 1000 };
		struct itimerspec its = { .it_value = ts, .it_interval = ts };

		l->wfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
		if (l->wfd < 0 || timerfd_settime(l->wfd, 0, &its, NULL) < 0)
			return -errno;
		if ((rc = ep_add(l, l->wfd, K_WDOG)))
			return rc;
	}
	return 0;
}

static void teardown(struct loop *l)
{
	int fds[] = { l->ep, l->sfd, l->ino, l->tfd, l->wfd };

	groups_stop(l);
	if (l->pe) {
		/* unsubscribe: no ack is normal when we were the last listener */
		uc_procev_subscribe(l->pe, false, 0, 200);
		uc_procev_close(l->pe);
	}
	if (l->lo->status_socket)
		uc_watch_status_close(&l->ls, l->lo->status_socket);
	for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++)
		if (fds[i] >= 0)
			close(fds[i]);
	sigprocmask(SIG_SETMASK, &l->old_mask, NULL);
	if (l->handlers) {
		sigaction(SIGTERM, &l->old_term, NULL);
		sigaction(SIGINT, &l->old_int, NULL);
	}
}

int uc_watch_run(struct uc_watch *w, const struct uc_watch_loop_opts *lo)
{
	struct loop l = {
		.w = w, .lo = lo, .ep = -1, .sfd = -1, .ino = -1, .tfd = -1, .wfd = -1,
		.ls = { .fd = -1 },
	};
	const struct uc_watch_stats *s;
	int rc = setup(&l);

	if (rc)
		goto out;
	uc_watch_set_stop(w, &stop_sig);
	work_begin(&l);
	rc = uc_watch_rescan(w, UC_RESCAN_START, uc_now_ms());
	work_end(&l);
	if (rc)
		goto out;
	/*
	 * events that came during the scan are handled by the loop: the scan
	 * saw their processes too
	 */
	work_begin(&l);
	groups_start(&l, "start");
	work_end(&l);
	notify(&l, "READY=1");
	notify_status(&l);
	s = uc_watch_stats(w);
	uc_watch_logf(w, LOG_INFO, "watching: %llu rule(s), %llu [cgroup] section(s) (%llu "
		      "waiting for their group), %s events%s", (unsigned long long)s->rules,
		      (unsigned long long)s->groups, (unsigned long long)s->groups_waiting,
		      l.bpf ? "socket-filtered" : l.mask ? "filtered" : "all",
		      s->applied ? "; running processes clamped" : "");
	while (!l.stop) {
		struct epoll_event evs[8];
		int n;

		arm_timer(&l);
		n = epoll_wait(l.ep, evs, 8, -1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = -errno;
			break;
		}
		work_begin(&l);
		for (int i = 0; i < n; i++) {
			switch (evs[i].data.u64) {
			case K_NL:
				on_netlink(&l);
				break;
			case K_SIG:
				on_signal(&l);
				break;
			case K_INO:
				on_inotify(&l);
				break;
			case K_TIMER:
				on_timer(&l);
				break;
			case K_WDOG: {
				uint64_t exp;

				if (read(l.wfd, &exp, sizeof(exp)) > 0)
					notify(&l, "WATCHDOG=1");
				break;
			}
			case K_STATUS:
				uc_watch_status_serve(w, l.ls.fd);
				break;
			case K_GROUPS:
				if (l.groups)
					uc_watch_groups_event(l.groups);
				break;
			}
		}
		maybe_rescan(&l);
		work_end(&l);
	}
	notify(&l, "STOPPING=1");
out:
	teardown(&l);
	return rc;
}
