/*
 * cgroup_io.c: discovery (libcgroup, statfs and the mount table scripted with
 * -Wl,--wrap), path validation on a real directory tree (traversal, symlinks,
 * absolute paths), /proc/PID/cgroup parsing through a fake sysroot, the
 * effective-value computation on constructed hierarchies (against a separate
 * recursive reading of the kernel's cpu_util_update_eff()), percent <-> unit
 * round trips for every unit, and the plan builder (only differing values).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/magic.h>
#include <mntent.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>
#include <cmocka.h>

#include <libcgroup.h>

#include "uclamp/cgroup.h"
#include "uclamp/dlib.h"
#include "uclamp/plan_run.h"
#include "uclamp/sched.h"
#include "uclamp/sysroot.h"
#include "uclamp/value.h"
#include "fakeroot.h"

/* ---- scripted libcgroup (uc_dlib_use), statfs and mount table (--wrap) ---- */
int __wrap_statfs(const char *path, struct statfs *buf);
int __real_statfs(const char *path, struct statfs *buf);
FILE *__wrap_setmntent(const char *file, const char *type);
FILE *__real_setmntent(const char *file, const char *type);
struct mntent *__wrap_getmntent(FILE *f);
struct mntent *__real_getmntent(FILE *f);
int __wrap_endmntent(FILE *f);
int __real_endmntent(FILE *f);

static struct {
	bool on;		/* otherwise the wrappers pass through */
	int init_rc;
	int mp_rc;
	const char *mp;		/* what cgroup_get_subsys_mount_point("cpu") returns */
	int last_errno;
	long fstype;
	int mtab_errno;		/* getmntent fails with it at the end of the table */
	struct mntent mounts[4];
	size_t nmounts, pos;
	char asked[32];
} fake;
static FILE *const fake_mtab = (FILE *)&fake;

static int fake_cgroup_init(void)
{
	return fake.init_rc;
}

static int fake_cgroup_get_subsys_mount_point(const char *controller, char **mount_point)
{
	snprintf(fake.asked, sizeof(fake.asked), "%s", controller);
	if (fake.mp_rc || !fake.mp)
		return fake.mp_rc ? fake.mp_rc : ECGROUPNOTEXIST;
	*mount_point = strdup(fake.mp);
	return 0;
}

static int fake_cgroup_get_last_errno(void)
{
	return fake.last_errno;
}

static void fake_cgroup_set_logger(cgroup_logger_callback cb, int level, void *userdata)
{
	(void)cb, (void)level, (void)userdata;
}

/* libcgroup's functions, as cgroup_io.c looks them up */
static void *fake_libcgroup(const char *name)
{
	static const struct {
		const char *name;
		void *fn;
	} fns[] = {
		{ "cgroup_init", (void *)fake_cgroup_init },
		{ "cgroup_get_subsys_mount_point", (void *)fake_cgroup_get_subsys_mount_point },
		{ "cgroup_get_last_errno", (void *)fake_cgroup_get_last_errno },
		{ "cgroup_set_logger", (void *)fake_cgroup_set_logger },
	};

	for (size_t i = 0; i < sizeof(fns) / sizeof(fns[0]); i++)
		if (!strcmp(fns[i].name, name))
			return fns[i].fn;
	return NULL;
}

int __wrap_statfs(const char *path, struct statfs *buf)
{
	if (!fake.on)
		return __real_statfs(path, buf);
	memset(buf, 0, sizeof(*buf));
	buf->f_type = fake.fstype;
	return 0;
}

FILE *__wrap_setmntent(const char *file, const char *type)
{
	if (!fake.on)
		return __real_setmntent(file, type);
	fake.pos = 0;
	return fake_mtab;
}

struct mntent *__wrap_getmntent(FILE *f)
{
	if (f != fake_mtab)
		return __real_getmntent(f);
	if (fake.pos == fake.nmounts && fake.mtab_errno)
		errno = fake.mtab_errno;
	return fake.pos < fake.nmounts ? &fake.mounts[fake.pos++] : NULL;
}

int __wrap_endmntent(FILE *f)
{
	if (f != fake_mtab)
		return __real_endmntent(f);
	return 1;
}

static void add_mount(const char *type, const char *dir)
{
	fake.mounts[fake.nmounts++] = (struct mntent){ .mnt_fsname = (char *)type,
		.mnt_dir = (char *)dir, .mnt_type = (char *)type, .mnt_opts = (char *)"rw" };
}

static void fake_reset(void)
{
	memset(&fake, 0, sizeof(fake));
	fake.on = true;
	uc_cg_use(NULL);	/* forget the layout: the next need discovers again */
}

/* a fresh fake whose cpu controller is the mount of type ("cgroup" or "cgroup2") at dir */
static void fake_cpu_at(const char *type, const char *dir)
{
	fake_reset();
	fake.mp = dir;
	fake.fstype = strcmp(type, "cgroup2") ? CGROUP_SUPER_MAGIC : CGROUP2_SUPER_MAGIC;
	add_mount(type, dir);
}

