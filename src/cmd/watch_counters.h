/* 'uclampctl watch status': the daemon's counters (src/cmd/watch_counters.c). */
#ifndef UCLAMPCTL_CMD_WATCH_COUNTERS_H
#define UCLAMPCTL_CMD_WATCH_COUNTERS_H

/* as the --format words of 'watch' */
enum cli_watch_fmt { CLI_WATCH_TEXT, CLI_WATCH_JSON, CLI_WATCH_PROM };

struct uc_watch_stats;

/* The counters as Prometheus text (uclampctl_watch_*), on stdout. */
void cli_watch_print_prom(const struct uc_watch_stats *s);

/* Ask the daemon at sock and print its counters; the exit code. */
int cli_watch_status(enum cli_watch_fmt fmt, const char *sock);

#endif
