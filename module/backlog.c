// SPDX-License-Identifier: GPL-2.0
/*
 * Segments waiting in a socket's backlog: what Linux has counted in
 * segs_in/data_segs_in but TCP has not processed yet.
 *
 * tcp_v4_rcv (and tcp_v6_rcv) counts a segment in segs_in on arrival, under
 * the socket spinlock. When a task owns the socket, the segment then waits
 * in the backlog (tcp_add_backlog) and TCP processes it later, in
 * __release_sock, through tcp_v4_do_rcv. Read there, segs_in already counts
 * every later arrival, so consecutive tcp_in records would repeat the same
 * counters. magnet reports the counters as TCP has processed them instead:
 * segs_in minus the segments still pending.
 *
 * Pending segments are counted per socket in a small table, only while a
 * backlog exists: tcp_add_backlog adds a queued segment, tcp_v4_do_rcv in
 * the owner subtracts the segment it processes, and the slot is free again
 * when the count is back to zero, or at the latest when release_sock calls
 * tcp_release_cb with the backlog drained. (A segment tcp_add_backlog drops
 * stays counted as pending until then, and Linux keeps it in segs_in.) A slot is one 64-bit word updated with
 * cmpxchg: a tag of the socket, the pending segments and the pending data
 * segments. There is no lock: the adders of one socket hold its spinlock,
 * and its only consumer is the task that owns it.
 */
#include <linux/atomic.h>
#include <linux/hash.h>
#include <linux/kprobes.h>
#include <linux/percpu.h>
#include <linux/spinlock.h>
#include <net/sock.h>
#include <net/tcp.h>
#include "backlog.h"

#define BL_BITS 10
#define BL_WINDOW 8			/* slots probed from the hashed one */
#define BL_CNT_BITS 20
#define BL_CNT_MAX ((1ULL << BL_CNT_BITS) - 1)
#define BL_TAG_SHIFT (2 * BL_CNT_BITS)	/* tag: the top 24 bits */

static atomic64_t magnet_bl[1 << BL_BITS];
static atomic_long_t magnet_bl_untracked;
static DEFINE_PER_CPU(unsigned long, magnet_bl_queued);
bool magnet_bl_on __read_mostly;

static __always_inline u64 bl_tag(const struct sock *sk)
{
	/* bits 3..26 of the address: distinct for sockets < 128 MiB apart */
	return ((unsigned long)sk >> 3) & ((1ULL << (64 - BL_TAG_SHIFT)) - 1);
}

static __always_inline u64 bl_word(u64 tag, u64 segs, u64 dsegs)
{
	return tag << BL_TAG_SHIFT | segs << BL_CNT_BITS | dsegs;
}

/* atomic64_t holds a signed value: shift it as unsigned */
#define BL_TAG(v) ((u64)(v) >> BL_TAG_SHIFT)
#define BL_SEGS(v) (((u64)(v) >> BL_CNT_BITS) & BL_CNT_MAX)
#define BL_DSEGS(v) ((u64)(v) & BL_CNT_MAX)

static __always_inline unsigned int bl_home(const struct sock *sk)
{
	return hash_ptr((void *)sk, BL_BITS);
}

/* the @i-th slot of the window that starts at @home */
static __always_inline atomic64_t *bl_slot(unsigned int home, unsigned int i)
{
	return &magnet_bl[(home + i) & ((1 << BL_BITS) - 1)];
}

/* The socket's slot, or NULL. */
static atomic64_t *notrace bl_find(const struct sock *sk, u64 tag)
{
	unsigned int i, home = bl_home(sk);

	for (i = 0; i < BL_WINDOW; i++) {
		atomic64_t *s = bl_slot(home, i);

		if (BL_TAG(atomic64_read(s)) == tag)
			return s;
	}
	return NULL;
}
NOKPROBE_SYMBOL(bl_find);

/*
 * @segs segments (@dsegs with data) queued to @sk's backlog. @fresh: the
 * backlog was empty, so the count starts over (clearing what a missed
 * consumer left). Called with the socket spinlock held.
 */
void notrace magnet_backlog_add(const struct sock *sk, u32 segs, u32 dsegs,
				bool fresh)
{
	u64 tag = bl_tag(sk), nv;
	unsigned int i, home;
	atomic64_t *s;
	s64 v;

	this_cpu_add(magnet_bl_queued, segs);
	if (!tag)
		goto untracked;
	s = bl_find(sk, tag);
	if (s) {
		v = atomic64_read(s);
		do {
			if (BL_TAG(v) != tag)	/* consumed to zero meanwhile */
				break;
			if (fresh) {
				nv = bl_word(tag, segs, dsegs);
			} else {
				if (BL_SEGS(v) + segs > BL_CNT_MAX ||
				    BL_DSEGS(v) + dsegs > BL_CNT_MAX)
					goto untracked;
				nv = v + bl_word(0, segs, dsegs);
			}
		} while (!atomic64_try_cmpxchg(s, &v, nv));
		if (BL_TAG(v) == tag)
			return;
	}
	if (segs > BL_CNT_MAX || dsegs > BL_CNT_MAX)
		goto untracked;
	home = bl_home(sk);
	for (i = 0; i < BL_WINDOW; i++) {
		s = bl_slot(home, i);
		v = 0;
		if (atomic64_try_cmpxchg(s, &v, bl_word(tag, segs, dsegs)))
			return;
	}
untracked:
	atomic_long_inc(&magnet_bl_untracked);
}
NOKPROBE_SYMBOL(magnet_backlog_add);

