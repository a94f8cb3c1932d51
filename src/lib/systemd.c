/*
 * systemd's cgroups: unit names, who owns a subtree_control, the bus calls.
 * A subtree_control is systemd's (its single-writer rule: it may undo a
 * foreign write at the next daemon-reload) when systemd is PID 1 and the
 * group is the root or every component of its path is a unit, none
 * delegated (xattr trusted.delegate or user.delegate = 1). The bus goes to
 * systemd's private socket when root (it answers before dbus.service runs,
 * at boot), else to the system bus.
 */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef HAVE_LIBSYSTEMD
#include <systemd/sd-bus.h>
#endif

#include "uclamp/cgroup.h"
#include "uclamp/dlib.h"
#include "uclamp/sysroot.h"
#include "uclamp/systemd.h"

/* The unit types that have a cgroup, and their D-Bus interface. */
static const struct {
	const char *suffix, *iface;
} types[] = {
	{ ".service", "org.freedesktop.systemd1.Service" },
	{ ".scope", "org.freedesktop.systemd1.Scope" },
	{ ".slice", "org.freedesktop.systemd1.Slice" },
	{ ".socket", "org.freedesktop.systemd1.Socket" },
	{ ".mount", "org.freedesktop.systemd1.Mount" },
	{ ".swap", "org.freedesktop.systemd1.Swap" },
};

static const char *iface_of(const char *unit)
{
	size_t len = strlen(unit);

	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		size_t sl = strlen(types[i].suffix);

		if (len > sl && !strcmp(unit + len - sl, types[i].suffix))
			return types[i].iface;
	}
	return NULL;
}

/* The name (glob: each *, ? or [...] one character) against systemd's rule. */
static bool name_ok(const char *name, bool glob)
{
	char plain[UC_SD_UNIT_MAX + 1];
	size_t len = 0;
	int at = 0;

	for (const char *s = name, *e; *s && len < sizeof(plain) - 1; s++) {
		if (glob && *s == '[' && (e = strchr(s + 1 + (s[1] == ']'), ']')))
			s = e;
		plain[len++] = glob && strchr("*?]", *s) ? 'x' : *s;
	}
	plain[len] = '\0';
	/* systemd's unit_name_is_valid() refuses an empty prefix ("@x.service") */
	if (!len || len >= UC_SD_UNIT_MAX || plain[0] == '.' || plain[0] == '@' ||
	    !iface_of(plain))
		return false;
	for (const char *s = plain; *s; s++) {
		if (*s == '@' && ++at > 1)
			return false;
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
			    ":_.\\-@", *s))
			return false;
	}
	/* "a@.service" is a template: it never has a cgroup */
	return !strstr(plain, "@.");
}

bool uc_sd_unit_name_ok(const char *name)
{
	return name_ok(name, false);
}

bool uc_sd_unit_glob_ok(const char *glob, char *err, size_t n)
{
	if (name_ok(glob, true))
		return true;
	snprintf(err, n, "'%s' is not a systemd unit name with a cgroup: give a .service, .scope, "
		 ".slice, .socket, .mount or .swap name (no '/'; a glob may stand for part of it)",
		 glob);
	return false;
}

bool uc_sd_booted(void)
{
	return uc_exists("/run/systemd/system");
}

int uc_sd_owns_subtree(const char *rel, bool *owned)
{
	char prefix[PATH_MAX] = "";
	const char *s = rel;
	size_t len = 0;
	int rc;

	*owned = false;
	if (!uc_sd_booted())
		return 0;
	/* every component a unit, none delegated; the root is systemd's */
	while ((rc = uc_cg_path_next(&s, prefix, sizeof(prefix), &len)) == 1) {
		const char *base = strrchr(prefix, '/');
		bool delegated;

		if (!uc_sd_unit_name_ok(base ? base + 1 : prefix))
			return 0;
		if ((rc = uc_cg_delegated(prefix, &delegated)))
			return rc;
		if (delegated)
			return 0;
	}
	if (rc < 0)
		return rc;
	*owned = true;
	return 0;
}

int uc_cg_resolve_name(const struct uc_cg_info *info, const char *name, char *rel, size_t n)
{
	char cg[PATH_MAX];
	const char *s = cg;
	int rc = uc_cg_resolve(info, name, rel, n);

	if (rc != -ENOENT || !uc_sd_unit_name_ok(name))
		return rc;
	if ((rc = uc_sd_unit_cgroup(name, cg, sizeof(cg))))
		return rc;
	/* systemd's answer is hostile input like any path: same checks */
	while (*s == '/')
		s++;
	if (uc_cg_path_escapes(s))
		return -EXDEV;
	return uc_cg_resolve(info, *s ? s : ".", rel, n);
}

