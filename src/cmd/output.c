/* Tables, trees and JSON through libsmartcols (see output.h). */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/output.h"
#include "uclamp/escape.h"

static const char *const cli_scols_names[] = { UC_SCOLS_FNS(UC_DLIB_NAME_) };
union cli_scols_fns cli_scols;
#define dl cli_scols.f

static int col_by_name(const struct cli_col *cols, size_t ncols, const char *name, size_t len)
{
	for (size_t i = 0; i < ncols; i++)
		if (strlen(cols[i].name) == len && !strncasecmp(cols[i].name, name, len))
			return (int)i;
	return -1;
}

/* Append the columns named in list (comma-separated) to ids. */
static int add_list(const struct cli_col *cols, size_t ncols, const char *list, int *ids,
		    size_t *nids, const char **bad)
{
	const char *s = list;

	while (*s) {
		size_t len = strcspn(s, ",");
		int id;

		if (len) {
			id = col_by_name(cols, ncols, s, len);
			if (id < 0) {
				if (bad)
					*bad = s;
				return -EINVAL;
			}
			if (*nids >= 64)
				return -E2BIG;
			ids[(*nids)++] = id;
		}
		s += len;
		if (*s == ',')
			s++;
	}
	return 0;
}

/*
 * On a terminal, SCOLS_FL_WRAP cuts a cell at the column's width, mid-word;
 * these cut it at the last space that fits. The column's narrowest: its
 * longest word, or its share of the terminal (the width hint) when the cell
 * is longer than that.
 */
static size_t wrap_chunksize(const struct libscols_column *cl, const char *data, void *u)
{
	struct libscols_table *tb = dl.scols_column_get_table(cl);
	size_t share = tb ? (size_t)(dl.scols_column_get_whint(cl) *
				     (double)dl.scols_table_get_termwidth(tb)) : 0;
	size_t max = data ? strlen(data) : 0;

	(void)u;
	if (max > share)
		max = share;
	while (data && *data) {
		size_t n = strcspn(data, " ");

		if (n > max)
			max = n;
		data += n;
		data += strspn(data, " ");
	}
	return max;
}

static char *wrap_nextchunk(const struct libscols_column *cl, char *data, void *u)
{
	size_t width = dl.scols_column_get_width(cl), len;
	char *brk = NULL;

	(void)u;
	if (!data || !width || (len = strlen(data)) <= width)
		return NULL;
	for (size_t i = 1; i <= width; i++)
		if (data[i] == ' ')
			brk = data + i;
	if (!brk)	/* a word longer than the column: cut after it */
		brk = strchr(data + width, ' ');
	if (!brk)
		return NULL;
	*brk = '\0';
	return brk + 1;
}

