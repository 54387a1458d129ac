// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Format version 3 (module/shared/v3.c): every record the module writes, encoded
 * and decoded back, equals itself byte for byte; in both byte orders; over
 * long streams with many flows on several CPUs, LOST and RESET records and
 * congestion control changes; and every malformed record is refused with
 * its reason.
 *
 * The records are built here the way the module's builders fill them
 * (module/rec_tcp.c, rec_pkt.c, ring.c): fields a record's flags do not
 * name are zero.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "v3.h"
#include "format.h"
#include "check.h"
#include "v3swap.h"

static __u64 rng_state = 0x243f6a8885a308d3ULL;

static __u64 rng(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 2685821657736338717ULL;
}

static const char *const ca_names[] = { "cubic", "bbr", "reno",
					"abcdefghijk" };

/* a flow: what is constant for a connection */
struct flow {
	__u64 sock_id;
	__u16 lport, rport;
	__u8 family;
	__u8 laddr[16], raddr[16];
	const char *ca;
};

static void random_flow(struct flow *f)
{
	memset(f, 0, sizeof(*f));
	f->sock_id = rng();
	f->lport = (__u16)rng();
	f->rport = (__u16)rng();
	f->family = rng() % 3 ? MAGNET_FAMILY_INET : MAGNET_FAMILY_INET6;
	if (f->family == MAGNET_FAMILY_INET6) {
		__u64 a = rng(), b = rng(), c = rng(), d = rng();

		memcpy(f->laddr, &a, 8);
		memcpy(f->laddr + 8, &b, 8);
		memcpy(f->raddr, &c, 8);
		memcpy(f->raddr + 8, &d, 8);
	} else {
		__u32 a = (__u32)rng(), b = (__u32)rng();

		memcpy(f->laddr, &a, 4);
		memcpy(f->raddr, &b, 4);
	}
	f->ca = ca_names[rng() % 4];
}

static void fill_tcp(struct magnet_record *r, const struct flow *f)
{
	__u32 *u = &r->mss;
	int i;

	r->flags |= MAGNET_RF_TCP;
	for (i = 0; i < 15; i++)
		u[i] = (__u32)rng();
	r->ca_state = (__u8)(rng() % 5);
	memcpy(r->ca_name, f->ca, strlen(f->ca) < MAGNET_CA_NAME_LEN ?
	       strlen(f->ca) : MAGNET_CA_NAME_LEN);
	r->segs_out = (__u32)rng();
	r->data_segs_out = (__u32)rng();
	r->segs_in = (__u32)rng();
	r->data_segs_in = (__u32)rng();
	r->bytes_sent = rng();
	r->bytes_received = rng();
	r->bytes_acked = rng();
	r->bytes_retrans = rng();
	r->rcv_nxt = (__u32)rng();
	r->min_rtt_us = rng() % 7 ? (__u32)rng() : ~0U;
	r->rtt_us = (__u32)rng();
	r->advmss = (__u16)rng();
	r->wscale = (__u8)rng();
	r->opts = (__u8)(rng() & 0xf);
}

/* one record of @event on @cpu for @f, as the module fills it */
static struct magnet_record make(unsigned int event, __u16 cpu,
				 const struct flow *f, __u64 ts)
{
	struct magnet_record r;

	memset(&r, 0, sizeof(r));
	r.ts_ns = ts;
	r.event = (__u16)event;
	r.cpu = cpu;
	if (event == MAGNET_EV_LOST || event == MAGNET_EV_RESET) {
		r.req = rng() >> (rng() % 64);
		if (event == MAGNET_EV_LOST)
			r.ret = (__s64)(rng() >> 40);
		if (event == MAGNET_EV_RESET)
			r.cpu = 0;
		return r;
	}
	r.family = f->family;
	r.lport = f->lport;
	r.rport = f->rport;
	memcpy(r.laddr, f->laddr, 16);
	memcpy(r.raddr, f->raddr, 16);
	r.len = (__u32)rng() >> (rng() % 32);
	r.mark = rng() % 3 ? 0 : (__u32)rng();
	if (event <= MAGNET_EV_APP_RECV) {
		r.flags = MAGNET_RF_SOCK | MAGNET_RF_SEQ;
		r.sock_id = f->sock_id;
		r.state = (__u8)(1 + rng() % 12);
		r.seq = (__u32)rng();
		r.end_seq = r.seq + r.len;
		fill_tcp(&r, f);
		if (event == MAGNET_EV_APP_SEND || event == MAGNET_EV_APP_RECV) {
			r.flags |= MAGNET_RF_APP;
			r.pid = (__u32)rng();
			r.req = rng() >> (rng() % 64);
			r.ret = rng() % 4 ? (__s64)(rng() >> 40) : -(__s64)(rng() % 200);
			memset(r.comm, 0, sizeof(r.comm));
			memcpy(r.comm, "iperf3-worker-xyz", rng() % 17);
		}
	} else {
		unsigned int optlen;

		r.flags = MAGNET_RF_IP | MAGNET_RF_HDR;
		if (event == MAGNET_EV_DEV_OUT || event == MAGNET_EV_DEV_IN) {
			r.flags |= MAGNET_RF_DEV;
			r.ifindex = (__u32)rng();
		}
		if ((event == MAGNET_EV_IP_OUT || event == MAGNET_EV_DEV_OUT) &&
		    rng() % 4) {
			r.flags |= MAGNET_RF_SOCK;
			r.sock_id = f->sock_id;
			r.state = (__u8)(1 + rng() % 12);
		}
		r.ip_id = (__u16)rng();
		r.ip_tos = (__u8)rng();
		r.ip_ttl = (__u8)rng();
		r.ip_hlen = f->family == MAGNET_FAMILY_INET ? 20 : 40;
		r.ip_frag = (__u16)(rng() % 3 ? 0x4000 : rng());
		if (rng() % 5) {
			r.ip_proto = 6;
			r.flags |= MAGNET_RF_SEQ;
			r.seq = (__u32)rng();
			r.end_seq = r.seq + r.len;
			/* 20 to 60 bytes of TCP header, in steps of 4 */
			r.tcp_hlen = (__u8)(20 + 4 * (rng() % 11));
			r.tcp_ack = (__u32)rng();
			r.tcp_win = (__u16)rng();
			r.tcp_flags = (__u8)rng();
			optlen = r.tcp_hlen - 20U;
			for (unsigned int i = 0; i < optlen; i++)
				r.tcp_opts[i] = (__u8)rng();
		} else {
			r.ip_proto = 17;
		}
	}
	return r;
}

