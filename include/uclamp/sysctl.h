/* The three system-wide knobs in /proc/sys/kernel. */
#ifndef UCLAMP_SYSCTL_H
#define UCLAMP_SYSCTL_H

#include <stddef.h>

#include "uclamp/plan.h"

#define UC_SYSCTL_ABSENT (-1)

/* The knobs, in the order the kernel added them: indexes into uc_sysctl_knobs. */
enum uc_sysctl_id { UC_SYS_MIN, UC_SYS_MAX, UC_SYS_RT_DEFAULT, UC_SYSCTL_NKNOBS };

/* Everything about a knob, one table (sysctl.c) for every user. A new knob is
 * a row here, its field in uc_sysctl_values, its UC_ATTR_ (plan.h), its test and
 * its words in the two man pages (test-knobs.sh); the rest asks the binary. */
struct uc_sysctl_knob {
	enum uc_attr attr;	/* UC_ATTR_MIN, UC_ATTR_MAX, UC_ATTR_RT_DEFAULT */
	const char *file;	/* "sched_util_clamp_min" in /proc/sys/kernel; Prometheus label */
	const char *knob;	/* "util_min": what users write, JSON key */
	const char *option;	/* "min": 'system set --min' and the [system] config key */
	const char *since;	/* "5.3": the first kernel with it */
	const char *meaning;	/* one line for tables */
	const char *about;	/* for --help: what it does and its default; '\n' between lines */
	size_t off;		/* its field in struct uc_sysctl_values */
};
extern const struct uc_sysctl_knob uc_sysctl_knobs[UC_SYSCTL_NKNOBS];
/* NULL for an attribute that is not a knob. */
const struct uc_sysctl_knob *uc_sysctl_knob(enum uc_attr attr);
const char *uc_sysctl_name(enum uc_attr attr);	/* ->file, or NULL */
int uc_sysctl_read(enum uc_attr attr, long *value);	/* -ENOENT when absent */
/* Writes "N\n" (the file truncated first, so a fake root reads back cleanly).
 * -ERANGE for a value outside 0..1024, without writing. */
int uc_sysctl_write(enum uc_attr attr, long value);
/* The absolute path ("/proc/sys/kernel/sched_util_clamp_min"), before the sysroot prefix. */
const char *uc_sysctl_path(enum uc_attr attr, char *buf, size_t n);

/* Can this knob be opened for writing? 0 or -errno (EROFS in a container,
 * EACCES for non-root); a check before asking for consent, not a guarantee. */
int uc_sysctl_writable(enum uc_attr attr);

struct uc_sysctl_values {
	long min, max, rt_default;	/* UC_SYSCTL_ABSENT when the file does not exist */
};
/* -ENOENT: no uclamp (sched_util_clamp_min or _max missing); rt_default
 * alone may be absent (kernels before 5.9). Other -errno as read. */
int uc_sysctl_read_all(struct uc_sysctl_values *v);
/* The field of v for attr; UC_SYSCTL_ABSENT for an attribute that is not a knob. */
long uc_sysctl_value(const struct uc_sysctl_values *v, enum uc_attr attr);
/* The knobs' options, "min, max or rt-default" (prefix "--": as typed). */
const char *uc_sysctl_options(char *buf, size_t n, const char *prefix);
/* The knobs' names, "util_min, util_max or util_min_rt_default". */
const char *uc_sysctl_knob_names(char *buf, size_t n);
long *uc_sysctl_field(struct uc_sysctl_values *v, const struct uc_sysctl_knob *k);

/* The changes from cur to want (0..1024, UC_RESET, UC_KEEP) in an order that
 * keeps min <= max after every write; equal values count in p->unchanged.
 * Nothing added on error: -EINVAL (min > max, out of range), -ENOENT (no knob). */
int uc_sysctl_plan(struct uc_plan *p, const struct uc_sysctl_values *cur,
		   const struct uc_sysctl_values *want);

#endif
