/*
 * test_output.c: the libsmartcols wrapper (src/cmd/output.c).
 *
 * Column selection (defaults, -o LIST, -o +LIST, unknown names), and the
 * printed text in table, raw, no-headings and JSON modes, captured through
 * open_memstream().
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/output.h"

enum { C_PID, C_COMM, C_UTIL_MIN, C_UTIL_MAX, C_RESET_ON_FORK, C_NAME };

static const struct cli_col cols[] = {
	[C_PID] = { "PID", 5, SCOLS_FL_RIGHT, CLI_COL_NUM, "process ID" },
	[C_COMM] = { "COMM", 0.3, 0, CLI_COL_STR, "command name" },
	[C_UTIL_MIN] = { "UTIL_MIN", 5, SCOLS_FL_RIGHT, CLI_COL_NUM, "requested min" },
	[C_UTIL_MAX] = { "UTIL_MAX", 5, SCOLS_FL_RIGHT, CLI_COL_NUM, "requested max" },
	[C_RESET_ON_FORK] = { "RESET_ON_FORK", 3, 0, CLI_COL_BOOL, "reset on fork" },
	[C_NAME] = { "NAME", 0.3, SCOLS_FL_TREE, CLI_COL_STR, "tree column" },
};
#define NCOLS (sizeof(cols) / sizeof(cols[0]))
#define DEFAULTS "PID,COMM,UTIL_MIN,UTIL_MAX"

static char *printed;

static int teardown(void **state)
{
	(void)state;
	free(printed);
	printed = NULL;
	return 0;
}

/* Print t into a string (kept in 'printed', freed by teardown). */
static const char *print(struct cli_table *t)
{
	size_t n = 0;
	FILE *f;

	free(printed);
	printed = NULL;
	f = open_memstream(&printed, &n);
	assert_non_null(f);
	assert_int_equal(cli_table_print(t, f), 0);
	assert_int_equal(fclose(f), 0);
	return printed;
}

/* Two rows: pid 12 "bash x" 100/800 rof 0; pid 1234 "sleep" (no min) 1024 rof 1. */
static void fill(struct cli_table *t)
{
	struct libscols_line *ln = cli_table_line(t, NULL);

	assert_non_null(ln);
	assert_int_equal(cli_table_setf(t, ln, C_PID, "%d", 12), 0);
	assert_int_equal(cli_table_set(t, ln, C_COMM, "bash x"), 0);
	assert_int_equal(cli_table_setf(t, ln, C_UTIL_MIN, "%d", 100), 0);
	assert_int_equal(cli_table_set(t, ln, C_UTIL_MAX, "800"), 0);
	assert_int_equal(cli_table_set(t, ln, C_RESET_ON_FORK, "0"), 0);
	ln = cli_table_line(t, NULL);
	assert_non_null(ln);
	assert_int_equal(cli_table_setf(t, ln, C_PID, "%d", 1234), 0);
	assert_int_equal(cli_table_set(t, ln, C_COMM, "sleep"), 0);
	assert_int_equal(cli_table_set(t, ln, C_UTIL_MIN, ""), 0);	/* empty: JSON null */
	assert_int_equal(cli_table_set(t, ln, C_UTIL_MAX, "1024"), 0);
	assert_int_equal(cli_table_set(t, ln, C_RESET_ON_FORK, "1"), 0);
}

static void init_ok(struct cli_table *t, const struct cli_out_opts *o)
{
	const char *bad = NULL;

	assert_int_equal(cli_table_init(t, "tasks", cols, NCOLS, DEFAULTS, o, &bad), 0);
	assert_null(bad);
	assert_non_null(t->tb);
}

/* init_ok, then its first (top-level) line */
static struct libscols_line *init_first_line(struct cli_table *t, const struct cli_out_opts *o)
{
	init_ok(t, o);
	return cli_table_line(t, NULL);
}

