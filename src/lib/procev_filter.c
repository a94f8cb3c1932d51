/*
 * The proc connector's events dropped in the kernel, before they wake us: a
 * classic BPF socket filter (any kernel) keeping what the rules can use. The
 * 6.6+ event mask drops by type only; this also tells a thread from a process.
 * It sees the datagram from its nlmsghdr on; anything it does not recognise is
 * kept for the decoder. Classic BPF loads words in network byte order, the
 * connector writes host order: constants are read the same way.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>

#include <linux/filter.h>

#include "uclamp/procevents.h"

/* offsets from the nlmsghdr: nlmsghdr 16, cn_msg 20, proc_event header 16 */
#define OFF_TYPE 4		/* nlmsghdr.nlmsg_type (u16) */
#define OFF_IDX 16		/* cn_msg.id.idx */
#define OFF_VAL 20		/* cn_msg.id.val */
#define OFF_WHAT 36		/* proc_event.what */
#define OFF_DATA 52		/* proc_event.event_data */
#define MIN_LEN (OFF_DATA + 16)	/* the largest field read: fork's child_tgid */
#define NLMSG_DONE_TYPE 3

enum { KEEP = -1, DROP = -2 };

struct prog {
	struct sock_filter *v;
	size_t n, cap;
	/* the jumps' targets until fix_up(): KEEP, DROP, or how many to skip */
	int jt[UC_PEV_FILTER_MAX], jf[UC_PEV_FILTER_MAX];
};

/* A host-order field as BPF_LD reads it (big-endian). */
static uint32_t as_loaded32(uint32_t v)
{
	unsigned char b[4];

	memcpy(b, &v, sizeof(b));
	return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
}

static uint32_t as_loaded16(uint16_t v)
{
	unsigned char b[2];

	memcpy(b, &v, sizeof(b));
	return (uint32_t)b[0] << 8 | b[1];
}

static void emit(struct prog *p, uint16_t code, uint32_t k, int jt, int jf)
{
	if (p->n < p->cap && p->n < UC_PEV_FILTER_MAX) {
		p->v[p->n] = (struct sock_filter){ .code = code, .k = k };
		p->jt[p->n] = jt;
		p->jf[p->n] = jf;
	}
	p->n++;
}

/* Process, not thread: keep when the u32 at 'pid' equals the one at 'tgid'. */
static void emit_process_only(struct prog *p, uint32_t pid, uint32_t tgid)
{
	emit(p, BPF_LD | BPF_W | BPF_ABS, pid, 0, 0);
	emit(p, BPF_MISC | BPF_TAX, 0, 0, 0);
	emit(p, BPF_LD | BPF_W | BPF_ABS, tgid, 0, 0);
	emit(p, BPF_JMP | BPF_JEQ | BPF_X, 0, KEEP, DROP);
}

/* Resolve KEEP/DROP to the two returns at the end. */
static int fix_up(struct prog *p)
{
	size_t keep = p->n, drop = p->n + 1;

	emit(p, BPF_RET | BPF_K, 0xffffffffu, 0, 0);
	emit(p, BPF_RET | BPF_K, 0, 0, 0);
	if (p->n > p->cap || p->n > UC_PEV_FILTER_MAX)
		return -E2BIG;
	for (size_t i = 0; i < keep; i++) {
		size_t t = p->jt[i] == KEEP ? keep
			 : p->jt[i] == DROP ? drop : i + 1 + (size_t)p->jt[i];
		size_t f = p->jf[i] == KEEP ? keep
			 : p->jf[i] == DROP ? drop : i + 1 + (size_t)p->jf[i];

		if (BPF_CLASS(p->v[i].code) != BPF_JMP)
			continue;
		p->v[i].jt = (uint8_t)(t - i - 1);
		p->v[i].jf = (uint8_t)(f - i - 1);
	}
	return (int)p->n;
}

int uc_pev_filter_build(struct sock_filter *out, size_t cap, uint32_t keep)
{
	struct prog p = { .v = out, .cap = cap };
	/* types handled below; anything else the kernel may add is kept */
	const uint32_t known[] = { UC_PEV_FORK, UC_PEV_UID, UC_PEV_GID, UC_PEV_SID,
				   UC_PEV_PTRACE, UC_PEV_COREDUMP, UC_PEV_EXIT };

	/* not a proc event we can read whole: keep it, the decoder judges */
	emit(&p, BPF_LD | BPF_W | BPF_LEN, 0, 0, 0);
	emit(&p, BPF_JMP | BPF_JGE | BPF_K, MIN_LEN, 0, KEEP);
	emit(&p, BPF_LD | BPF_H | BPF_ABS, OFF_TYPE, 0, 0);
	emit(&p, BPF_JMP | BPF_JEQ | BPF_K, as_loaded16(NLMSG_DONE_TYPE), 0, KEEP);
	emit(&p, BPF_LD | BPF_W | BPF_ABS, OFF_IDX, 0, 0);
	emit(&p, BPF_JMP | BPF_JEQ | BPF_K, as_loaded32(1), 0, KEEP);	/* CN_IDX_PROC */
	emit(&p, BPF_LD | BPF_W | BPF_ABS, OFF_VAL, 0, 0);
	emit(&p, BPF_JMP | BPF_JEQ | BPF_K, as_loaded32(1), 0, KEEP);	/* CN_VAL_PROC */
	emit(&p, BPF_LD | BPF_W | BPF_ABS, OFF_WHAT, 0, 0);
	/* exec, comm and the acks (NONE) fall through every test below to KEEP */
	if (keep & UC_PEV_FORK) {
		/* a thread inherits its creator's clamps: new processes only */
		emit(&p, BPF_JMP | BPF_JEQ | BPF_K, as_loaded32(UC_PEV_FORK), 0, 4);
		emit_process_only(&p, OFF_DATA + 8, OFF_DATA + 12);
	}
	if (keep & UC_PEV_EXIT) {
		emit(&p, BPF_JMP | BPF_JEQ | BPF_K, as_loaded32(UC_PEV_EXIT), 0, 4);
		emit_process_only(&p, OFF_DATA, OFF_DATA + 4);
	}
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (!(keep & known[i]))
			emit(&p, BPF_JMP | BPF_JEQ | BPF_K, as_loaded32(known[i]), DROP, 0);
	return fix_up(&p);
}
