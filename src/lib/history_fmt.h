/* The record's bytes (internal to history.c and history_file.c; see history.h). */
#ifndef UCLAMP_HISTORY_FMT_H
#define UCLAMP_HISTORY_FMT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "uclamp/history.h"

/* A record: magic, payload length, CRC-32 of the payload, little-endian;
 * then the payload, whose first byte is its type. */
#define HIST_MAGIC 0x31484355u	/* "UCH1" */
#define HIST_FRAME 12u
/*
 * The file's version is its header's type: HIST_HEAD_V1, the first format
 * (a RUN's every change a record of its own), is not read: such a file is
 * taken as another boot's (not shown, replaced by the next write).
 *
 * A RUN's changes come in groups: a count k (1 byte), a thread's k changes
 * (1 to HIST_GROUP_MAX: its min, max, reset-on-fork; any other change is
 * alone), then m (4 bytes) and m TIDs (4 bytes each) of the same process
 * with the same changes, unnamed: a process's 10,000 threads set alike are
 * 40 KB, not a 38-byte change each.
 */
enum { HIST_HEAD_V1 = 1, HIST_RUN = 2, HIST_END = 3, HIST_HEAD = 4 };
#define HIST_GROUP_MAX 3

/* A growing byte buffer (oom: an allocation failed, the rest is dropped). */
struct hist_buf {
	uint8_t *b;
	size_t n, cap;
	bool oom;
};

uint32_t hist_crc32(const uint8_t *p, size_t n);
void hist_put_bytes(struct hist_buf *b, const void *p, size_t n);

/* The records, framed, appended to b. */
void hist_put_head(struct hist_buf *b, const char *boot_id);
/* RUN: too large (over UC_HIST_RUN_MAX) is recorded without its changes. */
void hist_put_run(struct hist_buf *b, unsigned id, const struct uc_plan *p,
		  const struct uc_hist_note *note, int key, int64_t time, uid_t uid);
/* END: every change's state (a run too large to record: still counted) */
void hist_put_end(struct hist_buf *b, unsigned id, const struct uc_plan *p, int key_after,
		  int outcome);

/*
 * The record at *off of buf[n]: HIST_F_OK (*pl, *len: its payload; *off moves
 * past it), HIST_F_END (none left), HIST_F_TORN (the rest is a last record a
 * crash cut short: too short, zeros, running past the end, or the last
 * record's checksum failing), HIST_F_BAD (anything else). crc: check this
 * record's checksum even when it is not the last.
 */
enum { HIST_F_END, HIST_F_OK, HIST_F_TORN, HIST_F_BAD };
int hist_next(const uint8_t *buf, size_t n, size_t *off, bool crc, const uint8_t **pl,
	      uint32_t *len);

/* Walking the frames of a file without parsing them (the writer's look). */
struct hist_walk {
	size_t good;		/* bytes up to the end of the last whole record */
	bool torn;		/* bytes after it: a record a crash cut short */
	bool damaged;		/* a bad frame before the last one */
	size_t damaged_at;
	unsigned last_id;	/* the highest run number */
	const uint8_t *boot_id;	/* the HEAD's (not NUL-terminated), NULL if none */
	size_t boot_len;
	size_t first_run;	/* offset of the first RUN record (good if none) */
};
/* all_crc: check every record's checksum (the reader); else the last one only. */
void hist_walk(const uint8_t *buf, size_t n, bool all_crc, struct hist_walk *w);

#endif
