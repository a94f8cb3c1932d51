/* 'uclampctl top': the loop (top.c) and its two views (top_view.c). */
#ifndef UCLAMPCTL_CMD_TOP_H
#define UCLAMPCTL_CMD_TOP_H

#include <stdio.h>

#include "cmd/common.h"
#include "uclamp/top.h"

/* One sample, as the views show it. */
struct top_frame {
	const struct uc_top *t;
	double delay;			/* -d */
	struct uc_top_task **row;	/* the tasks shown, busiest first */
	size_t nrow;
	/* what cannot be seen, one sentence each (shared by both views) */
	char note[8][192];
	size_t nnote;
};

/* Fill f->note from what the sample could not see. */
void top_notes(struct top_frame *f);
/* The frame as text lines, none wider than width, into out. */
void top_text(const struct top_frame *f, FILE *out, size_t width);
/* The frame as one JSON object on one line (see uclampctl(8) for its shape). */
void top_json(const struct top_frame *f, FILE *out);

#endif
