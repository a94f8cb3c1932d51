/*
 * Evidence that sched_uclamp_used was enabled: values only a write the kernel
 * counts as "use" can produce (kernel-uclamp.md §1, §2). sysctls default to
 * 1024 and only a change enables the key (5.9+); new cgroups start at
 * 0.00/max and any accepted write enables it (the root has no files); tasks
 * start at 0/1024, but an RT task's min follows the RT default while not set
 * (deadline tasks too before 6.10). Blind spot: a fair task whose policy is
 * changed while PI-boosted to RT gets min = rt_default without a clamp write.
 * A reverted write leaves no trace: no evidence never means "off".
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "uclamp/cgroup.h"
#include "uclamp/fastpath.h"
#include "uclamp/note.h"
#include "uclamp/sched.h"
#include "uclamp/sysctl.h"
#include "uclamp/tasks.h"
#include "uclamp/value.h"

#define POLICY_DEADLINE 6

/* keep the last slot for fastpath.c's "and N more" */
#define evidence_note(fp, ...)                                                                  \
	do {                                                                                    \
		if (fp) {                                                                       \
			(fp)->scan.evidence++;                                                  \
			uc_note_add(&(fp)->evidence[0][0], UC_FP_NOTE_LEN, UC_FP_MAX_NOTES - 1, \
				    &(fp)->nevidence, __VA_ARGS__);                             \
		}                                                                               \
	} while (0)

bool uc_fp_sysctl_evidence(const struct uc_sysctl_values *v, struct uc_fastpath *fp)
{
	bool any = false;

	for (size_t i = 0; i < UC_SYSCTL_NKNOBS; i++) {
		const struct uc_sysctl_knob *k = &uc_sysctl_knobs[i];
		long val = uc_sysctl_value(v, k->attr);

		if (val == UC_SYSCTL_ABSENT || val == UC_CAPACITY_SCALE)
			continue;
		evidence_note(fp, "sysctl %s = %ld (default 1024)", k->file, val);
		any = true;
	}
	return any;
}

bool uc_fp_cgroup_evidence(const struct uc_fp_cg_sample *c, struct uc_fastpath *fp)
{
	char a[16], b[16];
	bool min = c->min_pct100 != 0, max = c->max_pct100 != UC_PCT_MAX;

	if (!c->has_files || (!min && !max))
		return false;
	if (min && max)
		evidence_note(fp, "cgroup %s: cpu.uclamp.min = %s, "
			      "cpu.uclamp.max = %s (defaults 0.00, max)",
			      c->path, uc_pct100_format(c->min_pct100, a, sizeof(a)),
			      uc_pct100_format(c->max_pct100, b, sizeof(b)));
	else if (min)
		evidence_note(fp, "cgroup %s: cpu.uclamp.min = %s (default 0.00)", c->path,
			      uc_pct100_format(c->min_pct100, a, sizeof(a)));
	else
		evidence_note(fp, "cgroup %s: cpu.uclamp.max = %s (default max)", c->path,
			      uc_pct100_format(c->max_pct100, b, sizeof(b)));
	return true;
}

bool uc_fp_task_evidence(const struct uc_fp_task_sample *t, long rt_default, struct uc_fastpath *fp)
{
	bool rt = uc_policy_is_rt(t->policy);
	bool dl = t->policy == POLICY_DEADLINE;
	long rtd = rt_default >= 0 ? rt_default : UC_CAPACITY_SCALE;
	bool min, max = t->max != UC_CAPACITY_SCALE;
	char who[64];

	if (!rt && !dl)
		min = t->min != 0;
	else	/* the RT default (and 1024, its value before 5.9) is not a user's choice */
		min = t->min != UC_CAPACITY_SCALE && t->min != (uint32_t)rtd &&
		      !(dl && t->min == 0);
	if (!min && !max)
		return false;
	/* only counting: no note to format (10,000 clamped threads) */
	if (!fp)
		return true;
	if (fp->nevidence >= UC_FP_MAX_NOTES - 1) {
		fp->scan.evidence++;
		return true;
	}
	if (t->pid == t->tid)
		snprintf(who, sizeof(who), "task %d (%s)", (int)t->tid, t->comm ? t->comm : "?");
	else
		snprintf(who, sizeof(who), "task %d, thread %d (%s)", (int)t->pid, (int)t->tid,
			 t->comm ? t->comm : "?");
	if (min && max)
		evidence_note(fp, "%s requests min %u, max %u (defaults %s, 1024)", who, t->min,
			      t->max, rt || dl ? "rt_default" : "0");
	else if (min)
		evidence_note(fp, "%s requests min %u (default %s)", who, t->min,
			      rt || dl ? "rt_default" : "0");
	else
		evidence_note(fp, "%s requests max %u (default 1024)", who, t->max);
	return true;
}

