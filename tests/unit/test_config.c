/*
 * test_config.c: the declarative configuration (src/lib/config*.c) and the
 * plans built from it (src/lib/config_plan.c).
 *
 * A table of broken files, each with the exact line of every error (the
 * inputs that crashed the old libinih-based reader among them); what
 * libinih got wrong on its own (indented keys, long section names, empty
 * sections, several syntax errors); lines of any length; merge order across
 * uclampctl.d under a fake root; trust (owner, mode, dangling links, FIFOs);
 * the [system] plan against given current values; the [tasks] rule keys
 * and the rules they become (the one-walk plan itself is in test_tasks.c,
 * which has a fake /proc).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "uclamp/config.h"
#include "uclamp/rules.h"
#include "uclamp/selectors.h"
#include "uclamp/sched.h"
#include "uclamp/sysctl.h"
#include "fakeroot.h"

static char root[PATH_MAX - 64];
static const struct fr_suite suite = { root, sizeof(root), "test-config", true, { NULL } };

static void load_text(struct uc_config *c, const char *text, const char *name)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");

	if (!*text)	/* fmemopen refuses size 0 */
		f = fopen("/dev/null", "r");
	assert_non_null(f);
	assert_int_equal(uc_config_load_stream(c, f, name), 0);
	fclose(f);
}

/* Load + validate one file; returns the error count. */
static size_t parse(struct uc_config *c, const char *text)
{
	uc_config_init(c);
	load_text(c, text, "t.conf");
	return uc_config_validate(c);
}

static void dump_errors(const struct uc_config *c)
{
	for (size_t i = 0; i < c->nerrors; i++)
		print_message("  %s:%d: %s\n", c->errors[i].file ? c->errors[i].file : "-",
			      c->errors[i].line, c->errors[i].msg);
}

/* ---- broken files: every error with its exact line ----------------------- */

struct bad_case {
	const char *text;
	int lines[4];		/* the lines with errors, in order, 0-terminated */
	const char *msg;	/* a part of the first message */
	size_t len;		/* 0: strlen(text) */
};

#define LONG_VALUE \
	"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx" \
	"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"

