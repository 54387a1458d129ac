// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tests of the packet-header parser the IP and device probes run
 * (module/shared/pktparse.h), on packets built here byte by byte.
 *
 * The byte source models an skb: the first `linear` bytes are in place and
 * the rest must be copied (skb_header_pointer), and the buffer is allocated
 * to the exact packet size, so AddressSanitizer catches any read past it.
 * Every case is parsed at every split between linear and paged data and
 * must give the same result; with link-layer padding after it, the same
 * result and the IP header's length; cut anywhere short of its IP length,
 * MAGNET_PKT_BAD.
 */
#include <stdlib.h>
#include <linux/types.h>
#include "check.h"

#include "pkt_src.h"

/* ------------------------------------------------------ packet builder */

struct pkt {
	__u8 b[70000];
	unsigned int n;
};

static void put16(__u8 *b, unsigned int v)
{
	b[0] = (__u8)(v >> 8);
	b[1] = (__u8)v;
}

static void put32(__u8 *b, __u32 v)
{
	put16(b, v >> 16);
	put16(b + 2, v & 0xffff);
}

/* a TCP header of @doff bytes (options zero) and @payload bytes */
static unsigned int tcp(__u8 *b, unsigned int sport, unsigned int dport,
			__u32 seq, unsigned int doff, __u8 flags,
			unsigned int payload)
{
	unsigned int i;

	memset(b, 0, doff + payload);
	put16(b, sport);
	put16(b + 2, dport);
	put32(b + 4, seq);
	put32(b + 8, 0x12345678);
	b[12] = (__u8)(doff / 4 << 4);
	b[13] = flags;
	put16(b + 14, 65535);
	for (i = 20; i < doff; i++)	/* options: a recognisable pattern */
		b[i] = (__u8)(0x80 + i);
	memset(b + doff, 0xab, payload);
	return doff + payload;
}

static unsigned int udp(__u8 *b, unsigned int sport, unsigned int dport,
			unsigned int payload)
{
	memset(b, 0, 8 + payload);
	put16(b, sport);
	put16(b + 2, dport);
	put16(b + 4, 8 + payload);
	return 8 + payload;
}

/* IPv4 header of @ihl bytes, then @tlen transport bytes already at b+ihl */
static void ipv4(struct pkt *p, unsigned int ihl, __u8 proto,
		 unsigned int tlen, unsigned int frag)
{
	__u8 *b = p->b;

	b[0] = (__u8)(0x40 | ihl / 4);
	b[1] = 0x10;
	put16(b + 2, ihl + tlen);
	put16(b + 4, 0xbeef);
	put16(b + 6, frag);
	b[8] = 63;
	b[9] = proto;
	b[10] = b[11] = 0;
	memcpy(b + 12, "\x0a\xc8\x01\x01", 4);
	memcpy(b + 16, "\x0a\xc8\x01\x02", 4);
	memset(b + 20, 1, ihl - 20);	/* NOP options */
	p->n = ihl + tlen;
}

static void ipv6(struct pkt *p, __u8 nexthdr, unsigned int plen)
{
	__u8 *b = p->b;
	int i;

	b[0] = 0x6b;		/* traffic class 0xb5 */
	b[1] = 0x50;
	b[2] = b[3] = 0;
	put16(b + 4, plen);
	b[6] = nexthdr;
	b[7] = 61;
	for (i = 0; i < 16; i++) {
		b[8 + i] = (__u8)(0xf0 + i);
		b[24 + i] = (__u8)(0x10 + i);
	}
	p->n = 40 + plen;
}

/* an extension header of @len bytes (8-byte units for most) at @b */
static unsigned int ext(__u8 *b, __u8 next, unsigned int len)
{
	memset(b, 0, len);
	b[0] = next;
	b[1] = (__u8)(len / 8 - 1);
	return len;
}

/* --------------------------------------------------------------- checks */