/* ---- the bus ---------------------------------------------------------------- */

#ifdef HAVE_LIBSYSTEMD
/* the bus calls (dlib.h); sd_bus_close_unref, not the flush_ one: a flush
 * waits for a bus that does not answer */
#define SD_FNS(X) \
	X(sd_bus_new) X(sd_bus_set_address) X(sd_bus_start) X(sd_bus_open_system) \
	X(sd_bus_close_unref) X(sd_bus_call_method) X(sd_bus_message_read) \
	X(sd_bus_message_unref) X(sd_bus_get_property_string) \
	X(sd_bus_get_property_trivial) X(sd_bus_error_free) X(sd_bus_error_has_name) \
	X(sd_bus_error_get_errno) X(sd_bus_is_ready) X(sd_bus_process) X(sd_bus_wait) \
	X(sd_bus_set_method_call_timeout)
UC_DLIB_FNS(sdu, SD_FNS);
#define sd sdu.f

static bool have_sd(void)
{
	static int state = -1;

	if (state < 0)
		state = !UC_DLIB_LOAD(UC_DLIB_SYSTEMD, sdu);
	return state;
}

static const char sd_dest[] = "org.freedesktop.systemd1";
static const char sd_path[] = "/org/freedesktop/systemd1";
static const char sd_manager[] = "org.freedesktop.systemd1.Manager";

/*
 * A bus that does not answer must not hang us: sd-bus waits 90 s for the
 * authentication (BUS_AUTH_TIMEOUT, whatever the call timeout) and 25 s per
 * call. So the connection is driven here until it is ready, and each call
 * gets UC_SD_BUS_TIMEOUT_MS too: -ETIMEDOUT after that.
 */
static int bus_ready(sd_bus *bus)
{
	uint64_t now, deadline;
	int rc;

	deadline = uc_clock_ns(CLOCK_MONOTONIC) / 1000 + UC_SD_BUS_TIMEOUT_MS * 1000ull;
	for (;;) {
		if ((rc = sd.sd_bus_is_ready(bus)) < 0)
			return rc;
		if (rc > 0)
			return sd.sd_bus_set_method_call_timeout(bus,
								  UC_SD_BUS_TIMEOUT_MS * 1000ull);
		if ((rc = sd.sd_bus_process(bus, NULL)) < 0)
			return rc;
		if (rc > 0)
			continue;
		now = uc_clock_ns(CLOCK_MONOTONIC) / 1000;
		if (now >= deadline)
			return -ETIMEDOUT;
		if ((rc = sd.sd_bus_wait(bus, deadline - now)) < 0)
			return rc;
	}
}

static int bus_open(sd_bus **bus)
{
	int rc = 0;

	*bus = NULL;
	if (!have_sd())
		return -ENOPKG;
	if (!uc_sd_booted())
		return -EHOSTDOWN;
	if (geteuid() == 0 && sd.sd_bus_new(bus) >= 0) {
		if (sd.sd_bus_set_address(*bus, "unix:path=/run/systemd/private") >= 0 &&
		    sd.sd_bus_start(*bus) >= 0 && (rc = bus_ready(*bus)) >= 0)
			return 0;
		sd.sd_bus_close_unref(*bus);
		*bus = NULL;
		if (rc == -ETIMEDOUT)
			return rc;	/* systemd is there and does not answer */
	}
	rc = sd.sd_bus_open_system(bus);
	if (rc >= 0 && (rc = bus_ready(*bus)) < 0) {
		sd.sd_bus_close_unref(*bus);
		*bus = NULL;
		return rc == -ETIMEDOUT ? rc : -EHOSTDOWN;
	}
	return rc < 0 ? -EHOSTDOWN : 0;
}

/* A bus error as one of uclamp/systemd.h's -errno. */
static int bus_err(const sd_bus_error *e, int rc)
{
	int err = sd.sd_bus_error_get_errno(e);

	if (sd.sd_bus_error_has_name(e, "org.freedesktop.systemd1.NoSuchUnit"))
		return -ENOENT;
	if (err == EACCES || err == EPERM ||
	    sd.sd_bus_error_has_name(e, "org.freedesktop.DBus.Error."
				     "InteractiveAuthorizationRequired"))
		return -EACCES;
	if (rc == -ENOENT || rc == -ECONNREFUSED)
		return -EHOSTDOWN;
	return rc == -ETIMEDOUT ? rc : -EIO;
}