/* ---- streams ---- */

struct stream {
	unsigned char *b;
	size_t len, cap;
	unsigned long flows;		/* FLOW records in it */
};

static void put(struct stream *s, struct magnet_v3_enc *e,
		const struct magnet_record *r)
{
	_Alignas(8) unsigned char buf[MAGNET_V3_ENC_MAX];
	unsigned int n = magnet_v3_encode(e, r, buf), off = 0;

	CHECK(n > 0, "event %u flags 0x%02x: not encoded", r->event, r->flags);
	if (s->len + n > s->cap) {
		s->cap = (s->cap + n) * 2;
		s->b = realloc(s->b, s->cap);
		if (!s->b)
			abort();
	}
	while (off < n) {
		__u16 len;

		memcpy(&len, buf + off + 14, 2);
		if (buf[off + 12] == MAGNET_V3_FLOW)
			s->flows++;
		off += len;
	}
	CHECK(off == n, "records of %u bytes in a write of %u", off, n);
	memcpy(s->b + s->len, buf, n);
	s->len += n;
}

/*
 * Decode @s and compare with @want[0..n): returns the events decoded that
 * equal theirs; @swapped: swap the stream first.
 */
static size_t decode_all(struct stream *s, const struct magnet_record *want,
			 size_t n, int swapped)
{
	struct magnet_v3_dec d;
	size_t off = 0, i = 0, same = 0;

	if (swapped) {
		while (off < s->len) {
			__u16 len;

			memcpy(&len, s->b + off + 14, 2);
			swap_v3(s->b + off);
			off += len;
		}
		off = 0;
	}
	CHECK(magnet_v3_dec_init(&d) == 0, "dec_init");
	while (off < s->len) {
		struct magnet_record r;
		int len = magnet_v3_record_len(&d, s->b + off, swapped), rc;

		if (len < 0 || off + (size_t)len > s->len) {
			CHECK(0, "record at %zu: length %d: %s", off, len, d.err);
			break;
		}
		/* a byte the decoder does not write shows as 0xa5 */
		memset(&r, 0xa5, sizeof(r));
		rc = magnet_v3_decode(&d, s->b + off, (unsigned int)len,
				      swapped, &r);
		CHECK(rc >= 0, "record at %zu: %s", off, d.err);
		if (rc < 0)
			break;
		off += (size_t)len;
		if (rc == 0)
			continue;
		if (i < n && !memcmp(&r, &want[i], sizeof(r)))
			same++;
		else if (i < n)
			CHECK(0, "event %zu (type %u, flags 0x%02x) differs after the round trip",
			      i, want[i].event, want[i].flags);
		i++;
	}
	CHECK(i == n, "%zu events decoded, %zu encoded", i, n);
	magnet_v3_dec_free(&d);
	return same;
}

/* every event type alone, both families, both byte orders */
static void test_each(void)
{
	static const unsigned int sizes[] = {
		[MAGNET_EV_TCP_OUT] = MAGNET_V3_TCP_SIZE,
		[MAGNET_EV_TCP_IN] = MAGNET_V3_TCP_SIZE,
		[MAGNET_EV_APP_SEND] = MAGNET_V3_APP_SIZE,
		[MAGNET_EV_APP_RECV] = MAGNET_V3_APP_SIZE,
		[MAGNET_EV_LOST] = MAGNET_V3_COUNT_SIZE,
		[MAGNET_EV_RESET] = MAGNET_V3_COUNT_SIZE,
	};
	static struct magnet_v3_enc e;
	unsigned int ev;
	int k, sw;

	for (ev = MAGNET_EV_TCP_OUT; ev <= MAGNET_EV_RESET; ev++)
		for (k = 0; k < 200; k++)
			for (sw = 0; sw < 2; sw++) {
				struct stream s = { 0 };
				struct flow f;
				struct magnet_record r;

				random_flow(&f);
				r = make(ev, (__u16)(rng() % 4), &f, rng());
				magnet_v3_enc_init(&e);
				put(&s, &e, &r);
				if (ev == MAGNET_EV_LOST || ev == MAGNET_EV_RESET) {
					CHECK(s.len == sizes[ev] && !s.flows,
					      "event %u: %zu bytes, %lu FLOW", ev,
					      s.len, s.flows);
				} else if (sizes[ev]) {
					CHECK(s.len == MAGNET_V3_FLOW_SIZE + sizes[ev] &&
					      s.flows == 1,
					      "event %u: %zu bytes", ev, s.len);
				} else {
					unsigned int opt = r.tcp_hlen > 20 ?
							   r.tcp_hlen - 20U : 0;

					CHECK(s.len == MAGNET_V3_FLOW_SIZE +
						       MAGNET_V3_PKT_SIZE +
						       ((opt + 7) & ~7U),
					      "event %u, %u option bytes: %zu bytes",
					      ev, opt, s.len);
				}
				CHECK(decode_all(&s, &r, 1, sw) == 1,
				      "event %u swapped %d", ev, sw);
				free(s.b);
			}
}

/*
 * A long stream: NFLOWS flows (more than there are ids, so flows take
 * over each other's ids), events of every type on 4 CPUs, a LOST record
 * now and then on one CPU and a RESET rarely, congestion controls that
 * change. Decoded in both byte orders.
 */
#define NFLOWS 3000
#define NREC 300000

