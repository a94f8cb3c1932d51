/*
 * Symbol lookup in /proc/kallsyms and System.map (kallsyms adds "\t[module]"
 * for module symbols, never taken: all we need lives in vmlinux). Read in
 * UC_KSYM_BLOCK blocks (~10^5 lines), each line through uc_ksym_parse_line
 * (1.16x the cost of reading /proc/kallsyms at all: 49.5 against 42.7 ms for
 * 121,416 lines, measured 2026-12-04), its name compared only when a hash says
 * it may be wanted. A line over 1022 bytes is counted bad.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "uclamp/kmem.h"
#include "uclamp/sysroot.h"

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int uc_ksym_parse_line(const char *line, uint64_t *addr, char *type, const char **name,
		       size_t *name_len, bool *module)
{
	const char *p = line;
	uint64_t a = 0;
	int digits = 0, h;

	while ((h = hexval(*p)) >= 0) {
		if (++digits > 16)
			return -EINVAL;	/* wider than 64 bits */
		a = a << 4 | (uint64_t)h;
		p++;
	}
	if (!digits || *p != ' ')
		return -EINVAL;
	p++;
	if (*p <= ' ' || *p > '~' || p[1] != ' ')
		return -EINVAL;
	*type = *p;
	p += 2;
	*name = p;
	while (*p > ' ')
		p++;
	*name_len = (size_t)(p - *name);
	if (!*name_len)
		return -EINVAL;
	while (*p == ' ' || *p == '\t')
		p++;
	*module = false;
	if (*p == '[') {
		const char *end = strchr(p, ']');

		if (!end)
			return -EINVAL;
		*module = true;
		p = end + 1;
	}
	while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
		p++;
	if (*p)
		return -EINVAL;
	*addr = a;
	return 0;
}

/* b d r g s v, either case: a bit per lowercase letter (hot: every line) */
static bool is_data_type(char t)
{
	const unsigned int mask = 1u << ('b' - 'a') | 1u << ('d' - 'a') | 1u << ('r' - 'a') |
				  1u << ('g' - 'a') | 1u << ('s' - 'a') | 1u << ('v' - 'a');
	unsigned int c = (unsigned char)t | 0x20;

	return c >= 'a' && c <= 'z' && (mask >> (c - 'a') & 1);
}

bool uc_ksym_has_data_symbols(const struct uc_ksym_stats *st)
{
	return st && st->data >= UC_KSYM_ALL_MIN;
}

/* Longest line taken (the old fgets buffer's 1022 bytes before the '\n'):
 * KSYM_NAME_LEN is 512 since 6.1, so that is room for address, type, name
 * and module. Longer lines are counted bad, never parsed. */
#define LINE_MAX_LEN 1022

/* The wanted names, filtered by a 256-bit set of hash(length, first, last
 * byte): most lines are dismissed without a compare. */
struct want {
	struct uc_ksym *syms;
	size_t n, left;
	uint64_t bloom[4];
};

static unsigned int name_hash(const char *name, size_t len)
{
	return (unsigned int)(len * 5 + (unsigned char)name[0] * 3 +
			      (unsigned char)name[len - 1]) & 255;
}

/* Count a vmlinux line and take it when it is wanted; true when every name
 * is found and the counts have answered their questions (stop). */
static bool take(struct want *w, struct uc_ksym_stats *st, bool counts, const char *name,
		 size_t name_len, char type, uint64_t addr)
{
	unsigned int h;

	if (addr)
		st->nonzero++;
	if (is_data_type(type) && !(name_len >= 2 && name[0] == '_' && name[1] == '_'))
		st->data++;
	h = name_hash(name, name_len);
	if (w->bloom[h >> 6] >> (h & 63) & 1) {
		for (size_t i = 0; i < w->n; i++) {
			struct uc_ksym *s = &w->syms[i];

			/* the first vmlinux occurrence wins */
			if (s->type || strncmp(s->name, name, name_len) || s->name[name_len])
				continue;
			s->type = type;
			s->addr = addr;
			s->rc = addr ? 0 : -EPERM;
			w->left--;
		}
	}
	/* the rest only adds to the counts: stop once they have answered
	 * their questions (uc_ksym_has_data_symbols, "all addresses zero") */
	return !w->left && (!counts || (uc_ksym_has_data_symbols(st) && st->nonzero));
}

