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
 * counters. magnet reports the counters as TCP has processed them instead.
 *
 * While a backlog exists, a small table holds, per socket, the segments
 * (and data segments) TCP has processed, modulo 2^20:
 *   - The first segment queued to an empty backlog sets it. That runs under
 *     the socket spinlock, after Linux counted the segment, and nothing else
 *     is pending (sk_backlog.len is reset only when __release_sock has
 *     processed everything): processed = segs_in - this segment. Later
 *     arrivals change nothing here.
 *   - The owner adds each segment it processes from the backlog, in arrival
 *     order, so the count is exact whatever arrives meanwhile.
 *   - The return of __release_sock, under the spinlock with the backlog
 *     drained, frees the slot.
 *   - tcp_add_backlog may drop the first segment after the slot is set
 *     (a bad checksum, or the socket over its memory limit): no backlog
 *     then exists, so no drain frees the slot. tcp_release_cb, which
 *     release_sock calls under the spinlock after any drain (on every
 *     release up to 6.x, for deferred work in 7.x), frees it; it searches
 *     only while a socket of the same home slot holds one
 *     (magnet_bl_held), which after a drain is nearly never. In any case
 *     the close frees it: __tcp_close drains the backlog, empty or not,
 *     before the socket can be destroyed and its memory be another's.
 *     Until it is freed, or reset by the socket's next backlog, no record
 *     reads its old count: with no backlog (sk_backlog.len 0), a slot
 *     counts only while the socket's sk_drops are those it kept when it
 *     was set (magnet_bl_drops), and tcp_v4_rcv counts the dropped segment
 *     there.
 * A record then reports segs_in - ((segs_in - processed) mod 2^20): exact
 * while fewer than 2^20 segments wait, with no retry and no lock, even as
 * arrivals on other CPUs raise segs_in. A later segment tcp_add_backlog
 * drops stays counted as pending until the next empty backlog; Linux keeps
 * it in segs_in.
 *
 * A slot is one 64-bit word: a 24-bit tag of the socket and the two 20-bit
 * counts. Sockets claim free slots with cmpxchg. A claimed slot is written
 * only under the socket's spinlock (set, free) or by its owner with a
 * backlog pending (process); the two never overlap, so no lock is taken.
 *
 * The tag is the low 24 bits of the socket's cookie (sockid.h), and the
 * home slot a hash of the tag. A cookie is never another socket's, also
 * when a new socket takes a freed one's memory, so a new socket never
 * finds a slot its memory's last owner left. Two sockets share a tag only
 * if 2^24 cookies were given out between theirs, and then share the home
 * too, so a free always decrements the count its claim incremented.
 * Until 2026-11-27 the tag was address bits 3..26 and the home a hash of
 * the whole address: sockets a multiple of 128 MiB apart had one tag and,
 * in 15 windows of 1024 (8 slots from unrelated homes overlapping), found
 * each other's slots, and one's free could zero another home's count.
 */
#include <linux/atomic.h>
#include <linux/hash.h>
#include <linux/kprobes.h>
#include <linux/percpu.h>
#include <linux/spinlock.h>
#include <net/sock.h>
#include <net/tcp.h>
#include "backlog.h"
#include "blcount.h"
#include "sockid.h"

#define BL_BITS 10
#define BL_WINDOW 8			/* slots probed from the hashed one */
#define BL_TRIES 16			/* reads while an arrival may be half done */

static atomic64_t magnet_bl[1 << BL_BITS];
/*
 * Per home slot (bl_home()), the slots claimed and not freed yet by sockets
 * of that home: 0, nearly always after a drain, spares a free its search
 * (about 80 instructions).
 */
static atomic_t magnet_bl_held[1 << BL_BITS];
/*
 * Per slot, the socket's sk_drops when its backlog's first segment set it.
 * tcp_v4_rcv counts a segment tcp_add_backlog drops there, so a slot with
 * no backlog (sk_backlog.len 0) is one whose first segment is still on its
 * way into the backlog while the count is the same, and one left by a
 * dropped first segment once it is not.
 */
