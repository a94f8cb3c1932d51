/*
 * The one JSON writer for everything that is not a libsmartcols table
 * (status -J, apply -J, run reports). It writes as it goes: no tree is built.
 * Strings are escaped and invalid UTF-8 (a comm can hold any byte) becomes
 * U+FFFD, so the output always parses.
 */
#ifndef UCLAMP_JSON_H
#define UCLAMP_JSON_H

#include <stdbool.h>
#include <stdio.h>

#define CLI_JSON_MAX_DEPTH 16

struct cli_json {
	FILE *f;
	int indent;		/* spaces per level for multi-line containers */
	int depth;
	bool first;		/* no member yet in the open container */
	int inline_from;	/* depth from which containers are one line; 0 = none */
};

/* Start writing the top object to f with 'indent' spaces per level; 0: on one line. */
void cli_json_begin(struct cli_json *j, FILE *f, int indent);
/* Close the top object and end its line. */
void cli_json_end(struct cli_json *j);

/*
 * Open an object ('{') or array ('[') under key (NULL inside an array or at
 * the top). An inline container and everything in it stays on one line:
 * {"a": 1, "b": [2, 3]}.
 */
void cli_json_open(struct cli_json *j, const char *key, char c, bool one_line);
void cli_json_close(struct cli_json *j, char c);

void cli_json_str(struct cli_json *j, const char *key, const char *val);	/* NULL = null */
void cli_json_int(struct cli_json *j, const char *key, long long v);
void cli_json_num(struct cli_json *j, const char *key, long long v);	/* <0 = null */
void cli_json_double(struct cli_json *j, const char *key, double v);	/* inf/nan = null */
void cli_json_bool(struct cli_json *j, const char *key, bool v);
void cli_json_tri(struct cli_json *j, const char *key, int v);	/* >0 true, 0 false, <0 null */
/* An array of the first n strings of char v[][size] under key. */
#define cli_json_strs(j, key, v, n) cli_json_strv(j, key, (v)[0], n, sizeof((v)[0]))
void cli_json_strv(struct cli_json *j, const char *key, const char *v, size_t n, size_t size);

/* A JSON string literal (quotes included) on f. */
void cli_json_string(FILE *f, const char *s);

#endif
