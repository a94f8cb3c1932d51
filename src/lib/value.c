/*
 * Clamp values. Units are the kernel's capacity units (0..1024); percentages
 * carry two decimals, like cgroup's cpu.uclamp.* files. Conversions follow
 * the kernel exactly (capacity_from_percent, kernel/sched/core.c).
 */
#include <errno.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "uclamp/value.h"

const char uc_value_forms[] =
	"0..1024, N% or N.NN% (0-100), max, or default (-1)";

/*
 * Digits only: no sign, no '+', no white space (strtol skips leading white
 * space and takes a sign, which none of these may have). Long numbers
 * saturate at cap, so they are out of range, not "not a number", and cannot
 * overflow.
 */
static int digits(const char *s, size_t len, unsigned long long cap, unsigned long long *out)
{
	unsigned long long v = 0;

	if (len == 0)
		return -EINVAL;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -EINVAL;
		v = v * 10 + (unsigned)(s[i] - '0');
		if (v > cap)
			v = cap;
	}
	*out = v;
	return 0;
}

int uc_num_parse(const char *s, unsigned long long lo, unsigned long long hi,
		 unsigned long long *v)
{
	unsigned long long n;

	if (digits(s, strlen(s), hi + 1, &n))
		return -EINVAL;
	if (n < lo || n > hi)
		return -ERANGE;
	*v = n;
	return 0;
}

/* for clamp values: far above any valid one */
#define UC_DIGITS_MAX 1000000

/* "NN", "NN.N", "NN.NN" -> hundredths. Three or more decimals are refused. */
static int parse_pct100(const char *s, size_t len, int *pct100)
{
	const char *dot = memchr(s, '.', len);
	unsigned long long whole, frac = 0;
	size_t wl = dot ? (size_t)(dot - s) : len;

	if (digits(s, wl, UC_DIGITS_MAX, &whole))
		return -EINVAL;
	if (dot) {
		size_t fl = len - wl - 1;

		if (fl == 0 || fl > 2 || digits(dot + 1, fl, UC_DIGITS_MAX, &frac))
			return -EINVAL;
		if (fl == 1)
			frac *= 10;
	}
	if (whole > 100 || (whole == 100 && frac > 0))
		return -ERANGE;
	*pct100 = (int)(whole * 100 + frac);
	return 0;
}

int uc_value_parse(const char *s, struct uc_value *v)
{
	unsigned long long n;
	size_t len;
	int rc;

	if (!s)
		return -EINVAL;
	len = strlen(s);
	if (len == 0)
		return -EINVAL;
	if (!strcmp(s, "max")) {
		*v = (struct uc_value){ .util = UC_CAPACITY_SCALE, .pct100 = UC_PCT_MAX };
		return 0;
	}
	if (!strcmp(s, "default") || !strcmp(s, "-1")) {
		*v = (struct uc_value){ .util = UC_RESET, .pct100 = -1 };
		return 0;
	}
	if (s[len - 1] == '%') {
		int pct100;

		/* a negative percentage is a range error, anything else not a value */
		if (s[0] == '-')
			return parse_pct100(s + 1, len - 2, &pct100) == -EINVAL ? -EINVAL : -ERANGE;
		rc = parse_pct100(s, len - 1, &pct100);
		if (rc)
			return rc;
		*v = (struct uc_value){ .util = uc_pct100_to_util(pct100),
					.pct100 = pct100,
					.percent = true };
		return 0;
	}
	/* a negative number is a range error, anything else not a value */
	if (s[0] == '-')
		return uc_num_parse(s + 1, 0, 0, &n) == -EINVAL ? -EINVAL : -ERANGE;
	rc = uc_num_parse(s, 0, UC_CAPACITY_SCALE, &n);
	if (rc)
		return rc;
	*v = (struct uc_value){ .util = (int)n, .pct100 = uc_util_to_pct100((int)n) };
	return 0;
}

int uc_pct100_to_util(int pct100)
{
	/* DIV_ROUND_CLOSEST(pct100 << SCHED_CAPACITY_SHIFT, UCLAMP_PERCENT_SCALE) */
	return (int)((((long)pct100 << 10) + 10000 / 2) / 10000);
}

int uc_util_to_pct100(int util)
{
	/* round(util * 10000 / 1024); always maps back to util (checked by tests) */
	return (int)(((long)util * 10000 + 512) / 1024);
}

int uc_pct_parse_kernel(const char *s, int *pct100)
{
	size_t len = strlen(s);

	while (len && (s[len - 1] == '\n' || s[len - 1] == ' '))
		len--;
	if (len == 3 && !memcmp(s, "max", 3)) {
		*pct100 = UC_PCT_MAX;
		return 0;
	}
	return parse_pct100(s, len, pct100) ? -EINVAL : 0;
}

const char *uc_pct100_format(int pct100, char *buf, size_t n)
{
	if (pct100 >= UC_PCT_MAX)
		snprintf(buf, n, "max");
	else if (pct100 < 0)
		snprintf(buf, n, "default");
	else
		snprintf(buf, n, "%d.%02d", pct100 / 100, pct100 % 100);
	return buf;
}

const char *uc_util_format_pct(int util, char *buf, size_t n)
{
	int h = uc_util_to_pct100(util);	/* two decimals, rounded to nearest */

	if (util < 0)
		snprintf(buf, n, "default");
	else
		snprintf(buf, n, "%d.%02d%%", h / 100, h % 100);
	return buf;
}

int uc_bool_parse(const char *s, bool *b)
{
	static const char *const yes[] = { "yes", "true", "on", "1" };
	static const char *const no[] = { "no", "false", "off", "0" };

	for (size_t i = 0; i < 4; i++) {
		if (!strcasecmp(s, yes[i])) {
			*b = true;
			return 0;
		}
		if (!strcasecmp(s, no[i])) {
			*b = false;
			return 0;
		}
	}
	return -EINVAL;
}

/* ---- IDs ---- */

int uc_pid_parse(const char *s, pid_t *pid)
{
	unsigned long long v;
	int rc = s ? uc_num_parse(s, 1, INT_MAX, &v) : -EINVAL;

	if (!rc)
		*pid = (pid_t)v;
	return rc;
}

/* Digits only, below (unsigned)-1: strtoul would take "+5", " 5" and "-1". */
static int numeric_id(const char *s, unsigned *id)
{
	unsigned long long v;

	if (uc_num_parse(s, 0, (unsigned)-1 - 1, &v))
		return -EINVAL;
	*id = (unsigned)v;
	return 0;
}

int uc_uid_parse(const char *s, uid_t *uid)
{
	struct passwd *pw = getpwnam(s);

	if (pw) {
		*uid = pw->pw_uid;
		return 0;
	}
	return numeric_id(s, uid);
}

int uc_gid_parse(const char *s, gid_t *gid)
{
	struct group *gr = getgrnam(s);

	if (gr) {
		*gid = gr->gr_gid;
		return 0;
	}
	return numeric_id(s, gid);
}