static u32 magnet_bl_drops[1 << BL_BITS];
static atomic_long_t magnet_bl_untracked;
static atomic_long_t magnet_bl_unsettled;
static DEFINE_PER_CPU(unsigned long, magnet_bl_queued);
bool magnet_bl_on __read_mostly;

/*
 * The socket's tag: the low bits of its cookie, 0 (no slot) if it has none
 * yet. Only magnet_backlog_add() gives one, before it claims a slot.
 */
static __always_inline u64 bl_tag(const struct sock *sk)
{
	return (u64)atomic64_read(&sk->sk_cookie) & MAGNET_BL_TAG_MASK;
}

static __always_inline unsigned int bl_home(u64 tag)
{
	return hash_32((u32)tag, BL_BITS);
}

/* the @i-th slot of the window that starts at @home */
static __always_inline atomic64_t *bl_slot(unsigned int home, unsigned int i)
{
	return &magnet_bl[(home + i) & ((1 << BL_BITS) - 1)];
}

/* The socket's slot, or NULL. Tag 0 is a free slot's: never found. */
static __always_inline atomic64_t *bl_find_at(unsigned int home, u64 tag)
{
	unsigned int i;

	if (!tag)
		return NULL;
	for (i = 0; i < BL_WINDOW; i++) {
		atomic64_t *s = bl_slot(home, i);

		if (magnet_bl_tag(atomic64_read(s)) == tag)
			return s;
	}
	return NULL;
}

static atomic64_t *notrace bl_find(u64 tag)
{
	return bl_find_at(bl_home(tag), tag);
}
NOKPROBE_SYMBOL(bl_find);

/*
 * A segment of @segs (@dsegs with data) is queued to @sk's backlog; Linux
 * has counted it. @fresh: nothing else is pending. Called with the socket
 * spinlock held.
 */
void notrace magnet_backlog_add(const struct sock *sk, u32 segs, u32 dsegs,
				bool fresh)
{
	const struct tcp_sock *tp = tcp_sk(sk);
	unsigned int i, home;
	atomic64_t *s;
	u64 tag, nv;
	u32 drops;
	s64 v;

	this_cpu_add(magnet_bl_queued, segs);
	/*
	 * Claimed only with magnet_bl_on set: __release_sock's entry, which
	 * drains this backlog later, then sees it set too, and its return
	 * frees the slot (probes.c)
	 */
	if (!fresh || !READ_ONCE(magnet_bl_on))
		return;
	/* a cookie ending in 24 zero bits (one in 2^24): untracked */
	tag = magnet_sock_id(sk) & MAGNET_BL_TAG_MASK;
	if (!tag)
		return;
	nv = magnet_bl_word(tag, READ_ONCE(tp->segs_in) - segs,
			    READ_ONCE(tp->data_segs_in) - dsegs);
	/* TCP's sockets count drops in sk_drops itself (no NUMA counters) */
	drops = (u32)atomic_read(&sk->sk_drops);
	home = bl_home(tag);
	s = bl_find_at(home, tag);
	if (s) {
		atomic64_set(s, nv);
		/*
		 * the slot before its drops (magnet_backlog_segs_in() reads
		 * them the other way round), and before sk_add_backlog()
		 * raises sk_backlog.len
		 */
		smp_wmb();
		WRITE_ONCE(magnet_bl_drops[s - magnet_bl], drops);
		return;
	}
	for (i = 0; i < BL_WINDOW; i++) {
		s = bl_slot(home, i);
		v = 0;
		/* a full barrier, as the smp_wmb() above */
		if (atomic64_try_cmpxchg(s, &v, nv)) {
			WRITE_ONCE(magnet_bl_drops[s - magnet_bl], drops);
			atomic_inc(&magnet_bl_held[home]);
			return;
		}
	}
	/* the window is full: the owner counts the segments as untracked */
}
NOKPROBE_SYMBOL(magnet_backlog_add);

/*
 * The owner processes a backlogged segment of @segs (@dsegs with data).
 * A backlog whose first segment found no slot is counted as untracked.
 */
