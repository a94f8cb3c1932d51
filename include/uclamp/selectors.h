/*
 * The selectors: one table, one row per way of saying "which tasks" (the
 * [tasks] key and option, its kind, its uc_rule field, what the matcher
 * reads, its help). A new selector: a row, its field, its test, its text in
 * uclampctl.conf(5); everything else (options, help, completions) follows.
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

/* Set selector d of r from text (append: as a repeated option; a flag: yes/no):
 * 0, -ENOMEM, or -EINVAL with one line in err on what to write instead
 * (the rule then unchanged). */
int uc_sel_set(struct uc_rule *r, const struct uc_sel_def *d, const char *text, bool append,
	       char *err, size_t n);

/* The configuration's setter: as uc_sel_set, but a user or group this host
 * lacks is left out and named in unknown ("" none); none known leaves the
 * list empty (all tasks): the caller turns the rule off. */
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
bool uc_rule_is_glob(const char *s);

#endif
