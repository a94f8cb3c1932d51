/*
 * procevents.c's decoder and request encoder against bytes laid out as the
 * kernel's structs (cn_msg + proc_event, include/uapi/linux/cn_proc.h). The
 * socket itself is tested on the real kernel (tests/vm/scenarios/watch-*).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "uclamp/procevents.h"

/* The kernel's layout, spelled out independently of the decoder. */
struct t_cn_msg {
	uint32_t idx, val, seq, ack;
	uint16_t len, flags;
};
struct t_proc_event {
	uint32_t what, cpu;
	uint64_t ts;
	union {
		struct { uint32_t err; } ack;
		struct { uint32_t ppid, ptgid, cpid, ctgid; } fork;
		struct { uint32_t pid, tgid; } exec;
		struct { uint32_t pid, tgid, r, e; } id;
		struct { uint32_t pid, tgid; char comm[16]; } comm;
		struct { uint32_t pid, tgid, code, sig, ppid, ptgid; } exit;
	} d;
};

struct msg {
	struct t_cn_msg cn;
	struct t_proc_event ev;
} __attribute__((packed));

static size_t mk(struct msg *m, uint32_t what, size_t dlen)
{
	memset(m, 0, sizeof(*m));
	m->cn.idx = 1;
	m->cn.val = 1;
	m->cn.seq = 41;
	m->cn.len = (uint16_t)(16 + dlen);
	m->ev.what = what;
	m->ev.cpu = 3;
	m->ev.ts = 123456789012ull;
	return sizeof(m->cn) + 16 + dlen;
}

static void test_exec(void **state)
{
	struct msg m;
	struct uc_pev ev;
	size_t len = mk(&m, UC_PEV_EXEC, 8);

	m.ev.d.exec.pid = 100;
	m.ev.d.exec.tgid = 100;
	assert_int_equal(uc_pev_decode(&m, len, &ev, NULL), UC_PEV_KIND_EVENT);
	assert_int_equal(ev.what, UC_PEV_EXEC);
	assert_int_equal(ev.pid, 100);
	assert_int_equal(ev.tgid, 100);
	assert_int_equal(ev.cpu, 3);
	assert_int_equal(ev.seq, 41);
	assert_true(ev.ts_ns == 123456789012ull);
}

static void test_fork_thread(void **state)
{
	struct msg m;
	struct uc_pev ev;
	size_t len = mk(&m, UC_PEV_FORK, 16);

	m.ev.d.fork.ppid = 10;
	m.ev.d.fork.ptgid = 9;
	m.ev.d.fork.cpid = 11;
	m.ev.d.fork.ctgid = 9;
	assert_int_equal(uc_pev_decode(&m, len, &ev, NULL), UC_PEV_KIND_EVENT);
	assert_int_equal(ev.parent_pid, 10);
	assert_int_equal(ev.parent_tgid, 9);
	assert_int_equal(ev.pid, 11);
	assert_int_equal(ev.tgid, 9);
}

static void test_comm(void **state)
{
	struct msg m;
	struct uc_pev ev;
	size_t len = mk(&m, UC_PEV_COMM, 24);

	m.ev.d.comm.pid = 7;
	m.ev.d.comm.tgid = 5;
	memcpy(m.ev.d.comm.comm, "RenderThreadXYZW", 16);	/* no NUL from a broken sender */
	assert_int_equal(uc_pev_decode(&m, len, &ev, NULL), UC_PEV_KIND_EVENT);
	assert_int_equal(ev.pid, 7);
	assert_int_equal(ev.tgid, 5);
	assert_string_equal(ev.comm, "RenderThreadXYZ");
}

static void test_uid(void **state)
{
	struct msg m;
	struct uc_pev ev;
	size_t len = mk(&m, UC_PEV_UID, 16);

	m.ev.d.id.pid = 8;
	m.ev.d.id.tgid = 8;
	m.ev.d.id.r = 0;
	m.ev.d.id.e = 1000;
	assert_int_equal(uc_pev_decode(&m, len, &ev, NULL), UC_PEV_KIND_EVENT);
	assert_int_equal(ev.id, 1000);
}

static void test_ack(void **state)
{
	struct msg m;
	struct uc_pev ev;
	struct uc_pev_ack ack;
	size_t len = mk(&m, UC_PEV_NONE, 4);

	m.cn.seq = 500;
	m.cn.ack = 1;
	m.ev.d.ack.err = 1;	/* EPERM */
	assert_int_equal(uc_pev_decode(&m, len, &ev, &ack), UC_PEV_KIND_ACK);
	assert_int_equal(ack.seq, 500);
	assert_int_equal(ack.ack, 1);
	assert_int_equal(ack.err, 1);
}

static void test_bad(void **state)
{
	struct msg m;
	struct uc_pev ev;
	size_t len = mk(&m, UC_PEV_EXEC, 8);

	assert_int_equal(uc_pev_decode(&m, 10, &ev, NULL), UC_PEV_KIND_OTHER);	/* short */
	m.cn.len = 200;	/* claims more than there is */
	assert_int_equal(uc_pev_decode(&m, len, &ev, NULL), UC_PEV_KIND_OTHER);
	len = mk(&m, UC_PEV_EXEC, 8);
	m.cn.idx = 2;	/* another connector */
	assert_int_equal(uc_pev_decode(&m, len, &ev, NULL), UC_PEV_KIND_OTHER);
	len = mk(&m, UC_PEV_FORK, 8);	/* a fork needs 16 bytes */
	assert_int_equal(uc_pev_decode(&m, len, &ev, NULL), UC_PEV_KIND_OTHER);
}

static void test_encode(void **state)
{
	unsigned char buf[64];
	struct t_cn_msg cn;
	uint32_t op, mask;
	size_t n = uc_pev_encode_op(buf, sizeof(buf), true, 0, 77, 0);

	/* 4-byte form: what every kernel takes */
	assert_int_equal(n, 24);
	memcpy(&cn, buf, sizeof(cn));
	assert_int_equal(cn.idx, 1);
	assert_int_equal(cn.val, 1);
	assert_int_equal(cn.seq, 77);
	assert_int_equal(cn.len, 4);
	memcpy(&op, buf + 20, 4);
	assert_int_equal(op, 1);	/* PROC_CN_MCAST_LISTEN */
	/* 6.6+ proc_input with the event mask */
	n = uc_pev_encode_op(buf, sizeof(buf), true, UC_PEV_EXEC | UC_PEV_COMM, 78, 0);
	assert_int_equal(n, 28);
	memcpy(&cn, buf, sizeof(cn));
	assert_int_equal(cn.len, 8);
	memcpy(&mask, buf + 24, 4);
	assert_int_equal(mask, UC_PEV_EXEC | UC_PEV_COMM);
	/* ignore */
	n = uc_pev_encode_op(buf, sizeof(buf), false, 0, 79, 0);
	memcpy(&op, buf + 20, 4);
	assert_int_equal(op, 2);
	assert_int_equal(uc_pev_encode_op(buf, 10, true, 0, 1, 0), 0);	/* no room */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exec),
		cmocka_unit_test(test_fork_thread),
		cmocka_unit_test(test_comm),
		cmocka_unit_test(test_uid),
		cmocka_unit_test(test_ack),
		cmocka_unit_test(test_bad),
		cmocka_unit_test(test_encode),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
