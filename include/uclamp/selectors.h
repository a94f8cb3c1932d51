/*
 * The selectors: one table, one row per way of saying "which tasks". The
 * row names the [tasks] key and the command-line option (the same word),
 * the kind of value, where it lives in struct uc_rule, the /proc fields the
 * matcher reads for it and the help line. The config (config_tasks.c), the
 * command line (src/cmd/task.c), the man pages and the completions all
 * take their selectors from here; rules.c matches the string ones by the
 * table too. Adding a selector is a row here, its field in uc_rule and the
 * docs.
 */
#ifndef UCLAMP_SELECTORS_H
#define UCLAMP_SELECTORS_H

#include <stdbool.h>
#include <stddef.h>

#include "uclamp/rules.h"

enum uc_sel_kind {
	UC_SEL_NAMES,		/* names or globs, separated by white space or commas */
	UC_SEL_GLOB,		/* the whole value is one glob (cmdline) */
	UC_SEL_USERS,		/* user names or UIDs */
	UC_SEL_GROUPS,		/* group names or GIDs */
	UC_SEL_POLICIES,	/* scheduling policy names */
	UC_SEL_FLAG,		/* yes/no; on the command line an option without a value */
};

struct uc_sel_def {
	const char *key;	/* the [tasks] key */
	const char *option;	/* the long option, NULL: only in the config */
	char short_opt;		/* 0: none */
	enum uc_sel_kind kind;
	/* in struct uc_rule: the list's pointer and count (lists), or the bool (flags) */
	size_t off, count_off;
	unsigned need;		/* UC_PF_* the matcher reads for it */
	/* string kinds: the struct uc_proc field matched, and how (NULL: by rules.c itself) */
	size_t proc_off;
	bool (*match)(const char *pat, const char *value);
	/* one word, before it is kept: NULL or why it is refused (into err) */
	bool (*check)(const char *word, char *err, size_t n);
	const char *arg;	/* the value's name in help: "name", "path", ... */
	const char *help;	/* one line */
};

#define UC_SEL_MAX 16	/* room for the table's rows (checked where it is defined) */
extern const struct uc_sel_def uc_sel_defs[];
extern const size_t uc_sel_ndefs;

/* The row for a key ("comm"), or NULL. */
const struct uc_sel_def *uc_sel_find(const char *key);
/* Does the rule give this selector (a list with items, a flag that is set)? */
bool uc_sel_given(const struct uc_rule *r, const struct uc_sel_def *d);
/* "comm, user, ... or parent": the keys that select (not the flags). */
const char *uc_sel_keys(char *buf, size_t n);

/*
 * Set selector d of r from text. A list replaces the rule's (append: adds
 * to it, as a repeated option does); a flag takes yes/no. Returns 0,
 * -ENOMEM, or -EINVAL with one line in err saying what is wrong with the
 * value and what to write instead (the caller adds where: file:line, or
 * the option's name). On -EINVAL the rule is unchanged.
 */
int uc_sel_set(struct uc_rule *r, const struct uc_sel_def *d, const char *text, bool append,
	       char *err, size_t n);

/*
 * The configuration's setter: uc_sel_set (the list replaces the rule's),
 * except that a user or group name this host does not know is left out and
 * named in unknown (", "-separated; "" when every name is known) instead of
 * being an error: a fleet's file names users only some hosts have. When no
 * name is known the list is left empty, which selects every task: the
 * caller must then turn the rule off (uc_rule.off).
 */
int uc_sel_set_known(struct uc_rule *r, const struct uc_sel_def *d, const char *text,
		     char *unknown, size_t un, char *err, size_t n);

/* Free what uc_sel_set allocated in r, and empty it. */
void uc_sel_free(struct uc_rule *r);

/* A rule that changes nothing and selects every task (its selectors still
 * to be set): scope as the command line's (rt yes). */
void uc_sel_rule_init(struct uc_rule *r);

/* The string matchers the table names. fnmatch-style, exact without glob
 * characters; a cgroup pattern selects the group and every group below it. */
bool uc_rule_str_match(const char *pat, const char *s);
bool uc_rule_cgroup_match(const char *pat, const char *rel);
/* Does s hold a glob character? */
bool uc_rule_is_glob(const char *s);

#endif
