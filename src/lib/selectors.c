/*
 * The selector table (see selectors.h) and the one setter every caller
 * uses: the config's [tasks] keys and the command line's options. Also the
 * string matchers the table names (exact, glob, cgroup path).
 */
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "uclamp/cgroup.h"
#include "uclamp/note.h"
#include "uclamp/sched.h"
#include "uclamp/selectors.h"
#include "uclamp/systemd.h"
#include "uclamp/value.h"

/* ---- matching ------------------------------------------------------------ */

bool uc_rule_is_glob(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

bool uc_rule_str_match(const char *pat, const char *s)
{
	if (!uc_rule_is_glob(pat) && !strchr(pat, '\\'))
		return !strcmp(pat, s);
	return fnmatch(pat, s, 0) == 0;
}

/* Skip leading and trailing slashes: "/a/b/" and "a/b" are one group. */
static size_t cg_trim(const char **s)
{
	size_t len;

	while (**s == '/')
		(*s)++;
	len = strlen(*s);
	while (len > 0 && (*s)[len - 1] == '/')
		len--;
	return len;
}

bool uc_rule_cgroup_match(const char *pat, const char *rel)
{
	char pbuf[PATH_MAX], rbuf[PATH_MAX];
	size_t plen = cg_trim(&pat), rlen = cg_trim(&rel);

	if (plen == 0)
		return true;	/* the root: every group is below it */
	if (plen >= sizeof(pbuf) || rlen >= sizeof(rbuf))
		return false;
	memcpy(pbuf, pat, plen);
	pbuf[plen] = '\0';
	memcpy(rbuf, rel, rlen);
	rbuf[rlen] = '\0';
	/* rel itself, then each group above it, cut at a '/' */
	for (size_t end = rlen;; ) {
		rbuf[end] = '\0';
		if (fnmatch(pbuf, rbuf, FNM_PATHNAME) == 0)
			return true;
		while (end > 0 && rbuf[end - 1] != '/')
			end--;
		if (end == 0)
			return false;
		end--;	/* the '/' itself */
	}
}

/* ---- checks of one word ---------------------------------------------------- */

/* comm and parent: a name longer than the kernel keeps never matches (a glob may be longer). */
static bool check_comm(const char *w, char *err, size_t n)
{
	if (strlen(w) <= UC_PROC_COMM_LEN - 1 || uc_rule_is_glob(w))
		return true;
	snprintf(err, n, "'%s' is longer than %d characters, the kernel's limit, so it never "
		 "matches (use its first %d: '%.*s')", w, UC_PROC_COMM_LEN - 1,
		 UC_PROC_COMM_LEN - 1, UC_PROC_COMM_LEN - 1, w);
	return false;
}

static bool check_cgroup(const char *w, char *err, size_t n)
{
	if (!uc_cg_path_escapes(w))
		return true;
	snprintf(err, n, "'%s' has a '..' component: give the path from the cpu hierarchy's "
		 "root (a glob may use * and ?)", w);
	return false;
}

/* The unit's group is one component of the task's cgroup path: its own, or a slice above it. */
static bool unit_match(const char *pat, const char *rel)
{
	char comp[NAME_MAX + 1];

	for (const char *s = rel; *s; ) {
		size_t len = strcspn(s, "/");

		if (len && len < sizeof(comp)) {
			memcpy(comp, s, len);
			comp[len] = '\0';
			if (uc_rule_str_match(pat, comp))
				return true;
		}
		s += len;
		s += *s == '/';
	}
	return false;
}

/* ---- the table ------------------------------------------------------------------ */

#define LIST(f) .off = offsetof(struct uc_rule, f.v), .count_off = offsetof(struct uc_rule, f.n)
#define IDS(f) .off = offsetof(struct uc_rule, f), .count_off = offsetof(struct uc_rule, n##f)
#define PROC(f) .proc_off = offsetof(struct uc_proc, f)

/* In the order the matcher tries them, the cheaper fields first; the docs follow it. */
const struct uc_sel_def uc_sel_defs[] = {
	{ .key = "comm", .option = "comm", .kind = UC_SEL_NAMES, LIST(comm),
	  .need = UC_PF_COMM, .check = check_comm, .arg = "name",
	  .help = "process name (/proc/PID/comm) or glob; with threads also a thread's own" },
	{ .key = "user", .option = "user", .kind = UC_SEL_USERS, IDS(uids),
	  .need = UC_PF_STATUS, .arg = "user",
	  .help = "real user of the process: name or UID" },
	{ .key = "group", .option = "group", .kind = UC_SEL_GROUPS, IDS(gids),
	  .need = UC_PF_STATUS, .arg = "group",
	  .help = "real group of the process: name or GID" },
	{ .key = "policy", .option = "policy", .kind = UC_SEL_POLICIES, IDS(policies),
	  .need = UC_PF_POLICY, .arg = "policy",
	  .help = "scheduling policy of the thread: other batch idle fifo rr deadline ext" },
	{ .key = "exe", .option = "exe", .kind = UC_SEL_NAMES, LIST(exe),
	  .need = UC_PF_EXE, PROC(exe), .match = uc_rule_str_match, .arg = "path",
	  .help = "the program's path (/proc/PID/exe) or glob" },
	{ .key = "argv0", .option = "argv0", .kind = UC_SEL_NAMES, LIST(argv0),
	  .need = UC_PF_CMDLINE, PROC(argv0), .match = uc_rule_str_match, .arg = "name",
	  .help = "basename of argv[0] or glob" },
	{ .key = "cmdline", .option = "cmdline", .kind = UC_SEL_GLOB, LIST(cmdline),
	  .need = UC_PF_CMDLINE, PROC(cmdline), .match = uc_rule_str_match, .arg = "glob",
	  .help = "the whole command line (arguments joined by spaces): one glob" },
	{ .key = "parent", .option = "parent", .kind = UC_SEL_NAMES, LIST(parent),
	  .need = UC_PF_PARENT | UC_PF_STAT, PROC(pcomm), .match = uc_rule_str_match,
	  .check = check_comm, .arg = "name",
	  .help = "the parent process's name or glob" },
	{ .key = "cgroup", .option = "cgroup", .kind = UC_SEL_NAMES, LIST(cgroup),
	  .need = UC_PF_CGROUP, PROC(cgroup), .match = uc_rule_cgroup_match,
	  .check = check_cgroup, .arg = "cgroup",
	  .help = "cgroup of the cpu hierarchy or glob ('/' does not match *); the groups "
		  "below it too" },
	{ .key = "unit", .option = "unit", .kind = UC_SEL_NAMES, LIST(unit),
	  .need = UC_PF_CGROUP, PROC(cgroup), .match = unit_match, .check = uc_sd_unit_glob_ok,
	  .arg = "unit",
	  .help = "systemd unit whose cgroup holds the process, or a slice above it" },
	{ .key = "threads", .option = "threads", .short_opt = 'a', .kind = UC_SEL_FLAG,
	  .off = offsetof(struct uc_rule, threads),
	  .help = "every thread of each process, not only the main one" },
	{ .key = "kernel-threads", .option = "kernel-threads", .kind = UC_SEL_FLAG,
	  .off = offsetof(struct uc_rule, kthreads),
	  .help = "kernel threads too (a PID given is taken either way)" },
	{ .key = "rt", .kind = UC_SEL_FLAG, .off = offsetof(struct uc_rule, rt),
	  .help = "real-time tasks (fifo, rr) too" },
};
const size_t uc_sel_ndefs = sizeof(uc_sel_defs) / sizeof(uc_sel_defs[0]);
_Static_assert(sizeof(uc_sel_defs) / sizeof(uc_sel_defs[0]) <= UC_SEL_MAX, "raise UC_SEL_MAX");

const struct uc_sel_def *uc_sel_find(const char *key)
{
	for (size_t i = 0; i < uc_sel_ndefs; i++)
		if (!strcmp(uc_sel_defs[i].key, key))
			return &uc_sel_defs[i];
	return NULL;
}

static size_t *count_at(struct uc_rule *r, const struct uc_sel_def *d)
{
	return (size_t *)((char *)r + d->count_off);
}

static void **list_at(struct uc_rule *r, const struct uc_sel_def *d)
{
	return (void **)((char *)r + d->off);
}

bool uc_sel_given(const struct uc_rule *r, const struct uc_sel_def *d)
{
	if (d->kind == UC_SEL_FLAG)
		return *(const bool *)((const char *)r + d->off);
	return *(const size_t *)((const char *)r + d->count_off) != 0;
}

const char *uc_sel_keys(char *buf, size_t n)
{
	const char *keys[sizeof(uc_sel_defs) / sizeof(uc_sel_defs[0])];
	size_t k = 0;

	for (size_t i = 0; i < uc_sel_ndefs; i++)
		if (uc_sel_defs[i].kind != UC_SEL_FLAG)
			keys[k++] = uc_sel_defs[i].key;
	return uc_note_words(buf, n, "", keys, k);
}

void uc_sel_rule_init(struct uc_rule *r)
{
	*r = (struct uc_rule){
		.rt = true, .min = UC_KEEP, .max = UC_KEEP, .reset_on_fork = UC_KEEP,
	};
}

/* ---- setting from text ------------------------------------------------------------ */

static void free_words(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* Split at white space and commas into copies; the whole text as one for a glob. */
static int split(const char *s, bool whole, char ***out, size_t *n)
{
	const char *sep = whole ? "" : " \t,";
	char **v = NULL;
	size_t k = 0;

	while (*s) {
		size_t len;
		char **nv;

		s += strspn(s, sep);
		len = whole ? strlen(s) : strcspn(s, sep);
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

/* What an empty value should hold; for the ID kinds, what a word names and what to use. */
static const struct {
	const char *empty, *noun, *use;
} kind_text[] = {
	[UC_SEL_NAMES] = { "names or globs", NULL, NULL },
	[UC_SEL_GLOB] = { "words or a glob", NULL, NULL },
	[UC_SEL_USERS] = { "user names or UIDs", "user", "a user name or a numeric UID" },
	[UC_SEL_GROUPS] = { "group names or GIDs", "group", "a group name or a numeric GID" },
	[UC_SEL_POLICIES] = { "policies", "policy",
			      "other, batch, idle, fifo, rr, deadline or ext" },
};

/* One word of an ID kind into *id; false with err filled when it is unknown. */
static bool parse_id(enum uc_sel_kind k, const char *w, unsigned *id, char *err, size_t n)
{
	int rc;

	if (k == UC_SEL_USERS)
		rc = uc_uid_parse(w, id);
	else if (k == UC_SEL_GROUPS)
		rc = uc_gid_parse(w, id);
	else if ((rc = uc_policy_parse(w)) >= 0)
		*id = (unsigned)rc;
	if (rc >= 0)
		return true;
	snprintf(err, n, "unknown %s '%s': use %s", kind_text[k].noun, w, kind_text[k].use);
	return false;
}

_Static_assert(sizeof(uid_t) == sizeof(unsigned) && sizeof(gid_t) == sizeof(unsigned) &&
	       sizeof(int) == sizeof(unsigned), "IDs and policies are unsigned-sized");

/* Where a user or group this host does not know goes (uc_sel_set_known). */
struct unknown {
	char *buf;	/* NULL: an unknown name is an error */
	size_t n, len;
};

/* The words as the kind stores them: the strings themselves, or an ID array
 * (*nw: how many are kept; unknown users and groups go to u when given). */
static int convert(const struct uc_sel_def *d, char **words, size_t *nw, void **out,
		   struct unknown *u, char *err, size_t n)
{
	unsigned *ids;
	size_t k = 0;

	for (size_t i = 0; d->check && i < *nw; i++)
		if (!d->check(words[i], err, n))
			return -EINVAL;
	if (d->kind == UC_SEL_NAMES || d->kind == UC_SEL_GLOB) {
		*out = words;
		return 0;
	}
	ids = calloc(*nw, sizeof(*ids));
	if (!ids)
		return -ENOMEM;
	for (size_t i = 0; i < *nw; i++) {
		if (parse_id(d->kind, words[i], &ids[k], err, n)) {
			k++;
		} else if (u->buf && d->kind != UC_SEL_POLICIES) {
			if (u->len < u->n)
				u->len += (size_t)snprintf(u->buf + u->len, u->n - u->len, "%s%s",
							   u->len ? ", " : "", words[i]);
		} else {
			free(ids);
			return -EINVAL;
		}
	}
	*nw = k;
	*out = ids;
	return 0;
}

static int set_flag(struct uc_rule *r, const struct uc_sel_def *d, const char *text, char *err,
		    size_t n)
{
	bool b;

	if (uc_bool_parse(text, &b)) {
		snprintf(err, n, "'%s' is neither yes nor no", text);
		return -EINVAL;
	}
	*(bool *)((char *)r + d->off) = b;
	return 0;
}
/* Free one selector's list in r, and empty it. */
static void sel_free_one(struct uc_rule *r, const struct uc_sel_def *d)
{
	size_t *cnt = count_at(r, d);
	void **list = list_at(r, d);

	if (d->kind == UC_SEL_FLAG)
		return;
	if (d->kind == UC_SEL_NAMES || d->kind == UC_SEL_GLOB)
		free_words(*list, *cnt);
	else
		free(*list);
	*list = NULL;
	*cnt = 0;
}


static int sel_set(struct uc_rule *r, const struct uc_sel_def *d, const char *text, bool append,
		   struct unknown *u, char *err, size_t n)
{
	bool strings = d->kind == UC_SEL_NAMES || d->kind == UC_SEL_GLOB;
	size_t esize = strings ? sizeof(char *) : sizeof(unsigned);
	size_t *cnt = count_at(r, d), nw, nkept, keep;
	void **list = list_at(r, d), *vals = NULL;
	char **words;
	char *nv;
	int rc;

	if (d->kind == UC_SEL_FLAG)
		return set_flag(r, d, text, err, n);
	rc = split(text, d->kind == UC_SEL_GLOB, &words, &nw);
	if (rc)
		return rc;
	if (!nw) {
		snprintf(err, n, "the value is empty: give one or more %s",
			 kind_text[d->kind].empty);
		free(words);
		return -EINVAL;
	}
	nkept = nw;
	rc = convert(d, words, &nkept, &vals, u, err, n);
	if (rc || !strings)
		free_words(words, nw);	/* refused, or IDs now */
	if (rc)
		return rc;
	keep = append ? *cnt : 0;
	nv = keep + nkept ? realloc(append ? *list : NULL, (keep + nkept) * esize) : NULL;
	if (!nv && keep + nkept) {
		if (strings)
			free_words(vals, nkept);
		else
			free(vals);
		return -ENOMEM;
	}
	if (nkept)
		memcpy(nv + keep * esize, vals, nkept * esize);
	free(vals);	/* the strings (or IDs) are in nv now */
	if (!append)
		sel_free_one(r, d);
	*list = nv;
	*cnt = keep + nkept;
	return 0;
}

int uc_sel_set(struct uc_rule *r, const struct uc_sel_def *d, const char *text, bool append,
	       char *err, size_t n)
{
	struct unknown u = { NULL, 0, 0 };

	return sel_set(r, d, text, append, &u, err, n);
}

int uc_sel_set_known(struct uc_rule *r, const struct uc_sel_def *d, const char *text,
		     char *unknown, size_t un, char *err, size_t n)
{
	struct unknown u = { unknown, un, 0 };

	if (un)
		unknown[0] = '\0';
	return sel_set(r, d, text, false, &u, err, n);
}

void uc_sel_free(struct uc_rule *r)
{
	for (size_t i = 0; i < uc_sel_ndefs; i++)
		sel_free_one(r, &uc_sel_defs[i]);
}