void notrace magnet_backlog_consume(const struct sock *sk, u32 segs,
				    u32 dsegs)
{
	atomic64_t *s = bl_find(bl_tag(sk));

	if (!s) {
		if (READ_ONCE(sk->sk_backlog.len))
			atomic_long_add(segs, &magnet_bl_untracked);
		return;
	}
	atomic64_set(s, magnet_bl_processed(atomic64_read(s), segs, dsegs));
}
NOKPROBE_SYMBOL(magnet_backlog_consume);

/*
 * Under the socket spinlock, with no backlog (drained, or never queued,
 * its segment dropped): free the socket's slot, if it holds one.
 */
void notrace magnet_backlog_release(const struct sock *sk)
{
	u64 tag = bl_tag(sk);
	unsigned int home = bl_home(tag);
	atomic64_t *s;

	if (!atomic_read(&magnet_bl_held[home]))
		return;
	s = bl_find_at(home, tag);
	if (s && atomic64_xchg(s, 0))
		atomic_dec(&magnet_bl_held[home]);
}
NOKPROBE_SYMBOL(magnet_backlog_release);

/*
 * segs_in and data_segs_in as TCP has processed them. Called only for a
 * socket a task owns, outside the socket spinlock or under it.
 *
 * With a backlog and its slot, the processed counts are exact. Without a
 * backlog, segs_in stands unless an arrival is half done: it holds the
 * spinlock, has raised segs_in, and is about to set a slot and queue. So
 * the read is accepted when, after it, the lock was free with no backlog,
 * or a backlog and its slot exist, or the arrival's slot. (A slot with no
 * backlog is either the half-done arrival's, read, or one whose first
 * segment was dropped, with an old count, not read: the socket's drops
 * tell them apart.) A task that holds the lock with
 * bottom halves off is, here, the owner itself (release_sock runs the
 * release callback under it), and no arrival can be in progress then.
 * After BL_TRIES reads the arrival still holds the lock (its CPU may be
 * preempted, in a VM): the record keeps segs_in, and the read is counted
 * as unsettled.
 */
void notrace magnet_backlog_segs_in(const struct sock *sk, u32 *segs,
				    u32 *dsegs)
{
	spinlock_t *slock = (spinlock_t *)&sk->sk_lock.slock;
	const struct tcp_sock *tp = tcp_sk(sk);
	u64 tag = bl_tag(sk), v;
	const atomic64_t *sl;
	int tries = BL_TRIES;
	u32 s, d, queued;
	bool locked;

	for (;;) {
		/* Linux raises segs_in first: never see more data segments */
		d = READ_ONCE(tp->data_segs_in);
		smp_rmb();
		s = READ_ONCE(tp->segs_in);
		smp_rmb();
		locked = spin_is_locked(slock);
		smp_rmb();
		queued = READ_ONCE(sk->sk_backlog.len);
		if (!locked && !queued)
			break;		/* nothing waits, nothing arrives */
		/*
		 * A slot counts while a backlog exists (its first segment set
		 * the slot before it was queued: the smp_wmb() in
		 * magnet_backlog_add()), or while its first segment is on its
		 * way there: the socket's drops are still those the slot
		 * kept. A slot whose first segment was dropped stays until
		 * the socket's next backlog resets it, with an old count.
		 */
		sl = bl_find(tag);
		if (sl) {
			u32 drops = READ_ONCE(magnet_bl_drops[sl - magnet_bl]);

			smp_rmb();
			v = atomic64_read(sl);
			if (magnet_bl_tag(v) == tag &&
			    (queued ||
			     drops == (u32)atomic_read(&sk->sk_drops))) {
				magnet_bl_segs_in(v, s, d, segs, dsegs);
				return;
			}
		}
		if (!locked || (in_task() && in_softirq()))
			break;
		if (!--tries) {
			atomic_long_inc(&magnet_bl_unsettled);
			break;
		}
		cpu_relax();
	}
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

unsigned long magnet_backlog_unsettled(void)
{
	return atomic_long_read(&magnet_bl_unsettled);
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
	for (i = 0; i < ARRAY_SIZE(magnet_bl_held); i++)
		atomic_set(&magnet_bl_held[i], 0);
}
