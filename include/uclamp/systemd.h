/*
 * systemd as the owner of cgroups: unit names where a cgroup is expected,
 * and asking systemd (over sd-bus) to enable the cpu controller where the
 * cgroup.subtree_control to change is systemd's (its single-writer rule:
 * systemd may undo a foreign write at the next daemon-reload or unit start).
 *
 * Which subtree_control is systemd's: systemd runs as PID 1 (sd_booted():
 * /run/systemd/system exists) and the cgroup is the root or every component
 * of its path is a unit name (system.slice/nginx.service, user.slice/
 * user-1000.slice/session-2.scope), none of them delegated (Delegate=yes:
 * the xattr trusted.delegate or user.delegate = 1; a delegated unit's
 * subtree belongs to its payload).
 *
 * libsystemd is opened when first needed (uclamp/dlib.h): without it, or in
 * a build without HAVE_LIBSYSTEMD, the bus calls return -ENOPKG.
 * Nothing here prints.
 */
#ifndef UCLAMP_SYSTEMD_H
#define UCLAMP_SYSTEMD_H

#include <stdbool.h>
#include <stddef.h>

#define UC_SD_UNIT_MAX 256	/* systemd's UNIT_NAME_MAX, the NUL included */
#define UC_SD_WEIGHT_UNSET (-1L)	/* CPUWeight= not set: the kernel's 100 applies */
#define UC_SD_WEIGHT_DEFAULT 100L
/* the longest we wait for the bus to be ready, and then for each call: a bus
 * that does not answer must not stall a command or the daemon (its watchdog:
 * 30 s) */
#define UC_SD_BUS_TIMEOUT_MS 5000

struct uc_cg_info;

/* A name systemd accepts for a unit of a type that has a cgroup (.service,
 * .scope, .slice, .socket, .mount, .swap): [A-Za-z0-9:_.\\-] plus at most one
 * '@' (not first), no '/', at most 255 bytes. Lexical only. */
bool uc_sd_unit_name_ok(const char *name);
/* The same rule for a glob (--unit, unit =), each of its tokens (*, ?, [...])
 * counting as one name character: "nginx@*.service" is one, "*.timer" not.
 * False with one line in err naming the word and the unit types. */
bool uc_sd_unit_glob_ok(const char *glob, char *err, size_t n);

/* uc_cg_resolve, and where no such group exists but name is a unit name,
 * the unit's cgroup as systemd names it (ControlGroup, over the bus),
 * checked the same way. Also the bus's errors (below). */
int uc_cg_resolve_name(const struct uc_cg_info *info, const char *name, char *rel, size_t n);

/* Is systemd PID 1 (through the sysroot, like sd_booted())? */
bool uc_sd_booted(void);

/* Is the cgroup.subtree_control of rel (a path relative to the cpu
 * hierarchy, "" for the root) systemd's to write? See above. 0 or -errno
 * (reading a delegation mark failed). */
int uc_sd_owns_subtree(const char *rel, bool *owned);

/*
 * The bus calls, behind a seam. Each returns 0 or -errno:
 * -ENOPKG     no libsystemd (not built in, or libsystemd.so.0 missing);
 * -EHOSTDOWN  systemd is not PID 1, or its bus cannot be reached;
 * -ENOENT     no such unit loaded;
 * -ENOMEDIUM  the unit has no cgroup (not running);
 * -EACCES     systemd refused (not root, no polkit rule);
 * -ETIMEDOUT  the bus did not answer within UC_SD_BUS_TIMEOUT_MS (connecting, or a call);
 * -EINVAL     not a unit name (uc_sd_unit_name_ok);
 * -EIO        another bus error.
 */
struct uc_sd_ops {
	/* The unit's ControlGroup property, e.g. "/system.slice/nginx.service". */
	int (*unit_cgroup)(const char *unit, char *cg, size_t n);
	/* The unit's CPUWeight property; UC_SD_WEIGHT_UNSET when not set. */
	int (*cpu_weight)(const char *unit, long *weight);
	/* SetUnitProperties(unit, runtime = true, CPUWeight = weight). */
	int (*set_cpu_weight)(const char *unit, long weight);
	/* The unit's Slice property ("system.slice"), loading the unit first
	 * (LoadUnit: a unit not running may not be loaded); -ENOENT when it
	 * has no unit file (LoadState other than "loaded"). */
	int (*unit_slice)(const char *unit, char *slice, size_t n);
};

int uc_sd_unit_cgroup(const char *unit, char *cg, size_t n);
/*
 * Where the cgroup of a unit that is not running will be once it starts,
 * relative to the hierarchy: its slice's group and its own name
 * ("system.slice/nginx.service"); a slice's own group from its name
 * ("a-b.slice" is "a.slice/a-b.slice", "-.slice" the root), no bus needed.
 * (systemd escapes a few names, e.g. "cpu.service" becomes "_cpu.service";
 * those are not found.) Bus errors as above.
 */
int uc_sd_unit_future_cgroup(const char *unit, char *rel, size_t n);
int uc_sd_cpu_weight(const char *unit, long *weight);
int uc_sd_set_cpu_weight(const char *unit, long weight);

/* Use these calls instead of the bus (unit tests script them); NULL goes
 * back to the default. A test seam: only tests/unit and tests/fuzz call it. */
void uc_sd_use(const struct uc_sd_ops *ops);

/* systemd_seam.c: the CLI tests' stand-in systemd in the test build
 * ($UCLAMPCTL_TEST_SYSTEMD), NULL in the installed binary. */
#define UC_TEST_SYSTEMD_ENV "UCLAMPCTL_TEST_SYSTEMD"
const struct uc_sd_ops *uc_test_sd_ops(void);

#endif
