/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-CPU record rings.
 *
 * One single-producer/single-consumer ring per possible CPU. The producer is
 * whatever runs on that CPU: a probe handler reserves, fills and commits a
 * slot with local interrupts disabled, so process, softirq and hardirq
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

struct magnet_ring {
	/* written by the producer (this CPU) only */
	unsigned long head ____cacheline_aligned;	/* slots committed */
	unsigned long next;		/* slot being filled, see reserve */
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
	/* read-mostly */
	struct magnet_record *recs ____cacheline_aligned;
	unsigned long mask;
	unsigned long watermark;
	struct irq_work wake_work;
};

int magnet_rings_init(unsigned int nrecords, void (*wake)(void));
void magnet_rings_exit(void);

extern struct magnet_ring __percpu *magnet_rings;

void magnet_ring_write_lost(struct magnet_record *rec, unsigned int cpu,
			    unsigned long lost, unsigned long missed);

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
 * filters. Returns the slot to fill, or NULL if the ring is full (the event
 * is counted as lost). Losses and probe misses not yet reported are first
 * written as a LOST record, so the stream says where recording resumed and
 * how much is missing; that needs two free slots.
 */
static __always_inline struct magnet_record *
magnet_ring_reserve(struct magnet_ring *r)
{
	unsigned long head = r->head;
	unsigned long used = head - smp_load_acquire(&r->tail);

	r->hits++;
	if (unlikely(atomic_long_read(&r->lost_pending) |
		     atomic_long_read(&r->missed_pending))) {
		unsigned long lost, missed;

		if (used + 2 > r->mask + 1)
			goto full;
		lost = atomic_long_xchg(&r->lost_pending, 0);
		missed = atomic_long_xchg(&r->missed_pending, 0);
		if (lost | missed) {
			magnet_ring_write_lost(&r->recs[head & r->mask],
					       smp_processor_id(), lost, missed);
			head++;
		}
	} else if (unlikely(used > r->mask)) {
		goto full;
	}
	r->next = head;
	return &r->recs[head & r->mask];
full:
	r->lost++;
	atomic_long_inc(&r->lost_pending);
	return NULL;
}

/*
 * Publish the slot returned by magnet_ring_reserve(); wake the reader when
 * the fill crosses the watermark. A LOST record and an event move head by
 * two, so the test is a crossing, not an equality, which would let such a
 * commit step over the watermark and leave the reader to its timer.
 */
static __always_inline void magnet_ring_commit(struct magnet_ring *r)
{
	unsigned long old = r->head, head = r->next + 1;
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

bool magnet_rings_empty(void);
void magnet_rings_log(const char *when, unsigned long probe_misses);

#endif /* MAGNET_RING_H */
