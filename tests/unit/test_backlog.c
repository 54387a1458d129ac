// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tests of the backlog table's arithmetic (module/shared/blcount.h): a model
 * of one socket whose segments wait in its backlog while a task owns it,
 * against what a record would report from the slot and Linux's counters.
 *
 * The model follows Linux: an arrival raises segs_in (and data_segs_in for
 * a segment with data) and queues the segment, or coalesces it into the
 * backlog's tail, or drops it; the owner detaches the backlog and processes
 * it in order (__release_sock), and sk_backlog.len is reset only once all
 * is processed. magnet's side: the first arrival to an empty backlog sets
 * the slot, each processed segment advances it, release frees it.
 */
#include <stdlib.h>
#include <string.h>
#include "blcount.h"
#include "check.h"

#define QMAX 4096

struct seg {
	__u32 segs;	/* what Linux counted on arrival */
	__u32 dsegs;
	__u32 c_dsegs;	/* what the owner sees when it processes it */
};

struct model {
	__u32 segs_in, data_segs_in;	/* Linux's counters */
	__u32 done, ddone;		/* processed, by arrival accounting */
	struct seg q[QMAX];
	int n;				/* queued */
	int busy;			/* the backlog is not empty (len != 0) */
	__u64 slot;
	int has_slot;
	int coalesced_mixed;		/* an ACK and a data segment merged,
					 * since the slot was set */
	__u32 last_d;
	long reads, bad_segs, bad_d, bad_mono;
};

static unsigned int rnd(unsigned int n)
{
	return (unsigned int)random() % n;
}

static void arrive(struct model *m, __u32 segs, int data, int drop)
{
	__u32 dsegs = data ? segs : 0;

	/* a backlog is bounded by bytes; the table by 2^20 pending */
	if (m->busy && m->segs_in + segs - m->done > MAGNET_BL_CNT_MASK)
		return;
	m->segs_in += segs;
	m->data_segs_in += dsegs;
	if (drop)
		return;		/* counted by Linux, never processed */
	if (!m->busy) {
		/* magnet_backlog_add, fresh: nothing else is pending */
		m->slot = magnet_bl_word(0x5a5a5a, m->segs_in - segs,
					 m->data_segs_in - dsegs);
		m->has_slot = 1;
		/* the model agrees: earlier drops now count as processed */
		m->done = m->segs_in - segs;
		m->ddone = m->data_segs_in - dsegs;
		m->last_d = m->ddone;
		m->coalesced_mixed = 0;
	}
	m->busy = 1;
	if (m->n && rnd(3) == 0) {
		/* tcp_add_backlog coalesces into the tail */
		struct seg *t = &m->q[m->n - 1];

		if ((t->c_dsegs != 0) != (dsegs != 0))
			m->coalesced_mixed = 1;
		t->segs += segs;
		t->dsegs += dsegs;
		t->c_dsegs = (t->c_dsegs || dsegs) ? t->segs : 0;
		return;
	}
	if (m->n < QMAX)
		m->q[m->n++] = (struct seg){ segs, dsegs, dsegs };
}

/* what a record reads now, checked against the model */
static void read_rec(struct model *m)
{
	__u32 s, d;

	if (!m->has_slot)
		return;
	magnet_bl_segs_in(m->slot, m->segs_in, m->data_segs_in, &s, &d);
	m->reads++;
	if (s != m->done)
		m->bad_segs++;
	/* counters wrap: compare distances */
	if (!m->coalesced_mixed ? d != m->ddone :
	    d - m->ddone > m->data_segs_in - m->ddone)
		m->bad_d++;
	if ((__s32)(d - m->last_d) < 0)
		m->bad_mono++;
	m->last_d = d;
}

/* the owner processes the first @k queued segments, reading after each */
static void process(struct model *m, int k)
{
	int i;

	for (i = 0; i < k && i < m->n; i++) {
		struct seg *g = &m->q[i];

		/* magnet_backlog_consume, then the tcp_in record */
		m->slot = magnet_bl_processed(m->slot, g->segs, g->c_dsegs);
		m->done += g->segs;
		m->ddone += g->dsegs;
		read_rec(m);
	}
	memmove(m->q, m->q + i, (m->n - i) * sizeof(m->q[0]));
	m->n -= i;
}