static const struct bad_case bad_cases[] = {
	{ "[foo]\nmin = 1\n", { 1 }, "unknown section [foo]", 0 },
	{ "[system]\nmn = 5\n", { 2 },
	  "unknown key 'mn' in [system]; use min, max or rt-default", 0 },
	{ "# c\n[system]\n\nmin = 2000\n", { 4 },
	  "invalid value '2000' for min in [system]: out of range", 0 },
	{ "[system]\nmin = lots\n", { 2 }, "not a clamp value", 0 },
	{ "[system]\nmax = 40% # half\n", { 2 }, "starts with ' ;'", 0 },
	{ "[system]\nmin = 1\n[cgroup a]\nmax = 5\n[system]\nmax = 2\n", { 5 },
	  "duplicate section [system] (first at line 1)", 0 },
	{ "[cgroup a/b]\nmax=1\n[cgroup a//b/]\nmin=1\n", { 3 },
	  "duplicate section [cgroup a/b]", 0 },
	{ "[system]\nmin = 1\nmin = 2\n", { 3 },
	  "duplicate key 'min' in [system] (first at line 2)", 0 },
	{ "[system\nmin = 1\n", { 1 }, "section header without ']'", 0 },
	{ "[system] junk\nmin = 1\n", { 1 }, "unexpected text 'junk'", 0 },
	{ "[system x]\nmin = 1\n", { 1 }, "[system] takes no name", 0 },
	{ "[cgroup]\nmin = 1\n", { 1 }, "[cgroup] needs a path", 0 },
	{ "[tasks]\nmin = 1\n", { 1 }, "[tasks] needs a name", 0 },
	{ "[system]\nmin 5\n", { 2 }, "expected 'key = value'", 0 },
	{ "min = 5\n[system]\n", { 1 }, "outside any section", 0 },
	{ "[system]\n= 5\n", { 2 }, "key name is missing", 0 },
	{ "[cgroup a/../../etc]\nmax = 1\n", { 1 }, "'..' is not allowed", 0 },
	{ "[cgroup ..]\nmax = 1\n", { 1 }, "'..' is not allowed", 0 },
	{ "[cgroup /]\nmax = 1\n", { 1 }, "root cgroup", 0 },
	{ "[cgroup a]\nrt-default = 1\n", { 2 },
	  "unknown key 'rt-default' in [cgroup a]; use min or max", 0 },
	{ "[fast-path]\nallow-enable = maybe\n", { 2 }, "use yes or no", 0 },
	{ "[tasks t]\ncomm = a\nthreads = 2\nmax = 1\n", { 3 },
	  "threads in [tasks t]: '2' is neither yes nor no", 0 },
	{ "[tasks t]\ncomm = averyveryverylongname\nmax = 1\n", { 2 },
	  "longer than 15 characters", 0 },
	{ "[tasks t]\npolicy = other turbo\nmax = 1\n", { 2 }, "unknown policy 'turbo'", 0 },
	{ "[tasks t]\ncomm = ,\nmax = 1\n", { 2 }, "is empty", 0 },
	{ "\n[tasks t]\nmax = 5\n", { 2 }, "[tasks t] has no selector", 0 },
	{ "[tasks t]\ncomm = a\nthreads = yes\n", { 1 }, "[tasks t] sets nothing", 0 },
	{ "[tasks t]\ncomm = a\nmin = 600\nmax = 500\n", { 4 },
	  "[tasks t] max 500 is below min 600 (set at t.conf:3)", 0 },
	{ "[cgroup a]\n", { 1 }, "[cgroup a] sets nothing", 0 },
	{ "[system]\nmin = 800\nmax = 50%\n", { 3 }, "[system] max 512 is below min 800", 0 },
	{ "[system]\nmin = default\nmax = 100\n", { 3 }, "below min 1024", 0 },
	{ "[system]\nmin = " LONG_VALUE LONG_VALUE "\n", { 2 }, "longer than 197 characters", 0 },
	{ "[system]\nmin = 1\x00\n", { 2 }, "NUL byte", 18 },
	/* inputs that crashed the libinih-based reader, and their neighbours */
	{ "\xef\xbb\xbf\xef\xbb\xbf[system]\nmin = 1\n", { 1, 2 },
	  "byte order mark (BOM) is allowed only at the start", 0 },
	{ "\xef\xbb\xbf\xef\xbb\xbf[s1]\nmin = 1\n", { 1, 2 }, "byte order mark", 0 },
	{ "[system]\n\xef\xbb\xbfmax = 1\n", { 2 }, "byte order mark", 0 },
	{ " \xef\xbb\xbf[system]\nmin = 1\n", { 1, 2 }, "byte order mark", 0 },
	{ "[s1]\nmin = 1\n", { 1 }, "unknown section [s1]", 0 },
	{ "[s0]\nmin = 1\n[!]\nmax = 2\n[]\nmax = 3\n", { 1, 3, 5 }, "unknown section [s0]", 0 },
	{ "[system]\n\x00\x00\nmin = 1\n[cgroup a\x00]\nmax = 1\n", { 2, 4 }, "NUL byte", 40 },
	{ "\x00", { 1 }, "NUL byte", 1 },
	{ "[system]\nmin = 1\n[cgroup a", { 3 }, "section header without ']'", 0 },
	{ "[system]\nmax = 40%;x\n", { 2 }, "invalid value '40%;x'", 0 },
	{ "[system]\nmin ;= 5\n", { 2 }, "expected 'key = value'", 0 },
	{ "[system]\nmin = ; only a comment\n", { 2 }, "invalid value ''", 0 },
	{ "[system]\r\nmin = 1\r\n\r\nmx = 2\r\n", { 4 }, "unknown key 'mx'", 0 },
	/* several in one file, syntax errors included: each on its own line */
	{ "[system]\nbogus = 1\nmin = 1\nno equals here\n[nope]\nx = 1\n[system]\n", { 2, 4, 5, 7 },
	  "unknown key 'bogus'", 0 },
};

static void test_bad_files(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
		const struct bad_case *bc = &bad_cases[i];
		struct uc_config c;
		size_t want = 0;
		FILE *f = fmemopen((void *)bc->text, bc->len ? bc->len : strlen(bc->text), "r");

		uc_config_init(&c);
		assert_non_null(f);
		assert_int_equal(uc_config_load_stream(&c, f, "t.conf"), 0);
		fclose(f);
		uc_config_validate(&c);
		while (want < 4 && bc->lines[want])
			want++;
		if (c.nerrors != want || !strstr(c.errors[0].msg, bc->msg)) {
			dump_errors(&c);
			fail_msg("case %zu: %zu errors, expected %zu with '%s'", i, c.nerrors, want,
				 bc->msg);
		}
		for (size_t k = 0; k < want; k++) {
			if (c.errors[k].line != bc->lines[k] ||
			    strcmp(c.errors[k].file, "t.conf") || c.errors[k].err != -EINVAL) {
				dump_errors(&c);
				fail_msg("case %zu: error %zu at line %d, expected %d", i, k,
					 c.errors[k].line, bc->lines[k]);
			}
		}
		uc_config_free(&c);
	}
}

/* ---- what libinih alone would get wrong ----------------------------------- */