/* -o and the flags: each column's position (-1 hidden), fill()'s rows printed (raw, JSON) */
static const struct layout_case {
	struct cli_out_opts o;
	int map[C_NAME + 1];
	const char *printed;
} layouts[] = {
	/* raw: single spaces, spaces inside a cell escaped */
	{ { .raw = true }, { 0, 1, 2, 3, -1, -1 },
	  "PID COMM UTIL_MIN UTIL_MAX\n12 bash\\x20x 100 800\n1234 sleep  1024\n" },
	{ { .raw = true, .noheadings = true }, { 0, 1, 2, 3, -1, -1 },
	  "12 bash\\x20x 100 800\n1234 sleep  1024\n" },
	/* -o LIST replaces the defaults, in the order given; names are case-insensitive;
	 * cells of hidden columns are ignored */
	{ { .raw = true, .columns = "util_max,Pid,RESET_ON_FORK" }, { 1, -1, -1, 0, 2, -1 },
	  "UTIL_MAX PID RESET_ON_FORK\n800 12 0\n1024 1234 1\n" },
	/* -o +LIST appends to the defaults; a column listed twice is shown once */
	{ { .raw = true, .columns = "+RESET_ON_FORK,pid" }, { 0, 1, 2, 3, 4, -1 },
	  "PID COMM UTIL_MIN UTIL_MAX RESET_ON_FORK\n12 bash\\x20x 100 800 0\n"
	  "1234 sleep  1024 1\n" },
	/* "+" alone: the defaults */
	{ { .raw = true, .columns = "+" }, { 0, 1, 2, 3, -1, -1 },
	  "PID COMM UTIL_MIN UTIL_MAX\n12 bash\\x20x 100 800\n1234 sleep  1024\n" },
	/* JSON: lower-case keys, numbers and booleans unquoted, empty = null */
	{ { .json = true, .columns = "+RESET_ON_FORK" }, { 0, 1, 2, 3, 4, -1 },
	  "{\n"
	  "   \"tasks\": [\n"
	  "      {\n"
	  "         \"pid\": 12,\n"
	  "         \"comm\": \"bash x\",\n"
	  "         \"util_min\": 100,\n"
	  "         \"util_max\": 800,\n"
	  "         \"reset_on_fork\": false\n"
	  "      },{\n"
	  "         \"pid\": 1234,\n"
	  "         \"comm\": \"sleep\",\n"
	  "         \"util_min\": null,\n"
	  "         \"util_max\": 1024,\n"
	  "         \"reset_on_fork\": true\n"
	  "      }\n"
	  "   ]\n"
	  "}\n" },
	/* the JSON keys keep the column names as given by -o (lower-cased) */
	{ { .json = true, .noheadings = true, .columns = "comm" }, { -1, 0, -1, -1, -1, -1 },
	  "{\n"
	  "   \"tasks\": [\n"
	  "      {\n"
	  "         \"comm\": \"bash x\"\n"
	  "      },{\n"
	  "         \"comm\": \"sleep\"\n"
	  "      }\n"
	  "   ]\n"
	  "}\n" },
};

static void test_layouts(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(layouts) / sizeof(layouts[0]); i++) {
		const struct layout_case *c = &layouts[i];
		const char *cols_opt = c->o.columns ? c->o.columns : "(defaults)";
		struct cli_table t;
		int shown = 0;

		init_ok(&t, &c->o);
		for (int col = 0; col <= C_NAME; col++) {
			if (t.map[col] != c->map[col])
				fail_msg("-o %s: column %d at %d, expected %d", cols_opt, col,
					 t.map[col], c->map[col]);
			shown += c->map[col] >= 0;
		}
		assert_int_equal(scols_table_get_ncols(t.tb), shown);
		fill(&t);
		if (strcmp(print(&t), c->printed))
			fail_msg("-o %s%s:\n%s\nexpected\n%s", cols_opt,
				 c->o.noheadings ? " -n" : "", printed, c->printed);
		cli_table_free(&t);
		assert_null(t.tb);
	}
}

static void test_default_columns_table(void **state)
{
	struct cli_out_opts o = { 0 };
	struct cli_table t;
	const char *s;

	(void)state;
	init_ok(&t, &o);
	fill(&t);
	s = print(&t);
	/* a header line, then one line per row, numbers right-aligned */
	assert_int_equal(strncmp(s, "  PID COMM", 10), 0);
	assert_non_null(strstr(s, "UTIL_MIN UTIL_MAX\n"));
	assert_non_null(strstr(s, "\n   12 bash x "));
	assert_non_null(strstr(s, "\n 1234 sleep "));
	assert_null(strstr(s, "RESET_ON_FORK"));
	cli_table_free(&t);
}