/* systemd's answer s into buf: 'empty' when there is none. */
static int answer(const char *s, int empty, char *buf, size_t n)
{
	if (!s || !*s)
		return empty;
	return (size_t)snprintf(buf, n, "%s", s) >= n ? -ENAMETOOLONG : 0;
}

/* The unit's object path into path: method GetUnit (a loaded unit) or LoadUnit. */
static int unit_path(sd_bus *bus, const char *method, const char *unit, char *path, size_t n)
{
	sd_bus_error e = SD_BUS_ERROR_NULL;
	sd_bus_message *m = NULL;
	const char *p = NULL;
	int rc = sd.sd_bus_call_method(bus, sd_dest, sd_path, sd_manager, method, &e, &m, "s",
				       unit);

	if (rc < 0)
		rc = bus_err(&e, rc);
	else if (sd.sd_bus_message_read(m, "o", &p) < 0)
		rc = -EIO;
	else
		rc = answer(p, -EIO, path, n);
	sd.sd_bus_error_free(&e);
	sd.sd_bus_message_unref(m);
	return rc;
}

/* A property of the object at path: type 's' (a string, *out to free) or 't'. */
static int get_prop(sd_bus *bus, const char *path, const char *iface, const char *name,
		    char type, sd_bus_error *e, void *out)
{
	if (type == 's')
		return sd.sd_bus_get_property_string(bus, sd_dest, path, iface, name, e, out);
	return sd.sd_bus_get_property_trivial(bus, sd_dest, path, iface, name, e, type, out);
}

/* Read one property of the unit (a loaded one). */
static int unit_property(const char *unit, const char *name, char type, void *out)
{
	sd_bus_error e = SD_BUS_ERROR_NULL;
	char path[512];
	sd_bus *bus;
	int rc = bus_open(&bus);

	if (rc)
		return rc;
	rc = unit_path(bus, "GetUnit", unit, path, sizeof(path));
	if (!rc && (rc = get_prop(bus, path, iface_of(unit), name, type, &e, out)) < 0)
		rc = bus_err(&e, rc);
	sd.sd_bus_error_free(&e);
	sd.sd_bus_close_unref(bus);
	return rc < 0 ? rc : 0;
}

static int real_unit_cgroup(const char *unit, char *cg, size_t n)
{
	char *s = NULL;
	int rc = unit_property(unit, "ControlGroup", 's', &s);

	if (!rc)
		rc = answer(s, -ENOMEDIUM, cg, n);
	free(s);
	return rc;
}

static int real_cpu_weight(const char *unit, long *weight)
{
	uint64_t w = UINT64_MAX;
	int rc = unit_property(unit, "CPUWeight", 't', &w);

	/* UINT64_MAX: systemd's CGROUP_WEIGHT_INVALID, not set */
	*weight = w > 10000 ? UC_SD_WEIGHT_UNSET : (long)w;
	return rc;
}

/* LoadUnit: a unit that is not running may not be loaded, and GetUnit
 * knows only loaded units. Its LoadState says whether it has a unit file. */
static int real_unit_slice(const char *unit, char *slice, size_t n)
{
	sd_bus_error e = SD_BUS_ERROR_NULL;
	char path[512], *state = NULL, *s = NULL;
	sd_bus *bus;
	int rc = bus_open(&bus);

	if (rc)
		return rc;
	rc = unit_path(bus, "LoadUnit", unit, path, sizeof(path));
	if (rc == -ENAMETOOLONG)
		rc = -EIO;
	if (!rc && get_prop(bus, path, "org.freedesktop.systemd1.Unit", "LoadState", 's', &e,
			    &state) < 0)
		rc = bus_err(&e, -EIO);
	if (!rc && (!state || strcmp(state, "loaded")))
		rc = -ENOENT;
	if (!rc && get_prop(bus, path, iface_of(unit), "Slice", 's', &e, &s) < 0)
		rc = bus_err(&e, -EIO);
	if (!rc)
		rc = answer(s, -ENOENT, slice, n);
	free(state);
	free(s);
	sd.sd_bus_error_free(&e);
	sd.sd_bus_close_unref(bus);
	return rc;
}

