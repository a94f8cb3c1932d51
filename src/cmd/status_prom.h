/* status --format=prometheus's other parts and --textfile (src/cmd/status_prom.c). */
#ifndef UCLAMPCTL_CMD_STATUS_PROM_H
#define UCLAMPCTL_CMD_STATUS_PROM_H

#include <stddef.h>

struct cli_status_prom {
	const char *const *configs;	/* --config, every one given; none: the default files */
	size_t nconfigs;
	const char *socket;		/* --socket: the watch daemon's; NULL: the default */
};

/* uclamp_config_drift, uclamp_config_allow_enable, and uclampctl_watch_* when
 * the daemon answers, on stdout. */
void cli_status_prom_more(const struct cli_status_prom *o);

/* Replace file with what print() writes on stdout, through descriptors
 * (uclamp/afile.h), mode 0644; on any failure the file is left as it was.
 * The exit code (the error said). */
int cli_textfile(const char *file, void (*print)(void *data), void *data);

#endif
