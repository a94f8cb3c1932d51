/*
 * The configuration parser (grammar: uclampctl.conf(5)): one pass, a line at a
 * time (at most UC_CONF_LINE_MAX bytes), numbered, trimmed and classified:
 * blank or a '#'/';' comment; "[NAME]" or "[NAME ARG]"; "KEY = VALUE" or
 * "KEY: VALUE"; else an error. Every problem is recorded as file:line and
 * parsing goes on. The current section is an index or a state (none yet, a
 * broken header): nothing a name in the file can collide with.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "uclamp/cgroup.h"
#include "uclamp/config.h"

enum sec_type { SEC_FASTPATH, SEC_SYSTEM, SEC_CGROUP, SEC_TASKS, SEC_N };

static const struct {
	const char *name;
	const char *keys;	/* for "use ..." hints */
	bool has_arg;
} sections[SEC_N] = {
	[SEC_FASTPATH] = { "fast-path", "allow-enable", false },
	[SEC_SYSTEM] = { "system", NULL, false },	/* the knobs' keys */
	[SEC_CGROUP] = { "cgroup", "min or max", true },
	/* config_tasks.c owns the keys */
	[SEC_TASKS] = { "tasks", NULL, true },
};

static const char bom[] = "\xef\xbb\xbf";

/* ---- the per-file state ------------------------------------------------------ */

struct file_sec {
	enum sec_type type;
	char *arg;		/* cgroup path (normalized) or tasks name; NULL otherwise */
	char *label;		/* "[cgroup a/b]", for messages */
	int line;
	size_t idx;		/* into c->cgroups / c->tasks */
	struct {		/* the known keys set in this section, and where */
		char name[16];
		int line;
	} seen[24];
	size_t nseen;
};

struct parse {
	struct uc_config *c;
	const char *file;	/* == c->files[i] */
	FILE *f;
	char *buf;		/* UC_CONF_LINE_MAX + 1 */
	int line;
	struct file_sec *secs;
	size_t nsecs;
	enum { IN_NONE, IN_BROKEN, IN_SECTION } in;	/* where the next key goes */
	size_t cur;		/* IN_SECTION: secs[cur] */
	int err;		/* -ENOMEM */
};

/* Record an error at the current line: -1 (for check_header's returns). */
#define ERR(px, ...) ({ \
	struct uc_conf_loc l_ = { (px)->file, (px)->line }; \
	if (uc_config_error((px)->c, &l_, -EINVAL, __VA_ARGS__)) \
		(px)->err = -ENOMEM; \
	-1; \
})

/* ---- reading lines --------------------------------------------------------------- */

enum line_kind { LINE_EOF, LINE_TEXT, LINE_TOO_LONG, LINE_NUL };

/* The next line into px->buf, without its '\n'. Past UC_CONF_LINE_MAX bytes
 * the rest of the line is read and dropped, so the next line keeps its number. */
static enum line_kind read_line(struct parse *px)
{
	size_t n = 0;
	bool nul = false, any = false;
	int ch;

	while ((ch = getc(px->f)) != EOF) {
		any = true;
		if (ch == '\n')
			break;
		if (!ch)
			nul = true;
		if (n < UC_CONF_LINE_MAX)
			px->buf[n] = (char)ch;
		if (n <= UC_CONF_LINE_MAX)
			n++;
	}
	if (!any)
		return LINE_EOF;
	px->line++;
	if (n > UC_CONF_LINE_MAX)
		return LINE_TOO_LONG;
	px->buf[n] = '\0';
	return nul ? LINE_NUL : LINE_TEXT;
}

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

/* The first of chars (NULL: none), or of a ';' right after white space (an
 * inline comment), or the end. */
static char *find_or_comment(char *s, const char *chars)
{
	bool was_space = false;

	for (; *s; s++) {
		if ((chars && strchr(chars, *s)) || (was_space && *s == ';'))
			break;
		was_space = isspace((unsigned char)*s);
	}
	return s;
}

/* ---- section headers ---------------------------------------------------------------- */

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

/*
 * The config entry a header names (cgroups by path, tasks by name): found (a
 * later file adds to and overrides it), or a new zeroed one at the end; 0 for
 * sections that are not lists. SIZE_MAX on ENOMEM.
 */
static size_t find_or_add_entry(struct parse *px, enum sec_type type, const char *arg)
{
	struct uc_config *c = px->c;
	struct uc_conf_loc loc = { px->file, px->line };

	if (type == SEC_CGROUP) {
		struct uc_conf_cgroup *v;

		for (size_t i = 0; i < c->ncgroups; i++)
			if (!strcmp(c->cgroups[i].path, arg))
				return i;
		if (!(v = realloc(c->cgroups, (c->ncgroups + 1) * sizeof(*v))))
			return SIZE_MAX;
		c->cgroups = v;
		v[c->ncgroups] = (struct uc_conf_cgroup){ .path = strdup(arg), .loc = loc };
		return v[c->ncgroups].path ? c->ncgroups++ : SIZE_MAX;
	}
	if (type == SEC_TASKS) {
		struct uc_conf_tasks *v;

		for (size_t i = 0; i < c->ntasks; i++)
			if (!strcmp(c->tasks[i].name, arg))
				return i;
		if (!(v = realloc(c->tasks, (c->ntasks + 1) * sizeof(*v))))
			return SIZE_MAX;
		c->tasks = v;
		v[c->ntasks] = (struct uc_conf_tasks){ .name = strdup(arg), .loc = loc };
		return v[c->ntasks].name ? c->ntasks++ : SIZE_MAX;
	}
	return 0;
}

