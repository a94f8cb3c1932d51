/*
 * The library's "why" texts: evidence, reasons, notes on what could not be
 * done. They live in fixed arrays inside result structs (no allocation, a
 * struct can be copied or logged as is); these two calls are the only code
 * that writes them.
 */
#ifndef UCLAMP_NOTE_H
#define UCLAMP_NOTE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

/* printf into dst[len], truncated to fit. */
void uc_note_set(char *dst, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void uc_note_vset(char *dst, size_t len, const char *fmt, va_list ap);

/* Append one note to notes[max][len] that holds *n: false, and nothing
 * written, when all max are taken. */
bool uc_note_add(char *notes, size_t len, size_t max, size_t *n, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

/* "a, b or c" (each word after prefix: "--a, --b or --c") into dst[len],
 * truncated to fit; returns dst. words: count of them, or NULL-ended when
 * count is 0. */
const char *uc_note_words(char *dst, size_t len, const char *prefix, const char *const *words,
			  size_t count);

/* Append "PFXa-b TEXT" ("PFXa TEXT" when a == b; ", " before all but the
 * first) to buf[n] at *used: "cpu0-3 446, cpu4-7 1024". */
void uc_note_range(char *buf, size_t n, size_t *used, const char *pfx, int a, int b,
		   const char *text);

/* For a char arr[MAX][LEN] member and its count: UC_NOTE_ADD(fp->evidence, fp->nevidence, ...). */
#define UC_NOTE_ADD(arr, n, ...) \
	uc_note_add(&(arr)[0][0], sizeof((arr)[0]), sizeof(arr) / sizeof((arr)[0]), &(n), \
		    __VA_ARGS__)

/* names[i] of an enum's table of names, else dflt */
#define UC_NAME(names, i, dflt) \
	((unsigned)(i) < sizeof(names) / sizeof((names)[0]) ? (names)[i] : (dflt))

#endif
