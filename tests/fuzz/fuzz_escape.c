/*
 * libFuzzer: the hostile-name escaper and the UTF-8 sanitizers (escape.c).
 * Invariants, not just "no crash": the escaped text is printable ASCII and
 * decodes back to the input ("\xNN" is byte NN, any other byte itself: the
 * escaping is injective); a cut result is a prefix of the whole; the
 * sanitized text is valid UTF-8, equal to the input when that was valid, and
 * sanitizing it again changes nothing; a Prometheus label value has no
 * control byte, no bare quote and only the format's escapes.
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "uclamp/escape.h"

static int hexval(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

static void check_escape(const char *s, size_t n)
{
	size_t len = uc_escape_name(s, NULL, 0), at = 0, cut;
	char *e = malloc(len + 1), *c;

	if (!e || uc_escape_name(s, e, len + 1) != len || strlen(e) != len || len > 4 * n)
		abort();
	for (size_t i = 0; i < len; i++) {
		if (e[i] < 0x20 || e[i] > 0x7e)
			abort();
		if (e[i] == '\\' && e[i + 1] == 'x') {
			if (hexval(e[i + 2]) < 0 || hexval(e[i + 3]) < 0 ||
			    (char)(hexval(e[i + 2]) * 16 + hexval(e[i + 3])) != s[at])
				abort();
			i += 3;
		} else if (e[i] != s[at]) {
			abort();
		}
		at++;
	}
	if (at != n)
		abort();
	cut = len / 2 + 1;
	c = malloc(cut);
	if (!c)
		abort();
	uc_escape_name(s, c, cut);
	if (strlen(c) >= cut || memcmp(c, e, strlen(c)))
		abort();
	free(c);
	free(e);
}

static void check_utf8(const char *s)
{
	size_t len = uc_utf8_sanitize(s, NULL, 0), len2;
	char *u = malloc(len + 1), *again, *p;

	if (!u || uc_utf8_sanitize(s, u, len + 1) != len || !uc_utf8_valid(u))
		abort();
	if (uc_utf8_valid(s) && strcmp(u, s))
		abort();
	again = malloc(len + 1);
	if (!again || uc_utf8_sanitize(u, again, len + 1) != len || strcmp(again, u))
		abort();
	free(again);
	free(u);

	len2 = uc_prom_label(s, NULL, 0);
	p = malloc(len2 + 1);
	if (!p || uc_prom_label(s, p, len2 + 1) != len2 || !uc_utf8_valid(p))
		abort();
	for (size_t i = 0; i < len2; i++) {
		unsigned char ch = (unsigned char)p[i];

		if (ch < 0x20 || ch == 0x7f || ch == '"')
			abort();
		if (ch == '\\') {
			if (p[i + 1] != '\\' && p[i + 1] != '"' && p[i + 1] != 'n')
				abort();
			i++;
		}
	}
	free(p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_str(data, size);

	check_escape(s, strlen(s));
	check_utf8(s);
	free(s);
	return 0;
}
