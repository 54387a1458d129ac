// SPDX-License-Identifier: GPL-2.0
/*
 * The per-CPU rings (ring.h): allocation, teardown, the map, and the
 * consumer's side (passes over the rings, held records, pending losses,
 * discards). A leaf: it knows the slot's size and the LOST record, and
 * nothing of the probes or the reader, which it wakes through the callback
 * given at init.
 */
#include <linux/vmalloc.h>
#include <linux/mm.h>
#include <linux/cpumask.h>
#include <linux/topology.h>
#include <linux/kprobes.h>
#include <linux/timekeeping.h>
#include <linux/string.h>
#include <linux/slab.h>
#include <linux/sched.h>
#include "ring.h"
#include "v3.h"

struct magnet_ring __percpu *magnet_rings;
static void (*magnet_ring_wake_fn)(void);
unsigned long magnet_ring_bytes;

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
 * The records in @r now: *@events event records, *@other LOST and FLOW
 * records (read without stopping the writer: a snapshot).
 */
static void magnet_ring_held(struct magnet_ring *r, unsigned long *events,
			     unsigned long *other)
{
	unsigned long tail = READ_ONCE(r->tail), taken = READ_ONCE(r->aux_taken);
	unsigned long slots = READ_ONCE(r->head) - tail;
	unsigned long aux = READ_ONCE(r->aux) - taken;

	*events = slots > aux ? slots - aux : 0;
	*other = slots - *events;
}

void magnet_ring_stats(int cpu, struct magnet_ring_stats *st)
{
	struct magnet_ring *r = per_cpu_ptr(magnet_rings, cpu);

	st->hits = READ_ONCE(r->hits);
	st->lost = READ_ONCE(r->lost);
	st->filtered = READ_ONCE(r->filtered);
	st->missed = READ_ONCE(r->missed);
	st->unparsed = READ_ONCE(r->unparsed);
	magnet_ring_held(r, &st->fill, &st->other);
	st->size = r->mask + 1;
}

/*
 * Kernel log lines with the counters: the totals, then one line per CPU
 * that saw events. hits = events that passed the filters = written + lost.
 * @probe_misses: the handlers' misses, which the caller knows.
 */
void magnet_rings_log(const char *when, unsigned long probe_misses)
{
	unsigned long hits = 0, lost = 0, unread = 0;
	struct magnet_ring_stats st;
	int cpu;

	for_each_possible_cpu(cpu) {
		magnet_ring_stats(cpu, &st);
		hits += st.hits;
		lost += st.lost;
		unread += st.fill;
	}
	pr_info("%s: %lu records written, %lu lost (ring full), %lu unread, %lu probe misses\n",
		when, hits - lost, lost, unread, probe_misses);
	for_each_possible_cpu(cpu) {
		magnet_ring_stats(cpu, &st);
		if (st.hits)
			pr_info("%s: cpu %d: %lu hits, %lu written, %lu lost\n",
				when, cpu, st.hits, st.hits - st.lost, st.lost);
	}
}

/* ------------------------------------------------------- the consumer */

/* the pass whose records are held (magnet_ring_iter_hold), or NULL */
static struct magnet_ring_iter *magnet_ring_holder;

int magnet_ring_iter_init(struct magnet_ring_iter *it)
{
	memset(it, 0, sizeof(*it));
	it->pos = kcalloc(nr_cpu_ids, sizeof(*it->pos), GFP_KERNEL);
	it->end = kcalloc(nr_cpu_ids, sizeof(*it->end), GFP_KERNEL);
	it->aux = kcalloc(nr_cpu_ids, sizeof(*it->aux), GFP_KERNEL);
	it->active = kcalloc(nr_cpu_ids, sizeof(*it->active), GFP_KERNEL);
	if (!it->pos || !it->end || !it->aux || !it->active) {
		magnet_ring_iter_free(it);
		return -ENOMEM;
	}
	return 0;
}

void magnet_ring_iter_free(struct magnet_ring_iter *it)
{
	kfree(it->pos);
	kfree(it->end);
	kfree(it->aux);
	kfree(it->active);
	memset(it, 0, sizeof(*it));
}

/*
 * Only the CPUs with records to read take part in the merge, so a record
 * costs the consumer the same on a machine with hundreds of possible CPUs.
 */
