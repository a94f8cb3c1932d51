/*
 * libFuzzer: the record of write runs (history.c: the frames and
 * uc_hist_parse), hostile input. Each input is parsed as it is, and again
 * with every whole frame's magic and checksum made right, so that the
 * fuzzer gets past the checksums into the records themselves. What parses
 * must be what a plan can hold (run numbers rising, an END only for a run
 * that is there, every group below the hierarchy, every value in range:
 * undo writes them); what does not parse holds nothing.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/history_fmt.h"
#include "uclamp/cgroup.h"
#include "uclamp/plan_run.h"
#include "uclamp/value.h"

#define BOOT "11111111-2222-3333-4444-555555555555"

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* Every frame that fits: its magic, and the checksum of its payload. */
static void fix_frames(uint8_t *b, size_t n)
{
	size_t off = 0;

	while (n - off >= HIST_FRAME) {
		uint32_t len = le32(b + off + 4);

		put32(b + off, HIST_MAGIC);
		if (len > n - off - HIST_FRAME)
			return;
		put32(b + off + 8, hist_crc32(b + off + HIST_FRAME, len));
		off += HIST_FRAME + len;
	}
}

static void check_change(const struct uc_hist_change *c)
{
	if (c->kind > UC_KIND_SYSTEMD || c->state > UC_CH_SKIPPED)
		abort();
	if (c->kind == UC_KIND_TASK) {
		if (c->pid <= 0 || c->tid <= 0 || c->target || c->to < UC_RESET ||
		    c->to > UC_CAPACITY_SCALE || c->from < 0)
			abort();
		return;
	}
	if (c->pid || c->tid || c->start)
		abort();
	if (c->kind == UC_KIND_CGROUP &&
	    (!c->target || uc_cg_path_escapes(c->target) || c->to < 0 || c->to > UC_PCT_MAX))
		abort();
	if (c->kind == UC_KIND_SYSCTL && (c->to < 0 || c->to > UC_CAPACITY_SCALE))
		abort();
}

static void parse(const uint8_t *buf, size_t n, const char *boot)
{
	struct uc_hist h;
	char why[256];
	int rc = uc_hist_parse(buf, n, boot, &h, why, sizeof(why));

	if (rc) {
		if ((rc != -EBADMSG && rc != -ENOMEM) || h.n || h.runs || !why[0])
			abort();
		return;
	}
	for (size_t i = 0; i < h.n; i++) {
		const struct uc_hist_run *r = &h.runs[i];

		if (!r->id || (i && r->id <= h.runs[i - 1].id) || r->undoes >= r->id ||
		    r->n > r->ntotal || uc_hist_find(&h, r->id) != r)
			abort();
		if (r->undone_by && r->undone_by <= r->id)
			abort();
		for (size_t k = 0; k < r->n; k++)
			check_change(&r->v[k]);
	}
	if (h.other_boot && h.n)
		abort();
	uc_hist_free(&h);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hist_walk w;
	uint8_t *copy;

	if (size > UC_HIST_MAX)
		return 0;
	parse(data, size, BOOT);
	copy = malloc(size ? size : 1);
	if (!copy)
		abort();
	memcpy(copy, data, size);
	fix_frames(copy, size);
	parse(copy, size, size & 1 ? NULL : BOOT);
	/* the writer's look: the end of the whole records is within the file */
	hist_walk(copy, size, false, &w);
	if (w.good > size || (w.boot_id && w.boot_id + w.boot_len > copy + size))
		abort();
	free(copy);
	return 0;
}