static void test_stream(void)
{
	static struct magnet_v3_enc e;
	static struct flow flows[NFLOWS];
	struct magnet_record *want = calloc(NREC, sizeof(*want));
	struct stream s = { 0 };
	unsigned long lost = 0, resets = 0, ca_changes = 0;
	__u64 ts = 1000;
	size_t i, v2 = 0;
	int sw;

	if (!want)
		abort();
	for (i = 0; i < NFLOWS; i++)
		random_flow(&flows[i]);
	magnet_v3_enc_init(&e);
	for (i = 0; i < NREC; i++) {
		/* most records from a few busy flows, as in a transfer */
		struct flow *f = &flows[rng() % 8 ? rng() % 16 : rng() % NFLOWS];
		unsigned int x = (unsigned int)(rng() % 1000), ev;

		if (x == 0) {
			ev = MAGNET_EV_LOST;
			lost++;
		} else if (x == 1 && rng() % 10 == 0) {
			ev = MAGNET_EV_RESET;
			resets++;
		} else {
			ev = MAGNET_EV_TCP_OUT + (unsigned int)(rng() % 8);
			if (x == 2) {
				f->ca = ca_names[rng() % 4];
				ca_changes++;
			}
		}
		ts += rng() % 5000;
		want[i] = make(ev, (__u16)(rng() % 4), f, ts);
		put(&s, &e, &want[i]);
		v2 += sizeof(struct magnet_record);
	}
	CHECK(lost > 100 && ca_changes > 100, "%lu LOST, %lu ca changes", lost,
	      ca_changes);
	printf("stream: %d records, %lu FLOW records, %lu LOST, %lu RESET: %zu bytes (%.1f per record; version 2: %zu)\n",
	       NREC, s.flows, lost, resets, s.len, (double)s.len / NREC, v2);
	/* the second pass swaps the stream in place first */
	for (sw = 0; sw < 2; sw++) {
		size_t same = decode_all(&s, want, NREC, sw);

		CHECK(same == NREC, "byte order %d: %zu of %d records the same",
		      sw, same, NREC);
	}
	free(s.b);
	free(want);
}

/*
 * A FLOW record and a TCP_OUT record after it, of a random flow @f on CPU
 * 1, into @b (MAGNET_V3_ENC_MAX bytes or more) with a fresh @e: their
 * length
 */
static unsigned int one_tcp(struct magnet_v3_enc *e, struct flow *f,
			    unsigned char *b)
{
	struct magnet_record r;
	unsigned int n;

	random_flow(f);
	magnet_v3_enc_init(e);
	r = make(MAGNET_EV_TCP_OUT, 1, f, 5);
	n = magnet_v3_encode(e, &r, b);
	CHECK(n == MAGNET_V3_FLOW_SIZE + MAGNET_V3_TCP_SIZE, "%u", n);
	return n;
}

/*
 * The module's ttprobe reader formats TCP events in place (format.h,
 * magnet_ttstream_format_v3): its lines must be the decoder's, byte for byte, in
 * both semantics, over a stream where flows take over each other's ids and
 * LOST and RESET records end their scope (the tuple cache, keyed on the
 * flow's slot, must never print a tuple from before). Half the TCP events
 * carry a rate part.
 */
#define TTV_REC 200000