static void test_discover_v2(void **state)
{
	struct uc_cg_info i;

	(void)state;
	fake_cpu_at("cgroup2", "/sys/fs/cgroup");
	assert_int_equal(uc_cg_init(&i), 0);
	assert_string_equal(fake.asked, "cpu");
	assert_int_equal(i.version, UC_CG_V2);
	assert_false(i.hybrid);
	assert_string_equal(i.mount, "/sys/fs/cgroup");
	assert_string_equal(i.unified, "");
	assert_non_null(uc_cg_layout());
	assert_string_equal(uc_cg_layout()->mount, "/sys/fs/cgroup");

	/* one layout per process: a second call does not look again */
	fake.mp = "/elsewhere";
	fake.fstype = CGROUP_SUPER_MAGIC;
	assert_int_equal(uc_cg_init(&i), 0);
	assert_string_equal(i.mount, "/sys/fs/cgroup");
	assert_int_equal(i.version, UC_CG_V2);
	fake.on = false;
}

static void test_discover_v1_and_hybrid(void **state)
{
	struct uc_cg_info i;

	(void)state;
	fake_cpu_at("cgroup", "/sys/fs/cgroup/cpu,cpuacct");
	add_mount("tmpfs", "/run");
	assert_int_equal(uc_cg_init(&i), 0);
	assert_int_equal(i.version, UC_CG_V1);
	assert_false(i.hybrid);
	assert_string_equal(i.mount, "/sys/fs/cgroup/cpu,cpuacct");

	/* a v2 mount beside it: hybrid */
	add_mount("cgroup2", "/sys/fs/cgroup/unified");
	uc_cg_use(NULL);
	assert_int_equal(uc_cg_init(&i), 0);
	assert_int_equal(i.version, UC_CG_V1);
	assert_true(i.hybrid);
	assert_string_equal(i.unified, "/sys/fs/cgroup/unified");
	assert_string_equal(uc_cg_version_name(i.version), "v1");
	fake.on = false;
}

static void test_discover_none(void **state)
{
	struct uc_cg_info i;

	(void)state;
	fake_reset();
	fake.init_rc = ECGROUPNOTMOUNTED;
	assert_int_equal(uc_cg_init(&i), -ENOENT);
	assert_null(uc_cg_layout());

	fake_reset();
	fake.mp_rc = ECGROUPNOTEXIST;		/* no cpu controller anywhere */
	assert_int_equal(uc_cg_init(&i), -ENOENT);

	fake_reset();
	fake.init_rc = ECGOTHER;		/* the OS said why */
	fake.last_errno = EACCES;
	assert_int_equal(uc_cg_init(&i), -EACCES);

	fake_reset();
	fake.mp = "/somewhere";
	fake.fstype = 0x01021994;		/* tmpfs: not a cgroup file system */
	assert_int_equal(uc_cg_init(&i), -ENOENT);
	assert_null(uc_cg_layout());
	fake.on = false;
}

/*
 * "Not mounted" from libcgroup is believed only when the mount table agrees
 * (uc_err_absent): libcgroup 2.0.2 also says so when it could not open what
 * it looked at (EMFILE). Any other answer of libcgroup's is an error.
 */
static void test_discover_errors(void **state)
{
	char dir[PATH_MAX];
	struct uc_cg_info i;

	(void)state;
	assert_int_equal(fr_create(dir, sizeof(dir), "cgroup-v2"), 0);

	/* a v1 cpu mount that libcgroup did not report */
	fake_reset();
	fake.init_rc = ECGROUPNOTMOUNTED;
	add_mount("cgroup", "/sys/fs/cgroup/cpu");
	fake.mounts[0].mnt_opts = (char *)"rw,nosuid,cpu,cpuacct";
	assert_int_equal(uc_cg_init(&i), -EIO);
	/* a v2 root that lists cpu */
	fake_reset();
	fake.mp_rc = ECGROUPNOTEXIST;
	add_mount("cgroup2", dir);
	assert_int_equal(fr_write(dir, "cgroup.controllers", "cpuset cpu io memory pids\n"), 0);
	assert_int_equal(uc_cg_init(&i), -EIO);
	/* one that does not: absent after all */
	fake_reset();
	fake.mp_rc = ECGROUPNOTEXIST;
	add_mount("cgroup2", dir);
	assert_int_equal(fr_write(dir, "cgroup.controllers", "cpuset io memory pids\n"), 0);
	assert_int_equal(uc_cg_init(&i), -ENOENT);
	/* the table cannot be read to the end: its errno */
	fake_reset();
	fake.init_rc = ECGROUPNOTMOUNTED;
	fake.mtab_errno = EMFILE;
	assert_int_equal(uc_cg_init(&i), -EMFILE);
	/* ECGOTHER without an errno, and any other code: no proof of absence */
	fake_reset();
	fake.init_rc = ECGOTHER;
	assert_int_equal(uc_cg_init(&i), -EIO);
	fake_reset();
	fake.init_rc = ECGFAIL;
	assert_int_equal(uc_cg_init(&i), -EIO);
	fake.on = false;
	assert_int_equal(fr_destroy(dir), 0);
}

/* ---- a directory tree as the cpu hierarchy --------------------------------- */
static char tmp[PATH_MAX - 64];	/* holds cg/ (the "mount"), outside/, cgalias -> cg */
static char mnt[PATH_MAX];

static void mkpath(const char *rel)
{
	assert_int_equal(fr_mkdir(tmp, rel), 0);
}

static void put(const char *rel, const char *text)
{
	assert_int_equal(fr_write(mnt, rel, text), 0);
}

static void drop(const char *rel)
{
	assert_int_equal(fr_remove(mnt, rel), 0);
}

static char *slurp(const char *rel)
{
	static char buf[256];

	return fr_read(mnt, rel, buf, sizeof(buf)) < 0 ? NULL : buf;
}

static void use_tree(enum uc_cg_version v)
{
	fr_cgroup(mnt, "", v);
}

