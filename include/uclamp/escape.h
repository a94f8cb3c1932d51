/*
 * Names from /proc and cgroupfs are hostile input ("\e[2K\r...", "\xff\xfe"):
 * the one owner of making them safe for a terminal, JSON and Prometheus.
 * Text: every byte outside printable ASCII, and a backslash before 'x', becomes
 * "\xNN" (what libsmartcols prints in our C locale): printable and injective.
 * JSON and Prometheus: each byte that does not start well-formed UTF-8 (RFC
 * 3629: no overlong forms, surrogates or code points above U+10FFFF) U+FFFD.
 */
#ifndef UCLAMP_ESCAPE_H
#define UCLAMP_ESCAPE_H

#include <stdbool.h>
#include <stddef.h>

/* The length (1..4) of the well-formed UTF-8 sequence at s (n bytes
 * available), 0 when s[0] does not start one. */
size_t uc_utf8_len(const unsigned char *s, size_t n);

/* in is valid UTF-8 throughout. */
bool uc_utf8_valid(const char *in);

/* in escaped for a terminal into out[outlen] (NUL-terminated, no escape cut):
 * the length the whole result needs, as snprintf (at most 4 * strlen + 1). */
size_t uc_escape_name(const char *in, char *out, size_t outlen);

/* The same, allocated (malloc); NULL when out of memory. */
char *uc_escape_name_dup(const char *in);

/* in made valid UTF-8 (invalid bytes U+FFFD) into out[outlen], as above. */
size_t uc_utf8_sanitize(const char *in, char *out, size_t outlen);

/* A Prometheus label value: valid UTF-8, '\\' '"' and newline escaped, other
 * control bytes U+FFFD; the length needed, as above. */
size_t uc_prom_label(const char *in, char *out, size_t outlen);

#endif