static int parse(const struct pkt *p, unsigned int avail, unsigned int linear,
		 int nontcp, struct magnet_pkt *out)
{
	__u8 *copy = malloc(avail ? avail : 1);
	struct src s = { copy, avail, linear };
	int r;

	memcpy(copy, p->b, avail);
	r = magnet_pkt_parse(&s, avail, nontcp, out);
	if (r == MAGNET_PKT_OK)
		pkt_keep_opts(out);
	/* the addresses must stay readable after the parse (nhbuf or data) */
	if (r == MAGNET_PKT_OK) {
		unsigned int k, sum = 0, al = out->family == 4 ? 4 : 16;

		for (k = 0; k < al; k++)
			sum += out->saddr[k] + out->daddr[k];
		(void)sum;
	}
	if (r == MAGNET_PKT_OK && out->saddr >= copy && out->saddr < copy + avail) {
		/* pointing into the data: make them point at the original */
		out->saddr = p->b + (out->saddr - copy);
		out->daddr = p->b + (out->daddr - copy);
	} else if (r == MAGNET_PKT_OK) {
		CHECK(out->saddr >= out->nhbuf &&
		      out->daddr + (out->family == 4 ? 4 : 16) <= out->nhbuf + 40,
		      "addresses outside the packet and nhbuf");
	}
	free(copy);
	return r;
}

static int same(const struct magnet_pkt *a, const struct magnet_pkt *b)
{
	return pkt_same(a, a->saddr, a->daddr, b, b->saddr, b->daddr);
}

/*
 * Parse @p fully linear and check @want_r (and, if OK, @want); then at
 * every split, with padding, and cut short.
 */
static void expect(const char *name, const struct pkt *p, int nontcp,
		   int want_r, const struct magnet_pkt *want)
{
	struct magnet_pkt ref, got;
	struct pkt pad;
	unsigned int split, cut;
	int r, diff = 0, bad_cut = 0;

	r = parse(p, p->n, p->n, nontcp, &ref);
	CHECK(r == want_r, "%s: result %d, want %d", name, r, want_r);
	if (r == MAGNET_PKT_OK && want_r == MAGNET_PKT_OK && want) {
		CHECK(ref.family == want->family, "%s: family %u", name, ref.family);
		CHECK(ref.proto == want->proto, "%s: proto %u", name, ref.proto);
		CHECK(ref.len == want->len, "%s: len %u, want %u", name,
		      ref.len, want->len);
		CHECK(ref.sport == want->sport && ref.dport == want->dport,
		      "%s: ports %u %u", name, ref.sport, ref.dport);
		CHECK(ref.has_seq == want->has_seq, "%s: has_seq %u", name,
		      ref.has_seq);
		CHECK(!want->has_seq || (ref.seq == want->seq &&
					 ref.end_seq == want->end_seq),
		      "%s: seq %u end_seq %u, want %u %u", name, ref.seq,
		      ref.end_seq, want->seq, want->end_seq);
		CHECK(ref.fragment == want->fragment, "%s: fragment %u", name,
		      ref.fragment);
		CHECK(ref.tos == want->tos && ref.ttl == want->ttl &&
		      ref.id == want->id, "%s: tos %u ttl %u id %u", name,
		      ref.tos, ref.ttl, ref.id);
		/* the header fields, against the packet's own bytes */
		CHECK(ref.frag == (ref.family == 4 ?
				   (unsigned int)(p->b[6] << 8 | p->b[7]) : 0U),
		      "%s: frag 0x%04x", name, ref.frag);
		CHECK(ref.family == 6 ? ref.nhlen >= 40 :
		      ref.nhlen == (p->b[0] & 15U) * 4, "%s: nhlen %u", name,
		      ref.nhlen);
		if (ref.has_seq) {
			const __u8 *t = p->b + ref.nhlen;

			CHECK((unsigned int)(t[0] << 8 | t[1]) == ref.sport,
			      "%s: nhlen %u is not where TCP starts", name,
			      ref.nhlen);
			CHECK(ref.ack == 0x12345678 && ref.win == 65535 &&
			      ref.tflags == t[13] && ref.thlen == (t[12] >> 4) * 4U,
			      "%s: ack %08x win %u flags %02x thlen %u", name,
			      ref.ack, ref.win, ref.tflags, ref.thlen);
			CHECK(ref.thlen <= 20 ||
			      !memcmp(ref.topts, t + 20, ref.thlen - 20U),
			      "%s: TCP options", name);
		} else {
			CHECK(ref.thlen == 0, "%s: thlen %u without seq", name,
			      ref.thlen);
		}
	}
	for (split = 0; split < p->n; split++) {
		r = parse(p, p->n, split, nontcp, &got);
		if (r != want_r || (r == MAGNET_PKT_OK && !same(&ref, &got)))
			diff++;
	}
	CHECK(!diff, "%s: %d splits differ from the linear parse", name, diff);
	/* Ethernet padding: the same packet, the same length */
	pad = *p;
	memset(pad.b + p->n, 0, 18);
	r = parse(&pad, p->n + 18, p->n + 18, nontcp, &got);
	CHECK(r == want_r && (r != MAGNET_PKT_OK || same(&ref, &got)),
	      "%s: padded to %u bytes: result %d, len %u", name, p->n + 18, r,
	      r == MAGNET_PKT_OK ? got.len : 0);
	r = parse(&pad, p->n + 18, 14, nontcp, &got);
	CHECK(r == want_r && (r != MAGNET_PKT_OK || same(&ref, &got)),
	      "%s: padded, headers paged: result %d", name, r);
	/* cut short of the IP length: never parsed as if whole */
	for (cut = 0; cut < p->n; cut++) {
		r = parse(p, cut, cut, nontcp, &got);
		if (r != MAGNET_PKT_BAD)
			bad_cut++;
	}
	CHECK(!bad_cut, "%s: %d cuts short of the IP length parsed", name,
	      bad_cut);
}

