/* Symbol lookup in /proc/kallsyms and System.map (see kallsyms.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "uclamp/kallsyms.h"
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

static bool is_data_type(char t)
{
	return t && strchr("bBdDrRgGsSvV", t);
}

bool uc_ksym_has_data_symbols(const struct uc_ksym_stats *st)
{
	return st && st->data >= UC_KSYM_ALL_MIN;
}

/* Read one line into buf; a line longer than the buffer is consumed whole
 * and reported as too long (1). 0 on a line, -1 at EOF. */
static int read_line(FILE *f, char *buf, size_t n)
{
	size_t len;
	int c;

	if (!fgets(buf, (int)n, f))
		return -1;
	len = strlen(buf);
	if (len && buf[len - 1] == '\n')
		return 0;
	if (feof(f))
		return 0;
	while ((c = getc(f)) != EOF && c != '\n')
		;
	return 1;
}

int uc_ksym_lookup_many(const char *abspath, struct uc_ksym *syms, size_t n,
			struct uc_ksym_stats *st)
{
	/* KSYM_NAME_LEN is 512 since 6.1: room for address, type, name, module */
	char line[1024];
	struct uc_ksym_stats local;
	size_t left = n;
	FILE *f;
	int fd, rc = 0;

	if (!st)
		st = &local;
	memset(st, 0, sizeof(*st));
	for (size_t i = 0; i < n; i++) {
		syms[i].rc = -ENOENT;
		syms[i].addr = 0;
		syms[i].type = 0;
	}
	fd = uc_open(abspath, O_RDONLY);
	if (fd < 0)
		return fd;
	f = fdopen(fd, "r");
	if (!f) {
		rc = -errno;
		close(fd);
		return rc;
	}
	for (;;) {
		const char *name;
		size_t len;
		uint64_t addr;
		char type;
		bool module;
		int r = read_line(f, line, sizeof(line));

		if (r < 0)
			break;
		if (r > 0 || uc_ksym_parse_line(line, &addr, &type, &name, &len, &module)) {
			st->bad++;
			continue;
		}
		st->lines++;
		if (module) {
			st->modules++;
			continue;
		}
		if (addr)
			st->nonzero++;
		if (is_data_type(type) && !(len >= 2 && name[0] == '_' && name[1] == '_'))
			st->data++;
		for (size_t i = 0; i < n; i++) {
			/* the first vmlinux occurrence wins */
			if (syms[i].type || strlen(syms[i].name) != len ||
			    memcmp(syms[i].name, name, len))
				continue;
			syms[i].type = type;
			syms[i].addr = addr;
			syms[i].rc = addr ? 0 : -EPERM;
			left--;
		}
		/* the rest only adds to the counts: stop once they have answered
		 * their questions (uc_ksym_has_data_symbols, "all addresses zero") */
		if (!left && (st == &local || (uc_ksym_has_data_symbols(st) && st->nonzero))) {
			st->partial = true;
			break;
		}
	}
	if (ferror(f))
		rc = -EIO;
	fclose(f);
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
