/*
 * Names from /proc and cgroupfs are hostile input: any user can name a
 * process "\e[2K\r..." or "\xff\xfe". The one owner of making such bytes
 * safe for a terminal (text lines, logs) and valid for JSON and Prometheus.
 *
 * Text (uc_escape_name): every byte outside printable ASCII (0x20..0x7e) --
 * control bytes, DEL, and every byte >= 0x80 -- becomes "\xNN" (two
 * lower-case hex digits), and so does a backslash followed by 'x' ("\x5c").
 * That is what libsmartcols prints in this program's C locale, so a name
 * reads the same in a table and in a message. The output is printable
 * ASCII, and the escaping is injective: "\x" in it always starts an escape
 * of the byte NN, and any other backslash is itself (a backslash is kept
 * only before a byte that is not 'x', whose text never starts with 'x').
 *
 * JSON and Prometheus need valid UTF-8 (uc_utf8_sanitize): each byte that
 * does not start a well-formed sequence (RFC 3629: no overlong forms, no
 * surrogates, nothing above U+10FFFF) becomes U+FFFD.
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
