/*
 * The declarative configuration (uclampctl.conf(5); config_parse.c,
 * config_tasks.c, config_load.c, config_plan.c). Loading collects every
 * problem as "file:line: message" and goes on; nothing is applied while
 * uc_config has errors.
 */
#ifndef UCLAMP_CONFIG_H
#define UCLAMP_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#include "uclamp/plan.h"
#include "uclamp/rules.h"
#include "uclamp/selectors.h"
#include "uclamp/sysctl.h"
#include "uclamp/value.h"

/* The default locations (under the sysroot, see sysroot.h). */
#define UC_CONFIG_FILE SYSCONFDIR "/uclampctl.conf"
#define UC_CONFIG_DIR SYSCONFDIR "/uclampctl.d"

/* A line, in bytes without its '\n': a longer one is an error. */
#define UC_CONF_LINE_MAX 8192
/* A "key = value" line, trimmed: a longer one is an error (the first parser's limit). */
#define UC_CONF_KEY_LINE_MAX 197

/* Where a section or key was written. file points into uc_config.files. */
struct uc_conf_loc {
	const char *file;
	int line;
};

struct uc_conf_value {
	bool set;
	struct uc_value v;
	struct uc_conf_loc loc;
};

struct uc_conf_bool {
	bool set, value;
	struct uc_conf_loc loc;
};

struct uc_conf_cgroup {
	char *path;			/* as written, '/' runs collapsed, no trailing '/' */
	struct uc_conf_loc loc;		/* the first header naming it */
	struct uc_conf_value min, max;
	/* min/max written, valid or not (no cascading "sets nothing") */
	bool had_setting;
};

struct uc_conf_tasks {
	char *name;
	struct uc_conf_loc loc;		/* the first header naming it */
	/* selectors and flags (selectors.h; a later file replaces a list); the
	 * settings below join the rule at planning (uc_config_task_rules) */
	struct uc_rule rule;
	struct uc_conf_loc sel_loc[UC_SEL_MAX];	/* by uc_sel_defs row, where it was set */
	struct uc_conf_value min, max;
	struct uc_conf_bool reset_on_fork, exclude;
	bool priority_set;
	int priority;			/* higher wins; ties: the later section */
	struct uc_conf_loc priority_loc;
	/* written, valid or not (no cascading "missing" errors) */
	bool had_selector, had_setting;
	/* by uc_sel_defs row: the users or groups this host lacks, or NULL; all
	 * unknown: the rule is off */
	char *unknown[UC_SEL_MAX];
	bool off;
};

struct uc_conf_error {
	const char *file;	/* NULL: not about a file */
	int line;		/* 0: about the whole file */
	/* -EINVAL: the configuration is wrong; else the state (ENOENT, EOPNOTSUPP, ...) */
	int err;
	char *msg;
};

#define UC_CONF_MAX_ERRORS 100	/* kept; more are only counted */

/* A target a run leaves alone while it applies the rest (a group not there,
 * a unit not running, an unknown user, a conflicting task): not an error,
 * nothing planned for it. */
struct uc_conf_skip {
	struct uc_conf_loc loc;	/* the section (its header) or key */
	char *section;		/* "cgroup nginx.service", "tasks build" */
	char *target;		/* "nginx.service", "user 'ghost'", "pid 12 tid 12 (cc1)" */
	pid_t pid, tid;		/* a task's, else 0 */
	char *why;
};

#define UC_CONF_MAX_SKIPS 100	/* kept; more are only counted */

struct uc_config {
	struct uc_conf_bool allow_enable;		/* [fast-path] */
	struct uc_conf_value sys[UC_SYSCTL_NKNOBS];	/* [system], by enum uc_sysctl_id */
	struct uc_conf_cgroup *cgroups;
	size_t ncgroups;
	struct uc_conf_tasks *tasks;
	size_t ntasks;
	char **files;		/* every file read, in order */
	size_t nfiles;
	struct uc_conf_error *errors;
	size_t nerrors;		/* kept (at most UC_CONF_MAX_ERRORS) */
	size_t nerrors_total;	/* found */
	struct uc_conf_skip *skips;
	size_t nskips;		/* kept (at most UC_CONF_MAX_SKIPS) */
	size_t nskips_total;	/* found */
	/* those found by uc_config_validate (users, groups): a plan keeps them */
	size_t nskips_load, nskips_load_total;
};

