/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * web10g connection ids (CID), shared by the module's web10g output and
 * ttpb2ascii, so the two number connections alike: 1, 2, ... per
 * connection in order of first appearance. A socket's id is never another
 * socket's (its cookie, sockid.h); one seen with another flow than before
 * (magnet_flow_key) was connected again (a connect() that failed, then one
 * to another peer; in logs of modules before 2026-11-26, whose sock_id
 * hashed the socket's address, a new socket in reused memory): a new
 * connection, a new id in the same slot.
 *
 * An open-addressing hash table of one entry per socket, so its memory
 * grows with the sockets seen, not the records. It starts at 2^bits slots
 * and doubles when half full, up to 2^max_bits slots; a connection that
 * finds no room (the table at its largest, or no memory) gets CID 0, and
 * so does one after 2^32 - 1 ids.
 *
 * Plain C: the module and the tools build it (MAGNET_CID_CALLOC and
 * MAGNET_CID_FREE are the allocator of each).
 */
#ifndef MAGNET_CID_H
#define MAGNET_CID_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/slab.h>
#include <linux/mm.h>
#define MAGNET_CID_CALLOC(n, size) kvcalloc(n, size, GFP_KERNEL | __GFP_NOWARN)
#define MAGNET_CID_FREE(p) kvfree(p)
#else
#include <stdlib.h>
#include <linux/types.h>
#define MAGNET_CID_CALLOC(n, size) calloc(n, size)
#define MAGNET_CID_FREE(p) free(p)
#endif

struct magnet_cid_entry {
	__u64 sock_id;
	__u32 cid;		/* 0: a free slot */
	__u32 flow;		/* magnet_flow_key() of the connection */
};

struct magnet_cids {
	struct magnet_cid_entry *t;	/* 2^bits slots */
	unsigned int bits, max_bits;
	unsigned long used;		/* slots in use */
	__u32 count;			/* ids given */
};

static inline unsigned long magnet_cid_hash(__u64 id, unsigned int bits)
{
	id ^= id >> 33;
	id *= 0xff51afd7ed558ccdULL;
	id ^= id >> 33;
	return (unsigned long)id & ((1UL << bits) - 1);
}

/* @sock_id's slot, or the free one where it goes (there is one: the table
 * is never more than half full) */
static inline struct magnet_cid_entry *
magnet_cid_slot(struct magnet_cid_entry *t, unsigned int bits, __u64 sock_id)
{
	unsigned long mask = (1UL << bits) - 1, i = magnet_cid_hash(sock_id, bits);

	while (t[i].cid && t[i].sock_id != sock_id)
		i = (i + 1) & mask;
	return &t[i];
}

/* 2^@bits slots to start with, up to 2^@max_bits; 0, or -1 (no memory) */
static inline int magnet_cids_init(struct magnet_cids *c, unsigned int bits,
				   unsigned int max_bits)
{
	c->t = MAGNET_CID_CALLOC(1UL << bits, sizeof(*c->t));
	c->bits = bits;
	c->max_bits = max_bits;
	c->used = 0;
	c->count = 0;
	return c->t ? 0 : -1;
}

static inline void magnet_cids_free(struct magnet_cids *c)
{
	MAGNET_CID_FREE(c->t);
	c->t = NULL;
}

/* twice the slots; 0 (the table stays as it is) at its largest or without
 * memory */
static inline int magnet_cids_grow(struct magnet_cids *c)
{
	unsigned int bits = c->bits + 1;
	struct magnet_cid_entry *t;
	unsigned long i;

	if (bits > c->max_bits)
		return 0;
	t = MAGNET_CID_CALLOC(1UL << bits, sizeof(*t));
	if (!t)
		return 0;
	for (i = 0; i < (1UL << c->bits); i++)
		if (c->t[i].cid)
			*magnet_cid_slot(t, bits, c->t[i].sock_id) = c->t[i];
	MAGNET_CID_FREE(c->t);
	c->t = t;
	c->bits = bits;
	return 1;
}

/* the connection id of socket @sock_id's connection @flow (see above) */
static inline __u32 magnet_cid_of(struct magnet_cids *c, __u64 sock_id,
				  __u32 flow)
{
	struct magnet_cid_entry *e = magnet_cid_slot(c->t, c->bits, sock_id);

	if (e->cid && e->flow == flow)
		return e->cid;
	if (c->count == 0xffffffffU)
		return 0;
	if (!e->cid) {
		/* a new socket: its slot must leave the table half empty */
		if ((c->used + 1) * 2 > (1UL << c->bits)) {
			if (!magnet_cids_grow(c))
				return 0;
			e = magnet_cid_slot(c->t, c->bits, sock_id);
		}
		c->used++;
	}
	e->sock_id = sock_id;
	e->flow = flow;
	e->cid = ++c->count;
	return e->cid;
}

#endif /* MAGNET_CID_H */
