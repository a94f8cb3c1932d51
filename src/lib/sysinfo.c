/*
 * What the system says about uclamp: kernel support, the fast path's state,
 * the cgroup layout, whether clamps can act here (cpufreq governors, CPU
 * capacities, sched_ext), lockdown, and one line of advice.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "uclamp/kmem.h"
#include "uclamp/sysinfo.h"
#include "uclamp/sysroot.h"

static int cmp_gov(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;	/* id is the first member */
}

void uc_sysinfo_governors(struct uc_sysinfo *s)
{
	DIR *d = uc_opendir("/sys/devices/system/cpu/cpufreq");
	struct dirent *de;

	s->ngov = s->nschedutil = 0;
	s->gov_rc = d ? 0 : -errno;
	if (!d)
		return;
	while ((de = readdir(d)) && s->ngov < UC_SI_MAX_POLICIES) {
		char p[340];

		if (strncmp(de->d_name, "policy", 6) || !isdigit((unsigned char)de->d_name[6]))
			continue;
		snprintf(p, sizeof(p), "/sys/devices/system/cpu/cpufreq/%s/scaling_governor",
			 de->d_name);
		s->gov[s->ngov].id = atoi(de->d_name + 6);
		if (uc_read_str(p, s->gov[s->ngov].gov, sizeof(s->gov[0].gov)) < 0)
			snprintf(s->gov[s->ngov].gov, sizeof(s->gov[0].gov), "?");
		s->nschedutil += !strcmp(s->gov[s->ngov].gov, "schedutil");
		s->ngov++;
	}
	closedir(d);
	qsort(s->gov, s->ngov, sizeof(s->gov[0]), cmp_gov);
}

void uc_sysinfo_sched_ext(struct uc_sysinfo *s)
{
	char buf[128];
	ssize_t len = uc_read_str("/sys/kernel/sched_ext/state", s->scx, sizeof(s->scx));

	s->scx_rc = len < 0 ? (int)len : 0;
	s->scx_ops[0] = '\0';
	if (s->scx_rc == 0 && uc_read_str("/sys/kernel/sched_ext/root/ops", buf, sizeof(buf)) > 0)
		snprintf(s->scx_ops, sizeof(s->scx_ops), "%.63s", buf);
}

int uc_kernel_config(const char *release, const char *opt)
{
	char path[200], line[512];
	size_t olen = strlen(opt);
	int fd, found = -1;
	FILE *f;

	/* /boot, or beside the modules (Debian sid ships nothing in /boot) */
	snprintf(path, sizeof(path), "/boot/config-%s", release);
	fd = uc_open(path, O_RDONLY);
	if (fd < 0) {
		snprintf(path, sizeof(path), "/usr/lib/modules/%s/config", release);
		fd = uc_open(path, O_RDONLY);
	}
	if (fd < 0)
		return -1;
	f = fdopen(fd, "r");
	if (!f) {
		close(fd);
		return -1;
	}
	while (found < 0 && fgets(line, sizeof(line), f)) {
		if (!strncmp(line, opt, olen) && line[olen] == '=')
			found = line[olen + 1] == 'y';
		else if (!strncmp(line, "# ", 2) && !strncmp(line + 2, opt, olen) &&
			 !strncmp(line + 2 + olen, " is not set", 11))
			found = 0;
	}
	fclose(f);
	return found;
}

/*
 * CONFIG_UCLAMP_TASK_GROUP from the symbol list: cpu_uclamp_min_write() is
 * a cftype callback (never inlined), and kallsyms lists text symbols, with
 * or without KALLSYMS_ALL and even with zeroed addresses. 1 listed, 0 not
 * in a real (long) list, -1 cannot tell.
 */
static int group_symbol(void)
{
	struct uc_ksym k[] = { { .name = "cpu_uclamp_min_write" }, { .name = "_text" } };
	struct uc_ksym_stats st;

	if (uc_ksym_lookup_many("/proc/kallsyms", k, 2, &st))
		return -1;
	if (k[0].rc != -ENOENT)
		return 1;
	return k[1].rc != -ENOENT && st.lines - st.modules >= 1000 ? 0 : -1;
}

void uc_sysinfo_support(struct uc_sysinfo *s)
{
	const struct uc_fastpath *fp = &s->fp;

	if (fp->sysctls || fp->support == UC_SUPPORT_YES)
		s->task = 1;
	else if (fp->state == UC_KEY_UNSUPPORTED)
		s->task = 0;
	else
		s->task = -1;
	/* group support: a cgroup with the files, or cpu groups without them */
	if (s->task == 0)
		s->task_group = 0;
	else if (fp->scan.cgroups_uclamp)
		s->task_group = 1;
	else if (fp->scan.cgroups_cpu)
		s->task_group = 0;
	else if ((s->task_group = group_symbol()) < 0)
		s->task_group = uc_kernel_config(s->release, "CONFIG_UCLAMP_TASK_GROUP");
}

#define advise(s, ...) snprintf((s)->advice, sizeof((s)->advice), __VA_ARGS__)

void uc_sysinfo_advise(struct uc_sysinfo *s)
{
	const struct uc_fastpath *fp = &s->fp;
	bool clamped = fp->scan.tasks_nondefault || fp->scan.cgroups_nondefault;

	if (fp->state == UC_KEY_UNSUPPORTED)
		advise(s, "this kernel has no uclamp (CONFIG_UCLAMP_TASK, Linux 5.3+): "
		       "clamps cannot be used here");
	else if (s->scx_rc == 0 && !strcmp(s->scx, "enabled"))
		advise(s, "a sched_ext scheduler is loaded: what clamps do now depends on it");
	else if (s->ngov && !s->nschedutil)
		advise(s, "no CPU uses the schedutil governor: clamps will not change CPU "
		       "frequency%s", s->cap_rc == 0 ? " (only task placement)" : "");
	else if (!s->ngov)
		advise(s, "no cpufreq policies: clamps cannot change CPU frequency here%s",
		       s->cap_rc == 0 ? " (only task placement)" : "");
	else if (fp->state == UC_KEY_OFF)
		advise(s, "the fast path is off: the first clamp write turns it on until "
		       "reboot (uclampctl asks first); %s", UC_FASTPATH_COST);
	else if (fp->state == UC_KEY_ON && !clamped)
		advise(s, "the fast path is on but nothing is clamped now: "
		       "its cost stays until reboot");
	else if (fp->state == UC_KEY_ON || fp->state == UC_KEY_ALWAYS_ON)
		advise(s, "the fast path is already %s: more clamps add no static-key cost",
		       uc_key_state_name(fp->state));
	else
		advise(s, "the fast path's state is unknown: run as root to read it (see "
		       "-v); writes will ask first");
}

void uc_sysinfo_read(struct uc_sysinfo *s)
{
	memset(s, 0, sizeof(*s));
	uc_kernel_release(s->release, sizeof(s->release));
	uc_fastpath_detect_flags(&s->fp, UC_FP_FULL_SCAN);
	s->cg_rc = uc_cg_init(&s->cg);
	uc_sysinfo_governors(s);
	s->cap_rc = uc_cpu_capacity_symmetric(s->caps, sizeof(s->caps));
	uc_sysinfo_sched_ext(s);
	s->ld_rc = uc_lockdown_state(s->lockdown, sizeof(s->lockdown));
	uc_sysinfo_support(s);
	uc_sysinfo_advise(s);
}
