/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-CPU record rings.
 *
 * One single-producer/single-consumer ring per possible CPU, of slots of
 * MAGNET_SLOT_SIZE bytes that each hold one version 3 record (record.h),
 * written in place by the producer. The producer is whatever runs on that
 * CPU: a probe handler reserves, fills and commits slots with local
 * interrupts disabled, so process, softirq and hardirq
 * writers on the same CPU never interleave, and it never waits for another
 * CPU or for the reader. When a ring is full the record is counted in
 * ->lost and nothing is overwritten. The one reader consumes with
 * acquire/release on head and tail and takes no lock a writer could spin on.
 * Losses are reported in the stream as LOST records (see reserve).
 */
#ifndef MAGNET_RING_H
#define MAGNET_RING_H

#include <linux/cache.h>
#include <linux/percpu.h>
#include <linux/irq_work.h>
#include "record.h"

/* a ring slot: one version 3 record, its header first */
#define MAGNET_SLOT_SIZE 256
union magnet_slot {
	struct magnet_v3_hdr hdr;
	u64 words[MAGNET_SLOT_SIZE / 8];
};
static_assert(MAGNET_V3_MAX_SIZE <= MAGNET_SLOT_SIZE, "a record fits a slot");

struct magnet_ring {
	/* written by the producer (this CPU) only */
	unsigned long head ____cacheline_aligned;	/* slots committed */
	unsigned long next;		/* head after the slots being filled */
	unsigned long marks;		/* LOST records written: each one ends
					 * the scope of this CPU's flow ids */
	unsigned long aux;		/* slots reserved for records that are
					 * not events (LOST, FLOW) */
	unsigned long hits;		/* events that passed the filters */
	unsigned long lost;		/* events dropped: ring full */
	/* losses and probe misses not yet reported in the stream (a LOST
	 * record carries both); the reader may take them */
	atomic_long_t lost_pending;
	atomic_long_t missed_pending;
	/* this_cpu_inc() from any context on this CPU */
	unsigned long filtered;		/* events the filter rejected */
	unsigned long missed;		/* a probe handler could not run */
	unsigned long unparsed;		/* packets whose headers cannot be read */
	/* written by the reader only */
	unsigned long tail ____cacheline_aligned;	/* slots consumed */
	unsigned long aux_taken;	/* of them, not events (see ->aux) */
	/* read-mostly */
	union magnet_slot *slots ____cacheline_aligned;
	unsigned long mask;
	unsigned long watermark;
	struct irq_work wake_work;
};

int magnet_rings_init(unsigned int nrecords, void (*wake)(void));
void magnet_rings_exit(void);
/* bytes per CPU's ring; magnet_rings_map() puts CPU c's at c times it */
unsigned long magnet_ring_size(void);
/* bytes of the map of every possible CPU's ring: nr_cpu_ids rings */
unsigned long magnet_rings_map_size(void);
struct vm_area_struct;
int magnet_rings_map(struct vm_area_struct *vma);

extern struct magnet_ring __percpu *magnet_rings;

void magnet_ring_write_lost(union magnet_slot *slot, unsigned int cpu,
			    unsigned long lost, unsigned long missed);

static __always_inline union magnet_slot *magnet_ring_slot(struct magnet_ring *r,
							   unsigned long pos)
{
	return &r->slots[pos & r->mask];
}

/* losses or misses wait to be written as a LOST record */
static __always_inline bool magnet_ring_pending(struct magnet_ring *r)
{
	return atomic_long_read(&r->lost_pending) |
	       atomic_long_read(&r->missed_pending);
}

/* @n probe misses on this CPU, reported in its next LOST record */
static __always_inline void magnet_ring_missed(struct magnet_ring __percpu *rings,
					       unsigned long n)
{
	struct magnet_ring *r = raw_cpu_ptr(rings);

	this_cpu_add(rings->missed, n);
	atomic_long_add(n, &r->missed_pending);
}