static void test_ttview(void)
{
	static struct magnet_v3_enc e;
	static struct flow flows[NFLOWS];
	static char la[MAGNET_TTPROBE_LINE_MAX], lb[MAGNET_TTPROBE_LINE_MAX];
	struct stream s = { 0 };
	size_t i, off;
	__u64 ts = 1700000000ULL * 1000000000ULL;
	int compat;

	for (i = 0; i < NFLOWS; i++)
		random_flow(&flows[i]);
	/* a few flows that differ from flow 0 in one field each */
	flows[1] = flows[0];
	flows[1].rport ^= 1;
	flows[2] = flows[0];
	flows[2].raddr[3] ^= 0x10;
	magnet_v3_enc_init(&e);
	for (i = 0; i < TTV_REC; i++) {
		struct flow *f = &flows[rng() % 4 ? rng() % 6 : rng() % NFLOWS];
		unsigned int x = (unsigned int)(rng() % 2000), ev;
		struct magnet_record r;

		if (x == 0)
			ev = MAGNET_EV_LOST;
		else if (x == 1)
			ev = MAGNET_EV_RESET;
		else
			ev = rng() % 3 ? MAGNET_EV_TCP_OUT + (unsigned int)(rng() % 2) :
					 MAGNET_EV_APP_SEND + (unsigned int)(rng() % 6);
		ts += rng() % 3000000;
		r = make(ev, (__u16)(rng() % 3), f, ts);
		put(&s, &e, &r);
		if ((ev == MAGNET_EV_TCP_OUT || ev == MAGNET_EV_TCP_IN) &&
		    rng() % 2) {
			/* the record just put: append a rate part */
			unsigned char *last = s.b + s.len - MAGNET_V3_TCP_SIZE;
			__u16 len = MAGNET_V3_TCP_SIZE + MAGNET_V3_RATE_SIZE;
			unsigned int k;

			if (s.len + MAGNET_V3_RATE_SIZE > s.cap) {
				s.cap = s.cap * 2;
				s.b = realloc(s.b, s.cap);
				if (!s.b)
					abort();
				last = s.b + s.len - MAGNET_V3_TCP_SIZE;
			}
			last[13] |= MAGNET_RF_RATE;
			memcpy(last + 14, &len, 2);
			for (k = 0; k < MAGNET_V3_RATE_SIZE; k++)
				s.b[s.len + k] = (unsigned char)rng();
			s.len += MAGNET_V3_RATE_SIZE;
		}
	}
	for (compat = 0; compat < 2; compat++) {
		struct magnet_ttcount ca = { 7 }, cb = { 7 };
		struct magnet_ttstream ta, tb;
		struct magnet_v3_dec da, db;
		unsigned long lines = 0, fast = 0, same = 0;

		CHECK(magnet_v3_dec_init(&da) == 0 && magnet_v3_dec_init(&db) == 0,
		      "dec_init");
		magnet_ttstream_open(&ta, &ca, compat);
		magnet_ttstream_open(&tb, &cb, compat);
		for (off = 0; off < s.len;) {
			const unsigned char *b = s.b + off;
			const struct magnet_v3_slot *fl;
			struct magnet_record r;
			int len = magnet_v3_record_len(&da, b, 0), na = 0, nb = 0;
			int tcp = b[12] == MAGNET_EV_TCP_OUT ||
				  b[12] == MAGNET_EV_TCP_IN;

			if (len < 0)
				break;
			/* the decoder's line */
			if (magnet_v3_decode(&da, b, (unsigned int)len, 0, &r) == 1)
				na = magnet_ttstream_format(&ta, la, &r, -5);
			/* the in-place line, or the decode when it declines */
			fl = magnet_v3_tcp_flow(&db, b, (unsigned int)len);
			CHECK(!fl == !tcp, "record at %zu (event %u): flow %p",
			      off, b[12], (const void *)fl);
			if (fl) {
				nb = magnet_ttstream_format_v3(&tb, lb, b, fl, db.gen,
							       -5);
				fast++;
			} else if (magnet_v3_decode(&db, b, (unsigned int)len, 0,
						    &r) == 1) {
				nb = magnet_ttstream_format(&tb, lb, &r, -5);
			}
			lines += na > 0;
			if (na == nb && !memcmp(la, lb, (size_t)na))
				same += na > 0;
			else
				CHECK(0, "compat %d, record at %zu: decoded '%.*s' in place '%.*s'",
				      compat, off, na, la, nb, lb);
			off += (size_t)len;
		}
		CHECK(off == s.len && fast == lines && lines > TTV_REC / 4,
		      "compat %d: %zu of %zu bytes, %lu lines, %lu in place",
		      compat, off, s.len, lines, fast);
		CHECK(ca.since_load == cb.since_load && ta.lines == tb.lines,
		      "compat %d: counters", compat);
		CHECK(same == lines, "compat %d: %lu of %lu lines the same",
		      compat, same, lines);
		printf("ttview (compat %d): %lu lines, %lu the same\n",
		       compat, lines, same);
		magnet_v3_dec_free(&da);
		magnet_v3_dec_free(&db);
	}

	/* it declines what it must not format in place */
	{
		struct magnet_v3_dec d;
		_Alignas(8) unsigned char b[MAGNET_V3_ENC_MAX];
		struct magnet_record r;
		struct flow f;
		__u16 len;

		one_tcp(&e, &f, b);
		CHECK(magnet_v3_dec_init(&d) == 0, "dec_init");
		/* its FLOW record not taken yet */
		CHECK(!magnet_v3_tcp_flow(&d, b + MAGNET_V3_FLOW_SIZE,
					  MAGNET_V3_TCP_SIZE), "undefined flow");
		CHECK(magnet_v3_decode(&d, b, MAGNET_V3_FLOW_SIZE, 0, &r) == 0,
		      "FLOW");
		CHECK(magnet_v3_tcp_flow(&d, b + MAGNET_V3_FLOW_SIZE,
					 MAGNET_V3_TCP_SIZE) != NULL, "defined flow");
		CHECK(!magnet_v3_tcp_flow(&d, b + MAGNET_V3_FLOW_SIZE,
					  MAGNET_V3_TCP_SIZE - 8), "short");
		len = MAGNET_V3_TCP_SIZE + 8;
		memcpy(b + MAGNET_V3_FLOW_SIZE + 14, &len, 2);
		CHECK(!magnet_v3_tcp_flow(&d, b + MAGNET_V3_FLOW_SIZE, len),
		      "a length the layout does not have");
		len = MAGNET_V3_TCP_SIZE;
		memcpy(b + MAGNET_V3_FLOW_SIZE + 14, &len, 2);
		b[MAGNET_V3_FLOW_SIZE + 13] |= MAGNET_RF_HDR;
		CHECK(!magnet_v3_tcp_flow(&d, b + MAGNET_V3_FLOW_SIZE, len),
		      "a packet header's flag");
		b[MAGNET_V3_FLOW_SIZE + 13] &= (__u8)~MAGNET_RF_HDR;
		b[MAGNET_V3_FLOW_SIZE + 12] = MAGNET_EV_APP_SEND;
		CHECK(!magnet_v3_tcp_flow(&d, b + MAGNET_V3_FLOW_SIZE, len),
		      "an app event");
		b[MAGNET_V3_FLOW_SIZE + 12] = MAGNET_EV_TCP_IN;
		b[MAGNET_V3_FLOW_SIZE + 8] = 200;	/* cpu 200 */
		CHECK(!magnet_v3_tcp_flow(&d, b + MAGNET_V3_FLOW_SIZE, len),
		      "a CPU with no table");
		magnet_v3_dec_free(&d);
	}
	free(s.b);
}

/* ---- malformed records ---- */

/* decode the records of @b[0..n) in turn; the last must fail with @why */
static void refuse(const char *name, unsigned char *b, size_t n,
		   const char *why)
{
	struct magnet_v3_dec d;
	size_t off = 0;
	int rc = 1;

	magnet_v3_dec_init(&d);
	while (off < n) {
		struct magnet_record r;
		int len = magnet_v3_record_len(&d, b + off, 0);

		if (len < 0) {
			rc = -1;
			break;
		}
		rc = magnet_v3_decode(&d, b + off, (unsigned int)len, 0, &r);
		if (rc < 0)
			break;
		off += (size_t)len;
	}
	CHECK(rc < 0 && strstr(d.err, why), "%s: rc %d, \"%s\", want \"%s\"",
	      name, rc, d.err, why);
	magnet_v3_dec_free(&d);
}

