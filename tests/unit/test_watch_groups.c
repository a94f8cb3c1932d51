/*
 * The daemon's [cgroup] sections (src/lib/watch_groups.c) on a fake cgroup
 * v2 tree, with real inotify: a group that does not exist yet is written
 * when it appears (also below ancestors that appear one by one), again when
 * it is removed and made anew, never before; a unit that is not running is
 * waited for where systemd will make its group (its slice); a lock held by
 * another writer puts the write off to a retry; the counters say it all;
 * no consent, no write.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "uclamp/cgroup.h"
#include "uclamp/lock.h"
#include "uclamp/systemd.h"
#include "uclamp/watch.h"
#include "fakeroot.h"

static char root[256];
static const struct fr_suite suite = { root, sizeof(root), "test-wgroups", true,
				       { "run", "cg", "etc" } };

/* A group with the files the kernel gives a group under cpu: the defaults. */
static void group(const char *rel)
{
	char p[512];

	snprintf(p, sizeof(p), "cg/%s/cpu.uclamp.min", rel);
	assert_int_equal(fr_write(root, p, "0.00\n"), 0);
	snprintf(p, sizeof(p), "cg/%s/cpu.uclamp.max", rel);
	assert_int_equal(fr_write(root, p, "max\n"), 0);
}

static void dir(const char *rel)
{
	char p[512];

	snprintf(p, sizeof(p), "cg/%s", rel);
	assert_int_equal(fr_mkdir(root, p), 0);
}

static void rm(const char *rel)
{
	char p[512];

	snprintf(p, sizeof(p), "cg/%s", rel);
	assert_int_equal(fr_remove(root, p), 0);
}

/* a group made (its directory and files), and the event it makes */
static void appears(struct uc_watch_groups *g, const char *rel)
{
	dir(rel);
	group(rel);
	uc_watch_groups_event(g);
}

/* The file's first line, "" when it is not there. */
static const char *val(const char *rel, const char *file)
{
	static char buf[64];
	char p[1024];
	FILE *f;

	snprintf(p, sizeof(p), "%s/cg/%s/%s", root, rel, file);
	buf[0] = '\0';
	if ((f = fopen(p, "r"))) {
		if (!fgets(buf, sizeof(buf), f))
			buf[0] = '\0';
		fclose(f);
	}
	buf[strcspn(buf, "\n")] = '\0';
	return buf;
}

static char last_log[1024];

static void log_cb(void *data, const struct uc_watch_log *l)
{
	(void)data;
	snprintf(last_log, sizeof(last_log), "%s", l->msg);
}

/* A daemon with the rules of text (written as etc/w.conf), its groups synced. */
static struct uc_watch *daemon_of(const char *text, bool yes, struct uc_watch_groups **g)
{
	struct uc_watch_opts o = { .yes = yes, .key = UC_KEY_OFF, .log = log_cb };
	struct uc_watch_ruleset rs;
	struct uc_watch *w;
	char path[512];
	const char *p = path;

	snprintf(path, sizeof(path), "%s/etc/w.conf", root);
	assert_int_equal(fr_write(root, "etc/w.conf", text), 0);
	assert_int_equal(uc_watch_new(&o, &w), 0);
	assert_int_equal(uc_watch_rules_load(&p, 1, &rs, NULL, NULL, NULL), 0);
	assert_true(rs.sets_clamps);	/* a [cgroup] section asks for consent at start */
	uc_watch_set_rules(w, &rs);
	assert_int_equal(uc_watch_groups_new(w, g), 0);
	assert_non_null(*g);
	uc_watch_groups_sync(*g, "start");
	return w;
}

static int setup(void **state)
{
	(void)state;
	assert_int_equal(fr_remove(root, "cg"), 0);
	assert_int_equal(fr_mkdir(root, "cg/app"), 0);
	assert_int_equal(fr_remove(root, "run/systemd"), 0);
	fr_cgroup(root, "cg", UC_CG_V2);
	last_log[0] = '\0';
	return 0;
}

static void test_appears_and_again(void **state)
{
	struct uc_watch_groups *g;
	struct uc_watch *w = daemon_of("[fast-path]\nallow-enable = yes\n"
				       "[cgroup app/svc]\nmax = 40%\n"
				       "[cgroup app2/deep/x]\nmin = 10%\n", false, &g);
	const struct uc_watch_stats *s = uc_watch_stats(w);

	(void)state;
	assert_int_equal(s->groups, 2);
	assert_int_equal(s->groups_waiting, 2);
	assert_int_equal(s->groups_applied, 0);

	/* appears: written at the event, not before */
	dir("app/svc");
	group("app/svc");
	assert_string_equal(val("app/svc", "cpu.uclamp.max"), "max");
	uc_watch_groups_event(g);
	assert_string_equal(val("app/svc", "cpu.uclamp.max"), "40.00");
	assert_string_equal(val("app/svc", "cpu.uclamp.min"), "0.00");	/* not set: left */
	assert_int_equal(s->groups_applied, 1);
	assert_int_equal(s->groups_waiting, 1);
	assert_non_null(strstr(last_log, "[cgroup app/svc] app/svc: cpu.uclamp.max max -> 40.00 "
				       "(appeared)"));
	/* an unrelated group in the same directory: nothing */
	appears(g, "app/other");
	assert_string_equal(val("app/other", "cpu.uclamp.max"), "max");
	assert_int_equal(s->groups_applied, 1);

	/* removed and made anew (a restarted service): a new group, written again */
	rm("app/svc");
	uc_watch_groups_event(g);
	appears(g, "app/svc");
	assert_string_equal(val("app/svc", "cpu.uclamp.max"), "40.00");
	assert_int_equal(s->groups_applied, 2);

	/* ancestors appear one by one: it waits in each, written at the end */
	dir("app2");
	uc_watch_groups_event(g);
	dir("app2/deep");
	uc_watch_groups_event(g);
	assert_int_equal(s->groups_applied, 2);
	assert_int_equal(s->groups_waiting, 1);
	appears(g, "app2/deep/x");
	assert_string_equal(val("app2/deep/x", "cpu.uclamp.min"), "10.00");
	assert_int_equal(s->groups_applied, 3);
	assert_int_equal(s->groups_waiting, 0);

	/* a sync of groups that match: read, nothing written */
	uc_watch_groups_sync(g, "reload");
	assert_int_equal(s->groups_applied, 3);
	assert_int_equal(s->groups_unchanged, 2);
	uc_watch_groups_free(g);
	uc_watch_free(w);
}

