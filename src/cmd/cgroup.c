/*
 * uclampctl cgroup show|set (v2, v1, hybrid). Any accepted write to a clamp
 * file enables sched_uclamp_used, even of the value there: 'set' writes only
 * what differs.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/common.h"
#include "uclamp/cgroup.h"
#include "uclamp/sysctl.h"
#include "uclamp/systemd.h"
#include "uclamp/sysroot.h"

static const char about[] =
	"cpu.uclamp.min is a floor (protection) and cpu.uclamp.max a ceiling (limit) for\n"
	"the tasks in a group; a group's effective values are also capped by its\n"
	"parent's, and the root group's by the system clamps (uclampctl system).\n"
	"The kernel stores percentages with two decimals; a value in capacity units is\n"
	"written as the percentage that maps back to exactly that unit.\n";
static const char show_synopsis[] = "[PATH|UNIT...] [-R] [--pid PID] [options]";
static const char set_synopsis[] = "PATH|UNIT [--min V] [--max V] [--enable-cpu] [options]";

/* The cpu hierarchy, or exit: 4 when there is none, 1 when it cannot be looked for. */
static const struct uc_cg_info *layout_or_exit(const struct cli_ctl *ctl)
{
	static struct uc_cg_info info;
	int rc = uc_cg_init(&info);

	if (uc_err_absent(rc)) {
		cli_errx("no cgroup hierarchy with the cpu controller is mounted");
		exit(CLI_EXIT_NOTSUPP);
	}
	if (rc) {
		cli_errx("cannot find the cgroup hierarchies: %s", strerror(-rc));
		exit(CLI_EXIT_FAIL);
	}
	cli_verbose(ctl, "cpu controller: cgroup %s at %s%s%s", uc_cg_version_name(info.version),
		    info.mount, info.hybrid ? ", hybrid with v2 at " : "",
		    info.hybrid ? info.unified : "");
	return &info;
}

/*
 * A user path or unit name to rel: "/" is the root (as show names it). A
 * group or unit that does not exist is exit 1 (as a PID that does not exist
 * for 'task'), not a usage error: a name that can never be one (outside the
 * hierarchy, not a directory, too long) is exit 2.
 */
static void resolve_or_exit(const struct cli_ctl *ctl, const struct uc_cg_info *info,
			    const char *path, char *rel, size_t n)
{
	int rc = path[strspn(path, "/")] ? uc_cg_resolve_name(info, path, rel, n) : 0;
	bool unit = uc_sd_unit_name_ok(path);

	if (!path[strspn(path, "/")] && n)
		rel[0] = '\0';
	switch (-rc) {
	case 0:
		return;
	case EXDEV:
		if (unit && !strchr(path, '/'))
			cli_usage_error(ctl, "refusing unit '%s': systemd names a cgroup for it "
					"outside the cpu hierarchy at %s; give the cgroup path",
					path, info->mount);
		cli_usage_error(ctl, "refusing cgroup path '%s': it leads outside the cpu "
				"hierarchy at %s; give a path relative to it or below it",
				path, info->mount);
	case ENOENT:
		if (unit)
			cli_errx("no cgroup '%s' under %s and no unit of that name loaded "
				 "(systemctl list-units '%s')", path, info->mount, path);
		else
			cli_errx("no cgroup '%s' under %s", path, info->mount);
		break;
	case ENOMEDIUM:
		cli_errx("unit '%s' has no cgroup: it is not running (systemctl start %s)", path,
			 path);
		break;
	case EHOSTDOWN:
		cli_errx("no cgroup '%s' under %s, and no systemd (not PID 1) to resolve it as a "
			 "unit name: give the cgroup path", path, info->mount);
		break;
	case ENOPKG:
		cli_errx("no cgroup '%s' under %s; a unit name needs libsystemd (libsystemd.so.0 "
			 "missing, or built without it): give the cgroup path (systemctl show -p "
			 "ControlGroup --value %s)", path, info->mount, path);
		break;
	case ENOTDIR:
		cli_usage_error(ctl, "'%s' is not a cgroup (not a directory under %s)", path,
				info->mount);
	case ENAMETOOLONG:
		cli_usage_error(ctl, "cgroup path '%.40s...' is too long (%zu "
				"bytes; a path has at most %d)",
				path, strlen(path), PATH_MAX - 1);
	default:
		cli_errx("cannot resolve %s '%s': %s", unit ? "unit or cgroup" : "cgroup", path,
			 rc == -EACCES ? "systemd refused (run as root)" :
			 rc == -ETIMEDOUT ? "systemd's bus did not answer (5 s)" : strerror(-rc));
	}
	exit(CLI_EXIT_FAIL);
}

