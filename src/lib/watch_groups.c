/*
 * The daemon's [cgroup] sections: a group not there yet is applied when it
 * appears, and again when it is made anew. Each section waits in one
 * directory (its group's parent, else the deepest ancestor that exists) with
 * one inotify watch, shared between sections: bounded by the sections, never
 * the whole tree. A unit's group comes from systemd, running or to be.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <syslog.h>
#include <unistd.h>

#include "uclamp/cgroup.h"
#include "uclamp/config.h"
#include "uclamp/systemd.h"
#include "uclamp/watch.h"

#define WATCH_MASK (IN_CREATE | IN_MOVED_TO | IN_ONLYDIR)
#define RETRY_MS 1000

struct wgroup {
	struct uc_conf_cgroup *g;
	char rel[PATH_MAX];	/* where its group is, or will be; "" not known */
	size_t wait_len;	/* rel[0..wait_len) is the directory it waits in */
	int wd;			/* -1: none */
	bool present;		/* its group is there */
	bool pending;		/* to look at again: an event, a lock held by another */
	bool said;		/* why it cannot be placed, logged once */
};

struct uc_watch_groups {
	struct uc_watch *w;
	struct uc_config *cfg;
	struct uc_cg_info info;
	int ino;
	struct wgroup *v;
	size_t n;
	uint64_t retry_at;	/* monotonic ms; 0: none */
};

int uc_watch_groups_new(struct uc_watch *w, struct uc_watch_groups **out)
{
	const struct uc_watch_ruleset *rs = uc_watch_rules(w);
	struct uc_watch_groups *g;

	*out = NULL;
	uc_watch_note_groups(w, 0, 0);
	if (!rs || !rs->config || !rs->config->ncgroups)
		return 0;
	g = calloc(1, sizeof(*g));
	if (!g || !(g->v = calloc(rs->config->ncgroups, sizeof(*g->v)))) {
		free(g);
		return -ENOMEM;
	}
	g->w = w;
	g->cfg = rs->config;
	g->n = rs->config->ncgroups;
	for (size_t i = 0; i < g->n; i++) {
		g->v[i].g = &g->cfg->cgroups[i];
		g->v[i].wd = -1;
	}
	g->ino = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (g->ino < 0) {
		int rc = -errno;

		uc_watch_groups_free(g);
		return rc;
	}
	*out = g;
	return 0;
}

void uc_watch_groups_free(struct uc_watch_groups *g)
{
	if (!g)
		return;
	if (g->ino >= 0)
		close(g->ino);	/* its watches go with it */
	free(g->v);
	free(g);
}

int uc_watch_groups_fd(const struct uc_watch_groups *g)
{
	return g ? g->ino : -1;
}

/* ---- where a section's group is, or will be ------------------------------------ */

/* A path as written, relative to the mount: "/sys/fs/cgroup/a" and "/a" are "a". */
static int path_rel(const struct uc_watch_groups *g, const char *path, char *rel, size_t n)
{
	size_t ml = strlen(g->info.mount);

	if (!strncmp(path, g->info.mount, ml) && (path[ml] == '/' || !path[ml]))
		path += ml;
	while (*path == '/')
		path++;
	if (uc_cg_path_escapes(path))
		return -EXDEV;
	return (size_t)snprintf(rel, n, "%s", path) >= n ? -ENAMETOOLONG : 0;
}

/*
 * x->rel: 0 when the group is there, 1 when it is not (rel: where it will
 * be), or -errno when that cannot be told (no systemd to ask, a path that
 * leaves the hierarchy).
 */
static int locate(struct uc_watch_groups *g, struct wgroup *x)
{
	const char *path = x->g->path;
	int rc = uc_cg_resolve_name(&g->info, path, x->rel, sizeof(x->rel));

	if (!rc)
		return 0;
	if (rc == -ENOENT && !uc_sd_unit_name_ok(path)) {
		rc = path_rel(g, path, x->rel, sizeof(x->rel));
		return rc ? rc : 1;
	}
	if (rc == -ENOENT || rc == -ENOMEDIUM) {
		/* a unit that is not running: where systemd will make its group */
		rc = uc_sd_unit_future_cgroup(path, x->rel, sizeof(x->rel));
		if (!rc)
			return 1;
	}
	x->rel[0] = '\0';
	return rc < 0 ? rc : -EIO;
}

