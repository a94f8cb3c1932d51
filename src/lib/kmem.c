/*
 * Static keys from kernel memory: one /proc/kallsyms pass for every name, the
 * text anchors and the other commands' keys (for the cache), System.map only
 * without data symbols, then /proc/kcore opened once, 4 bytes a key. Each
 * thing in the way gets a note an admin can act on.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "uclamp/afile.h"
#include "uclamp/kmem.h"
#include "uclamp/note.h"
#include "uclamp/sysroot.h"

static const char not_in_kernel[] =
	"not in /proc/kallsyms, which lists data symbols: not in this kernel";
static const char no_data_symbols[] =
	"/proc/kallsyms lists no data symbols (kernel built without CONFIG_KALLSYMS_ALL)";

/* _text first (uc_ksym_map_matches), then text symbols every config lists */
static const char *const anchors[] = { "_text", "_etext", "_sinittext", "_einittext" };
#define NANCHORS (sizeof(anchors) / sizeof(anchors[0]))

/* The keys the commands read through the cache, and which are boolean
 * (static_branch_enable() only; sched_asym_cpucapacity is counted, a
 * static_branch_inc() per asymmetric root domain). A kallsyms pass for any
 * caller resolves them all: each command's set then finds the others'. */
static const struct {
	const char *name;
	bool boolean;
} shared_keys[] = {
	{ UC_KMEM_KEY_UCLAMP_USED, true },
	{ UC_KMEM_KEY_ASYM_CPUCAPACITY, false },
	{ UC_KMEM_KEY_ENERGY_PRESENT, true },
	{ UC_KMEM_KEY_FREQ_INVARIANT, true },
	{ UC_KMEM_KEY_CPUFREQ_INVARIANT, true },
};
#define NSHARED (sizeof(shared_keys) / sizeof(shared_keys[0]))

/* a static key's count: 0, 1, -1 while being enabled, small counts for
 * static_branch_inc users; anything else means a wrong address */
#define KEY_COUNT_MAX (1 << 24)

bool uc_have_cap(int cap)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3, .pid = 0 };
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3];

	if (cap < 0 || cap >= 32 * _LINUX_CAPABILITY_U32S_3)
		return false;
	memset(d, 0, sizeof(d));
	if (syscall(SYS_capget, &h, d))
		return false;
	return d[cap / 32].effective & (1u << (cap % 32));
}

int uc_lockdown_state(char *buf, size_t n)
{
	char s[128];
	ssize_t len = uc_read_str("/sys/kernel/security/lockdown", s, sizeof(s));
	char *a, *b;

	if (len < 0)
		return (int)len;
	/* "none integrity [confidentiality]": the bracketed one is in force */
	a = strchr(s, '[');
	b = a ? strchr(a, ']') : NULL;
	if (!a || !b || b == a + 1)
		return -EINVAL;
	snprintf(buf, n, "%.*s", (int)(b - a - 1), a + 1);
	return 0;
}

#define note(info, ...) UC_NOTE_ADD((info)->notes, (info)->nnotes, __VA_ARGS__)

/* Why /proc/kallsyms shows zeros (kernel/ksyms_common.c kallsyms_show_value()). */
void uc_kmem_hidden_reason(char *buf, size_t n)
{
	long kr = -1, pp = -1;

	uc_read_long("/proc/sys/kernel/kptr_restrict", &kr);
	uc_read_long("/proc/sys/kernel/perf_event_paranoid", &pp);
	if (kr >= 2)
		snprintf(buf, n,
			 "kptr_restrict=2 hides kernel addresses in /proc/kallsyms from everyone");
	else if (kr == 1)
		snprintf(buf, n,
			 "kptr_restrict=1 hides kernel addresses in "
			 "/proc/kallsyms without CAP_SYSLOG%s",
			 uc_have_cap(CAP_SYSLOG) ? "" : " (run as root)");
	else if (kr == 0 && pp > 1)
		snprintf(buf, n, "/proc/kallsyms hides kernel addresses without CAP_SYSLOG "
			 "(kptr_restrict=0, perf_event_paranoid=%ld; run as root)", pp);
	else
		snprintf(buf, n, "/proc/kallsyms shows zeroed addresses (kptr_restrict)");
}