/* Check "[name arg]" and return its type, or -1 (reported). arg is cut out
 * of s and normalized in place. */
static int check_header(struct parse *px, char *s, char **argp)
{
	char *end = strchr(s, ']'), *name, *arg, *rest;
	int type = -1;

	if (!end)
		return ERR(px, "section header without ']'");
	rest = trim(end + 1);
	if (*rest && *rest != '#' && *rest != ';')
		return ERR(px, "unexpected text '%s' after the section header", rest);
	*end = '\0';
	name = trim(s + 1);
	arg = name + strcspn(name, " \t");
	if (*arg)
		*arg++ = '\0';
	arg = trim(arg);
	for (int t = 0; t < SEC_N; t++)
		if (!strcmp(name, sections[t].name))
			type = t;
	if (type < 0)
		return ERR(px, "unknown section [%s%s%s]; use [fast-path], [system], "
			   "[cgroup PATH] or [tasks NAME]", name, *arg ? " " : "", arg);
	if (!sections[type].has_arg && *arg)
		return ERR(px, "[%s] takes no name (found '%s')", name, arg);
	if (sections[type].has_arg && !*arg)
		return ERR(px, "[%s] needs a %s, e.g. [%s]", name,
			   type == SEC_CGROUP ? "path" : "name", type == SEC_CGROUP ?
			   "cgroup system.slice/backup.service" : "tasks build-jobs");
	if (type == SEC_CGROUP) {
		normalize_path(arg);
		if (uc_cg_path_escapes(arg))
			return ERR(px, "cgroup path '%s' leaves the cgroup hierarchy: '..' is "
				   "not allowed", arg);
		if (!strcmp(arg, "/") || !strcmp(arg, "."))
			return ERR(px, "the root cgroup has no cpu.uclamp files; "
				   "use [system] for system-wide clamps");
	}
	*argp = arg;
	return type;
}

/* A "[...]" line: the section the next keys go to, or a broken header
 * whose keys are skipped without more errors. */
static void header(struct parse *px, char *s)
{
	struct file_sec *fs;
	char *arg = NULL;
	int type = check_header(px, s, &arg);

	px->in = IN_BROKEN;
	if (type < 0)
		return;
	if (!sections[type].has_arg)
		arg = NULL;
	for (size_t i = 0; i < px->nsecs; i++) {
		fs = &px->secs[i];
		if (fs->type == (enum sec_type)type && (!fs->arg || !strcmp(fs->arg, arg))) {
			ERR(px, "duplicate section %s (first at line %d)", fs->label, fs->line);
			return;
		}
	}
	fs = realloc(px->secs, (px->nsecs + 1) * sizeof(*fs));
	if (!fs) {
		px->err = -ENOMEM;
		return;
	}
	px->secs = fs;
	fs = &px->secs[px->nsecs];
	*fs = (struct file_sec){ .type = type, .line = px->line, .arg = arg ? strdup(arg) : NULL };
	if (asprintf(&fs->label, "[%s%s%s]", sections[type].name, arg ? " " : "",
		     arg ? arg : "") < 0)
		fs->label = NULL;
	if (!fs->label || (arg && !fs->arg) ||
	    (fs->idx = find_or_add_entry(px, type, arg)) == SIZE_MAX) {
		free(fs->arg);
		free(fs->label);
		px->err = -ENOMEM;
		return;
	}
	px->cur = px->nsecs++;
	px->in = IN_SECTION;
}

/* ---- keys --------------------------------------------------------------------------------- */

/*
 * A key of [fast-path] (allow-enable), [system] (the knobs' options) or
 * [cgroup] (min, max): 0, -ENOENT (not one of its keys) or -ENOMEM.
 */
static int set_key(struct parse *px, struct file_sec *fs, const char *name, const char *val)
{
	struct uc_config *c = px->c;
	struct uc_conf_loc loc = { px->file, px->line };
	struct uc_conf_cgroup *g = fs->type == SEC_CGROUP ? &c->cgroups[fs->idx] : NULL;

	if (fs->type == SEC_SYSTEM) {
		for (int k = 0; k < UC_SYSCTL_NKNOBS; k++)
			if (!strcmp(name, uc_sysctl_knobs[k].option))
				return uc_conf_set_value(c, &c->sys[k], name, fs->label, val,
							 &loc);
	}
	if (fs->type == SEC_FASTPATH && !strcmp(name, "allow-enable"))
		return uc_conf_set_bool(c, &c->allow_enable, name, fs->label, val, &loc);
	if (!g || (strcmp(name, "min") && strcmp(name, "max")))
		return -ENOENT;
	g->had_setting = true;
	return uc_conf_set_value(c, name[1] == 'i' ? &g->min : &g->max, name, fs->label, val,
				 &loc);
}

