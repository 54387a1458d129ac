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
 */
#ifndef MAGNET_RING_H
#define MAGNET_RING_H

#include <linux/cache.h>
#include <linux/percpu.h>
#include <linux/irq_work.h>
#include "record.h"

struct magnet_ring {
	/* written by the producer (this CPU) only */
	unsigned long head ____cacheline_aligned;	/* records committed */
	unsigned long lost;				/* records dropped */
	/* written by the reader only */
	unsigned long tail ____cacheline_aligned;	/* records consumed */
	/* read-mostly */
	struct magnet_record *recs ____cacheline_aligned;
	unsigned long mask;
	unsigned long watermark;
	struct irq_work wake_work;
};

int magnet_rings_init(unsigned int nrecords);
void magnet_rings_exit(void);

extern struct magnet_ring __percpu *magnet_rings;

/* Called with local interrupts disabled. NULL means full: counted as lost. */
static __always_inline struct magnet_record *
magnet_ring_reserve(struct magnet_ring *r)
{
	unsigned long head = r->head;

	if (unlikely(head - smp_load_acquire(&r->tail) > r->mask)) {
		r->lost++;
		return NULL;
	}
	return &r->recs[head & r->mask];
}

/* Publish the slot returned by magnet_ring_reserve(); wake at watermark. */
static __always_inline void magnet_ring_commit(struct magnet_ring *r)
{
	unsigned long head = r->head + 1;

	smp_store_release(&r->head, head);
	if (unlikely(head - READ_ONCE(r->tail) == r->watermark))
		irq_work_queue(&r->wake_work);
}

/* Records that can be read from @r now. */
static inline unsigned long magnet_ring_count(struct magnet_ring *r)
{
	return smp_load_acquire(&r->head) - r->tail;
}

bool magnet_rings_empty(void);

#endif /* MAGNET_RING_H */