static int setup_tree(void **state)
{
	(void)state;
	if (fr_create(tmp, sizeof(tmp), "test-cgroup"))
		return -1;
	snprintf(mnt, sizeof(mnt), "%s/cg", tmp);
	mkpath("cg");
	mkpath("cg/a");
	mkpath("cg/a/b");
	mkpath("cg/a/b/c");
	mkpath("cg/z");
	mkpath("cg/m");
	mkpath("cg2");
	mkpath("outside");
	mkpath("outside/x");
	/* symlinks: one out of the mount, one inside, one to the mount */
	if (fr_symlink(tmp, "cg/evil", "../outside") || fr_symlink(tmp, "cg/a/up", "/") ||
	    fr_symlink(tmp, "cg/alias", "a/b") || fr_symlink(tmp, "cgalias", "cg"))
		return -1;
	put("a/cpu.uclamp.min", "0.00\n");
	put("a/cpu.uclamp.max", "max\n");
	put("cgroup.subtree_control", "cpu memory\n");
	put("a/cgroup.subtree_control", "\n");
	put("a/b/cgroup.subtree_control", "\n");
	use_tree(UC_CG_V2);
	return 0;
}

static int teardown_tree(void **state)
{
	(void)state;
	return fr_destroy(tmp) ? -1 : 0;
}

static int resolve(const char *user, char *rel)
{
	struct uc_cg_info i = { .version = UC_CG_V2 };

	snprintf(i.mount, sizeof(i.mount), "%s", mnt);
	return uc_cg_resolve(&i, user, rel, PATH_MAX);
}

/* The one lexical check, as config.c and the command line use it. */
static void test_path_escapes(void **state)
{
	static const char *const bad[] = {
		"..", "../b", "a/..", "a/../b", "/a//../b", "a/b/../../..", "../",
	};
	static const char *const good[] = {
		"", "/", "a", "a..b", "..a", "a..", ".hidden", "...", "a/./b", "//a//b//",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (!uc_cg_path_escapes(bad[i]))
			fail_msg("'%s' passed", bad[i]);
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		if (uc_cg_path_escapes(good[i]))
			fail_msg("'%s' refused", good[i]);
}

static void test_path_next(void **state)
{
	char pre[8] = "";
	const char *s = "//a//bc/";
	size_t len = 0;

	(void)state;
	assert_int_equal(uc_cg_path_next(&s, pre, sizeof(pre), &len), 1);
	assert_string_equal(pre, "a");
	assert_int_equal(uc_cg_path_next(&s, pre, sizeof(pre), &len), 1);
	assert_string_equal(pre, "a/bc");
	assert_string_equal(s, "");
	assert_int_equal(uc_cg_path_next(&s, pre, sizeof(pre), &len), 0);
	s = "defg";
	assert_int_equal(uc_cg_path_next(&s, pre, sizeof(pre), &len), -ENAMETOOLONG);
	assert_string_equal(pre, "a/bc");	/* untouched */
}

static void test_resolve_inside(void **state)
{
	static const struct { const char *in, *rel; } ok[] = {
		{ "a", "a" }, { "a/b", "a/b" }, { "a//b/", "a/b" }, { "./a", "a" },
		{ "a/./b/../b/c", "a/b/c" }, { "a/../z", "z" }, { "", "" }, { ".", "" },
		{ "alias", "a/b" },	/* a symlink that stays inside */
		{ "alias/c", "a/b/c" },
	};
	char rel[PATH_MAX], abs[PATH_MAX * 2];

	(void)state;
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		int rc = resolve(ok[i].in, rel);

		if (rc)
			fail_msg("'%s': %s", ok[i].in, strerror(-rc));
		assert_string_equal(rel, ok[i].rel);
	}
	/* absolute under the mount, directly or through a symlink to it */
	snprintf(abs, sizeof(abs), "%s/a/b", mnt);
	assert_int_equal(resolve(abs, rel), 0);
	assert_string_equal(rel, "a/b");
	snprintf(abs, sizeof(abs), "%s", mnt);
	assert_int_equal(resolve(abs, rel), 0);
	assert_string_equal(rel, "");
	snprintf(abs, sizeof(abs), "%s/cgalias/a", tmp);
	assert_int_equal(resolve(abs, rel), 0);
	assert_string_equal(rel, "a");
}

static void test_resolve_traversal(void **state)
{
	static const char *const out[] = {
		"..",
		"../",
		"../outside",
		"../outside/x",
		"a/../../outside",
		"a/../..",
		"a/../../b",
		"a/b/../../../nonexistent",
		"../../../../../../etc",
		"evil",
		"evil/x",
		"a/up",
		"a/up/etc",
		"./../cg/../outside",
		/* physically the mount (alias -> a/b), lexically its parent */
		"alias/../..",
	};
	char rel[PATH_MAX], abs[PATH_MAX * 2];

	(void)state;
	for (size_t i = 0; i < sizeof(out) / sizeof(out[0]); i++) {
		int rc = resolve(out[i], rel);

		if (rc != -EXDEV)
			fail_msg("'%s': %d (%s), expected -EXDEV", out[i], rc,
				 rc ? strerror(-rc) : "accepted");
	}
	/* absolute paths outside the mount, existing or not */
	assert_int_equal(resolve("/etc", rel), -EXDEV);
	assert_int_equal(resolve("/", rel), -EXDEV);
	assert_int_equal(resolve("/nonexistent/x", rel), -EXDEV);
	snprintf(abs, sizeof(abs), "%s/outside", tmp);
	assert_int_equal(resolve(abs, rel), -EXDEV);
	snprintf(abs, sizeof(abs), "%s/../outside", mnt);
	assert_int_equal(resolve(abs, rel), -EXDEV);
	snprintf(abs, sizeof(abs), "%s/evil/x", mnt);
	assert_int_equal(resolve(abs, rel), -EXDEV);
	/* a sibling whose name starts like the mount is not under it */
	snprintf(abs, sizeof(abs), "%s2", mnt);
	assert_int_equal(resolve(abs, rel), -EXDEV);
}