struct bad_case {
	const char *columns;
	size_t bad_at;		/* offset of the bad name in 'columns' */
	const char *bad_name;	/* up to the next comma */
};

static const struct bad_case bad_cases[] = {
	{ "BOGUS", 0, "BOGUS" },
	{ "PID,BOGUS,COMM", 4, "BOGUS" },
	{ "PID,COMM,BOGUS", 9, "BOGUS" },
	{ "+BOGUS", 1, "BOGUS" },
	{ "+RESET_ON_FORK,PI", 15, "PI" },
	{ "PID,PIDX", 4, "PIDX" },
	{ "PID, COMM", 4, " COMM" },
	{ "UTIL", 0, "UTIL" },
};

static void test_unknown_column(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
		const struct bad_case *c = &bad_cases[i];
		struct cli_out_opts o = { .columns = c->columns };
		struct cli_table t;
		const char *bad = NULL;
		int rc = cli_table_init(&t, "tasks", cols, NCOLS, DEFAULTS, &o, &bad);

		if (rc != -EINVAL)
			fail_msg("-o '%s': rc %d, expected -EINVAL", c->columns, rc);
		assert_ptr_equal(bad, c->columns + c->bad_at);
		assert_int_equal(strcspn(bad, ","), strlen(c->bad_name));
		assert_int_equal(strncmp(bad, c->bad_name, strlen(c->bad_name)), 0);
		assert_null(t.tb);	/* nothing to free */
		cli_table_free(&t);
	}
}

/* An empty list names no column at all. */
static void test_empty_column_list(void **state)
{
	struct cli_out_opts o = { .columns = "" };
	struct cli_table t;
	const char *bad = NULL;

	(void)state;
	assert_int_equal(cli_table_init(&t, "tasks", cols, NCOLS, DEFAULTS, &o, &bad), -EINVAL);
	assert_non_null(bad);
	assert_string_equal(bad, "");
	o.columns = ",";
	assert_int_equal(cli_table_init(&t, "tasks", cols, NCOLS, DEFAULTS, &o, NULL), -EINVAL);
}

static void test_too_many_columns(void **state)
{
	static struct cli_col many[65];
	struct cli_out_opts o = { 0 };
	struct cli_table t;

	(void)state;
	for (size_t i = 0; i < 65; i++)
		many[i] = (struct cli_col){ "X", 1, 0, CLI_COL_STR, "x" };
	assert_int_equal(cli_table_init(&t, "x", many, 65, "X", &o, NULL), -E2BIG);
	assert_null(t.tb);
}

/* JSON strings are escaped; a number column that gets a word ("default")
 * must still print valid JSON (the word quoted). */
static void test_json_escaping_and_words_in_numbers(void **state)
{
	struct cli_out_opts o = { .json = true, .columns = "PID,COMM,UTIL_MIN" };
	struct cli_table t;
	struct libscols_line *ln;
	const char *s;

	(void)state;
	ln = init_first_line(&t, &o);
	cli_table_set(&t, ln, C_PID, "7");
	cli_table_set(&t, ln, C_COMM, "a\"b\\c");
	cli_table_set(&t, ln, C_UTIL_MIN, "default");
	ln = cli_table_line(&t, NULL);
	cli_table_set(&t, ln, C_PID, "8");
	cli_table_set(&t, ln, C_UTIL_MIN, "512");
	s = print(&t);
	assert_non_null(strstr(s, "\"pid\": 7,"));
	assert_non_null(strstr(s, "\"comm\": \"a\\\"b\\\\c\""));
	assert_non_null(strstr(s, "\"util_min\": \"default\""));
	assert_null(strstr(s, ": default"));
	assert_non_null(strstr(s, "\"comm\": null"));
	cli_table_free(&t);

	/* negative and decimal numbers stay numbers */
	ln = init_first_line(&t, &o);
	cli_table_set(&t, ln, C_PID, "-1");
	cli_table_set(&t, ln, C_UTIL_MIN, "20.50");
	s = print(&t);
	assert_non_null(strstr(s, "\"pid\": -1,"));
	assert_non_null(strstr(s, "\"util_min\": 20.50"));
	cli_table_free(&t);

	/* things that look numeric but are not JSON numbers are quoted */
	static const char *const not_numbers[] = {
		"0512", "1.", ".5", "-", "1e3", "12%", "max", "+1",
	};
	for (size_t i = 0; i < sizeof(not_numbers) / sizeof(not_numbers[0]); i++) {
		char want[32];

		ln = init_first_line(&t, &o);
		cli_table_set(&t, ln, C_UTIL_MIN, not_numbers[i]);
		snprintf(want, sizeof(want), "\"util_min\": \"%s\"", not_numbers[i]);
		s = print(&t);
		if (!strstr(s, want))
			fail_msg("'%s' printed as:\n%s", not_numbers[i], s);
		cli_table_free(&t);
	}
}

