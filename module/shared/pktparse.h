/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What a packet's IP and transport headers say, in plain C so that the unit
 * tests (tests/unit/test_pkt.c) and the fuzzer (tests/fuzz/fuzz_pkt.c) run
 * the code the IP and device probes run.
 *
 * The includer defines, in the same file:
 *
 *   static inline const __u8 *magnet_pkt_bytes(const void *src,
 *                                               unsigned int off,
 *                                               unsigned int len, void *buf);
 *
 * which returns @len bytes of the packet at offset @off (from the start
 * the includer gave @src for), in place or copied into @buf, or NULL if the
 * packet ends before. In the module it is skb_header_pointer(), so headers
 * outside the skb's linear data are read too.
 *
 * Lengths come from the IP header (IPv4 total length, IPv6 payload length
 * plus 40), never from the buffer: a received frame may carry link-layer
 * padding that ip_rcv_core() trims only later (a 40-byte ACK arrives as 46
 * bytes on Ethernet). IPv6 extension headers are walked; a fragment other
 * than the first has no transport header and is recorded without ports.
 */
#ifndef MAGNET_PKTPARSE_H
#define MAGNET_PKTPARSE_H

#include <linux/types.h>
#ifndef __always_inline	/* user space: shared.h's */
#define __always_inline inline __attribute__((__always_inline__))
#endif

/* results of magnet_pkt_parse() */
#define MAGNET_PKT_OK		0	/* parsed: @p is filled */
#define MAGNET_PKT_SKIP		1	/* not TCP, and nontcp=0: filtered */
#define MAGNET_PKT_BAD		2	/* cannot be parsed: counted as unparsed */

/* IPv6 extension headers walked at most; more is counted as unparsed */
#define MAGNET_PKT_MAX_EXT	8

struct magnet_pkt {
	__u8 family;		/* 4 or 6 */
	__u8 proto;		/* the transport protocol */
	__u8 tos, ttl;
	__u16 id;		/* IPv4 identification; 0 for IPv6 */
	__u16 sport, dport;	/* 0 where there is no transport header */
	__u8 has_seq;		/* seq and end_seq are set (TCP) */
	__u8 fragment;		/* a fragment other than the first */
	__u32 seq, end_seq;
	__u32 len;		/* the IP packet's length, headers included */
	__u16 nhlen;		/* the network header's length: IPv4 with
				 * options, IPv6 with extension headers */
	__u16 frag;		/* IPv4 flags and fragment offset; IPv6 0 */
	/* TCP, set with has_seq (the whole TCP header is in the packet) */
	__u32 ack;
	__u16 win;		/* as sent, unscaled */
	__u8 tflags;		/* FIN 0x01 .. CWR 0x80 */
	__u8 thlen;		/* TCP header bytes, options included */
	const __u8 *topts;	/* thlen - 20 option bytes, in the packet
				 * or in optbuf */
	const __u8 *saddr, *daddr;	/* in the packet or in nhbuf */
	__u8 nhbuf[40];		/* the network header, if not in place */
	__u8 optbuf[40];	/* the TCP options, if not in place */
};

static inline const __u8 *magnet_pkt_bytes(const void *src, unsigned int off,
					   unsigned int len, void *buf);

static inline __u16 magnet_pkt_be16(const __u8 *b)
{
	return (__u16)(b[0] << 8 | b[1]);
}

static inline __u32 magnet_pkt_be32(const __u8 *b)
{
	return (__u32)b[0] << 24 | (__u32)b[1] << 16 | (__u32)b[2] << 8 | b[3];
}

/*
 * Walk IPv6 extension headers from offset @off with next header @nh;
 * returns the transport header's offset (and its protocol in @proto), or
 * -1 if a header is cut short or there are too many. Sets p->fragment for
 * a fragment other than the first.
 */
static inline long magnet_pkt_ipv6_ext(const void *src, unsigned int off,
				       unsigned int end, __u8 nh, __u8 *proto,
				       struct magnet_pkt *p)
{
	__u8 buf[4];
	const __u8 *e;
	int i;

	for (i = 0; i <= MAGNET_PKT_MAX_EXT; i++) {
		switch (nh) {
		case 0:		/* hop-by-hop options */
		case 43:	/* routing */
		case 60:	/* destination options */
		case 51:	/* authentication header */
			if (i == MAGNET_PKT_MAX_EXT || off + 8 > end)
				return -1;
			e = magnet_pkt_bytes(src, off, 2, buf);
			if (!e)
				return -1;
			/* AH counts 4-byte units less 2, the others 8-byte
			 * units less 1 */
			off += nh == 51 ? (e[1] + 2) * 4 : (e[1] + 1) * 8;
			nh = e[0];
			break;
		case 44:	/* fragment */
			if (i == MAGNET_PKT_MAX_EXT || off + 8 > end)
				return -1;
			e = magnet_pkt_bytes(src, off, 4, buf);
			if (!e)
				return -1;
			nh = e[0];
			off += 8;
			if (magnet_pkt_be16(e + 2) & 0xfff8) {
				p->fragment = 1;
				*proto = nh;
				return off;
			}
			break;
		default:	/* a transport header, or none (59), or ESP */
			if (off > end)
				return -1;
			*proto = nh;
			return off;
		}
	}
	return -1;
}

