/*
 * The record's format (history.h): framing, the records' bytes, and the
 * parser, which takes the file as hostile input: every length is bounded,
 * every value checked against what a plan can hold, and anything out of
 * place refuses the whole file (a last record cut short by a crash is left
 * out instead). The file itself (where, who may own it, appending, making
 * room) is history_file.c.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "history_fmt.h"
#include "uclamp/cgroup.h"
#include "uclamp/plan_run.h"
#include "uclamp/sysctl.h"
#include "uclamp/value.h"

/* ---- CRC-32 (IEEE 802.3, as zlib's crc32) ---------------------------------------- */

static uint32_t crc_t[8][256];

/* The register c (not inverted) through n bytes: eight bytes a step
 * ("slicing by 8"): a 10,000-thread run's record is 40 KB, checked once when
 * written and once when read. */
static uint32_t crc_raw(uint32_t c, const uint8_t *p, size_t n)
{
	if (!crc_t[0][1]) {
		for (uint32_t i = 0; i < 256; i++) {
			uint32_t v = i;

			for (int k = 0; k < 8; k++)
				v = v & 1 ? 0xedb88320u ^ (v >> 1) : v >> 1;
			crc_t[0][i] = v;
		}
		for (int s = 1; s < 8; s++)
			for (uint32_t i = 0; i < 256; i++)
				crc_t[s][i] = (crc_t[s - 1][i] >> 8) ^
					      crc_t[0][crc_t[s - 1][i] & 0xff];
	}
	for (; n >= 8; n -= 8, p += 8) {
		uint32_t a = c ^ ((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
				  (uint32_t)p[3] << 24);

		c = crc_t[7][a & 0xff] ^ crc_t[6][(a >> 8) & 0xff] ^ crc_t[5][(a >> 16) & 0xff] ^
		    crc_t[4][a >> 24] ^ crc_t[3][p[4]] ^ crc_t[2][p[5]] ^ crc_t[1][p[6]] ^
		    crc_t[0][p[7]];
	}
	while (n--)
		c = crc_t[0][(c ^ *p++) & 0xff] ^ (c >> 8);
	return c;
}

uint32_t hist_crc32(const uint8_t *p, size_t n)
{
	return crc_raw(0xffffffffu, p, n) ^ 0xffffffffu;
}

/* ---- writing ------------------------------------------------------------------------ */

/* b->cap grown to hold n more bytes: 0, or -ENOMEM (b->oom set). */
static int grow(struct hist_buf *b, size_t n)
{
	size_t cap = b->cap ? b->cap : 256;
	uint8_t *v;

	while (cap < b->n + n)
		cap *= 2;
	v = realloc(b->b, cap);
	if (!v) {
		b->oom = true;
		return -ENOMEM;
	}
	b->b = v;
	b->cap = cap;
	return 0;
}

static inline uint8_t *room(struct hist_buf *b, size_t n)
{
	if (b->oom || (b->n + n > b->cap && grow(b, n)))
		return NULL;
	b->n += n;
	return b->b + b->n - n;
}

void hist_put_bytes(struct hist_buf *b, const void *p, size_t n)
{
	uint8_t *d = n ? room(b, n) : NULL;

	if (d)
		memcpy(d, p, n);
}

static void put_le(struct hist_buf *b, uint64_t v, int bytes)
{
	uint8_t *d = room(b, (size_t)bytes);

	for (int i = 0; d && i < bytes; i++)
		d[i] = (uint8_t)(v >> (8 * i));
}

static void put_str(struct hist_buf *b, const char *s, size_t max)
{
	size_t len = s ? strnlen(s, max) : 0;

	put_le(b, len, 2);
	hist_put_bytes(b, s, len);
}

/* Little-endian stores of a fixed width: each one store where the host is little-endian. */
static inline uint8_t *put16(uint8_t *d, uint16_t v)
{
	d[0] = (uint8_t)v;
	d[1] = (uint8_t)(v >> 8);
	return d + 2;
}

static inline uint8_t *put32(uint8_t *d, uint32_t v)
{
	return put16(put16(d, (uint16_t)v), (uint16_t)(v >> 16));
}

static inline uint8_t *put64(uint8_t *d, uint64_t v)
{
	return put32(put32(d, (uint32_t)v), (uint32_t)(v >> 32));
}

/* Open a frame: its header is filled in by frame_close. */
static size_t frame_open(struct hist_buf *b, int type)
{
	size_t at = b->n;

	room(b, HIST_FRAME);
	put_le(b, (uint64_t)type, 1);
	return at;
}

/* Close the frame at 'at': its magic, payload length and checksum. */
static void frame_close(struct hist_buf *b, size_t at)
{
	uint32_t len = (uint32_t)(b->n - at - HIST_FRAME);

	if (!b->oom)
		put32(put32(put32(b->b + at, HIST_MAGIC), len),
		      hist_crc32(b->b + at + HIST_FRAME, len));
}

void hist_put_head(struct hist_buf *b, const char *boot_id)
{
	size_t at = frame_open(b, HIST_HEAD);

	put_str(b, boot_id, 64);
	frame_close(b, at);
}

/* A group's identity (cgroup, subtree): the one the plan checked (uc_cg_ident), else
 * read now (0: unknown). */
static uint64_t group_ino(const struct uc_change *c)
{
	unsigned long long ino = 0;

	if (c->kind == UC_KIND_CGROUP && c->start)
		return c->start;
	uc_cg_ident(c->target ? c->target : "", &ino);
	return ino;
}

/* A change: its fixed part, then target and label (each a 2-byte length and the bytes). */
#define CHANGE_FIXED 34
static void put_change(struct hist_buf *b, const struct uc_change *c)
{
	/* a task's target is its run (plan.h): it has none */
	const char *target = c->kind == UC_KIND_TASK ? NULL : c->target;
	size_t tl = target ? strnlen(target, 4095) : 0;
	size_t ll = c->label ? strnlen(c->label, 255) : 0;
	uint8_t *d = room(b, CHANGE_FIXED + 2 + tl + 2 + ll);

	if (!d)
		return;
	*d++ = c->kind;
	*d++ = c->attr;
	d = put32(d, (uint32_t)c->pid);
	d = put32(d, (uint32_t)c->tid);
	/* plan.h: start is a task's start time, a group's identity: the record
	 * keeps the second apart, as ino */
	d = put64(d, c->kind == UC_KIND_TASK ? c->start : 0);
	d = put64(d, c->kind == UC_KIND_CGROUP || c->kind == UC_KIND_SUBTREE ? group_ino(c) : 0);
	d = put32(d, (uint32_t)(int32_t)c->from);
	d = put32(d, (uint32_t)(int32_t)c->to);
	d = put16(d, (uint16_t)tl);
	if (tl)
		memcpy(d, target, tl);
	d = put16(d + tl, (uint16_t)ll);
	if (ll)
		memcpy(d, c->label, ll);
}

static void put_tids(struct hist_buf *b, const pid_t *tid, size_t n)
{
	uint8_t *d = n ? room(b, 4 * n) : NULL;

	for (size_t i = 0; d && i < n; i++)
		d = put32(d, (uint32_t)tid[i]);
}

/* The run of threads the record at c stands for (plan.h), NULL: none. */
static const struct uc_tidrun *run_of(const struct uc_change *c)
{
	return c->kind == UC_KIND_TASK ? c->run : NULL;
}

/*
 * The plan's records read as they are stored, not through uc_plan_next: a
 * run's threads are a TID array, written in one go. A thread's records at
 * rec[i]: its run's k, else the records of its TID that follow (a change not
 * a task's: itself).
 */
static size_t thread_records(const struct uc_plan *p, size_t i)
{
	const struct uc_change *c = &p->rec[i];
	size_t k = 1;

	if (run_of(c))
		return run_of(c)->k;
	while (c->kind == UC_KIND_TASK && k < HIST_GROUP_MAX && i + k < p->nrec &&
	       c[k].kind == UC_KIND_TASK && !c[k].run && c[k].pid == c->pid && c[k].tid == c->tid)
		k++;
	return k;
}

static bool unnamed(const struct uc_change *c)
{
	return !c->label || !c->label[0];
}

/* Thread b's k changes are thread a's but for the TID (same process), neither named. */
static bool same_changes(const struct uc_change *a, const struct uc_change *b, size_t k)
{
	for (size_t j = 0; j < k; j++)
		if (a[j].kind != UC_KIND_TASK || b[j].kind != UC_KIND_TASK ||
		    a[j].attr != b[j].attr || a[j].pid != b[j].pid || a[j].start != b[j].start ||
		    a[j].from != b[j].from || a[j].to != b[j].to || !unnamed(&a[j]) ||
		    !unnamed(&b[j]))
			return false;
	return true;
}

/* The TID count of the group whose count is at m_at (0: none): the TIDs after it. */
static void close_group(struct hist_buf *b, size_t m_at)
{
	if (m_at && !b->oom)
		put32(b->b + m_at, (uint32_t)((b->n - m_at - 4) / 4));
}

/* The groups of the plan's changes (history_fmt.h), until they pass UC_HIST_RUN_MAX. */
static void put_groups(struct hist_buf *b, const struct uc_plan *p, size_t at)
{
	size_t g = 0, gk = 0, m_at = 0, k;

	for (size_t i = 0; i < p->nrec && !b->oom && b->n - at <= UC_HIST_RUN_MAX; i += k) {
		const struct uc_change *c = &p->rec[i];

		k = thread_records(p, i);
		if (m_at && k == gk && same_changes(&p->rec[g], c, k)) {
			put_tids(b, &c->tid, 1);
		} else {
			close_group(b, m_at);
			put_le(b, k, 1);
			for (size_t j = 0; j < k; j++)
				put_change(b, &c[j]);
			m_at = b->n;
			put_le(b, 0, 4);
			g = i;
			gk = k;
		}
		if (run_of(c))
			put_tids(b, run_of(c)->tid, run_of(c)->n);
	}
	close_group(b, m_at);
}

void hist_put_run(struct hist_buf *b, unsigned id, const struct uc_plan *p,
		  const struct uc_hist_note *note, int key, int64_t time, uid_t uid)
{
	size_t at = frame_open(b, HIST_RUN), nat, est;
	unsigned flags = note->flags & UC_HIST_WIDE;

	put_le(b, id, 4);
	put_le(b, (uint64_t)time, 8);
	put_le(b, uid, 4);
	put_le(b, note->undoes, 4);
	put_le(b, (uint64_t)key, 1);
	nat = b->n;
	put_le(b, flags, 1);
	put_le(b, p->n, 4);
	put_str(b, note->cmdline, 4095);
	put_le(b, p->n, 4);
	/* room made at once (b->n stays; names aside): a thread's TID, a record's change */
	est = p->n * 4 + p->nrec * (1 + CHANGE_FIXED + 4 + 4);
	est = est < UC_HIST_RUN_MAX ? est : UC_HIST_RUN_MAX;
	if (room(b, est))
		b->n -= est;
	put_groups(b, p, at);
	if (!b->oom && b->n - at > UC_HIST_RUN_MAX) {
		/* too large: counted, not recorded (undo cannot put it back) */
		size_t cut = nat + 1 + 4 + 2 + strnlen(note->cmdline ? note->cmdline : "", 4095);

		b->b[nat] = (uint8_t)(flags | UC_HIST_TOO_LARGE);
		b->n = cut;
		put_le(b, 0, 4);
	}
	frame_close(b, at);
}

/* A run's threads' states, k a thread (in locals: d may alias anything) */
static uint8_t *put_states(uint8_t *d, const struct uc_tidrun *r)
{
	const struct uc_tidstate *st = r->st;
	size_t n = r->n, k = r->k;

	for (size_t j = 0; j < k; j++)
		for (size_t t = 0; t < n; t++)
			d[t * k + j] = st[t].state;
	return d + n * k;
}

void hist_put_end(struct hist_buf *b, unsigned id, const struct uc_plan *p, int key_after,
		  int outcome)
{
	size_t at = frame_open(b, HIST_END), n = p->n;
	uint8_t *d;

	put_le(b, id, 4);
	put_le(b, (uint64_t)key_after, 1);
	put_le(b, (uint64_t)outcome, 1);
	put_le(b, n, 4);
	/* in uc_plan_next's order: a run's records, then its threads' k each */
	d = n ? room(b, n) : NULL;
	for (size_t i = 0, k; d && i < p->nrec; i += k) {
		const struct uc_change *c = &p->rec[i];
		const struct uc_tidrun *r = run_of(c);

		k = r ? r->k : 1;
		for (size_t j = 0; j < k; j++)
			*d++ = c[j].state;
		if (r)
			d = put_states(d, r);
	}
	frame_close(b, at);
}

/* ---- framing ------------------------------------------------------------------------ */

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static bool all_zero(const uint8_t *p, size_t n)
{
	while (n--)
		if (*p++)
			return false;
	return true;
}

int hist_next(const uint8_t *buf, size_t n, size_t *off, bool crc, const uint8_t **pl,
	      uint32_t *len)
{
	size_t at = *off, left = n - at;
	uint32_t l;
	bool last;

	if (!left)
		return HIST_F_END;
	/* a crash can leave a prefix of the last write, or zeros where it was to go */
	if (left < HIST_FRAME || all_zero(buf + at, left))
		return HIST_F_TORN;
	if (le32(buf + at) != HIST_MAGIC)
		return HIST_F_BAD;
	l = le32(buf + at + 4);
	if (l == 0 || l > UC_HIST_RUN_MAX + 64)
		return HIST_F_BAD;
	if (l > left - HIST_FRAME)
		return HIST_F_TORN;
	last = l == left - HIST_FRAME;
	if ((crc || last) && hist_crc32(buf + at + HIST_FRAME, l) != le32(buf + at + 8))
		return last ? HIST_F_TORN : HIST_F_BAD;
	*pl = buf + at + HIST_FRAME;
	*len = l;
	*off = at + HIST_FRAME + l;
	return HIST_F_OK;
}

void hist_walk(const uint8_t *buf, size_t n, bool all_crc, struct hist_walk *w)
{
	size_t off = 0;
	const uint8_t *pl;
	uint32_t len;
	int rc;

	memset(w, 0, sizeof(*w));
	w->first_run = SIZE_MAX;
	while ((rc = hist_next(buf, n, &off, all_crc, &pl, &len)) == HIST_F_OK) {
		if (pl[0] == HIST_HEAD && len >= 3 && !w->good) {
			w->boot_len = (size_t)pl[1] | (size_t)pl[2] << 8;
			w->boot_id = w->boot_len <= len - 3 ? pl + 3 : NULL;
		}
		if (pl[0] == HIST_RUN && len >= 5) {
			if (w->first_run == SIZE_MAX)
				w->first_run = off - HIST_FRAME - len;
			if (le32(pl + 1) > w->last_id)
				w->last_id = le32(pl + 1);
		}
		w->good = off;
	}
	if (w->first_run == SIZE_MAX)
		w->first_run = w->good;
	w->torn = rc == HIST_F_TORN;
	w->damaged = rc == HIST_F_BAD;
	w->damaged_at = off;
}

/* ---- parsing ------------------------------------------------------------------------ */

struct cursor {
	const uint8_t *p;
	size_t left;
	bool bad;
};

static uint64_t get(struct cursor *c, int bytes)
{
	uint64_t v = 0;

	if (c->bad || c->left < (size_t)bytes) {
		c->bad = true;
		return 0;
	}
	for (int i = 0; i < bytes; i++)
		v |= (uint64_t)c->p[i] << (8 * i);
	c->p += bytes;
	c->left -= (size_t)bytes;
	return v;
}

/* A length-prefixed string of at most max bytes, without NUL bytes; NULL when empty. */
static char *get_str(struct cursor *c, size_t max, bool *oom)
{
	size_t len = (size_t)get(c, 2);
	char *s;

	if (c->bad || len > max || len > c->left || memchr(c->p, '\0', len)) {
		c->bad = true;
		return NULL;
	}
	if (!len)
		return NULL;
	s = strndup((const char *)c->p, len);
	if (!s)
		*oom = true;
	c->p += len;
	c->left -= len;
	return s;
}

static bool in(long v, long lo, long hi)
{
	return v >= lo && v <= hi;
}

/* What a plan can hold for this kind and attribute (plan.h), and nothing else. */
static bool change_ok(const struct uc_hist_change *c)
{
	bool task = c->kind == UC_KIND_TASK, group = c->target && *c->target;

	if (task != (c->pid > 0 && c->tid > 0) || (!task && (c->start || c->pid || c->tid)) ||
	    (task && c->target) || (c->ino && c->kind != UC_KIND_CGROUP &&
				    c->kind != UC_KIND_SUBTREE))
		return false;
	switch (c->kind) {
	case UC_KIND_TASK:
		if (c->attr == UC_ATTR_RESET_ON_FORK)
			return in(c->from, 0, 1) && in(c->to, 0, 1);
		return (c->attr == UC_ATTR_MIN || c->attr == UC_ATTR_MAX) &&
		       in(c->from, 0, UC_CAPACITY_SCALE) &&
		       in(c->to, UC_RESET, UC_CAPACITY_SCALE) &&
		       (!c->label || strlen(c->label) < 16);
	case UC_KIND_SYSCTL:
		return uc_sysctl_name(c->attr) && c->target &&
		       !strcmp(c->target, uc_sysctl_name(c->attr)) && !c->label &&
		       in(c->from, 0, UC_CAPACITY_SCALE) && in(c->to, 0, UC_CAPACITY_SCALE);
	case UC_KIND_CGROUP:
		return (c->attr == UC_ATTR_MIN || c->attr == UC_ATTR_MAX) && group &&
		       !uc_cg_path_escapes(c->target) && !c->label &&
		       in(c->from, 0, UC_PCT_MAX) && in(c->to, 0, UC_PCT_MAX);
	case UC_KIND_SUBTREE:
		/* the root's subtree_control is one too: its target may be "" */
		return c->attr == UC_ATTR_CPU_CONTROLLER && !uc_cg_path_escapes(c->target ?
										 c->target : "") &&
		       !c->label && in(c->from, 0, 1) && in(c->to, 0, 1);
	case UC_KIND_SYSTEMD:
		return c->attr == UC_ATTR_CPU_WEIGHT && group && c->label &&
		       !uc_cg_path_escapes(c->target) && in(c->from, -1, 10000) &&
		       in(c->to, 1, 10000);
	}
	return false;
}

static int get_change(struct cursor *cur, struct uc_hist_change *c, bool *oom)
{
	c->kind = (uint8_t)get(cur, 1);
	c->attr = (uint8_t)get(cur, 1);
	c->state = UC_CH_PLANNED;
	c->pid = (pid_t)(int32_t)get(cur, 4);
	c->tid = (pid_t)(int32_t)get(cur, 4);
	c->start = get(cur, 8);
	c->ino = get(cur, 8);
	c->from = (int32_t)get(cur, 4);
	c->to = (int32_t)get(cur, 4);
	c->target = get_str(cur, 4095, oom);
	c->label = get_str(cur, 255, oom);
	return cur->bad || !change_ok(c) ? -EBADMSG : 0;
}

/* A group of changes (history_fmt.h) into r->v from r->n on, n changes in all. */
static int get_group(struct cursor *cur, struct uc_hist_run *r, size_t n, bool *oom)
{
	size_t k = (size_t)get(cur, 1), m, g = r->n;
	const struct uc_hist_change *t = &r->v[g];

	if (cur->bad || !k || k > HIST_GROUP_MAX || k > n - g)
		return -EBADMSG;
	for (size_t j = 0; j < k; j++) {
		/* owned by r from here: freed with it */
		if (get_change(cur, &r->v[r->n++], oom))
			return -EBADMSG;
		/* one thread's changes: a task's */
		if (j && (t[j].kind != UC_KIND_TASK || t[j].pid != t->pid || t[j].tid != t->tid))
			return -EBADMSG;
	}
	m = (size_t)get(cur, 4);
	if (cur->bad || m > (n - r->n) / k || m > cur->left / 4)
		return -EBADMSG;
	/* other threads' share the changes, which name none of them */
	for (size_t j = 0; m && j < k; j++)
		if (t[j].kind != UC_KIND_TASK || t[j].label)
			return -EBADMSG;
	for (size_t i = 0; i < m; i++) {
		pid_t tid = (pid_t)(int32_t)get(cur, 4);

		if (tid <= 0)
			return -EBADMSG;
		for (size_t j = 0; j < k; j++) {
			r->v[r->n] = t[j];
			r->v[r->n++].tid = tid;
		}
	}
	return 0;
}

void uc_hist_free(struct uc_hist *h)
{
	for (size_t i = 0; i < h->n; i++) {
		struct uc_hist_run *r = &h->runs[i];

		for (size_t j = 0; j < r->n; j++) {
			free(r->v[j].target);
			free(r->v[j].label);
		}
		free(r->v);
		free(r->cmdline);
	}
	free(h->runs);
	memset(h, 0, sizeof(*h));
}

struct parse {
	struct uc_hist *h;
	size_t cap;
	bool oom;
	char *why;
	size_t wn;
};

__attribute__((format(printf, 3, 4)))
static int bad(struct parse *ps, size_t at, const char *fmt, ...)
{
	char what[160];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	snprintf(ps->why, ps->wn, "damaged: the record at byte %zu %s", at, what);
	return -EBADMSG;
}

static int parse_run(struct parse *ps, struct cursor *cur, size_t at)
{
	struct uc_hist *h = ps->h;
	struct uc_hist_run *r;
	size_t n;

	if (h->n == ps->cap) {
		size_t cap = ps->cap ? ps->cap * 2 : 16;
		struct uc_hist_run *v = realloc(h->runs, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		h->runs = v;
		ps->cap = cap;
	}
	r = &h->runs[h->n];
	memset(r, 0, sizeof(*r));
	r->id = (unsigned)get(cur, 4);
	r->time = (int64_t)get(cur, 8);
	r->uid = (uid_t)get(cur, 4);
	r->undoes = (unsigned)get(cur, 4);
	r->key_before = (uint8_t)get(cur, 1);
	r->key_after = UC_KEY_UNKNOWN;
	r->flags = (unsigned)get(cur, 1);
	r->ntotal = (size_t)get(cur, 4);
	r->cmdline = get_str(cur, 4095, &ps->oom);
	h->n++;		/* owned by h from here: freed with it */
	n = (size_t)get(cur, 4);
	if (cur->bad || r->key_before > UC_KEY_UNSUPPORTED || (r->flags & ~3u) ||
	    (h->n > 1 && r->id <= h->runs[h->n - 2].id) || !r->id || r->undoes >= r->id ||
	    n > r->ntotal || ((r->flags & UC_HIST_TOO_LARGE) ? n != 0 : n != r->ntotal) ||
	    n / HIST_GROUP_MAX > cur->left / 4)
		return bad(ps, at, "(a run) is not one this program writes");
	r->v = calloc(n ? n : 1, sizeof(*r->v));
	if (!r->v)
		return -ENOMEM;
	while (r->n < n)
		if (get_group(cur, r, n, &ps->oom))
			return ps->oom ? -ENOMEM : bad(ps, at, "(run %u) has a change no plan can "
						       "hold (change %zu)", r->id, r->n);
	if (cur->left)
		return bad(ps, at, "(run %u) has %zu bytes more than its changes", r->id,
			   cur->left);
	return ps->oom ? -ENOMEM : 0;
}

static int parse_end(struct parse *ps, struct cursor *cur, size_t at)
{
	struct uc_hist *h = ps->h;
	unsigned id = (unsigned)get(cur, 4);
	uint8_t key = (uint8_t)get(cur, 1), outcome = (uint8_t)get(cur, 1);
	size_t n = (size_t)get(cur, 4);
	/* runs are in id order: no quadratic search in a file of many small runs */
	struct uc_hist_run *r = (struct uc_hist_run *)uc_hist_find(h, id);

	/* the oldest runs make room for new ones: an END whose RUN went with them */
	if (!r && (!h->n || id < h->runs[0].id) && !cur->bad)
		return 0;
	/* a run too large to record has no changes, its END all their states */
	if (cur->bad || !r || r->ended || key > UC_KEY_UNSUPPORTED ||
	    outcome > UC_RUN_INTERRUPTED || n != r->ntotal || cur->left != n)
		return bad(ps, at, "(the end of run %u) does not match a run", id);
	for (size_t i = 0; i < n; i++) {
		if (cur->p[i] > UC_CH_SKIPPED)
			return bad(ps, at, "(the end of run %u) has an unknown state", id);
		if (i < r->n)
			r->v[i].state = cur->p[i];
	}
	r->ended = true;
	r->key_after = key;
	r->outcome = outcome;
	return 0;
}

/* Who undid what: the newest undo of a run that got to write. */
static void link_undos(struct uc_hist *h)
{
	for (size_t i = 0; i < h->n; i++) {
		const struct uc_hist_run *u = &h->runs[i];
		struct uc_hist_run *r = (struct uc_hist_run *)uc_hist_find(h, u->undoes);

		if (r && u->ended && (u->outcome == UC_RUN_OK || u->outcome == UC_RUN_NOTHING))
			r->undone_by = u->id;
	}
}

static int parse_frames(struct parse *ps, const uint8_t *buf, size_t n, const char *boot_id)
{
	size_t off = 0, at;
	const uint8_t *pl;
	uint32_t len;
	int rc;

	for (bool first = true;; first = false) {
		struct cursor cur;
		uint8_t type;

		at = off;
		rc = hist_next(buf, n, &off, true, &pl, &len);
		if (rc == HIST_F_END)
			return 0;
		if (rc == HIST_F_TORN) {
			ps->h->torn = true;
			return 0;
		}
		if (rc == HIST_F_BAD)
			return bad(ps, at, "has a bad frame (magic, length or checksum)");
		cur = (struct cursor){ pl + 1, len - 1, false };
		type = pl[0];
		if (first && type == HIST_HEAD_V1) {
			/* the first format's: dropped as another boot's is (history_fmt.h) */
			ps->h->other_boot = true;
			return 0;
		}
		if (first != (type == HIST_HEAD))
			return bad(ps, at, first ? "is not the header" : "is a second header");
		if (type == HIST_HEAD) {
			char *id = get_str(&cur, 64, &ps->oom);

			if (cur.bad || cur.left || ps->oom) {
				free(id);
				return ps->oom ? -ENOMEM : bad(ps, at, "(the header) is malformed");
			}
			ps->h->other_boot = boot_id && (!id || strcmp(id, boot_id));
			free(id);
			if (ps->h->other_boot)
				return 0;
			continue;
		}
		if (type == HIST_RUN)
			rc = parse_run(ps, &cur, at);
		else if (type == HIST_END)
			rc = parse_end(ps, &cur, at);
		else
			rc = bad(ps, at, "has an unknown type %u", type);
		if (rc)
			return rc;
	}
}

int uc_hist_parse(const void *buf, size_t n, const char *boot_id, struct uc_hist *h, char *why,
		  size_t wn)
{
	struct parse ps = { .h = h, .why = why, .wn = wn };
	int rc;

	memset(h, 0, sizeof(*h));
	if (wn)
		why[0] = '\0';
	h->bytes = n;
	rc = parse_frames(&ps, buf, n, boot_id);
	if (rc == -ENOMEM)
		snprintf(why, wn, "out of memory");
	if (rc) {
		uc_hist_free(h);
		return rc;
	}
	link_undos(h);
	return 0;
}

static int by_id(const void *key, const void *run)
{
	unsigned id = *(const unsigned *)key, r = ((const struct uc_hist_run *)run)->id;

	return id < r ? -1 : id > r;
}

const struct uc_hist_run *uc_hist_find(const struct uc_hist *h, unsigned id)
{
	/* ids rise strictly (the parser checks) */
	return h->n ? bsearch(&id, h->runs, h->n, sizeof(*h->runs), by_id) : NULL;
}