static void test_good_file(void **state)
{
	struct uc_config c;
	const char *text =
		"\xef\xbb\xbf# the admin's consent\n"
		"[fast-path]\n"
		"allow-enable = yes\n"
		"\n"
		"[system]\n"
		"  min = 60%        ; indented: a key, not a continuation\n"
		"\tmax = 80%\n"
		"rt-default = 0\n"
		"\n"
		"[cgroup user.slice/user-1000.slice/user@1000.service/app.slice/long-name.scope]\n"
		"max = 40%\n"
		"[cgroup /system.slice//backup.service/]\n"
		"min: 512\n"
		"[tasks build-jobs]\n"
		"comm = cc1 cc1plus,ld\n"
		"user = root 0\n"
		"policy = other batch\n"
		"max = 300\n"
		"threads = yes\n"
		"reset-on-fork = off\n";

	(void)state;
	if (parse(&c, text)) {
		dump_errors(&c);
		fail_msg("a good file has errors");
	}
	assert_true(c.allow_enable.set && c.allow_enable.value);
	assert_int_equal(c.allow_enable.loc.line, 3);
	assert_true(c.sys[UC_SYS_MIN].set);
	assert_int_equal(c.sys[UC_SYS_MIN].v.util, 614);	/* 60% of 1024, rounded like the kernel */
	assert_int_equal(c.sys[UC_SYS_MIN].loc.line, 6);
	assert_int_equal(c.sys[UC_SYS_MAX].v.util, 819);
	assert_int_equal(c.sys[UC_SYS_MAX].loc.line, 7);
	assert_int_equal(c.sys[UC_SYS_RT_DEFAULT].v.util, 0);

	/* > 49 bytes: libinih would have cut it */
	assert_int_equal(c.ncgroups, 2);
	assert_string_equal(c.cgroups[0].path,
			    "user.slice/user-1000.slice/user@1000.service/"
			    "app.slice/long-name.scope");
	assert_int_equal(c.cgroups[0].loc.line, 10);
	assert_int_equal(c.cgroups[0].max.v.pct100, 4000);
	assert_false(c.cgroups[0].min.set);
	assert_string_equal(c.cgroups[1].path, "/system.slice/backup.service");
	assert_int_equal(c.cgroups[1].min.v.util, 512);

	assert_int_equal(c.ntasks, 1);
	assert_string_equal(c.tasks[0].name, "build-jobs");
	assert_int_equal(c.tasks[0].rule.comm.n, 3);
	assert_string_equal(c.tasks[0].rule.comm.v[0], "cc1");
	assert_string_equal(c.tasks[0].rule.comm.v[1], "cc1plus");
	assert_string_equal(c.tasks[0].rule.comm.v[2], "ld");
	assert_int_equal(c.tasks[0].rule.nuids, 2);
	assert_int_equal(c.tasks[0].rule.uids[0], 0);
	assert_int_equal(c.tasks[0].rule.uids[1], 0);
	assert_int_equal(c.tasks[0].rule.npolicies, 2);
	assert_int_equal(c.tasks[0].rule.policies[0], 0);	/* SCHED_OTHER */
	assert_int_equal(c.tasks[0].rule.policies[1], 3);	/* SCHED_BATCH */
	assert_int_equal(c.tasks[0].max.v.util, 300);
	assert_true(c.tasks[0].rule.threads);
	assert_true(c.tasks[0].reset_on_fork.set && !c.tasks[0].reset_on_fork.value);
	uc_config_free(&c);
}

/* An empty section is still seen (libinih reports only keys). */
static void test_empty_section_seen(void **state)
{
	struct uc_config c;

	(void)state;
	assert_int_equal(parse(&c, "[system]\nmin = 5\n\n[tasks idle]\n# nothing yet\n"), 2);
	assert_int_equal(c.ntasks, 1);
	assert_int_equal(c.errors[0].line, 4);
	assert_non_null(strstr(c.errors[0].msg, "no selector"));
	assert_non_null(strstr(c.errors[1].msg, "sets nothing"));
	uc_config_free(&c);
	assert_int_equal(parse(&c, ""), 0);
	assert_int_equal(c.nfiles, 1);
	uc_config_free(&c);
}

/* Lines of any length: a long one is one error, and the next line keeps its number. */
static void test_long_lines(void **state)
{
	size_t big = 100 * 1024;
	char *text = malloc(big + 64), *p = text;
	struct uc_config c;

	(void)state;
	assert_non_null(text);
	p += sprintf(p, "[system]\n#");
	memset(p, 'x', big);
	p += big;
	p += sprintf(p, "\nmin = 5\n[system\n");
	assert_int_equal(parse(&c, text), 2);
	assert_int_equal(c.errors[0].line, 2);
	assert_non_null(strstr(c.errors[0].msg, "longer than 8192 bytes"));
	assert_int_equal(c.errors[1].line, 4);
	assert_true(c.sys[UC_SYS_MIN].set);
	assert_int_equal(c.sys[UC_SYS_MIN].loc.line, 3);
	uc_config_free(&c);

	/* exactly the limit is a line; one more byte is not */
	p = text;
	p += sprintf(p, "[system]\n#");
	memset(p, 'x', UC_CONF_LINE_MAX - 1);
	p += UC_CONF_LINE_MAX - 1;
	strcpy(p, "\nmin = 5");	/* and no newline at the end */
	assert_int_equal(parse(&c, text), 0);
	assert_int_equal(c.sys[UC_SYS_MIN].v.util, 5);
	assert_int_equal(c.sys[UC_SYS_MIN].loc.line, 3);
	uc_config_free(&c);
	p[0] = 'x';
	assert_int_equal(parse(&c, text), 1);
	assert_int_equal(c.errors[0].line, 2);
	assert_non_null(strstr(c.errors[0].msg, "longer than"));
	uc_config_free(&c);
	free(text);
}

