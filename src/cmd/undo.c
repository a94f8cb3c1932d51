/*
 * uclampctl undo [RUN]: put back what a recorded write run replaced. The
 * library plans it (uc_undo_plan: only targets that are still the ones the
 * run wrote and still hold what it set); the plan runs through the one core
 * like every write (guard, consent, lock, identity re-check, executor,
 * report, --dry-run, --yes), and is itself recorded, so an undo can be
 * undone. The fast path is not turned off: nothing can, until reboot.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/common.h"
#include "uclamp/history.h"

static const char synopsis[] = "[RUN] [options]";

static void usage(void)
{
	cli_usage_head(stdout, "undo", synopsis);
	printf("\nPut back what a write run replaced ('uclampctl history' lists the runs;\n"
	       "without RUN, the newest one that is not undone yet and is no undo itself).\n"
	       "A target is put back only while it is the one the run wrote (the same\n"
	       "process and thread, the same group directory, the knob) and still holds\n"
	       "what the run set; any other is named and left alone: someone changed it\n"
	       "since. The cpu controller a run enabled and systemd's runtime CPUWeight\n"
	       "are left as they are. Undo puts values back, not the uclamp fast path:\n"
	       "once on, it stays on until reboot.\n\n"
	       "Options:\n" CLI_WRITE_OPTS_HELP CLI_HELP_OPTS_HELP
	       "\nExit status: 0 put back (or nothing left to put back), 1 a target was\n"
	       "left alone or failed, or no such run; 2 usage; 3 refused (no consent).\n");
}

struct undo_ctx {
	const struct cli_ctl *ctl;
	const struct uc_hist_run *run;
	bool say;			/* the first plan's: name what is left alone */
	struct uc_undo_skip *skips;	/* the last plan's, for -J */
	size_t nskips, cap;
	size_t skipped;
};

static const char *why_word(enum uc_undo_why why)
{
	static const char *const words[] = {
		[UC_UNDO_GONE] = "gone", [UC_UNDO_RECREATED] = "recreated",
		[UC_UNDO_CHANGED] = "changed", [UC_UNDO_CONFLICT] = "conflict",
		[UC_UNDO_UNREADABLE] = "unreadable", [UC_UNDO_KEPT] = "kept",
	};
	return words[why];
}

/* Why a change is left alone, in words: "changed since run 3 (it set 700, now 500)". */
static const char *why_text(const struct uc_undo_skip *s, unsigned id, char *buf, size_t n)
{
	struct uc_change c;
	char a[64], b[64], e[128];

	cli_hist_change(s->c, &c);
	switch (s->why) {
	case UC_UNDO_GONE:
		return s->err == -ESTALE ? "the process exited and its PID now belongs to "
					   "another one" : "the task exited";
	case UC_UNDO_RECREATED:
		return s->err ? "the group is gone" : "the group was removed and made again since";
	case UC_UNDO_CHANGED:
		snprintf(buf, n, "changed since run %u (it set %s, it is %s now)", id,
			 uc_change_value(&c, c.to, a, sizeof(a)),
			 uc_change_value(&c, s->now, b, sizeof(b)));
		return buf;
	case UC_UNDO_CONFLICT:
		return "putting it back would leave the min above the max (the other one "
		       "changed since)";
	case UC_UNDO_UNREADABLE:
		snprintf(buf, n, "cannot read it: %s", cli_strerr(c.kind, s->err, e, sizeof(e)));
		return buf;
	case UC_UNDO_KEPT:
		if (c.kind == UC_KIND_SYSTEMD)
			return "systemd's runtime CPUWeight stays until reboot ('systemctl "
			       "set-property --runtime UNIT CPUWeight=' unsets it)";
		return "cpu stays enabled: turning it off would drop the cpu settings of every "
		       "group below (write -cpu to cgroup.subtree_control to do it)";
	}
	return "?";
}

static void on_skip(const struct uc_undo_skip *s, void *data)
{
	struct undo_ctx *u = data;
	struct uc_change c;
	char tb[256], wb[256];

	if (u->nskips == u->cap) {
		size_t cap = u->cap ? u->cap * 2 : 16;
		struct uc_undo_skip *v = realloc(u->skips, cap * sizeof(*v));

		if (!v)
			return;	/* the line is still said; -J lists fewer */
		u->skips = v;
		u->cap = cap;
	}
	u->skips[u->nskips++] = *s;
	if (!u->say)
		return;
	cli_hist_change(s->c, &c);
	if (s->why == UC_UNDO_KEPT)
		cli_warnx(u->ctl, "%s: %s: left as it is: %s", uc_change_target(&c, tb, sizeof(tb)),
			  uc_attr_name(c.kind, c.attr), why_text(s, u->run->id, wb, sizeof(wb)));
	else
		cli_errx("%s: %s: left alone: %s", uc_change_target(&c, tb, sizeof(tb)),
			 uc_attr_name(c.kind, c.attr), why_text(s, u->run->id, wb, sizeof(wb)));
}

