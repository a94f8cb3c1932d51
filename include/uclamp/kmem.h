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

/* ---- the ELF core reader (kcore.c): N bytes at a kernel virtual address ---- */

/* Read len bytes at vaddr from the ELF64 core open on fd (the PT_LOAD that
 * covers [vaddr, vaddr+len) whole). 0, or -ENOEXEC (not an ELF64 core,
 * truncated headers), -EFAULT (no segment covers it), -EIO (short read),
 * -errno. Reads nothing but the headers and those bytes.
 * On failure *why (when not NULL) points at a static one-line reason
 * ("not an ELF file (bad magic)", "32-bit ELF", ...). */
int uc_kcore_read_why(int fd, uint64_t vaddr, void *buf, size_t len, const char **why);

/* ---- the keys' reader (kmem.c) ---- */

/* The keys the commands read through the per-boot cache (the fast path's,
 * effect.c's placement keys). kmem.c's list of them says which are boolean;
 * a kallsyms pass for any caller resolves and caches them all, so the next
 * caller's set is a cache hit. */
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
	int kallsyms_rc;	/* reading /proc/kallsyms: 0 or -errno */
	bool data_symbols;	/* kallsyms lists data symbols (CONFIG_KALLSYMS_ALL) */
	bool hidden;		/* kallsyms addresses are zeroed (kptr_restrict) */
	/* System.map: 0 used, 1 not needed, -errno (-ESTALE: another build) */
	int map_rc;
	char map_path[96];	/* the System.map used or refused ("/boot/System.map-" + release) */
	int kcore_rc;		/* opening /proc/kcore: 0, 1 not tried, -errno */
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

/* Resolve and read each key. Returns 0; per-key rc/why and info's notes say
 * what could not be done (-ENOENT: absent, -EPERM/-EACCES: not allowed,
 * -ENODATA: no address, -EIO/-ENOEXEC/-EFAULT: kcore). When /proc/kallsyms
 * is read, the UC_KMEM_KEY_* not in k[] are resolved and cached too; info
 * says nothing about them. */
int uc_kmem_read_keys(struct uc_kmem_key *k, size_t n, struct uc_kmem_info *info);

/* The same; UC_KMEM_NO_CACHE skips the per-boot address cache (the caller
 * found its reading contradicted): /proc/kallsyms is read and the cache
 * rewritten. */
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

/* One line on why /proc/kallsyms shows zeroed addresses (kptr_restrict,
 * perf_event_paranoid, CAP_SYSLOG), and why opening /proc/kcore failed with
 * err (no CONFIG_PROC_KCORE, lockdown=confidentiality, not root, no
 * CAP_SYS_RAWIO). These three are used inside kmem.c; exported for
 * test_fastpath.c. */
void uc_kmem_hidden_reason(char *buf, size_t n);
void uc_kmem_kcore_reason(int err, char *buf, size_t n);

/* Does this process have capability cap (CAP_SYS_RAWIO, CAP_SYSLOG) in its
 * effective set? */
bool uc_have_cap(int cap);

#endif