/* ---- files and merge order under a fake root -------------------------------- */

static void put(const char *rel, const char *text)
{
	assert_int_equal(fr_write(root, rel, text), 0);
}

static void mkdirs(const char *rel)
{
	assert_int_equal(fr_mkdir(root, rel), 0);
}

static const char *base(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

static void test_merge_order(void **state)
{
	struct uc_config c;

	(void)state;
	mkdirs(UC_CONFIG_DIR);
	mkdirs(UC_CONFIG_DIR "/zz-dir.conf");	/* a directory: skipped */
	put(UC_CONFIG_FILE, "[system]\nmin = 100\nmax = 900\n"
	    "[cgroup a/b]\nmin = 10%\nmax = 90%\n"
	    "[tasks t]\ncomm = x y\nmax = 500\n");
	/* name order, not creation order */
	put(UC_CONFIG_DIR "/50-late.conf", "[system]\nmin = 300\n[tasks t]\ncomm = z\n");
	put(UC_CONFIG_DIR "/10-early.conf",
	    "[system]\nmin = 200\nrt-default = 0\n[cgroup a//b/]\nmax = 80%\n");
	put(UC_CONFIG_DIR "/20-new.conf", "[tasks u]\nuser = root\nmin = 5\n");
	put(UC_CONFIG_DIR "/30-skip.conf.bak", "[nonsense\n");
	put(UC_CONFIG_DIR "/.hidden.conf", "[nonsense\n");

	uc_config_init(&c);
	assert_int_equal(uc_config_load_default(&c), 4);
	if (uc_config_validate(&c)) {
		dump_errors(&c);
		fail_msg("merged files have errors");
	}
	assert_int_equal(c.nfiles, 4);
	assert_string_equal(base(c.files[0]), "uclampctl.conf");
	assert_string_equal(base(c.files[1]), "10-early.conf");
	assert_string_equal(base(c.files[2]), "20-new.conf");
	assert_string_equal(base(c.files[3]), "50-late.conf");

	/* later file wins per key; untouched keys stay */
	assert_int_equal(c.sys[UC_SYS_MIN].v.util, 300);
	assert_string_equal(base(c.sys[UC_SYS_MIN].loc.file), "50-late.conf");
	assert_int_equal(c.sys[UC_SYS_MIN].loc.line, 2);
	assert_int_equal(c.sys[UC_SYS_MAX].v.util, 900);
	assert_string_equal(base(c.sys[UC_SYS_MAX].loc.file), "uclampctl.conf");
	assert_int_equal(c.sys[UC_SYS_RT_DEFAULT].v.util, 0);

	/* "a//b/" and "a/b" are one section */
	assert_int_equal(c.ncgroups, 1);
	assert_int_equal(c.cgroups[0].min.v.pct100, 1000);
	assert_int_equal(c.cgroups[0].max.v.pct100, 8000);
	assert_string_equal(base(c.cgroups[0].max.loc.file), "10-early.conf");

	/* [tasks t]: the comm list replaced as a whole, max kept; u added */
	assert_int_equal(c.ntasks, 2);
	assert_string_equal(c.tasks[0].name, "t");
	assert_int_equal(c.tasks[0].rule.comm.n, 1);
	assert_string_equal(c.tasks[0].rule.comm.v[0], "z");
	assert_int_equal(c.tasks[0].max.v.util, 500);
	assert_string_equal(c.tasks[1].name, "u");
	uc_config_free(&c);

	/* an error in a drop-in: reported with its file, sorted after the main file's */
	put(UC_CONFIG_DIR "/40-bad.conf", "\n\n[system]\nmax = 2000\n");
	put(UC_CONFIG_FILE, "[system]\nbogus = 1\n");
	put(UC_CONFIG_DIR "/50-late.conf", "[system]\nmin = 300\n");
	uc_config_init(&c);
	assert_int_equal(uc_config_load_default(&c), 5);
	assert_int_equal(uc_config_validate(&c), 2);
	assert_string_equal(base(c.errors[0].file), "uclampctl.conf");
	assert_int_equal(c.errors[0].line, 2);
	assert_string_equal(base(c.errors[1].file), "40-bad.conf");
	assert_int_equal(c.errors[1].line, 4);
	uc_config_free(&c);
}

static void test_explicit_paths(void **state)
{
	struct uc_config c;
	char dir[PATH_MAX], missing[PATH_MAX];

	(void)state;
	mkdirs("/extra");
	put("/extra/b.conf", "[system]\nmax = 700\n");
	put("/extra/a.conf", "[system]\nmax = 600\nmin = 1\n");
	snprintf(dir, sizeof(dir), "%s/extra", root);
	snprintf(missing, sizeof(missing), "%s/extra/none.conf", root);

	uc_config_init(&c);
	assert_int_equal(uc_config_load_path(&c, dir), 0);
	assert_int_equal(uc_config_validate(&c), 0);
	assert_int_equal(c.sys[UC_SYS_MAX].v.util, 700);	/* b.conf after a.conf */
	/* "DIR/": a directory that may be missing */
	snprintf(missing, sizeof(missing), "%s/extra/no-such-dir/", root);
	assert_int_equal(uc_config_load_path(&c, missing), 0);
	assert_int_equal(c.nerrors, 0);
	snprintf(dir, sizeof(dir), "%s/extra/", root);
	assert_int_equal(uc_config_load_path(&c, dir), 0);
	/* no "//" */
	assert_string_equal(c.files[c.nfiles - 1] + strlen(root), "/extra/b.conf");
	snprintf(missing, sizeof(missing), "%s/extra/none.conf", root);
	assert_int_equal(uc_config_load_path(&c, missing), -ENOENT);
	assert_int_equal(c.nerrors, 1);
	assert_ptr_equal(c.errors[0].file, c.files[c.nfiles - 1]);
	assert_int_equal(c.errors[0].line, 0);
	assert_int_equal(c.errors[0].err, -ENOENT);
	assert_non_null(strstr(c.errors[0].msg, "cannot read"));
	uc_config_free(&c);
}

/* ---- trust: only root's (or, not as root, our own) files, writable by no one else ---- */

/* Loading rel returns want_rc with one error, about file_rel (NULL: rel itself). */
static void expect_refused(const char *rel, const char *file_rel, int want_rc, const char *msg)
{
	struct uc_config c;
	char path[PATH_MAX], file[PATH_MAX];

	snprintf(path, sizeof(path), "%s%s", root, rel);
	snprintf(file, sizeof(file), "%s%s", root, file_rel ? file_rel : rel);
	uc_config_init(&c);
	assert_int_equal(uc_config_load_path(&c, path), want_rc);
	if (c.nerrors != 1 || c.errors[0].line != 0 || !strstr(c.errors[0].msg, msg)) {
		dump_errors(&c);
		fail_msg("%s: expected one error with '%s'", rel, msg);
	}
	assert_string_equal(c.errors[0].file, file);
	assert_false(c.sys[UC_SYS_MAX].set);	/* nothing was read */
	uc_config_free(&c);
}

static void chmod_rel(const char *rel, mode_t mode)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s%s", root, rel);
	assert_int_equal(chmod(path, mode), 0);
}

