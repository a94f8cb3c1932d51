/*
 * libFuzzer: a systemd unit name where a cgroup is expected
 * (uc_cg_resolve_name) and the unit-name check alone (uc_sd_unit_name_ok).
 * Input: a flags byte, then the name, '\n', systemd's ControlGroup answer:
 *   bits 0-2  the bus's result (0 and 7: the answer; else an -errno)
 *   bits 3-4  the size of the caller's buffer (PATH_MAX, 64, 16, 1)
 *   bit 5     systemd is not PID 1
 * The bus is scripted through uc_sd_use(); the cgroup2 tree is laid out once.
 * Invariants: the name check agrees with systemd's rules (written out here);
 * a name that is a group, or not a unit name, never reaches the bus; the
 * bus's error comes back as is; an answer with a ".." component or leading
 * out of the mount is -EXDEV; a success is a NUL-terminated relative path
 * naming one of the tree's directories.
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"
#include "uclamp/cgroup.h"
#include "uclamp/systemd.h"

/* the groups of the fake tree, relative to the mount */
static const char *const groups[] = {
	"",
	"init.scope",
	"system.slice",
	"system.slice/u.service",
	"system.slice/nginx.service",
	"system.slice/foo\\x2dbar.service",
	"system.slice/system-getty.slice",
	"system.slice/system-getty.slice/getty@tty1.service",
	"user.slice",
	"user.slice/user-1000.slice",
	"user.slice/user-1000.slice/user@1000.service",
	"user.slice/user-1000.slice/session-2.scope",
};

static struct uc_cg_info info;
static char mreal[PATH_MAX];

static struct {
	int rc; /* the bus's result, 0: answer */
	const char *name, *answer;
	int calls;
} bus;

static int s_unit_cgroup(const char *unit, char *cg, size_t n)
{
	size_t len = strlen(bus.answer);

	bus.calls++;
	if (strcmp(unit, bus.name))
		abort();
	if (bus.rc)
		return bus.rc;
	/* as real_unit_cgroup: "" is a unit without a cgroup */
	if (!len)
		return -ENOMEDIUM;
	if (len >= n)
		return -ENAMETOOLONG;
	memcpy(cg, bus.answer, len + 1);
	return 0;
}

static int s_cpu_weight(const char *unit, long *weight)
{
	(void)unit, (void)weight;
	abort(); /* resolving never asks for these */
}

static int s_set_cpu_weight(const char *unit, long weight)
{
	(void)unit, (void)weight;
	abort();
}

static const struct uc_sd_ops scripted = {
	.unit_cgroup = s_unit_cgroup,
	.cpu_weight = s_cpu_weight,
	.set_cpu_weight = s_set_cpu_weight,
};

static void link_at(const char *target, const char *rel)
{
	char p[PATH_MAX];

	snprintf(p, sizeof(p), "%s/%s", info.mount, rel);
	if (symlink(target, p))
		abort();
}

/* the groups, a file, a directory beside the mount and links in and out */
static void tree(void)
{
	static const uint8_t nl[] = "\n";
	char p[PATH_MAX], out[PATH_MAX];

	if (info.version)
		return;
	for (size_t i = 0; i < sizeof(groups) / sizeof(groups[0]); i++) {
		snprintf(p, sizeof(p), "/sys/fs/cgroup/%s%scgroup.procs", groups[i],
			 *groups[i] ? "/" : "");
		fuzz_put(p, nl, 1);
	}
	fuzz_put("/sys/fs/cgroup/system.slice/file.service", nl, 1);
	fuzz_put("/sys/fs/outside/x.service/cgroup.procs", nl, 1);
	fuzz_put("/run/systemd/system/.keep", nl, 1);
	info.version = UC_CG_V2;
	snprintf(info.mount, sizeof(info.mount), "%s/sys/fs/cgroup", fuzz_root());
	snprintf(out, sizeof(out), "%s/sys/fs/outside", fuzz_root());
	link_at("u.service", "system.slice/in.service");
	link_at(out, "system.slice/out.service");
	link_at("../..", "system.slice/up.service");
	link_at("loop.service", "system.slice/loop.service");
	if (!realpath(info.mount, mreal))
		abort();
	uc_cg_use(&info);
	uc_sd_use(&scripted);
}