/* A section with a bad key: "no selector" / "sets nothing" would only repeat it. */
static void no_cascade(struct parse *px, const struct file_sec *fs)
{
	if (fs->type == SEC_CGROUP)
		px->c->cgroups[fs->idx].had_setting = true;
	if (fs->type == SEC_TASKS)
		px->c->tasks[fs->idx].had_selector = px->c->tasks[fs->idx].had_setting = true;
}

static void key(struct parse *px, const char *name, const char *value)
{
	struct uc_conf_loc loc = { px->file, px->line };
	char hint[256];
	struct file_sec *fs;
	int rc;

	if (px->in == IN_NONE) {
		ERR(px, "'%s' is outside any section: put it under [fast-path], [system], "
		    "[cgroup PATH] or [tasks NAME]", name);
		return;
	}
	if (px->in == IN_BROKEN)
		return;		/* under a broken header: already reported */
	fs = &px->secs[px->cur];
	if (!*name) {
		ERR(px, "a key name is missing before '='");
		no_cascade(px, fs);
		return;
	}
	for (size_t i = 0; i < fs->nseen; i++) {
		if (!strcmp(fs->seen[i].name, name)) {
			ERR(px, "duplicate key '%s' in %s (first at line %d)", name, fs->label,
			    fs->seen[i].line);
			return;
		}
	}
	if (fs->type == SEC_TASKS)
		rc = uc_conf_tasks_key(px->c, &px->c->tasks[fs->idx], name, value, &loc);
	else
		rc = set_key(px, fs, name, value);
	if (rc == -ENOENT) {
		ERR(px, "unknown key '%s' in %s; use %s", name, fs->label,
		    sections[fs->type].keys ? sections[fs->type].keys :
		    fs->type == SEC_TASKS ? uc_conf_tasks_keys(hint, sizeof(hint)) :
		    uc_sysctl_options(hint, sizeof(hint), ""));
		no_cascade(px, fs);
		return;
	}
	if (rc) {
		px->err = rc;
		return;
	}
	/* a known key is short, and a section has far fewer keys than the table holds */
	if (fs->nseen < sizeof(fs->seen) / sizeof(fs->seen[0]) &&
	    strlen(name) < sizeof(fs->seen[0].name)) {
		strcpy(fs->seen[fs->nseen].name, name);
		fs->seen[fs->nseen++].line = px->line;
	}
}

/* "KEY = VALUE" or "KEY: VALUE"; after the value, ';' following white space
 * starts a comment. A ';' after white space before the '=' means no '='. */
static void key_line(struct parse *px, char *s)
{
	char *end, *value;

	if (strlen(s) > UC_CONF_KEY_LINE_MAX) {
		ERR(px, "the line is longer than %d characters", UC_CONF_KEY_LINE_MAX);
		return;
	}
	end = find_or_comment(s, "=:");
	if (*end != '=' && *end != ':') {
		ERR(px, "expected 'key = value', a [section] header or a comment");
		return;
	}
	*end = '\0';
	value = end + 1;
	*find_or_comment(value, NULL) = '\0';
	key(px, trim(s), trim(value));
}

static void parse_line(struct parse *px)
{
	char *s = px->buf;

	if (px->line == 1 && !strncmp(s, bom, 3))
		s += 3;		/* a UTF-8 byte order mark, only at the very start */
	s = trim(s);
	if (!strncmp(s, bom, 3))
		ERR(px, "a UTF-8 byte order mark (BOM) is allowed only at the start of the file: "
		    "remove it");
	else if (!*s || *s == '#' || *s == ';')
		return;
	else if (*s == '[')
		header(px, s);
	else
		key_line(px, s);
}

int uc_config_load_stream(struct uc_config *c, FILE *f, const char *name)
{
	struct parse px = { .c = c, .f = f, .in = IN_NONE };
	enum line_kind kind;

	if (!(px.file = uc_config_add_file(c, name)) || !(px.buf = malloc(UC_CONF_LINE_MAX + 1)))
		return -ENOMEM;
	while (!px.err && (kind = read_line(&px)) != LINE_EOF) {
		if (kind == LINE_TOO_LONG)
			ERR(&px, "the line is longer than %d bytes", UC_CONF_LINE_MAX);
		else if (kind == LINE_NUL)
			ERR(&px, "the line contains a NUL byte (not a text file?)");
		else
			parse_line(&px);
		if (px.line == INT_MAX) {
			ERR(&px, "too many lines: the rest of the file is not read");
			break;
		}
	}
	if (!px.err && ferror(f)) {
		struct uc_conf_loc loc = { px.file, 0 };

		if (uc_config_error(c, &loc, -EIO, "read error"))
			px.err = -ENOMEM;
	}
	for (size_t i = 0; i < px.nsecs; i++) {
		free(px.secs[i].arg);
		free(px.secs[i].label);
	}
	free(px.secs);
	free(px.buf);
	return px.err;
}