static void test_trust(void **state)
{
	struct uc_config c;
	char path[PATH_MAX], link[PATH_MAX], msg[128];

	(void)state;
	mkdirs("/trust/d");
	put("/trust/f.conf", "[system]\nmax = 600\n");
	put("/trust/d/a.conf", "[system]\nmax = 700\n");

	snprintf(msg, sizeof(msg), "not trusted (owner %u, mode 0666): "
		 "make it root-owned and not group/world-writable", (unsigned)geteuid());
	chmod_rel("/trust/f.conf", 0666);
	expect_refused("/trust/f.conf", NULL, -EPERM, msg);
	chmod_rel("/trust/f.conf", 0620);
	expect_refused("/trust/f.conf", NULL, -EPERM, "mode 0620)");
	chmod_rel("/trust/f.conf", 0644);

	/* a drop-in directory that others can write: none of its files is read */
	chmod_rel("/trust/d", 0777);
	expect_refused("/trust/d", NULL, -EPERM, "mode 0777)");
	chmod_rel("/trust/d", 01777);
	expect_refused("/trust/d/", NULL, -EPERM, "mode 01777)");
	chmod_rel("/trust/d", 0775);
	expect_refused("/trust/d", NULL, -EPERM, "mode 0775)");
	chmod_rel("/trust/d", 0755);
	chmod_rel("/trust/d/a.conf", 0646);
	expect_refused("/trust/d", "/trust/d/a.conf", 0, "mode 0646)");
	chmod_rel("/trust/d/a.conf", 0644);

	if (geteuid() == 0) {	/* another user's file: only root can make one */
		snprintf(path, sizeof(path), "%s/trust/f.conf", root);
		assert_int_equal(chown(path, 4321, (gid_t)-1), 0);
		expect_refused("/trust/f.conf", NULL, -EPERM,
			       "not trusted (owner 4321, mode 0644)");
		assert_int_equal(chown(path, 0, (gid_t)-1), 0);
	} else {		/* an unreadable drop-in (root reads everything) */
		chmod_rel("/trust/d/a.conf", 0);
		expect_refused("/trust/d", "/trust/d/a.conf", 0, "cannot read: Permission denied");
		chmod_rel("/trust/d/a.conf", 0644);
	}

	/* a dangling symbolic link is an error, also in a drop-in directory */
	snprintf(link, sizeof(link), "%s/trust/d/b.conf", root);
	assert_int_equal(symlink("no-such-target.conf", link), 0);
	expect_refused("/trust/d/b.conf", NULL, -ENOENT,
		       "a dangling symbolic link (its target "
		       "'no-such-target.conf' does not exist)");
	uc_config_init(&c);
	snprintf(path, sizeof(path), "%s/trust/d", root);
	assert_int_equal(uc_config_load_path(&c, path), 0);
	assert_int_equal(c.nerrors, 1);
	assert_string_equal(c.errors[0].file, link);
	assert_non_null(strstr(c.errors[0].msg, "dangling"));
	assert_int_equal(c.sys[UC_SYS_MAX].v.util, 700);	/* a.conf read: the error stops the run */
	uc_config_free(&c);
	assert_int_equal(unlink(link), 0);

	/* a FIFO is refused without opening it (opening it would block) */
	assert_int_equal(mkfifo(link, 0644), 0);
	alarm(20);
	expect_refused("/trust/d/b.conf", NULL, -EINVAL,
		       "a FIFO, not a regular file: refused without reading it");
	uc_config_init(&c);
	assert_int_equal(uc_config_load_path(&c, path), 0);
	assert_int_equal(c.nerrors, 1);
	assert_non_null(strstr(c.errors[0].msg, "a FIFO"));
	uc_config_free(&c);
	alarm(0);
	assert_int_equal(unlink(link), 0);
	expect_refused("/trust/d/b.conf", NULL, -ENOENT, "cannot read: No such file or directory");

	/* the default file as a dangling link is an error, not "no file" */
	assert_true(snprintf(path, sizeof(path), "%s" UC_CONFIG_FILE, root) < (int)sizeof(path));
	assert_true(snprintf(link, sizeof(link), "%s" UC_CONFIG_FILE ".saved", root) <
		    (int)sizeof(link));
	assert_int_equal(rename(path, link), 0);
	assert_int_equal(symlink("gone.conf", path), 0);
	uc_config_init(&c);
	assert_true(uc_config_load_default(&c) >= 1);
	assert_true(c.nerrors >= 1);
	assert_string_equal(c.errors[0].file, path);
	assert_non_null(strstr(c.errors[0].msg, "dangling"));
	uc_config_free(&c);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(rename(link, path), 0);
}