static void test_resolve_missing(void **state)
{
	char rel[PATH_MAX], abs[PATH_MAX * 2];

	(void)state;
	assert_int_equal(resolve("nope", rel), -ENOENT);
	assert_int_equal(resolve("a/nope/deeper", rel), -ENOENT);
	snprintf(abs, sizeof(abs), "%s/nope", mnt);
	assert_int_equal(resolve(abs, rel), -ENOENT);
	assert_int_equal(resolve("a/cpu.uclamp.min", rel), -ENOTDIR);
	assert_int_equal(resolve(NULL, rel), -EINVAL);
}

/* ---- /proc/PID/cgroup ------------------------------------------------------- */
static char sysroot[PATH_MAX];
static const struct fr_suite suite = { sysroot, sizeof(sysroot), "test-cgroot", true, { "proc" } };

static void fake_proc(int pid, const char *text)
{
	char rel[64];

	snprintf(rel, sizeof(rel), "proc/%d/cgroup", pid);
	assert_int_equal(fr_write(sysroot, rel, text), 0);
}

static void test_of_pid(void **state)
{
	struct uc_cg_info v2 = { .version = UC_CG_V2 }, v1 = { .version = UC_CG_V1 };
	char rel[PATH_MAX];

	(void)state;
	fake_proc(42, "0::/system.slice/foo.service\n");
	assert_int_equal(uc_cg_of_pid(&v2, 42, rel, sizeof(rel)), 0);
	assert_string_equal(rel, "system.slice/foo.service");
	fake_proc(43, "0::/\n");
	assert_int_equal(uc_cg_of_pid(&v2, 43, rel, sizeof(rel)), 0);
	assert_string_equal(rel, "");

	/* v1 / hybrid: the line whose list has exactly "cpu", not cpuacct or cpuset */
	fake_proc(44, "9:name=systemd:/user.slice\n3:cpuset:/s\n2:cpuacct:/acct\n"
		      "1:cpu,cpuacct:/bg/low\n0::/user.slice\n");
	assert_int_equal(uc_cg_of_pid(&v1, 44, rel, sizeof(rel)), 0);
	assert_string_equal(rel, "bg/low");
	assert_int_equal(uc_cg_of_pid(&v2, 44, rel, sizeof(rel)), 0);
	assert_string_equal(rel, "user.slice");
	fake_proc(45, "4:cpuacct,cpu:/x\n");
	assert_int_equal(uc_cg_of_pid(&v1, 45, rel, sizeof(rel)), 0);
	assert_string_equal(rel, "x");

	/* no cpu line; v2 line missing; not our namespace; no such process */
	fake_proc(46, "3:cpuset:/s\n2:cpuacct:/acct\n");
	assert_int_equal(uc_cg_of_pid(&v1, 46, rel, sizeof(rel)), -ENOENT);
	assert_int_equal(uc_cg_of_pid(&v2, 46, rel, sizeof(rel)), -ENOENT);
	fake_proc(47, "0::/../../other\n");
	assert_int_equal(uc_cg_of_pid(&v2, 47, rel, sizeof(rel)), -EXDEV);
	assert_int_equal(uc_cg_of_pid(&v2, 999999, rel, sizeof(rel)), -ESRCH);
}

