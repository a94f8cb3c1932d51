/* The live view's samples (see top.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "uclamp/identity.h"
#include "uclamp/sysroot.h"
#include "uclamp/top.h"

static double now_s(clockid_t clk)
{
	return (double)uc_clock_ns(clk) / 1e9;
}

static bool denied(int rc)
{
	return rc == -EACCES || rc == -EPERM;
}

/* ---- the CPUs ------------------------------------------------------------------ */

/* "0-3,5" (online) or "0 1 2" (affected_cpus) into set[] */
static void cpu_list(const char *s, bool *set)
{
	char *end;

	while (*s) {
		long a = strtol(s, &end, 10), b = a;

		if (end == s) {
			s++;
			continue;
		}
		s = end;
		if (*s == '-') {
			b = strtol(s + 1, &end, 10);
			s = end == s + 1 ? s + 1 : end;
		}
		for (long c = a < 0 ? 0 : a; c <= b && c < UC_TOP_MAX_CPUS; c++)
			set[c] = true;
	}
}

/* the CPUs online or in a policy, each with its capacity and policy */
static int cpus_init(struct uc_top *t)
{
	bool *set = calloc(UC_TOP_MAX_CPUS, sizeof(*set));
	char buf[4096];
	size_t n = 0;

	if (!set)
		return -ENOMEM;
	if (uc_read_str("/sys/devices/system/cpu/online", buf, sizeof(buf)) > 0)
		cpu_list(buf, set);
	for (size_t i = 0; i < t->nf; i++)
		cpu_list(t->e->p[i].cpus, set);
	for (int c = 0; c < UC_TOP_MAX_CPUS; c++)
		n += set[c];
	if (!n)
		set[0] = true, n = 1;	/* nothing says: one CPU, 0 */
	t->cpu = calloc(n, sizeof(*t->cpu));
	if (!t->cpu) {
		free(set);
		return -ENOMEM;
	}
	for (int c = 0; c < UC_TOP_MAX_CPUS; c++) {
		struct uc_top_cpu *cp = &t->cpu[t->ncpu];
		char path[96];
		long v;

		if (!set[c])
			continue;
		t->ncpu++;
		cp->cpu = c;
		cp->policy = -1;
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/cpu_capacity", c);
		cp->capacity = !uc_read_long(path, &v) && v > 0 && v <= 1024 ? v : 1024;
	}
	/* each CPU's policy: the one whose affected_cpus list it */
	for (size_t i = 0; i < t->nf; i++) {
		memset(set, 0, UC_TOP_MAX_CPUS * sizeof(*set));
		cpu_list(t->e->p[i].cpus, set);
		for (size_t k = 0; k < t->ncpu; k++)
			if (set[t->cpu[k].cpu] && t->cpu[k].policy < 0)
				t->cpu[k].policy = (int)i;
	}
	free(set);
	return 0;
}

static int by_cpu(const void *key, const void *row)
{
	int n = *(const int *)key, c = ((const struct uc_top_cpu *)row)->cpu;

	return (n > c) - (n < c);
}

/* The CPU row of cpu number n (the rows are in CPU order), or NULL. */
static struct uc_top_cpu *cpu_of(const struct uc_top *t, int n)
{
	return t->ncpu ? bsearch(&n, t->cpu, t->ncpu, sizeof(*t->cpu), by_cpu) : NULL;
}

/* ---- the last sample's table -------------------------------------------------- */

static size_t slot_of(pid_t tid, size_t hcap)
{
	return ((size_t)tid * 2654435761u) & (hcap - 1);
}

/* index the last sample's tasks by TID (open addressing, at most half full) */
static int hash_old(struct uc_top *t)
{
	size_t want = 16;

	while (want < 2 * t->nold)
		want *= 2;
	if (want > t->hcap) {
		size_t *h = realloc(t->hash, want * sizeof(*h));

		if (!h)
			return -ENOMEM;
		t->hash = h;
		t->hcap = want;
	}
	for (size_t i = 0; i < t->hcap; i++)
		t->hash[i] = (size_t)-1;
	for (size_t i = 0; i < t->nold; i++) {
		size_t s = slot_of(t->old[i].tid, t->hcap);

		while (t->hash[s] != (size_t)-1)
			s = (s + 1) & (t->hcap - 1);
		t->hash[s] = i;
	}
	return 0;
}

static const struct uc_top_task *find_old(const struct uc_top *t, pid_t tid,
					  unsigned long long start)
{
	if (!t->nold)
		return NULL;
	for (size_t s = slot_of(tid, t->hcap); t->hash[s] != (size_t)-1;
	     s = (s + 1) & (t->hcap - 1)) {
		const struct uc_top_task *o = &t->old[t->hash[s]];

		if (o->tid == tid)
			return o->start == start ? o : NULL;	/* else a reused TID */
	}
	return NULL;
}

