/*
 * One policy's frequencies, from the files of cpufreq.c and cpufreq_stats.c
 * (6.1 and 7.3 alike): scaling_cur_freq is the last frequency set;
 * cpuinfo_avg_freq (6.13+, where the CPU counts cycles) reads EAGAIN without a
 * recent sample; scaling_available_frequencies is the table (acpi-cpufreq:
 * fastest first); stats/time_in_state is "kHz ticks" (USER_HZ), reset to 0 by
 * a write to stats/reset.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "uclamp/effect.h"
#include "uclamp/sysroot.h"

#define CPUFREQ "/sys/devices/system/cpu/cpufreq"

static long read_khz(const char *dir, const char *file)
{
	char path[160];
	long v;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	return uc_read_long(path, &v) || v < 0 ? -1 : v;
}

static int find(const struct uc_eff_freq *f, long khz)
{
	for (size_t i = 0; i < f->n; i++)
		if (f->khz[i] == khz)
			return (int)i;
	return -1;
}

/* insert khz into the ascending table, unless there or full */
static void add_freq(struct uc_eff_freq *f, long khz)
{
	size_t i = 0;

	if (khz <= 0 || find(f, khz) >= 0 || f->n == UC_EFF_MAX_FREQS)
		return;
	while (i < f->n && f->khz[i] < khz)
		i++;
	memmove(&f->khz[i + 1], &f->khz[i], (f->n - i) * sizeof(f->khz[0]));
	memmove(&f->tis[i + 1], &f->tis[i], (f->n - i) * sizeof(f->tis[0]));
	f->khz[i] = khz;
	f->tis[i] = 0;
	f->n++;
}

static void read_available(struct uc_eff_freq *f, const char *dir)
{
	char path[160], buf[1024], *s, *end;

	snprintf(path, sizeof(path), "%s/scaling_available_frequencies", dir);
	uc_read_str(path, buf, sizeof(buf));	/* "" when unreadable: no frequencies */
	for (s = buf;; s = end) {
		long v = strtol(s, &end, 10);

		if (end == s)
			break;
		add_freq(f, v);
	}
}

/* time_in_state: its frequencies join the table (a driver may list none) */
static void read_tis(struct uc_eff_freq *f, const char *dir)
{
	char path[160], buf[4096], *line, *save = NULL;
	ssize_t len;

	snprintf(path, sizeof(path), "%s/stats/time_in_state", dir);
	len = uc_read_str(path, buf, sizeof(buf));
	if (len < 0) {
		f->tis_rc = (int)len;
		return;
	}
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		unsigned long long t;
		long khz;
		int i;

		if (sscanf(line, "%ld %llu", &khz, &t) != 2)
			continue;
		add_freq(f, khz);
		if ((i = find(f, khz)) >= 0)
			f->tis[i] = t;
	}
	f->tis_rc = 0;
}

static void read_capacity(struct uc_eff_freq *f)
{
	char path[96];
	long v;

	f->capacity = 1024;	/* SCHED_CAPACITY_SCALE: no file, every CPU the same */
	if (f->cpu < 0)
		return;
	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/cpu_capacity", f->cpu);
	if (!uc_read_long(path, &v) && v > 0 && v <= 1024) {
		f->capacity = v;
		f->capacity_read = true;
	}
}

int uc_eff_freq_read(int id, struct uc_eff_freq *f)
{
	char dir[96], path[160], buf[64];
	long v;

	memset(f, 0, sizeof(*f));
	f->cpu = -1;
	snprintf(dir, sizeof(dir), CPUFREQ "/policy%d", id);
	f->cur = read_khz(dir, "scaling_cur_freq");
	f->min = read_khz(dir, "scaling_min_freq");
	f->max = read_khz(dir, "scaling_max_freq");
	f->hw_min = read_khz(dir, "cpuinfo_min_freq");
	f->hw_max = read_khz(dir, "cpuinfo_max_freq");
	snprintf(path, sizeof(path), "%s/cpuinfo_avg_freq", dir);
	if (!uc_read_long(path, &v) && v > 0)
		f->avg = v;
	else
		f->avg = uc_exists(path) ? 0 : -1;
	snprintf(path, sizeof(path), "%s/affected_cpus", dir);
	if (uc_read_str(path, buf, sizeof(buf)) > 0)
		f->cpu = atoi(buf);
	read_available(f, dir);
	read_tis(f, dir);
	read_capacity(f);
	if (f->cur < 0 && f->max < 0 && f->n == 0 && !uc_exists(dir))
		return -ENOENT;
	return 0;
}

int uc_eff_freq_delta(const struct uc_eff_freq *a, const struct uc_eff_freq *b,
		      unsigned long long d[UC_EFF_MAX_FREQS], unsigned long long *total)
{
	*total = 0;
	if (a->tis_rc || b->tis_rc)
		return -ENODATA;
	if (a->n != b->n || memcmp(a->khz, b->khz, a->n * sizeof(a->khz[0])))
		return -EINVAL;
	for (size_t i = 0; i < a->n; i++) {
		if (b->tis[i] < a->tis[i])
			return -EINVAL;
		d[i] = b->tis[i] - a->tis[i];
		*total += d[i];
	}
	return 0;
}

long uc_eff_freq_resolve(const struct uc_eff_freq *f, long khz)
{
	long lo = f->min > 0 ? f->min : f->hw_min, hi = f->max > 0 ? f->max : f->hw_max;
	long best = -1;

	if (hi <= 0)
		return -1;
	if (lo > hi)
		lo = hi;	/* the kernel honours the max (cpufreq_driver_resolve_freq) */
	khz = khz < lo ? lo : khz > hi ? hi : khz;
	if (!f->n)
		return khz;
	/* CPUFREQ_RELATION_L within [lo, hi]: the lowest at or above, else
	 * the highest below */
	for (size_t i = 0; i < f->n; i++) {
		if (f->khz[i] < lo || f->khz[i] > hi)
			continue;
		if (f->khz[i] >= khz)
			return f->khz[i];
		best = f->khz[i];
	}
	return best > 0 ? best : khz;
}