/* ---- files and states -------------------------------------------------------- */
static void test_read_write(void **state)
{
	int v;

	(void)state;
	use_tree(UC_CG_V2);
	assert_int_equal(uc_cg_read("a", UC_ATTR_MIN, &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(uc_cg_read("a", UC_ATTR_MAX, &v), 0);
	assert_int_equal(v, UC_PCT_MAX);
	assert_int_equal(uc_cg_write("a", UC_ATTR_MIN, 2050), 0);
	assert_string_equal(slurp("a/cpu.uclamp.min"), "20.50");
	assert_int_equal(uc_cg_read("a", UC_ATTR_MIN, &v), 0);
	assert_int_equal(v, 2050);
	assert_int_equal(uc_cg_write("a", UC_ATTR_MAX, 8000), 0);
	assert_string_equal(slurp("a/cpu.uclamp.max"), "80.00");
	assert_int_equal(uc_cg_write("a", UC_ATTR_MAX, UC_PCT_MAX), 0);
	assert_string_equal(slurp("a/cpu.uclamp.max"), "max");
	/* out of range: refused without touching the file */
	assert_int_equal(uc_cg_write("a", UC_ATTR_MAX, 10001), -ERANGE);
	assert_int_equal(uc_cg_write("a", UC_ATTR_MIN, -1), -ERANGE);
	assert_string_equal(slurp("a/cpu.uclamp.min"), "20.50");
	/* absent files, garbage, '..' in rel */
	assert_int_equal(uc_cg_read("z", UC_ATTR_MIN, &v), -ENOENT);
	assert_int_equal(uc_cg_write("z", UC_ATTR_MIN, 0), -ENOENT);
	assert_null(slurp("z/cpu.uclamp.min"));
	put("m/cpu.uclamp.min", "bogus\n");
	assert_int_equal(uc_cg_read("m", UC_ATTR_MIN, &v), -EINVAL);
	drop("m/cpu.uclamp.min");
	assert_int_equal(uc_cg_read("a/../../outside", UC_ATTR_MIN, &v), -EXDEV);
	assert_int_equal(uc_cg_write("../outside", UC_ATTR_MIN, 0), -EXDEV);
	put("a/cpu.uclamp.min", "0.00\n");
}

static void test_states(void **state)
{
	enum uc_cg_state st;
	bool on;

	(void)state;
	use_tree(UC_CG_V2);
	assert_int_equal(uc_cg_state("", &st), 0);
	assert_int_equal(st, UC_CG_IS_ROOT);
	assert_int_equal(uc_cg_state("a", &st), 0);
	assert_int_equal(st, UC_CG_HAS_CLAMPS);
	/* a/b: a's subtree_control lacks cpu */
	assert_int_equal(uc_cg_subtree_cpu("a", &on), 0);
	assert_false(on);
	assert_int_equal(uc_cg_state("a/b", &st), 0);
	assert_int_equal(st, UC_CG_CPU_OFF);
	/* z: the root's has cpu, yet no files: the kernel lacks group clamps */
	assert_int_equal(uc_cg_subtree_cpu("", &on), 0);
	assert_true(on);
	assert_int_equal(uc_cg_state("z", &st), 0);
	assert_int_equal(st, UC_CG_NO_GROUP_CLAMPS);
	assert_int_equal(uc_cg_state("nope", &st), -ENOENT);
	assert_true(strstr(uc_cg_state_reason(UC_CG_CPU_OFF), "subtree_control") != NULL);
	assert_true(strstr(uc_cg_state_reason(UC_CG_NO_GROUP_CLAMPS), "UCLAMP_TASK_GROUP") != NULL);
	assert_true(strstr(uc_cg_state_reason(UC_CG_IS_ROOT), "root") != NULL);

	/* v1: no subtree_control; missing files can only mean no group clamps */
	use_tree(UC_CG_V1);
	assert_int_equal(uc_cg_subtree_cpu("a", &on), -EOPNOTSUPP);
	assert_int_equal(uc_cg_set_subtree_cpu("a", true), -EOPNOTSUPP);
	assert_int_equal(uc_cg_state("a/b", &st), 0);
	assert_int_equal(st, UC_CG_NO_GROUP_CLAMPS);
	use_tree(UC_CG_V2);
}

static void test_children_and_parent(void **state)
{
	char **names, par[PATH_MAX];
	size_t n;

	(void)state;
	use_tree(UC_CG_V2);
	assert_int_equal(uc_cg_children("", &names, &n), 0);
	/* directories only (not the files, not the symlinks), sorted */
	assert_int_equal(n, 3);
	assert_string_equal(names[0], "a");
	assert_string_equal(names[1], "m");
	assert_string_equal(names[2], "z");
	uc_cg_free_names(names, n);
	assert_int_equal(uc_cg_children("a/b/c", &names, &n), 0);
	assert_int_equal(n, 0);
	uc_cg_free_names(names, n);
	assert_int_equal(uc_cg_children("nope", &names, &n), -ENOENT);

	assert_true(uc_cg_parent("a/b/c", par, sizeof(par)));
	assert_string_equal(par, "a/b");
	assert_true(uc_cg_parent("a", par, sizeof(par)));
	assert_string_equal(par, "");
	assert_false(uc_cg_parent("", par, sizeof(par)));
}

/* ---- effective values ------------------------------------------------------ */

/* A hierarchy in an array, parents before children (pre-order), as
 * 'cgroup show -R' walks it. */
struct node {
	int parent;		/* index, -1 for the root */
	bool has_clamps;	/* false: no files (root, cpu off): the parent's effective values */
	int req_min, req_max;	/* pct100 */
	struct uc_cg_clamps eff;
};

/* The library's two steps composed top-down, as cmd/cgroup.c does. */
static void eff_tree(struct node *g, size_t n, long smin, long smax)
{
	for (size_t i = 0; i < n; i++) {
		assert_true(g[i].parent < (int)i);
		if (g[i].parent < 0)
			uc_cg_eff_root(smin, smax, &g[i].eff);
		else if (!g[i].has_clamps)
			g[i].eff = g[g[i].parent].eff;
		else
			uc_cg_eff_child(&g[g[i].parent].eff, uc_pct100_to_util(g[i].req_min),
					uc_pct100_to_util(g[i].req_max), &g[i].eff);
	}
}

/* Reference: the kernel's rule read on its own, recursively. */
static struct uc_cg_clamps ref_eff(const struct node *g, int i, long smin, long smax)
{
	struct uc_cg_clamps e, p;
	int req[2];

	if (g[i].parent < 0) {
		e.min = (int)smin;
		e.max = (int)smax;
		if (e.min > e.max)
			e.min = e.max;
		return e;
	}
	p = ref_eff(g, g[i].parent, smin, smax);
	if (!g[i].has_clamps)
		return p;	/* tasks there belong to the nearest group with cpu */
	req[0] = uc_pct100_to_util(g[i].req_min);
	req[1] = uc_pct100_to_util(g[i].req_max);
	e.min = req[0] > p.min ? p.min : req[0];
	e.max = req[1] > p.max ? p.max : req[1];
	if (e.min > e.max)
		e.min = e.max;
	return e;
}

static void test_eff_examples(void **state)
{
	/* root; a 20.50/80.00 (the VM smoke test: a task inside gets 210/819);
	 * a/b asks more than a gives; a/c min > max; a/d no cpu; a/d/e under it */
	struct node g[] = {
		{ -1, false, 0, 0, { 0, 0 } },
		{ 0, true, 2050, 8000, { 0, 0 } },
		{ 1, true, 9000, UC_PCT_MAX, { 0, 0 } },
		{ 1, true, 6000, 3000, { 0, 0 } },
		{ 1, false, 0, 0, { 0, 0 } },
		{ 4, true, 0, 5000, { 0, 0 } },
	};

	(void)state;
	eff_tree(g, 6, 1024, 1024);
	assert_int_equal(g[0].eff.min, 1024);
	assert_int_equal(g[0].eff.max, 1024);
	assert_int_equal(g[1].eff.min, 210);
	assert_int_equal(g[1].eff.max, 819);
	assert_int_equal(g[2].eff.min, 210);	/* capped by a's effective min */
	assert_int_equal(g[2].eff.max, 819);
	/* asks 614 > its own max: capped by a's min first */
	assert_int_equal(g[3].eff.min, 210);
	assert_int_equal(g[3].eff.max, 307);
	assert_int_equal(g[4].eff.min, 210);	/* inherits a */
	assert_int_equal(g[4].eff.max, 819);
	assert_int_equal(g[5].eff.min, 0);
	assert_int_equal(g[5].eff.max, 512);

	/* system clamps lowered: the root's effective values follow, min <= max */
	eff_tree(g, 6, 800, 600);
	assert_int_equal(g[0].eff.min, 600);
	assert_int_equal(g[0].eff.max, 600);
	assert_int_equal(g[2].eff.min, 210);
	assert_int_equal(g[2].eff.max, 600);
}

static void test_eff_random_trees(void **state)
{
	struct node g[64];
	unsigned seed = 12345;

	(void)state;
	for (int round = 0; round < 2000; round++) {
		size_t n = 1 + (size_t)(rand_r(&seed) % 64);
		long smin = rand_r(&seed) % 1025, smax = rand_r(&seed) % 1025;

		if (smin > smax && rand_r(&seed) % 2)
			smin = smax;	/* mostly valid sysctls, sometimes not */
		for (size_t i = 0; i < n; i++) {
			g[i].parent = i ? (int)(rand_r(&seed) % i) : -1;
			g[i].has_clamps = i && rand_r(&seed) % 4;
			g[i].req_min = rand_r(&seed) % 3 ? rand_r(&seed) % 10001 : 0;
			g[i].req_max = rand_r(&seed) % 3 ? rand_r(&seed) % 10001 : UC_PCT_MAX;
		}
		eff_tree(g, n, smin, smax);
		for (size_t i = 0; i < n; i++) {
			struct uc_cg_clamps r = ref_eff(g, (int)i, smin, smax);

			if (r.min != g[i].eff.min || r.max != g[i].eff.max)
				fail_msg("round %d node %zu: got %d/%d, reference %d/%d", round, i,
					 g[i].eff.min, g[i].eff.max, r.min, r.max);
			/* properties: protection never above the limit, never above the parent's */
			assert_true(g[i].eff.min <= g[i].eff.max);
			if (g[i].parent >= 0) {
				assert_true(g[i].eff.max <= g[g[i].parent].eff.max);
				assert_true(g[i].eff.min <= g[g[i].parent].eff.min);
			}
		}
	}
}

/* Walking a real tree gives what the array computation gives. */
static void test_eff_walk(void **state)
{
	struct uc_cg_clamps e;

	(void)state;
	use_tree(UC_CG_V2);
	put("a/cpu.uclamp.min", "20.50\n");
	put("a/cpu.uclamp.max", "80.00\n");
	put("a/b/c/cpu.uclamp.min", "max\n");
	put("a/b/c/cpu.uclamp.max", "50.00\n");
	assert_int_equal(uc_cg_effective("a", 1024, 1024, &e), 0);
	assert_int_equal(e.min, 210);
	assert_int_equal(e.max, 819);
	assert_int_equal(uc_cg_effective("a/b", 1024, 1024, &e), 0);	/* no files: a's */
	assert_int_equal(e.min, 210);
	assert_int_equal(e.max, 819);
	assert_int_equal(uc_cg_effective("a/b/c", 1024, 1024, &e), 0);
	assert_int_equal(e.min, 210);
	assert_int_equal(e.max, 512);
	assert_int_equal(uc_cg_effective("a/b/c", 100, 1024, &e), 0);
	assert_int_equal(e.min, 100);
	assert_int_equal(uc_cg_effective("", 300, 200, &e), 0);
	assert_int_equal(e.min, 200);
	assert_int_equal(e.max, 200);
	assert_int_equal(uc_cg_effective("a/../..", 1024, 1024, &e), -EXDEV);
	drop("a/b/c/cpu.uclamp.min");
	drop("a/b/c/cpu.uclamp.max");
	put("a/cpu.uclamp.min", "0.00\n");
	put("a/cpu.uclamp.max", "max\n");
}

/* ---- percent <-> units ------------------------------------------------------- */

/* Every unit 0..1024: the percentage the tool writes for it maps back to
 * exactly that unit, survives the kernel's print/parse, and a plan asking for
 * the unit on a group that holds that percentage is empty. */
static void test_units_round_trip(void **state)
{
	(void)state;
	use_tree(UC_CG_V2);
	for (int u = 0; u <= UC_CAPACITY_SCALE; u++) {
		struct uc_value v;
		struct uc_plan p;
		char s[16], in[16];
		int pct, back, rc;

		snprintf(in, sizeof(in), "%d", u);
		assert_int_equal(uc_value_parse(in, &v), 0);
		/* the plan writes this for u, from a current value that differs */
		put("a/cpu.uclamp.min", u == 0 ? "50.00\n" : "0.00\n");
		uc_plan_init(&p);
		assert_int_equal(uc_cg_plan_values(&p, "a", &v, NULL), 0);
		assert_int_equal(p.n, 1);
		pct = (int)p.rec[0].to;
		if (uc_pct100_to_util(pct) != u)
			fail_msg("unit %d: written as %d hundredths, which the kernel reads as %d",
				 u, pct, uc_pct100_to_util(pct));
		/* through the executor and the file, as the kernel would store it */
		uc_plan_free(&p);
		rc = uc_cg_write("a", UC_ATTR_MIN, pct);
		assert_int_equal(rc, 0);
		assert_int_equal(uc_cg_read("a", UC_ATTR_MIN, &back), 0);
		assert_int_equal(back, pct);
		assert_int_equal(uc_pct_parse_kernel(uc_pct100_format(pct, s, sizeof(s)), &back),
				 0);
		assert_int_equal(uc_pct100_to_util(back), u);
		/* asking again for the same unit: nothing to write */
		uc_plan_init(&p);
		assert_int_equal(uc_cg_plan_values(&p, "a", &v, NULL), 0);
		assert_int_equal(p.n, 0);
		assert_int_equal(p.unchanged, 1);
		uc_plan_free(&p);
	}
	put("a/cpu.uclamp.min", "0.00\n");
}

/* ---- plans ------------------------------------------------------------------ */
static struct uc_value val(const char *s)
{
	struct uc_value v;

	assert_int_equal(uc_value_parse(s, &v), 0);
	return v;
}

static void test_plan_only_changes(void **state)
{
	struct uc_value mn, mx;
	struct uc_plan p;

	(void)state;
	use_tree(UC_CG_V2);
	put("a/cpu.uclamp.min", "20.50\n");
	put("a/cpu.uclamp.max", "max\n");

	/* the current values, as the user might write them: no change */
	const char *same_min[] = { "20.5%", "20.50%", "210" };
	const char *same_max[] = { "max", "100%", "1024", "default" };
	for (size_t i = 0; i < 3; i++)
		for (size_t j = 0; j < 4; j++) {
			mn = val(same_min[i]);
			mx = val(same_max[j]);
			uc_plan_init(&p);
			assert_int_equal(uc_cg_plan_values(&p, "a", &mn, &mx), 0);
			if (p.n)
				fail_msg("%s/%s planned %zu writes", same_min[i], same_max[j], p.n);
			assert_int_equal(p.unchanged, 2);
			uc_plan_free(&p);
		}

	/* a percentage is compared as given: 20.51% maps to unit 210 as well,
	 * but the user asked for that exact figure */
	mn = val("20.51%");
	uc_plan_init(&p);
	assert_int_equal(uc_cg_plan_values(&p, "a", &mn, NULL), 0);
	assert_int_equal(p.n, 1);
	assert_int_equal(p.rec[0].kind, UC_KIND_CGROUP);
	assert_int_equal(p.rec[0].attr, UC_ATTR_MIN);
	assert_string_equal(p.rec[0].target, "a");
	assert_int_equal(p.rec[0].from, 2050);
	assert_int_equal(p.rec[0].to, 2051);
	assert_true(p.rec[0].flips);
	uc_plan_free(&p);

	/* default: 0.00 for min */
	mn = val("default");
	uc_plan_init(&p);
	assert_int_equal(uc_cg_plan_values(&p, "a", &mn, NULL), 0);
	assert_int_equal(p.n, 1);
	assert_int_equal(p.rec[0].to, 0);
	uc_plan_free(&p);

	/* min raised above the current max: max written first */
	put("a/cpu.uclamp.max", "30.00\n");
	mn = val("50%");
	mx = val("60%");
	uc_plan_init(&p);
	assert_int_equal(uc_cg_plan_values(&p, "a", &mn, &mx), 0);
	assert_int_equal(p.n, 2);
	assert_int_equal(p.rec[0].attr, UC_ATTR_MAX);
	assert_int_equal(p.rec[1].attr, UC_ATTR_MIN);
	uc_plan_free(&p);

	/* the pct100 interface used by 'apply' */
	uc_plan_init(&p);
	assert_int_equal(uc_cg_plan(&p, "a", 2050, 3000), 0);
	assert_int_equal(p.n, 0);
	assert_int_equal(p.unchanged, 2);
	assert_int_equal(uc_cg_plan(&p, "a", UC_KEEP, UC_RESET), 0);
	assert_int_equal(p.n, 1);
	assert_int_equal(p.rec[0].to, UC_PCT_MAX);
	assert_int_equal(uc_cg_plan(&p, "a", 10001, UC_KEEP), -ERANGE);
	assert_int_equal(uc_cg_plan(&p, "a", -5, UC_KEEP), -ERANGE);
	assert_int_equal(p.n, 1);
	uc_plan_free(&p);

	/* no files */
	uc_plan_init(&p);
	assert_int_equal(uc_cg_plan(&p, "z", 0, UC_KEEP), -ENOENT);
	assert_int_equal(uc_cg_plan(&p, "", 0, UC_KEEP), -ENOENT);
	assert_int_equal(p.n, 0);
	uc_plan_free(&p);
	put("a/cpu.uclamp.min", "0.00\n");
	put("a/cpu.uclamp.max", "max\n");
}

static int subtree_log_n;
static char subtree_log[8][64];

static int log_subtree(const char *path, int enable)
{
	snprintf(subtree_log[subtree_log_n++ & 7], 64, "%c%s", enable ? '+' : '-', path);
	return 0;
}

static int fail_cg(const char *path, enum uc_attr attr, long v)
{
	return -EACCES;
}

static int no_task(pid_t tid, struct uc_sched_attr *a) { return -ENOSYS; }
static int no_sysctl(enum uc_attr a, long v) { return -ENOSYS; }

static void test_plan_enable_cpu(void **state)
{
	const struct uc_exec_ops ops = {
		.task_setattr = no_task, .sysctl_write = no_sysctl,
		.cgroup_write = fail_cg, .subtree_set = log_subtree,
	};
	struct uc_value mx = val("40%");
	struct uc_exec_report r;
	struct uc_plan p;

	(void)state;
	use_tree(UC_CG_V2);
	/* a/b/c: the root has cpu, a and a/b lack it */
	uc_plan_init(&p);
	assert_int_equal(uc_cg_plan_enable_cpu_below(&p, "a/b/c", NULL), 2);
	assert_int_equal(p.n, 2);
	assert_int_equal(p.rec[0].kind, UC_KIND_SUBTREE);
	assert_string_equal(p.rec[0].target, "a");	/* top-down */
	assert_string_equal(p.rec[1].target, "a/b");
	assert_false(p.rec[0].flips);
	/* the files will appear with the defaults: only the max is a change */
	assert_int_equal(uc_cg_plan_values(&p, "a/b/c", NULL, &mx), 0);
	assert_int_equal(p.n, 3);
	assert_int_equal(p.rec[2].kind, UC_KIND_CGROUP);
	assert_int_equal(p.rec[2].from, UC_PCT_MAX);
	assert_int_equal(p.rec[2].to, 4000);
	/* the clamp write fails: the subtree changes are undone, bottom-up */
	subtree_log_n = 0;
	assert_int_equal(uc_plan_execute(&p, UC_EXEC_ATOMIC, &ops, NULL, &r), -EACCES);
	assert_int_equal(subtree_log_n, 4);
	assert_string_equal(subtree_log[0], "+a");
	assert_string_equal(subtree_log[1], "+a/b");
	assert_string_equal(subtree_log[2], "-a/b");
	assert_string_equal(subtree_log[3], "-a");
	uc_plan_free(&p);

	/* the same default value after enabling: nothing but the subtree change */
	uc_plan_init(&p);
	assert_int_equal(uc_cg_plan_enable_cpu_below(&p, "a/b", NULL), 1);
	mx = val("max");
	assert_int_equal(uc_cg_plan_values(&p, "a/b", NULL, &mx), 0);
	assert_int_equal(p.n, 1);
	assert_int_equal(p.unchanged, 1);
	uc_plan_free(&p);

	/* nothing to enable for a child of the root (which has cpu), or the root */
	uc_plan_init(&p);
	assert_int_equal(uc_cg_plan_enable_cpu_below(&p, "z", NULL), 0);
	assert_int_equal(uc_cg_plan_enable_cpu_below(&p, "", NULL), 0);
	assert_int_equal(p.n, 0);
	/* without the enable, a/b/c has no files */
	assert_int_equal(uc_cg_plan_values(&p, "a/b/c", NULL, &mx), -ENOENT);
	assert_int_equal(uc_cg_plan_enable_cpu_below(&p, "../x", NULL), -EXDEV);
	uc_plan_free(&p);

	/* the real writer puts "+cpu" in the file */
	assert_int_equal(uc_cg_set_subtree_cpu("a", true), 0);
	assert_string_equal(slurp("a/cgroup.subtree_control"), "+cpu");
	put("a/cgroup.subtree_control", "\n");

	/* v1 has no subtree_control */
	use_tree(UC_CG_V1);
	uc_plan_init(&p);
	assert_int_equal(uc_cg_plan_enable_cpu_below(&p, "a/b", NULL), -EOPNOTSUPP);
	uc_plan_free(&p);
	use_tree(UC_CG_V2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_discover_v2),
		cmocka_unit_test(test_discover_v1_and_hybrid),
		cmocka_unit_test(test_discover_none),
		cmocka_unit_test(test_discover_errors),
		cmocka_unit_test(test_path_escapes),
		cmocka_unit_test(test_path_next),
		cmocka_unit_test(test_resolve_inside),
		cmocka_unit_test(test_resolve_traversal),
		cmocka_unit_test(test_resolve_missing),
		cmocka_unit_test(test_of_pid),
		cmocka_unit_test(test_read_write),
		cmocka_unit_test(test_states),
		cmocka_unit_test(test_children_and_parent),
		cmocka_unit_test(test_eff_examples),
		cmocka_unit_test(test_eff_random_trees),
		cmocka_unit_test(test_eff_walk),
		cmocka_unit_test(test_units_round_trip),
		cmocka_unit_test(test_plan_only_changes),
		cmocka_unit_test(test_plan_enable_cpu),
	};

	uc_dlib_use(UC_DLIB_CGROUP, fake_libcgroup);
	return fr_run(&suite, tests, setup_tree, teardown_tree);
}
