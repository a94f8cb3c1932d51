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
	union t_event_data {
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

/* mk's header: every decoded event carries it */
#define HDR .cpu = 3, .seq = 41, .ts_ns = 123456789012ull

/* an event as the kernel lays it out, and what the decoder makes of it */
static const struct event_case {
	const char *name;
	size_t dlen;
	union t_event_data d;
	struct uc_pev want;
} events[] = {
	{ "exec", 8, { .exec = { .pid = 100, .tgid = 100 } },
	  { UC_PEV_EXEC, HDR, .pid = 100, .tgid = 100 } },
	{ "fork of a thread", 16, { .fork = { .ppid = 10, .ptgid = 9, .cpid = 11, .ctgid = 9 } },
	  { UC_PEV_FORK, HDR, .parent_pid = 10, .parent_tgid = 9, .pid = 11, .tgid = 9 } },
	/* 16 bytes, no NUL from a broken sender */
	{ "comm", 24, { .comm = { .pid = 7, .tgid = 5, .comm = "RenderThreadXYZW" } },
	  { UC_PEV_COMM, HDR, .pid = 7, .tgid = 5, .comm = "RenderThreadXYZ" } },
	{ "uid", 16, { .id = { .pid = 8, .tgid = 8, .r = 0, .e = 1000 } },
	  { UC_PEV_UID, HDR, .pid = 8, .tgid = 8, .id = 1000 } },
};

static void expect_pev(const char *name, const struct uc_pev *ev, const struct uc_pev *w)
{
	if (ev->what != w->what || ev->cpu != w->cpu || ev->seq != w->seq ||
	    ev->ts_ns != w->ts_ns || ev->pid != w->pid || ev->tgid != w->tgid ||
	    ev->parent_pid != w->parent_pid || ev->parent_tgid != w->parent_tgid ||
	    ev->id != w->id || strcmp(ev->comm, w->comm))
		fail_msg("%s: what %u cpu %u seq %u ts %llu pid %d tgid %d parent %d/%d id %u "
			 "comm '%s'; expected %u %u %u %llu %d %d %d/%d %u '%s'", name, ev->what,
			 ev->cpu, ev->seq, (unsigned long long)ev->ts_ns, (int)ev->pid,
			 (int)ev->tgid, (int)ev->parent_pid, (int)ev->parent_tgid, ev->id, ev->comm,
			 w->what, w->cpu, w->seq, (unsigned long long)w->ts_ns, (int)w->pid,
			 (int)w->tgid, (int)w->parent_pid, (int)w->parent_tgid, w->id, w->comm);
}

static void test_events(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(events) / sizeof(events[0]); i++) {
		const struct event_case *c = &events[i];
		struct msg m;
		struct uc_pev ev;
		size_t len = mk(&m, c->want.what, c->dlen);

		m.ev.d = c->d;
		if (uc_pev_decode(&m, len, &ev, NULL) != UC_PEV_KIND_EVENT)
			fail_msg("%s: not decoded as an event", c->name);
		expect_pev(c->name, &ev, &c->want);
	}
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
		cmocka_unit_test(test_events),
		cmocka_unit_test(test_ack),
		cmocka_unit_test(test_bad),
		cmocka_unit_test(test_encode),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
