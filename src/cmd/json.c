/* The JSON writer (see json.h). */
#include <string.h>

#include "cmd/json.h"
#include "uclamp/escape.h"

void cli_json_string(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");

	fputc('"', f);
	while (*p) {
		/* well-formed UTF-8 only (escape.h): no overlong forms, no surrogates */
		size_t len = *p < 0x80 ? 1 : uc_utf8_len(p, strnlen((const char *)p, 4));

		if (!len) {
			fputs("\\ufffd", f);
			p++;
			continue;
		}
		if (len > 1) {
			fwrite(p, 1, len, f);
			p += len;
			continue;
		}
		switch (*p) {
		case '"': fputs("\\\"", f); break;
		case '\\': fputs("\\\\", f); break;
		case '\n': fputs("\\n", f); break;
		case '\t': fputs("\\t", f); break;
		case '\r': fputs("\\r", f); break;
		default:
			if (*p < 0x20 || *p == 0x7f)
				fprintf(f, "\\u%04x", *p);
			else
				fputc(*p, f);
		}
		p++;
	}
	fputc('"', f);
}

static bool one_line(const struct cli_json *j)
{
	return j->inline_from && j->depth >= j->inline_from;
}

/* The separator before a member, then its key. */
static void key(struct cli_json *j, const char *k)
{
	if (one_line(j)) {
		fputs(j->first ? "" : ", ", j->f);
	} else if (j->depth) {
		fputs(j->first ? "\n" : ",\n", j->f);
		fprintf(j->f, "%*s", j->depth * j->indent, "");
	}
	j->first = false;
	if (k) {
		cli_json_string(j->f, k);
		fputs(": ", j->f);
	}
}

void cli_json_open(struct cli_json *j, const char *k, char c, bool inl)
{
	key(j, k);
	fputc(c, j->f);
	j->depth++;
	if (inl && !j->inline_from)
		j->inline_from = j->depth;
	j->first = true;
}

void cli_json_close(struct cli_json *j, char c)
{
	bool inl = one_line(j);

	if (j->inline_from == j->depth)
		j->inline_from = 0;
	j->depth--;
	if (!j->first && !inl)
		fprintf(j->f, "\n%*s", j->depth * j->indent, "");
	fputc(c == '{' ? '}' : c == '[' ? ']' : c, j->f);
	j->first = false;
}

void cli_json_begin(struct cli_json *j, FILE *f, int indent)
{
	*j = (struct cli_json){ .f = f, .indent = indent };
	cli_json_open(j, NULL, '{', !indent);
}

void cli_json_end(struct cli_json *j)
{
	cli_json_close(j, '}');
	fputc('\n', j->f);
}

void cli_json_str(struct cli_json *j, const char *k, const char *val)
{
	key(j, k);
	if (val)
		cli_json_string(j->f, val);
	else
		fputs("null", j->f);
}

void cli_json_int(struct cli_json *j, const char *k, long long v)
{
	key(j, k);
	fprintf(j->f, "%lld", v);
}

void cli_json_num(struct cli_json *j, const char *k, long long v)
{
	if (v < 0)
		cli_json_str(j, k, NULL);
	else
		cli_json_int(j, k, v);
}

void cli_json_double(struct cli_json *j, const char *k, double v)
{
	key(j, k);
	/* JSON has no inf/nan: such a value is null */
	if (v != v || v - v != 0)
		fputs("null", j->f);
	else
		fprintf(j->f, "%.9g", v);
}

void cli_json_bool(struct cli_json *j, const char *k, bool v)
{
	key(j, k);
	fputs(v ? "true" : "false", j->f);
}

void cli_json_tri(struct cli_json *j, const char *k, int v)
{
	key(j, k);
	fputs(v > 0 ? "true" : v == 0 ? "false" : "null", j->f);
}

void cli_json_strv(struct cli_json *j, const char *key, const char *v, size_t n, size_t size)
{
	cli_json_open(j, key, '[', false);
	for (size_t i = 0; i < n; i++)
		cli_json_str(j, NULL, v + i * size);
	cli_json_close(j, ']');
}