void uc_config_init(struct uc_config *c);
void uc_config_free(struct uc_config *c);

/* Read one file (a later call wins per key; problems into c->errors): 0 or
 * -ENOMEM. Any bytes: never crashes. */
int uc_config_load_stream(struct uc_config *c, FILE *f, const char *name);
/* A file, or a trusted directory's *.conf in name order ("DIR/": may be
 * missing). Only trusted files are read (config_load.c). */
int uc_config_load_path(struct uc_config *c, const char *path);
/* UC_CONFIG_FILE (when it exists) then UC_CONFIG_DIR/\*.conf, under the
 * sysroot. Returns how many files were read, or -ENOMEM. */
int uc_config_load_default(struct uc_config *c);

/* The checks that need every file, once after loading; sorts the errors.
 * Returns their number (c->nerrors_total). */
size_t uc_config_validate(struct uc_config *c);

/* A [system] clamp's capacity value for comparisons: "default" is 1024. */
int uc_conf_sys_util(const struct uc_value *v);

/* Sort the errors, and the skips, by file order, then line (stable). */
void uc_config_sort_errors(struct uc_config *c);

/* Record a skipped target (printf-style reason); pid/tid 0 when not a task.
 * -ENOMEM or 0. */
int uc_config_skip(struct uc_config *c, const struct uc_conf_loc *loc, const char *section,
		   const char *target, pid_t pid, pid_t tid, const char *fmt, ...)
	__attribute__((format(printf, 7, 8)));

/* Drop the skips a plan recorded; those of uc_config_validate stay. */
void uc_config_skips_reset(struct uc_config *c);

/* Record a file's name in c->files (errors point there). NULL: no memory. */
const char *uc_config_add_file(struct uc_config *c, const char *name);

/* Append an error (printf-style message). -ENOMEM or 0. */
int uc_config_error(struct uc_config *c, const struct uc_conf_loc *loc, int err, const char *fmt,
		    ...) __attribute__((format(printf, 4, 5)));

/* For the section parsers: a value or boolean from text, or its error
 * recorded ("file:line: invalid value ..."). 0 or -ENOMEM. */
int uc_conf_set_value(struct uc_config *c, struct uc_conf_value *dst, const char *key,
		      const char *sec, const char *val, const struct uc_conf_loc *loc);
int uc_conf_set_bool(struct uc_config *c, struct uc_conf_bool *dst, const char *key,
		     const char *sec, const char *val, const struct uc_conf_loc *loc);

/* [tasks NAME] (config_tasks.c): one key, 0 (set or error recorded), -ENOENT
 * (not a [tasks] key) or -ENOMEM; and the checks that need every file. */
int uc_conf_tasks_key(struct uc_config *c, struct uc_conf_tasks *t, const char *key,
		      const char *value, const struct uc_conf_loc *loc);
/* "comm, user, ... or exclude": every key, for hints. */
const char *uc_conf_tasks_keys(char *buf, size_t n);
void uc_conf_tasks_validate(struct uc_config *c, struct uc_conf_tasks *t);

/* Plans (config_plan.c): only values that differ; a target left alone goes to
 * c->skips, a problem of the file or host to c->errors and its -errno is
 * returned (then the plan must not run). */
int uc_config_plan_system(struct uc_config *c, const struct uc_sysctl_values *cur,
			  struct uc_plan *p);
/* The sections as rules pointing into c (v[i] is c->tasks[i]); free() them.
 * NULL: no memory. */
struct uc_rule *uc_config_task_rules(const struct uc_config *c);
/* All of it against the running system, in the order system, cgroups, tasks. */
int uc_config_plan(struct uc_config *c, struct uc_plan *p);

/* A [cgroup] value as the pct100 to write (UC_KEEP when not set; "default"
 * is 0.00 for min, max for max). */
int uc_conf_cg_pct(const struct uc_conf_value *v, bool is_max);
/* One group at rel brought to min/max (pct100 or UC_KEEP) as apply plans it:
 * 0 planned, 1 skipped (in c->skips), or an error's -errno. Watch's step. */
int uc_config_plan_group(struct uc_config *c, const struct uc_conf_cgroup *g, const char *rel,
			 int min, int max, struct uc_plan *p);

#endif
