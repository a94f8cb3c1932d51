/* The daemon's voice: journal fields or stderr lines, and sd_notify. */
#ifndef UCLAMPCTL_CMD_WATCH_LOG_H
#define UCLAMPCTL_CMD_WATCH_LOG_H

#include <stdint.h>

#include "uclamp/watch.h"

struct watch_log_ctx {
	int max_prio;		/* LOG_INFO; LOG_DEBUG with -v; LOG_WARNING with -q */
};

/* uc_watch_log_fn: the journal with fields when stderr is the journal,
 * else "uclampctl watch: MSG" on stderr. */
void watch_log(void *data, const struct uc_watch_log *l);
/* The notify protocol: one datagram to $NOTIFY_SOCKET. */
void watch_notify(void *data, const char *state);
/* The watchdog interval systemd asks for ($WATCHDOG_USEC for this PID), 0: none. */
uint64_t watch_watchdog_usec(void);

#endif
