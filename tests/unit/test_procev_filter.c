/*
 * procev_filter.c's socket filter, run by the kernel: the program is attached
 * to a datagram socket pair (the same classic BPF checker and interpreter as
 * on the netlink socket) and crafted proc events are sent through it; a test
 * sees which arrive. The layout is written out here by offset, independently
 * of the filter's own constants (include/uapi/linux/{netlink,connector,cn_proc}.h).
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <cmocka.h>

#include <linux/filter.h>

#include "uclamp/procevents.h"

#define MSG_LEN 76	/* nlmsghdr 16 + cn_msg 20 + proc_event 16 + the largest event data 24 */

static void put32(unsigned char *m, size_t off, uint32_t v)
{
	memcpy(m + off, &v, sizeof(v));
}

/* A proc event as the kernel sends it; a, b, c, d: the first words of event_data. */
static void mk(unsigned char *m, uint32_t what, uint32_t a, uint32_t b, uint32_t c, uint32_t d)
{
	uint16_t type = 3, dlen = MSG_LEN - 36;	/* NLMSG_DONE; cn_msg.len */

	memset(m, 0, MSG_LEN);
	put32(m, 0, MSG_LEN);
	memcpy(m + 4, &type, 2);
	put32(m, 16, 1);		/* CN_IDX_PROC */
	put32(m, 20, 1);		/* CN_VAL_PROC */
	memcpy(m + 32, &dlen, 2);
	put32(m, 36, what);
	put32(m, 52, a);
	put32(m, 56, b);
	put32(m, 60, c);
	put32(m, 64, d);
}

struct pair {
	int tx, rx;
};

static void pair_open(struct pair *p, uint32_t keep)
{
	struct sock_filter prog[UC_PEV_FILTER_MAX];
	struct sock_fprog fp = { .filter = prog };
	int sv[2], n = uc_pev_filter_build(prog, UC_PEV_FILTER_MAX, keep);

	assert_true(n > 0);
	fp.len = (unsigned short)n;
	assert_int_equal(socketpair(AF_UNIX, SOCK_DGRAM, 0, sv), 0);
	/* the kernel's checker refuses a malformed program here */
	if (setsockopt(sv[1], SOL_SOCKET, SO_ATTACH_FILTER, &fp, sizeof(fp)) < 0)
		fail_msg("SO_ATTACH_FILTER: %s", strerror(errno));
	p->tx = sv[0];
	p->rx = sv[1];
}

static void pair_close(struct pair *p)
{
	close(p->tx);
	close(p->rx);
}

/* Does the message of 'len' bytes get through? */
static bool passes(struct pair *p, const unsigned char *m, size_t len)
{
	unsigned char got[128];
	ssize_t n;

	assert_int_equal(send(p->tx, m, len, 0), (ssize_t)len);
	n = recv(p->rx, got, sizeof(got), MSG_DONTWAIT);
	if (n < 0) {
		assert_int_equal(errno, EAGAIN);
		return false;
	}
	assert_int_equal(n, (ssize_t)len);
	return true;
}

static bool ev_passes(struct pair *p, uint32_t what, uint32_t a, uint32_t b, uint32_t c,
		      uint32_t d)
{
	unsigned char m[MSG_LEN];

	mk(m, what, a, b, c, d);
	return passes(p, m, sizeof(m));
}

/* The rules of the common case (name selectors): exec and comm only. */
static void test_minimal(void **state)
{
	struct pair p;

	(void)state;
	pair_open(&p, UC_PEV_EXEC | UC_PEV_COMM);
	assert_true(ev_passes(&p, UC_PEV_EXEC, 100, 100, 0, 0));
	assert_true(ev_passes(&p, UC_PEV_EXEC, 101, 100, 0, 0));	/* exec in a thread */
	assert_true(ev_passes(&p, UC_PEV_COMM, 7, 5, 0, 0));
	assert_true(ev_passes(&p, UC_PEV_NONE, 0, 0, 0, 0));		/* acks */
	/* a fork storm: process and thread forks and exits stay in the kernel */
	assert_false(ev_passes(&p, UC_PEV_FORK, 10, 10, 11, 11));
	assert_false(ev_passes(&p, UC_PEV_FORK, 10, 10, 12, 10));
	assert_false(ev_passes(&p, UC_PEV_EXIT, 11, 11, 0, 0));
	assert_false(ev_passes(&p, UC_PEV_EXIT, 12, 10, 0, 0));
	assert_false(ev_passes(&p, UC_PEV_UID, 8, 8, 0, 1000));
	assert_false(ev_passes(&p, UC_PEV_GID, 8, 8, 0, 1000));
	assert_false(ev_passes(&p, UC_PEV_SID, 8, 8, 0, 0));
	assert_false(ev_passes(&p, UC_PEV_PTRACE, 8, 8, 9, 9));
	assert_false(ev_passes(&p, UC_PEV_COREDUMP, 8, 8, 0, 0));
	/* a type from a later kernel: the decoder judges */
	assert_true(ev_passes(&p, 0x00000400u, 8, 8, 0, 0));
	pair_close(&p);
}

