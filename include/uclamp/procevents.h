/* The proc connector as a stream of decoded events (procevents.c, the only
 * user of libnl-3): the daemon sees struct uc_pev only. */
#ifndef UCLAMP_PROCEVENTS_H
#define UCLAMP_PROCEVENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* enum proc_cn_event (include/uapi/linux/cn_proc.h), our copy: Debian 12's
 * headers predate the 6.6 filter. */
#define UC_PEV_NONE 0x00000000u
#define UC_PEV_FORK 0x00000001u
#define UC_PEV_EXEC 0x00000002u
#define UC_PEV_UID 0x00000004u
#define UC_PEV_GID 0x00000040u
#define UC_PEV_SID 0x00000080u
#define UC_PEV_PTRACE 0x00000100u
#define UC_PEV_COMM 0x00000200u
#define UC_PEV_COREDUMP 0x40000000u
#define UC_PEV_EXIT 0x80000000u

struct uc_pev {
	uint32_t what;		/* UC_PEV_* */
	uint32_t cpu;
	/* cn_msg.seq: per CPU, +1 per event sent (filtered ones too) */
	uint32_t seq;
	uint64_t ts_ns;		/* CLOCK_MONOTONIC (ktime_get_ns) when the kernel sent it */
	pid_t pid, tgid;	/* EXEC/COMM/UID/GID/EXIT: the task; FORK: the child */
	pid_t parent_pid, parent_tgid;	/* FORK */
	uint32_t id;		/* UID/GID: the new effective ID */
	char comm[16];		/* COMM */
};

/* A decoded message: an event, the answer to a subscription, or neither. */
enum uc_pev_kind {
	UC_PEV_KIND_EVENT,
	UC_PEV_KIND_ACK,	/* what == NONE: ack_seq/ack/err filled */
	UC_PEV_KIND_OTHER,	/* another connector, short or foreign: ignore */
};

struct uc_pev_ack {
	uint32_t seq, ack;	/* cn_msg seq/ack: ours comes back as our ack + 1 */
	/* 0 or a positive errno (EPERM before 6.6 without CAP_NET_ADMIN) */
	uint32_t err;
};

/* Decode one netlink payload (cn_msg + proc_event, no nlmsghdr). Pure; it and
 * the encoder are exported for test_procevents.c. */
enum uc_pev_kind uc_pev_decode(const void *payload, size_t len, struct uc_pev *ev,
			       struct uc_pev_ack *ack);

/* The subscription request after the nlmsghdr (proc_input when mask != 0). */
size_t uc_pev_encode_op(void *buf, size_t n, bool listen, uint32_t mask, uint32_t seq,
			uint32_t ack);

/* The socket filter (procev_filter.c): classic BPF keeping the events in keep
 * (FORK, EXIT: of processes), exec, comm, acks and anything unreadable. At
 * most cap instructions: how many, or -E2BIG. */
#define UC_PEV_FILTER_MAX 32
struct sock_filter;
int uc_pev_filter_build(struct sock_filter *prog, size_t cap, uint32_t keep);

struct uc_procev;

/* Open the socket and join CN_IDX_PROC: -EPERM (CAP_NET_ADMIN before 6.6),
 * -EPROTONOSUPPORT / -ENOENT (no CONFIG_CONNECTOR / PROC_EVENTS). */
int uc_procev_open(struct uc_procev **out, int rcvbuf);
void uc_procev_close(struct uc_procev *pe);
int uc_procev_fd(const struct uc_procev *pe);

/* (Un)subscribe and wait up to timeout_ms for the ack; mask != 0 (6.6+) then
 * narrows it, unanswered (procevents.c). 0, the kernel's -errno, or -ETIMEDOUT
 * (ignored: another namespace). Events read meanwhile are dropped. */
int uc_procev_subscribe(struct uc_procev *pe, bool listen, uint32_t mask, int timeout_ms);
/* The kernel filters for us (6.6+): its sequence skips what we did not ask. */
bool uc_procev_filtered(const struct uc_procev *pe);
/* Attach (or replace) the socket filter: 0, or -errno and no filter. */
int uc_procev_set_filter(struct uc_procev *pe, uint32_t keep);

/* Per event (acks too: what == UC_PEV_NONE); nonzero stops reading. */
typedef int (*uc_pev_fn)(const struct uc_pev *ev, void *data);

/* Read up to max queued datagrams without blocking: events delivered,
 * -ENOBUFS (overrun: events lost, rescan), or -errno. */
int uc_procev_read(struct uc_procev *pe, uc_pev_fn fn, void *data, size_t max);

#endif