void magnet_ring_iter_begin(struct magnet_ring_iter *it,
			    const unsigned long *limit)
{
	int cpu;

	it->nactive = 0;
	for_each_possible_cpu(cpu) {
		struct magnet_ring *r = per_cpu_ptr(magnet_rings, cpu);
		unsigned long end = smp_load_acquire(&r->head);

		if (limit && (long)(end - limit[cpu]) > 0)
			end = limit[cpu];
		it->pos[cpu] = r->tail;
		it->aux[cpu] = 0;
		it->end[cpu] = end;
		if ((long)(end - r->tail) > 0)
			it->active[it->nactive++] = cpu;
	}
}

/* The records taken are the writers' again. */
void magnet_ring_iter_release(struct magnet_ring_iter *it)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct magnet_ring *r = per_cpu_ptr(magnet_rings, cpu);

		if (it->aux[cpu])
			WRITE_ONCE(r->aux_taken, r->aux_taken + it->aux[cpu]);
		it->aux[cpu] = 0;
		smp_store_release(&r->tail, it->pos[cpu]);
	}
	if (it->held) {
		WRITE_ONCE(it->held, false);
		magnet_ring_holder = NULL;
	}
}

void magnet_ring_iter_hold(struct magnet_ring_iter *it)
{
	WRITE_ONCE(it->held, true);
	magnet_ring_holder = it;
}

/* without the consumer's lock: a hint for poll() and wait_event() */
bool magnet_ring_iter_waiting(const struct magnet_ring_iter *it)
{
	int cpu;

	if (!READ_ONCE(it->held))
		return !magnet_rings_empty();
	for_each_possible_cpu(cpu)
		if (smp_load_acquire(&per_cpu_ptr(magnet_rings, cpu)->head) !=
		    READ_ONCE(it->pos[cpu]))
			return true;
	return false;
}

void magnet_rings_heads(unsigned long *heads)
{
	int cpu;

	for_each_possible_cpu(cpu)
		heads[cpu] = smp_load_acquire(&per_cpu_ptr(magnet_rings, cpu)->head);
}

bool magnet_ring_has_pending(int cpu)
{
	struct magnet_ring *r = per_cpu_ptr(magnet_rings, cpu);

	return !magnet_ring_count(r) && magnet_ring_pending(r);
}

bool magnet_ring_take_pending(int cpu, unsigned long *lost,
			      unsigned long *missed)
{
	struct magnet_ring *r = per_cpu_ptr(magnet_rings, cpu);

	*lost = atomic_long_xchg(&r->lost_pending, 0);
	*missed = atomic_long_xchg(&r->missed_pending, 0);
	return *lost | *missed;
}

void magnet_rings_drop_pending(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		atomic_long_xchg(&per_cpu_ptr(magnet_rings, cpu)->lost_pending, 0);
		atomic_long_xchg(&per_cpu_ptr(magnet_rings, cpu)->missed_pending, 0);
	}
}

/*
 * Process context, under the consumer's lock (a mutex: this may sleep).
 * Rings of bufsize=1048576 hold 2^20 records per CPU: the walk offers to
 * reschedule every MAGNET_DISCARD_STEP records, so that a reset of full
 * rings on a non-preemptible kernel is neither a soft lockup nor an RCU
 * stall (tests/vm: case_reset_full).
 */
#define MAGNET_DISCARD_STEP 1024
unsigned long magnet_rings_discard(bool (*aux)(const union magnet_slot *))
{
	struct magnet_ring_iter *h = magnet_ring_holder;
	unsigned long n = 0, step = 0;
	int cpu;

	for_each_possible_cpu(cpu) {
		struct magnet_ring *r = per_cpu_ptr(magnet_rings, cpu);
		unsigned long head = smp_load_acquire(&r->head);
		unsigned long i;

		/* records a TAKE holds are the consumer's already: the discard
		 * starts after them, and they leave when it releases them */
		for (i = h ? h->pos[cpu] : r->tail; i != head; i++) {
			const union magnet_slot *rec = magnet_ring_slot(r, i);
			const struct magnet_v3_count *c = (void *)(&rec->hdr + 1);

			if (++step % MAGNET_DISCARD_STEP == 0)
				cond_resched();
			if (!aux(rec)) {
				n++;
				continue;
			}
			if (h)
				h->aux[cpu]++;
			else
				r->aux_taken++;
			if (rec->hdr.event == MAGNET_EV_LOST) {
				atomic_long_add(c->req, &r->lost_pending);
				atomic_long_add(c->ret, &r->missed_pending);
			}
		}
		if (h)
			h->pos[cpu] = head;
		else
			smp_store_release(&r->tail, head);
	}
	return n;
}