static void test_refuse(void)
{
	static struct magnet_v3_enc e;
	_Alignas(8) unsigned char b[2 * MAGNET_V3_ENC_MAX], c[sizeof(b)];
	struct magnet_record r;
	struct flow f;
	unsigned int n, m;
	__u16 v;

	n = one_tcp(&e, &f, b);

	/* a record before the FLOW record it needs */
	refuse("no FLOW", b + MAGNET_V3_FLOW_SIZE, MAGNET_V3_TCP_SIZE,
	       "which no FLOW record defined");
	/* flow 0 */
	memcpy(c, b, n);
	memset(c + MAGNET_V3_FLOW_SIZE + 10, 0, 2);
	refuse("flow 0", c, n, "refers to flow 0");
	/* a FLOW record for id 1025 */
	memcpy(c, b, n);
	v = MAGNET_V3_FLOW_IDS + 1;
	memcpy(c + 10, &v, 2);
	refuse("flow id", c, n, "ids are 1 to 1024");
	/* the flow defined on another CPU */
	memcpy(c, b, n);
	v = 2;
	memcpy(c + MAGNET_V3_FLOW_SIZE + 8, &v, 2);
	refuse("other cpu", c, n, "of cpu 2");
	/* lengths: odd, too short, too long, not the layout's */
	memcpy(c, b, n);
	v = 161;
	memcpy(c + MAGNET_V3_FLOW_SIZE + 14, &v, 2);
	refuse("odd length", c, n, "record length 161");
	v = 8;
	memcpy(c + MAGNET_V3_FLOW_SIZE + 14, &v, 2);
	refuse("short", c, n, "record length 8");
	v = 4096;
	memcpy(c + MAGNET_V3_FLOW_SIZE + 14, &v, 2);
	refuse("long", c, n, "record length 4096");
	v = 168;
	memcpy(c + MAGNET_V3_FLOW_SIZE + 14, &v, 2);
	refuse("layout length", c, n + 8, "a TCP record of 168 bytes");
	/* an unknown event */
	memcpy(c, b, n);
	c[MAGNET_V3_FLOW_SIZE + 12] = 77;
	refuse("event 77", c, n, "unknown event code 77");
	/* a TCP snapshot and a packet header */
	memcpy(c, b, n);
	c[MAGNET_V3_FLOW_SIZE + 13] |= MAGNET_RF_HDR;
	refuse("TCP|HDR", c, n, "a TCP snapshot and a packet header");
	/* after a LOST record on its CPU, the flow must be written again */
	memcpy(c, b, n);
	r = make(MAGNET_EV_LOST, 1, &f, 6);
	m = magnet_v3_encode(&e, &r, c + n);
	CHECK(m == MAGNET_V3_COUNT_SIZE, "%u", m);
	memcpy(c + n + m, b + MAGNET_V3_FLOW_SIZE, MAGNET_V3_TCP_SIZE);
	refuse("after LOST", c, n + m + MAGNET_V3_TCP_SIZE,
	       "since the last LOST or RESET");
	/* and the encoder does write it again */
	r = make(MAGNET_EV_TCP_IN, 1, &f, 7);
	m = magnet_v3_encode(&e, &r, c);
	CHECK(m == MAGNET_V3_FLOW_SIZE + MAGNET_V3_TCP_SIZE,
	      "after LOST: %u bytes, the FLOW record again", m);
	/* a packet record whose TCP header is longer than 60 */
	r = make(MAGNET_EV_IP_IN, 1, &f, 8);
	r.tcp_hlen = 20;
	r.ip_proto = 6;
	m = magnet_v3_encode(&e, &r, c);
	c[m - MAGNET_V3_PKT_SIZE + MAGNET_V3_HDR_SIZE +
	  offsetof(struct magnet_v3_pkt, tcp_hlen)] = 64;
	refuse("tcp_hlen", c, m, "tcp_hlen 64");
	/* what version 3 has no layout for is not encoded */
	r = make(MAGNET_EV_TCP_OUT, 1, &f, 9);
	r.flags |= MAGNET_RF_HDR;
	CHECK(magnet_v3_encode(&e, &r, c) == 0, "TCP|HDR encoded");
	r = make(MAGNET_EV_IP_OUT, 1, &f, 9);
	r.flags |= MAGNET_RF_TCP;
	CHECK(magnet_v3_encode(&e, &r, c) == 0, "a packet with RF_TCP encoded");
	/* a DROP event has no version 2 form to encode from */
	r.event = MAGNET_EV_DROP_OUT;
	r.flags &= (__u8)~MAGNET_RF_TCP;
	CHECK(magnet_v3_encode(&e, &r, c) == 0, "a DROP event encoded");
}

/*
 * DROP events: a packet record the encoder wrote, made a DROP event as the
 * module writes one (event 12 or 13, the drop part appended); decoded in
 * both byte orders into the same packet event (that event) and its drop part,
 * names ended at 31 bytes; the next record without one clears it. Then
 * what is refused.
 */
/*
 * Decode the @n bytes of records at @b, byte-swapped first (record by
 * record) if @sw, as a reader of the other order finds them: the first
 * event must be @r with the event code @event, every other @r itself;
 * each goes to @fn with the decoder (which gives its parts) and its index,
 * to check its parts. Returns the number of events.
 */
typedef void each_event(struct magnet_v3_dec *d, int k, void *ctx);

/* the header's features decode_events() gives its decoder (0: none said) */
static __u32 dec_features;

static int decode_events(unsigned char *b, size_t n, int sw,
			 const struct magnet_record *r, unsigned int event,
			 each_event *fn, void *ctx)
{
	struct magnet_v3_dec d;
	struct magnet_record got;
	int rc = 0, k, events = 0;
	size_t off;
	__u16 len;

	if (sw)
		for (off = 0; off < n; off += len) {
			memcpy(&len, b + off + 14, 2);
			swap_v3(b + off);
		}
	magnet_v3_dec_init(&d);
	if (dec_features)
		magnet_v3_dec_features(&d, dec_features);
	for (off = 0; off < n; off += (size_t)rc) {
		rc = magnet_v3_record_len(&d, b + off, sw);
		CHECK(rc > 0, "length: %s", d.err);
		if (rc <= 0)
			break;
		memset(&got, 0xa5, sizeof(got));
		k = magnet_v3_decode(&d, b + off, (unsigned int)rc, sw, &got);
		CHECK(k >= 0, "decode: %s", d.err);
		if (k < 0)
			break;
		if (k != 1)
			continue;
		CHECK(got.event == (events ? r->event : event), "event %u",
		      got.event);
		got.event = r->event;
		CHECK(!memcmp(&got, r, sizeof(got)),
		      "swapped %d: event %d differs", sw, events);
		fn(&d, events++, ctx);
	}
	magnet_v3_dec_free(&d);
	return events;
}