/* ---- the [system] plan against a given current state -------------------------- */

static struct uc_plan plan_system(struct uc_config *c, const char *text, long min, long max,
				  long rt, int want_rc)
{
	struct uc_sysctl_values cur = { min, max, rt };
	struct uc_plan p;

	if (parse(c, text)) {
		dump_errors(c);
		fail_msg("bad config");
	}
	uc_plan_init(&p);
	assert_int_equal(uc_config_plan_system(c, &cur, &p), want_rc);
	return p;
}

static void expect_change(const struct uc_plan *p, size_t i, enum uc_attr attr, long from, long to)
{
	assert_true(i < p->n);
	assert_int_equal(p->rec[i].kind, UC_KIND_SYSCTL);
	assert_int_equal(p->rec[i].attr, attr);
	assert_int_equal(p->rec[i].from, from);
	assert_int_equal(p->rec[i].to, to);
	assert_true(p->rec[i].flips);
}

static void test_plan_system(void **state)
{
	const char *cfg = "[system]\nmin = 60%\nmax = 80%\nrt-default = 0\n";
	struct uc_config c;
	struct uc_plan p;

	(void)state;
	/* from the boot defaults: min first (it fits under the current max) */
	p = plan_system(&c, cfg, 1024, 1024, 1024, 0);
	assert_int_equal(p.n, 3);
	expect_change(&p, 0, UC_ATTR_MIN, 1024, 614);
	expect_change(&p, 1, UC_ATTR_MAX, 1024, 819);
	expect_change(&p, 2, UC_ATTR_RT_DEFAULT, 1024, 0);
	uc_plan_free(&p);
	uc_config_free(&c);

	/* already there: nothing to write, so the key cannot flip */
	p = plan_system(&c, cfg, 614, 819, 0, 0);
	assert_int_equal(p.n, 0);
	assert_int_equal(p.unchanged, 3);
	uc_plan_free(&p);
	uc_config_free(&c);

	/* raising min above the current max: max goes first */
	p = plan_system(&c, cfg, 100, 200, 0, 0);
	assert_int_equal(p.n, 2);
	expect_change(&p, 0, UC_ATTR_MAX, 200, 819);
	expect_change(&p, 1, UC_ATTR_MIN, 100, 614);
	uc_plan_free(&p);
	uc_config_free(&c);

	/* "default" is the kernel default, 1024; unset keys are left alone */
	p = plan_system(&c, "[system]\nmax = default\n", 300, 500, 1024, 0);
	assert_int_equal(p.n, 1);
	expect_change(&p, 0, UC_ATTR_MAX, 500, 1024);
	uc_plan_free(&p);
	uc_config_free(&c);

	/* only min, above the host's max: refused with the key's file:line */
	p = plan_system(&c, "\n[system]\nmin = 900\n", 100, 500, 1024, -EINVAL);
	assert_int_equal(p.n, 0);
	assert_int_equal(c.nerrors, 1);
	assert_int_equal(c.errors[0].line, 3);
	assert_int_equal(c.errors[0].err, -EINVAL);
	assert_non_null(strstr(c.errors[0].msg, "min 900 above max 500"));
	uc_plan_free(&p);
	uc_config_free(&c);

	/* rt-default on a kernel without it (before 5.9) */
	p = plan_system(&c, "[system]\nmin = 5\nrt-default = 0\n", 1024, 1024, UC_SYSCTL_ABSENT,
			-EOPNOTSUPP);
	assert_int_equal(p.n, 0);
	assert_int_equal(c.errors[0].line, 3);
	assert_int_equal(c.errors[0].err, -EOPNOTSUPP);
	uc_plan_free(&p);
	uc_config_free(&c);

	/* no [system]: nothing */
	p = plan_system(&c, "[fast-path]\nallow-enable = no\n", 1, 2, 3, 0);
	assert_int_equal(p.n, 0);
	assert_int_equal(p.unchanged, 0);
	uc_plan_free(&p);
	uc_config_free(&c);
}

