/* Fixed-size "why" texts (see note.h). */
#include <stdarg.h>
#include <stdio.h>

#include "uclamp/note.h"

void uc_note_vset(char *dst, size_t len, const char *fmt, va_list ap)
{
	if (len)
		vsnprintf(dst, len, fmt, ap);
}

void uc_note_set(char *dst, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	uc_note_vset(dst, len, fmt, ap);
	va_end(ap);
}

bool uc_note_add(char *notes, size_t len, size_t max, size_t *n, const char *fmt, ...)
{
	va_list ap;

	if (*n >= max)
		return false;
	va_start(ap, fmt);
	uc_note_vset(notes + *n * len, len, fmt, ap);
	va_end(ap);
	(*n)++;
	return true;
}

const char *uc_note_words(char *dst, size_t len, const char *prefix, const char *const *words,
			  size_t count)
{
	size_t used = 0;

	if (!count)
		while (words[count])
			count++;
	dst[0] = '\0';
	for (size_t i = 0; i < count && used < len; i++)
		used += (size_t)snprintf(dst + used, len - used, "%s%s%s",
					 !i ? "" : i + 1 < count ? ", " : " or ", prefix, words[i]);
	return dst;
}

void uc_note_range(char *buf, size_t n, size_t *used, const char *pfx, int a, int b,
		   const char *text)
{
	const char *sep = *used ? ", " : "";
	int w;

	if (*used >= n)
		return;
	if (a == b)
		w = snprintf(buf + *used, n - *used, "%s%s%d %s", sep, pfx, a, text);
	else
		w = snprintf(buf + *used, n - *used, "%s%s%d-%d %s", sep, pfx, a, b, text);
	if (w > 0)
		*used += (size_t)w;
}
