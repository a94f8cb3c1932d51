/*
 * The declarative configuration (see config.h), parsed with libinih.
 *
 * libinih (Debian's 55, default build options) is given every line through
 * our own reader, which is what makes errors precise:
 *  - the reader counts lines, so every message has file:line (the handler
 *    gets no line number in the default build);
 *  - it strips leading white space, so an indented key is a key and never
 *    a "continuation" of the previous value (INI_ALLOW_MULTILINE);
 *  - it turns each [section] header into a short token ("[s3]") and keeps
 *    the real name itself: libinih truncates section names to 49 bytes,
 *    which would silently cut a long cgroup path, and never reports a
 *    section that has no keys;
 *  - a key line longer than libinih's line buffer is an error here, not
 *    split in two;
 *  - a key line the handler never saw is one libinih rejected (no '='):
 *    that is how each syntax error gets its own line, not just the first.
 * The key = value split, comments and the ';' inline comments stay libinih's.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <ini.h>

#include "uclamp/config.h"
#include "uclamp/sched.h"
#include "uclamp/sysroot.h"

enum sec_type { SEC_FASTPATH, SEC_SYSTEM, SEC_CGROUP, SEC_TASKS, SEC_N };

/* The keys of the sections other than [tasks] (config_tasks.c has those). */
enum key { K_ALLOW_ENABLE, K_MIN, K_MAX, K_RT_DEFAULT, K_N };

#define IN(s) (1u << (s))
static const struct {
	const char *name;
	unsigned in;	/* sections it belongs to */
} keys[K_N] = {
	[K_ALLOW_ENABLE] = { "allow-enable", IN(SEC_FASTPATH) },
	[K_MIN] = { "min", IN(SEC_SYSTEM) | IN(SEC_CGROUP) },
	[K_MAX] = { "max", IN(SEC_SYSTEM) | IN(SEC_CGROUP) },
	[K_RT_DEFAULT] = { "rt-default", IN(SEC_SYSTEM) },
};

static const struct {
	const char *name;
	const char *keys;	/* for "use ..." hints */
	bool has_arg;
} sections[SEC_N] = {
	[SEC_FASTPATH] = { "fast-path", "allow-enable", false },
	[SEC_SYSTEM] = { "system", "min, max or rt-default", false },
	[SEC_CGROUP] = { "cgroup", "min or max", true },
	[SEC_TASKS] = { "tasks", "comm, user, policy, min, max, threads or reset-on-fork", true },
};

/* ---- errors ------------------------------------------------------------ */