static struct magnet_pkt want4(__u8 proto, unsigned int len)
{
	struct magnet_pkt w;

	memset(&w, 0, sizeof(w));
	w.family = 4;
	w.proto = proto;
	w.len = len;
	w.tos = 0x10;
	w.ttl = 63;
	w.id = 0xbeef;
	return w;
}

static struct magnet_pkt want6(__u8 proto, unsigned int len)
{
	struct magnet_pkt w;

	memset(&w, 0, sizeof(w));
	w.family = 6;
	w.proto = proto;
	w.len = len;
	w.tos = 0xb5;
	w.ttl = 61;
	return w;
}

static void tcp_want(struct magnet_pkt *w, __u32 seq, __u32 end)
{
	w->sport = 5201;
	w->dport = 40000;
	w->has_seq = 1;
	w->seq = seq;
	w->end_seq = end;
}

static void test_ipv4(void)
{
	struct pkt p;
	struct magnet_pkt w;
	unsigned int t;

	/* a pure ACK: 40 bytes; padded on Ethernet to 46, still 40 */
	t = tcp(p.b + 20, 5201, 40000, 1000, 20, 0x10, 0);
	ipv4(&p, 20, 6, t, 0);
	w = want4(6, 40);
	tcp_want(&w, 1000, 1000);
	expect("v4 ack", &p, 0, MAGNET_PKT_OK, &w);

	/* data with TCP options (doff 32) and IP options (ihl 24) */
	t = tcp(p.b + 24, 5201, 40000, 0xfffffff0, 32, 0x18, 1448);
	ipv4(&p, 24, 6, t, 0);
	w = want4(6, 24 + 32 + 1448);
	tcp_want(&w, 0xfffffff0, 0xfffffff0 + 1448);	/* wraps */
	expect("v4 data, options", &p, 0, MAGNET_PKT_OK, &w);

	/* SYN and FIN each take a sequence number */
	t = tcp(p.b + 20, 5201, 40000, 7, 40, 0x02, 0);
	ipv4(&p, 20, 6, t, 0);
	w = want4(6, 60);
	tcp_want(&w, 7, 8);
	expect("v4 syn", &p, 0, MAGNET_PKT_OK, &w);
	t = tcp(p.b + 20, 5201, 40000, 7, 20, 0x11, 10);
	ipv4(&p, 20, 6, t, 0);
	w = want4(6, 50);
	tcp_want(&w, 7, 18);
	expect("v4 fin+data", &p, 0, MAGNET_PKT_OK, &w);

	/* a data offset beyond the packet: ports, no sequence range */
	t = tcp(p.b + 20, 5201, 40000, 7, 20, 0x10, 0);
	p.b[20 + 12] = 0xf0;		/* doff 60 > 20 bytes */
	ipv4(&p, 20, 6, t, 0);
	w = want4(6, 40);
	w.sport = 5201;
	w.dport = 40000;
	expect("v4 doff too long", &p, 0, MAGNET_PKT_OK, &w);
	p.b[20 + 12] = 0x40;		/* doff 16 < 20 */
	expect("v4 doff too short", &p, 0, MAGNET_PKT_OK, &w);

	/* UDP: ports; only with nontcp=1 */
	t = udp(p.b + 20, 53, 40001, 64);
	ipv4(&p, 20, 17, t, 0);
	w = want4(17, 92);
	w.sport = 53;
	w.dport = 40001;
	expect("v4 udp", &p, 1, MAGNET_PKT_OK, &w);
	expect("v4 udp, nontcp=0", &p, 0, MAGNET_PKT_SKIP, NULL);

	/* ICMP: no ports */
	memset(p.b + 20, 0, 64);
	ipv4(&p, 20, 1, 64, 0);
	w = want4(1, 84);
	expect("v4 icmp", &p, 1, MAGNET_PKT_OK, &w);

	/* fragments: the first has the ports; the others have none */
	t = tcp(p.b + 20, 5201, 40000, 100, 20, 0x10, 1000);
	ipv4(&p, 20, 6, t, 0x2000);	/* MF */
	w = want4(6, 1040);
	tcp_want(&w, 100, 1100);
	expect("v4 first fragment", &p, 0, MAGNET_PKT_OK, &w);
	ipv4(&p, 20, 6, 100, 0x00b9);
	w = want4(6, 120);
	w.fragment = 1;
	expect("v4 later fragment", &p, 0, MAGNET_PKT_OK, &w);

	/* a TCP header cut by the IP length */
	tcp(p.b + 20, 5201, 40000, 7, 20, 0x10, 0);
	ipv4(&p, 20, 6, 12, 0);
	expect("v4 tcp cut", &p, 0, MAGNET_PKT_BAD, NULL);
	udp(p.b + 20, 1, 2, 0);
	ipv4(&p, 20, 17, 6, 0);
	expect("v4 udp cut", &p, 1, MAGNET_PKT_BAD, NULL);

	/* broken IP headers */
	t = tcp(p.b + 20, 5201, 40000, 7, 20, 0x10, 0);
	ipv4(&p, 20, 6, t, 0);
	p.b[0] = 0x44;			/* ihl 16 */
	expect("v4 ihl 4", &p, 0, MAGNET_PKT_BAD, NULL);
	ipv4(&p, 20, 6, t, 0);
	put16(p.b + 2, 19);		/* shorter than its header */
	expect("v4 tot_len < ihl", &p, 0, MAGNET_PKT_BAD, NULL);
	ipv4(&p, 20, 6, t, 0);
	p.b[0] = 0x55;
	expect("version 5", &p, 0, MAGNET_PKT_BAD, NULL);
}

