/*
 * [tasks NAME] sections of the configuration (see config.h): the keys
 * (selectors and settings) and the checks that need every file.
 * config.c reads the lines and calls uc_conf_tasks_key for each key of a
 * [tasks] section.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "uclamp/config.h"
#include "uclamp/sched.h"

static void free_words(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

void uc_conf_tasks_free(struct uc_conf_tasks *t)
{
	free(t->name);
	free_words(t->comms, t->ncomms);
	free(t->uids);
	free(t->policies);
}

/* Split a list at white space and commas into a NULL-free vector of copies. */
static int split_list(const char *s, char ***out, size_t *n)
{
	const char *sep = " \t,";
	char **v = NULL;
	size_t k = 0;

	while (*s) {
		size_t len;
		char **nv;

		s += strspn(s, sep);
		len = strcspn(s, sep);
		if (!len)
			break;
		nv = realloc(v, (k + 1) * sizeof(*v));
		if (!nv || !(nv[k] = strndup(s, len))) {
			free_words(nv ? nv : v, k);
			return -ENOMEM;
		}
		v = nv;
		k++;
		s += len;
	}
	*out = v;
	*n = k;
	return 0;
}

static int parse_uid(const char *s, uid_t *uid)
{
	struct passwd *pw = getpwnam(s);
	unsigned long v;
	char *end;

	if (pw) {
		*uid = pw->pw_uid;
		return 0;
	}
	errno = 0;
	v = strtoul(s, &end, 10);
	if (!*s || errno || *end || !isdigit((unsigned char)s[0]) || v >= (unsigned long)(uid_t)-1)
		return -EINVAL;
	*uid = (uid_t)v;
	return 0;
}

/* The checks below record their errors; they return false when one failed,
 * or -ENOMEM through *err. */
struct ctx {
	struct uc_config *c;
	const struct uc_conf_loc *loc;
	const char *sec;
	int err;
};

#define ERR(x, ...) do { \
	if (uc_config_error((x)->c, (x)->loc, -EINVAL, __VA_ARGS__)) \
		(x)->err = -ENOMEM; \
} while (0)

static bool check_comms(struct ctx *x, char **words, size_t n)
{
	bool ok = true;

	for (size_t i = 0; i < n; i++)
		if (strlen(words[i]) > UC_COMM_MAX) {
			ERR(x, "comm '%s' in %s is longer than %d characters, the kernel's limit, so it never matches (use its first %d)",
			    words[i], x->sec, UC_COMM_MAX, UC_COMM_MAX);
			ok = false;
		}
	return ok;
}

/* Names -> uids / policy numbers in out[] (n ints or uid_t). False when one is unknown. */
static bool resolve_users(struct ctx *x, char **words, size_t n, uid_t *out)
{
	bool ok = true;

	for (size_t i = 0; i < n; i++)
		if (parse_uid(words[i], &out[i])) {
			ERR(x, "unknown user '%s' in %s: use a user name or a numeric UID", words[i], x->sec);
			ok = false;
		}
	return ok;
}

static bool resolve_policies(struct ctx *x, char **words, size_t n, int *out)
{
	bool ok = true;

	for (size_t i = 0; i < n; i++) {
		out[i] = uc_policy_parse(words[i]);
		if (out[i] < 0) {
			ERR(x, "unknown policy '%s' in %s: use other, batch, idle, fifo, rr, deadline or ext",
			    words[i], x->sec);
			ok = false;
		}
	}
	return ok;
}

enum list { L_COMM, L_USER, L_POLICY };

/* comm, user, policy: a list that replaces the one of an earlier file. */
static void set_list(struct ctx *x, struct uc_conf_tasks *t, enum list k, const char *key, const char *val)
{
	char **words;
	size_t n;
	void *ids = NULL;
	bool ok;

	if (split_list(val, &words, &n)) {
		x->err = -ENOMEM;
		return;
	}
	if (!n) {
		ERR(x, "%s in %s is empty: give one or more names", key, x->sec);
		free(words);
		return;
	}
	if (k == L_COMM) {
		if (!check_comms(x, words, n)) {
			free_words(words, n);
			return;
		}
		free_words(t->comms, t->ncomms);
		t->comms = words;
		t->ncomms = n;
		t->comm_set = true;
		t->comm_loc = *x->loc;
		return;
	}
	ids = calloc(n, k == L_USER ? sizeof(uid_t) : sizeof(int));
	if (!ids) {
		x->err = -ENOMEM;
		free_words(words, n);
		return;
	}
	ok = k == L_USER ? resolve_users(x, words, n, ids) : resolve_policies(x, words, n, ids);
	free_words(words, n);
	if (!ok) {
		free(ids);
		return;
	}
	if (k == L_USER) {
		free(t->uids);
		t->uids = ids;
		t->nuids = n;
		t->user_set = true;
		t->user_loc = *x->loc;
	} else {
		free(t->policies);
		t->policies = ids;
		t->npolicies = n;
		t->policy_set = true;
		t->policy_loc = *x->loc;
	}
}

int uc_conf_tasks_key(struct uc_config *c, struct uc_conf_tasks *t, const char *key, const char *value,
		      const struct uc_conf_loc *loc)
{
	static const char *const lists[] = { [L_COMM] = "comm", [L_USER] = "user", [L_POLICY] = "policy" };
	char sec[PATH_MAX + 32];
	struct ctx x = { c, loc, sec, 0 };

	snprintf(sec, sizeof(sec), "[tasks %s]", t->name);
	for (size_t k = 0; k < sizeof(lists) / sizeof(lists[0]); k++)
		if (!strcmp(key, lists[k])) {
			t->had_selector = true;
			set_list(&x, t, k, key, value);
			return x.err;
		}
	if (!strcmp(key, "min") || !strcmp(key, "max")) {
		t->had_setting = true;
		return uc_conf_set_value(c, key[1] == 'i' ? &t->min : &t->max, key, sec, value, loc);
	}
	if (!strcmp(key, "reset-on-fork")) {
		t->had_setting = true;
		return uc_conf_set_bool(c, &t->reset_on_fork, key, sec, value, loc);
	}
	if (!strcmp(key, "threads"))
		return uc_conf_set_bool(c, &t->threads, key, sec, value, loc);
	return -ENOENT;
}

void uc_conf_tasks_validate(struct uc_config *c, const struct uc_conf_tasks *t)
{
	if (!t->had_selector)
		uc_config_error(c, &t->loc, -EINVAL,
				"[tasks %s] has no selector: add comm, user or policy (a task must match all of them)",
				t->name);
	if (!t->had_setting)
		uc_config_error(c, &t->loc, -EINVAL, "[tasks %s] sets nothing: add min, max or reset-on-fork", t->name);
	if (t->min.set && t->max.set && t->min.v.util != UC_RESET && t->max.v.util != UC_RESET &&
	    t->min.v.util > t->max.v.util) {
		uc_config_error(c, &t->max.loc, -EINVAL, "[tasks %s] max %d is below min %d (set at %s:%d)",
				t->name, t->max.v.util, t->min.v.util, t->min.loc.file, t->min.loc.line);
	}
}