static bool group_dir(const struct uc_watch_groups *g, const char *rel, size_t len)
{
	char p[PATH_MAX * 2];
	struct stat st;

	snprintf(p, sizeof(p), "%s/%.*s", g->info.mount, (int)len, rel);
	return !stat(p, &st) && S_ISDIR(st.st_mode);
}

/* A watch no section waits on any more: dropped, so it wakes nobody. */
static void drop_watch(struct uc_watch_groups *g, int wd)
{
	if (wd < 0)
		return;
	for (size_t i = 0; i < g->n; i++)
		if (g->v[i].wd == wd)
			return;
	inotify_rm_watch(g->ino, wd);
}

/* Watch the directory x waits in: its group's parent, or the deepest
 * ancestor there is. Sets x->present. */
static int arm(struct uc_watch_groups *g, struct wgroup *x)
{
	char dir[PATH_MAX * 2];
	size_t len = 0, next;
	int old = x->wd;

	/* the deepest ancestor that exists, one component at a time */
	for (;;) {
		next = len + (len > 0);
		while (x->rel[next] && x->rel[next] != '/')
			next++;
		if (!x->rel[next] || !group_dir(g, x->rel, next))
			break;
		len = next;
	}
	x->present = !x->rel[next] && group_dir(g, x->rel, next);
	x->wait_len = len;
	snprintf(dir, sizeof(dir), "%s/%.*s", g->info.mount, (int)len, x->rel);
	x->wd = inotify_add_watch(g->ino, dir, WATCH_MASK);
	if (x->wd < 0)
		return -errno;
	if (old != x->wd)
		drop_watch(g, old);
	return 0;
}

/* The name x waits for in its directory: the next component of its path. */
static const char *awaited(const struct wgroup *x, size_t *len)
{
	const char *s = x->rel + x->wait_len;

	while (*s == '/')
		s++;
	*len = strcspn(s, "/");
	return s;
}

/* ---- applying ------------------------------------------------------------------ */

struct group_plan {
	struct uc_watch_groups *g;
	struct wgroup *x;
};

/* Every section naming x's group, merged as apply does (a later one wins per key). */
static int plan_one(struct uc_plan *p, void *data)
{
	struct group_plan *gp = data;
	struct uc_config *c = gp->g->cfg;
	int min = UC_KEEP, max = UC_KEEP, rc;

	for (size_t i = 0; i < gp->g->n; i++) {
		const struct wgroup *y = &gp->g->v[i];

		if (!y->present || strcmp(y->rel, gp->x->rel))
			continue;
		if (y->g->min.set)
			min = uc_conf_cg_pct(&y->g->min, false);
		if (y->g->max.set)
			max = uc_conf_cg_pct(&y->g->max, true);
	}
	uc_config_skips_reset(c);
	rc = uc_config_plan_group(c, gp->x->g, gp->x->rel, min, max, p);
	if (rc == 1 && c->nskips > c->nskips_load)
		uc_watch_logf(gp->g->w, LOG_WARNING, "[cgroup %s] (%s:%d): skipped: %s",
			      gp->x->g->path, gp->x->g->loc.file, gp->x->g->loc.line,
			      c->skips[c->nskips - 1].why);
	else if (rc < 0 && c->nerrors)
		uc_watch_logf(gp->g->w, LOG_ERR, "[cgroup %s] (%s:%d): %s", gp->x->g->path,
			      gp->x->g->loc.file, gp->x->g->loc.line,
			      c->errors[c->nerrors - 1].msg);
	return rc;
}

