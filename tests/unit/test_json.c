/*
 * test_json.c: the JSON writer (src/cmd/json.c): layout (multi-line and
 * one-line containers, both indents in use), every value type, and string
 * escaping including invalid UTF-8.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>

#include "cmd/json.h"

static char *buf;
static size_t len;
static FILE *f;

static int setup(void **state)
{
	(void)state;
	f = open_memstream(&buf, &len);
	return f ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	free(buf);
	buf = NULL;
	return 0;
}

static const char *text(void)
{
	fclose(f);
	return buf;
}

static void test_layout(void **state)
{
	struct cli_json j;

	(void)state;
	cli_json_begin(&j, f, 2);
	cli_json_bool(&j, "changed", true);
	cli_json_open(&j, "changes", '[', false);
	cli_json_open(&j, NULL, '{', true);
	cli_json_str(&j, "a", "x");
	cli_json_int(&j, "n", -3);
	cli_json_open(&j, "l", '[', false);	/* inside a one-line container: one line too */
	cli_json_int(&j, NULL, 1);
	cli_json_int(&j, NULL, 2);
	cli_json_close(&j, ']');
	cli_json_close(&j, '}');
	cli_json_close(&j, ']');
	cli_json_open(&j, "empty", '[', false);
	cli_json_close(&j, ']');
	cli_json_open(&j, "o", '{', true);
	cli_json_str(&j, "z", NULL);
	cli_json_tri(&j, "t", -1);
	cli_json_tri(&j, "u", 0);
	cli_json_str(&j, "s", NULL);
	cli_json_close(&j, '}');
	cli_json_close(&j, '}');
	assert_string_equal(text(),
			    "{\n"
			    "  \"changed\": true,\n"
			    "  \"changes\": [\n"
			    "    {\"a\": \"x\", \"n\": -3, \"l\": [1, 2]}\n"
			    "  ],\n"
			    "  \"empty\": [],\n"
			    "  \"o\": {\"z\": null, \"t\": null, \"u\": false, \"s\": null}\n"
			    "}");
}

static void test_indent3(void **state)
{
	struct cli_json j;

	(void)state;
	cli_json_begin(&j, f, 3);
	cli_json_open(&j, "k", '{', false);
	cli_json_tri(&j, "a", 1);
	cli_json_close(&j, '}');
	cli_json_close(&j, '}');
	assert_string_equal(text(), "{\n   \"k\": {\n      \"a\": true\n   }\n}");
}

static void test_escaping(void **state)
{
	(void)state;
	/* quote, backslash, controls, DEL; valid 2/3/4-byte UTF-8 kept; bad bytes -> U+FFFD */
	cli_json_string(f, "q\"b\\n\nt\tr\r\x01\x7f "
			"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80 \xff\xc0\xaf\xe2\x82");
	assert_string_equal(text(),
			    "\"q\\\"b\\\\n\\nt\\tr\\r\\u0001\\u007f "
			    "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80 "
			    "\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd\"");
}

/* Python's strict decoder and every JSON parser refuse these: overlong
 * forms, UTF-16 surrogates, code points above U+10FFFF (a hostile comm) */
static void test_ill_formed(void **state)
{
	(void)state;
	cli_json_string(f, "a\xe0\x80\x80" "b\xed\xa0\x80" "c\xf4\x90\x80\x80" "d\xf0\x8f\xbf\xbf"
			"e\xed\x9f\xbf");
	assert_string_equal(text(), "\"a\\ufffd\\ufffd\\ufffd" "b\\ufffd\\ufffd\\ufffd"
				    "c\\ufffd\\ufffd\\ufffd\\ufffd" "d\\ufffd\\ufffd\\ufffd\\ufffd"
				    "e\xed\x9f\xbf\"");
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_layout),
		T(test_indent3),
		T(test_escaping),
		T(test_ill_formed),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