int cli_table_init(struct cli_table *t, const char *json_name, const struct cli_col *cols,
		   size_t ncols, const char *defaults, const struct cli_out_opts *opts,
		   const char **bad)
{
	int ids[64];
	size_t nids = 0;
	int rc;

	memset(t, 0, sizeof(*t));
	if (ncols > 64)
		return -E2BIG;
	for (size_t i = 0; i < 64; i++)
		t->map[i] = -1;
	t->cols = cols;
	t->ncols = ncols;
	if (opts->columns && opts->columns[0] != '+') {
		rc = add_list(cols, ncols, opts->columns, ids, &nids, bad);
	} else {
		rc = add_list(cols, ncols, defaults, ids, &nids, bad);
		if (!rc && opts->columns)
			rc = add_list(cols, ncols, opts->columns + 1, ids, &nids, bad);
	}
	if (rc)
		return rc;
	if (nids == 0) {
		if (bad)
			*bad = opts->columns ? opts->columns : "";
		return -EINVAL;
	}

	rc = UC_DLIB_LOAD(UC_DLIB_SMARTCOLS, cli_scols);
	if (rc)
		return rc;
	t->tb = dl.scols_new_table();
	if (!t->tb)
		return -ENOMEM;
	dl.scols_table_set_name(t->tb, json_name);
	dl.scols_table_enable_json(t->tb, opts->json);
	dl.scols_table_enable_raw(t->tb, opts->raw);
	dl.scols_table_enable_noheadings(t->tb, opts->noheadings);

	for (size_t i = 0; i < nids; i++) {
		const struct cli_col *c = &cols[ids[i]];
		struct libscols_column *cl;
		char name[64];
		size_t k;

		if (t->map[ids[i]] >= 0)
			continue;	/* listed twice */
		/* JSON keys are the lower-case column names */
		for (k = 0; c->name[k] && k < sizeof(name) - 1; k++)
			name[k] = opts->json ? (char)tolower((unsigned char)c->name[k])
					     : c->name[k];
		name[k] = '\0';
		cl = dl.scols_table_new_column(t->tb, name, c->whint, c->scols_flags);
		if (!cl) {
			cli_table_free(t);	/* callers only free what init returned 0 for */
			return -ENOMEM;
		}
		if (c->type == CLI_COL_NUM)
			dl.scols_column_set_json_type(cl, SCOLS_JSON_NUMBER);
		else if (c->type == CLI_COL_BOOL)
			dl.scols_column_set_json_type(cl, SCOLS_JSON_BOOLEAN);
		t->map[ids[i]] = (int)dl.scols_table_get_ncols(t->tb) - 1;
	}
	return 0;
}

struct libscols_line *cli_table_line(struct cli_table *t, struct libscols_line *parent)
{
	return dl.scols_table_new_line(t->tb, parent);
}

/* A JSON number: -?(0|[1-9][0-9]*)(.[0-9]+)? (no exponents: we never print them). */
static bool is_json_number(const char *s)
{
	if (*s == '-')
		s++;
	if (*s == '0')
		s++;
	else if (*s >= '1' && *s <= '9')
		while (*s >= '0' && *s <= '9')
			s++;
	else
		return false;
	if (*s == '.') {
		s++;
		if (*s < '0' || *s > '9')
			return false;
		while (*s >= '0' && *s <= '9')
			s++;
	}
	return *s == '\0';
}

int cli_table_set(struct cli_table *t, struct libscols_line *ln, int id, const char *val)
{
	if (id < 0 || (size_t)id >= t->ncols || t->map[id] < 0 || !ln)
		return 0;
	if (!val || !*val)
		return 0;
	/*
	 * libsmartcols prints a number column's cells unquoted, so one "max" or
	 * "default" would make the JSON invalid: such a column becomes a string
	 * column (valid JSON beats a consistent type).
	 */
	if (t->cols[id].type == CLI_COL_NUM && !is_json_number(val)) {
		struct libscols_column *cl = dl.scols_table_get_column(t->tb, (size_t)t->map[id]);

		if (cl)
			dl.scols_column_set_json_type(cl, SCOLS_JSON_STRING);
	}
	/* libsmartcols' JSON copies bytes >= 0x80 as they are: names from
	 * /proc and cgroupfs need not be UTF-8, JSON must be */
	if (dl.scols_table_is_json(t->tb) && !uc_utf8_valid(val)) {
		size_t n = uc_utf8_sanitize(val, NULL, 0) + 1;
		char *v = malloc(n);
		int rc;

		if (!v)
			return -ENOMEM;
		uc_utf8_sanitize(val, v, n);
		rc = dl.scols_line_set_data(ln, (size_t)t->map[id], v);
		free(v);
		return rc;
	}
	return dl.scols_line_set_data(ln, (size_t)t->map[id], val);
}

int cli_table_setf(struct cli_table *t, struct libscols_line *ln, int id, const char *fmt, ...)
{
	char buf[4096];
	va_list ap;

	if (id < 0 || (size_t)id >= t->ncols || t->map[id] < 0)
		return 0;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return cli_table_set(t, ln, id, buf);
}

