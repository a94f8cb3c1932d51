/*
 * The selector table (src/lib/selectors.c): its one setter (good and bad
 * values, lists replaced or added to, nothing changed on a refusal), and
 * the docs that list the selectors by hand: both man pages and the three
 * completions must name every row ($TESTS_SRCDIR/../man, ../completions).
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "uclamp/selectors.h"

static const struct uc_sel_def *def(const char *key)
{
	const struct uc_sel_def *d = uc_sel_find(key);

	if (!d)
		fail_msg("no selector '%s' in the table", key);
	return d;
}

/* set key = text on r: 0 or -EINVAL with err */
static int set(struct uc_rule *r, const char *key, const char *text, bool append, char *err)
{
	return uc_sel_set(r, def(key), text, append, err, 256);
}

static void test_lists(void **state)
{
	struct uc_rule r;
	char err[256];

	(void)state;
	uc_sel_rule_init(&r);
	assert_int_equal(set(&r, "comm", "cc1, ld\tas", false, err), 0);
	assert_int_equal(r.comm.n, 3);
	assert_string_equal(r.comm.v[2], "as");
	/* the command line adds (a repeated option), the config replaces (a later file) */
	assert_int_equal(set(&r, "comm", "make", true, err), 0);
	assert_int_equal(r.comm.n, 4);
	assert_int_equal(set(&r, "comm", "ninja", false, err), 0);
	assert_int_equal(r.comm.n, 1);
	assert_string_equal(r.comm.v[0], "ninja");
	/* cmdline: the whole value is one glob */
	assert_int_equal(set(&r, "cmdline", "*--type=renderer *", false, err), 0);
	assert_int_equal(r.cmdline.n, 1);
	assert_string_equal(r.cmdline.v[0], "*--type=renderer *");
	/* IDs */
	assert_int_equal(set(&r, "user", "0,0", false, err), 0);
	assert_int_equal(r.nuids, 2);
	assert_int_equal(set(&r, "policy", "batch SCHED_FIFO", false, err), 0);
	assert_int_equal(r.npolicies, 2);
	assert_int_equal(r.policies[0], 3);
	assert_int_equal(r.policies[1], 1);
	assert_int_equal(set(&r, "group", "0", true, err), 0);
	assert_int_equal(r.ngids, 1);
	/* flags */
	assert_int_equal(set(&r, "threads", "yes", false, err), 0);
	assert_true(r.threads);
	assert_true(uc_sel_given(&r, def("threads")));
	assert_true(uc_sel_given(&r, def("comm")));
	assert_false(uc_sel_given(&r, def("exe")));
	uc_sel_free(&r);
	assert_int_equal(r.comm.n, 0);
	assert_null(r.uids);
}

static void test_refused(void **state)
{
	static const struct {
		const char *key, *text, *msg;
	} bad[] = {
		{ "comm", "averyveryverylongname", "'averyveryverylongname' is longer than 15" },
		{ "parent", "x averyveryverylongname", "is longer than 15" },
		{ "comm", " , ", "the value is empty" },
		{ "cmdline", "", "the value is empty" },
		{ "user", "no-such-user-uclampctl", "unknown user 'no-such-user-uclampctl'" },
		{ "group", "no-such-group-uclampctl", "unknown group" },
		{ "policy", "turbo", "unknown policy 'turbo'" },
		{ "cgroup", "system.slice/../x", "has a '..' component" },
		{ "threads", "maybe", "'maybe' is neither yes nor no" },
		/* systemd's one rule: a unit type with a cgroup, a glob for part of a name */
		{ "unit", "foo.timer", "'foo.timer' is not a systemd unit name with a cgroup" },
		{ "unit", "*.timer", "give a .service, .scope, .slice" },
		{ "unit", "*", "is not a systemd unit name with a cgroup" },
		{ "unit", "a@.service", "is not a systemd unit name with a cgroup" },
		{ "unit", "system.slice/x.service", "is not a systemd unit name with a cgroup" },
	};
	struct uc_rule r;
	char err[256];

	(void)state;
	uc_sel_rule_init(&r);
	assert_int_equal(set(&r, "comm", "keep", false, err), 0);
	assert_int_equal(set(&r, "parent", "keep", false, err), 0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		assert_int_equal(set(&r, bad[i].key, bad[i].text, i % 2, err), -EINVAL);
		if (!strstr(err, bad[i].msg))
			fail_msg("%s = '%s': '%s' lacks '%s'", bad[i].key, bad[i].text, err,
				 bad[i].msg);
		assert_null(strchr(err, '\n'));	/* one line */
	}
	/* nothing changed by a refusal */
	assert_int_equal(r.comm.n, 1);
	assert_string_equal(r.comm.v[0], "keep");
	assert_int_equal(r.parent.n, 1);
	assert_int_equal(r.cmdline.n + r.nuids + r.ngids + r.npolicies + r.cgroup.n, 0);
	assert_false(r.threads);
	/* a glob may be longer than the kernel's comm limit: it can still match */
	assert_int_equal(set(&r, "comm", "averyveryverylongname*", false, err), 0);
	/* a glob token stands for part of a unit name */
	assert_int_equal(set(&r, "unit", "nginx@*.service user-*.slice s[0-9].scope", false, err), 0);
	assert_int_equal(r.unit.n, 3);
	uc_sel_free(&r);
}

/* Does the file hold the text, not followed by a letter, digit or '-' (--exe, not --exec)? */
static bool file_has(const char *path, const char *text)
{
	FILE *f = fopen(path, "r");
	static char buf[1 << 20];
	size_t n, tl = strlen(text);

	if (!f)
		fail_msg("cannot open %s", path);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	for (const char *s = strstr(buf, text); s; s = strstr(s + 1, text))
		if (!strchr("abcdefghijklmnopqrstuvwxyz0123456789-", s[tl]) || !s[tl] ||
		    strchr(" =", text[tl - 1]))
			return true;
	return false;
}

/* "kernel-threads" as roff writes it: "kernel\-threads" */
static void roff(const char *s, char *out, size_t n)
{
	size_t k = 0;

	for (; *s && k + 3 < n; s++) {
		if (*s == '-')
			out[k++] = '\\';
		out[k++] = *s;
	}
	out[k] = '\0';
}

/* uclampctl.conf(5) describes every selector; the other places that name them
 * take them from the table: 'task --help', and the completions, which read it
 * (test-completion.sh: every option of --help is offered). */
static void test_docs_name_every_selector(void **state)
{
	const char *src = getenv("TESTS_SRCDIR");
	char path[4096], want[256], r[128];

	(void)state;
	if (!src)
		skip();
	for (size_t i = 0; i < uc_sel_ndefs; i++) {
		const struct uc_sel_def *d = &uc_sel_defs[i];

		roff(d->key, r, sizeof(r));
		snprintf(path, sizeof(path), "%s/../man/uclampctl.conf.5", src);
		snprintf(want, sizeof(want), "%s \" = ", r);
		if (!file_has(path, want))
			fail_msg("uclampctl.conf(5) has no entry '%s' for the key %s", want, d->key);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lists),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_docs_name_every_selector),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