static void apply(struct uc_watch_groups *g, struct wgroup *x, const char *reason)
{
	struct group_plan gp = { g, x };
	char what[PATH_MAX + 16];
	int rc;

	snprintf(what, sizeof(what), "[cgroup %s]", x->g->path);
	rc = uc_watch_run_group(g->w, plan_one, &gp, what, reason);
	/* one plan covers every section naming the group */
	for (size_t i = 0; i < g->n; i++)
		if (g->v[i].present && !strcmp(g->v[i].rel, x->rel))
			g->v[i].pending = rc == -EBUSY;
	if (rc == -EBUSY)
		g->retry_at = uc_now_ms() + RETRY_MS;
}

/* Locate, watch, and apply when the group is there. */
static void sync_one(struct uc_watch_groups *g, struct wgroup *x, const char *reason)
{
	int rc = locate(g, x);

	x->pending = false;
	x->present = false;
	if (rc >= 0)
		rc = arm(g, x);
	if (rc < 0) {
		int old = x->wd;

		x->wd = -1;
		drop_watch(g, old);
		if (!x->said)
			uc_watch_logf(g->w, LOG_WARNING, "[cgroup %s] (%s:%d): cannot tell where "
				      "its group will appear (%s): it is looked at again at the "
				      "next reload", x->g->path, x->g->loc.file, x->g->loc.line,
				      strerror(-rc));
		x->said = true;
		return;
	}
	x->said = false;
	if (!x->present) {
		size_t len;
		const char *name = awaited(x, &len);

		uc_watch_logf(g->w, LOG_DEBUG, "[cgroup %s]: waiting for '%.*s' in '%.*s' (its "
			      "group will be '%s')", x->g->path, (int)len, name, (int)x->wait_len,
			      x->rel, x->rel);
		return;
	}
	apply(g, x, reason);
}

static void count(struct uc_watch_groups *g)
{
	size_t waiting = 0;

	for (size_t i = 0; i < g->n; i++)
		waiting += !g->v[i].present;
	uc_watch_note_groups(g->w, g->n, waiting);
}

void uc_watch_groups_sync(struct uc_watch_groups *g, const char *reason)
{
	if (!g)
		return;
	if (uc_cg_init(&g->info)) {
		uc_watch_logf(g->w, LOG_WARNING, "no cgroup hierarchy with the cpu controller: "
			      "the [cgroup] sections wait for the next reload");
		return;
	}
	for (size_t i = 0; i < g->n; i++)
		sync_one(g, &g->v[i], reason);
	count(g);
}

void uc_watch_groups_event(struct uc_watch_groups *g)
{
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	bool all = false, any = false;
	ssize_t n;

	while ((n = read(g->ino, buf, sizeof(buf))) > 0) {
		for (char *p = buf; p < buf + n;) {
			const struct inotify_event *ev = (const struct inotify_event *)p;

			/* events were lost: look at every section again */
			all |= (ev->mask & IN_Q_OVERFLOW) != 0;
			for (size_t i = 0; i < g->n; i++) {
				struct wgroup *x = &g->v[i];
				size_t len;
				const char *name = awaited(x, &len);

				if (x->wd != ev->wd)
					continue;
				/* its directory went away (IN_IGNORED), or its name came */
				if ((ev->mask & IN_IGNORED) ||
				    (ev->len && !strncmp(ev->name, name, len) && !ev->name[len]))
					x->pending = any = true;
			}
			p += sizeof(*ev) + ev->len;
		}
	}
	for (size_t i = 0; i < g->n; i++)
		if (all || g->v[i].pending)
			sync_one(g, &g->v[i], "appeared");
	if (all || any)
		count(g);
}

long uc_watch_groups_due(const struct uc_watch_groups *g, uint64_t now_ms)
{
	if (!g || !g->retry_at)
		return -1;
	return now_ms >= g->retry_at ? 0 : (long)(g->retry_at - now_ms);
}

void uc_watch_groups_retry(struct uc_watch_groups *g, uint64_t now_ms)
{
	(void)now_ms;
	g->retry_at = 0;
	for (size_t i = 0; i < g->n; i++)
		if (g->v[i].pending)
			sync_one(g, &g->v[i], "retry");
	count(g);
}