/* ---- the walk -------------------------------------------------------------------- */

struct walk {
	struct uc_top *t;
	pid_t pid;		/* the process walked */
	bool proc_set;		/* t->proc describes it */
	int sel;		/* its threads' selection when the same for each: 0/1, -1 ask */
	bool first;		/* the baseline: nothing ran yet */
};

static bool id_given(const struct uc_top *t, pid_t pid, pid_t tid)
{
	if (!t->npids)
		return true;
	for (size_t i = 0; i < t->npids; i++)
		if (t->pids[i] == pid || t->pids[i] == tid)
			return true;
	return false;
}

/* Does the selection take this thread? Rules that read no per-thread field
 * answer once per process. */
static bool selected(struct walk *w, pid_t pid, pid_t tid, const struct uc_stat *st)
{
	struct uc_proc *p = w->t->proc;
	struct uc_rules_result res;
	bool same = !(w->t->rs->need & (UC_PF_TCOMM | UC_PF_POLICY));

	if (!id_given(w->t, pid, tid))
		return false;
	if (!w->proc_set) {
		w->proc_set = true;
		uc_proc_reset(p, pid, tid, uc_task_fill, NULL);
		uc_proc_take_stat(p, st);	/* kthread and parent: one per process */
	}
	if (same && w->sel >= 0)
		return w->sel;
	uc_proc_set_thread(p, tid);
	if (tid == pid && !(p->have & UC_PF_COMM)) {
		/* the main thread's name is the process's */
		memcpy(p->comm, st->comm, sizeof(p->comm));
		p->have |= UC_PF_COMM;
	}
	if (uc_rules_match(w->t->rs, p, &res))
		res.matched = 0;
	if (same)
		w->sel = res.matched > 0;
	return res.matched > 0;
}

static struct uc_top_task *add_task(struct uc_top *t)
{
	if (t->ntask == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 1024;
		struct uc_top_task *v = realloc(t->task, cap * sizeof(*v));

		if (!v)
			return NULL;
		t->task = v;
		t->cap = cap;
	}
	return &t->task[t->ntask++];
}

/* "TID/stat" through the process's open task directory, digits right to left */
static int read_stat(int taskfd, pid_t tid, struct uc_stat *st)
{
	char rel[32], *r = rel + sizeof(rel) - 6, buf[1024];
	unsigned int v = (unsigned int)tid;
	ssize_t len;

	memcpy(r, "/stat", 6);
	do
		*--r = (char)('0' + v % 10);
	while (v /= 10);
	len = uc_file_read_at(taskfd, r, buf, sizeof(buf), UC_READ_HEAD);
	if (len < 0)
		return len == -ENOENT ? -ESRCH : (int)len;
	return uc_stat_parse(buf, st);
}

static int visit_tid(pid_t tid, int taskfd, void *data)
{
	struct walk *w = data;
	struct uc_top *t = w->t;
	const struct uc_top_task *o;
	struct uc_top_task *k;
	struct uc_stat st;
	int rc = read_stat(taskfd, tid, &st);

	if (rc) {
		if (denied(rc) && !t->denied++)
			t->denied_tid = tid;
		return 0;	/* gone, or not ours to read: the others still count */
	}
	k = add_task(t);
	if (!k)
		return -ENOMEM;
	memset(k, 0, sizeof(*k));
	k->pid = w->pid;
	k->tid = tid;
	k->start = st.start;
	k->cputime = st.utime + st.stime;
	k->cpu = st.cpu;
	memcpy(k->comm, st.comm, sizeof(k->comm));
	k->eff_min = k->eff_max = -1;
	k->ran = -1;
	o = find_old(t, tid, st.start);
	if (o)
		k->ran = k->cputime >= o->cputime ? (long long)(k->cputime - o->cputime) : 0;
	else if (!w->first && st.start >= t->boot_old)
		k->ran = (long long)k->cputime;	/* started since the last sample */
	k->selected = selected(w, w->pid, tid, &st);
	return 0;
}

static int visit_pid(pid_t pid, void *data)
{
	struct walk *w = data;
	int rc;

	w->pid = pid;
	w->proc_set = false;	/* set up by its first thread's stat (selected()) */
	w->sel = -1;
	rc = uc_tasks_each_tid(pid, visit_tid, w);
	if (rc == -ENOMEM)
		return rc;
	if (denied(rc) && !w->t->denied++)
		w->t->denied_tid = pid;
	return 0;	/* gone or unreadable: the next process */
}

/* ---- details and the CPUs --------------------------------------------------------- */

