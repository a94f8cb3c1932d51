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

#define UC_JSON_MAX_DEPTH 16

struct uc_json {
	FILE *f;
	int indent;		/* spaces per level for multi-line containers */
	int depth;
	bool first;		/* no member yet in the open container */
	int inline_from;	/* depth from which containers are one line; 0 = none */
};

/* Start writing to f with 'indent' spaces per level. */
void uc_json_init(struct uc_json *j, FILE *f, int indent);

/*
 * Open an object ('{') or array ('[') under key (NULL inside an array or at
 * the top). An inline container and everything in it stays on one line:
 * {"a": 1, "b": [2, 3]}.
 */
void uc_json_open(struct uc_json *j, const char *key, char c, bool one_line);
void uc_json_close(struct uc_json *j, char c);

void uc_json_str(struct uc_json *j, const char *key, const char *val);	/* NULL = null */
void uc_json_int(struct uc_json *j, const char *key, long long v);
void uc_json_double(struct uc_json *j, const char *key, double v);	/* inf/nan = null */
void uc_json_bool(struct uc_json *j, const char *key, bool v);
void uc_json_tri(struct uc_json *j, const char *key, int v);	/* >0 true, 0 false, <0 null */
void uc_json_null(struct uc_json *j, const char *key);
/* An array of n strings size bytes apart (char v[n][size]) under key. */
void uc_json_strs(struct uc_json *j, const char *key, const char *v, size_t n, size_t size);

/* A JSON string literal (quotes included) on f. */
void uc_json_string(FILE *f, const char *s);

#endif
