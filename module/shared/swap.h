/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The stream's structs swapped in place to the other byte order, every
 * integer of every entry of their tables (schema.h), byte and char arrays
 * left: for ttpb2ascii (a version 2 stream of the other order) and the
 * unit tests' writers of the other order. Userspace only: the module's
 * decoder swaps as it reads (v3.c). Each takes a pointer to the part's
 * bytes, aligned or not.
 */
#ifndef MAGNET_SWAP_H
#define MAGNET_SWAP_H

#include <stddef.h>
#include <string.h>
#include "record.h"

/*
 * @n bytes at @p, integers of @size bytes each (1: left as they are);
 * constants make it a load, a bswap and a store per integer
 */
static inline void magnet_swap_elems(unsigned char *p, size_t size, size_t n)
{
	size_t i;

	for (i = 0; size > 1 && i + size <= n; i += size) {
		if (size == 2) {
			__u16 v;

			memcpy(&v, p + i, 2);
			v = __builtin_bswap16(v);
			memcpy(p + i, &v, 2);
		} else if (size == 4) {
			__u32 v;

			memcpy(&v, p + i, 4);
			v = __builtin_bswap32(v);
			memcpy(p + i, &v, 4);
		} else {
			__u64 v;

			memcpy(&v, p + i, 8);
			v = __builtin_bswap64(v);
			memcpy(p + i, &v, 8);
		}
	}
}

/* an entry of the table of MAGNET_SWAP_T, in the bytes at @q */
#define MAGNET_SWAP_ENTRY(type, name, dims, kind)			\
	magnet_swap_elems(q + offsetof(MAGNET_SWAP_T, name), sizeof(type), \
			  sizeof(((MAGNET_SWAP_T *)0)->name));

/* magnet_swap_NAME(p): the struct @T, its table @TABLE */
#define MAGNET_SWAP_FN(fn, TABLE)					\
	static inline void fn(void *p)					\
	{								\
		unsigned char *q = (unsigned char *)p;			\
									\
		TABLE(MAGNET_SWAP_ENTRY)				\
	}

#define MAGNET_SWAP_T struct magnet_sysinfo
MAGNET_SWAP_FN(magnet_swap_sysinfo, MAGNET_SYSINFO_FIELDS)
#undef MAGNET_SWAP_T
#define MAGNET_SWAP_T struct magnet_record
MAGNET_SWAP_FN(magnet_swap_v2_head, MAGNET_V2_HEAD)
MAGNET_SWAP_FN(magnet_swap_v2_snap, MAGNET_V2_SNAP)
MAGNET_SWAP_FN(magnet_swap_v2_hdr, MAGNET_V2_HDR)
MAGNET_SWAP_FN(magnet_swap_v2_tail, MAGNET_V2_TAIL)
#undef MAGNET_SWAP_T
#define MAGNET_SWAP_T struct magnet_v3_hdr
MAGNET_SWAP_FN(magnet_swap_v3_hdr, MAGNET_V3_HDR_FIELDS)
#undef MAGNET_SWAP_T
#define MAGNET_SWAP_T struct magnet_v3_count
MAGNET_SWAP_FN(magnet_swap_v3_count, MAGNET_V3_COUNT_PART)
#undef MAGNET_SWAP_T
#define MAGNET_SWAP_T struct magnet_v3_flow
MAGNET_SWAP_FN(magnet_swap_v3_flow, MAGNET_V3_FLOW_PART)
#undef MAGNET_SWAP_T
#define MAGNET_SWAP_T struct magnet_v3_tcp
MAGNET_SWAP_FN(magnet_swap_v3_tcp, MAGNET_V3_TCP_PART)
#undef MAGNET_SWAP_T
#define MAGNET_SWAP_T struct magnet_v3_app
MAGNET_SWAP_FN(magnet_swap_v3_app, MAGNET_V3_APP_PART)
#undef MAGNET_SWAP_T
#define MAGNET_SWAP_T struct magnet_v3_pkt
MAGNET_SWAP_FN(magnet_swap_v3_pkt, MAGNET_V3_PKT_PART)
#undef MAGNET_SWAP_T
#define MAGNET_SWAP_T struct magnet_v3_rate
MAGNET_SWAP_FN(magnet_swap_v3_rate, MAGNET_V3_RATE_PART)
#undef MAGNET_SWAP_T
#define MAGNET_SWAP_T struct magnet_v3_drop
MAGNET_SWAP_FN(magnet_swap_v3_drop, MAGNET_V3_DROP_PART)
#undef MAGNET_SWAP_T
#define MAGNET_SWAP_T struct magnet_v3_qdisc
MAGNET_SWAP_FN(magnet_swap_v3_qdisc, MAGNET_V3_QDISC_PART)
#undef MAGNET_SWAP_T
#define MAGNET_SWAP_T struct magnet_v3_tcpev
MAGNET_SWAP_FN(magnet_swap_v3_tcpev, MAGNET_V3_TCPEV_PART)
#undef MAGNET_SWAP_T
#define MAGNET_SWAP_T struct magnet_v3_limit
MAGNET_SWAP_FN(magnet_swap_v3_limit, MAGNET_V3_LIMIT_PART)
#undef MAGNET_SWAP_T
#define MAGNET_SWAP_T struct magnet_v3_rcvbuf
MAGNET_SWAP_FN(magnet_swap_v3_rcvbuf, MAGNET_V3_RCVBUF_PART)
#undef MAGNET_SWAP_T
#define MAGNET_SWAP_T struct magnet_v3_rtoend
MAGNET_SWAP_FN(magnet_swap_v3_rtoend, MAGNET_V3_RTOEND_PART)
#undef MAGNET_SWAP_T