void uc_top_detail(struct uc_top *t, struct uc_top_task *k)
{
	struct uc_cg_clamps c;

	if (k->detailed)
		return;
	k->detailed = true;
	k->attr_rc = uc_sched_get(k->tid, &k->sa);
	k->sf_rc = t->no_sched_file ? -ENOENT : uc_task_sched_file(k->pid, k->tid, &k->sf);
	if (k->sf_rc == -ENOENT && !t->no_sched_file) {
		char path[64];

		/* the task is there and its sched file is not: the kernel has none */
		snprintf(path, sizeof(path), "/proc/%d/task/%d", (int)k->pid, (int)k->tid);
		t->no_sched_file = uc_exists(path);
	}
	if (!k->sf_rc) {
		t->no_util_avg |= k->sf.util_avg < 0;
		t->no_util_est |= k->sf.util_est < 0;
		t->no_eff |= k->sf.eff_min < 0;
	}
	if ((denied(k->attr_rc) || denied(k->sf_rc)) && !t->denied++)
		t->denied_tid = k->tid;
	if (!k->sf_rc && k->sf.eff_min >= 0 && k->sf.eff_max >= 0) {
		k->eff_min = (int)k->sf.eff_min;
		k->eff_max = (int)k->sf.eff_max;
	} else if (!k->attr_rc && t->eff && t->eff->rule &&
		   uc_eff_task(t->eff, k->pid, k->tid, &k->sa, &c) != UC_EFF_NONE) {
		k->eff_min = c.min;
		k->eff_max = c.max;
	}
}

/* a task's util as schedutil counts it: the larger of util_avg and util_est */
static long task_util(const struct uc_top_task *k)
{
	if (!k->detailed || k->sf_rc || k->sf.util_avg < 0)
		return -1;
	return k->sf.util_est > k->sf.util_avg ? k->sf.util_est : k->sf.util_avg;
}

static void cpus_reset(struct uc_top *t)
{
	for (size_t i = 0; i < t->ncpu; i++) {
		struct uc_top_cpu *c = &t->cpu[i];

		c->ran = 0;
		c->ntasks = 0;
		c->util = -1;
		c->hi_min = c->hi_max = -1;
		c->rq_min = 0;
		c->rq_max = UC_CAPACITY_SCALE;
		c->pred_rc = -ENODATA;
	}
}

/* what ran on each CPU: time, util, the highest clamps; the longest run in *longest */
static void cpus_sum(struct uc_top *t, unsigned long long *longest)
{
	for (size_t i = 0; i < t->ntask; i++) {
		const struct uc_top_task *k = &t->task[i];
		struct uc_top_cpu *c = k->ran > 0 ? cpu_of(t, k->cpu) : NULL;
		long u = task_util(k);

		if (!c)
			continue;
		c->ran += (unsigned long long)k->ran;
		c->ntasks++;
		if ((unsigned long long)k->ran > longest[c - t->cpu])
			longest[c - t->cpu] = (unsigned long long)k->ran;
		if (u >= 0)
			c->util = (c->util < 0 ? 0 : c->util) + u;
		if (k->eff_min > c->hi_min)
			c->hi_min = k->eff_min;
		if (k->eff_max > c->hi_max)
			c->hi_max = k->eff_max;
	}
}

/* the rq clamps: the highest among the tasks that ran at least a quarter as long as the longest */
static void cpus_rq(struct uc_top *t, const unsigned long long *longest)
{
	bool *seen = calloc(t->ncpu, sizeof(*seen));

	for (size_t i = 0; seen && i < t->ntask; i++) {
		const struct uc_top_task *k = &t->task[i];
		struct uc_top_cpu *c = k->ran > 0 ? cpu_of(t, k->cpu) : NULL;
		size_t ci;

		if (!c || k->eff_min < 0)
			continue;
		ci = (size_t)(c - t->cpu);
		if ((unsigned long long)k->ran * 4 < longest[ci])
			continue;
		if (!seen[ci] || k->eff_min > c->rq_min)
			c->rq_min = k->eff_min;
		if (!seen[ci] || k->eff_max > c->rq_max)
			c->rq_max = k->eff_max;
		seen[ci] = true;
	}
	free(seen);
}

static void sugov_in(const struct uc_top *t, const struct uc_top_cpu *c, struct uc_sugov_in *in)
{
	*in = (struct uc_sugov_in){
		.formula = uc_sugov_formula_of(t->e->kver),
		/* unknown: the invariant formula (the caller says so) */
		.invariant = t->e->inv != UC_INV_NO,
		.util = (unsigned long)(c->util > c->capacity ? c->capacity : c->util),
		.umin = (unsigned long)c->rq_min,
		.umax = (unsigned long)c->rq_max,
		.capacity = (unsigned long)c->capacity,
	};
}

