/* What the user types: clamp values (the one vocabulary of tasks, sysctls and
 * cgroups), booleans, PIDs, users and groups. */
#ifndef UCLAMP_VALUE_H
#define UCLAMP_VALUE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define UC_CAPACITY_SCALE 1024	/* SCHED_CAPACITY_SCALE */
#define UC_RESET (-1)		/* "default": reset to the kernel default */
#define UC_PCT_MAX 10000	/* 100.00% in hundredths */

struct uc_value {
	int util;	/* 0..1024, or UC_RESET */
	/* hundredths of a percent: as written, or the exact one for util; -1 for reset */
	int pct100;
	bool percent;	/* the user wrote a percentage */
};

/* The accepted forms, for error messages. */
extern const char uc_value_forms[];

/*
 * Parse "512", "50%", "12.34%", "max", "default" or "-1".
 * Returns 0, or -EINVAL (not a value), -ERANGE (a number out of range).
 * Nothing else is accepted: no hex, no signs other than exactly "-1", no
 * trailing garbage, at most two decimals.
 */
int uc_value_parse(const char *s, struct uc_value *v);

/* Percent hundredths -> capacity units, exactly as the kernel's
 * capacity_from_percent(): DIV_ROUND_CLOSEST(pct100 << 10, 10000). */
int uc_pct100_to_util(int pct100);

/* Capacity units -> the percent hundredths that map back to exactly util. */
int uc_util_to_pct100(int util);

/* Parse what a cgroup cpu.uclamp.* file prints ("max", "20.50"), optional
 * trailing newline. 0 or -EINVAL. */
int uc_pct_parse_kernel(const char *s, int *pct100);

/* Format pct100 as the kernel prints it: "max" for 10000, else "20.50". */
const char *uc_pct100_format(int pct100, char *buf, size_t n);

/* Format util as a percentage with two decimals ("50.00%"); "default" for -1. */
const char *uc_util_format_pct(int util, char *buf, size_t n);

/* "yes", "true", "on", "1" or their opposites, any case: 0 or -EINVAL. */
int uc_bool_parse(const char *s, bool *b);

/* A whole number as typed, lo..hi (hi below ULLONG_MAX / 10): digits only (no
 * sign, no white space, no hex). 0 and *v, -EINVAL (not digits) or -ERANGE
 * (outside; long numbers saturate, they never overflow). */
int uc_num_parse(const char *s, unsigned long long lo, unsigned long long hi,
		 unsigned long long *v);

/* ---- IDs as typed: the command line and the configuration take the same ---- */

/* As uc_num_parse, in 1..INT_MAX: 0 and *pid, -EINVAL or -ERANGE. */
int uc_pid_parse(const char *s, pid_t *pid);
/* A name the system knows, else digits only below (uid_t)-1: 0 or -EINVAL. */
int uc_uid_parse(const char *s, uid_t *uid);
int uc_gid_parse(const char *s, gid_t *gid);

#endif
