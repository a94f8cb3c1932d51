/*
 * The declarative configuration (see config.h): the struct, its errors and
 * the checks that need every file. Reading a file is config_parse.c,
 * finding and opening the files (and trusting them) config_load.c.
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

void uc_config_free(struct uc_config *c)
{
	for (size_t i = 0; i < c->ncgroups; i++)
		free(c->cgroups[i].path);
	free(c->cgroups);
	for (size_t i = 0; i < c->ntasks; i++)
		uc_conf_tasks_free(&c->tasks[i]);
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

/* ---- checks across files ----------------------------------------------------- */

/* A clamp's capacity value for comparisons: "default" is 1024 for the system knobs. */
static int sys_util(const struct uc_value *v)
{
	return v->util == UC_RESET ? UC_CAPACITY_SCALE : v->util;
}

size_t uc_config_validate(struct uc_config *c)
{
	const struct uc_conf_value *smin = &c->sys[UC_SYS_MIN], *smax = &c->sys[UC_SYS_MAX];

	if (smin->set && smax->set && sys_util(&smin->v) > sys_util(&smax->v))
		uc_config_error(c, &smax->loc, -EINVAL, "[system] max %d is below min %d "
				"(set at %s:%d); the kernel needs min <= max",
				sys_util(&smax->v), sys_util(&smin->v), smin->loc.file,
				smin->loc.line);
	for (size_t i = 0; i < c->ncgroups; i++) {
		const struct uc_conf_cgroup *g = &c->cgroups[i];

		if (!g->had_setting)
			uc_config_error(c, &g->loc, -EINVAL,
					"[cgroup %s] sets nothing: add min or max", g->path);
	}
	for (size_t i = 0; i < c->ntasks; i++)
		uc_conf_tasks_validate(c, &c->tasks[i]);
	uc_config_sort_errors(c);
	return c->nerrors_total;
}
