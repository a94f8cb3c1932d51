/*
 * [tasks NAME] sections: their keys (the selectors through the selector
 * table's one setter; the settings min, max, reset-on-fork, exclude, priority
 * here) and the checks that need every file.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "uclamp/config.h"
#include "uclamp/note.h"
#include "uclamp/selectors.h"

#define UC_PRIORITY_MAX 1000000

static int set_priority(struct uc_config *c, struct uc_conf_tasks *t, const char *sec,
			const char *val, const struct uc_conf_loc *loc)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(val, &end, 10);
	if (!*val || *end || errno || v < -UC_PRIORITY_MAX || v > UC_PRIORITY_MAX)
		return uc_config_error(c, loc, -EINVAL,
				       "invalid value '%s' for priority in %s: use a whole number "
				       "from %d to %d (higher wins)",
				       val, sec, -UC_PRIORITY_MAX, UC_PRIORITY_MAX);
	t->priority = (int)v;
	t->priority_set = true;
	t->priority_loc = *loc;
	return 0;
}

/* The settings: what a section does to the tasks it selects. */
static const char *const settings[] = { "min", "max", "reset-on-fork", "priority", "exclude" };

const char *uc_conf_tasks_keys(char *buf, size_t n)
{
	const char *keys[UC_SEL_MAX + sizeof(settings) / sizeof(settings[0])];
	size_t k = 0;

	for (size_t i = 0; i < uc_sel_ndefs; i++)
		keys[k++] = uc_sel_defs[i].key;
	for (size_t i = 0; i < sizeof(settings) / sizeof(settings[0]); i++)
		keys[k++] = settings[i];
	return uc_note_words(buf, n, "", keys, k);
}

static int set_selector(struct uc_config *c, struct uc_conf_tasks *t, const char *sec,
			const struct uc_sel_def *d, const char *value,
			const struct uc_conf_loc *loc)
{
	char err[PATH_MAX + 160], unknown[UC_CONF_KEY_LINE_MAX + 1];
	size_t k = (size_t)(d - uc_sel_defs);
	int rc;

	if (d->kind != UC_SEL_FLAG)
		t->had_selector = true;
	/* a user or group this host lacks is skipped, not an error: see
	 * uc_conf_tasks_validate (a later file's list replaces this one) */
	rc = uc_sel_set_known(&t->rule, d, value, unknown, sizeof(unknown), err, sizeof(err));
	if (rc == -EINVAL)
		return uc_config_error(c, loc, -EINVAL, "%s in %s: %s", d->key, sec, err);
	if (rc)
		return rc;
	t->sel_loc[k] = *loc;
	free(t->unknown[k]);
	t->unknown[k] = NULL;
	if (*unknown && !(t->unknown[k] = strdup(unknown)))
		return -ENOMEM;
	return 0;
}

int uc_conf_tasks_key(struct uc_config *c, struct uc_conf_tasks *t, const char *key,
		      const char *value, const struct uc_conf_loc *loc)
{
	const struct uc_sel_def *d = uc_sel_find(key);
	char sec[PATH_MAX + 32];

	snprintf(sec, sizeof(sec), "[tasks %s]", t->name);
	if (d)
		return set_selector(c, t, sec, d, value, loc);
	if (!strcmp(key, "min") || !strcmp(key, "max")) {
		t->had_setting = true;
		return uc_conf_set_value(c, key[1] == 'i' ? &t->min : &t->max, key, sec, value,
					 loc);
	}
	if (!strcmp(key, "reset-on-fork")) {
		t->had_setting = true;
		return uc_conf_set_bool(c, &t->reset_on_fork, key, sec, value, loc);
	}
	if (!strcmp(key, "exclude")) {
		t->had_setting = true;	/* "leave alone" is what it does */
		return uc_conf_set_bool(c, &t->exclude, key, sec, value, loc);
	}
	if (!strcmp(key, "priority"))
		return set_priority(c, t, sec, value, loc);
	return -ENOENT;
}

/* Users and groups this host lacks: skipped, and a section left with none of
 * a list it gave matches nothing (off), never every task. */
static void skip_unknown(struct uc_config *c, struct uc_conf_tasks *t)
{
	char sec[PATH_MAX + 8], target[UC_CONF_KEY_LINE_MAX + 32];

	snprintf(sec, sizeof(sec), "tasks %s", t->name);
	for (size_t k = 0; k < uc_sel_ndefs; k++) {
		const struct uc_sel_def *d = &uc_sel_defs[k];
		bool none = !uc_sel_given(&t->rule, d);

		if (!t->unknown[k])
			continue;
		t->off |= none;
		snprintf(target, sizeof(target), "%s %s", d->key, t->unknown[k]);
		uc_config_skip(c, &t->sel_loc[k], sec, target, 0, 0,
			       "no such %s on this host: %s", d->key,
			       none ? "the section matches no task here"
				    : "the section applies to the others it names");
	}
}

void uc_conf_tasks_validate(struct uc_config *c, struct uc_conf_tasks *t)
{
	bool sets = t->min.set || t->max.set || t->reset_on_fork.set;
	bool excludes = t->exclude.set && t->exclude.value;
	char keys[160];

	if (!t->had_selector)
		uc_config_error(c, &t->loc, -EINVAL,
				"[tasks %s] has no selector: add %s (a task must match all of "
				"them)", t->name, uc_sel_keys(keys, sizeof(keys)));
	if (!t->had_setting || (t->exclude.set && !t->exclude.value && !sets))
		uc_config_error(c, &t->loc, -EINVAL,
				"[tasks %s] sets nothing: add min, max or "
				"reset-on-fork (or exclude = yes)",
				t->name);
	if (excludes && sets)
		uc_config_error(c, &t->exclude.loc, -EINVAL,
				"[tasks %s] has exclude = yes and values to set: an "
				"exclude leaves its tasks alone; move min, max and "
				"reset-on-fork to another section",
				t->name);
	if (t->min.set && t->max.set && t->min.v.util != UC_RESET && t->max.v.util != UC_RESET &&
	    t->min.v.util > t->max.v.util) {
		uc_config_error(c, &t->max.loc, -EINVAL,
				"[tasks %s] max %d is below min %d (set at %s:%d)", t->name,
				t->max.v.util, t->min.v.util, t->min.loc.file, t->min.loc.line);
	}
	skip_unknown(c, t);
}