static void pid_cgroup_or_exit(const struct cli_ctl *ctl, const struct uc_cg_info *info, pid_t pid,
			       char *rel, size_t n)
{
	char tmp[PATH_MAX];
	int rc = uc_cg_of_pid(info, pid, tmp, sizeof(tmp));

	if (rc == -ESRCH)
		cli_usage_error(ctl, "no process with PID %d", (int)pid);
	if (rc == -EXDEV)
		cli_errx("process %d is in a cgroup outside this namespace's view", (int)pid);
	else if (rc)
		cli_errx("cannot find the cpu cgroup of process %d: %s", (int)pid, strerror(-rc));
	if (rc)
		exit(CLI_EXIT_FAIL);
	resolve_or_exit(ctl, info, tmp[0] ? tmp : ".", rel, n);
}

/* ---- show -------------------------------------------------------------------- */

#define COLUMNS(NUM, TEXT, FLAG) \
	TEXT(CGROUP, 0.3, SCOLS_FL_TREE | SCOLS_FL_TRUNC, "the group (a tree with -R; a long " \
	     "name cut to fit a terminal, the row one line)") \
	TEXT(PATH, 0.3, 0, "the path relative to the cpu hierarchy") \
	TEXT(MIN, 0.05, SCOLS_FL_RIGHT, "cpu.uclamp.min as the kernel prints it (percent)") \
	TEXT(MAX, 0.05, SCOLS_FL_RIGHT, "cpu.uclamp.max as the kernel prints it (percent or max)") \
	NUM(MIN_UTIL, 0.05, "requested min in capacity units") \
	NUM(MAX_UTIL, 0.05, "requested max in capacity units") \
	NUM(EFF_MIN, 0.05, "effective min (capped by parents and the system)") \
	NUM(EFF_MAX, 0.05, "effective max (capped by parents and the system)") \
	TEXT(EFF_MIN_PCT, 0.05, SCOLS_FL_RIGHT, "effective min as a percentage") \
	TEXT(EFF_MAX_PCT, 0.05, SCOLS_FL_RIGHT, "effective max as a percentage") \
	TEXT(NOTE, 0.3, SCOLS_FL_TRUNC, "why a group has no clamp files, or what to watch " \
	     "(cut to fit a terminal: a tree row stays one line)")

enum { COLUMNS(CLI_COL_ID, CLI_COL_ID, CLI_COL_ID) NCOLS };
static const struct cli_col cols[] = { COLUMNS(CLI_COL_NUMBER, CLI_COL_TEXT, CLI_COL_FLAG) };

struct show {
	struct cli_table t;
	long smin, smax;
	bool recursive;
	pid_t *pids;	/* --pid, every one given */
	size_t npids;
	int failed;
};

