/* Hostile names made safe for text, JSON and Prometheus (see escape.h). */
#include <stdlib.h>
#include <string.h>

#include "uclamp/escape.h"

size_t uc_utf8_len(const unsigned char *s, size_t n)
{
	unsigned char c, lo = 0x80, hi = 0xbf;	/* the second byte's range */
	size_t len;

	if (n == 0)
		return 0;
	c = s[0];
	if (c < 0x80)
		return 1;
	if (c < 0xc2)
		return 0;	/* a continuation byte, or an overlong 2-byte form */
	if (c < 0xe0) {
		len = 2;
	} else if (c < 0xf0) {
		len = 3;
		if (c == 0xe0)
			lo = 0xa0;	/* overlong */
		else if (c == 0xed)
			hi = 0x9f;	/* UTF-16 surrogates */
	} else if (c < 0xf5) {
		len = 4;
		if (c == 0xf0)
			lo = 0x90;	/* overlong */
		else if (c == 0xf4)
			hi = 0x8f;	/* above U+10FFFF */
	} else {
		return 0;
	}
	if (n < len || s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < len; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return len;
}

bool uc_utf8_valid(const char *in)
{
	const unsigned char *p = (const unsigned char *)in;
	size_t n = strlen(in);

	while (n) {
		size_t len = *p < 0x80 ? 1 : uc_utf8_len(p, n);

		if (!len)
			return false;
		p += len;
		n -= len;
	}
	return true;
}

/* Append len bytes to out[outlen] at *at if all of them fit (keeping room
 * for the NUL); *at counts them either way. */
static void put(char *out, size_t outlen, size_t *at, size_t *room, const char *s, size_t len)
{
	if (*room == *at && *at + len < outlen) {
		memcpy(out + *at, s, len);
		*room += len;
	}
	*at += len;
}

static size_t finish(char *out, size_t outlen, size_t room, size_t at)
{
	if (outlen)
		out[room] = '\0';
	return at;
}

size_t uc_escape_name(const char *in, char *out, size_t outlen)
{
	static const char hex[] = "0123456789abcdef";
	size_t at = 0, room = 0;

	for (const unsigned char *p = (const unsigned char *)in; *p; p++) {
		if (*p >= 0x20 && *p < 0x7f && !(*p == '\\' && p[1] == 'x')) {
			put(out, outlen, &at, &room, (const char *)p, 1);
		} else {
			char e[4] = { '\\', 'x', hex[*p >> 4], hex[*p & 15] };

			put(out, outlen, &at, &room, e, 4);
		}
	}
	return finish(out, outlen, room, at);
}

char *uc_escape_name_dup(const char *in)
{
	size_t n = uc_escape_name(in, NULL, 0) + 1;
	char *out = malloc(n);

	if (out)
		uc_escape_name(in, out, n);
	return out;
}

/* in as valid UTF-8; prom: with the exposition format's escapes */
static size_t sanitize(const char *in, char *out, size_t outlen, bool prom)
{
	const unsigned char *p = (const unsigned char *)in;
	size_t n = strlen(in), at = 0, room = 0;

	while (n) {
		size_t len = uc_utf8_len(p, n);

		if (!len || (prom && len == 1 && (*p < 0x20 || *p == 0x7f) && *p != '\n')) {
			put(out, outlen, &at, &room, "\xef\xbf\xbd", 3);
			len = 1;
		} else if (prom && (*p == '\\' || *p == '"')) {
			put(out, outlen, &at, &room, *p == '\\' ? "\\\\" : "\\\"", 2);
		} else if (prom && *p == '\n') {
			put(out, outlen, &at, &room, "\\n", 2);
		} else {
			put(out, outlen, &at, &room, (const char *)p, len);
		}
		p += len;
		n -= len;
	}
	return finish(out, outlen, room, at);
}

size_t uc_utf8_sanitize(const char *in, char *out, size_t outlen)
{
	return sanitize(in, out, outlen, false);
}

size_t uc_prom_label(const char *in, char *out, size_t outlen)
{
	return sanitize(in, out, outlen, true);
}
