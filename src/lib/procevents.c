/*
 * The proc connector through libnl-3 (kernel-uclamp.md §8), opened when watch
 * starts. libnl sets the socket up and walks the netlink headers; receiving is
 * one recvfrom() per datagram into our buffer: nl_recvmsgs() would malloc per
 * datagram and message (bad in an exec storm), route NLMSG_DONE to
 * NL_CB_FINISH and rename ENOBUFS. libnl's traps stay closed: no sequence
 * check (the kernel's seq is per CPU), no auto-ack (the connector never acks).
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/filter.h>
#include <linux/netlink.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>

#include "uclamp/dlib.h"
#include "uclamp/procevents.h"
#include "uclamp/sysroot.h"

UC_DLIB_FNS(dlu, UC_NL_FNS);
#define dl dlu.f

/* include/uapi/linux/connector.h and cn_proc.h */
#define CN_IDX_PROC 1
#define CN_VAL_PROC 1
#define PROC_CN_MCAST_LISTEN 1
#define PROC_CN_MCAST_IGNORE 2
#define CN_MSG_HDR 20		/* struct cn_msg without data */
#define PEV_HDR 16		/* struct proc_event: what, cpu, timestamp_ns */
#define PEV_DATA (CN_MSG_HDR + PEV_HDR)

/* One datagram holds one event (< 100 bytes); leave room for anything bigger. */
#define RECV_BUF 8192

struct uc_procev {
	struct nl_sock *sk;
	int fd;
	bool filtered;
	uint32_t next_seq;		/* our cn_msg seq for requests */
	unsigned char buf[RECV_BUF] __attribute__((aligned(8)));
};

static uint32_t get32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

enum uc_pev_kind uc_pev_decode(const void *payload, size_t len, struct uc_pev *ev,
			       struct uc_pev_ack *ack)
{
	const unsigned char *p = payload, *d = p + PEV_DATA;
	uint16_t dlen;

	if (len < PEV_DATA + 4 || get32(p) != CN_IDX_PROC || get32(p + 4) != CN_VAL_PROC)
		return UC_PEV_KIND_OTHER;
	memcpy(&dlen, p + 16, sizeof(dlen));
	if ((size_t)dlen + CN_MSG_HDR > len || dlen < PEV_HDR + 4)
		return UC_PEV_KIND_OTHER;
	len = (size_t)dlen - PEV_HDR;	/* bytes of event_data */
	memset(ev, 0, sizeof(*ev));
	ev->what = get32(p + CN_MSG_HDR);
	ev->cpu = get32(p + CN_MSG_HDR + 4);
	memcpy(&ev->ts_ns, p + CN_MSG_HDR + 8, sizeof(ev->ts_ns));
	ev->seq = get32(p + 8);
	switch (ev->what) {
	case UC_PEV_NONE:
		if (ack) {
			ack->seq = get32(p + 8);
			ack->ack = get32(p + 12);
			ack->err = get32(d);
		}
		return UC_PEV_KIND_ACK;
	case UC_PEV_FORK:
		if (len < 16)
			return UC_PEV_KIND_OTHER;
		ev->parent_pid = (pid_t)get32(d);
		ev->parent_tgid = (pid_t)get32(d + 4);
		ev->pid = (pid_t)get32(d + 8);
		ev->tgid = (pid_t)get32(d + 12);
		return UC_PEV_KIND_EVENT;
	case UC_PEV_UID:
	case UC_PEV_GID:
		if (len < 16)
			return UC_PEV_KIND_OTHER;
		ev->id = get32(d + 12);		/* euid / egid */
		break;
	case UC_PEV_COMM:
		if (len < 8 + 16)
			return UC_PEV_KIND_OTHER;
		memcpy(ev->comm, d + 8, 15);
		ev->comm[15] = '\0';
		break;
	default:
		if (len < 8)
			return UC_PEV_KIND_OTHER;
	}
	/* exec, id, comm, exit, sid, ptrace, coredump: process_pid, process_tgid first */
	ev->pid = (pid_t)get32(d);
	ev->tgid = (pid_t)get32(d + 4);
	return UC_PEV_KIND_EVENT;
}

