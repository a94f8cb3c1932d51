/*
 * test_escape.c: the name escaper and the UTF-8 sanitizers (src/lib/escape.c).
 * Exact cases (the hostile names of the CLI tests, every UTF-8 corner), then
 * properties over 200,000 random byte strings biased to the hard bytes:
 * the escaped text is printable ASCII, decodes back to the input (so the
 * escaping is injective), and a cut buffer holds a prefix of the whole that
 * decodes to a prefix of the input;
 * sanitized text is valid UTF-8 by our check and by a reference decoder,
 * and unchanged when the input was valid; Prometheus labels have no control
 * byte, no bare quote and only the format's escapes.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "uclamp/escape.h"

static void test_escape_cases(void **state)
{
	char out[256];

	(void)state;
	assert_int_equal(uc_escape_name("sleep", out, sizeof(out)), 5);
	assert_string_equal(out, "sleep");
	uc_escape_name("\x1b[1A\x1b[2K\x1b[8m\rok", out, sizeof(out));
	assert_string_equal(out, "\\x1b[1A\\x1b[2K\\x1b[8m\\x0dok");
	uc_escape_name("a\\x1b) b\x7f\n\t", out, sizeof(out));
	assert_string_equal(out, "a\\x5cx1b) b\\x7f\\x0a\\x09");
	/* a backslash not before 'x' is itself, as in libsmartcols' tables */
	uc_escape_name("c\\d\\\\x\\", out, sizeof(out));
	assert_string_equal(out, "c\\d\\\\x5cx\\");
	uc_escape_name("cg\\\xff", out, sizeof(out));
	assert_string_equal(out, "cg\\\\xff");
	/* every byte >= 0x80, valid UTF-8 or not: this program's C locale */
	uc_escape_name("\xff\xfe\xc3\xa9\xc2\x9b", out, sizeof(out));
	assert_string_equal(out, "\\xff\\xfe\\xc3\\xa9\\xc2\\x9b");
	assert_int_equal(uc_escape_name("", out, sizeof(out)), 0);
	assert_string_equal(out, "");
}

static void test_escape_cut(void **state)
{
	char out[8];

	(void)state;
	/* "ab" fits, the escape of ESC (4) does not: never half of one */
	memset(out, 'Z', sizeof(out));
	assert_int_equal(uc_escape_name("ab\x1b" "cd", out, 5), 8);
	assert_string_equal(out, "ab");
	assert_int_equal(uc_escape_name("abc", out, 3), 3);
	assert_string_equal(out, "ab");
	assert_int_equal(uc_escape_name("abc", NULL, 0), 3);
	out[0] = 'Z';
	assert_int_equal(uc_escape_name("abc", out, 1), 3);
	assert_string_equal(out, "");
}

static void test_escape_dup(void **state)
{
	char *s = uc_escape_name_dup("x\x1b\\x");

	(void)state;
	assert_non_null(s);
	assert_string_equal(s, "x\\x1b\\x5cx");
	free(s);
}

static void test_utf8_len(void **state)
{
	static const struct {
		const char *s;
		size_t len;
	} cases[] = {
		{ "a", 1 }, { "\x7f", 1 },
		{ "\xc2\x80", 2 }, { "\xdf\xbf", 2 }, { "\xc0\xaf", 0 }, { "\xc1\xbf", 0 },
		{ "\x80", 0 }, { "\xbf", 0 }, { "\xc2", 0 }, { "\xc2\x41", 0 },
		{ "\xe0\xa0\x80", 3 }, { "\xe0\x80\x80", 0 }, { "\xe0\x9f\xbf", 0 },
		{ "\xed\x9f\xbf", 3 }, { "\xed\xa0\x80", 0 }, { "\xed\xbf\xbf", 0 },
		{ "\xee\x80\x80", 3 }, { "\xef\xbf\xbf", 3 }, { "\xe2\x82", 0 },
		{ "\xf0\x90\x80\x80", 4 }, { "\xf0\x8f\xbf\xbf", 0 }, { "\xf4\x8f\xbf\xbf", 4 },
		{ "\xf4\x90\x80\x80", 0 }, { "\xf5\x80\x80\x80", 0 }, { "\xf8\x88\x80\x80", 0 },
		{ "\xff", 0 }, { "\xfe", 0 }, { "\xf0\x9f\x98", 0 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const unsigned char *s = (const unsigned char *)cases[i].s;

		if (uc_utf8_len(s, strlen(cases[i].s)) != cases[i].len)
			fail_msg("case %zu: %zu, expected %zu", i,
				 uc_utf8_len(s, strlen(cases[i].s)), cases[i].len);
	}
	/* n bounds the look: a valid sequence cut by n is not one */
	assert_int_equal(uc_utf8_len((const unsigned char *)"\xc3\xa9", 1), 0);
	assert_int_equal(uc_utf8_len((const unsigned char *)"a", 0), 0);
}

static void test_sanitize_cases(void **state)
{
	char out[64];

	(void)state;
	assert_int_equal(uc_utf8_sanitize("caf\xc3\xa9", out, sizeof(out)), 5);
	assert_string_equal(out, "caf\xc3\xa9");
	uc_utf8_sanitize("a\xff\xfe" "b\xed\xa0\x80" "c\x1b", out, sizeof(out));
	assert_string_equal(out, "a\xef\xbf\xbd\xef\xbf\xbd" "b\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"
				 "c\x1b");
	/* a replacement character is never cut */
	assert_int_equal(uc_utf8_sanitize("a\xff", out, 3), 4);
	assert_string_equal(out, "a");
	assert_true(uc_utf8_valid("caf\xc3\xa9"));
	assert_false(uc_utf8_valid("\xe0\x80\x80"));
}

static void test_prom_cases(void **state)
{
	char out[64];

	(void)state;
	uc_prom_label("a\\b\"c\nd\x1b" "e\xff" "f\x7f", out, sizeof(out));
	assert_string_equal(out, "a\\\\b\\\"c\\nd\xef\xbf\xbd" "e\xef\xbf\xbd" "f\xef\xbf\xbd");
}

/* ---- properties ----------------------------------------------------------- */

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static unsigned next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (unsigned)(rng >> 32);
}