/* One group's line (and with -R its subtree) under parent_ln. */
static void show_group(struct show *s, struct libscols_line *parent_ln, const char *rel,
		       const char *name, const struct uc_cg_clamps *parent_eff)
{
	struct libscols_line *ln = cli_table_line(&s->t, parent_ln);
	struct uc_cg_clamps eff = *parent_eff;
	enum uc_cg_state st;
	char b[32];
	int mn, mx, rc;

	cli_table_set(&s->t, ln, COL_CGROUP, name);
	cli_table_set(&s->t, ln, COL_PATH, *rel ? rel : "/");
	rc = uc_cg_state(rel, &st);
	if (!rc && st == UC_CG_HAS_CLAMPS) {
		rc = uc_cg_read(rel, UC_ATTR_MIN, &mn);
		if (!rc)
			rc = uc_cg_read(rel, UC_ATTR_MAX, &mx);
	}
	if (rc) {
		cli_table_setf(&s->t, ln, COL_NOTE, "cannot read: %s", strerror(-rc));
		s->failed++;
		return;
	}
	switch (st) {
	case UC_CG_IS_ROOT:
		uc_cg_eff_root(s->smin, s->smax, &eff);
		cli_table_set(&s->t, ln, COL_NOTE, uc_cg_state_reason(st));
		break;
	case UC_CG_HAS_CLAMPS:
		uc_cg_eff_child(parent_eff, uc_pct100_to_util(mn), uc_pct100_to_util(mx), &eff);
		cli_table_set(&s->t, ln, COL_MIN, uc_pct100_format(mn, b, sizeof(b)));
		cli_table_set(&s->t, ln, COL_MAX, uc_pct100_format(mx, b, sizeof(b)));
		cli_table_setf(&s->t, ln, COL_MIN_UTIL, "%d", uc_pct100_to_util(mn));
		cli_table_setf(&s->t, ln, COL_MAX_UTIL, "%d", uc_pct100_to_util(mx));
		if (uc_pct100_to_util(mn) > uc_pct100_to_util(mx))
			cli_table_set(&s->t, ln, COL_NOTE,
				      "min above max: the effective min is the max");
		break;
	case UC_CG_CPU_OFF:
	case UC_CG_NO_GROUP_CLAMPS:
		/* its tasks are clamped as in the nearest ancestor with clamps */
		cli_table_set(&s->t, ln, COL_NOTE, uc_cg_state_reason(st));
		break;
	}
	cli_table_setf(&s->t, ln, COL_EFF_MIN, "%d", eff.min);
	cli_table_setf(&s->t, ln, COL_EFF_MAX, "%d", eff.max);
	cli_table_set(&s->t, ln, COL_EFF_MIN_PCT, uc_util_format_pct(eff.min, b, sizeof(b)));
	cli_table_set(&s->t, ln, COL_EFF_MAX_PCT, uc_util_format_pct(eff.max, b, sizeof(b)));

	if (s->recursive) {
		char **names;
		size_t n;

		rc = uc_cg_children(rel, &names, &n);
		if (rc) {
			cli_table_setf(&s->t, ln, COL_NOTE, "cannot list children: %s",
				       strerror(-rc));
			s->failed++;
			return;
		}
		for (size_t i = 0; i < n; i++) {
			char child[PATH_MAX];

			if ((size_t)snprintf(child, sizeof(child), "%s%s%s", rel, *rel ? "/" : "",
					     names[i]) >= sizeof(child))
				continue;
			show_group(s, ln, child, names[i], &eff);
		}
		uc_cg_free_names(names, n);
	}
}

static void usage_show(void)
{
	cli_usage_head(stdout, "cgroup show", show_synopsis);
	printf("\nShow the clamps of cgroups: requested (as the kernel prints them, and in\n"
	       "capacity units) and effective (computed like the kernel: each clamp capped by\n"
	       "the parent's effective value, min capped by max, the root by the system\n"
	       "clamps). Groups without clamp files are listed with the reason.\n"
	       "PATH is relative to the cpu hierarchy (system.slice/foo.service) or absolute\n"
	       "below its mount, or a unit name (system.slice, nginx.service): its cgroup\n"
	       "as systemd names it; without PATH or --pid, the whole hierarchy is shown.\n\n"
	       "Options:\n"
	       " -R, --recursive        show the groups below each PATH too, as a tree\n"
	       " -p, --pid <pid>        the cgroup of this process (repeatable)\n"
	       CLI_OUTPUT_OPTS_HELP
	       CLI_HELP_OPTS_HELP
	       "\n%s", about);
}

static bool show_opt(struct cli_ctl *ctl, int c, const char *arg, void *data)
{
	struct show *s = data;

	if (c == 'R')
		s->recursive = true;
	else if (c == 'p')
		s->pids[s->npids++] = cli_pid_or_err(ctl, arg);
	return c == 'R' || c == 'p';
}

