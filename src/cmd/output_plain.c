/*
 * The same bytes libsmartcols prints for a flat table or its JSON when the
 * output is not a terminal, without its per-character width and encoding
 * work (about 40,000 instructions a row of 'task show', 27,000 in JSON: more
 * than the system calls behind the row). Only for plain printable ASCII
 * cells (JSON: nothing to escape either); any other table goes to
 * libsmartcols (-EAGAIN). tests/unit/test_output.c
 * compares the two renderers byte for byte.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/output.h"

#define dl cli_scols.f
#define MAXCOLS 64

struct plain {
	struct libscols_table *tb;
	size_t ncols;
	struct libscols_column *cl[MAXCOLS];
	size_t width[MAXCOLS];
	size_t head[MAXCOLS];
	const char *heading[MAXCOLS];	/* "" for none */
	bool right[MAXCOLS];
	char *buf;		/* one row */
	size_t cap;
};

/* printable ASCII; in raw output no blank or backslash (libsmartcols escapes them) */
static bool plain_ascii(const char *s, bool raw)
{
	for (; *s; s++) {
		if (*s < ' ' || *s > '~')
			return false;
		if (raw && (*s == ' ' || *s == '\\'))
			return false;
	}
	return true;
}

static const char *cell(struct libscols_line *ln, size_t i)
{
	const char *d = dl.scols_cell_get_data(dl.scols_line_get_cell(ln, i));

	return d ? d : "";
}

/* Column widths (header and cells); false when a cell needs libsmartcols. */
static bool measure(struct plain *p, bool raw)
{
	struct libscols_iter *itr = dl.scols_new_iter(SCOLS_ITER_FORWARD);
	struct libscols_line *ln;
	bool ok = true;

	if (!itr)
		return false;
	for (size_t i = 0; i < p->ncols; i++) {
		const char *h = dl.scols_cell_get_data(dl.scols_column_get_header(p->cl[i]));

		p->width[i] = 0;
		p->head[i] = h ? strlen(h) : 1;
		p->heading[i] = h ? h : "";
		p->right[i] = dl.scols_column_get_flags(p->cl[i]) & SCOLS_FL_RIGHT;
		ok = ok && plain_ascii(h ? h : "", raw);
	}
	while (ok && dl.scols_table_next_line(p->tb, itr, &ln) == 0) {
		for (size_t i = 0; i < p->ncols && ok; i++) {
			const char *d = cell(ln, i);
			size_t len = strlen(d);

			ok = plain_ascii(d, raw);
			if (len > p->width[i])
				p->width[i] = len;
		}
	}
	dl.scols_free_iter(itr);
	/* libsmartcols' count_column_width(): the heading's width is the minimum;
	 * else an absolute width hint above the data's width is taken */
	for (size_t i = 0; i < p->ncols; i++) {
		double hint = dl.scols_column_get_whint(p->cl[i]);

		if (p->width[i] < p->head[i])
			p->width[i] = p->head[i];
		else if (hint >= 1 && p->width[i] < (size_t)hint && p->head[i] < (size_t)hint)
			p->width[i] = (size_t)hint;
	}
	return ok;
}

/* Room for n bytes in p->buf; false when out of memory. */
static bool reserve(struct plain *p, size_t n)
{
	if (n + 1 > p->cap) {
		size_t cap = (n + 1) * 2;
		char *nb = realloc(p->buf, cap);

		if (!nb)
			return false;
		p->buf = nb;
		p->cap = cap;
	}
	return true;
}

/* One row into p->buf (grown as needed), then one fwrite: cells padded to
 * the column width (right-aligned ones on the left), one blank between; the
 * last column unpadded unless right-aligned and not empty. Raw: no padding. */
static int put_row(struct plain *p, FILE *f, const char *const *v, bool raw)
{
	size_t at = 0;

	for (size_t i = 0; i < p->ncols; i++) {
		size_t len = strlen(v[i]), pad = raw ? 0 : p->width[i] - len;
		bool last = i + 1 == p->ncols;

		if (last && !len)
			pad = 0;	/* an empty last cell: nothing, not even padding */
		if (!reserve(p, at + len + pad + 1))
			return -ENOMEM;
		if (p->right[i]) {
			memset(p->buf + at, ' ', pad);
			at += pad;
		}
		memcpy(p->buf + at, v[i], len);
		at += len;
		if (!p->right[i] && !last) {
			memset(p->buf + at, ' ', pad);
			at += pad;
		}
		if (!last)
			p->buf[at++] = ' ';
	}
	p->buf[at++] = '\n';
	return fwrite(p->buf, 1, at, f) == at ? 0 : -EIO;
}