int cli_table_set_int(struct cli_table *t, struct libscols_line *ln, int id, long v)
{
	char buf[24], *e = buf + sizeof(buf) - 1;
	unsigned long u = v < 0 ? 0UL - (unsigned long)v : (unsigned long)v;

	/* no vsnprintf: listings set tens of thousands of numbers */
	*e = '\0';
	do
		*--e = (char)('0' + u % 10);
	while (u /= 10);
	if (v < 0)
		*--e = '-';
	return cli_table_set(t, ln, id, e);
}

/* Cut cell data of a SCOLS_FL_TRUNC column to width w, ending in "..."; in a
 * tree column after the tree's two columns per level. */
static void cut_column(struct libscols_table *tb, size_t col, size_t w, bool tree)
{
	struct libscols_iter *it = dl.scols_new_iter(SCOLS_ITER_FORWARD);
	struct libscols_line *ln;
	char buf[512];

	while (it && !dl.scols_table_next_line(tb, it, &ln)) {
		struct libscols_cell *ce = dl.scols_line_get_cell(ln, col);
		const char *d = ce ? dl.scols_cell_get_data(ce) : NULL;
		size_t room = w;

		for (struct libscols_line *p = ln; tree && (p = dl.scols_line_get_parent(p));)
			room = room > 2 ? room - 2 : 0;
		if (!d || strlen(d) <= room || room <= 3 || room >= sizeof(buf))
			continue;
		snprintf(buf, sizeof(buf), "%.*s...", (int)(room - 3), d);
		dl.scols_cell_set_data(ce, buf);
	}
	dl.scols_free_iter(it);
}

/*
 * On a terminal libsmartcols cuts a SCOLS_FL_TRUNC cell (a tree row or a
 * name that stays one line) silently: lay the table out once without
 * printing it, then cut each such cell longer than its column to end in
 * "...", so that the reader sees it was cut.
 */
static void mark_cuts(struct libscols_table *tb, FILE *f)
{
	size_t n = dl.scols_table_get_ncols(tb);
	bool any = false;
	FILE *null;

	for (size_t i = 0; i < n; i++)
		any |= dl.scols_column_is_trunc(dl.scols_table_get_column(tb, i)) != 0;
	if (!any || !(null = fopen("/dev/null", "we")))
		return;
	dl.scols_table_set_termforce(tb, SCOLS_TERMFORCE_ALWAYS);
	dl.scols_table_set_termwidth(tb, dl.scols_table_get_termwidth(tb));
	dl.scols_table_set_stream(tb, null);
	dl.scols_print_table(tb);
	fclose(null);
	dl.scols_table_set_stream(tb, f);
	for (size_t i = 0; i < n; i++) {
		struct libscols_column *cl = dl.scols_table_get_column(tb, i);

		if (dl.scols_column_is_trunc(cl))
			cut_column(tb, i, dl.scols_column_get_width(cl),
				   dl.scols_column_is_tree(cl));
	}
}

int cli_table_print(struct cli_table *t, FILE *f)
{
	int rc = cli_table_print_plain(t->tb, f);

	if (rc != -EAGAIN)
		return rc;
	dl.scols_table_set_stream(t->tb, f);
	for (size_t i = 0; isatty(fileno(f)) && i < dl.scols_table_get_ncols(t->tb); i++) {
		struct libscols_column *cl = dl.scols_table_get_column(t->tb, i);

		if (dl.scols_column_is_wrap(cl))
			dl.scols_column_set_wrapfunc(cl, wrap_chunksize, wrap_nextchunk, NULL);
	}
	if (isatty(fileno(f)))
		mark_cuts(t->tb, f);
	return dl.scols_print_table(t->tb);
}

int cli_table_print_width(struct cli_table *t, FILE *f, size_t width)
{
	dl.scols_table_set_stream(t->tb, f);
	dl.scols_table_set_termforce(t->tb, SCOLS_TERMFORCE_ALWAYS);
	dl.scols_table_set_termwidth(t->tb, width);
	return dl.scols_print_table(t->tb);
}

void cli_table_free(struct cli_table *t)
{
	if (t->tb)
		dl.scols_unref_table(t->tb);
	t->tb = NULL;
}
