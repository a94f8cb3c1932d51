/* What the system says about uclamp, in one struct for 'status' and tests;
 * rendering is the caller's. */
#ifndef UCLAMP_SYSINFO_H
#define UCLAMP_SYSINFO_H

#include <stddef.h>

#include "uclamp/cgroup.h"
#include "uclamp/fastpath.h"
#include "uclamp/keys.h"

#define UC_SI_MAX_POLICIES 256

struct uc_cpufreq_policy {
	int id;			/* N of policyN */
	char gov[32];		/* scaling_governor, "?" when unreadable */
};

struct uc_sysinfo {
	char release[128];	/* "" when unknown */
	struct uc_fastpath fp;
	int task, task_group;	/* uclamp for tasks / cgroups: 1 yes, 0 no, -1 unknown */
	int cg_rc;		/* 0: cg holds the layout; -errno: no cpu hierarchy */
	struct uc_cg_info cg;
	struct uc_cpufreq_policy gov[UC_SI_MAX_POLICIES];	/* by id */
	size_t ngov, nschedutil;
	int gov_rc;		/* -ENOENT: no cpufreq */
	int cap_rc;		/* uc_cpu_capacity_symmetric(): 1 symmetric, 0 not, -errno */
	char caps[UC_SKEY_TEXT];	/* "cpu0-3 446, cpu4-7 1024" */
	int scx_rc;		/* 0: scx holds /sys/kernel/sched_ext/state; -errno */
	char scx[32], scx_ops[64];	/* scx_ops: the loaded scheduler, "" if none */
	int ld_rc;		/* 0: lockdown holds the mode in force; -errno */
	char lockdown[32];
	char advice[256];	/* one line: what clamps can do here and what a write would cost */
};

/* Everything, with a full scan of threads and cgroups (fp.scan counts). */
void uc_sysinfo_read(struct uc_sysinfo *s);

/* The parts of uc_sysinfo_read(), each filling its fields of s; exported,
 * with uc_kernel_config(), for test_sysinfo.c. */
void uc_sysinfo_governors(struct uc_sysinfo *s);	/* gov, ngov, nschedutil, gov_rc */
void uc_sysinfo_sched_ext(struct uc_sysinfo *s);	/* scx_rc, scx, scx_ops */
/* task, task_group from s->fp, the cgroup scan, the symbol list, then
 * /boot/config-<release>. */
void uc_sysinfo_support(struct uc_sysinfo *s);
/* advice from the fields above. */
void uc_sysinfo_advise(struct uc_sysinfo *s);

/* opt ("CONFIG_UCLAMP_TASK_GROUP") in /boot/config-<release>, else
 * /usr/lib/modules/<release>/config: 1 =y, 0 "is not set" or =m, -1 unknown
 * (no such file, or the option is not listed). */
int uc_kernel_config(const char *release, const char *opt);

#endif