static void run_model(__u32 s0, __u32 d0, int steps, int big, int mixed,
		      const char *name)
{
	struct model *m = calloc(1, sizeof(*m));
	int i;

	m->segs_in = s0;
	m->data_segs_in = d0;
	for (i = 0; i < steps; i++) {
		switch (rnd(8)) {
		case 0: case 1: case 2: case 3:
			arrive(m, rnd(10) ? 1 : 1 + rnd(big ? 4000 : 44),
			       mixed ? rnd(4) != 0 : 1, rnd(50) == 0);
			read_rec(m);
			break;
		case 4: case 5:
			process(m, 1 + rnd(4));
			break;
		case 6:
			read_rec(m);	/* a tcp_out record meanwhile */
			break;
		case 7:
			/* the backlog drained: len = 0; release_sock or not */
			process(m, m->n);
			m->busy = 0;
			if (rnd(2))
				m->has_slot = 0;	/* tcp_release_cb */
			break;
		}
	}
	CHECK(m->reads > steps / 4, "%s: only %ld reads", name, m->reads);
	CHECK(!m->bad_segs, "%s: %ld of %ld reads with wrong segs_in", name,
	      m->bad_segs, m->reads);
	CHECK(!m->bad_d, "%s: %ld of %ld reads with wrong data_segs_in", name,
	      m->bad_d, m->reads);
	CHECK(!m->bad_mono, "%s: data_segs_in went back %ld times", name,
	      m->bad_mono);
	free(m);
}

static void test_word(void)
{
	__u64 w = magnet_bl_word(0xabcdef, 0x12345, 0xfffff);

	CHECK(magnet_bl_tag(w) == 0xabcdef, "tag %llx",
	      (unsigned long long)magnet_bl_tag(w));
	CHECK(magnet_bl_segs(w) == 0x12345, "segs %x", magnet_bl_segs(w));
	CHECK(magnet_bl_dsegs(w) == 0xfffff, "dsegs %x", magnet_bl_dsegs(w));
	/* counts wrap within their 20 bits and never touch the tag */
	w = magnet_bl_processed(w, 0xfffff, 1);
	CHECK(magnet_bl_tag(w) == 0xabcdef && magnet_bl_segs(w) == 0x12344 &&
	      magnet_bl_dsegs(w) == 0, "processed: %llx", (unsigned long long)w);
	/* the tag is 24 bits: higher address bits do not leak into counts */
	w = magnet_bl_word(0xff123456ULL, 0, 0);
	CHECK(magnet_bl_tag(w) == 0x123456 && magnet_bl_segs(w) == 0,
	      "tag mask: %llx", (unsigned long long)w);
	/* the tag of a word with the top bit set reads back unsigned */
	CHECK(magnet_bl_tag(magnet_bl_word(0x800000, 0, 0)) == 0x800000,
	      "top tag bit");
}

static void test_done(void)
{
	__u32 s, d;

	/* nothing pending */
	magnet_bl_segs_in(magnet_bl_word(1, 500, 300), 500, 300, &s, &d);
	CHECK(s == 500 && d == 300, "none pending: %u %u", s, d);
	/* 2^20 - 1 pending: still exact */
	magnet_bl_segs_in(magnet_bl_word(1, 7, 7), 7 + 0xfffff, 7 + 0xfffff,
			  &s, &d);
	CHECK(s == 7 && d == 7, "2^20-1 pending: %u %u", s, d);
	/* Linux's counter wrapped past 2^32, the slot did not */
	magnet_bl_segs_in(magnet_bl_word(1, 0xffff0, 0xffff0), 0x10, 0x8,
			  &s, &d);
	CHECK(s == 0xfffffff0U && d == 0xfffffff0U, "u32 wrap: %x %x", s, d);
	/* the slot counted one data segment more than Linux: Linux's count */
	magnet_bl_segs_in(magnet_bl_word(1, 100, 61), 100, 60, &s, &d);
	CHECK(s == 100 && d == 60, "data overcount: %u %u", s, d);
	/* pending data segments never exceed pending segments */
	magnet_bl_segs_in(magnet_bl_word(1, 98, 50), 100, 60, &s, &d);
	CHECK(s == 98 && d == 60, "data beyond segs: %u %u", s, d);
}

int main(void)
{
	srandom(20261121);
	test_word();
	test_done();
	run_model(0, 0, 200000, 0, 0, "from zero, data only");
	run_model(0, 0, 200000, 0, 1, "from zero, ACKs and data");
	run_model(0xfffff000U, 0xffffff00U, 200000, 0, 1, "across 2^32");
	run_model(0x000ff000U, 0x000ffff0U, 200000, 0, 1, "across 2^20");
	run_model(12345, 678, 100000, 1, 1, "large GSO segments");
	printf("unit: %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