/*
 * The owner processes a backlogged segment of @segs (@dsegs with data).
 * The slot is freed when nothing is left pending.
 */
void notrace magnet_backlog_consume(const struct sock *sk, u32 segs,
				    u32 dsegs)
{
	u64 tag = bl_tag(sk), nv, ns, nd;
	atomic64_t *s;
	s64 v;

	if (!tag)
		return;
	s = bl_find(sk, tag);
	if (!s)
		return;
	v = atomic64_read(s);
	do {
		if (BL_TAG(v) != tag)
			return;
		ns = BL_SEGS(v) > segs ? BL_SEGS(v) - segs : 0;
		nd = BL_DSEGS(v) > dsegs ? BL_DSEGS(v) - dsegs : 0;
		nv = ns ? bl_word(tag, ns, nd) : 0;
	} while (!atomic64_try_cmpxchg(s, &v, nv));
}
NOKPROBE_SYMBOL(magnet_backlog_consume);

/* The task releases @sk, its backlog drained: nothing is pending. */
void notrace magnet_backlog_release(const struct sock *sk)
{
	magnet_backlog_consume(sk, U32_MAX, U32_MAX);
}
NOKPROBE_SYMBOL(magnet_backlog_release);

static u64 notrace bl_pending(const struct sock *sk, u64 tag)
{
	const atomic64_t *s = bl_find(sk, tag);
	u64 v = s ? atomic64_read(s) : 0;

	return BL_TAG(v) == tag ? v : 0;
}
NOKPROBE_SYMBOL(bl_pending);

/*
 * segs_in and data_segs_in as TCP has processed them. Called only for a
 * socket a task owns, outside the socket spinlock or under it.
 *
 * An arrival raises segs_in and queues the segment (sk_backlog.len grows,
 * then its pending count here) under the socket spinlock. So a read of
 * segs_in is consistent when, after it, the spinlock was free and the
 * pending count was the same before and after: no arrival was half done.
 * Usually the backlog is empty and the lock free, and segs_in stands.
 * Otherwise a few retries cover an arrival in progress. A lock that a
 * task holds with bottom halves off is, here, its own: release_sock runs
 * the release callback under it, and no arrival can be in progress then.
 */
void notrace magnet_backlog_segs_in(const struct sock *sk, u32 *segs,
				    u32 *dsegs)
{
	spinlock_t *slock = (spinlock_t *)&sk->sk_lock.slock;
	const struct tcp_sock *tp = tcp_sk(sk);
	u64 tag = bl_tag(sk), p1, p2;
	bool locked;
	u32 s, d;
	int tries = 8;

	s = READ_ONCE(tp->segs_in);
	d = READ_ONCE(tp->data_segs_in);
	smp_rmb();
	locked = spin_is_locked(slock);
	smp_rmb();
	if (!locked && !READ_ONCE(sk->sk_backlog.len))
		goto out;	/* nothing waits, nothing arrives */
	if (!tag)
		goto out;
	do {
		p1 = bl_pending(sk, tag);
		smp_rmb();
		s = READ_ONCE(tp->segs_in);
		d = READ_ONCE(tp->data_segs_in);
		smp_rmb();
		locked = spin_is_locked(slock);
		smp_rmb();
		p2 = bl_pending(sk, tag);
		if (p1 == p2 && (!locked || (in_task() && in_softirq())))
			break;
		cpu_relax();
	} while (--tries);
	s -= BL_SEGS(p2);
	d -= BL_DSEGS(p2);
out:
	*segs = s;
	*dsegs = d;
}
NOKPROBE_SYMBOL(magnet_backlog_segs_in);

/* segments queued to a backlog since load */
unsigned long magnet_backlog_queued(void)
{
	unsigned long n = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		n += per_cpu(magnet_bl_queued, cpu);
	return n;
}

unsigned long magnet_backlog_untracked(void)
{
	return atomic_long_read(&magnet_bl_untracked);
}

unsigned int magnet_backlog_pending_sockets(void)
{
	unsigned int i, n = 0;

	for (i = 0; i < ARRAY_SIZE(magnet_bl); i++)
		n += atomic64_read(&magnet_bl[i]) != 0;
	return n;
}

/* No handler runs: forget every count. */
void magnet_backlog_clear(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(magnet_bl); i++)
		atomic64_set(&magnet_bl[i], 0);
}