int uc_config_error(struct uc_config *c, const struct uc_conf_loc *loc, int err, const char *fmt, ...)
		    {
		    struct uc_conf_error *e;
	va_list ap;
	char *msg;
	int n;

	c->nerrors_total++;
	if (c->nerrors >= UC_CONF_MAX_ERRORS)
		return 0;
	va_start(ap, fmt);
	n = vasprintf(&msg, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -ENOMEM;
	e = realloc(c->errors, (c->nerrors + 1) * sizeof(*e));
	if (!e) {
		free(msg);
		return -ENOMEM;
	}
	c->errors = e;
	e[c->nerrors++] = (struct uc_conf_error){
		.file = loc ? loc->file : NULL, .line = loc ? loc->line : 0, .err = err, .msg = msg,
	};
	return 0;
}

static size_t file_index(const struct uc_config *c, const char *file)
{
	for (size_t i = 0; i < c->nfiles; i++)
		if (c->files[i] == file)
			return i;
	return c->nfiles;	/* not about a file: last */
}

/* Stable (insertion) sort by file order, then line: the list is short. */
void uc_config_sort_errors(struct uc_config *c)
{
	for (size_t i = 1; i < c->nerrors; i++) {
		struct uc_conf_error e = c->errors[i];
		size_t fi = file_index(c, e.file), j = i;

		while (j > 0) {
			const struct uc_conf_error *p = &c->errors[j - 1];
			size_t fp = file_index(c, p->file);

			if (fp < fi || (fp == fi && p->line <= e.line))
				break;
			c->errors[j] = *p;
			j--;
		}
		c->errors[j] = e;
	}
}

/* ---- the struct ---------------------------------------------------------- */

void uc_config_init(struct uc_config *c)
{
	memset(c, 0, sizeof(*c));
}

static void free_strv(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

void uc_config_free(struct uc_config *c)
{
	for (size_t i = 0; i < c->ncgroups; i++)
		free(c->cgroups[i].path);
	free(c->cgroups);
	for (size_t i = 0; i < c->ntasks; i++)
		uc_conf_tasks_free(&c->tasks[i]);
	free(c->tasks);
	free_strv(c->files, c->nfiles);
	for (size_t i = 0; i < c->nerrors; i++)
		free(c->errors[i].msg);
	free(c->errors);
	uc_config_init(c);
}

/* ---- parsing: the per-file state ----------------------------------------- */

struct file_sec {
	enum sec_type type;
	char *arg;		/* cgroup path (normalized) or tasks name; NULL otherwise */
	int line;
	size_t idx;		/* into c->cgroups / c->tasks */
	struct {		/* the known keys set in this section, and where */
		char name[16];
		int line;
	} seen[8];
	size_t nseen;
};

struct parse {
	struct uc_config *c;
	const char *file;	/* == c->files[i] */
	FILE *f;
	char *buf;
	size_t cap;
	int line;
	bool pending;		/* the last key line served has not reached the handler */
	struct file_sec *secs;
	size_t nsecs;
	int err;		/* -ENOMEM */
};

#define ERR(px, ln, ...) do { \
	struct uc_conf_loc l_ = { (px)->file, (ln) }; \
	if (uc_config_error((px)->c, &l_, -EINVAL, __VA_ARGS__)) \
			    (px)->err = -ENOMEM; \
			    } while (0)
			    
			    static char *trim(char *s)
			    {
			    char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

/* "/a//b/" -> "/a/b": runs of '/' collapsed, no trailing '/'. In place. */
static void normalize_path(char *s)
{
	char *w = s;

	for (const char *r = s; *r; r++)
		if (!(*r == '/' && w > s && w[-1] == '/'))
			*w++ = *r;
	*w = '\0';
	while (w > s + 1 && w[-1] == '/')
		*--w = '\0';
}

/* Does the path have a ".." component? A lexical check, before any
 * lookup, so the error has its file:line even on another machine. */
static bool has_dotdot(const char *s)
{
	for (const char *p = s; (p = strstr(p, "..")); p += 2)
		if ((p == s || p[-1] == '/') && (p[2] == '\0' || p[2] == '/'))
			return true;
	return false;
}

static const char *sec_label(enum sec_type t, const char *arg, char *buf, size_t n)
{
	snprintf(buf, n, "[%s%s%s]", sections[t].name, arg ? " " : "", arg ? arg : "");
	return buf;
}

/* The config entry a header names: found across files by path / name (a
 * later file adds to and overrides it), or new. SIZE_MAX on ENOMEM. */
static size_t find_or_add_entry(struct parse *px, enum sec_type type, const char *arg, int line)
{
	struct uc_config *c = px->c;
	struct uc_conf_loc loc = { px->file, line };

	if (type == SEC_CGROUP) {
		struct uc_conf_cgroup *v;

		for (size_t i = 0; i < c->ncgroups; i++)
			if (!strcmp(c->cgroups[i].path, arg))
				return i;
		v = realloc(c->cgroups, (c->ncgroups + 1) * sizeof(*v));
		if (!v)
			return SIZE_MAX;
		c->cgroups = v;
		v[c->ncgroups] = (struct uc_conf_cgroup){ .path = strdup(arg), .loc = loc };
		if (!v[c->ncgroups].path)
			return SIZE_MAX;
		return c->ncgroups++;
	}
	if (type == SEC_TASKS) {
		struct uc_conf_tasks *v;

		for (size_t i = 0; i < c->ntasks; i++)
			if (!strcmp(c->tasks[i].name, arg))
				return i;
		v = realloc(c->tasks, (c->ntasks + 1) * sizeof(*v));
		if (!v)
			return SIZE_MAX;
		c->tasks = v;
		v[c->ntasks] = (struct uc_conf_tasks){ .name = strdup(arg), .loc = loc };
		if (!v[c->ntasks].name)
			return SIZE_MAX;
		return c->ntasks++;
	}
	return 0;
}

/*
 * A "[...]" line: check it and record the section. Returns the token to
 * hand libinih in place of the header: "s<N>" (our section N) or "!" (a
 * broken header: its keys are skipped without more errors).
 */
static const char *header(struct parse *px, char *s, char *tok, size_t n)
{
	char *end = strchr(s, ']'), *name, *arg, *rest, lb[64];
	struct file_sec *fs;
	int type = -1;

	if (!end) {
		ERR(px, px->line, "section header without ']'");
		return "!";
	}
	rest = trim(end + 1);
	if (*rest && *rest != '#' && *rest != ';') {
		ERR(px, px->line, "unexpected text '%s' after the section header", rest);
		return "!";
	}
	*end = '\0';
	name = trim(s + 1);
	arg = name + strcspn(name, " \t");
	if (*arg)
		*arg++ = '\0';
	arg = trim(arg);
	for (int t = 0; t < SEC_N; t++)
		if (!strcmp(name, sections[t].name))
			type = t;
	if (type < 0) {
		ERR(px, px->line, "unknown section [%s%s%s]; use [fast-path], [system], [cgroup PATH] or [tasks NAME]",
		    name, *arg ? " " : "", arg);
		return "!";
	}
	if (!sections[type].has_arg && *arg) {
		ERR(px, px->line, "[%s] takes no name (found '%s')", name, arg);
		return "!";
	}
	if (sections[type].has_arg && !*arg) {
		ERR(px, px->line, "[%s] needs a %s, e.g. [%s]", name, type == SEC_CGROUP ? "path" : "name",
		    type == SEC_CGROUP ? "cgroup system.slice/backup.service" : "tasks build-jobs");
		return "!";
	}
	if (type == SEC_CGROUP) {
		normalize_path(arg);
		if (has_dotdot(arg)) {
			ERR(px, px->line, "cgroup path '%s' leaves the cgroup hierarchy: '..' is not allowed", arg);
			return "!";
		}
		if (!strcmp(arg, "/") || !strcmp(arg, ".")) {
			ERR(px, px->line, "the root cgroup has no cpu.uclamp files; use [system] for system-wide clamps");
			return "!";
		}
	}
	for (size_t i = 0; i < px->nsecs; i++) {
		fs = &px->secs[i];
		if (fs->type == (enum sec_type)type && (!fs->arg || !strcmp(fs->arg, arg))) {
			ERR(px, px->line, "duplicate section %s (first at line %d)",
			    sec_label(type, fs->arg, lb, sizeof(lb)), fs->line);
			return "!";
		}
	}
	fs = realloc(px->secs, (px->nsecs + 1) * sizeof(*fs));
	if (!fs) {
		px->err = -ENOMEM;
		return "!";
	}
	px->secs = fs;
	fs = &px->secs[px->nsecs];
	*fs = (struct file_sec){ .type = type, .line = px->line };
	if (sections[type].has_arg && !(fs->arg = strdup(arg))) {
		px->err = -ENOMEM;
		return "!";
	}
	fs->idx = find_or_add_entry(px, type, arg, px->line);
	if (fs->idx == SIZE_MAX) {
		free(fs->arg);
		px->err = -ENOMEM;
		return "!";
	}
	snprintf(tok, n, "s%zu", px->nsecs++);
	return tok;
}

/* A key line that libinih did not pass to the handler has no '=' or ':'. */
static void check_pending(struct parse *px)
{
	if (px->pending)
		ERR(px, px->line, "expected 'key = value', a [section] header or a comment");
	px->pending = false;
}

static char *reader(char *str, int num, void *stream)
{
	struct parse *px = stream;
	ssize_t len;
	char *s, tok[32];
	const char *t;

	check_pending(px);
	len = getline(&px->buf, &px->cap, px->f);
	if (len < 0)
		return NULL;
	px->line++;
	s = px->buf;
	if (strlen(s) != (size_t)len) {
		ERR(px, px->line, "the line contains a NUL byte (not a text file?)");
		snprintf(str, num, "\n");
		return str;
	}
	if (px->line == 1 && !memcmp(s, "\xef\xbb\xbf", 3))
		s += 3;		/* a UTF-8 BOM */
	s = trim(s);
	if (!*s || *s == '#' || *s == ';') {
		snprintf(str, num, "\n");
		return str;
	}
	if (*s == '[') {
		t = header(px, s, tok, sizeof(tok));
		snprintf(str, num, "[%s]\n", t);
		return str;
	}
	/* libinih needs room for "\r\n\0"; a longer line would be split in two */
	if (strlen(s) + 3 > (size_t)num) {
		ERR(px, px->line, "the line is longer than %d characters", num - 3);
		snprintf(str, num, "\n");
		return str;
	}
	snprintf(str, num, "%s\n", s);
	px->pending = true;
	return str;
}

/* ---- parsing: values ------------------------------------------------------ */

static int parse_bool(const char *s, bool *b)
{
	static const char *const yes[] = { "yes", "true", "on", "1" }, *const no[] = { "no", "false", "off", "0" };

	for (size_t i = 0; i < 4; i++) {
		if (!strcasecmp(s, yes[i])) {
			*b = true;
			return 0;
		}
		if (!strcasecmp(s, no[i])) {
			*b = false;
			return 0;
		}
	}
	return -EINVAL;
}

int uc_conf_set_value(struct uc_config *c, struct uc_conf_value *dst, const char *key, const char *sec,
		      const char *val, const struct uc_conf_loc *loc)
{
	struct uc_value v;
	int rc = uc_value_parse(val, &v);

	if (rc)
		return uc_config_error(c, loc, -EINVAL, "invalid value '%s' for %s in %s: %s; use %s%s", val, key,
				       sec, rc == -ERANGE ? "out of range" : "not a clamp value", uc_value_forms,
				       strchr(val, '#') ? " (a comment after a value starts with ' ;', not '#')" : "");
	*dst = (struct uc_conf_value){ .set = true, .v = v, .loc = *loc };
	return 0;
}

int uc_conf_set_bool(struct uc_config *c, struct uc_conf_bool *dst, const char *key, const char *sec,
		     const char *val, const struct uc_conf_loc *loc)
{
	bool b;

	if (parse_bool(val, &b))
		return uc_config_error(c, loc, -EINVAL, "invalid value '%s' for %s in %s: use yes or no", val, key, sec);
	*dst = (struct uc_conf_bool){ .set = true, .value = b, .loc = *loc };
	return 0;
}

/* A known key of [fast-path], [system] or [cgroup]. */
static int set_key(struct parse *px, struct file_sec *fs, enum key k, const char *val)
{
	struct uc_config *c = px->c;
	struct uc_conf_loc loc = { px->file, px->line };
	char sec[PATH_MAX + 32];
	const char *key = keys[k].name;
	struct uc_conf_cgroup *g;

	sec_label(fs->type, fs->arg, sec, sizeof(sec));
	switch (fs->type) {
	case SEC_FASTPATH:
		return uc_conf_set_bool(c, &c->allow_enable, key, sec, val, &loc);
	case SEC_SYSTEM:
		return uc_conf_set_value(c, k == K_MIN ? &c->sys_min : k == K_MAX ? &c->sys_max : &c->sys_rt_default,
					 key, sec, val, &loc);
	case SEC_CGROUP:
		g = &c->cgroups[fs->idx];
		g->had_setting = true;
		return uc_conf_set_value(c, k == K_MIN ? &g->min : &g->max, key, sec, val, &loc);
	default:
		return 0;
	}
}

/* A section with a bad key: "no selector" / "sets nothing" would only repeat it. */
static void no_cascade(struct parse *px, const struct file_sec *fs)
{
	if (fs->type == SEC_CGROUP)
		px->c->cgroups[fs->idx].had_setting = true;
	if (fs->type == SEC_TASKS)
		px->c->tasks[fs->idx].had_selector = px->c->tasks[fs->idx].had_setting = true;
}

static int handler(void *user, const char *section, const char *name, const char *value)
{
	struct parse *px = user;
	struct file_sec *fs;
	char sec[PATH_MAX + 32];
	int k, rc;

	px->pending = false;
	if (!*section) {
		ERR(px, px->line, "'%s' is outside any section: put it under [fast-path], [system], [cgroup PATH] or [tasks NAME]",
		    name);
		return 1;
	}
	if (section[0] != 's')
		return 1;	/* under a broken header: already reported */
	fs = &px->secs[strtoul(section + 1, NULL, 10)];
	sec_label(fs->type, fs->arg, sec, sizeof(sec));
	if (!*name) {
		ERR(px, px->line, "a key name is missing before '='");
		no_cascade(px, fs);
		return 1;
	}
	for (size_t i = 0; i < fs->nseen; i++) {
		if (!strcmp(fs->seen[i].name, name)) {
			ERR(px, px->line, "duplicate key '%s' in %s (first at line %d)", name, sec, fs->seen[i].line);
			return 1;
		}
	}
	if (fs->type == SEC_TASKS) {
		struct uc_conf_loc loc = { px->file, px->line };

		rc = uc_conf_tasks_key(px->c, &px->c->tasks[fs->idx], name, value, &loc);
	} else {
		for (k = 0; k < K_N; k++)
			if (!strcmp(name, keys[k].name) && (keys[k].in & IN(fs->type)))
				break;
		rc = k == K_N ? -ENOENT : set_key(px, fs, k, value);
	}
	if (rc == -ENOENT) {
		ERR(px, px->line, "unknown key '%s' in %s; use %s", name, sec, sections[fs->type].keys);
		no_cascade(px, fs);
		return 1;
	}
	if (rc)
		px->err = rc;
	/* a known key is short; the table has room for every key of a section */
	if (fs->nseen < sizeof(fs->seen) / sizeof(fs->seen[0]) && strlen(name) < sizeof(fs->seen[0].name)) {
		strcpy(fs->seen[fs->nseen].name, name);
		fs->seen[fs->nseen++].line = px->line;
	}
	return 1;
}

/* ---- loading files --------------------------------------------------------- */

static const char *add_file(struct uc_config *c, const char *name)
{
	char **v = realloc(c->files, (c->nfiles + 1) * sizeof(*v));

	if (!v)
		return NULL;
	c->files = v;
	if (!(v[c->nfiles] = strdup(name)))
		return NULL;
	return v[c->nfiles++];
}

static bool has_error_at(const struct uc_config *c, const char *file, int line)
{
	for (size_t i = 0; i < c->nerrors; i++)
		if (c->errors[i].file == file && c->errors[i].line == line)
			return true;
	return false;
}

int uc_config_load_stream(struct uc_config *c, FILE *f, const char *name)
{
	struct parse px = { .c = c, .f = f };
	int rc;

	if (!(px.file = add_file(c, name)))
		return -ENOMEM;
	rc = ini_parse_stream(reader, &px, handler, &px);
	if (rc == -2)
		px.err = -ENOMEM;
	else if (rc > 0 && !has_error_at(c, px.file, rc))	/* cannot happen; never lose one */
		ERR(&px, rc, "syntax error");
	if (ferror(f)) {
		struct uc_conf_loc loc = { px.file, 0 };

		uc_config_error(c, &loc, -EIO, "read error");
	}
	for (size_t i = 0; i < px.nsecs; i++)
		free(px.secs[i].arg);
	free(px.secs);
	free(px.buf);
	return px.err;
}

int uc_config_load_file(struct uc_config *c, const char *path)
{
	FILE *f = fopen(path, "re");
	int rc;

	if (!f) {
		int err = -errno;
		struct uc_conf_loc loc = { add_file(c, path), 0 };

		if (!loc.file)
			return -ENOMEM;
		if (uc_config_error(c, &loc, err, "cannot read: %s", strerror(-err)))
			return -ENOMEM;
		return err;
	}
	rc = uc_config_load_stream(c, f, path);
	fclose(f);
	return rc;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* *.conf in name order (strcmp: the same order in every locale). */
static int load_dir(struct uc_config *c, const char *dir, bool missing_ok)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char **names = NULL, path[PATH_MAX];
	const char *sep = *dir && dir[strlen(dir) - 1] == '/' ? "" : "/";
	size_t n = 0;
	int rc = 0, nread = 0;

	if (!d) {
		int err = -errno;
		struct uc_conf_loc loc;

		if (err == -ENOENT && missing_ok)
			return 0;
		if (!(loc.file = add_file(c, dir)))
			return -ENOMEM;
		loc.line = 0;
		uc_config_error(c, &loc, err, "cannot read the directory: %s", strerror(-err));
		return err;
	}
	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name);
		struct stat st;
		char **v;

		if (de->d_name[0] == '.' || len <= 5 || strcmp(de->d_name + len - 5, ".conf"))
			continue;
		snprintf(path, sizeof(path), "%s%s%s", dir, sep, de->d_name);
		if (stat(path, &st) || !S_ISREG(st.st_mode))
			continue;
		v = realloc(names, (n + 1) * sizeof(*v));
		if (!v || !(v[n] = strdup(de->d_name))) {
			names = v ? v : names;
			rc = -ENOMEM;
			break;
		}
		names = v;
		n++;
	}
	closedir(d);
	if (!rc)
		qsort(names, n, sizeof(*names), cmp_str);
	for (size_t i = 0; i < n && rc != -ENOMEM; i++) {
		snprintf(path, sizeof(path), "%s%s%s", dir, sep, names[i]);
		rc = uc_config_load_file(c, path);
		if (rc != -ENOMEM)
			rc = 0;
		nread++;
	}
	free_strv(names, n);
	return rc ? rc : nread;
}