/*
 * Parse the IPv4 or IPv6 packet at offset 0 of @src, which holds @avail
 * bytes from there to the end (link-layer padding included), and for TCP
 * and UDP the ports, and for TCP the sequence range it covers and the rest
 * of its header (ack, window, flags, options).
 */
static __always_inline int magnet_pkt_parse(const void *src,
					    unsigned int avail, int nontcp,
					    struct magnet_pkt *p)
{
	const __u8 *h, *t;
	__u8 tbuf[20];
	unsigned int thoff, len;

	h = magnet_pkt_bytes(src, 0, 20, p->nhbuf);
	if (!h)
		return MAGNET_PKT_BAD;
	p->fragment = 0;
	p->has_seq = 0;
	p->thlen = 0;
	p->sport = 0;
	p->dport = 0;
	if (h[0] >> 4 == 4) {
		thoff = (h[0] & 15) * 4;
		len = magnet_pkt_be16(h + 2);
		if (!len && avail > 65535)	/* BIG TCP: a GSO packet */
			len = avail;
		if (thoff < 20 || len < thoff || len > avail)
			return MAGNET_PKT_BAD;
		p->family = 4;
		p->proto = h[9];
		p->tos = h[1];
		p->ttl = h[8];
		p->id = magnet_pkt_be16(h + 4);
		p->saddr = h + 12;
		p->daddr = h + 16;
		p->frag = magnet_pkt_be16(h + 6);
		if (p->frag & 0x1fff)
			p->fragment = 1;
	} else if (h[0] >> 4 == 6) {
		long off;

		h = magnet_pkt_bytes(src, 0, 40, p->nhbuf);
		if (!h)
			return MAGNET_PKT_BAD;
		len = magnet_pkt_be16(h + 4) + 40;
		if (len == 40 && avail > 65535 + 40)	/* jumbogram, BIG TCP */
			len = avail;
		if (len > avail)
			return MAGNET_PKT_BAD;
		p->family = 6;
		p->tos = (__u8)((h[0] & 15) << 4 | h[1] >> 4);
		p->ttl = h[7];
		p->id = 0;
		p->frag = 0;
		p->saddr = h + 8;
		p->daddr = h + 24;
		off = magnet_pkt_ipv6_ext(src, 40, len, h[6], &p->proto, p);
		if (off < 0)
			return MAGNET_PKT_BAD;
		thoff = (unsigned int)off;
	} else {
		return MAGNET_PKT_BAD;
	}
	p->len = len;
	p->nhlen = (__u16)thoff;
	if (p->proto != 6 && !nontcp)
		return MAGNET_PKT_SKIP;
	if (p->fragment)
		return MAGNET_PKT_OK;
	if (p->proto == 6) {
		unsigned int doff;

		if (thoff + 20 > len)
			return MAGNET_PKT_BAD;
		t = magnet_pkt_bytes(src, thoff, 20, tbuf);
		if (!t)
			return MAGNET_PKT_BAD;
		p->sport = magnet_pkt_be16(t);
		p->dport = magnet_pkt_be16(t + 2);
		doff = (t[12] >> 4) * 4;
		if (doff >= 20 && thoff + doff <= len) {
			if (doff > 20) {
				p->topts = magnet_pkt_bytes(src, thoff + 20,
							    doff - 20,
							    p->optbuf);
				if (!p->topts)
					return MAGNET_PKT_BAD;
			}
			p->seq = magnet_pkt_be32(t + 4);
			p->end_seq = p->seq + (len - thoff - doff) +
				     !!(t[13] & 0x02) + (t[13] & 0x01);
			p->ack = magnet_pkt_be32(t + 8);
			p->tflags = t[13];
			p->win = magnet_pkt_be16(t + 14);
			p->thlen = (__u8)doff;
			p->has_seq = 1;
		}
	} else if (p->proto == 17) {
		if (thoff + 8 > len)
			return MAGNET_PKT_BAD;
		t = magnet_pkt_bytes(src, thoff, 4, tbuf);
		if (!t)
			return MAGNET_PKT_BAD;
		p->sport = magnet_pkt_be16(t);
		p->dport = magnet_pkt_be16(t + 2);
	}
	return MAGNET_PKT_OK;
}

#endif /* MAGNET_PKTPARSE_H */