/* A parent selector needs process forks (never threads'); exits when asked. */
static void test_fork_exit(void **state)
{
	struct pair p;

	(void)state;
	pair_open(&p, UC_PEV_EXEC | UC_PEV_COMM | UC_PEV_FORK | UC_PEV_EXIT);
	/* fork data: parent_pid, parent_tgid, child_pid, child_tgid */
	assert_true(ev_passes(&p, UC_PEV_FORK, 10, 10, 11, 11));
	assert_true(ev_passes(&p, UC_PEV_FORK, 12, 10, 13, 13));	/* a thread forks a process */
	assert_false(ev_passes(&p, UC_PEV_FORK, 10, 10, 14, 10));	/* a new thread */
	assert_true(ev_passes(&p, UC_PEV_EXIT, 11, 11, 0, 0));
	assert_false(ev_passes(&p, UC_PEV_EXIT, 14, 10, 0, 0));
	assert_false(ev_passes(&p, UC_PEV_UID, 8, 8, 0, 1000));
	assert_true(ev_passes(&p, UC_PEV_EXEC, 100, 100, 0, 0));
	pair_close(&p);
}

/* user/group selectors: ID changes, of threads too (the daemon looks at the process) */
static void test_ids(void **state)
{
	struct pair p;

	(void)state;
	pair_open(&p, UC_PEV_EXEC | UC_PEV_COMM | UC_PEV_UID | UC_PEV_GID);
	assert_true(ev_passes(&p, UC_PEV_UID, 8, 8, 0, 1000));
	assert_true(ev_passes(&p, UC_PEV_GID, 9, 8, 0, 1000));
	assert_false(ev_passes(&p, UC_PEV_FORK, 10, 10, 11, 11));
	assert_false(ev_passes(&p, UC_PEV_EXIT, 11, 11, 0, 0));
	pair_close(&p);
}

/* What it cannot read as a whole proc event it keeps. */
static void test_foreign(void **state)
{
	struct pair p;
	unsigned char m[MSG_LEN];
	uint16_t type = 2;	/* NLMSG_ERROR */

	(void)state;
	pair_open(&p, UC_PEV_EXEC);
	mk(m, UC_PEV_FORK, 10, 10, 11, 11);
	assert_true(passes(&p, m, 60));		/* too short to read the child */
	put32(m, 16, 2);			/* another connector */
	assert_true(passes(&p, m, sizeof(m)));
	mk(m, UC_PEV_FORK, 10, 10, 11, 11);
	memcpy(m + 4, &type, 2);
	assert_true(passes(&p, m, sizeof(m)));
	mk(m, UC_PEV_FORK, 10, 10, 11, 11);	/* and the same, well formed, goes */
	assert_false(passes(&p, m, sizeof(m)));
	pair_close(&p);
}

static void test_room(void **state)
{
	struct sock_filter prog[UC_PEV_FILTER_MAX];

	(void)state;
	assert_int_equal(uc_pev_filter_build(prog, 4, UC_PEV_EXEC), -E2BIG);
	assert_true(uc_pev_filter_build(prog, UC_PEV_FILTER_MAX, ~0u) > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_minimal),
		cmocka_unit_test(test_fork_exit),
		cmocka_unit_test(test_ids),
		cmocka_unit_test(test_foreign),
		cmocka_unit_test(test_room),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