int uc_config_load_path(struct uc_config *c, const char *path)
{
	size_t len = strlen(path);
	struct stat st;
	int rc;

	/* "DIR/" names a directory that may be missing, like the default
	 * uclampctl.d: callers (the Ansible role) need not look first */
	if (len > 1 && path[len - 1] == '/') {
		rc = load_dir(c, path, true);
		return rc < 0 ? rc : 0;
	}
	if (!stat(path, &st) && S_ISDIR(st.st_mode)) {
		rc = load_dir(c, path, false);
		return rc < 0 ? rc : 0;
	}
	return uc_config_load_file(c, path);
}

int uc_config_load_default(struct uc_config *c)
{
	char path[PATH_MAX];
	int rc, n = 0;

	if ((rc = uc_path(path, sizeof(path), UC_CONFIG_FILE)))
		return rc;
	if (!access(path, F_OK)) {
		rc = uc_config_load_file(c, path);
		if (rc == -ENOMEM)
			return rc;
		n++;
	}
	if ((rc = uc_path(path, sizeof(path), UC_CONFIG_DIR)))
		return rc;
	rc = load_dir(c, path, true);
	if (rc == -ENOMEM)
		return rc;
	return n + (rc > 0 ? rc : 0);
}

/* ---- checks across files ----------------------------------------------------- */

/* A clamp's capacity value for comparisons: "default" is 1024 for the system knobs. */
static int sys_util(const struct uc_value *v)
{
	return v->util == UC_RESET ? UC_CAPACITY_SCALE : v->util;
}

size_t uc_config_validate(struct uc_config *c)
{
	if (c->sys_min.set && c->sys_max.set && sys_util(&c->sys_min.v) > sys_util(&c->sys_max.v))
		uc_config_error(c, &c->sys_max.loc, -EINVAL, "[system] max %d is below min %d (set at %s:%d); the kernel needs min <= max",
				sys_util(&c->sys_max.v), sys_util(&c->sys_min.v), c->sys_min.loc.file, c->sys_min.loc.line);
	for (size_t i = 0; i < c->ncgroups; i++) {
		const struct uc_conf_cgroup *g = &c->cgroups[i];

		if (!g->had_setting)
			uc_config_error(c, &g->loc, -EINVAL, "[cgroup %s] sets nothing: add min or max", g->path);
	}
	for (size_t i = 0; i < c->ntasks; i++)
		uc_conf_tasks_validate(c, &c->tasks[i]);
	uc_config_sort_errors(c);
	return c->nerrors_total;
}