/* systemd PID 1 or not: /run/systemd/system there or moved aside */
static void booted(bool on)
{
	static bool now = true;
	char a[PATH_MAX], b[PATH_MAX];

	if (on == now)
		return;
	snprintf(a, sizeof(a), "%s/run/systemd/system", fuzz_root());
	snprintf(b, sizeof(b), "%s/run/systemd/off", fuzz_root());
	if (on ? rename(b, a) : rename(a, b))
		abort();
	now = on;
}

static bool alnum(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/*
 * systemd's unit_name_is_valid(PLAIN | INSTANCE) for the types with a
 * cgroup, and what uclampctl refuses on top (a leading '.', a second '@',
 * an instance starting with '.').
 */
static bool unit_rule(const char *n)
{
	static const char *const types[] = {
		"service", "scope", "slice", "socket", "mount", "swap"
	};
	const char *e = strrchr(n, '.'), *at = strchr(n, '@');
	size_t len = strlen(n);
	bool typed = false;

	if (!len || len >= 256 || !e || e == n)
		return false;
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		typed |= !strcmp(e + 1, types[i]);
	if (!typed)
		return false;
	for (const char *c = n; c < e; c++)
		if (!alnum(*c) && !strchr(":-_.\\@", *c))
			return false;
	if (at == n || (at && e <= at + 1))
		return false; /* "@x.service"; a template has no cgroup */
	return n[0] != '.' && !(at && (strchr(at + 1, '@') || at[1] == '.'));
}

/* Does mount/answer exist outside the mount (a symlink out)? */
static bool leads_out(const char *answer)
{
	char p[PATH_MAX * 2], r[PATH_MAX];
	size_t ml = strlen(mreal);

	snprintf(p, sizeof(p), "%s/%s", info.mount, answer);
	if (strlen(p) >= PATH_MAX || !realpath(p, r))
		return false;
	return strncmp(r, mreal, ml) || (r[ml] && r[ml] != '/');
}

static void check_rel(const char *rel, size_t n)
{
	if (!memchr(rel, '\0', n) || rel[0] == '/' || fuzz_dotdot(rel))
		abort();
	for (size_t i = 0; i < sizeof(groups) / sizeof(groups[0]); i++)
		if (!strcmp(rel, groups[i]))
			return;
	abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const int rcs[] = { 0, -ENOENT, -ENOMEDIUM, -EACCES, -EIO, -EHOSTDOWN, -ENOPKG, 0 };
	static const size_t sizes[] = { PATH_MAX, 64, 16, 1 };
	const uint8_t *nl;
	char *name, *answer, *rel, err[512];
	bool ok, up;
	size_t n;
	int path_rc, rc;

	if (size < 1)
		return 0;
	fuzz_root();
	tree();
	nl = memchr(data + 1, '\n', size - 1);
	name = fuzz_str(data + 1, nl ? (size_t)(nl - data - 1) : size - 1);
	answer = nl ? fuzz_str(nl + 1, size - (size_t)(nl + 1 - data)) : fuzz_str(data, 0);
	memset(&bus, 0, sizeof(bus));
	bus.rc = rcs[data[0] & 7];
	bus.name = name;
	bus.answer = answer;
	n = sizes[(data[0] >> 3) & 3];
	up = !(data[0] & 0x20);
	booted(up);

	ok = uc_sd_unit_name_ok(name);
	if (ok != unit_rule(name))
		abort();
	/* the glob rule: a name without glob tokens is judged as a name */
	if (!strpbrk(name, "*?[]") && uc_sd_unit_glob_ok(name, err, sizeof(err)) != ok)
		abort();
	rel = malloc(n);
	if (!rel)
		abort();
	path_rc = uc_cg_resolve(&info, name, rel, n);
	rc = uc_cg_resolve_name(&info, name, rel, n);
	if (path_rc != -ENOENT || !ok) {
		/* a group, or not a unit name: the path's answer, no bus */
		if (bus.calls || rc != path_rc)
			abort();
	} else if (!up) {
		if (bus.calls || rc != -EHOSTDOWN)
			abort();
	} else {
		if (bus.calls != 1)
			abort();
		if (bus.rc && rc != bus.rc)
			abort();
		if (!bus.rc && !*answer && rc != -ENOMEDIUM)
			abort();
		if (!bus.rc && *answer && (fuzz_dotdot(answer) || leads_out(answer)) &&
		    rc != -EXDEV)
			abort();
	}
	if (rc == 0)
		check_rel(rel, n);
	free(rel);
	free(answer);
	free(name);
	return 0;
}
