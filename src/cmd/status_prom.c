/*
 * status --format=prometheus beyond the kernel's state (status.c prints
 * that): the configuration's drift and consent, the watch daemon's counters
 * when it answers, and --textfile, written as root in a directory others may
 * write through descriptors only (uclamp/afile.h). A run that cannot write
 * all of it leaves the old file: its age is what UclampMetricsMissing watches.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cmd/common.h"
#include "cmd/status_prom.h"
#include "cmd/watch_counters.h"
#include "uclamp/afile.h"
#include "uclamp/config.h"
#include "uclamp/sysroot.h"
#include "uclamp/watch.h"

/* As 'apply --check' would answer: 0 the host matches, 1 it differs, -1 the
 * configuration cannot be applied; the targets it would skip (not drift: not
 * there yet, or they cannot take the values); whether it consents to the fast
 * path. */
static void config_drift(const struct cli_status_prom *o, int *drift, size_t *skipped,
			 bool *allow)
{
	struct uc_config cfg;
	struct uc_plan plan;

	uc_config_init(&cfg);
	for (size_t i = 0; i < o->nconfigs; i++)
		uc_config_load_path(&cfg, o->configs[i]);
	if (!o->nconfigs)
		uc_config_load_default(&cfg);
	*allow = cfg.allow_enable.set && cfg.allow_enable.value;
	if (uc_config_validate(&cfg)) {
		*drift = -1;
	} else if (!cfg.nfiles) {
		*drift = 0;	/* no configuration: nothing to differ from */
	} else if (cfg.ntasks && cli_procns_check()) {
		*drift = -1;	/* [tasks] cannot be read against this /proc */
	} else {
		uc_plan_init(&plan);
		*drift = uc_config_plan(&cfg, &plan) || cfg.nerrors_total ? -1 : plan.n ? 1 : 0;
		*skipped = cfg.nskips_total;
		uc_plan_free(&plan);
	}
	uc_config_free(&cfg);
}

void cli_status_prom_more(const struct cli_status_prom *o)
{
	struct uc_watch_stats ws;
	char sock[PATH_MAX];
	size_t skipped = 0;
	bool allow;
	int drift;

	config_drift(o, &drift, &skipped, &allow);
	cli_prom_gauge("uclamp_config_drift", "Whether the host differs from uclampctl.conf: 0 no, "
		       "1 yes, -1 the configuration cannot be applied.", drift);
	cli_prom_gauge("uclamp_config_skipped", "Targets of uclampctl.conf that apply would skip "
		       "(not there yet, or they cannot take the values): not drift.",
		       (long long)skipped);
	cli_prom_gauge("uclamp_config_allow_enable", "Whether uclampctl.conf consents to enabling "
		       "the uclamp fast path ([fast-path] allow-enable).", allow);
	/* the daemon's counters only when it answers: not running is no error here
	 * (the default socket in /run, as the lock: a fake root's in the tests) */
	if (!o->socket && uc_path(sock, sizeof(sock), UC_WATCH_SOCKET))
		return;
	if (!uc_watch_status_query(o->socket ? o->socket : sock, &ws))
		cli_watch_print_prom(&ws);
}

/* FILE's directory and name, both non-empty ("." for a bare name) */
static int split(const char *file, char *dir, size_t n, const char **name)
{
	const char *slash = strrchr(file, '/');

	*name = slash ? slash + 1 : file;
	if (!**name || !strcmp(*name, ".") || !strcmp(*name, ".."))
		return -EISDIR;
	if (!slash)
		return snprintf(dir, n, ".") >= (int)n ? -ENAMETOOLONG : 0;
	if (slash == file)
		return snprintf(dir, n, "/") >= (int)n ? -ENAMETOOLONG : 0;
	return snprintf(dir, n, "%.*s", (int)(slash - file), file) >= (int)n ? -ENAMETOOLONG : 0;
}

/* print() with stdout on fd; 0 or the -errno of the first failed write */
static int print_to(int fd, void (*print)(void *data), void *data)
{
	int saved, rc = 0;

	fflush(stdout);
	saved = dup(STDOUT_FILENO);
	if (dup2(fd, STDOUT_FILENO) < 0) {
		rc = -errno;
		if (saved >= 0)
			close(saved);
		return rc;
	}
	print(data);
	if (fflush(stdout) || ferror(stdout))
		rc = errno ? -errno : -EIO;
	clearerr(stdout);
	if (saved >= 0) {
		dup2(saved, STDOUT_FILENO);
		close(saved);
	} else {
		close(STDOUT_FILENO);
	}
	return rc;
}

int cli_textfile(const char *file, void (*print)(void *data), void *data)
{
	char dir[PATH_MAX];
	const char *name;
	struct uc_afile a;
	int dfd, rc = split(file, dir, sizeof(dir), &name);

	if (rc) {
		cli_errx("--textfile '%s': %s: give the file to write, e.g. "
			 "/var/lib/prometheus/node-exporter/uclamp.prom", file, strerror(-rc));
		return CLI_EXIT_USAGE;
	}
	dfd = uc_dir_open(dir);
	if (dfd == -ELOOP || dfd == -ENOTDIR) {
		/* its last component is not followed: the directory itself, named */
		cli_errx("cannot open the directory of '%s': %s is a symbolic link: give the "
			 "directory it leads to", file, dir);
		return CLI_EXIT_FAIL;
	}
	if (dfd < 0) {
		cli_errx("cannot open the directory of '%s': %s", file, strerror(-dfd));
		return CLI_EXIT_FAIL;
	}
	rc = uc_afile_create(&a, dfd, name, 0644);
	if (!rc && (rc = print_to(a.fd, print, data)))
		uc_afile_abort(&a);
	if (rc) {
		close(dfd);
		cli_errx("cannot write '%s': %s; the file was left as it was", file, strerror(-rc));
		return CLI_EXIT_FAIL;
	}
	rc = uc_afile_commit(&a, name);
	if (rc && rc != -ESTALE)
		uc_afile_abort(&a);
	uc_afile_close(&a);
	close(dfd);
	if (rc == -ESTALE) {
		cli_errx("'%s' is not the file written: another user changed names in %s while "
			 "it was written; nothing was written through them, but what the "
			 "directory holds now is theirs", file, dir);
		return CLI_EXIT_FAIL;
	}
	if (rc) {
		cli_errx("cannot replace '%s': %s; the file was left as it was", file,
			 strerror(-rc));
		return CLI_EXIT_FAIL;
	}
	return CLI_EXIT_OK;
}