/*
 * Called with local interrupts disabled, for one event that passed the
 * filters and takes @n slots (the event's record last, and before it @n - 1
 * records that are not events, such as a FLOW record). @pending: magnet_ring_pending() as the
 * caller read it, so whether a LOST record is written is known to it. Returns true with the first slot's
 * position in @pos, or false if the ring is full (the event is counted as
 * lost). Losses and probe misses not yet reported are first written as a
 * LOST record, so the stream says where recording resumed and how much is
 * missing; that takes a slot more, and ends the scope of this CPU's flow
 * ids (->marks), so the writer checks its flows after this call.
 */
static __always_inline bool magnet_ring_reserve(struct magnet_ring *r,
						unsigned int n, bool pending,
						unsigned long *pos)
{
	unsigned long head = r->head;
	unsigned long used = head - smp_load_acquire(&r->tail);

	r->hits++;
	if (unlikely(pending)) {
		unsigned long lost, missed;

		if (used + n + 1 > r->mask + 1)
			goto full;
		lost = atomic_long_xchg(&r->lost_pending, 0);
		missed = atomic_long_xchg(&r->missed_pending, 0);
		if (lost | missed) {
			magnet_ring_write_lost(magnet_ring_slot(r, head),
					       smp_processor_id(), lost, missed);
			head++;
			r->marks++;
			r->aux++;
		}
	} else if (unlikely(used + n > r->mask + 1)) {
		goto full;
	}
	r->next = head + n;
	r->aux += n - 1;
	*pos = head;
	return true;
full:
	r->lost++;
	atomic_long_inc(&r->lost_pending);
	return false;
}

/*
 * Publish the slots reserved by magnet_ring_reserve(); wake the reader when
 * the fill crosses the watermark. A commit can move head by up to three
 * slots, so the test is a crossing, not an equality, which would let such a
 * commit step over the watermark and leave the reader to its timer.
 */
static __always_inline void magnet_ring_commit(struct magnet_ring *r)
{
	unsigned long old = r->head, head = r->next;
	unsigned long used;

	smp_store_release(&r->head, head);
	used = head - READ_ONCE(r->tail);
	if (unlikely(used >= r->watermark && used - (head - old) < r->watermark))
		irq_work_queue(&r->wake_work);
}

/* Records that can be read from @r now. */
static inline unsigned long magnet_ring_count(struct magnet_ring *r)
{
	return smp_load_acquire(&r->head) - r->tail;
}

/* an event the filter rejected, on this CPU */
static __always_inline void magnet_ring_filtered(void)
{
	this_cpu_inc(magnet_rings->filtered);
}

/* a packet whose headers cannot be read, on this CPU */
static __always_inline void magnet_ring_unparsed(void)
{
	this_cpu_inc(magnet_rings->unparsed);
}

/* One CPU's counters, read without stopping its writer (statistics). */
struct magnet_ring_stats {
	unsigned long hits;	/* events that passed the filters */
	unsigned long lost;	/* of them, dropped: ring full */
	unsigned long filtered;	/* events the filter rejected */
	unsigned long missed;	/* a probe handler could not run */
	unsigned long unparsed;	/* packets whose headers cannot be read */
	unsigned long fill;	/* event records in the ring now (not LOST
				 * or FLOW records) */
	unsigned long other;	/* LOST and FLOW records in the ring now */
	unsigned long size;	/* slots in the ring */
};
void magnet_ring_stats(int cpu, struct magnet_ring_stats *st);

bool magnet_rings_empty(void);
void magnet_rings_log(const char *when, unsigned long probe_misses);

/*
 * The consumer's side. There is one consumer at a time, which serialises
 * its calls (the reader's consume mutex): only these functions move a
 * ring's tail or take its pending losses.
 *
 * A pass over the rings: begin() notes where each ring's records end now,
 * next() gives the oldest record not yet taken across CPUs (on equal
 * times, the lowest CPU's), take() moves past it, saying whether it was a
 * record that is not an event (LOST, FLOW), and release() gives the slots
 * taken back to the writers. Between next() and release() a slot is the
 * consumer's. hold() keeps a pass's records in the rings after the pass
 * (a mapped TAKE, whose caller writes them from the map) until release();
 * no pass begins while records are held.
 */