/* ---- [tasks] rule keys: selectors, scope, priority, exclude ------------------ */

static void test_tasks_rule_keys(void **state)
{
	static const struct {
		const char *text;
		int line;
		const char *msg;
	} bad[] = {
		{ "[tasks a]\nparent = averyveryverylongname\nmax = 1\n", 2,
		  "parent in [tasks a]: 'averyveryverylongname' is longer than 15" },
		{ "[tasks a]\ncgroup = system.slice/../x\nmax = 1\n", 2, "has a '..' component" },
		{ "[tasks a]\ncomm = x\npriority = high\nmax = 1\n", 3,
		  "invalid value 'high' for priority" },
		{ "[tasks a]\ncomm = x\npriority = 2000000\nmax = 1\n", 3,
		  "use a whole number from -1000000" },
		{ "[tasks a]\ncomm = x\nexclude = yes\nmax = 5\n", 3,
		  "has exclude = yes and values to set" },
		{ "[tasks a]\ncomm = x\nexclude = no\n", 1, "sets nothing" },
		{ "[tasks a]\ncomm = x\nrt = maybe\nmax = 1\n", 3, "rt in [tasks a]: 'maybe' is neither yes nor no" },
		{ "[tasks a]\nexe =\nmax = 1\n", 2, "exe in [tasks a]: the value is empty" },
		{ "[tasks a]\nrt = yes\nmax = 1\n", 1, "has no selector: add comm, user, group" },
		{ "[tasks a]\nexe = /x\nexe = /y\nmax = 1\n", 3, "duplicate key 'exe'" },
	};
	struct uc_config c;
	struct uc_rule *r;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (parse(&c, bad[i].text) != 1 || c.errors[0].line != bad[i].line ||
		    !strstr(c.errors[0].msg, bad[i].msg)) {
			dump_errors(&c);
			fail_msg("case %zu: want one error at line %d with '%s'", i, bad[i].line,
				 bad[i].msg);
		}
		uc_config_free(&c);
	}

	/* a good one, and the rule it becomes */
	if (parse(&c, "[tasks ui]\ncomm = Render* chrome\ngroup = 0\ncgroup = user.slice/*.scope\n"
		      "exe = /usr/lib/chromium/*\nargv0 = chromium\ncmdline = *--type=renderer *\n"
		      "parent = systemd\nmin = 300\nthreads = yes\nrt = yes\nkernel-threads = no\n"
		      "priority = -5\n[tasks not-me]\nuser = 0\nexclude = yes\n")) {
		dump_errors(&c);
		fail_msg("a good [tasks] section has errors");
	}
	assert_int_equal(c.tasks[0].rule.cmdline.n, 1);
	/* one glob, spaces kept */
	assert_string_equal(c.tasks[0].rule.cmdline.v[0], "*--type=renderer *");
	r = uc_config_task_rules(&c);
	assert_non_null(r);
	assert_string_equal(r[0].name, "ui");
	assert_ptr_equal(r[0].origin, &c.tasks[0]);
	assert_int_equal(r[0].comm.n, 2);
	assert_string_equal(r[0].comm.v[0], "Render*");
	assert_int_equal(r[0].ngids, 1);
	assert_int_equal(r[0].gids[0], 0);
	assert_int_equal(r[0].cgroup.n, 1);
	assert_int_equal(r[0].exe.n, 1);
	assert_string_equal(r[0].argv0.v[0], "chromium");
	assert_string_equal(r[0].parent.v[0], "systemd");
	assert_int_equal(r[0].nuids, 0);
	assert_int_equal(r[0].npolicies, 0);
	assert_true(r[0].threads && r[0].rt && !r[0].kthreads && !r[0].exclude);
	assert_int_equal(r[0].priority, -5);
	assert_int_equal(r[0].min, 300);
	assert_int_equal(r[0].max, UC_KEEP);
	assert_int_equal(r[0].reset_on_fork, UC_KEEP);
	assert_true(r[1].exclude);
	assert_int_equal(r[1].nuids, 1);
	assert_int_equal(r[1].min, UC_KEEP);
	free(r);
	uc_config_free(&c);
}

