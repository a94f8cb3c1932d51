/* The system-wide clamps, sched_util_clamp_{min,max} (5.3+) and _min_rt_default
 * (5.9+), checked together by the kernel on every write (min <= max <= 1024). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "uclamp/note.h"
#include "uclamp/sched.h"
#include "uclamp/sysctl.h"
#include "uclamp/sysroot.h"
#include "uclamp/value.h"

#define AT(f) offsetof(struct uc_sysctl_values, f)

/* In the order the kernel added them; every name of a knob is here and only here. */
const struct uc_sysctl_knob uc_sysctl_knobs[UC_SYSCTL_NKNOBS] = {
	[UC_SYS_MIN] = {
		.attr = UC_ATTR_MIN, .file = "sched_util_clamp_min", .knob = "util_min",
		.option = "min", .since = "5.3", .off = AT(min),
		.meaning = "limit on every task's requested min",
		.about = "a LIMIT on every task's requested min, not a default\n"
			 "boost: a task that asks for more gets only this much\n"
			 "(kernel.sched_util_clamp_min, default 1024: no limit)",
	},
	[UC_SYS_MAX] = {
		.attr = UC_ATTR_MAX, .file = "sched_util_clamp_max", .knob = "util_max",
		.option = "max", .since = "5.3", .off = AT(max),
		.meaning = "cap on every task's and cgroup's max",
		.about = "a cap on the max of every task and every cgroup\n"
			 "(kernel.sched_util_clamp_max, default 1024: no cap)",
	},
	[UC_SYS_RT_DEFAULT] = {
		.attr = UC_ATTR_RT_DEFAULT, .file = "sched_util_clamp_min_rt_default",
		.knob = "util_min_rt_default", .option = "rt-default", .since = "5.9",
		.off = AT(rt_default), .meaning = "min of RT tasks that ask for none",
		.about = "the min that RT tasks get when they ask for none\n"
			 "themselves (kernel.sched_util_clamp_min_rt_default,\n"
			 "default 1024: RT runs at full speed; kernel 5.9+)",
	},
};

const struct uc_sysctl_knob *uc_sysctl_knob(enum uc_attr attr)
{
	for (size_t i = 0; i < UC_SYSCTL_NKNOBS; i++)
		if (uc_sysctl_knobs[i].attr == attr)
			return &uc_sysctl_knobs[i];
	return NULL;
}

const char *uc_sysctl_name(enum uc_attr attr)
{
	const struct uc_sysctl_knob *k = uc_sysctl_knob(attr);

	return k ? k->file : NULL;
}

/* One name of every knob (the const char * at offset field), "a, b or c". */
static const char *words(char *buf, size_t n, const char *prefix, size_t field)
{
	const char *w[UC_SYSCTL_NKNOBS];

	for (size_t i = 0; i < UC_SYSCTL_NKNOBS; i++)
		w[i] = *(const char *const *)((const char *)&uc_sysctl_knobs[i] + field);
	return uc_note_words(buf, n, prefix, w, UC_SYSCTL_NKNOBS);
}

const char *uc_sysctl_options(char *buf, size_t n, const char *prefix)
{
	return words(buf, n, prefix, offsetof(struct uc_sysctl_knob, option));
}

const char *uc_sysctl_knob_names(char *buf, size_t n)
{
	return words(buf, n, "", offsetof(struct uc_sysctl_knob, knob));
}

long *uc_sysctl_field(struct uc_sysctl_values *v, const struct uc_sysctl_knob *k)
{
	return (long *)((char *)v + k->off);
}

long uc_sysctl_value(const struct uc_sysctl_values *v, enum uc_attr attr)
{
	const struct uc_sysctl_knob *k = uc_sysctl_knob(attr);

	return k ? *uc_sysctl_field((struct uc_sysctl_values *)v, k) : UC_SYSCTL_ABSENT;
}

const char *uc_sysctl_path(enum uc_attr attr, char *buf, size_t n)
{
	const char *name = uc_sysctl_name(attr);

	snprintf(buf, n, "/proc/sys/kernel/%s", name ? name : "?");
	return buf;
}

int uc_sysctl_read(enum uc_attr attr, long *value)
{
	char path[128];

	if (!uc_sysctl_name(attr))
		return -EINVAL;
	return uc_read_long(uc_sysctl_path(attr, path, sizeof(path)), value);
}

int uc_sysctl_write(enum uc_attr attr, long value)
{
	char path[128], buf[32];

	if (!uc_sysctl_name(attr))
		return -EINVAL;
	/* never hand the kernel a value it would mangle (negatives become huge) */
	if (value < 0 || value > UC_CAPACITY_SCALE)
		return -ERANGE;
	snprintf(buf, sizeof(buf), "%ld\n", value);
	return uc_write_str(uc_sysctl_path(attr, path, sizeof(path)), buf);
}

int uc_sysctl_writable(enum uc_attr attr)
{
	char path[128], full[4096];
	int rc;

	if (!uc_sysctl_name(attr))
		return -EINVAL;
	rc = uc_path(full, sizeof(full), uc_sysctl_path(attr, path, sizeof(path)));
	if (rc)
		return rc;
	/* effective ids: root is not refused on mode bits, a read-only mount is */
	return faccessat(AT_FDCWD, full, W_OK, AT_EACCESS) ? -errno : 0;
}

int uc_sysctl_read_all(struct uc_sysctl_values *v)
{
	int rc = 0;

	for (size_t i = 0; i < UC_SYSCTL_NKNOBS; i++)
		*uc_sysctl_field(v, &uc_sysctl_knobs[i]) = UC_SYSCTL_ABSENT;
	for (size_t i = 0; i < UC_SYSCTL_NKNOBS && !rc; i++) {
		const struct uc_sysctl_knob *k = &uc_sysctl_knobs[i];

		rc = uc_sysctl_read(k->attr, uc_sysctl_field(v, k));
		if (uc_err_absent(rc))
			rc = 0;	/* not there: the field stays UC_SYSCTL_ABSENT */
	}
	if (rc)
		return rc;
	/* the later knobs may be missing on an older kernel; these two make uclamp */
	if (v->min == UC_SYSCTL_ABSENT || v->max == UC_SYSCTL_ABSENT)
		return -ENOENT;
	return 0;
}