/* One line (without its '\n'), parsed on a NUL-terminated copy; true to stop. */
static bool one_line(struct want *w, struct uc_ksym_stats *st, bool counts, const char *p,
		     size_t len)
{
	char line[LINE_MAX_LEN + 2];
	const char *name;
	uint64_t addr;
	size_t name_len;
	char type;
	bool module;

	/* a NUL inside would hide what follows it from the parser */
	if (len > LINE_MAX_LEN || memchr(p, '\0', len)) {
		st->bad++;
		return false;
	}
	memcpy(line, p, len);
	line[len] = '\0';
	if (uc_ksym_parse_line(line, &addr, &type, &name, &name_len, &module)) {
		st->bad++;
		return false;
	}
	st->lines++;
	if (module) {
		st->modules++;
		return false;
	}
	return take(w, st, counts, name, name_len, type, addr);
}

int uc_ksym_lookup_many(const char *abspath, struct uc_ksym *syms, size_t n,
			struct uc_ksym_stats *st)
{
	struct want w = { .syms = syms, .n = n, .left = n };
	struct uc_ksym_stats local;
	bool counts = st != NULL, skip = false, stop = false;
	size_t have = 0;
	char *buf;
	int fd, rc = 0;

	if (!st)
		st = &local;
	memset(st, 0, sizeof(*st));
	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(syms[i].name);
		unsigned int h;

		syms[i].rc = -ENOENT;
		syms[i].addr = 0;
		syms[i].type = 0;
		if (!len)
			continue;
		h = name_hash(syms[i].name, len);
		w.bloom[h >> 6] |= 1ull << (h & 63);
	}
	fd = uc_open(abspath, O_RDONLY);
	if (fd < 0)
		return fd;
	/* a block plus the start of a line it cut (at most LINE_MAX_LEN) */
	buf = malloc(UC_KSYM_BLOCK + LINE_MAX_LEN + 1);
	if (!buf) {
		close(fd);
		return -ENOMEM;
	}
	while (!stop) {
		ssize_t r = read(fd, buf + have, UC_KSYM_BLOCK);
		const char *p = buf, *end, *nl;

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			rc = -errno;
			break;
		}
		end = buf + have + r;
		while (!stop && (nl = memchr(p, '\n', (size_t)(end - p)))) {
			if (skip)	/* the end of a line too long to parse */
				skip = false;
			else
				stop = one_line(&w, st, counts, p, (size_t)(nl - p));
			p = nl + 1;
		}
		if (stop)
			break;
		have = (size_t)(end - p);
		if (r == 0) {
			/* the last line, without a newline */
			if (have && !skip)
				stop = one_line(&w, st, counts, p, have);
			break;
		}
		if (skip || have > LINE_MAX_LEN) {
			/* too long: counted once, the rest of it dropped as it comes */
			if (!skip)
				st->bad++;
			skip = true;
			have = 0;
		} else {
			memmove(buf, p, have);
		}
	}
	st->partial = stop;
	free(buf);
	close(fd);
	return rc;
}

uint64_t uc_ksym_relocate(uint64_t map_addr, uint64_t map_text, uint64_t live_text)
{
	return map_addr + (live_text - map_text);
}

int uc_ksym_map_matches(const struct uc_ksym *live, const struct uc_ksym *map, size_t n,
			uint64_t *offset)
{
	size_t checked = 0;
	uint64_t off;

	if (n == 0 || strcmp(live[0].name, "_text") || strcmp(map[0].name, "_text"))
		return -EINVAL;
	if (live[0].rc == -EPERM)
		return -EPERM;
	if (live[0].rc || map[0].rc)
		return -ENOENT;
	off = live[0].addr - map[0].addr;
	for (size_t i = 1; i < n; i++) {
		if (live[i].rc || map[i].rc)
			continue;
		if (map[i].addr + off != live[i].addr)
			return -ESTALE;
		checked++;
	}
	if (!checked)
		return -ENODATA;
	*offset = off;
	return 0;
}