static int cgroup_show(struct cli_ctl *ctl, int argc, char **argv)
{
	const struct cli_opts opts = {
		.longopts = CLI_LONGOPTS({ "recursive", no_argument, NULL, 'R' },
					  { "pid", required_argument, NULL, 'p' }),
		.shortopts = "Rp:", .shared = CLI_OPTS_OUTPUT,
		.own = show_opt, .usage = usage_show, .cols = cols, .ncols = NCOLS,
	};
	const struct uc_cg_info *info;
	struct uc_sysctl_values sys;
	struct show s = { .pids = calloc((size_t)argc + 1, sizeof(pid_t)) };
	int rc;

	if (!s.pids)
		return cli_oom();
	cli_parse_opts(ctl, argc, argv, &opts, &s);

	cli_table_or_err(ctl, &s.t, "cgroups", cols, NCOLS,
			"CGROUP,MIN,MAX,MIN_UTIL,MAX_UTIL,EFF_MIN,EFF_MAX,NOTE");
	/* the root's effective values come from the system clamps */
	rc = uc_sysctl_read_all(&sys);
	if (rc && !uc_err_absent(rc))
		cli_errx("cannot read the system clamps: %s", strerror(-rc));
	if (rc) {
		cli_table_free(&s.t);
		free(s.pids);
		return uc_err_absent(rc) ? cli_no_uclamp("/proc/sys/kernel/sched_util_clamp_min "
							 "and _max are missing") : CLI_EXIT_FAIL;
	}
	s.smin = sys.min;
	s.smax = sys.max;
	info = layout_or_exit(ctl);

	if (optind == argc && s.npids == 0) {
		struct uc_cg_clamps none = { 0, 0 };

		s.recursive = true;
		show_group(&s, NULL, "", "/", &none);
	}
	for (int k = optind; k < argc + (int)s.npids; k++) {
		char rel[PATH_MAX], parent[PATH_MAX];
		struct uc_cg_clamps peff;

		if (k < argc)
			resolve_or_exit(ctl, info, argv[k], rel, sizeof(rel));
		else
			pid_cgroup_or_exit(ctl, info, s.pids[k - argc], rel, sizeof(rel));
		uc_cg_parent(rel, parent, sizeof(parent));
		rc = uc_cg_effective(parent, s.smin, s.smax, &peff);
		if (rc) {
			cli_errx("cannot compute the effective clamps above '%s': %s", rel,
				 strerror(-rc));
			s.failed++;
			continue;
		}
		show_group(&s, NULL, rel, *rel ? rel : "/", &peff);
	}
	cli_table_print(&s.t, stdout);
	cli_table_free(&s.t);
	free(s.pids);
	return s.failed ? CLI_EXIT_FAIL : CLI_EXIT_OK;
}

/* ---- set ----------------------------------------------------------------------- */

static void usage_set(void)
{
	cli_usage_head(stdout, "cgroup set", set_synopsis);
	printf("\nSet a cgroup's clamps. Only values that differ from the current ones are\n"
	       "written: ANY write to cpu.uclamp.min/max enables the uclamp fast path until\n"
	       "reboot, even one of the value already there (asks first, or needs --yes).\n"
	       "A min above the max is allowed for cgroups, with a warning.\n\n"
	       "Options:\n"
	       "     --min <value>      cpu.uclamp.min (protection); default = 0.00\n"
	       "     --max <value>      cpu.uclamp.max (limit); default = max\n"
	       "     --enable-cpu       cgroup v2: when cpu is not in the parent's\n"
	       "                        cgroup.subtree_control (so the group has no clamp\n"
	       "                        files), add it there and in every ancestor that lacks\n"
	       "                        it; planned and reported like the clamp writes.\n"
	       "                        Never in systemd's tree: there systemd is asked\n"
	       "                        instead, without this option (see below)\n"
	       CLI_WRITE_OPTS_HELP
	       CLI_HELP_OPTS_HELP
	       "\n"
	       "Values: %s.\n\n"
	       "PATH may be a unit name (nginx.service, user-1000.slice): its cgroup, as\n"
	       "systemd names it. Where systemd owns the parents (PID 1 is systemd, the\n"
	       "path is of units, none with Delegate=yes) and cpu is off, the plan asks\n"
	       "systemd to enable it: a runtime CPUWeight equal to the unit's (100 when\n"
	       "unset), kept until reboot, as 'systemctl set-property --runtime' would.\n\n"
	       "%s", uc_value_forms, about);
}