size_t uc_pev_encode_op(void *buf, size_t n, bool listen, uint32_t mask, uint32_t seq, uint32_t ack)
{
	unsigned char *p = buf;
	uint32_t op = listen ? PROC_CN_MCAST_LISTEN : PROC_CN_MCAST_IGNORE, v;
	uint16_t dlen = mask ? 8 : 4;

	if (n < (size_t)CN_MSG_HDR + dlen)
		return 0;
	memset(p, 0, CN_MSG_HDR + dlen);
	v = CN_IDX_PROC;
	memcpy(p, &v, 4);
	v = CN_VAL_PROC;
	memcpy(p + 4, &v, 4);
	memcpy(p + 8, &seq, 4);
	memcpy(p + 12, &ack, 4);
	memcpy(p + 16, &dlen, 2);	/* flags (p + 18): 0 */
	/* struct proc_input { mcast_op; event_type; } (6.6+) or the bare op */
	memcpy(p + CN_MSG_HDR, &op, 4);
	if (mask)
		memcpy(p + CN_MSG_HDR + 4, &mask, 4);
	return CN_MSG_HDR + dlen;
}

int uc_procev_fd(const struct uc_procev *pe)
{
	return pe->fd;
}

bool uc_procev_filtered(const struct uc_procev *pe)
{
	return pe->filtered;
}

int uc_procev_set_filter(struct uc_procev *pe, uint32_t keep)
{
	struct sock_filter prog[UC_PEV_FILTER_MAX];
	struct sock_fprog fp = { .filter = prog };
	int n = uc_pev_filter_build(prog, UC_PEV_FILTER_MAX, keep);

	if (n < 0)
		return n;
	fp.len = (unsigned short)n;
	if (!setsockopt(pe->fd, SOL_SOCKET, SO_ATTACH_FILTER, &fp, sizeof(fp)))
		return 0;
	n = -errno;
	/* an old filter may lack what the caller now needs: everything, then */
	setsockopt(pe->fd, SOL_SOCKET, SO_DETACH_FILTER, &n, sizeof(n));
	return n;
}

/* libnl returns -NLE_*; the errno behind it is what we report. */
static int sys_err(int fallback)
{
	return errno ? -errno : fallback;
}

int uc_procev_open(struct uc_procev **out, int rcvbuf)
{
	struct uc_procev *pe = calloc(1, sizeof(*pe));
	int rc;

	*out = NULL;
	if (!pe)
		return -ENOMEM;
	if (UC_DLIB_LOAD(UC_DLIB_NL, dlu)) {
		free(pe);
		return -ENOPKG;
	}
	pe->fd = -1;
	pe->next_seq = (uint32_t)getpid() << 8;	/* distinct from other listeners' requests */
	pe->sk = dl.nl_socket_alloc();
	if (!pe->sk) {
		free(pe);
		return -ENOMEM;
	}
	dl.nl_socket_disable_seq_check(pe->sk);
	dl.nl_socket_disable_auto_ack(pe->sk);
	errno = 0;
	rc = dl.nl_connect(pe->sk, NETLINK_CONNECTOR);
	if (rc < 0) {
		rc = sys_err(-EPROTONOSUPPORT);
		goto fail;
	}
	errno = 0;
	rc = dl.nl_socket_add_membership(pe->sk, CN_IDX_PROC);
	if (rc < 0) {
		rc = sys_err(-EPERM);
		goto fail;
	}
	pe->fd = dl.nl_socket_get_fd(pe->sk);
	dl.nl_socket_set_nonblocking(pe->sk);
	/* root may go past net.core.rmem_max: an exec storm must not overrun */
	if (rcvbuf > 0 &&
	    setsockopt(pe->fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf)) < 0)
		dl.nl_socket_set_buffer_size(pe->sk, rcvbuf, 0);
	*out = pe;
	return 0;
fail:
	dl.nl_socket_free(pe->sk);
	free(pe);
	return rc;
}

void uc_procev_close(struct uc_procev *pe)
{
	if (!pe)
		return;
	dl.nl_socket_free(pe->sk);
	free(pe);
}

/* One datagram from the kernel into pe->buf: its length, 0 when none is
 * queued, -ENOBUFS on an overrun, or -errno. */
static ssize_t recv_one(struct uc_procev *pe)
{
	struct sockaddr_nl sa;
	socklen_t salen = sizeof(sa);

	for (;;) {
		ssize_t n = recvfrom(pe->fd, pe->buf, sizeof(pe->buf), MSG_DONTWAIT,
				     (struct sockaddr *)&sa, &salen);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -errno;
		if (n == 0)
			return 0;
		/* only the kernel speaks here: drop anything a process sent us */
		if (salen != sizeof(sa) || sa.nl_pid != 0)
			continue;
		return n;
	}
}

/* Walk the netlink messages of one datagram: call fn per proc event,
 * note a matching ack. Returns events delivered; *stop set by fn. */
