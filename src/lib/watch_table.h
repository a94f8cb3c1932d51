/* The daemon's process table (internal): tgid -> identity and history. */
#ifndef UCLAMP_WATCH_TABLE_H
#define UCLAMP_WATCH_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct uc_wproc {
	pid_t tgid;			/* 0: free slot */
	uint32_t window_start;		/* seconds (monotonic) of the re-apply window */
	/* start time, clock ticks since boot (/proc/PID/stat field 22) */
	uint64_t start;
	uint32_t scan;			/* last rescan that saw it */
	uint16_t writes;		/* writes in the window */
	/* re-checks in a row that found its clamps changed back and set them again */
	uint8_t drifts;
	bool given_up : 1;		/* too many re-applies: leave it alone */
	bool logged : 1;
};

struct uc_wtable {
	struct uc_wproc *v;
	size_t cap, n, max;		/* slots (power of two), used, the cap on used */
};

void uc_wtable_init(struct uc_wtable *t, size_t max);
void uc_wtable_free(struct uc_wtable *t);
struct uc_wproc *uc_wtable_get(struct uc_wtable *t, pid_t tgid);
/* The entry for tgid, added when missing; NULL at the cap or on ENOMEM. */
struct uc_wproc *uc_wtable_add(struct uc_wtable *t, pid_t tgid);
void uc_wtable_del(struct uc_wtable *t, pid_t tgid);
/* Drop the entries gone() says are gone. */
void uc_wtable_forget(struct uc_wtable *t, bool (*gone)(const struct uc_wproc *e, void *data),
		      void *data);

#endif