/* Another writer holds the lock: put off, retried, then written. */
static void test_lock_held(void **state)
{
	struct uc_lock other = { .fd = -1 };
	struct uc_watch_groups *g;
	struct uc_watch *w = daemon_of("[fast-path]\nallow-enable = yes\n"
				       "[cgroup app/svc]\nmax = 30%\n", false, &g);
	uint64_t now;

	(void)state;
	assert_int_equal(uc_lock_try(&other, NULL), 0);
	appears(g, "app/svc");
	assert_string_equal(val("app/svc", "cpu.uclamp.max"), "max");
	now = uc_now_ms();
	assert_true(uc_watch_groups_due(g, now) > 0);
	uc_lock_release(&other);
	uc_watch_groups_retry(g, now + 1000);
	assert_string_equal(val("app/svc", "cpu.uclamp.max"), "30.00");
	assert_int_equal(uc_watch_groups_due(g, uc_now_ms()), -1);
	uc_watch_groups_free(g);
	uc_watch_free(w);
}

/* No consent (no allow-enable, no --yes), key off: refused, counted, not written. */
static void test_no_consent(void **state)
{
	struct uc_watch_groups *g;
	struct uc_watch *w = daemon_of("[cgroup app/svc]\nmax = 30%\n", false, &g);

	(void)state;
	appears(g, "app/svc");
	assert_string_equal(val("app/svc", "cpu.uclamp.max"), "max");
	assert_int_equal(uc_watch_stats(w)->refused, 1);
	assert_non_null(strstr(last_log, "no consent"));
	uc_watch_groups_free(g);
	uc_watch_free(w);
}

/* A unit that is not running: waited for where systemd will make its group. */
static bool running;

static int sd_cgroup(const char *unit, char *cg, size_t n)
{
	if (strcmp(unit, "svc.service"))
		return -ENOENT;
	if (!running)
		return -ENOMEDIUM;
	snprintf(cg, n, "/app.slice/svc.service");
	return 0;
}

static int sd_slice(const char *unit, char *slice, size_t n)
{
	if (strcmp(unit, "svc.service"))
		return -ENOENT;
	snprintf(slice, n, "app.slice");
	return 0;
}

static const struct uc_sd_ops sd_ops = { .unit_cgroup = sd_cgroup, .unit_slice = sd_slice };

static void test_unit(void **state)
{
	struct uc_watch_groups *g;
	struct uc_watch *w;
	char rel[256];

	(void)state;
	assert_int_equal(fr_mkdir(root, "run/systemd/system"), 0);
	uc_sd_use(&sd_ops);
	/* where it will be: its slice's group (by the slice's name) and its name */
	assert_int_equal(uc_sd_unit_future_cgroup("svc.service", rel, sizeof(rel)), 0);
	assert_string_equal(rel, "app.slice/svc.service");
	assert_int_equal(uc_sd_unit_future_cgroup("a-b-c.slice", rel, sizeof(rel)), 0);
	assert_string_equal(rel, "a.slice/a-b.slice/a-b-c.slice");
	assert_int_equal(uc_sd_unit_future_cgroup("-.slice", rel, sizeof(rel)), 0);
	assert_string_equal(rel, "");
	assert_int_equal(uc_sd_unit_future_cgroup("no.service", rel, sizeof(rel)), -ENOENT);

	running = false;
	w = daemon_of("[fast-path]\nallow-enable = yes\n[cgroup svc.service]\nmax = 20%\n", false,
		      &g);
	assert_int_equal(uc_watch_stats(w)->groups_waiting, 1);
	dir("app.slice");
	uc_watch_groups_event(g);
	running = true;
	appears(g, "app.slice/svc.service");
	assert_string_equal(val("app.slice/svc.service", "cpu.uclamp.max"), "20.00");
	assert_int_equal(uc_watch_stats(w)->groups_applied, 1);
	uc_watch_groups_free(g);
	uc_watch_free(w);
	uc_sd_use(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_appears_and_again, setup),
		cmocka_unit_test_setup(test_lock_held, setup),
		cmocka_unit_test_setup(test_no_consent, setup),
		cmocka_unit_test_setup(test_unit, setup),
	};

	return fr_run(&suite, tests, NULL, NULL);
}
