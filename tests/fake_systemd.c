/*
 * The CLI tests' stand-in for systemd's bus (uclamp/systemd.h), linked into
 * tests/uclampctl-test only: $UCLAMPCTL_TEST_SYSTEMD names a file of units,
 * one a line, "UNIT CGROUP WEIGHT [SLICE]" (CGROUP "-": not running; WEIGHT
 * "-": unset; SLICE: system.slice when not given). Each SetUnitProperties is
 * appended to FILE.calls and played as systemd does it on the fake cgroupfs:
 * cpu in the subtree_control of every parent, the group's cpu.uclamp files
 * created. The installed binary and the unit tests have src/lib/systemd_seam.c's
 * NULL instead.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "uclamp/cgroup.h"
#include "uclamp/systemd.h"

/* The unit's line: cgroup, weight and slice as written. */
static int find_slice(const char *unit, char *cg, size_t n, char *weight, size_t wn, char *slice,
		      size_t sn)
{
	const char *file = getenv(UC_TEST_SYSTEMD_ENV);
	char line[1024], u[256], c[512], w[32], s[256];
	FILE *f = fopen(file, "r");
	int rc = -ENOENT, k;

	if (!f)
		return -EHOSTDOWN;
	while (rc == -ENOENT && fgets(line, sizeof(line), f))
		if ((k = sscanf(line, "%255s %511s %31s %255s", u, c, w, s)) >= 3 &&
		    !strcmp(u, unit)) {
			snprintf(cg, n, "%s", c);
			snprintf(weight, wn, "%s", w);
			snprintf(slice, sn, "%s", k == 4 ? s : "system.slice");
			rc = 0;
		}
	fclose(f);
	return rc;
}

static int find(const char *unit, char *cg, size_t n, char *weight, size_t wn)
{
	char s[256];

	return find_slice(unit, cg, n, weight, wn, s, sizeof(s));
}

static int fake_unit_slice(const char *unit, char *slice, size_t n)
{
	char cg[512], w[32];

	return find_slice(unit, cg, sizeof(cg), w, sizeof(w), slice, n);
}

static int fake_unit_cgroup(const char *unit, char *cg, size_t n)
{
	char w[32];
	int rc = find(unit, cg, n, w, sizeof(w));

	return rc ? rc : !strcmp(cg, "-") ? -ENOMEDIUM : 0;
}

static int fake_cpu_weight(const char *unit, long *weight)
{
	char cg[512], w[32];
	int rc = find(unit, cg, sizeof(cg), w, sizeof(w));

	*weight = rc || !strcmp(w, "-") ? UC_SD_WEIGHT_UNSET : atol(w);
	return rc;
}

static void add_cpu(const char *dir)
{
	char path[PATH_MAX], buf[256] = "";
	FILE *f;

	if ((size_t)snprintf(path, sizeof(path), "%s/cgroup.subtree_control", dir) >= sizeof(path))
		return;
	if ((f = fopen(path, "r"))) {
		if (!fgets(buf, sizeof(buf), f))
			buf[0] = '\0';
		fclose(f);
	}
	buf[strcspn(buf, "\n")] = '\0';
	if (strstr(buf, "cpu"))
		return;
	if ((f = fopen(path, "w"))) {
		fprintf(f, "%s%scpu\n", buf, *buf ? " " : "");
		fclose(f);
	}
}

static void put(const char *dir, const char *name, const char *v)
{
	char path[PATH_MAX];
	FILE *f;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, name) >= sizeof(path))
		return;
	if ((f = fopen(path, "w"))) {
		fprintf(f, "%s\n", v);
		fclose(f);
	}
}

static int fake_set_cpu_weight(const char *unit, long weight)
{
	const struct uc_cg_info *info = uc_cg_layout();
	char cg[512], w[32], calls[PATH_MAX], dir[PATH_MAX];
	int rc = find(unit, cg, sizeof(cg), w, sizeof(w));
	FILE *f;

	if (rc)
		return rc;
	snprintf(calls, sizeof(calls), "%s.calls", getenv(UC_TEST_SYSTEMD_ENV));
	if ((f = fopen(calls, "a"))) {
		fprintf(f, "SetUnitProperties %s runtime CPUWeight=%ld\n", unit, weight);
		fclose(f);
	}
	if (!info || !strcmp(cg, "-"))
		return 0;
	/* every parent of the group, root first: cg is "/a/b/c" */
	for (const char *s = cg; s; s = strchr(s + 1, '/')) {
		if ((size_t)snprintf(dir, sizeof(dir), "%s%.*s", info->mount, (int)(s - cg), cg) >=
		    sizeof(dir))
			return -ENAMETOOLONG;
		add_cpu(dir);
	}
	if ((size_t)snprintf(dir, sizeof(dir), "%s%s", info->mount, cg) >= sizeof(dir))
		return -ENAMETOOLONG;
	put(dir, "cpu.uclamp.min", "0.00");
	put(dir, "cpu.uclamp.max", "max");
	return 0;
}

static const struct uc_sd_ops fake_ops = {
	.unit_cgroup = fake_unit_cgroup,
	.cpu_weight = fake_cpu_weight,
	.set_cpu_weight = fake_set_cpu_weight,
	.unit_slice = fake_unit_slice,
};

const struct uc_sd_ops *uc_test_sd_ops(void)
{
	const char *e = getenv(UC_TEST_SYSTEMD_ENV);

	return e && *e ? &fake_ops : NULL;
}