/*
 * A part's entries from its table (schema.h), through @part (what was
 * written) and @got (what was decoded): ZERO_R(TABLE) zeroes @part's
 * reserved entries, as a writer does; @got SAME_AS(TABLE) is true when
 * every other entry is the same, a char array but its last byte, which
 * the decoder makes NUL, and every reserved one is 0.
 */
#define ZERO_R_ENTRY(type, name, dims, kind)				\
	if (#kind[0] == 'R')						\
		memset(&part->name, 0, sizeof(part->name));
#define ZERO_R(table) do { table(ZERO_R_ENTRY) } while (0)
#define SAME_ENTRY(type, name, dims, kind)				\
	&& entry_same(&got->name, &part->name, sizeof(got->name),	\
		      #kind[0] == 'R', _Generic((type)0, char: 1, default: 0))
#define SAME_AS(table) (1 table(SAME_ENTRY))

static int entry_same(const void *got, const void *part, size_t n,
		      int reserved, int str)
{
	size_t i;

	if (reserved) {
		for (i = 0; i < n; i++)
			if (((const unsigned char *)got)[i])
				return 0;
		return 1;
	}
	if (str)
		return !memcmp(got, part, n - 1) && !((const char *)got)[n - 1];
	return !memcmp(got, part, n);
}

/* test_drop's: a DROP event, then the same packet without a drop part */
struct drop_want {
	const void *x;			/* the part: drop, qdisc */
	int sw;
};

static void drop_each(struct magnet_v3_dec *d, int k, void *ctx)
{
	const struct drop_want *w = ctx;
	const struct magnet_v3_drop *part = w->x;
	struct magnet_v3_drop y, *got = &y;

	memset(&y, 0xa5, sizeof(y));
	if (k == 0) {
		CHECK(magnet_v3_drop(d, &y) == 1 &&
		      SAME_AS(MAGNET_V3_DROP_PART),
		      "swapped %d: the drop part differs", w->sw);
	} else {
		CHECK(magnet_v3_drop(d, &y) == 0,
		      "a drop part after a record without one");
	}
}

/*
 * A packet event of type @base with a part of @size bytes after its
 * options as event @event: @part's bytes (the caller's, made for round
 * @k), then the same flow's packet without one, decoded in either byte
 * order, each event to @fn with a struct drop_want (its x: @part); then
 * refused without the part, and with RF_TCP.
 */
static void tail_part(unsigned int base, unsigned int event, const void *part,
		      unsigned int size, each_event *fn, int k, int sw,
		      const char *what)
{
	static struct magnet_v3_enc e;
	_Alignas(8) unsigned char b[4 * MAGNET_V3_ENC_MAX];
	struct magnet_record r;
	unsigned int n, m, pkt;
	struct flow f;
	char why[80];
	__u16 len;

	random_flow(&f);
	magnet_v3_enc_init(&e);
	r = make(base, (__u16)(rng() % 4), &f, rng());
	n = magnet_v3_encode(&e, &r, b);
	CHECK(n > MAGNET_V3_FLOW_SIZE, "%u", n);
	pkt = n - MAGNET_V3_FLOW_SIZE;
	memcpy(b + n, part, size);
	len = (__u16)(pkt + size);
	b[MAGNET_V3_FLOW_SIZE + 12] = (unsigned char)event;
	memcpy(b + MAGNET_V3_FLOW_SIZE + 14, &len, 2);
	n += size;
	/* then the same flow's packet without one */
	m = magnet_v3_encode(&e, &r, b + n);
	CHECK(m == pkt, "%u", m);
	n += m;
	CHECK(decode_events(b, n, sw, &r, event, fn,
			    &(struct drop_want){ part, sw }) == 2,
	      "two events");
	/* (k 1 too: test_qdisc's first QDISC_ENQ) */
	if (k > 1)
		return;
	/* refused: without its part, and with RF_TCP */
	magnet_v3_enc_init(&e);
	n = magnet_v3_encode(&e, &r, b);
	b[MAGNET_V3_FLOW_SIZE + 12] = (unsigned char)event;
	snprintf(why, sizeof(why), "a %s record of %u bytes (version 3 has %u)",
		 what, pkt, pkt + size);
	refuse(what, b, n, why);
	memset(b + n, 0, size);
	len = (__u16)(pkt + size);
	memcpy(b + MAGNET_V3_FLOW_SIZE + 14, &len, 2);
	b[MAGNET_V3_FLOW_SIZE + 13] |= MAGNET_RF_TCP;
	refuse(what, b, n + size, "with flags");
}

/* DROP events: any bytes in the drop part, names with no NUL too */
static void test_drop(void)
{
	static const unsigned int evs[] = { MAGNET_EV_IP_OUT, MAGNET_EV_IP_IN,
					    MAGNET_EV_DEV_OUT, MAGNET_EV_DEV_IN };
	struct magnet_v3_drop x, *part = &x;
	unsigned int i;
	int k, sw;

	for (k = 0; k < 800; k++)
		for (sw = 0; sw < 2; sw++) {
			for (i = 0; i < sizeof(x); i++)
				((unsigned char *)&x)[i] = (unsigned char)rng();
			ZERO_R(MAGNET_V3_DROP_PART);
			if (k % 3 == 0)	/* names with no NUL in their 32 */
				memset(x.reason_name, 'r', sizeof(x.reason_name));
			tail_part(evs[k % 4], k % 2 ? MAGNET_EV_DROP_IN :
				  MAGNET_EV_DROP_OUT, &x, sizeof(x), drop_each,
				  k, sw, "drop");
		}
}

/*
 * The rate part (RF_RATE): a TCP or app record the encoder wrote, with a
 * rate part appended as the module writes it; decoded in both byte orders
 * into the same event (its flags without RF_RATE) and d.rate, and the next
 * record without one clears d.has_rate. Then what is refused.
 */
/* test_rate's: a TCP or app event with a rate part, then one without */
struct rate_want {
	const struct magnet_v3_rate *x;
	unsigned int ev;
	int sw;
};

static void rate_each(struct magnet_v3_dec *d, int k, void *ctx)
{
	const struct rate_want *w = ctx;
	struct magnet_v3_rate y;

	memset(&y, 0xa5, sizeof(y));
	if (k == 0)
		CHECK(magnet_v3_rate(d, &y) == 1 && !memcmp(&y, w->x, sizeof(y)),
		      "event %u swapped %d: the rate part differs", w->ev, w->sw);
	else
		CHECK(magnet_v3_rate(d, &y) == 0,
		      "event %u: a rate part after a record without one", w->ev);
}

static void test_rate(void)
{
	static struct magnet_v3_enc e;
	_Alignas(8) unsigned char b[4 * MAGNET_V3_ENC_MAX];
	unsigned int ev, k, i, n, m;
	struct magnet_record r;
	struct magnet_v3_rate x, *part = &x;
	struct flow f;
	__u16 len;
	char why[80];
	int sw;

	for (ev = MAGNET_EV_TCP_OUT; ev <= MAGNET_EV_APP_RECV; ev++)
		for (k = 0; k < 200; k++)
			for (sw = 0; sw < 2; sw++) {
				unsigned int base = ev >= MAGNET_EV_APP_SEND ?
						    MAGNET_V3_APP_SIZE :
						    MAGNET_V3_TCP_SIZE;

				random_flow(&f);
				magnet_v3_enc_init(&e);
				r = make(ev, (__u16)(rng() % 4), &f, rng());
				n = magnet_v3_encode(&e, &r, b);
				CHECK(n == MAGNET_V3_FLOW_SIZE + base, "%u", n);
				x.pacing_rate = rng() % 4 ? rng() : ~0ULL;
				x.delivered = (__u32)rng();
				x.delivered_ce = (__u32)rng();
				x.lost_out = (__u32)rng();
				x.sacked_out = (__u32)rng();
				x.rate_delivered = (__u32)rng();
				x.rate_interval_us = (__u32)rng();
				x.app_limited = (__u8)(rng() & 1);
				x.cc_attr = (__u8)(rng() % 2 ? 16 : 0);
				ZERO_R(MAGNET_V3_RATE_PART);
				for (i = 0; i < 5; i++)
					x.cc_info[i] = x.cc_attr ? (__u32)rng() : 0;
				memcpy(b + n, &x, sizeof(x));
				len = (__u16)(base + MAGNET_V3_RATE_SIZE);
				b[MAGNET_V3_FLOW_SIZE + 13] |= MAGNET_RF_RATE;
				memcpy(b + MAGNET_V3_FLOW_SIZE + 14, &len, 2);
				n += MAGNET_V3_RATE_SIZE;
				/* then the same flow's record without one */
				m = magnet_v3_encode(&e, &r, b + n);
				CHECK(m == base, "%u", m);
				n += m;
				CHECK(decode_events(b, n, sw, &r, ev, rate_each,
						    &(struct rate_want){ &x, ev,
							 sw }) == 2,
				      "two events");
			}

	/* refused: the lengths, and a rate part on a packet record */
	magnet_v3_enc_init(&e);
	r = make(MAGNET_EV_TCP_OUT, 1, &f, 5);
	n = magnet_v3_encode(&e, &r, b);
	b[MAGNET_V3_FLOW_SIZE + 13] |= MAGNET_RF_RATE;
	/* the sizes from the layout's constants, so that a field added to a
	 * part (module/uapi/schema.h) changes nothing here */
	snprintf(why, sizeof(why), "a TCP+rate record of %d bytes",
		 MAGNET_V3_TCP_SIZE);
	refuse("rate flag, no rate part", b, n, why);
	r = make(MAGNET_EV_APP_SEND, 1, &f, 6);
	n = magnet_v3_encode(&e, &r, b);
	b[n - MAGNET_V3_APP_SIZE + 13] |= MAGNET_RF_RATE;
	memset(b + n, 0, MAGNET_V3_RATE_SIZE);
	/* a record 16 bytes short of an app event's with its rate part */
	len = MAGNET_V3_APP_SIZE + MAGNET_V3_RATE_SIZE - 16;
	memcpy(b + n - MAGNET_V3_APP_SIZE + 14, &len, 2);
	snprintf(why, sizeof(why), "app+rate record of %u bytes (version 3 has %d)",
		 len, MAGNET_V3_APP_SIZE + MAGNET_V3_RATE_SIZE);
	refuse("app, a short rate part", b, n - MAGNET_V3_APP_SIZE + len, why);
	magnet_v3_enc_init(&e);
	r = make(MAGNET_EV_DEV_IN, 1, &f, 7);
	n = magnet_v3_encode(&e, &r, b);
	b[MAGNET_V3_FLOW_SIZE + 13] |= MAGNET_RF_RATE;
	refuse("packet with a rate part", b, n, "with flags");
}

/* test_tcpev's: a TCP event, then the same flow's TCP record without */
struct tcpev_want {
	const struct magnet_v3_rate *x;
	const struct magnet_v3_tcpev *t;
	int sw;
};

static void tcpev_each(struct magnet_v3_dec *d, int k, void *ctx)
{
	const struct tcpev_want *w = ctx;
	struct magnet_v3_rate xr;
	struct magnet_v3_tcpev tr;

	memset(&tr, 0xa5, sizeof(tr));
	if (k == 0) {
		CHECK(magnet_v3_rate(d, &xr) == 1 &&
		      !memcmp(&xr, w->x, sizeof(xr)),
		      "swapped %d: the rate part differs", w->sw);
		CHECK(magnet_v3_tcpev(d, &tr) == 1 &&
		      !memcmp(&tr, w->t, sizeof(tr)),
		      "swapped %d: the TCP event part differs", w->sw);
	} else {
		CHECK(magnet_v3_tcpev(d, &tr) == 0 &&
		      magnet_v3_rate(d, &xr) == 0,
		      "a TCP event part after a record without one");
	}
}

/*
 * A TCP event (RETRANS, RTO, TLP, STATE): a TCP record's parts, the rate
 * part, then the TCP event part, decoded (either byte order) to the TCP
 * record, its rate part and its TCP event part (its RTO totals where the
 * header's features say MAGNET_V3_FEAT_RTO_TOTALS, every other time; else
 * 0, reserved bytes, whatever they hold); the same flow's TCP record
 * after it has none. Refused without the rate part, or without the TCP
 * event part.
 */
static void test_tcpev(void)
{
	static const unsigned int evs[] = { MAGNET_EV_RETRANS, MAGNET_EV_RTO,
					    MAGNET_EV_TLP, MAGNET_EV_STATE,
					    MAGNET_EV_CA_STATE };
	static struct magnet_v3_enc e;
	_Alignas(8) unsigned char b[4 * MAGNET_V3_ENC_MAX];
	const unsigned int whole = MAGNET_V3_TCP_SIZE + MAGNET_V3_RATE_SIZE +
				   MAGNET_V3_TCPEV_SIZE;
	unsigned int k, i, n, m;
	struct magnet_record r;
	struct magnet_v3_rate x;
	struct magnet_v3_tcpev t, tw;
	struct flow f;
	__u16 len;
	char why[80];
	int sw;

	for (k = 0; k < 800; k++)
		for (sw = 0; sw < 2; sw++) {
			random_flow(&f);
			magnet_v3_enc_init(&e);
			r = make(MAGNET_EV_TCP_OUT, (__u16)(rng() % 4), &f, rng());
			n = magnet_v3_encode(&e, &r, b);
			CHECK(n == MAGNET_V3_FLOW_SIZE + MAGNET_V3_TCP_SIZE, "%u", n);
			for (i = 0; i < sizeof(x); i++)
				((unsigned char *)&x)[i] = (unsigned char)rng();
			{
				struct magnet_v3_rate *part = &x;

				ZERO_R(MAGNET_V3_RATE_PART);
			}
			for (i = 0; i < sizeof(t); i++)
				((unsigned char *)&t)[i] = (unsigned char)rng();
			{
				struct magnet_v3_tcpev *part = &t;

				ZERO_R(MAGNET_V3_TCPEV_PART);
			}
			memcpy(b + n, &x, sizeof(x));
			memcpy(b + n + sizeof(x), &t, sizeof(t));
			n += MAGNET_V3_RATE_SIZE + MAGNET_V3_TCPEV_SIZE;
			len = (__u16)whole;
			b[MAGNET_V3_FLOW_SIZE + 12] = (unsigned char)evs[k % 4];
			b[MAGNET_V3_FLOW_SIZE + 13] |= MAGNET_RF_RATE;
			memcpy(b + MAGNET_V3_FLOW_SIZE + 14, &len, 2);
			/* then the same flow's TCP record without them */
			m = magnet_v3_encode(&e, &r, b + n);
			CHECK(m == MAGNET_V3_TCP_SIZE, "%u", m);
			n += m;
			tw = t;
			dec_features = k % 2 ? 0 : MAGNET_V3_FEAT_RTO_TOTALS;
			if (!dec_features) {
				tw.rto_totals = 0;
				tw.total_rto = 0;
				tw.total_rto_recoveries = 0;
			}
			CHECK(decode_events(b, n, sw, &r, evs[k % 4], tcpev_each,
					    &(struct tcpev_want){ &x, &tw, sw }) == 2,
			      "two events");
			dec_features = 0;
		}

	/* refused: without the rate part's flag, and without the TCP event
	 * part */
	magnet_v3_enc_init(&e);
	r = make(MAGNET_EV_TCP_OUT, 1, &f, 5);
	n = magnet_v3_encode(&e, &r, b);
	b[MAGNET_V3_FLOW_SIZE + 12] = MAGNET_EV_RTO;
	refuse("TCP event, no rate part", b, n, "with flags");
	memset(b + n, 0, MAGNET_V3_RATE_SIZE);
	len = (__u16)(MAGNET_V3_TCP_SIZE + MAGNET_V3_RATE_SIZE);
	memcpy(b + MAGNET_V3_FLOW_SIZE + 14, &len, 2);
	b[MAGNET_V3_FLOW_SIZE + 13] |= MAGNET_RF_RATE;
	snprintf(why, sizeof(why),
		 "a TCP event record of %u bytes (version 3 has %u)",
		 (unsigned int)len, whole);
	refuse("TCP event, no TCP event part", b, n + MAGNET_V3_RATE_SIZE, why);
}

/* test_qdisc's: a QDISC event, then the same packet without a qdisc part */
static void qdisc_each(struct magnet_v3_dec *d, int k, void *ctx)
{
	const struct drop_want *w = ctx;
	const struct magnet_v3_qdisc *part = w->x;
	struct magnet_v3_qdisc y, *got = &y;

	memset(&y, 0xa5, sizeof(y));
	if (k == 0) {
		CHECK(magnet_v3_qdisc(d, &y) == 1 &&
		      SAME_AS(MAGNET_V3_QDISC_PART),
		      "swapped %d: the qdisc part differs", w->sw);
	} else {
		CHECK(magnet_v3_qdisc(d, &y) == 0 && magnet_v3_drop(d, NULL) == 0,
		      "a qdisc part after a record without one");
	}
}

/*
 * QDISC and QDISC_ENQ events: any bytes in the qdisc part, a kind with no
 * NUL too
 */
static void test_qdisc(void)
{
	struct magnet_v3_qdisc x;
	unsigned int i;
	int k, sw;

	for (k = 0; k < 800; k++)
		for (sw = 0; sw < 2; sw++) {
			for (i = 0; i < sizeof(x); i++)
				((unsigned char *)&x)[i] = (unsigned char)rng();
			tail_part(MAGNET_EV_DEV_OUT,
				  k & 1 ? MAGNET_EV_QDISC_ENQ : MAGNET_EV_QDISC,
				  &x, sizeof(x), qdisc_each, k, sw, "qdisc");
		}
}

int main(void)
{
	test_drop();
	test_qdisc();
	test_tcpev();
	test_each();
	test_stream();
	test_refuse();
	test_rate();
	test_ttview();
	printf("test_v3: %d passed, %d failed\n", passed, failed);
	return failed != 0;
}