static int walk_datagram(struct uc_procev *pe, size_t n, uc_pev_fn fn, void *data, bool *stop,
			 const struct uc_pev_ack *want, struct uc_pev_ack *got, bool *acked)
{
	struct nlmsghdr *h = (struct nlmsghdr *)pe->buf;
	int remaining = (int)n, count = 0;

	for (; dl.nlmsg_ok(h, remaining); h = dl.nlmsg_next(h, &remaining)) {
		struct uc_pev ev;
		struct uc_pev_ack ack;

		if (h->nlmsg_type != NLMSG_DONE)
			continue;	/* the connector sends everything as NLMSG_DONE */
		switch (uc_pev_decode(dl.nlmsg_data(h), (size_t)dl.nlmsg_datalen(h), &ev, &ack)) {
		case UC_PEV_KIND_ACK:
			if (want && ack.ack == want->ack + 1) {
				*got = ack;
				*acked = true;
			}
			/* an ack (anyone's) uses up a sequence number too: pass it on */
			/* fall through */
		case UC_PEV_KIND_EVENT:
			if (fn && !*stop) {
				count++;
				if (fn(&ev, data))
					*stop = true;
			}
			break;
		default:
			break;
		}
	}
	return count;
}

int uc_procev_read(struct uc_procev *pe, uc_pev_fn fn, void *data, size_t max)
{
	int count = 0;
	bool stop = false, acked = false;

	for (size_t i = 0; i < max && !stop; i++) {
		ssize_t n = recv_one(pe);

		if (n < 0)
			return (int)n;
		if (n == 0)
			break;
		count += walk_datagram(pe, (size_t)n, fn, data, &stop, NULL, NULL, &acked);
	}
	return count;
}

/* Send one request (our seq is 0): 0 or -errno. */
static int send_op(struct uc_procev *pe, bool listen, uint32_t mask, uint32_t ack)
{
	unsigned char req[CN_MSG_HDR + 8];
	size_t len = uc_pev_encode_op(req, sizeof(req), listen, mask, 0, ack);

	errno = 0;
	return dl.nl_send_simple(pe->sk, NLMSG_DONE, 0, req, len) < 0 ? sys_err(-EIO) : 0;
}

/* Send one request and wait for its ack: 0, -errno from the kernel, -ETIMEDOUT. */
static int request(struct uc_procev *pe, bool listen, uint32_t mask, int timeout_ms)
{
	/* the kernel's send_msg() overwrites the seq with its per-CPU counter:
	 * only the ack (ours + 1) identifies our answer */
	struct uc_pev_ack want = { .seq = 0, .ack = pe->next_seq++ }, got = { 0 };
	int64_t deadline = (int64_t)uc_now_ms() + timeout_ms;
	bool acked = false, stop = false;
	int rc = send_op(pe, listen, mask, want.ack);

	if (rc)
		return rc;
	while (!acked) {
		int64_t left = deadline - (int64_t)uc_now_ms();
		struct pollfd pfd = { .fd = pe->fd, .events = POLLIN };
		ssize_t n;

		if (left <= 0)
			return -ETIMEDOUT;
		rc = poll(&pfd, 1, (int)left);
		if (rc < 0 && errno != EINTR)
			return -errno;
		if (rc <= 0)
			continue;
		while (!acked && (n = recv_one(pe)) != 0) {
			if (n == -ENOBUFS)
				/* events before the scan do not matter; the ack might */
				continue;
			if (n < 0)
				return (int)n;
			walk_datagram(pe, (size_t)n, NULL, NULL, &stop, &want, &got, &acked);
		}
	}
	return got.err ? -(int)got.err : 0;
}

int uc_procev_subscribe(struct uc_procev *pe, bool listen, uint32_t mask, int timeout_ms)
{
	int rc;

	if (!listen)	/* no answer when we were the last listener: -ETIMEDOUT is normal */
		return request(pe, false, 0, timeout_ms);
	/* the 4-byte form first: every kernel answers it, so the ack proves we
	 * are heard (a non-initial namespace is ignored) and carries EPERM */
	pe->filtered = false;
	rc = request(pe, true, 0, timeout_ms);
	if (rc || !mask)
		return rc;
	/* then narrow it (6.6+): the kernel's filter drops PROC_EVENT_NONE for a
	 * filtered listener, so this one is never answered; it changes the
	 * socket's filter without counting a second listener; not sent: still
	 * subscribed to everything */
	pe->filtered = !send_op(pe, true, mask, pe->next_seq++);
	return 0;
}
