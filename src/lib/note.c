/* Fixed-size "why" texts (see note.h). */
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