/* Why /proc/kcore cannot be opened (fs/proc/kcore.c open_kcore()). */
void uc_kmem_kcore_reason(int err, char *buf, size_t n)
{
	char ld[32];

	switch (-err) {
	case ENOENT:
		snprintf(buf, n, "no /proc/kcore (kernel built without CONFIG_PROC_KCORE)");
		return;
	case EPERM:
	case EACCES:
		if (uc_lockdown_state(ld, sizeof(ld)) == 0 && !strcmp(ld, "confidentiality"))
			snprintf(buf, n, "kernel lockdown=confidentiality blocks /proc/kcore");
		else if (geteuid() != 0)
			snprintf(buf, n,
				 "/proc/kcore needs root with CAP_SYS_RAWIO (running as uid %u)",
				 (unsigned int)geteuid());
		else if (!uc_have_cap(CAP_SYS_RAWIO))
			snprintf(buf, n,
				 "/proc/kcore needs CAP_SYS_RAWIO, which this process lacks");
		else
			snprintf(buf, n, "/proc/kcore: permission denied (a security module?)");
		return;
	default:
		snprintf(buf, n, "/proc/kcore: %s", strerror(-err));
	}
}

#define set_why(k, err, ...) do { \
	(k)->rc = (err); \
	uc_note_set((k)->why, sizeof((k)->why), __VA_ARGS__); \
} while (0)

/* Where distributions keep the map: /boot, or (Debian sid, Fedora) beside
 * the modules. A placeholder (no _text) or another build's map is refused and
 * the next one tried. */
static const char *const map_paths[][2] = {	/* prefix, release, suffix */
	{ "/boot/System.map-", "" }, { "/usr/lib/modules/", "/System.map" },
	{ "/lib/modules/", "/System.map" },
};
#define NMAPS (sizeof(map_paths) / sizeof(map_paths[0]))

/* One candidate map: 0 when it matches the running kernel (map[] filled). */
static int try_map(const char *path, struct uc_ksym *map, size_t n, const struct uc_ksym *live,
		   struct uc_kmem_info *info)
{
	uint64_t off = 0;
	int rc;

	for (size_t i = 0; i < n; i++)
		map[i] = (struct uc_ksym){ .name = live[i].name };
	rc = uc_ksym_lookup_many(path, map, n, NULL);
	if (rc == -ENOENT)
		return rc;	/* said once for all candidates */
	if (rc) {
		note(info, "%s: %s", path, strerror(-rc));
		return rc;
	}
	rc = uc_ksym_map_matches(live, map, NANCHORS, &off);
	if (rc == -ESTALE)
		note(info, "%s does not match the running kernel (text symbols "
		     "differ after the KASLR offset)", path);
	else if (rc)
		note(info, "%s: cannot check it against the running kernel (%s)", path,
		     rc == -ENOENT ? "no _text: a placeholder?" : "no text anchors");
	return rc == -ENOENT ? -ENODATA : rc;	/* -ENOENT: no such file only */
}

