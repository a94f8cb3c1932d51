/*
 * Tables, trees and JSON through libsmartcols, so that every listing has the
 * same -o/--output, -J/--json, -r/--raw, -n/--noheadings. libsmartcols is
 * opened by the first cli_table_init() (uclamp/dlib.h): a command without a
 * table does not load it.
 */
#ifndef UCLAMP_OUTPUT_H
#define UCLAMP_OUTPUT_H

#include <stdbool.h>
#include <stdio.h>

#include <libsmartcols.h>

#include "uclamp/dlib.h"

enum cli_col_type { CLI_COL_STR, CLI_COL_NUM, CLI_COL_BOOL };

struct cli_col {
	const char *name;	/* upper case; JSON key = lower case */
	double whint;
	int scols_flags;	/* SCOLS_FL_RIGHT, SCOLS_FL_TREE, ... */
	enum cli_col_type type;
	const char *help;
};

/*
 * A table's columns are written once, as a list macro that takes one macro
 * per kind of column, and expanded twice: into the COL_<ID> enum and into
 * the struct cli_col array, so the two cannot disagree:
 *
 *   #define COLUMNS(NUM, TEXT, FLAG) \
 *	NUM(PID, 5, "process ID") \
 *	TEXT(COMM, 0.2, 0, "thread name")
 *   enum { COLUMNS(CLI_COL_ID, CLI_COL_ID, CLI_COL_ID) NCOLS };
 *   static const struct cli_col cols[] = { COLUMNS(CLI_COL_NUMBER, CLI_COL_TEXT, CLI_COL_FLAG) };
 *
 * NUM is a number (right-aligned), TEXT a string with libsmartcols flags,
 * FLAG a boolean; the name shown is the ID.
 */
#define CLI_COL_ID(id, ...) COL_##id,
#define CLI_COL_NUMBER(id, whint, help) { #id, whint, SCOLS_FL_RIGHT, CLI_COL_NUM, help },
#define CLI_COL_TEXT(id, whint, flags, help) { #id, whint, flags, CLI_COL_STR, help },
#define CLI_COL_FLAG(id, whint, help) { #id, whint, 0, CLI_COL_BOOL, help },

/* libsmartcols' functions (output.c, output_plain.c): cli_scols.f.scols_*() */
extern UC_DLIB_UNION(cli_scols_fns, UC_SCOLS_FNS) cli_scols;

struct cli_out_opts {
	bool json, raw, noheadings;
	const char *columns;	/* -o list, "+LIST" appends to the defaults; NULL = defaults */
};

struct cli_table {
	struct libscols_table *tb;
	const struct cli_col *cols;
	size_t ncols;
	int map[64];		/* column id -> index in the table, -1 when not shown */
};

/* defaults: comma-separated column names. -EINVAL for an unknown name in
 * opts->columns (*bad then points at it, up to the next comma). */
int cli_table_init(struct cli_table *t, const char *json_name, const struct cli_col *cols,
		   size_t ncols, const char *defaults, const struct cli_out_opts *opts,
		   const char **bad);
struct libscols_line *cli_table_line(struct cli_table *t, struct libscols_line *parent);
/* Set column id's cell (ignored when the column is not shown). NULL/"" = empty (JSON null). */
int cli_table_set(struct cli_table *t, struct libscols_line *ln, int id, const char *val);
int cli_table_setf(struct cli_table *t, struct libscols_line *ln, int id, const char *fmt, ...)
	 __attribute__((format(printf, 4, 5)));
/* A number, as "%ld" would print it, without the cost of printf. */
int cli_table_set_int(struct cli_table *t, struct libscols_line *ln, int id, long v);
/* Through cli_table_print_plain() when it can, else libsmartcols. */
int cli_table_print(struct cli_table *t, FILE *f);
/* As on a terminal `width` columns wide, whatever f is (a live view's frame
 * in memory): the cells of SCOLS_FL_TRUNC columns cut to fit. */
int cli_table_print_width(struct cli_table *t, FILE *f, size_t width);
/* libsmartcols' bytes for a flat, non-JSON table of printable ASCII cells
 * printed to a non-terminal, much faster (src/cmd/output_plain.c);
 * -EAGAIN for any other table. */
int cli_table_print_plain(struct libscols_table *tb, FILE *f);
void cli_table_free(struct cli_table *t);

#endif
