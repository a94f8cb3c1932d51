/*
 * The proc connector (NETLINK_CONNECTOR, CN_IDX_PROC) as a small stream of
 * decoded events. procevents.c is the only file that includes libnl-3; the
 * daemon above it sees struct uc_pev only, so tests feed it synthetic ones.
 * See kernel-uclamp.md §8.
 */
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
	uint32_t seq, ack;	/* cn_msg seq/ack: ours comes back as our ack + 1 (the seq is
				   the kernel's per-CPU counter, not ours) */
	/* 0 or a positive errno (EPERM before 6.6 without CAP_NET_ADMIN) */
	uint32_t err;
};

/* Decode one netlink payload (cn_msg + proc_event), without the nlmsghdr.
 * Pure: tests use it on crafted bytes (this and the encoder below are used
 * inside procevents.c; exported for test_procevents.c). */
enum uc_pev_kind uc_pev_decode(const void *payload, size_t len, struct uc_pev *ev,
			       struct uc_pev_ack *ack);

/* Encode the subscription request payload (cn_msg + op, or + proc_input
 * when 'mask' is nonzero): the bytes after the nlmsghdr. Returns the length. */
size_t uc_pev_encode_op(void *buf, size_t n, bool listen, uint32_t mask, uint32_t seq,
			uint32_t ack);

/*
 * The socket filter (procev_filter.c): a classic BPF program that keeps the
 * events in 'keep' (UC_PEV_* bits; FORK and EXIT: of processes only, never
 * of threads), exec, comm and the acks always, and anything it cannot read
 * as a proc event; it drops the other proc events in the kernel, before they
 * wake us. Writes at most 'cap' instructions to prog; returns how many, or
 * -E2BIG. Pure: tests run the program on crafted messages.
 */
#define UC_PEV_FILTER_MAX 32
struct sock_filter;
int uc_pev_filter_build(struct sock_filter *prog, size_t cap, uint32_t keep);

struct uc_procev;

/* Open the socket and join CN_IDX_PROC. rcvbuf: bytes (SO_RCVBUFFORCE when
 * allowed, else SO_RCVBUF). -EPERM: the group needs CAP_NET_ADMIN (before
 * 6.6); -EPROTONOSUPPORT / -ENOENT: no CONFIG_CONNECTOR / PROC_EVENTS. */
int uc_procev_open(struct uc_procev **out, int rcvbuf);
void uc_procev_close(struct uc_procev *pe);
int uc_procev_fd(const struct uc_procev *pe);

/*
 * Subscribe (listen) or unsubscribe and wait up to timeout_ms for the
 * kernel's answer to the 4-byte request. mask != 0 (only on 6.6+: older
 * kernels drop other lengths) then narrows the subscription with the
 * proc_input form, which is never answered (the kernel's filter drops the
 * ack for a filtered listener). Returns 0, the kernel's -errno (-EPERM),
 * or -ETIMEDOUT: no answer, which means the kernel ignored the request (a
 * non-initial user or PID namespace). Events read while waiting are
 * dropped: the caller scans /proc after this. Unsubscribing answers
 * nothing when we were the last listener (the kernel acks only while
 * someone listens), so -ETIMEDOUT is normal there.
 */
int uc_procev_subscribe(struct uc_procev *pe, bool listen, uint32_t mask, int timeout_ms);
/* True when the kernel filters for us (the 6.6+ form was accepted): the
 * per-CPU sequence then skips the events we did not ask for. */
bool uc_procev_filtered(const struct uc_procev *pe);
/* Attach (or replace) the socket filter for 'keep' (see uc_pev_filter_build).
 * 0 or -errno; on failure the socket has no filter (every event comes).
 * Filtered events still use up the kernel's per-CPU sequence numbers. */
int uc_procev_set_filter(struct uc_procev *pe, uint32_t keep);

/* Called per event (acks too, what == UC_PEV_NONE: they use up sequence
 * numbers); return nonzero to stop reading (the rest stays queued). */
typedef int (*uc_pev_fn)(const struct uc_pev *ev, void *data);

/*
 * Read what is queued without blocking and call fn per event, at most
 * 'max' datagrams. Returns the number of events delivered (>= 0; fewer
 * when fn asked to stop), -ENOBUFS when the socket overran (events were
 * lost: rescan; the socket stays usable), or another -errno.
 */
int uc_procev_read(struct uc_procev *pe, uc_pev_fn fn, void *data, size_t max);

#endif