/* The requested value a group will hold once the plan has run. */
static int final_util(const struct uc_plan *p, const char *rel, enum uc_attr attr, int fallback_pct)
{
	struct uc_plan_it it = { 0 };
	const struct uc_change *c;

	while ((c = uc_plan_next(p, &it)))
		if (c->kind == UC_KIND_CGROUP && c->attr == attr && !strcmp(c->target, rel))
			return uc_pct100_to_util((int)c->to);
	return uc_pct100_to_util(fallback_pct);
}

/* What set's own options parse into. */
struct set_args {
	struct uc_value vmin, vmax;
	bool has_min, has_max, enable_cpu;
	char rel[PATH_MAX];	/* the group, resolved */
};

static bool set_opt(struct cli_ctl *ctl, int c, const char *arg, void *data)
{
	struct set_args *a = data;

	if (c == CLI_OPT_MIN)
		cli_value_or_err(ctl, "--min", arg, &a->vmin);
	else if (c == CLI_OPT_MAX)
		cli_value_or_err(ctl, "--max", arg, &a->vmax);
	else if (c == 'E')
		a->enable_cpu = true;
	else
		return false;
	a->has_min |= c == CLI_OPT_MIN;
	a->has_max |= c == CLI_OPT_MAX;
	return true;
}

/*
 * Why cpu cannot be enabled for rel (uc_cg_plan_cpu's error): one line
 * naming the fix. Exit 1; nothing was changed.
 */
static int cpu_off_error(const char *rel, const char *parent, const char *unit, int rc)
{
	switch (-rc) {
	case EPERM:
		cli_errx("'%s' has no cpu.uclamp files: cpu is not enabled in "
			 "%s/cgroup.subtree_control; add --enable-cpu to enable it (a "
			 "planned change, shown by --dry-run)",
			 rel, *parent ? parent : "the root's");
		break;
	case EINVAL:
		cli_errx("'%s' has no cpu.uclamp files and '%s' above it is not a unit's "
			 "cgroup, so systemd cannot be asked to enable cpu: give the unit "
			 "Delegate=yes and enable it there", rel, unit);
		break;
	case ENOPKG:
	case EHOSTDOWN:
	case EACCES:
		cli_errx("'%s' has no cpu.uclamp files and systemd owns its parents' "
			 "cgroup.subtree_control, but cannot be asked (%s): run 'systemctl "
			 "set-property --runtime %s CPUWeight=100' (or give it Delegate=yes)",
			 rel, -rc == ENOPKG ? "no libsystemd" :
			 -rc == EACCES ? "permission denied" : "no bus", unit);
		break;
	case ENOENT:
		cli_errx("'%s' has no cpu.uclamp files, and systemd has no unit '%s' to "
			 "enable cpu for", rel, unit);
		break;
	default:
		cli_errx("cannot plan enabling cpu above '%s': %s", rel, strerror(-rc));
	}
	return CLI_EXIT_FAIL;
}

/*
 * --enable-cpu in a group that has processes of its own: the kernel would
 * take it and make the group a thread root ("domain threaded"), its
 * processes then competing with its children. Refused before anything is
 * written, naming the group and a process to move.
 */
static int thread_root_error(const struct uc_plan *plan)
{
	char grp[PATH_MAX];
	pid_t pid;
	int rc = uc_cg_plan_thread_root(plan, grp, sizeof(grp), &pid);

	if (!rc)
		return 0;
	if (rc < 0) {
		cli_errx("cannot read the processes of the groups to enable cpu in: %s",
			 strerror(-rc));
		return CLI_EXIT_FAIL;
	}
	cli_errx("refused: '%s' has processes of its own (PID %d ...): enabling cpu in its "
		 "cgroup.subtree_control would make it \"domain threaded\" (its processes then "
		 "compete with its child groups); move them into a child group first (a leaf), "
		 "then run again; nothing changed", grp, (int)pid);
	return CLI_EXIT_FAIL;
}

