/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The arithmetic of the backlog table (backlog.c), in plain C so that the
 * unit tests (tests/unit/test_backlog.c) run the same code.
 *
 * A slot is one 64-bit word: a 24-bit tag of the socket, then the segments
 * and the data segments TCP has processed, each modulo 2^20. Linux's own
 * counters (segs_in, data_segs_in) run ahead by what waits in the backlog,
 * fewer than 2^20 segments, so the processed counts follow exactly from
 * the two, across any wrap of either.
 */
#ifndef MAGNET_BLCOUNT_H
#define MAGNET_BLCOUNT_H

#include <linux/types.h>

#define MAGNET_BL_CNT_BITS 20
#define MAGNET_BL_CNT_MASK ((1U << MAGNET_BL_CNT_BITS) - 1)
#define MAGNET_BL_TAG_SHIFT (2 * MAGNET_BL_CNT_BITS)
#define MAGNET_BL_TAG_MASK ((1ULL << (64 - MAGNET_BL_TAG_SHIFT)) - 1)

static inline __u64 magnet_bl_word(__u64 tag, __u32 segs, __u32 dsegs)
{
	return (tag & MAGNET_BL_TAG_MASK) << MAGNET_BL_TAG_SHIFT |
	       (__u64)(segs & MAGNET_BL_CNT_MASK) << MAGNET_BL_CNT_BITS |
	       (dsegs & MAGNET_BL_CNT_MASK);
}

static inline __u64 magnet_bl_tag(__u64 w)
{
	return w >> MAGNET_BL_TAG_SHIFT;
}

static inline __u32 magnet_bl_segs(__u64 w)
{
	return (__u32)(w >> MAGNET_BL_CNT_BITS) & MAGNET_BL_CNT_MASK;
}

static inline __u32 magnet_bl_dsegs(__u64 w)
{
	return (__u32)w & MAGNET_BL_CNT_MASK;
}

/* @w after the owner processed @segs more segments, @dsegs with data */
static inline __u64 magnet_bl_processed(__u64 w, __u32 segs, __u32 dsegs)
{
	return magnet_bl_word(magnet_bl_tag(w), magnet_bl_segs(w) + segs,
			      magnet_bl_dsegs(w) + dsegs);
}

/* Linux's count @now less what is pending, given @done (mod 2^20) */
static inline __u32 magnet_bl_done(__u32 now, __u32 done, __u32 limit)
{
	__u32 pending = (now - done) & MAGNET_BL_CNT_MASK;

	/*
	 * More pending data segments than segments (@limit): the owner
	 * counted as data a segment that arrived without (an ACK coalesced
	 * into a data segment in the backlog). Report what Linux counted.
	 */
	return pending > limit ? now : now - pending;
}

/* segs_in and data_segs_in as processed, from slot @w and Linux's counts */
static inline void magnet_bl_segs_in(__u64 w, __u32 segs_in,
				     __u32 data_segs_in, __u32 *segs,
				     __u32 *dsegs)
{
	__u32 s = magnet_bl_done(segs_in, magnet_bl_segs(w), ~0U);

	*segs = s;
	*dsegs = magnet_bl_done(data_segs_in, magnet_bl_dsegs(w), segs_in - s);
}

#endif /* MAGNET_BLCOUNT_H */