static int print_table(struct plain *p, FILE *f)
{
	bool raw = dl.scols_table_is_raw(p->tb);
	struct libscols_iter *itr;
	struct libscols_line *ln;
	const char *v[MAXCOLS];
	int rc = 0;

	if (!dl.scols_table_get_nlines(p->tb))
		return 0;	/* libsmartcols prints nothing, not even the headings */
	if (!measure(p, raw))
		return -EAGAIN;
	if (!dl.scols_table_is_noheadings(p->tb))
		rc = put_row(p, f, p->heading, raw);
	itr = dl.scols_new_iter(SCOLS_ITER_FORWARD);
	if (!itr)
		return -ENOMEM;
	while (!rc && dl.scols_table_next_line(p->tb, itr, &ln) == 0) {
		for (size_t i = 0; i < p->ncols; i++)
			v[i] = cell(ln, i);
		rc = put_row(p, f, v, raw);
	}
	dl.scols_free_iter(itr);
	return rc;
}

/* JSON strings here need no escaping: no quote, backslash or control character */
static bool json_plain(const char *s)
{
	for (; *s; s++)
		if (*s < ' ' || *s > '~' || *s == '"' || *s == '\\')
			return false;
	return true;
}

/* Copy len bytes to dst; the end. p->buf has room (json_row reserved it). */
static char *put(char *dst, const char *s, size_t len)
{
	memcpy(dst, s, len);
	return dst + len;
}

/* libsmartcols' JSON value of a cell (len bytes) of the given type */
static char *json_value(char *o, const char *d, size_t len, int type)
{
	switch (type) {
	case SCOLS_JSON_NUMBER:
		return len ? put(o, d, len) : put(o, "null", 4);
	case SCOLS_JSON_BOOLEAN:
		return !len || *d == '0' || *d == 'N' || *d == 'n' ? put(o, "false", 5)
								   : put(o, "true", 4);
	default:
		if (!len)
			return put(o, "null", 4);
		*o++ = '"';
		o = put(o, d, len);
		*o++ = '"';
		return o;
	}
}

static int print_json(struct plain *p, FILE *f)
{
	const char *name = dl.scols_table_get_name(p->tb), *key;
	char prefix[MAXCOLS][80];	/* '         "key": ' */
	size_t plen[MAXCOLS];
	struct libscols_iter *itr;
	struct libscols_line *ln;
	int type[MAXCOLS], rc = 0;
	bool first = true;

	if (!name || !json_plain(name))
		return -EAGAIN;
	for (size_t i = 0; i < p->ncols; i++) {
		key = dl.scols_cell_get_data(dl.scols_column_get_header(p->cl[i]));
		type[i] = dl.scols_column_get_json_type(p->cl[i]);
		if (!key || !json_plain(key) || strlen(key) > sizeof(prefix[i]) - 16)
			return -EAGAIN;
		plen[i] = (size_t)snprintf(prefix[i], sizeof(prefix[i]), "         \"%s\": ", key);
	}
	itr = dl.scols_new_iter(SCOLS_ITER_FORWARD);
	if (!itr)
		return -ENOMEM;
	while (dl.scols_table_next_line(p->tb, itr, &ln) == 0) {
		for (size_t i = 0; i < p->ncols; i++) {
			if (!json_plain(cell(ln, i))) {
				dl.scols_free_iter(itr);
				return -EAGAIN;
			}
		}
	}
	dl.scols_reset_iter(itr, SCOLS_ITER_FORWARD);
	fprintf(f, "{\n   \"%s\": [\n", name);
	/* one object at a time into p->buf (room reserved once), then one fwrite */
	while (!rc && dl.scols_table_next_line(p->tb, itr, &ln) == 0) {
		const char *v[MAXCOLS];
		size_t len[MAXCOLS], need = 10, at;
		char *o;

		for (size_t i = 0; i < p->ncols; i++) {
			v[i] = cell(ln, i);
			len[i] = strlen(v[i]);
			need += plen[i] + len[i] + 8;	/* quotes or "false", ",\n" */
		}
		if (!reserve(p, need)) {
			rc = -ENOMEM;
			break;
		}
		o = first ? put(p->buf, "      {\n", 8) : put(p->buf, "      },{\n", 10);
		first = false;
		for (size_t i = 0; i < p->ncols; i++) {
			o = put(o, prefix[i], plen[i]);
			o = json_value(o, v[i], len[i], type[i]);
			o = i + 1 < p->ncols ? put(o, ",\n", 2) : put(o, "\n", 1);
		}
		at = (size_t)(o - p->buf);
		if (fwrite(p->buf, 1, at, f) != at)
			rc = -EIO;
	}
	fputs(first ? "\n" : "      }\n", f);	/* libsmartcols: an empty line for no rows */
	fputs("   ]\n}\n", f);
	dl.scols_free_iter(itr);
	return rc;
}

int cli_table_print_plain(struct libscols_table *tb, FILE *f)
{
	struct plain p = { .tb = tb, .ncols = dl.scols_table_get_ncols(tb) };
	int fd = fileno(f), rc;

	if (p.ncols == 0 || p.ncols > MAXCOLS || dl.scols_table_is_tree(tb) ||
	    (fd >= 0 && isatty(fd)))
		return -EAGAIN;
	for (size_t i = 0; i < p.ncols; i++)
		p.cl[i] = dl.scols_table_get_column(tb, i);
	rc = dl.scols_table_is_json(tb) ? print_json(&p, f) : print_table(&p, f);
	free(p.buf);
	return rc;
}