/* System.map for the keys kallsyms does not list. live[] = anchors then keys. */
static void resolve_by_map(struct uc_kmem_key *k, size_t n, const bool *need,
			   const struct uc_ksym *live, struct uc_kmem_info *info)
{
	struct uc_ksym *map = calloc(NANCHORS + n, sizeof(*map));
	char rel[64];
	int rc = -ENOENT;

	if (!map)
		return;
	if (uc_kernel_release(rel, sizeof(rel)) < 0)
		snprintf(rel, sizeof(rel), "?");
	snprintf(info->map_path, sizeof(info->map_path), "%s%s%s", map_paths[0][0], rel,
		 map_paths[0][1]);

	if (live[0].rc) {
		/* no running _text, no KASLR offset */
		if (live[0].rc != -EPERM)
			note(info,
			     "System.map: no _text in /proc/kallsyms to compute the KASLR offset");
		goto out;
	}
	for (size_t p = 0; p < NMAPS && rc; p++) {
		char path[sizeof(info->map_path)];

		snprintf(path, sizeof(path), "%s%s%s", map_paths[p][0], rel, map_paths[p][1]);
		if ((rc = try_map(path, map, NANCHORS + n, live, info)) != -ENOENT || !p)
			snprintf(info->map_path, sizeof(info->map_path), "%s", path);
	}
	if (rc == -ENOENT)
		note(info, "no %s (nor under /usr/lib/modules/%s/) to look data symbols up in",
		     info->map_path, rel);
	if (rc)
		goto out;
	for (size_t i = 0; i < n; i++) {
		const struct uc_ksym *m = &map[NANCHORS + i];

		if (!need[i])
			continue;
		if (m->rc == 0) {
			k[i].addr = uc_ksym_relocate(m->addr, map[0].addr, live[0].addr);
			k[i].via_map = true;
			k[i].listed = true;
			k[i].rc = -EINPROGRESS;	/* resolved, not read yet */
		} else {
			k[i].absent = true;
			set_why(&k[i], -ENOENT,
				"not in /proc/kallsyms nor in %s: not in this kernel",
				info->map_path);
		}
	}
out:
	free(map);
}

static void read_values(struct uc_kmem_key *k, size_t n, bool any, struct uc_kmem_info *info)
{
	char reason[UC_KMEM_NOTE_LEN];
	int fd = uc_open("/proc/kcore", O_RDONLY);

	/* opened even when nothing is resolved: its reason belongs in the notes */
	if (fd < 0) {
		uc_kmem_kcore_reason(fd, reason, sizeof(reason));
		note(info, "%s", reason);
		for (size_t i = 0; i < n; i++)
			if (k[i].rc == -EINPROGRESS)
				set_why(&k[i], fd, "%s", reason);
		return;
	}
	for (size_t i = 0; any && i < n; i++) {
		const char *why = NULL;
		int32_t v = 0;
		int rc;

		if (k[i].rc != -EINPROGRESS)
			continue;
		rc = uc_kcore_read_why(fd, k[i].addr, &v, sizeof(v), &why);
		if (rc) {
			set_why(&k[i], rc, "/proc/kcore at %#llx: %s",
				(unsigned long long)k[i].addr, why ? why : strerror(-rc));
			continue;
		}
		/* -1: being enabled right now (jump labels being patched) */
		if (v < -1 || v > (k[i].boolean ? 1 : KEY_COUNT_MAX)) {
			set_why(&k[i], -EBADMSG, "%d at %#llx is not a%s static key count (%s)",
				(int)v, (unsigned long long)k[i].addr, k[i].boolean ? " 0/1" : "",
				k[i].via_map ? "System.map mismatch?" : "wrong address?");
			continue;
		}
		k[i].value = v;
		k[i].rc = 0;
		k[i].why[0] = '\0';
	}
	close(fd);
}

/*
 * Symbol addresses change only at boot (KASLR), but reading /proc/kallsyms
 * costs tens of milliseconds on every write command. So root keeps what it
 * found there in a per-boot cache, /run/uclampctl/ksyms ("boot_id", then
 * "name addr" lines; root's 0600 file in a directory only root can write;
 * anything else is ignored and rewritten). A hint, not a truth: a cached
 * address is trusted for a 0 (off: the answer that makes a write ask); for a
 * 1 only when its line says "name addr 1", read right after this boot's
 * kallsyms gave the address (a boolean key stays 1 until reboot). Anything
 * else, or a key not readable, sends us back to /proc/kallsyms, which
 * rewrites the cache; so may the caller (UC_KMEM_NO_CACHE). Values are
 * always read fresh from /proc/kcore.
 */