static void cpus_project(struct uc_top *t)
{
	for (size_t i = 0; i < t->ncpu; i++) {
		struct uc_top_cpu *c = &t->cpu[i];
		struct uc_sugov_in in;

		if (c->util > c->capacity)
			c->util = c->capacity;
		if (c->policy < 0 || (size_t)c->policy >= t->nf)
			continue;
		if (c->util < 0 && c->ntasks)
			continue;	/* tasks ran there, and their util is not known */
		if (c->util < 0)
			c->util = 0;	/* nothing ran: the idle util */
		sugov_in(t, c, &in);
		c->pred_rc = uc_sugov_project(&in, &t->f[c->policy].f, &c->pred);
	}
}

int uc_top_project(const struct uc_top *t, const struct uc_top_task *k, struct uc_sugov_out *out)
{
	const struct uc_top_cpu *c = cpu_of(t, k->cpu);
	struct uc_sugov_in in;

	if (!c || c->policy < 0 || (size_t)c->policy >= t->nf || c->util < 0)
		return -ENODATA;
	sugov_in(t, c, &in);
	if (k->eff_min > (int)in.umin)
		in.umin = (unsigned long)k->eff_min;
	if (k->eff_max > (int)in.umax)
		in.umax = (unsigned long)k->eff_max;
	return uc_sugov_project(&in, &t->f[c->policy].f, out);
}

/* each policy read again, and its time in each P-state since the last read */
static void freqs(struct uc_top *t)
{
	for (size_t i = 0; i < t->nf; i++) {
		struct uc_top_freq *q = &t->f[i];
		struct uc_eff_freq old = q->f;

		if (uc_eff_freq_read(t->e->p[i].id, &q->f)) {
			q->delta_rc = -ENOENT;	/* the policy is gone (CPU offline) */
			continue;
		}
		q->delta_rc = uc_eff_freq_delta(&old, &q->f, q->d, &q->total);
	}
}

/* ---- samples ----------------------------------------------------------------------- */

static int walk(struct uc_top *t, bool first)
{
	struct walk w = { .t = t, .first = first };
	struct uc_top_task *swap = t->old;
	size_t cap = t->oldcap;
	int rc;

	/* this sample's table becomes the last one; the last one's memory is reused */
	t->old = t->task;
	t->nold = t->ntask;
	t->oldcap = t->cap;
	t->task = swap;
	t->cap = cap;
	t->ntask = 0;
	t->denied = 0;
	t->boot_old = t->boot_ticks;
	rc = hash_old(t);
	if (rc)
		return rc;
	t->interval = now_s(CLOCK_MONOTONIC) - t->t_now;
	t->t_now += t->interval;
	t->boot_ticks = (unsigned long long)(now_s(CLOCK_BOOTTIME) * (double)t->hz);
	rc = uc_tasks_each_pid(visit_pid, &w);
	t->samples++;
	return rc;
}

int uc_top_init(struct uc_top *t)
{
	t->hz = sysconf(_SC_CLK_TCK);
	if (t->hz <= 0)
		t->hz = 100;
	t->t_now = now_s(CLOCK_MONOTONIC);
	t->proc = calloc(1, sizeof(*t->proc));
	t->nf = t->e->n && t->e->p[0].id >= 0 ? t->e->n : 0;
	t->f = t->nf ? calloc(t->nf, sizeof(*t->f)) : NULL;
	if (!t->proc || (t->nf && !t->f))
		return -ENOMEM;
	for (size_t i = 0; i < t->nf; i++) {
		t->f[i].f = t->e->p[i].f;	/* the baseline: from uc_effect_read_flags() */
		t->f[i].delta_rc = -ENODATA;
	}
	if (cpus_init(t))
		return -ENOMEM;
	cpus_reset(t);
	return walk(t, true);
}

int uc_top_sample(struct uc_top *t)
{
	unsigned long long *longest;
	int rc = walk(t, false);

	if (rc)
		return rc;
	t->no_util_avg = t->no_util_est = t->no_eff = false;
	for (size_t i = 0; i < t->ntask; i++)
		if (t->task[i].ran > 0)
			uc_top_detail(t, &t->task[i]);
	freqs(t);
	cpus_reset(t);
	longest = calloc(t->ncpu, sizeof(*longest));
	if (!longest)
		return -ENOMEM;
	cpus_sum(t, longest);
	cpus_rq(t, longest);
	free(longest);
	cpus_project(t);
	return 0;
}

void uc_top_free(struct uc_top *t)
{
	free(t->task);
	free(t->old);
	free(t->hash);
	free(t->proc);
	free(t->cpu);
	free(t->f);
	t->task = t->old = NULL;
	t->hash = NULL;
	t->proc = NULL;
	t->cpu = NULL;
	t->f = NULL;
	t->ntask = t->nold = t->ncpu = t->nf = 0;
}
