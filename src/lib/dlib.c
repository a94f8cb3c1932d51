/* The one loader of the libraries opened on demand (uclamp/dlib.h). */
#include <dlfcn.h>
#include <errno.h>
#include <stdbool.h>

#include "uclamp/dlib.h"

#ifndef UC_SONAME_SYSTEMD
#define UC_SONAME_SYSTEMD NULL	/* built --without-systemd */
#endif

static struct lib {
	const char *soname;
	const char *what;	/* what needs it, for the message */
	bool optional;		/* commands do without it: no handler */
	void *handle;
	void *(*sym)(const char *name);	/* uc_dlib_use() */
} libs[UC_DLIB_N] = {
	[UC_DLIB_SMARTCOLS] = { .soname = UC_SONAME_SMARTCOLS, .what = "tables" },
	[UC_DLIB_CGROUP] = { .soname = UC_SONAME_CGROUP, .what = "cgroups" },
	[UC_DLIB_NL] = { .soname = UC_SONAME_NL, .what = "watch" },
	[UC_DLIB_SYSTEMD] = { .soname = UC_SONAME_SYSTEMD, .what = "systemd's bus and journal",
			      .optional = true },
};

static uc_dlib_missing_fn *on_missing;

void uc_dlib_on_missing(uc_dlib_missing_fn *fn)
{
	on_missing = fn;
}

void uc_dlib_use(enum uc_dlib lib, void *(*sym)(const char *name))
{
	libs[lib].sym = sym;
}

/* dlerror()'s line, or what we know when it has none */
static const char *why(const char *fallback)
{
	const char *e = dlerror();

	return e ? e : fallback;
}

int uc_dlib_load(enum uc_dlib lib, const char *const *names, void **fns, size_t n)
{
	struct lib *l = &libs[lib];
	const char *err = NULL;

	/* filled in order, the last only when all were found */
	if (n && fns[n - 1])
		return 0;
	if (!l->sym && !l->soname)
		return -ENOPKG;
	if (!l->sym && !l->handle && !(l->handle = dlopen(l->soname, RTLD_NOW | RTLD_LOCAL)))
		err = why("cannot be opened");
	for (size_t i = 0; !err && i < n; i++) {
		fns[i] = l->sym ? l->sym(names[i]) : dlsym(l->handle, names[i]);
		if (!fns[i])
			err = l->sym ? names[i] : why(names[i]);
	}
	if (!err)
		return 0;
	if (!l->optional && on_missing)
		on_missing(l->soname, l->what, err);
	return -ENOPKG;
}