/* A random string of up to 40 bytes (no NUL), half its bytes from the hard ones. */
static size_t random_name(char *s)
{
	static const unsigned char hard[] = { 0x01, 0x1b, '\r', '\n', 0x7f, '\\', 'x', '"',
					      0x80, 0x9b, 0xbf, 0xc0, 0xc2, 0xdf, 0xe0, 0xed,
					      0xef, 0xf0, 0xf4, 0xf5, 0xfe, 0xff, 0xa0, 0x90 };
	size_t n = next() % 41;

	for (size_t i = 0; i < n; i++) {
		unsigned r = next();

		s[i] = (char)(r & 1 ? hard[(r >> 1) % sizeof(hard)] : 1 + (r >> 1) % 255);
	}
	s[n] = '\0';
	return n;
}

static int hexval(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* The escaping's inverse: "\xNN" is byte NN, nothing else is special. */
static size_t unescape(const char *in, char *out)
{
	size_t n = 0;

	while (*in) {
		if (in[0] == '\\' && in[1] == 'x') {
			assert_true(hexval(in[2]) >= 0 && hexval(in[3]) >= 0);
			out[n++] = (char)(hexval(in[2]) * 16 + hexval(in[3]));
			in += 4;
		} else {
			out[n++] = *in++;
		}
	}
	out[n] = '\0';
	return n;
}

/* A reference decoder (the Unicode standard's table 3-7, written out). */
static bool ref_valid(const unsigned char *s, size_t n)
{
	size_t i = 0;

	while (i < n) {
		unsigned c = s[i], need, min;
		unsigned long cp;

		if (c < 0x80) {
			i++;
			continue;
		}
		if ((c & 0xe0) == 0xc0)
			need = 1, min = 0x80, cp = c & 0x1f;
		else if ((c & 0xf0) == 0xe0)
			need = 2, min = 0x800, cp = c & 0x0f;
		else if ((c & 0xf8) == 0xf0)
			need = 3, min = 0x10000, cp = c & 0x07;
		else
			return false;
		for (unsigned k = 1; k <= need; k++) {
			if (i + k >= n || (s[i + k] & 0xc0) != 0x80)
				return false;
			cp = cp << 6 | (s[i + k] & 0x3f);
		}
		if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
			return false;
		i += need + 1;
	}
	return true;
}

static void test_properties(void **state)
{
	char in[64], esc[256], back[64], san[256], prom[256], prev[256], cut[256];

	(void)state;
	for (int round = 0; round < 200000; round++) {
		size_t n = random_name(in), len, cutlen;

		/* escaped: printable ASCII only, and the input comes back */
		len = uc_escape_name(in, esc, sizeof(esc));
		assert_int_equal(len, strlen(esc));
		assert_true(len <= 4 * n);
		for (size_t i = 0; i < len; i++)
			assert_true(esc[i] >= 0x20 && esc[i] < 0x7f);
		assert_int_equal(unescape(esc, back), n);
		assert_memory_equal(back, in, n);
		/* a cut result is a prefix of the whole that ends between escapes */
		cutlen = next() % (len + 2);
		uc_escape_name(in, cut, cutlen);
		if (cutlen) {
			assert_true(strlen(cut) < cutlen);
			assert_memory_equal(cut, esc, strlen(cut));
			/* asserts no escape was cut; decodes to a prefix */
			size_t m = unescape(cut, back);

			assert_true(m <= n);
			assert_memory_equal(back, in, m);
		}

		/* sanitized: valid UTF-8, and the same text when it was already */
		len = uc_utf8_sanitize(in, san, sizeof(san));
		assert_int_equal(len, strlen(san));
		assert_true(len <= 3 * n);
		assert_true(uc_utf8_valid(san));
		assert_true(ref_valid((const unsigned char *)san, len));
		assert_int_equal(uc_utf8_valid(in), ref_valid((const unsigned char *)in, n));
		if (ref_valid((const unsigned char *)in, n))
			assert_string_equal(san, in);
		/* idempotent */
		uc_utf8_sanitize(san, prev, sizeof(prev));
		assert_string_equal(prev, san);

		/* Prometheus: valid UTF-8, no control byte, escapes only \\ \" \n */
		len = uc_prom_label(in, prom, sizeof(prom));
		assert_int_equal(len, strlen(prom));
		assert_true(ref_valid((const unsigned char *)prom, len));
		for (size_t i = 0; i < len; i++) {
			unsigned char c = (unsigned char)prom[i];

			assert_false(c < 0x20 || c == 0x7f);
			if (c == '"')
				fail_msg("bare quote in '%s'", prom);
			if (c == '\\') {
				assert_true(prom[i + 1] == '\\' || prom[i + 1] == '"' ||
					    prom[i + 1] == 'n');
				i++;
			}
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_escape_cases),
		cmocka_unit_test(test_escape_cut),
		cmocka_unit_test(test_escape_dup),
		cmocka_unit_test(test_utf8_len),
		cmocka_unit_test(test_sanitize_cases),
		cmocka_unit_test(test_prom_cases),
		cmocka_unit_test(test_properties),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