/*
 * A user or group this host does not know is skipped, not an error (a fleet's
 * file names users only some hosts have): the others of the list stay, and a
 * section left with none of a list it gave matches no task (off), never every
 * task; a later file's list replaces the earlier one and its skips.
 */
static void test_unknown_ids_skipped(void **state)
{
	struct uc_proc p = { .pid = 42, .tid = 42, .have = UC_PF_STATUS | UC_PF_STAT | UC_PF_POLICY,
			     .uid = 0, .policy = 0, .state = 'S' };
	struct uc_rules_result res;
	struct uc_rules rs;
	struct uc_rule *r;
	struct uc_config c;

	(void)state;
	assert_int_equal(parse(&c, "[tasks a]\nuser = root, no-such-user-uclampctl\nmax = 1\n"
				  "[tasks b]\ngroup = no-such-group-here\nmax = 2\n"), 0);
	assert_int_equal(c.nskips, 2);
	assert_int_equal(c.skips[0].loc.line, 2);
	assert_string_equal(c.skips[0].section, "tasks a");
	assert_string_equal(c.skips[0].target, "user no-such-user-uclampctl");
	assert_non_null(strstr(c.skips[0].why, "applies to the others"));
	assert_int_equal(c.skips[1].loc.line, 5);
	assert_string_equal(c.skips[1].target, "group no-such-group-here");
	assert_non_null(strstr(c.skips[1].why, "matches no task"));
	r = uc_config_task_rules(&c);
	assert_non_null(r);
	assert_int_equal(r[0].nuids, 1);
	assert_int_equal(r[0].uids[0], 0);
	assert_false(r[0].off);
	/* b's list is empty, which alone would select every task: it is off */
	assert_int_equal(r[1].ngids, 0);
	assert_true(r[1].off);
	assert_int_equal(uc_rules_init(&rs, r, 2), 0);
	assert_int_equal(rs.norder, 1);
	assert_int_equal(uc_rules_match(&rs, &p, &res), 0);
	assert_int_equal(res.winner[UC_RA_MAX], 0);	/* a's, never b's */
	assert_int_equal(res.matched, 1);
	uc_rules_free(&rs);
	free(r);
	/* a plan starts from these skips and adds its own */
	assert_int_equal(c.nskips_load, 2);
	uc_config_skips_reset(&c);
	assert_int_equal(c.nskips, 2);
	uc_config_free(&c);

	/* a later file replaces the list, and its skip with it */
	uc_config_init(&c);
	load_text(&c, "[tasks a]\nuser = no-such-user-uclampctl\nmax = 1\n", "1.conf");
	load_text(&c, "[tasks a]\nuser = 0\n", "2.conf");
	assert_int_equal(uc_config_validate(&c), 0);
	assert_int_equal(c.nskips, 0);
	assert_false(c.tasks[0].off);
	uc_config_free(&c);
	uc_config_init(&c);
	load_text(&c, "[tasks a]\nuser = 0\nmax = 1\n", "1.conf");
	load_text(&c, "[tasks a]\nuser = no-such-user-uclampctl\n", "2.conf");
	assert_int_equal(uc_config_validate(&c), 0);
	assert_int_equal(c.nskips, 1);
	assert_string_equal(c.skips[0].loc.file, "2.conf");
	assert_true(c.tasks[0].off);
	assert_int_equal(c.tasks[0].rule.nuids, 0);
	uc_config_free(&c);

	/* the command line's setter still refuses an unknown user */
	{
		struct uc_rule cl;
		char err[128];

		uc_sel_rule_init(&cl);
		assert_int_equal(uc_sel_set(&cl, uc_sel_find("user"), "no-such-user-uclampctl",
					    true, err, sizeof(err)), -EINVAL);
		assert_non_null(strstr(err, "unknown user"));
		uc_sel_free(&cl);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bad_files),
		cmocka_unit_test(test_good_file),
		cmocka_unit_test(test_empty_section_seen),
		cmocka_unit_test(test_long_lines),
		cmocka_unit_test(test_merge_order),
		cmocka_unit_test(test_explicit_paths),
		cmocka_unit_test(test_trust),
		cmocka_unit_test(test_plan_system),
		cmocka_unit_test(test_tasks_rule_keys),
		cmocka_unit_test(test_unknown_ids_skipped),
	};

	umask(022);	/* the files it writes must be trusted: not group-writable */
	return fr_run(&suite, tests, NULL, NULL);
}