/* Setting cells that are not shown, or with bad ids, is harmless. */
static void test_set_ignores_hidden_and_bad_ids(void **state)
{
	struct cli_out_opts o = { .raw = true, .noheadings = true, .columns = "PID" };
	struct cli_table t;
	struct libscols_line *ln;

	(void)state;
	ln = init_first_line(&t, &o);
	assert_int_equal(cli_table_set(&t, ln, C_COMM, "hidden"), 0);
	assert_int_equal(cli_table_set(&t, ln, -1, "x"), 0);
	assert_int_equal(cli_table_set(&t, ln, (int)NCOLS, "x"), 0);
	assert_int_equal(cli_table_set(&t, ln, 63, "x"), 0);
	assert_int_equal(cli_table_set(&t, NULL, C_PID, "x"), 0);
	assert_int_equal(cli_table_setf(&t, ln, C_COMM, "%s", "hidden"), 0);
	assert_int_equal(cli_table_setf(&t, ln, C_PID, "%d-%s", 5, "x"), 0);
	assert_string_equal(print(&t), "5-x\n");
	cli_table_free(&t);
}

/* Tree lines: children print under their parent (and nest in JSON). */
static void test_tree(void **state)
{
	struct cli_out_opts o = { .json = true, .columns = "NAME,UTIL_MAX" };
	struct cli_table t;
	struct libscols_line *root, *child;
	const char *s;

	(void)state;
	root = init_first_line(&t, &o);
	cli_table_set(&t, root, C_NAME, "system.slice");
	cli_table_set(&t, root, C_UTIL_MAX, "1024");
	child = cli_table_line(&t, root);
	assert_non_null(child);
	cli_table_set(&t, child, C_NAME, "foo.service");
	cli_table_set(&t, child, C_UTIL_MAX, "300");
	s = print(&t);
	assert_non_null(strstr(s, "\"name\": \"system.slice\""));
	assert_non_null(strstr(s, "\"children\": ["));
	assert_true(strstr(s, "\"children\"") < strstr(s, "\"name\": \"foo.service\""));
	assert_non_null(strstr(s, "\"util_max\": 300"));
	cli_table_free(&t);

	o.json = false;
	o.noheadings = true;
	root = init_first_line(&t, &o);
	cli_table_set(&t, root, C_NAME, "a");
	child = cli_table_line(&t, root);
	cli_table_set(&t, child, C_NAME, "b");
	s = print(&t);
	assert_non_null(strstr(s, "a"));
	assert_non_null(strstr(s, "`-b"));
	cli_table_free(&t);
}

static char *scols_bytes(struct libscols_table *tb, bool plain)
{
	char *out = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&out, &n);

	assert_non_null(f);
	if (plain) {
		assert_int_equal(cli_table_print_plain(tb, f), 0);
	} else {
		scols_table_set_stream(tb, f);
		assert_int_equal(scols_print_table(tb), 0);
	}
	assert_int_equal(fclose(f), 0);
	return out;
}

/* The fast renderer prints libsmartcols' bytes: 1,000 random tables (columns,
 * alignment, empty and long cells, blanks) in every flat mode and JSON. */
