/*
 * The rules behind the daemon's matcher seam: the configuration (config.h)
 * compiled by the rules module (rules.h), each task described lazily by
 * uc_task_fill(). One generation = one struct wrules: its uc_config owns the
 * strings the rules point into, so a reload swaps the whole thing at once.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "uclamp/config.h"
#include "uclamp/rules.h"
#include "uclamp/sched.h"
#include "uclamp/tasks.h"
#include "uclamp/watch.h"

struct wrules {
	struct uc_config cfg;
	struct uc_rule *v;
	struct uc_rules rs;
	struct uc_proc proc;	/* one task at a time: the daemon is single-threaded */
};

static void wr_free(void *data)
{
	struct wrules *wr = data;

	if (!wr)
		return;
	uc_rules_free(&wr->rs);
	free(wr->v);
	uc_config_free(&wr->cfg);
	free(wr);
}

/* uc_task_fill, keeping the attributes the policy came from: the daemon
 * plans from them and need not read them again. */
static int wr_fill(struct uc_proc *p, unsigned want, void *data)
{
	struct uc_watch_seen *seen = data;
	int rc;

	if (want & UC_PF_POLICY && !(p->have & UC_PF_POLICY)) {
		rc = uc_sched_get(p->tid, &seen->sa);
		if (rc)
			return rc;
		seen->have_sa = true;
		p->policy = (int)seen->sa.sched_policy;
		p->have |= UC_PF_POLICY;
		want &= ~UC_PF_POLICY;
	}
	return want ? uc_task_fill(p, want, NULL) : 0;
}

static int wr_match(void *data, pid_t pid, pid_t tid, struct uc_watch_seen *seen,
		    struct uc_rules_result *res)
{
	struct wrules *wr = data;
	struct uc_proc *p = &wr->proc;
	int rc;

	seen->have_sa = false;
	seen->comm[0] = '\0';
	uc_proc_reset(p, pid, tid, wr_fill, seen);
	if (seen->st)
		uc_proc_take_stat(p, seen->st);
	rc = uc_rules_match(&wr->rs, p, res);
	if (tid == pid && p->have & UC_PF_COMM)
		memcpy(seen->comm, p->comm, sizeof(seen->comm));
	else if (p->have & UC_PF_TCOMM)
		memcpy(seen->comm, p->tcomm, sizeof(seen->comm));
	return rc;
}

static const char *wr_name(void *data, int idx)
{
	struct wrules *wr = data;

	return idx >= 0 && (size_t)idx < wr->rs.n ? wr->v[idx].name : NULL;
}

static const struct uc_watch_rules_ops wr_ops = {
	.match = wr_match, .name = wr_name, .free = wr_free
};

int uc_watch_rules_load(const char *const *paths, size_t n, struct uc_watch_ruleset *out,
			uc_watch_conf_err_fn err, uc_watch_conf_skip_fn skip, void *data)
{
	struct wrules *wr = calloc(1, sizeof(*wr));
	int rc = 0;

	memset(out, 0, sizeof(*out));
	if (!wr)
		return -ENOMEM;
	uc_config_init(&wr->cfg);
	for (size_t i = 0; i < n && rc != -ENOMEM; i++)
		rc = uc_config_load_path(&wr->cfg, paths[i]);
	if (!n)
		rc = uc_config_load_default(&wr->cfg);
	if (rc == -ENOMEM)
		goto fail;
	if (uc_config_validate(&wr->cfg)) {
		for (size_t i = 0; err && i < wr->cfg.nerrors; i++)
			err(data, &wr->cfg.errors[i]);
		rc = -EINVAL;
		goto fail;
	}
	if (skip)
		for (size_t i = 0; i < wr->cfg.nskips; i++)
			skip(data, &wr->cfg.skips[i]);
	if (wr->cfg.ntasks > UC_WATCH_MAX_RULES) {
		/* bounded memory and match time: every exec is matched against every rule */
		struct uc_conf_error e = { .file = wr->cfg.nfiles ? wr->cfg.files[0] : NULL,
					   .err = -E2BIG };
		char msg[128];

		snprintf(msg, sizeof(msg), "%zu [tasks] sections: watch takes at most %d",
			 wr->cfg.ntasks, UC_WATCH_MAX_RULES);
		e.msg = msg;
		if (err)
			err(data, &e);
		rc = -EINVAL;
		goto fail;
	}
	rc = -ENOMEM;
	if (wr->cfg.ntasks && !(wr->v = uc_config_task_rules(&wr->cfg)))
		goto fail;
	if (uc_rules_init(&wr->rs, wr->v, wr->cfg.ntasks))
		goto fail;
	for (size_t i = 0; i < wr->cfg.ntasks; i++)
		if (!wr->v[i].exclude && !wr->v[i].off &&
		    (wr->v[i].min != UC_KEEP || wr->v[i].max != UC_KEEP))
			out->sets_clamps = true;
	/* a [cgroup] section is a clamp written when its group appears */
	out->sets_clamps |= wr->cfg.ncgroups > 0;
	out->ops = &wr_ops;
	out->rules = wr;
	out->nrules = wr->cfg.ntasks;
	out->config = &wr->cfg;
	out->allow_enable = wr->cfg.allow_enable.set && wr->cfg.allow_enable.value;
	/* a parent selector needs forks; user/group selectors need ID changes */
	if (wr->rs.need & UC_PF_PARENT)
		out->events |= UC_PEV_FORK;
	if (wr->rs.need & UC_PF_STATUS)
		out->events |= UC_PEV_UID | UC_PEV_GID;
	return 0;
fail:
	wr_free(wr);
	return rc;
}