/* The plan for a group (cli_run's plan()): its state, values, and a warning. */
static int set_plan(struct cli_ctl *ctl, struct uc_plan *plan, unsigned pass, void *data)
{
	const struct set_args *a = data;
	const char *rel = a->rel;
	char parent[PATH_MAX], unit[UC_SD_UNIT_MAX];
	enum uc_cg_state st;
	int rc, cur_min = 0, cur_max = UC_PCT_MAX;

	rc = uc_cg_state(rel, &st);
	if (rc) {
		cli_errx("cannot inspect cgroup '%s': %s", rel, strerror(-rc));
		return CLI_EXIT_FAIL;
	}
	uc_cg_parent(rel, parent, sizeof(parent));

	switch (st) {
	case UC_CG_HAS_CLAMPS:
		if ((rc = uc_cg_read(rel, UC_ATTR_MIN, &cur_min)) ||
		    (rc = uc_cg_read(rel, UC_ATTR_MAX, &cur_max))) {
			cli_errx("cannot read the clamps of '%s': %s", rel, strerror(-rc));
			return CLI_EXIT_FAIL;
		}
		break;
	case UC_CG_CPU_OFF:
		rc = uc_cg_plan_cpu(plan, rel, a->enable_cpu, unit, sizeof(unit));
		if (rc < 0)
			return cpu_off_error(rel, parent, unit, rc);
		if ((rc = thread_root_error(plan)))
			return rc;
		break;
	case UC_CG_NO_GROUP_CLAMPS:
		cli_errx("this kernel has no cgroup uclamp (CONFIG_UCLAMP_TASK_GROUP): '%s' has no "
			 "cpu.uclamp files although the cpu controller is on", a->rel);
		return CLI_EXIT_NOTSUPP;
	case UC_CG_IS_ROOT:
		break;	/* refused before planning */
	}

	if (a->has_min || a->has_max) {
		rc = uc_cg_plan_values(plan, rel, a->has_min ? &a->vmin : NULL,
				       a->has_max ? &a->vmax : NULL);
		if (rc) {
			cli_errx("cannot plan the change of '%s': %s", rel, strerror(-rc));
			return CLI_EXIT_FAIL;
		}
	}
	if (!pass && final_util(plan, rel, UC_ATTR_MIN, cur_min) >
		     final_util(plan, rel, UC_ATTR_MAX, cur_max))
		cli_warnx(ctl, "'%s': cpu.uclamp.min would be above cpu.uclamp.max; the kernel "
			  "allows it for cgroups, but the effective min is then the max",
			  rel);
	return 0;
}

static int cgroup_set(struct cli_ctl *ctl, int argc, char **argv)
{
	const struct cli_opts opts = {
		.longopts = CLI_LONGOPTS(CLI_CLAMP_LONGOPTS,
					  { "enable-cpu", no_argument, NULL, 'E' }),
		.shared = CLI_OPTS_WRITE, .own = set_opt, .usage = usage_set,
	};
	struct set_args a = { .enable_cpu = false };
	const struct cli_run how = {
		.mode = UC_EXEC_ATOMIC, .may_ask = true, .plan = set_plan, .data = &a,
	};
	const struct uc_cg_info *info;

	cli_parse_opts(ctl, argc, argv, &opts, &a);
	if (optind >= argc)
		cli_usage_error(ctl, "missing PATH: which cgroup? (relative to the cpu hierarchy, "
				"e.g. system.slice/foo.service)");
	if (argc - optind > 1)
		cli_usage_error(ctl, "one PATH only: got '%s' and '%s'", argv[optind],
				argv[optind + 1]);
	if (!a.has_min && !a.has_max && !a.enable_cpu)
		cli_usage_error(ctl, "nothing to set: give --min and/or --max (or --enable-cpu)");

	info = layout_or_exit(ctl);
	resolve_or_exit(ctl, info, argv[optind], a.rel, sizeof(a.rel));
	if (!*a.rel)
		cli_usage_error(ctl, "the root cgroup has no cpu.uclamp files: for system-wide "
				"limits use 'uclampctl system set'");
	return cli_run_plan(ctl, &how);
}

int cmd_cgroup(struct cli_ctl *ctl, int argc, char **argv)
{
	static const struct cli_command cmds[] = {
		{ "show", cgroup_show, "show cgroup clamps, requested and effective",
		  show_synopsis },
		{ "set", cgroup_set, "set a cgroup's clamps", set_synopsis },
		{ NULL, NULL, NULL, NULL },
	};

	return cli_dispatch_group(ctl, "cgroup", cmds,
				  "Show or set cgroup clamps (cpu.uclamp.min/max).\n", about, argc,
				  argv);
}