/* The plan (cli_run's plan()): from the record, against what the host holds now. */
static int undo_plan(struct cli_ctl *ctl, struct uc_plan *p, unsigned pass, void *data)
{
	struct undo_ctx *u = data;
	int rc;

	(void)ctl;
	u->nskips = 0;
	u->say = !pass;
	rc = uc_undo_plan(u->run, p, on_skip, u, &u->skipped);
	if (rc == -ENOMEM)
		return cli_oom();
	return 0;
}

/* The run to undo: RUN, else the newest one not undone yet that is no undo. */
static const struct uc_hist_run *pick(const struct cli_ctl *ctl, const struct uc_hist *h,
				      unsigned id)
{
	const struct uc_hist_run *r = NULL;

	if (id && !(r = uc_hist_find(h, id)))
		cli_errx("no run %u in the record ('uclampctl history' lists them)", id);
	for (size_t i = h->n; !id && i-- > 0 && !r;)
		if (!h->runs[i].undoes && !h->runs[i].undone_by)
			r = &h->runs[i];
	if (!id && !r)
		cli_errx("nothing to undo: every run recorded this boot is undone or an undo "
			 "('uclampctl history' lists them; 'uclampctl undo RUN' takes one)");
	if (r && (r->flags & UC_HIST_TOO_LARGE)) {
		cli_errx("run %u planned %zu changes, more than the record keeps of a run: undo "
			 "cannot put them back", r->id, r->ntotal);
		return NULL;
	}
	if (r && r->undone_by)
		cli_warnx(ctl, "run %u was undone by run %u already", r->id, r->undone_by);
	return r;
}

static void json_skips(struct cli_json *j, const struct undo_ctx *u)
{
	char b[256];

	cli_json_open(j, "left_alone", '[', false);
	for (size_t i = 0; i < u->nskips; i++) {
		const struct uc_undo_skip *s = &u->skips[i];
		struct uc_change c;

		cli_hist_change(s->c, &c);
		cli_json_open(j, NULL, '{', true);
		cli_json_str(j, "target", uc_change_target(&c, b, sizeof(b)));
		cli_json_str(j, "kind", uc_kind_name(c.kind));
		cli_json_str(j, "attribute", uc_attr_name(c.kind, c.attr));
		cli_json_str(j, "reason", why_word(s->why));
		cli_json_str(j, "text", why_text(s, u->run->id, b, sizeof(b)));
		cli_json_close(j, '}');
	}
	cli_json_close(j, ']');
}

/* -J: after the report's members (cli_run's json()) */
static void json_more(struct cli_json *j, void *data)
{
	const struct undo_ctx *u = data;

	cli_json_int(j, "undoes", u->run->id);
	json_skips(j, u);
	/* what undo cannot do, said in the data too */
	cli_json_bool(j, "run_enabled_fast_path", cli_hist_flipped(u->run));
	cli_json_bool(j, "fast_path_stays_on", true);
}

static bool has_tasks(const struct uc_hist_run *r)
{
	for (size_t i = 0; i < r->n; i++)
		if (r->v[i].kind == UC_KIND_TASK)
			return true;
	return false;
}

static int undo(struct cli_ctl *ctl, unsigned id)
{
	struct undo_ctx u = { .ctl = ctl };
	struct uc_hist h;
	int rc = cli_hist_load(ctl, &h);

	if (rc)
		return rc;
	u.run = pick(ctl, &h, id);
	if (!u.run) {
		uc_hist_free(&h);
		return CLI_EXIT_FAIL;
	}
	const struct cli_run how = {
		/* as the run went: tasks one by one, files all or nothing */
		.mode = has_tasks(u.run) ? UC_EXEC_BEST_EFFORT : UC_EXEC_ATOMIC,
		.may_ask = true,
		.wide = u.run->flags & UC_HIST_WIDE,
		.undoes = u.run->id,
		.plan = undo_plan,
		.json = json_more,
		.data = &u,
	};

	if (!ctl->json)	/* (-J: "undoes" says it) */
		cli_info(ctl, "undo of run %u: %s", u.run->id,
			 u.run->cmdline ? u.run->cmdline : "?");
	if (cli_hist_flipped(u.run))
		cli_warnx(ctl, "run %u turned the uclamp fast path on: undo puts its values back, "
			  "but the fast path stays on until reboot", u.run->id);
	else
		cli_warnx(ctl, "undo puts values back; the uclamp fast path, once on, stays on "
			  "until reboot");
	rc = cli_run_plan(ctl, &how);
	if (!rc && u.skipped && !ctl->dry_run) {
		cli_errx("undo of run %u is not complete: %zu change(s) left alone "
			 "(named above)", u.run->id, u.skipped);
		rc = CLI_EXIT_FAIL;
	}
	free(u.skips);
	uc_hist_free(&h);
	return rc;
}

int cmd_undo(struct cli_ctl *ctl, int argc, char **argv)
{
	const struct cli_opts opts = { .shared = CLI_OPTS_WRITE, .usage = usage };

	cli_parse_opts(ctl, argc, argv, &opts, NULL);
	return undo(ctl, cli_run_arg_or_err(ctl, argc, argv));
}