/*
 * A version 2 record: the TCP snapshot or, with RF_HDR, the packet header
 * in its bytes (flags is a byte: the same in either order)
 */
static inline void magnet_swap_record(struct magnet_record *r)
{
	magnet_swap_v2_head(r);
	if (r->flags & MAGNET_RF_HDR)
		magnet_swap_v2_hdr(r);
	else
		magnet_swap_v2_snap(r);
	magnet_swap_v2_tail(r);
}

/*
 * A version 3 record at @p, in this host's order (its header says what it
 * holds): its header, then its parts by its event and flags (and the
 * limit part where its length has room for it)
 */
static inline void magnet_swap_v3(unsigned char *p)
{
	unsigned int event = p[offsetof(struct magnet_v3_hdr, event)];
	unsigned int flags = p[offsetof(struct magnet_v3_hdr, flags)];
	unsigned int at;
	__u16 len;

	memcpy(&len, p + offsetof(struct magnet_v3_hdr, len), 2);
	magnet_swap_v3_hdr(p);
	switch (event) {
	case MAGNET_EV_LOST:
	case MAGNET_EV_RESET:
		magnet_swap_v3_count(p + MAGNET_V3_HDR_SIZE);
		return;
	case MAGNET_V3_FLOW:
		magnet_swap_v3_flow(p + MAGNET_V3_HDR_SIZE);
		return;
	case MAGNET_EV_IP_OUT:
	case MAGNET_EV_IP_IN:
	case MAGNET_EV_DEV_OUT:
	case MAGNET_EV_DEV_IN:
	case MAGNET_EV_WIRE_OUT:
		magnet_swap_v3_pkt(p + MAGNET_V3_HDR_SIZE);	/* options: bytes */
		return;
	case MAGNET_EV_DROP_OUT:	/* the packet part, options, the drop part */
	case MAGNET_EV_DROP_IN:
		magnet_swap_v3_pkt(p + MAGNET_V3_HDR_SIZE);
		magnet_swap_v3_drop(p + len - MAGNET_V3_DROP_SIZE);
		return;
	case MAGNET_EV_QDISC:	/* the packet part, options, the qdisc part */
	case MAGNET_EV_QDISC_ENQ:
		magnet_swap_v3_pkt(p + MAGNET_V3_HDR_SIZE);
		magnet_swap_v3_qdisc(p + len - MAGNET_V3_QDISC_SIZE);
		return;
	case MAGNET_EV_RETRANS:	/* the TCP part, the rate part, the TCP
				 * event part (and the limit part) */
	case MAGNET_EV_RTO:
	case MAGNET_EV_TLP:
	case MAGNET_EV_STATE:
	case MAGNET_EV_CA_STATE:
		magnet_swap_v3_tcp(p + MAGNET_V3_HDR_SIZE);
		magnet_swap_v3_rate(p + MAGNET_V3_TCP_SIZE);
		magnet_swap_v3_tcpev(p + MAGNET_V3_TCP_SIZE +
				     MAGNET_V3_RATE_SIZE);
		if (len >= MAGNET_V3_TCP_SIZE + MAGNET_V3_RATE_SIZE +
			   MAGNET_V3_TCPEV_SIZE + MAGNET_V3_LIMIT_SIZE)
			magnet_swap_v3_limit(p + MAGNET_V3_TCP_SIZE +
					     MAGNET_V3_RATE_SIZE +
					     MAGNET_V3_TCPEV_SIZE);
		return;
	case MAGNET_EV_RCVBUF:	/* the TCP part, the rcvbuf part */
		magnet_swap_v3_tcp(p + MAGNET_V3_HDR_SIZE);
		magnet_swap_v3_rcvbuf(p + MAGNET_V3_TCP_SIZE);
		return;
	case MAGNET_EV_RTO_END:	/* the TCP part, the rtoend part */
		magnet_swap_v3_tcp(p + MAGNET_V3_HDR_SIZE);
		magnet_swap_v3_rtoend(p + MAGNET_V3_TCP_SIZE);
		return;
	}
	magnet_swap_v3_tcp(p + MAGNET_V3_HDR_SIZE);
	if (event == MAGNET_EV_APP_SEND || event == MAGNET_EV_APP_RECV) {
		magnet_swap_v3_app(p + MAGNET_V3_TCP_SIZE);
		if (flags & MAGNET_RF_RATE)	/* the rate part, last */
			magnet_swap_v3_rate(p + MAGNET_V3_APP_SIZE);
		return;
	}
	/* a segment: the rate part, then (a log with it) the limit part */
	at = MAGNET_V3_TCP_SIZE;
	if (flags & MAGNET_RF_RATE) {
		magnet_swap_v3_rate(p + at);
		at += MAGNET_V3_RATE_SIZE;
	}
	if (len >= at + MAGNET_V3_LIMIT_SIZE)
		magnet_swap_v3_limit(p + at);
}

#endif /* MAGNET_SWAP_H */