static void test_plain_equals_libsmartcols(void **state)
{
	static const char *const words[] = {
		"", "0", "7", "1024", "other", "a b", "x", "sleep", "kworker/0:1-events", "-",
		"yes", "no", "a-rather-long-cell-value-wider-than-any-header-here",
	};
	const size_t nw = sizeof(words) / sizeof(words[0]);

	(void)state;
	srand(11);
	for (int round = 0; round < 1000; round++) {
		struct cli_out_opts o = { .raw = round & 1,
					  .noheadings = round & 2,
					  .json = round % 5 == 4 };
		char list[256] = "";
		struct cli_table t;
		char *a, *b;
		size_t ncol = 1 + (size_t)rand() % 5;

		for (size_t c = 0; c < ncol; c++) {
			strcat(list, c ? "," : "");
			strcat(list, cols[(size_t)rand() % C_NAME].name);
		}
		o.columns = list;
		init_ok(&t, &o);
		for (int r = rand() % 30; r > 0; r--) {
			struct libscols_line *ln = cli_table_line(&t, NULL);

			for (int id = 0; id < C_NAME; id++) {
				const char *w = words[(size_t)rand() % nw];

				if (o.raw && strchr(w, ' '))
					/* raw output escapes blanks: libsmartcols' job */
					w = "ab";
				cli_table_set(&t, ln, id, w);
			}
		}
		a = scols_bytes(t.tb, true);
		b = scols_bytes(t.tb, false);
		if (strcmp(a, b)) {
			size_t k = 0, line = 1;

			for (; a[k] && a[k] == b[k]; k++)
				line += a[k] == '\n';
			fail_msg("round %d (-o %s%s%s): line %zu differs:\nplain:         %.80s\n"
				 "libsmartcols:  %.80s",
				 round, list, o.raw ? " -r" : "", o.noheadings ? " -n" : "", line,
				 strrchr(a, '\n') && k ? a + k : a, b + k);
		}
		free(a);
		free(b);
		cli_table_free(&t);
	}
}

static void test_set_int(void **state)
{
	struct cli_out_opts o = { .raw = true, .columns = "PID" };
	const long v[] = { 0, 7, -1, 1024, 4194304, -2147483648L, 9223372036854775807L };
	char want[256] = "PID\n", one[32];
	struct cli_table t;

	(void)state;
	init_ok(&t, &o);
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		assert_int_equal(cli_table_set_int(&t, cli_table_line(&t, NULL), C_PID, v[i]), 0);
		snprintf(one, sizeof(one), "%ld\n", v[i]);
		strcat(want, one);
	}
	assert_string_equal(print(&t), want);
	cli_table_free(&t);
}

/* Everything else is libsmartcols' to print. */
static void test_plain_declines(void **state)
{
	struct cli_out_opts json = { .json = true }, raw = { .raw = true }, table = { .raw = false };
	struct cli_table t;
	struct libscols_line *ln;
	FILE *f = fopen("/dev/null", "w");

	(void)state;
	assert_non_null(f);
	init_ok(&t, &json);
	fill(&t);
	assert_int_equal(cli_table_print_plain(t.tb, f), 0);
	cli_table_set(&t, cli_table_line(&t, NULL), C_COMM, "a\"b");	/* JSON escaping */
	assert_int_equal(cli_table_print_plain(t.tb, f), -EAGAIN);
	cli_table_free(&t);
	init_ok(&t, &raw);
	fill(&t);	/* "bash x": a blank in raw output */
	assert_int_equal(cli_table_print_plain(t.tb, f), -EAGAIN);
	cli_table_free(&t);
	init_ok(&t, &table);
	fill(&t);
	assert_int_equal(cli_table_print_plain(t.tb, f), 0);
	ln = cli_table_line(&t, NULL);
	cli_table_set(&t, ln, C_COMM, "tab\there");	/* a control character */
	assert_int_equal(cli_table_print_plain(t.tb, f), -EAGAIN);
	cli_table_set(&t, ln, C_COMM, "caf\xc3\xa9");	/* not ASCII */
	assert_int_equal(cli_table_print_plain(t.tb, f), -EAGAIN);
	cli_table_free(&t);
	fclose(f);
}

#define T(f) cmocka_unit_test_teardown(f, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_layouts),
		T(test_default_columns_table),
		T(test_unknown_column),
		T(test_empty_column_list),
		T(test_too_many_columns),
		T(test_json_escaping_and_words_in_numbers),
		T(test_set_ignores_hidden_and_bad_ids),
		T(test_tree),
		T(test_plain_equals_libsmartcols),
		T(test_plain_declines),
		T(test_set_int),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