/* ---- gathering from the running system ---- */

struct cg_walk {
	uc_cg_dir_fn fn;
	void *data;
	char rel[PATH_MAX];
	int root_fd;
};

static int walk_cg(struct cg_walk *w, size_t len, int depth)
{
	int dfd = len ? openat(w->root_fd, w->rel, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
		      : dup(w->root_fd);
	struct dirent *de;
	DIR *dir;
	int rc = 0;

	if (dfd < 0)
		return errno == ENOENT ? 0 : -errno;	/* removed meanwhile */
	dir = fdopendir(dfd);
	if (!dir) {
		close(dfd);
		return -errno;
	}
	while (!rc && (de = readdir(dir))) {
		size_t n = strlen(de->d_name);
		struct stat st;
		int gfd;

		if (de->d_name[0] == '.')
			continue;
		if (de->d_type != DT_DIR) {
			if (de->d_type != DT_UNKNOWN ||
			    fstatat(dirfd(dir), de->d_name, &st, AT_SYMLINK_NOFOLLOW) ||
			    !S_ISDIR(st.st_mode))
				continue;
		}
		if (len + 1 + n >= sizeof(w->rel))
			continue;
		if (len)
			w->rel[len] = '/';
		memcpy(w->rel + len + (len ? 1 : 0), de->d_name, n + 1);
		gfd = openat(dirfd(dir), de->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (gfd >= 0) {
			rc = w->fn(gfd, w->rel, w->data);
			close(gfd);
			if (!rc && depth < 64)
				rc = walk_cg(w, len + (len ? 1 : 0) + n, depth + 1);
		}
		w->rel[len] = '\0';
	}
	closedir(dir);
	return rc;
}

int uc_fp_walk_cgroups(uc_cg_dir_fn fn, void *data)
{
	struct uc_cg_info info;
	struct cg_walk w = { .fn = fn, .data = data };
	int rc = uc_cg_init(&info);

	if (rc)
		return rc;
	w.root_fd = open(info.mount, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (w.root_fd < 0)
		return -errno;
	rc = walk_cg(&w, 0, 0);
	close(w.root_fd);
	return rc;
}

struct clamp_walk {
	uc_fp_cg_fn fn;
	void *data;
};

static int clamp_cb(int dfd, const char *rel, void *data)
{
	struct clamp_walk *w = data;
	struct uc_fp_cg_sample s = { .path = rel };

	s.cpu_files = faccessat(dfd, "cpu.weight", F_OK, 0) == 0 ||
		      faccessat(dfd, "cpu.shares", F_OK, 0) == 0;
	s.has_files = uc_cg_read(rel, UC_ATTR_MIN, &s.min_pct100) == 0 &&
		      uc_cg_read(rel, UC_ATTR_MAX, &s.max_pct100) == 0;
	return w->fn(&s, w->data);
}

int uc_fp_real_cgroups(uc_fp_cg_fn fn, void *data)
{
	struct clamp_walk w = { .fn = fn, .data = data };

	return uc_fp_walk_cgroups(clamp_cb, &w);
}

struct task_walk {
	uc_fp_task_fn fn;
	void *data;
};

static int task_cb(const struct uc_task *t, void *data)
{
	struct task_walk *w = data;
	struct uc_fp_task_sample s = {
		.pid = t->pid,
		.tid = t->tid,
		.comm = t->comm[0] ? t->comm : NULL,
		.policy = (int)t->sa.sched_policy,
		.min = t->sa.sched_util_min,
		.max = t->sa.sched_util_max,
	};

	return w->fn(&s, w->data);
}

int uc_fp_real_tasks(uc_fp_task_fn fn, void *data)
{
	/* comm is read by the caller for the few tasks it names */
	const struct uc_rule every = {
		.rt = true, .kthreads = true, .threads = true,
		.min = UC_KEEP, .max = UC_KEEP, .reset_on_fork = UC_KEEP,
	};
	size_t order0 = 0;
	const struct uc_rules rs = { .v = &every, .n = 1, .order = &order0, .norder = 1,
				      .any_threads = true };
	struct task_walk w = { .fn = fn, .data = data };
	struct uc_walk_stats st;

	return uc_tasks_walk(&rs, NULL, 0, 0, task_cb, &w, &st);
}