struct magnet_ring_iter {
	unsigned long *pos;	/* per CPU: next record to take */
	unsigned long *end;	/* per CPU: end of this pass */
	unsigned long *aux;	/* per CPU: LOST and FLOW records taken */
	int *active;		/* the CPUs this pass merges */
	unsigned int nactive;
	bool held;		/* hold(): the records taken stay until release() */
};

int magnet_ring_iter_init(struct magnet_ring_iter *it);
void magnet_ring_iter_free(struct magnet_ring_iter *it);
/* a pass up to each ring's head now, or up to @limit[cpu] if that is before */
void magnet_ring_iter_begin(struct magnet_ring_iter *it,
			    const unsigned long *limit);
void magnet_ring_iter_release(struct magnet_ring_iter *it);
void magnet_ring_iter_hold(struct magnet_ring_iter *it);
/* records wait that @it has not taken (with none held: any record) */
bool magnet_ring_iter_waiting(const struct magnet_ring_iter *it);
/* bytes per CPU's ring (magnet_ring_size()), for the inline below */
extern unsigned long magnet_ring_bytes;

/*
 * Where the record next() gave for @cpu is in the map of every ring
 * (magnet_rings_map()); inline: a mapped TAKE calls it per record
 */
static __always_inline u64
magnet_ring_iter_offset(const struct magnet_ring_iter *it, int cpu)
{
	struct magnet_ring *r = per_cpu_ptr(magnet_rings, cpu);

	return (u64)cpu * magnet_ring_bytes +
	       (u64)(it->pos[cpu] & r->mask) * MAGNET_SLOT_SIZE;
}

/*
 * The oldest record not yet taken in this pass, across CPUs (on equal
 * times, the lowest CPU's), or NULL. A CPU whose records are all taken
 * leaves the merge. Inlined in the consumer's loops: as a call it cost 46
 * instructions a record, 11 to 23 more than inlined (bench-insn).
 */
static __always_inline union magnet_slot *
magnet_ring_iter_next(struct magnet_ring_iter *it, int *cpup)
{
	union magnet_slot *rec, *best = NULL;
	unsigned int i = 0;

	while (i < it->nactive) {
		int cpu = it->active[i];
		struct magnet_ring *r = per_cpu_ptr(magnet_rings, cpu);

		if ((long)(it->end[cpu] - it->pos[cpu]) <= 0) {
			it->active[i] = it->active[--it->nactive];
			continue;
		}
		rec = magnet_ring_slot(r, it->pos[cpu]);
		if (!best || rec->hdr.ts_ns < best->hdr.ts_ns ||
		    (rec->hdr.ts_ns == best->hdr.ts_ns && cpu < *cpup)) {
			best = rec;
			*cpup = cpu;
		}
		i++;
	}
	return best;
}

/* the record next() gave for @cpu is taken; @aux: a LOST or FLOW record */
static __always_inline void magnet_ring_iter_take(struct magnet_ring_iter *it,
						  int cpu, bool aux)
{
	if (aux)
		it->aux[cpu]++;
	it->pos[cpu]++;
}

/* every ring's head now, into @heads[cpu] */
void magnet_rings_heads(unsigned long *heads);
/*
 * Losses and misses of @cpu not yet reported in the stream, when its ring
 * is empty (so a LOST record the consumer writes comes after everything
 * the CPU wrote): magnet_ring_has_pending() says whether there are, and
 * magnet_ring_take_pending() takes them (false: none were left).
 */
bool magnet_ring_has_pending(int cpu);
bool magnet_ring_take_pending(int cpu, unsigned long *lost,
			      unsigned long *missed);
/* forget every CPU's losses and misses not yet reported */
void magnet_rings_drop_pending(void);
/*
 * Empty every ring, after the records a held pass has taken; returns the
 * event records discarded. @aux is called on each record and says whether
 * it is a LOST or FLOW record rather than an event. A LOST record's losses
 * go back to its CPU's pending count, so a later LOST record still reports
 * them.
 */
unsigned long magnet_rings_discard(bool (*aux)(const union magnet_slot *));

#endif /* MAGNET_RING_H */