static int real_set_cpu_weight(const char *unit, long weight)
{
	sd_bus_error e = SD_BUS_ERROR_NULL;
	sd_bus *bus;
	int rc = bus_open(&bus);

	if (rc)
		return rc;
	rc = sd.sd_bus_call_method(bus, sd_dest, sd_path, sd_manager, "SetUnitProperties", &e,
				   NULL, "sba(sv)", unit, 1, 1, "CPUWeight", "t", (uint64_t)weight);
	rc = rc < 0 ? bus_err(&e, rc) : 0;
	sd.sd_bus_error_free(&e);
	sd.sd_bus_close_unref(bus);
	return rc;
}

static const struct uc_sd_ops real_ops = {
	.unit_cgroup = real_unit_cgroup,
	.cpu_weight = real_cpu_weight,
	.set_cpu_weight = real_set_cpu_weight,
	.unit_slice = real_unit_slice,
};
#else
static const struct uc_sd_ops real_ops;	/* no calls: each -ENOPKG */
#endif

static const struct uc_sd_ops *ops;

void uc_sd_use(const struct uc_sd_ops *o)
{
	ops = o;
}

static const struct uc_sd_ops *get_ops(void)
{
	const struct uc_sd_ops *t;

	if (ops)
		return ops;
	t = uc_test_sd_ops();
	return t ? t : &real_ops;
}

/* May the bus be asked about unit (have: the call is there)? 0 or -errno. */
static int askable(const char *unit, bool have)
{
	if (!uc_sd_unit_name_ok(unit))
		return -EINVAL;
	if (!uc_sd_booted())
		return -EHOSTDOWN;
	return have ? 0 : -ENOPKG;
}

int uc_sd_unit_cgroup(const char *unit, char *cg, size_t n)
{
	int rc = askable(unit, get_ops()->unit_cgroup != NULL);

	return rc ? rc : get_ops()->unit_cgroup(unit, cg, n);
}

int uc_sd_cpu_weight(const char *unit, long *weight)
{
	int rc = askable(unit, get_ops()->cpu_weight != NULL);

	*weight = UC_SD_WEIGHT_UNSET;
	return rc ? rc : get_ops()->cpu_weight(unit, weight);
}

int uc_sd_set_cpu_weight(const char *unit, long weight)
{
	int rc = askable(unit, get_ops()->set_cpu_weight != NULL);

	if (!rc && (weight < 1 || weight > 10000))
		return -ERANGE;
	return rc ? rc : get_ops()->set_cpu_weight(unit, weight);
}

/* A slice's group from its name: each '-' opens a level ("a-b.slice" is
 * "a.slice/a-b.slice"), "-.slice" is the root. */
static int slice_rel(const char *slice, char *rel, size_t n)
{
	size_t len = strlen(slice), off = 0, sl = strlen(".slice");

	if (len <= sl || strcmp(slice + len - sl, ".slice"))
		return -EINVAL;
	if (!strcmp(slice, "-.slice")) {
		if (n)
			rel[0] = '\0';
		return 0;
	}
	for (size_t i = 0; i <= len - sl; i++) {
		if (i < len - sl && slice[i] != '-')
			continue;
		/* the prefix up to here is a slice of its own */
		if ((size_t)snprintf(rel + off, n - off, "%s%.*s.slice", off ? "/" : "", (int)i,
				     slice) >= n - off)
			return -ENAMETOOLONG;
		off = strlen(rel);
	}
	return 0;
}

int uc_sd_unit_future_cgroup(const char *unit, char *rel, size_t n)
{
	char slice[UC_SD_UNIT_MAX], srel[PATH_MAX];
	size_t ul = strlen(unit);
	int rc;

	if (ul > 6 && !strcmp(unit + ul - 6, ".slice") && uc_sd_unit_name_ok(unit))
		return slice_rel(unit, rel, n);
	rc = askable(unit, get_ops()->unit_slice != NULL);
	if (!rc)
		rc = get_ops()->unit_slice(unit, slice, sizeof(slice));
	if (!rc)
		rc = uc_sd_unit_name_ok(slice) ? slice_rel(slice, srel, sizeof(srel)) : -EIO;
	if (rc)
		return rc;
	return (size_t)snprintf(rel, n, "%s%s%s", srel, *srel ? "/" : "", unit) >= n ?
	       -ENAMETOOLONG : 0;
}
