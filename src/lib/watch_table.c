/*
 * The process table: open addressing with linear probing and backward-shift
 * deletion, keyed by tgid. 24 bytes a process; grows by doubling up to the
 * cap, so 10,000 tracked processes fit in 384 KiB.
 */
#include <stdlib.h>
#include <string.h>

#include "watch_table.h"

void uc_wtable_init(struct uc_wtable *t, size_t max)
{
	memset(t, 0, sizeof(*t));
	t->max = max;
}

void uc_wtable_free(struct uc_wtable *t)
{
	free(t->v);
	memset(t, 0, sizeof(*t));
}

static size_t slot_of(const struct uc_wtable *t, pid_t tgid)
{
	/* Fibonacci hashing: sequential PIDs spread over the table */
	return (size_t)(((uint32_t)tgid * 2654435769u) & (uint32_t)(t->cap - 1));
}

struct uc_wproc *uc_wtable_get(struct uc_wtable *t, pid_t tgid)
{
	if (!t->cap || tgid <= 0)
		return NULL;
	for (size_t i = slot_of(t, tgid);; i = (i + 1) & (t->cap - 1)) {
		if (t->v[i].tgid == tgid)
			return &t->v[i];
		if (!t->v[i].tgid)
			return NULL;
	}
}

static int grow(struct uc_wtable *t)
{
	size_t cap = t->cap ? t->cap * 2 : 256;
	struct uc_wproc *old = t->v, *v = calloc(cap, sizeof(*v));
	size_t ocap = t->cap;

	if (!v)
		return -1;
	t->v = v;
	t->cap = cap;
	for (size_t i = 0; i < ocap; i++) {
		if (!old[i].tgid)
			continue;
		for (size_t k = slot_of(t, old[i].tgid);; k = (k + 1) & (cap - 1)) {
			if (!v[k].tgid) {
				v[k] = old[i];
				break;
			}
		}
	}
	free(old);
	return 0;
}

struct uc_wproc *uc_wtable_add(struct uc_wtable *t, pid_t tgid)
{
	struct uc_wproc *e = uc_wtable_get(t, tgid);

	if (e)
		return e;
	if (tgid <= 0 || t->n >= t->max)
		return NULL;
	/* keep the load under 3/4: probes stay short, 10,000 processes fit in 16,384 slots */
	if ((t->n + 1) * 4 > t->cap * 3 && grow(t))
		return NULL;
	for (size_t i = slot_of(t, tgid);; i = (i + 1) & (t->cap - 1)) {
		if (!t->v[i].tgid) {
			memset(&t->v[i], 0, sizeof(t->v[i]));
			t->v[i].tgid = tgid;
			t->n++;
			return &t->v[i];
		}
	}
}

static void del_slot(struct uc_wtable *t, size_t i)
{
	size_t mask = t->cap - 1;

	/* backward shift: move later entries of the probe run into the hole */
	for (size_t j = (i + 1) & mask; t->v[j].tgid; j = (j + 1) & mask) {
		size_t home = slot_of(t, t->v[j].tgid);

		/* j may move to i unless its home lies cyclically in (i, j] */
		if ((j > i && (home <= i || home > j)) || (j < i && home <= i && home > j)) {
			t->v[i] = t->v[j];
			i = j;
		}
	}
	memset(&t->v[i], 0, sizeof(t->v[i]));
	t->n--;
}

void uc_wtable_del(struct uc_wtable *t, pid_t tgid)
{
	struct uc_wproc *e = uc_wtable_get(t, tgid);

	if (e)
		del_slot(t, (size_t)(e - t->v));
}

void uc_wtable_forget(struct uc_wtable *t, bool (*gone)(const struct uc_wproc *e, void *data),
		      void *data)
{
	for (size_t i = 0; i < t->cap;) {
		/* a shifted entry lands in i: look at i again */
		if (t->v[i].tgid && gone(&t->v[i], data))
			del_slot(t, i);
		else
			i++;
	}
}
