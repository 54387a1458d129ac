// SPDX-License-Identifier: GPL-2.0
/*
 * Allocation and teardown of the per-CPU rings.
 */
#include <linux/vmalloc.h>
#include <linux/cpumask.h>
#include <linux/topology.h>
#include "magnet.h"
#include "ring.h"

struct magnet_ring __percpu *magnet_rings;

static void magnet_ring_wake(struct irq_work *work)
{
	magnet_wake_reader();
}

int magnet_rings_init(unsigned int nrecords)
{
	int cpu;

	magnet_rings = alloc_percpu(struct magnet_ring);
	if (!magnet_rings)
		return -ENOMEM;

	for_each_possible_cpu(cpu) {
		struct magnet_ring *r = per_cpu_ptr(magnet_rings, cpu);

		r->recs = vmalloc_node(array_size(nrecords, sizeof(*r->recs)),
				       cpu_to_node(cpu));
		if (!r->recs) {
			magnet_rings_exit();
			return -ENOMEM;
		}
		r->mask = nrecords - 1;
		r->watermark = nrecords / 2;
		init_irq_work(&r->wake_work, magnet_ring_wake);
	}
	return 0;
}

/* Only after every probe is unregistered: no writer may be running. */
void magnet_rings_exit(void)
{
	int cpu;

	if (!magnet_rings)
		return;
	for_each_possible_cpu(cpu) {
		struct magnet_ring *r = per_cpu_ptr(magnet_rings, cpu);

		if (r->recs)
			irq_work_sync(&r->wake_work);
		vfree(r->recs);
	}
	free_percpu(magnet_rings);
	magnet_rings = NULL;
}

bool magnet_rings_empty(void)
{
	int cpu;

	for_each_possible_cpu(cpu)
		if (magnet_ring_count(per_cpu_ptr(magnet_rings, cpu)))
			return false;
	return true;
}

/* One kernel log line with the ring and probe counters. */
void magnet_log_stats(const char *when)
{
	unsigned long written = 0, lost = 0, unread = 0;
	int cpu;

	for_each_possible_cpu(cpu) {
		struct magnet_ring *r = per_cpu_ptr(magnet_rings, cpu);
		unsigned long head = READ_ONCE(r->head);

		written += head;
		lost += READ_ONCE(r->lost);
		unread += head - READ_ONCE(r->tail);
	}
	pr_info("%s: %lu records written, %lu lost (ring full), %lu unread, %lu probe misses\n",
		when, written, lost, unread, magnet_probes_nmissed());
}
