// SPDX-License-Identifier: GPL-2.0
/*
 * Allocation and teardown of the per-CPU rings (ring.h). A leaf: it knows
 * the slot's size and the LOST record, and nothing of the probes or the
 * reader, which it wakes through the callback given at init.
 */
#include <linux/vmalloc.h>
#include <linux/mm.h>
#include <linux/cpumask.h>
#include <linux/topology.h>
#include <linux/kprobes.h>
#include <linux/timekeeping.h>
#include <linux/string.h>
#include "ring.h"
#include "v3.h"

struct magnet_ring __percpu *magnet_rings;
static void (*magnet_ring_wake_fn)(void);
static unsigned long magnet_ring_bytes;

/* irq_work: the fill of a ring crossed its watermark (magnet_ring_commit) */
static void magnet_ring_wake(struct irq_work *work)
{
	magnet_ring_wake_fn();
}

/*
 * @nrecords slots per possible CPU (a power of two); @wake is called, from
 * an irq_work, when a ring's fill crosses half of it.
 */
int magnet_rings_init(unsigned int nrecords, void (*wake)(void))
{
	int cpu;

	magnet_ring_wake_fn = wake;
	magnet_ring_bytes = (unsigned long)nrecords * MAGNET_SLOT_SIZE;
	magnet_rings = alloc_percpu(struct magnet_ring);
	if (!magnet_rings)
		return -ENOMEM;

	for_each_possible_cpu(cpu) {
		struct magnet_ring *r = per_cpu_ptr(magnet_rings, cpu);

		r->slots = vzalloc_node(array_size(nrecords, sizeof(*r->slots)),
					cpu_to_node(cpu));
		if (!r->slots) {
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

		if (r->slots)
			irq_work_sync(&r->wake_work);
		vfree(r->slots);
	}
	free_percpu(magnet_rings);
	magnet_rings = NULL;
}

unsigned long magnet_ring_size(void)
{
	return magnet_ring_bytes;
}

unsigned long magnet_rings_map_size(void)
{
	return magnet_ring_bytes * nr_cpu_ids;
}

/*
 * Map every possible CPU's ring read-only into @vma, CPU c's at
 * c * magnet_ring_size() (the caller checked the size and that a ring is
 * whole pages). Each page mapped holds a reference of its own, so the
 * rings can be freed (an unload) while the map lasts: its pages then
 * go when it is unmapped.
 */
int magnet_rings_map(struct vm_area_struct *vma)
{
	unsigned long off;
	int cpu, ret;

	for_each_possible_cpu(cpu) {
		char *slots = (char *)per_cpu_ptr(magnet_rings, cpu)->slots;

		for (off = 0; off < magnet_ring_bytes; off += PAGE_SIZE) {
			ret = vm_insert_page(vma, vma->vm_start +
					     cpu * magnet_ring_bytes + off,
					     vmalloc_to_page(slots + off));
			if (ret)
				return ret;
		}
		/* bufsize=1048576 is 65,536 pages a CPU */
		cond_resched();
	}
	return 0;
}

/*
 * A LOST record: before this point, @lost events were dropped on @cpu (ring
 * full) and its probe handlers could not run @missed times.
 */
void magnet_ring_write_lost(union magnet_slot *slot, unsigned int cpu,
			    unsigned long lost, unsigned long missed)
{
	magnet_v3_put_count(slot, ktime_get_mono_fast_ns(), cpu, MAGNET_EV_LOST,
			    lost, missed);
}
NOKPROBE_SYMBOL(magnet_ring_write_lost);

bool magnet_rings_empty(void)
{
	int cpu;

	for_each_possible_cpu(cpu)
		if (magnet_ring_count(per_cpu_ptr(magnet_rings, cpu)))
			return false;
	return true;
}

/*
 * Kernel log lines with the counters: the totals, then one line per CPU
 * that saw events. hits = events that passed the filters = written + lost.
 * @probe_misses: the handlers' misses, which the caller knows.
 */
void magnet_rings_log(const char *when, unsigned long probe_misses)
{
	unsigned long hits = 0, lost = 0, unread = 0;
	int cpu;

	for_each_possible_cpu(cpu) {
		struct magnet_ring *r = per_cpu_ptr(magnet_rings, cpu);

		hits += READ_ONCE(r->hits);
		lost += READ_ONCE(r->lost);
		unread += magnet_ring_events(r);
	}
	pr_info("%s: %lu records written, %lu lost (ring full), %lu unread, %lu probe misses\n",
		when, hits - lost, lost, unread, probe_misses);
	for_each_possible_cpu(cpu) {
		struct magnet_ring *r = per_cpu_ptr(magnet_rings, cpu);
		unsigned long h = READ_ONCE(r->hits), l = READ_ONCE(r->lost);

		if (h)
			pr_info("%s: cpu %d: %lu hits, %lu written, %lu lost\n",
				when, cpu, h, h - l, l);
	}
}
