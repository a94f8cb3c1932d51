/*
 * The live view's samples ('uclampctl top'). One pass over /proc per
 * sample reads every thread's stat: its CPU time, the CPU it last ran on
 * and its start time, with the TID its identity. The previous sample's CPU
 * times, in a table keyed by TID and start time (a reused TID is a new
 * task), give what each task ran over the interval. For the tasks that ran
 * (and the ones the caller shows): the requested clamps (sched_getattr),
 * the effective ones and PELT util (/proc/PID/task/TID/sched; effective.c's
 * rule where that file cannot be read). Per CPU: what ran there, the
 * highest clamps among it, the util it leaves, the rq clamps assumed and
 * schedutil's projection (sugov.c) from the policy's frequencies read in
 * the same sample, with the time in each P-state over the interval
 * (effect_freq.c).
 *
 * Reads only: no file is opened for writing, no sched_setattr is made, no
 * process is started. Memory: two task tables (this sample's and the
 * last), sized by the threads there are.
 */
#ifndef UCLAMP_TOP_H
#define UCLAMP_TOP_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "uclamp/effect.h"
#include "uclamp/effective.h"
#include "uclamp/rules.h"
#include "uclamp/sched.h"
#include "uclamp/tasks.h"

#define UC_TOP_MAX_CPUS 4096

struct uc_top_task {
	pid_t pid, tid;
	unsigned long long start;	/* with tid, its identity (stat field 22) */
	unsigned long long cputime;	/* utime + stime since it started, clock ticks */
	long long ran;			/* ticks over the interval; -1 unknown */
	int cpu;			/* the CPU it last ran on; -1 unknown */
	char comm[16];			/* the thread's name, as its stat shows it */
	bool selected;			/* the caller's selection (rules, IDs) takes it */
	/* uc_top_detail(): */
	bool detailed;
	int attr_rc;			/* sched_getattr: 0 or -errno */
	struct uc_sched_attr sa;
	int sf_rc;			/* the sched file: 0 or -errno (-ENOENT: none here) */
	struct uc_sched_file sf;
	int eff_min, eff_max;		/* effective clamps, -1 unknown */
};

struct uc_top_cpu {
	int cpu;
	int policy;			/* index into e->p[] and uc_top.f[], -1: none */
	long capacity;			/* cpuN/cpu_capacity, else 1024 */
	unsigned long long ran;		/* CPU time of the tasks that ran there, ticks */
	size_t ntasks;			/* how many ran there */
	/* the sum of their util (each the larger of util_avg and util_est), at
	 * most the capacity; -1 when none of them showed one */
	long util;
	int hi_min, hi_max;		/* the highest effective clamps among them, -1 none */
	/* The rq clamps the projection assumes. The kernel takes, at each
	 * moment, the highest of the tasks runnable then; a sample sees only
	 * which tasks ran and for how long, so: the highest among the tasks
	 * that ran there at least a quarter as long as the one that ran
	 * longest (a short visitor does not hold the rq for long). None: 0, 1024. */
	int rq_min, rq_max;
	int pred_rc;			/* 0, -ENODATA (no util or no policy), -EINVAL */
	struct uc_sugov_out pred;
};

/* One policy's frequencies this sample and the time in each P-state since the last. */
struct uc_top_freq {
	struct uc_eff_freq f;
	int delta_rc;			/* uc_eff_freq_delta(): 0, -ENODATA, -EINVAL */
	unsigned long long d[UC_EFF_MAX_FREQS], total;	/* 10 ms units */
};

struct uc_top {
	/* the caller's, before uc_top_init() */
	const struct uc_effect *e;	/* policies, invariance, kernel version */
	const struct uc_rules *rs;	/* the selection: which tasks are selected */
	const pid_t *pids;		/* and these IDs (a PID: its threads), if npids */
	size_t npids;
	struct uc_eff *eff;		/* effective clamps where the sched file shows none */

	long hz;			/* clock ticks a second (USER_HZ) */
	double interval;		/* seconds between the last two samples */
	unsigned long long samples;	/* taken so far (the first is the baseline) */
	struct uc_top_task *task;	/* this sample's tasks, in /proc order */
	size_t ntask;
	struct uc_top_cpu *cpu;		/* the CPUs online (or in a policy), ascending */
	size_t ncpu;
	struct uc_top_freq *f;		/* per e->p[i] (none for the "no cpufreq" row) */
	size_t nf;

	/* what could not be seen, this sample */
	size_t denied;			/* tasks whose files or attributes were refused */
	pid_t denied_tid;		/* one of them */
	bool no_sched_file;		/* the kernel has no /proc/PID/sched (SCHED_DEBUG off) */
	bool no_util_avg, no_util_est, no_eff;	/* a sched file read lacked the field */

	/* private */
	struct uc_top_task *old;	/* the last sample's, and its index by TID */
	size_t nold, cap, oldcap;
	size_t *hash, hcap;
	struct uc_proc *proc;
	double t_now;			/* CLOCK_MONOTONIC seconds of this sample */
	unsigned long long boot_ticks;	/* CLOCK_BOOTTIME in ticks at this sample */
	unsigned long long boot_old;
};

/* Set up (the caller's fields set) and take the baseline sample, whose
 * frequencies are those e holds. 0 or -errno (-ENOMEM, /proc unreadable);
 * uc_top_free() either way. */
int uc_top_init(struct uc_top *t);
/* The next sample: the walk, the details of the tasks that ran, the
 * frequencies and the CPUs. 0 or -errno. */
int uc_top_sample(struct uc_top *t);
/* Read a task's clamps and util (once a sample): for a task shown that did not run. */
void uc_top_detail(struct uc_top *t, struct uc_top_task *k);
/* schedutil's projection for k's CPU while k is runnable there: that CPU's
 * util, rq clamps at least k's own. 0, or -ENODATA (no CPU, util or policy). */
int uc_top_project(const struct uc_top *t, const struct uc_top_task *k, struct uc_sugov_out *out);
void uc_top_free(struct uc_top *t);

#endif
