/*
 * Reading static keys from kernel memory: the address from /proc/kallsyms
 * (or /boot/System.map-REL plus the KASLR offset), the 4-byte 'enabled'
 * count from /proc/kcore. Shared by the fast-path detection and 'keys'.
 * Every path goes through sysroot.h. Never reads more than 4 bytes a key.
 */
#ifndef UCLAMP_KMEM_H
#define UCLAMP_KMEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- symbol addresses from /proc/kallsyms and System.map (kallsyms.c): ------
 * "ADDR TYPE NAME" a line; the first occurrence outside a module wins */

struct uc_ksym {
	const char *name;	/* in */
	uint64_t addr;		/* out, valid when rc == 0 */
	char type;		/* out: 'T', 'B', 'd', ... when seen */
	/* out: 0, -ENOENT absent, -EPERM listed with a zeroed address */
	int rc;
};

struct uc_ksym_stats {
	size_t lines;		/* symbol lines parsed (vmlinux and modules) */
	size_t modules;		/* of which module ([mod]) lines */
	size_t bad;		/* lines that did not parse (ignored) */
	size_t nonzero;		/* vmlinux lines with a nonzero address */
	/* vmlinux data symbols (b d r g s v, either case) not named "__*" */
	size_t data;
	bool partial;		/* the scan stopped early: the counts cover the lines read */
};

/* A handful of ordinary data names proves CONFIG_KALLSYMS_ALL (without it only
 * "__start_*"/"__stop_*" markers are data). */
#define UC_KSYM_ALL_MIN 8
bool uc_ksym_has_data_symbols(const struct uc_ksym_stats *st);

/* read(2) size; exported for test_kallsyms.c (lines cut between blocks) */
#define UC_KSYM_BLOCK 65536

/* One pass resolving syms[0..n), each with its rc; it stops once all are found
 * (and st, if given, proves data symbols: st->partial). 0 or -errno. */
int uc_ksym_lookup_many(const char *abspath, struct uc_ksym *syms, size_t n,
			struct uc_ksym_stats *st);

/* Parse one line (name points into it): 0 or -EINVAL. Exported for
 * test_kallsyms.c and fuzz_kallsyms.c. */
int uc_ksym_parse_line(const char *line, uint64_t *addr, char *type, const char **name,
		       size_t *name_len, bool *module);

/* KASLR: a System.map address as running (offset live_text - map_text, mod 2^64). */
uint64_t uc_ksym_relocate(uint64_t map_addr, uint64_t map_text, uint64_t live_text);

/* Is a System.map the running kernel's? live[] and map[]: the same names
 * ("_text" first, then text anchors). 0 and *offset when they agree; -EPERM,
 * -ENOENT (no _text), -ENODATA (no anchor), -ESTALE (another build). */
int uc_ksym_map_matches(const struct uc_ksym *live, const struct uc_ksym *map, size_t n,
			uint64_t *offset);

/* ---- the ELF core reader (kcore.c): N bytes at a kernel virtual address ---- */

/* len bytes at vaddr from the ELF64 core on fd (one PT_LOAD covering them):
 * 0, -ENOEXEC, -EFAULT (not covered), -EIO, -errno; *why (if not NULL) a
 * static one-line reason. Reads only the headers and those bytes. */
int uc_kcore_read_why(int fd, uint64_t vaddr, void *buf, size_t len, const char **why);

/* ---- the keys' reader (kmem.c) ---- */

/* The keys read through the per-boot cache: a kallsyms pass for any caller
 * resolves and caches them all (kmem.c's list says which are boolean). */
#define UC_KMEM_KEY_UCLAMP_USED "sched_uclamp_used"
#define UC_KMEM_KEY_ASYM_CPUCAPACITY "sched_asym_cpucapacity"
#define UC_KMEM_KEY_ENERGY_PRESENT "sched_energy_present"
/* frequency invariance: x86 (64-bit SMP); arm, arm64 (cpufreq-driven) */
#define UC_KMEM_KEY_FREQ_INVARIANT "arch_scale_freq_key"
#define UC_KMEM_KEY_CPUFREQ_INVARIANT "cpufreq_freq_invariance"

#define UC_KMEM_MAX_NOTES 16
#define UC_KMEM_NOTE_LEN 160

struct uc_kmem_key {
	const char *name;	/* in */
	int rc;			/* 0: value read; else -errno, and why says it */
	/* the key's 'enabled' count (first 4 bytes of struct static_key) */
	int32_t value;
	uint64_t addr;		/* running address, when resolved */
	bool via_map;		/* the address came from System.map + KASLR offset */
	/* the kernel has this symbol (kallsyms or System.map lists it) */
	bool listed;
	bool absent;		/* certainly not in this kernel (a full symbol list lacks it) */
	bool boolean;		/* in: only ever enabled (static_branch_enable), never counted:
				   any value but 0 or 1 means a wrong address (kmem.c
				   sets it for the UC_KMEM_KEY_* it knows are) */
	bool cached;		/* the address came from the per-boot cache (see kmem.c) */
	/* the cache also says the key read 1 there after this boot's kallsyms gave it */
	bool cached_on;
	char why[UC_KMEM_NOTE_LEN];
};

struct uc_kmem_info {
	bool data_symbols;	/* kallsyms lists data symbols (CONFIG_KALLSYMS_ALL) */
	bool hidden;		/* kallsyms addresses are zeroed (kptr_restrict) */
	char map_path[96];	/* the System.map used or refused ("/boot/System.map-" + release) */
	char notes[UC_KMEM_MAX_NOTES][UC_KMEM_NOTE_LEN];	/* why a method was unavailable */
	size_t nnotes;
	int cache;		/* UC_KMEM_CACHE_*: what the per-boot address cache did */
};

enum {
	UC_KMEM_CACHE_UNUSED,	/* none, not root, not trusted, or another boot's */
	UC_KMEM_CACHE_HIT,	/* every address from the cache */
	/* a reading contradicted it: re-read /proc/kallsyms (a note says why) */
	UC_KMEM_CACHE_DISCARDED,
};

/* Resolve and read each key: 0; per-key rc/why and info's notes say what could
 * not be done. A kallsyms pass also caches the UC_KMEM_KEY_* not in k[].
 * UC_KMEM_NO_CACHE: the caller found the cache contradicted, so
 * /proc/kallsyms is read and the cache rewritten. */
#define UC_KMEM_NO_CACHE 0x1
/* UC_KMEM_NO_CACHE_WRITE: use the cache where there is one, never write it
 * (a reader that promises to write nothing: 'top') */
#define UC_KMEM_NO_CACHE_WRITE 0x2
int uc_kmem_read_keys_flags(struct uc_kmem_key *k, size_t n, struct uc_kmem_info *info,
			    unsigned int flags);

/* The lockdown state from /sys/kernel/security/lockdown ("none",
 * "integrity", "confidentiality"). 0, or -errno (-ENOENT: no lockdown LSM
 * or securityfs not mounted). */
int uc_lockdown_state(char *buf, size_t n);

/* One line on why kallsyms shows zeroed addresses, and why opening
 * /proc/kcore failed with err. Exported for test_fastpath.c. */
void uc_kmem_hidden_reason(char *buf, size_t n);
void uc_kmem_kcore_reason(int err, char *buf, size_t n);

/* cap (CAP_SYS_RAWIO, CAP_SYSLOG) in this process's effective set */
bool uc_have_cap(int cap);

#endif
