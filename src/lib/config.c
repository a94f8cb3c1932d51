/*
 * The configuration's lowest layer: the struct, its errors, a value or a
 * boolean from text. Above it, calling downwards only: config_tasks.c,
 * config_parse.c, config_load.c (finding, trusting, reading; the checks that
 * need every file), config_plan.c.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "uclamp/config.h"

/* ---- errors ------------------------------------------------------------ */

int uc_config_error(struct uc_config *c, const struct uc_conf_loc *loc, int err,
		    const char *fmt, ...)
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

int uc_config_skip(struct uc_config *c, const struct uc_conf_loc *loc, const char *section,
		   const char *target, pid_t pid, pid_t tid, const char *fmt, ...)
{
	struct uc_conf_skip *v, k = { .loc = *loc, .pid = pid, .tid = tid };
	va_list ap;
	int n;

	c->nskips_total++;
	if (c->nskips >= UC_CONF_MAX_SKIPS)
		return 0;
	va_start(ap, fmt);
	n = vasprintf(&k.why, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -ENOMEM;
	k.section = strdup(section);
	k.target = strdup(target);
	v = k.section && k.target ? realloc(c->skips, (c->nskips + 1) * sizeof(*v)) : NULL;
	if (!v) {
		free(k.why);
		free(k.section);
		free(k.target);
		return -ENOMEM;
	}
	c->skips = v;
	v[c->nskips++] = k;
	return 0;
}

/* Forget the skips a plan found, keep those of the files themselves. */
void uc_config_skips_reset(struct uc_config *c)
{
	for (size_t i = c->nskips_load; i < c->nskips; i++) {
		free(c->skips[i].section);
		free(c->skips[i].target);
		free(c->skips[i].why);
	}
	c->nskips = c->nskips_load;
	c->nskips_total = c->nskips_load_total;
}

static size_t file_index(const struct uc_config *c, const char *file)
{
	for (size_t i = 0; i < c->nfiles; i++)
		if (c->files[i] == file)
			return i;
	return c->nfiles;	/* not about a file: last */
}

/* Is (file a, line la) after (file b, line lb) in reading order? */
static bool after(const struct uc_config *c, const char *a, int la, const char *b, int lb)
{
	size_t fa = file_index(c, a), fb = file_index(c, b);

	return fa > fb || (fa == fb && la > lb);
}

/* Stable (insertion) sorts by file order, then line: the lists are short. */
void uc_config_sort_errors(struct uc_config *c)
{
	for (size_t i = 1; i < c->nerrors; i++) {
		struct uc_conf_error e = c->errors[i];
		size_t j = i;

		for (; j > 0 && after(c, c->errors[j - 1].file, c->errors[j - 1].line, e.file,
				      e.line); j--)
			c->errors[j] = c->errors[j - 1];
		c->errors[j] = e;
	}
	for (size_t i = 1; i < c->nskips; i++) {
		struct uc_conf_skip k = c->skips[i];
		size_t j = i;

		for (; j > 0 && after(c, c->skips[j - 1].loc.file, c->skips[j - 1].loc.line,
				      k.loc.file, k.loc.line); j--)
			c->skips[j] = c->skips[j - 1];
		c->skips[j] = k;
	}
}

/* ---- the struct ---------------------------------------------------------- */

void uc_config_init(struct uc_config *c)
{
	memset(c, 0, sizeof(*c));
}

void uc_config_free(struct uc_config *c)
{
	for (size_t i = 0; i < c->ncgroups; i++)
		free(c->cgroups[i].path);
	free(c->cgroups);
	for (size_t i = 0; i < c->ntasks; i++) {
		free(c->tasks[i].name);
		uc_sel_free(&c->tasks[i].rule);
		for (size_t k = 0; k < UC_SEL_MAX; k++)
			free(c->tasks[i].unknown[k]);
	}
	c->nskips_load = 0;
	uc_config_skips_reset(c);
	free(c->skips);
	free(c->tasks);
	for (size_t i = 0; i < c->nfiles; i++)
		free(c->files[i]);
	free(c->files);
	for (size_t i = 0; i < c->nerrors; i++)
		free(c->errors[i].msg);
	free(c->errors);
	uc_config_init(c);
}

const char *uc_config_add_file(struct uc_config *c, const char *name)
{
	char **v = realloc(c->files, (c->nfiles + 1) * sizeof(*v));

	if (!v)
		return NULL;
	c->files = v;
	if (!(v[c->nfiles] = strdup(name)))
		return NULL;
	return v[c->nfiles++];
}

/* ---- values ------------------------------------------------------------------ */

int uc_conf_sys_util(const struct uc_value *v)
{
	return v->util == UC_RESET ? UC_CAPACITY_SCALE : v->util;
}

int uc_conf_set_value(struct uc_config *c, struct uc_conf_value *dst, const char *key,
		      const char *sec, const char *val, const struct uc_conf_loc *loc)
{
	static const char hash[] = " (a comment after a value starts with ' ;', not '#')";
	struct uc_value v;
	int rc = uc_value_parse(val, &v);

	if (rc)
		return uc_config_error(c, loc, -EINVAL,
				       "invalid value '%s' for %s in %s: %s; use %s%s",
				       val, key, sec,
				       rc == -ERANGE ? "out of range" : "not a clamp value",
				       uc_value_forms, strchr(val, '#') ? hash : "");
	*dst = (struct uc_conf_value){ .set = true, .v = v, .loc = *loc };
	return 0;
}

int uc_conf_set_bool(struct uc_config *c, struct uc_conf_bool *dst, const char *key,
		     const char *sec, const char *val, const struct uc_conf_loc *loc)
{
	bool b;

	if (uc_bool_parse(val, &b))
		return uc_config_error(c, loc, -EINVAL,
				       "invalid value '%s' for %s in %s: use yes or no",
				       val, key, sec);
	*dst = (struct uc_conf_bool){ .set = true, .value = b, .loc = *loc };
	return 0;
}