#define KSYM_CACHE_DIR "/run/uclampctl"
#define KSYM_CACHE_NAME "ksyms"
#define KSYM_CACHE KSYM_CACHE_DIR "/" KSYM_CACHE_NAME
#define KSYM_CACHE_MAX 4096	/* bytes: a boot_id and a dozen "name addr" lines */
#define KSYM_CACHE_LINES 64

/* Read the cache file whole, if it is what cache_store writes: a regular
 * file (not a link: O_NOFOLLOW; checked on the open fd), owned by root,
 * mode 0600, one link, not empty and not larger than KSYM_CACHE_MAX. */
static bool cache_read(char *buf, size_t n)
{
	struct stat sb;
	ssize_t len = 0, r;
	bool ok;
	int dfd, fd;

	/* in a directory only root can write (uc_dir_open_trusted), not made here */
	dfd = uc_dir_open_trusted(KSYM_CACHE_DIR, 0);
	if (dfd < 0)
		return false;
	fd = openat(dfd, KSYM_CACHE_NAME, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	close(dfd);
	if (fd < 0)
		return false;
	ok = !fstat(fd, &sb) && S_ISREG(sb.st_mode) && sb.st_uid == 0 &&
	     (sb.st_mode & 07777) == 0600 && sb.st_nlink == 1 && sb.st_size > 0 &&
	     sb.st_size < (off_t)n && (size_t)sb.st_size < KSYM_CACHE_MAX;
	while (ok && (size_t)len < n - 1 && (r = read(fd, buf + len, n - 1 - len)) != 0) {
		if (r < 0 && errno == EINTR)
			continue;
		ok = r > 0;
		len += r > 0 ? r : 0;
	}
	close(fd);
	if (!ok || len != sb.st_size || memchr(buf, '\0', (size_t)len))
		return false;
	buf[len] = '\0';
	return true;
}

/* One "name addr" or "name addr 1" line: a symbol name, a nonzero 4-byte
 * aligned hex address (a static key's atomic count) of at most 16 digits,
 * and " 1" when kallsyms confirmed the key at 1 (see above). */
static bool cache_line(char *line, const char **name, uint64_t *addr, bool *on)
{
	size_t len = strlen(line);
	uint64_t a = 0;
	size_t digits = 0;
	char *sp;
	/* "name -": not in this boot's kallsyms (which lists data symbols),
	 * so every later read need not scan it again; addr 0 says so */
	bool absent = len > 2 && !strcmp(line + len - 2, " -");

	if (absent)
		line[len - 1] = '\0';
	*on = !absent && len > 2 && !strcmp(line + len - 2, " 1");
	if (*on)
		line[len - 2] = '\0';
	sp = strchr(line, ' ');
	if (!sp || sp == line || sp - line > 127)
		return false;
	for (const char *c = line; c < sp; c++)
		if (!(*c == '_' || *c == '.' || (*c >= '0' && *c <= '9') ||
		      (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z')))
			return false;
	if (absent && sp[1])
		return false;
	for (const char *c = sp + 1; *c; c++, digits++) {
		int h = *c >= '0' && *c <= '9' ? *c - '0' :
			*c >= 'a' && *c <= 'f' ? *c - 'a' + 10 : -1;

		if (h < 0 || digits >= 16)
			return false;
		a = a << 4 | (uint64_t)h;
	}
	if (!absent && (!digits || !a || (a & 3)))
		return false;
	*sp = '\0';
	*name = line;
	*addr = a;
	return true;
}

/* Back to the state before any address was known. */
static void keys_reset(struct uc_kmem_key *k, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		k[i].rc = -ENODATA;
		k[i].value = 0;
		k[i].addr = 0;
		k[i].via_map = k[i].listed = k[i].absent = k[i].cached = k[i].cached_on = false;
		k[i].why[0] = '\0';
	}
}

/* Fill k[] (reset) from the cache when it is this boot's, well-formed
 * throughout (any bad line, a repeated name or address rejects the whole
 * file) and holds every name; true on a hit. */
static bool cache_load(struct uc_kmem_key *k, size_t n)
{
	char id[64], buf[KSYM_CACHE_MAX], *line, *save = NULL;
	uint64_t seen[KSYM_CACHE_LINES];
	size_t found = 0, nseen = 0;

	if (geteuid() != 0 || uc_boot_id(id, sizeof(id)) || !cache_read(buf, sizeof(buf)))
		return false;
	line = strtok_r(buf, "\n", &save);
	if (!line || strcmp(line, id))
		return false;	/* another boot: other addresses */
	while ((line = strtok_r(NULL, "\n", &save))) {
		const char *name;
		uint64_t addr;
		bool on;

		if (nseen == KSYM_CACHE_LINES || !cache_line(line, &name, &addr, &on))
			goto bad;
		for (size_t j = 0; addr && j < nseen; j++)
			if (seen[j] == addr)
				goto bad;
		seen[nseen++] = addr;
		for (size_t i = 0; i < n; i++) {
			if (strcmp(k[i].name, name))
				continue;
			if (k[i].addr || k[i].absent)
				goto bad;	/* the same name twice */
			k[i].addr = addr;
			k[i].absent = !addr;
			k[i].cached_on = on;
			found++;
		}
	}
	if (found == n) {
		for (size_t i = 0; i < n; i++)
			k[i].cached = true;
		return true;
	}
bad:
	keys_reset(k, n);
	return false;
}

/* After reading through cached addresses: the first key whose reading the
 * cache cannot vouch for (see above), or NULL. */
static const struct uc_kmem_key *cache_doubt(const struct uc_kmem_key *k, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if ((k[i].rc && !k[i].absent) ||
		    (k[i].boolean && k[i].value != (k[i].cached_on ? 1 : 0)))
			return &k[i];
	return NULL;
}

static bool stored(const struct uc_kmem_key *k, size_t n, const char *name, uint64_t addr)
{
	for (size_t i = 0; i < n; i++)
		if (((k[i].addr && !k[i].via_map) || k[i].absent) &&
		    (!strcmp(k[i].name, name) || (addr && k[i].addr == addr)))
			return true;
	return false;
}

/* Keep this boot's lines for the keys other callers cached (the fast path's
 * sched_uclamp_used, keys' and effect's sets): a read of one set must not
 * evict another. */
static size_t cache_keep(const struct uc_kmem_key *k, size_t n, const char *id, char *buf,
			 size_t len, size_t size)
{
	char old[KSYM_CACHE_MAX], *line, *save = NULL;

	if (!cache_read(old, sizeof(old)) || !(line = strtok_r(old, "\n", &save)) ||
	    strcmp(line, id))
		return len;
	while ((line = strtok_r(NULL, "\n", &save)) && len < size) {
		const char *name;
		uint64_t addr;
		bool on;

		if (!cache_line(line, &name, &addr, &on))
			return len;	/* a bad file: only ours */
		if (stored(k, n, name, addr))
			continue;
		if (!addr)
			len += (size_t)snprintf(buf + len, size - len, "%s -\n", name);
		else
			len += (size_t)snprintf(buf + len, size - len, "%s %llx%s\n", name,
						(unsigned long long)addr, on ? " 1" : "");
	}
	return len;
}

/* absent_ok: kallsyms lists data symbols, so a key it lacks is not in this kernel */
static void cache_store(const struct uc_kmem_key *k, size_t n, bool absent_ok)
{
	char id[64], buf[4096];
	struct uc_afile a;
	size_t len;
	int dfd;

	if (geteuid() != 0 || uc_boot_id(id, sizeof(id)))
		return;
	len = (size_t)snprintf(buf, sizeof(buf), "%s\n", id);
	for (size_t i = 0; i < n && len < sizeof(buf); i++)
		if (k[i].absent && absent_ok)
			len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s -\n", k[i].name);
		else if (k[i].addr && !k[i].via_map)
			len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s %llx%s\n",
						k[i].name, (unsigned long long)k[i].addr,
						k[i].boolean && !k[i].rc && k[i].value == 1 ?
						" 1" : "");
	if (len < sizeof(buf))
		len = cache_keep(k, n, id, buf, len, sizeof(buf));
	if (len >= sizeof(buf))
		return;
	/* the file replaced whole, through descriptors (afile.h) */
	dfd = uc_dir_open_trusted(KSYM_CACHE_DIR, 0700);
	if (dfd < 0)
		return;
	if (!uc_afile_create(&a, dfd, KSYM_CACHE_NAME, 0600)) {
		if (write(a.fd, buf, len) == (ssize_t)len && !uc_afile_commit(&a, KSYM_CACHE_NAME))
			uc_afile_close(&a);
		else
			uc_afile_abort(&a);
	}
	close(dfd);
}

/* A cached set that did not hold up, for the note after the re-read. */
struct doubt {
	char text[2 * UC_KMEM_NOTE_LEN];	/* note() keeps what fits */
	size_t i;
	uint64_t addr;
	bool confirm;	/* an "on" only confirmed: silent when kallsyms agrees */
};

/* This boot's cache: true on a hit (k read); else *dt says why it was not used. */
static bool try_cache(struct uc_kmem_key *k, size_t n, struct uc_kmem_info *info,
		      struct doubt *dt)
{
	const struct uc_kmem_key *d;

	if (!cache_load(k, n))
		return false;
	/* addresses root read from this boot's kallsyms: it lists data symbols */
	info->data_symbols = true;
	for (size_t i = 0; i < n; i++) {
		if (k[i].absent) {
			set_why(&k[i], -ENOENT, "%s", not_in_kernel);
			continue;
		}
		k[i].listed = true;
		k[i].rc = -EINPROGRESS;
	}
	read_values(k, n, true, info);
	d = cache_doubt(k, n);
	if (!d) {
		info->cache = UC_KMEM_CACHE_HIT;
		return true;
	}
	dt->i = (size_t)(d - k);
	dt->addr = d->addr;
	dt->confirm = !d->rc && (d->value == 1 || d->value == -1);
	if (d->rc)
		snprintf(dt->text, sizeof(dt->text), "%s: %s: %s; addresses re-read from "
			 "/proc/kallsyms", KSYM_CACHE, d->name, d->why);
	else
		snprintf(dt->text, sizeof(dt->text), "%s: %s reads %d at its cached address "
			 "%#llx; addresses re-read from /proc/kallsyms",
			 KSYM_CACHE, d->name, (int)d->value, (unsigned long long)d->addr);
	info->cache = UC_KMEM_CACHE_DISCARDED;
	info->data_symbols = false;
	keys_reset(k, n);
	return false;
}

/* One kallsyms pass for all[0..nall) (the caller's n first; System.map for
 * theirs where kallsyms hides data), their values, and the cache stored;
 * false when /proc/kallsyms could not be read. */
static bool kallsyms_pass(struct uc_kmem_key *all, size_t n, size_t nall, struct uc_ksym *live,
			  bool *need, struct uc_kmem_info *info, unsigned int flags)
{
	struct uc_ksym_stats st;
	char hidden[UC_KMEM_NOTE_LEN];
	bool need_map = false, any = false;
	int rc;

	for (size_t i = 0; i < NANCHORS; i++)
		live[i].name = anchors[i];
	for (size_t i = 0; i < nall; i++)
		live[NANCHORS + i].name = all[i].name;
	rc = uc_ksym_lookup_many("/proc/kallsyms", live, NANCHORS + nall, &st);
	if (rc) {
		note(info,
		     rc == -ENOENT ? "no /proc/kallsyms (kernel built without CONFIG_KALLSYMS)"
				   : "/proc/kallsyms: %s",
		     strerror(-rc));
		for (size_t i = 0; i < n; i++)
			set_why(&all[i], -ENODATA,
				"no symbol addresses (/proc/kallsyms unreadable)");
		read_values(all, n, false, info);
		return false;
	}
	info->data_symbols = uc_ksym_has_data_symbols(&st);
	info->hidden = st.lines > 0 && st.nonzero == 0;
	uc_kmem_hidden_reason(hidden, sizeof(hidden));
	if (info->hidden)
		note(info, "%s", hidden);

	for (size_t i = 0; i < nall; i++) {
		const struct uc_ksym *s = &live[NANCHORS + i];

		if (s->rc == 0) {
			all[i].addr = s->addr;
			all[i].listed = true;
			all[i].rc = -EINPROGRESS;
		} else if (s->rc == -EPERM) {
			all[i].listed = true;
			set_why(&all[i], -EPERM, "%s", hidden);
		} else if (info->data_symbols) {
			all[i].absent = true;
			set_why(&all[i], -ENOENT, "%s", not_in_kernel);
		} else {
			/* System.map for the caller's only: its addresses are
			 * never cached, so an extra would gain nothing */
			need[i] = i < n;
			need_map |= need[i];
			set_why(&all[i], -ENOENT, "%s", no_data_symbols);
		}
	}
	if (need_map) {
		note(info, "%s", no_data_symbols);
		resolve_by_map(all, n, need, live, info);
	}
	for (size_t i = 0; i < nall; i++)
		any |= all[i].rc == -EINPROGRESS;
	/* its notes are the kcore open's only: nothing about one key */
	read_values(all, nall, any, info);
	/* after the values: a key at 1 is stored as confirmed */
	if (any && !info->hidden && !(flags & UC_KMEM_NO_CACHE_WRITE))
		cache_store(all, nall, info->data_symbols);
	return true;
}

int uc_kmem_read_keys_flags(struct uc_kmem_key *k, size_t n, struct uc_kmem_info *info,
			    unsigned int flags)
{
	/* the caller's keys, then the shared ones it did not ask for (kallsyms only) */
	struct uc_kmem_key *all = calloc(n + NSHARED, sizeof(*all));
	struct uc_ksym *live = calloc(NANCHORS + n + NSHARED, sizeof(*live));
	bool *need = calloc(n + NSHARED, sizeof(*need));
	struct doubt dt = { .text = "" };
	bool asked[NSHARED] = { false };	/* the caller's k[] has shared_keys[j] */
	size_t nall = n;
	bool ok;

	memset(info, 0, sizeof(*info));
	if (!all || !live || !need) {
		free(all);
		free(live);
		free(need);
		return -ENOMEM;
	}
	keys_reset(k, n);
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < NSHARED; j++)
			if (!strcmp(k[i].name, shared_keys[j].name)) {
				k[i].boolean |= shared_keys[j].boolean;
				asked[j] = true;
			}
	if (flags & UC_KMEM_NO_CACHE)
		info->cache = UC_KMEM_CACHE_DISCARDED;
	else if (try_cache(k, n, info, &dt))
		goto out;

	/* kallsyms is read anyway: the other shared keys ride along, so the
	 * next command's set hits the cache (one pass per boot, not one per set) */
	if (n)
		memcpy(all, k, n * sizeof(*k));
	for (size_t j = 0; j < NSHARED; j++) {
		if (asked[j])
			continue;
		all[nall].name = shared_keys[j].name;
		all[nall].boolean = shared_keys[j].boolean;
		keys_reset(&all[nall++], 1);
	}
	ok = kallsyms_pass(all, n, nall, live, need, info, flags);
	if (n)
		memcpy(k, all, n * sizeof(*k));
	if (ok && dt.text[0] && !(dt.confirm && k[dt.i].addr == dt.addr))
		note(info, "%s", dt.text);
out:
	free(all);
	free(live);
	free(need);
	return 0;
}
