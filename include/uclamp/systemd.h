/*
 * systemd as the owner of cgroups: unit names where a cgroup is expected, and
 * asking systemd to enable cpu where the subtree_control is its own (systemd.c
 * says which). libsystemd is opened when needed: without it, -ENOPKG.
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

/* Is rel's cgroup.subtree_control systemd's to write (PID 1, every component a
 * unit, none delegated)? 0 or -errno. */
int uc_sd_owns_subtree(const char *rel, bool *owned);

/* The bus calls, behind a seam: 0, -ENOPKG (no libsystemd), -EHOSTDOWN (no
 * systemd), -ENOENT (no such unit), -ENOMEDIUM (not running), -EACCES,
 * -ETIMEDOUT (UC_SD_BUS_TIMEOUT_MS), -EINVAL (not a unit name), -EIO. */
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
/* Where a unit's cgroup will be once it starts (its slice's group and its
 * name; a slice's from its name, no bus). Bus errors as above. */
int uc_sd_unit_future_cgroup(const char *unit, char *rel, size_t n);
int uc_sd_cpu_weight(const char *unit, long *weight);
int uc_sd_set_cpu_weight(const char *unit, long weight);

/* Use these calls instead of the bus (unit tests script them); NULL goes
 * back to the default. A test seam: only tests/unit and tests/fuzz call it. */
void uc_sd_use(const struct uc_sd_ops *ops);

/* The CLI tests' stand-in systemd (tests/fake_systemd.c, $UCLAMPCTL_TEST_SYSTEMD);
 * NULL elsewhere (systemd_seam.c). */
#define UC_TEST_SYSTEMD_ENV "UCLAMPCTL_TEST_SYSTEMD"
const struct uc_sd_ops *uc_test_sd_ops(void);

#endif
