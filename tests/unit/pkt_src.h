/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * module/shared/pktparse.h for the unit tests and the fuzzer: a byte source that
 * models an skb (the first `linear` bytes in place, the rest copied, as
 * skb_header_pointer() does) and a comparison of two parses.
 */
#ifndef MAGNET_TEST_PKT_SRC_H
#define MAGNET_TEST_PKT_SRC_H

#include <string.h>
#include <linux/types.h>

struct src {
	const __u8 *data;
	unsigned int n, linear;
};

static inline const __u8 *magnet_pkt_bytes(const void *s, unsigned int off,
					   unsigned int len, void *buf)
{
	const struct src *p = s;

	if (off > p->n || len > p->n - off)
		return NULL;
	if (off + len <= p->linear)
		return p->data + off;
	memcpy(buf, p->data + off, len);
	return buf;
}

#include "pktparse.h"

/* the same parse: every field, and the addresses @aa and @ba point at */
static inline int pkt_same(const struct magnet_pkt *a, const __u8 *aa,
			   const __u8 *ad, const struct magnet_pkt *b,
			   const __u8 *ba, const __u8 *bd)
{
	unsigned int al = a->family == 4 ? 4 : 16;

	return a->family == b->family && a->proto == b->proto &&
	       a->tos == b->tos && a->ttl == b->ttl && a->id == b->id &&
	       a->sport == b->sport && a->dport == b->dport &&
	       a->has_seq == b->has_seq && a->fragment == b->fragment &&
	       (!a->has_seq || (a->seq == b->seq && a->end_seq == b->end_seq &&
				a->ack == b->ack && a->win == b->win &&
				a->tflags == b->tflags && a->thlen == b->thlen &&
				(a->thlen <= 20 ||
				 !memcmp(a->topts, b->topts, a->thlen - 20U)))) &&
	       a->nhlen == b->nhlen && a->frag == b->frag &&
	       a->len == b->len && !memcmp(aa, ba, al) && !memcmp(ad, bd, al);
}

/* after a parse: the TCP options into optbuf, as the probe copies them
 * into the record, so they outlive the parsed buffer */
static inline void pkt_keep_opts(struct magnet_pkt *p)
{
	if (p->has_seq && p->thlen > 20) {
		memmove(p->optbuf, p->topts, p->thlen - 20U);
		p->topts = p->optbuf;
	}
}

#endif /* MAGNET_TEST_PKT_SRC_H */