static void test_ipv4_gso(void)
{
	static struct pkt p;
	struct magnet_pkt got;
	unsigned int t;
	int r;

	/* tot_len 0 over 64 KiB: BIG TCP's GSO packet, the buffer's length */
	t = tcp(p.b + 20, 5201, 40000, 1, 20, 0x10, 65600);
	ipv4(&p, 20, 6, t, 0);
	put16(p.b + 2, 0);
	r = parse(&p, p.n, 40, 0, &got);
	CHECK(r == MAGNET_PKT_OK && got.len == 65640 && got.end_seq == 65601,
	      "v4 tot_len 0: result %d len %u end_seq %u", r, got.len,
	      got.end_seq);
	/* tot_len 0 on a small packet is broken */
	t = tcp(p.b + 20, 5201, 40000, 1, 20, 0x10, 100);
	ipv4(&p, 20, 6, t, 0);
	put16(p.b + 2, 0);
	expect("v4 tot_len 0, small", &p, 0, MAGNET_PKT_BAD, NULL);
}

static void test_ipv6(void)
{
	struct pkt p;
	struct magnet_pkt w;
	unsigned int t, o;
	int i;

	t = tcp(p.b + 40, 5201, 40000, 50, 32, 0x10, 0);
	ipv6(&p, 6, t);
	w = want6(6, 72);
	tcp_want(&w, 50, 50);
	expect("v6 ack", &p, 0, MAGNET_PKT_OK, &w);

	t = tcp(p.b + 40, 5201, 40000, 50, 20, 0x18, 1000);
	ipv6(&p, 6, t);
	w = want6(6, 1060);
	tcp_want(&w, 50, 1050);
	expect("v6 data", &p, 0, MAGNET_PKT_OK, &w);

	/* hop-by-hop, routing, destination options, AH, then TCP */
	o = 40;
	o += ext(p.b + o, 43, 8);
	o += ext(p.b + o, 60, 24);
	o += ext(p.b + o, 51, 16);
	memset(p.b + o, 0, 12);		/* AH: 12 bytes, length field 1 */
	p.b[o] = 6;
	p.b[o + 1] = 1;
	o += 12;
	t = tcp(p.b + o, 5201, 40000, 9, 20, 0x10, 100);
	ipv6(&p, 0, o - 40 + t);
	w = want6(6, o + t);
	tcp_want(&w, 9, 109);
	expect("v6 four extension headers", &p, 0, MAGNET_PKT_OK, &w);

	/* a first fragment: ports; a later one: none */
	o = 40;
	memset(p.b + o, 0, 8);
	p.b[o] = 6;
	put16(p.b + o + 2, 0x0001);	/* offset 0, M */
	o += 8;
	t = tcp(p.b + o, 5201, 40000, 9, 20, 0x10, 100);
	ipv6(&p, 44, 8 + t);
	w = want6(6, 40 + 8 + t);
	tcp_want(&w, 9, 109);
	expect("v6 first fragment", &p, 0, MAGNET_PKT_OK, &w);
	put16(p.b + 42, 0x0100);	/* offset 32 */
	w = want6(6, 40 + 8 + t);
	w.fragment = 1;
	expect("v6 later fragment", &p, 0, MAGNET_PKT_OK, &w);
	expect("v6 later fragment, nontcp", &p, 1, MAGNET_PKT_OK, &w);

	/* UDP behind a destination options header */
	o = 40 + ext(p.b + 40, 17, 8);
	t = udp(p.b + o, 4789, 5000, 30);
	ipv6(&p, 60, o - 40 + t);
	w = want6(17, o + t);
	w.sport = 4789;
	w.dport = 5000;
	expect("v6 udp after dstopts", &p, 1, MAGNET_PKT_OK, &w);
	expect("v6 udp, nontcp=0", &p, 0, MAGNET_PKT_SKIP, NULL);

	/* ESP and "no next header" end the walk: not TCP */
	ipv6(&p, 50, 40);
	memset(p.b + 40, 0, 40);
	w = want6(50, 80);
	expect("v6 esp", &p, 1, MAGNET_PKT_OK, &w);
	ipv6(&p, 59, 0);
	w = want6(59, 40);
	expect("v6 no next header", &p, 1, MAGNET_PKT_OK, &w);

	/* exactly the most extension headers walked, and one more */
	o = 40;
	for (i = 0; i < MAGNET_PKT_MAX_EXT; i++)
		o += ext(p.b + o, i + 1 < MAGNET_PKT_MAX_EXT ? 60 : 6, 8);
	t = tcp(p.b + o, 5201, 40000, 1, 20, 0x10, 0);
	ipv6(&p, 60, o - 40 + t);
	w = want6(6, o + t);
	tcp_want(&w, 1, 1);
	expect("v6 8 extension headers", &p, 0, MAGNET_PKT_OK, &w);
	o = 40;
	for (i = 0; i <= MAGNET_PKT_MAX_EXT; i++)
		o += ext(p.b + o, i < MAGNET_PKT_MAX_EXT ? 60 : 6, 8);
	t = tcp(p.b + o, 5201, 40000, 1, 20, 0x10, 0);
	ipv6(&p, 60, o - 40 + t);
	expect("v6 9 extension headers", &p, 0, MAGNET_PKT_BAD, NULL);

	/* an extension header longer than the packet */
	o = 40 + ext(p.b + 40, 6, 8);
	p.b[41] = 200;
	t = tcp(p.b + o, 5201, 40000, 1, 20, 0x10, 0);
	ipv6(&p, 60, o - 40 + t);
	expect("v6 extension past the end", &p, 0, MAGNET_PKT_BAD, NULL);

	/* payload length 0 over 64 KiB: a jumbogram, the buffer's length */
	{
		static struct pkt j;
		struct magnet_pkt got;
		int r;

		t = tcp(j.b + 40, 5201, 40000, 5, 20, 0x10, 66000);
		ipv6(&j, 6, 0);
		j.n = 40 + t;
		r = parse(&j, j.n, 100, 0, &got);
		CHECK(r == MAGNET_PKT_OK && got.len == 66060 &&
		      got.end_seq == 66005, "v6 jumbo: %d len %u", r, got.len);
	}
}

int main(void)
{
	test_ipv4();
	test_ipv4_gso();
	test_ipv6();
	printf("test_pkt: %d passed, %d failed\n", passed, failed);
	return failed != 0;
}
