// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * format*.c's printf-free formatters against the printf formatters they
 * replaced (format_ref.c, frozen): ttprobe lines (magnet's and the
 * ttprobe-compat products), magnet text lines and web10g's address columns,
 * byte for byte, on the widest possible record and on random records of
 * every event, flag set, family and field magnitude. Each line is written
 * into a heap buffer of exactly the documented size, so AddressSanitizer
 * sees any write past it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "format.h"
#include "format_ref.h"
#include "check.h"

#define RANDOM_RECORDS 300000

static __u64 rnd64(void)
{
	__u64 v = ((__u64)random() << 42) ^ ((__u64)random() << 21) ^
		  (__u64)random();

	return v >> (random() % 64);
}

static void fill_str(char *s, size_t n)
{
	size_t i, len = (size_t)random() % (n + 1);

	for (i = 0; i < n; i++)
		s[i] = i < len ? (char)(random() % 4 ? 0x20 + random() % 0x60 :
					random() % 256) : 0;
	if (len < n)
		s[len] = 0;
}

static void random_record(struct magnet_record *r)
{
	static const __u8 families[] = { MAGNET_FAMILY_INET,
					 MAGNET_FAMILY_INET6, 0, 77 };
	size_t i;

	memset(r, 0, sizeof(*r));
	r->ts_ns = rnd64();
	r->sock_id = rnd64();
	r->event = (__u16)(random() % (MAGNET_EV_MAX + 2));
	r->cpu = (__u16)rnd64();
	r->family = families[random() % 4];
	r->state = (__u8)random();
	r->ca_state = (__u8)(random() % 6);
	r->flags = (__u8)random();
	r->lport = (__u16)random();
	r->rport = (__u16)random();
	r->len = (__u32)rnd64();
	for (i = 0; i < 16; i++) {
		r->laddr[i] = (__u8)random();
		r->raddr[i] = (__u8)random();
	}
	r->seq = (__u32)rnd64();
	r->end_seq = (__u32)rnd64();
	r->mark = (__u32)rnd64();
	r->pid = (__u32)rnd64();
	r->ret = (__s64)rnd64() * (random() % 2 ? 1 : -1);
	r->req = rnd64();
	fill_str(r->comm, MAGNET_COMM_LEN);
	r->mss = (__u32)rnd64();
	r->srtt_us = (__u32)rnd64();
	r->rttvar_us = (__u32)rnd64();
	r->rto_us = (__u32)rnd64();
	r->cwnd = (__u32)rnd64();
	r->ssthresh = (__u32)rnd64();
	r->snd_wnd = (__u32)rnd64();
	r->rcv_wnd = (__u32)rnd64();
	r->snd_una = (__u32)rnd64();
	r->snd_nxt = (__u32)rnd64();
	r->write_seq = (__u32)rnd64();
	r->copied_seq = (__u32)rnd64();
	r->packets_out = (__u32)rnd64();
	r->retrans_out = (__u32)rnd64();
	r->total_retrans = (__u32)rnd64();
	fill_str(r->ca_name, MAGNET_CA_NAME_LEN);
	r->ifindex = (__u32)rnd64();
	r->ip_id = (__u16)random();
	r->ip_tos = (__u8)random();
	r->ip_ttl = (__u8)random();
	r->ip_proto = (__u8)random();
	r->segs_out = (__u32)rnd64();
	r->data_segs_out = (__u32)rnd64();
	r->segs_in = (__u32)rnd64();
	r->data_segs_in = (__u32)rnd64();
	r->bytes_sent = rnd64();
	r->bytes_received = rnd64();
	r->bytes_acked = rnd64();
	r->bytes_retrans = rnd64();
	r->rcv_nxt = (__u32)rnd64();
	r->min_rtt_us = (__u32)rnd64();
	r->rtt_us = (__u32)rnd64();
	r->advmss = (__u16)random();
	r->wscale = (__u8)random();
	r->opts = (__u8)random();
}

/* every field at its widest: the longest line each format can produce */
static void widest_record(struct magnet_record *r, int event)
{
	memset(r, 0xff, sizeof(*r));
	r->event = (__u16)event;
	r->family = MAGNET_FAMILY_INET6;
	r->ret = -0x7fffffffffffffffLL - 1;
	memset(r->comm, 'c', MAGNET_COMM_LEN);
	memset(r->ca_name, 'n', MAGNET_CA_NAME_LEN);
	r->state = 255;
}

static char *tt_new, *tt_ref, *tx_new, *tx_ref, *w_new, *w_ref;
static int widest_tt, widest_text;

/*
 * The one change of the text format since the reference: a LOST line
 * carries its probe misses (ret), when not 0, in the `ret` column, which
 * the reference left empty. Insert them into the reference line there.
 */
static int ref_lost_misses(char *line, int len, const struct magnet_record *r)
{
	char num[24], *p = line;
	int tabs = 0, k;

	if (r->event != MAGNET_EV_LOST || !r->ret || len <= 0)
		return len;
	while (tabs < MAGNET_TEXT_COL_RET - 1)
		if (*p++ == '\t')
			tabs++;
	k = snprintf(num, sizeof(num), "%llu", (unsigned long long)r->ret);
	memmove(p + k, p, (size_t)(line + len + 1 - p));
	memcpy(p, num, (size_t)k);
	return len + k;
}

/* a rate part: random, or (@widest) every field at its widest, BBR's */
/* a drop part of random bytes: names of any length (some empty, some full
 * with no NUL), printable or not; the reason 0 half the time */
static void drop_part(struct magnet_v3_drop *d)
{
	size_t i, n = sizeof(d->reason_name);

	for (i = 0; i < sizeof(*d); i++)
		((unsigned char *)d)[i] = (unsigned char)random();
	if (random() % 2)
		d->reason = 0;
	if (random() % 3 == 0)
		d->reason_name[0] = 0;
	else if (random() % 2)
		d->reason_name[random() % n] = 0;
	if (random() % 2)
		d->where[random() % n] = 0;
}

static void rate_part(struct magnet_v3_rate *x, int widest)
{
	static const __u8 attrs[] = { 0, 3, 9, 16, 16, 255 };
	int i;

	if (widest) {
		memset(x, 0xff, sizeof(*x));
		x->cc_attr = 16;
		/* with an MSS of ~0U, a 20-digit delivery rate */
		x->rate_interval_us = 1;
		return;
	}
	x->pacing_rate = random() % 8 ? rnd64() : ~0ULL;
	x->delivered = (__u32)rnd64();
	x->delivered_ce = (__u32)rnd64();
	x->lost_out = (__u32)rnd64();
	x->sacked_out = (__u32)rnd64();
	x->rate_delivered = random() % 8 ? (__u32)rnd64() : 0;
	x->rate_interval_us = random() % 8 ? (__u32)rnd64() : 0;
	x->app_limited = (__u8)random();
	x->cc_attr = attrs[random() % 6];
	x->reserved = 0;
	for (i = 0; i < 5; i++)
		x->cc_info[i] = (__u32)rnd64();
}

static void compare(const struct magnet_record *r, __u64 counter,
		    __s64 offset, __u64 cwnd_b, __u64 ssth_b, __u32 cid)
{
	struct magnet_v3_rate rate;
	const struct magnet_v3_rate *x = NULL;
	struct magnet_v3_drop drop;
	const struct magnet_v3_drop *d = NULL;
	struct magnet_v3_tcpev tcpev;
	const struct magnet_v3_tcpev *e = NULL;
	struct magnet_v3_qdisc qdisc;
	const struct magnet_v3_qdisc *q = NULL;
	struct magnet_v3_limit limit;
	const struct magnet_v3_limit *l = NULL;
	struct magnet_v3_rcvbuf rcvbuf;
	const struct magnet_v3_rcvbuf *b = NULL;
	struct magnet_v3_rtoend rtoend;
	const struct magnet_v3_rtoend *t = NULL;
	__u32 netns;
	int n, m;

	/* the rate part: none (version 2, or not a TCP record), or one */
	if (counter == ~0ULL) {
		rate_part(&rate, 1);
		x = &rate;
	} else if (random() % 2) {
		rate_part(&rate, 0);
		x = &rate;
	}

	n = magnet_format_ttprobe_with(tt_new, r, counter, offset, cwnd_b,
				       ssth_b);
	m = ref_format_ttprobe_with(tt_ref, r, counter, offset, cwnd_b,
				    ssth_b);
	CHECK(n == m && (n == 0 || !memcmp(tt_new, tt_ref, (size_t)n + 1)),
	      "ttprobe, event %u: new (%d) '%.*s' ref (%d) '%.*s'", r->event,
	      n, n, tt_new, m, m, tt_ref);
	if (n > widest_tt)
		widest_tt = n;

	/* a namespace: none (version 2, a LOST record), or any inode */
	netns = counter == ~0ULL ? ~0U : (random() % 2 ? (__u32)random() : 0);
	/* a drop part: none, or one (the widest: both names 31 bytes, as
	 * magnet_v3_drop() ends them; else any bytes, empty names too) */
	if (counter == ~0ULL) {
		memset(&drop, 'w', sizeof(drop));
		drop.reason_name[31] = 0;
		drop.where[31] = 0;
		d = &drop;
	} else if (random() % 2) {
		drop_part(&drop);
		d = &drop;
	}
	/* a TCP event part: none, or one (the widest: 3-digit numbers, the
	 * longest kind's name; else any bytes, unknown kinds too) */
	if (counter == ~0ULL) {
		memset(&tcpev, 0xff, sizeof(tcpev));
		tcpev.kind = r->event == MAGNET_EV_TLP ? MAGNET_TLP_RETRANS :
							 MAGNET_RETRANS_FAST;
		e = &tcpev;
	} else if (random() % 2) {
		long v = random();

		memcpy(&tcpev, &v, sizeof(tcpev) < sizeof(v) ? sizeof(tcpev) :
		       sizeof(v));
		tcpev.kind %= 5;
		e = &tcpev;
	}
	/* a qdisc part: none, or one (the widest: 10-digit numbers, a
	 * 15-byte kind; else any bytes, "not known" too) */
	if (counter == ~0ULL) {
		memset(&qdisc, 'k', sizeof(qdisc));
		qdisc.handle = 0xffffffffU;
		qdisc.qlen = 0xfffffffeU;
		qdisc.backlog = 0xfffffffeU;
		qdisc.kind[15] = 0;
		q = &qdisc;
	} else if (random() % 2) {
		unsigned int i;

		for (i = 0; i < sizeof(qdisc); i++)
			((unsigned char *)&qdisc)[i] = (unsigned char)random();
		if (random() % 4 == 0)
			qdisc.qlen = qdisc.backlog = ~0U;
		qdisc.kind[15] = 0;	/* as magnet_v3_qdisc() ends it */
		q = &qdisc;
	}
	/* a limit part: none, or one (the widest: every field at its
	 * widest, "sndbuf"; else any bytes, unknown chronographs too) */
	if (counter == ~0ULL) {
		memset(&limit, 0xff, sizeof(limit));
		limit.chrono = MAGNET_CHRONO_SNDBUF;
		l = &limit;
	} else if (random() % 2) {
		unsigned int i;

		for (i = 0; i < sizeof(limit); i++)
			((unsigned char *)&limit)[i] = (unsigned char)random();
		limit.chrono %= 6;
		l = &limit;
	}
	/* an rcvbuf part: none, or one (the widest: every field at its
	 * widest; else any bytes) */
	if (counter == ~0ULL) {
		memset(&rcvbuf, 0xff, sizeof(rcvbuf));
		b = &rcvbuf;
	} else if (random() % 2) {
		unsigned int i;

		for (i = 0; i < sizeof(rcvbuf); i++)
			((unsigned char *)&rcvbuf)[i] = (unsigned char)random();
		b = &rcvbuf;
	}
	/* an rtoend part: none, or one (the widest: every field at its
	 * widest; else any bytes) */
	if (counter == ~0ULL) {
		memset(&rtoend, 0xff, sizeof(rtoend));
		t = &rtoend;
	} else if (random() % 2) {
		unsigned int i;

		for (i = 0; i < sizeof(rtoend); i++)
			((unsigned char *)&rtoend)[i] = (unsigned char)random();
		t = &rtoend;
	}
	n = magnet_format_text(tx_new, r, x, d, e, q, l, b, t, netns, offset);
	m = ref_lost_misses(tx_ref, ref_format_text(tx_ref, r, x, d, e, q, l,
						    b, t, netns, offset), r);
	CHECK(n == m && (n == 0 || !memcmp(tx_new, tx_ref, (size_t)n + 1)),
	      "text, event %u flags %#x: new (%d) '%.*s' ref (%d) '%.*s'",
	      r->event, r->flags, n, n, tx_new, m, m, tx_ref);
	if (n > widest_text)
		widest_text = n;

	n = magnet_format_web10g(w_new, r, l, offset, cid);
	if (n > 0) {
		m = ref_format_web10g_prefix(w_ref, r, offset, cid);
		CHECK(n > m && !memcmp(w_new, w_ref, (size_t)m) &&
		      w_new[m] == ',' && w_new[n - 1] == '\n' && !w_new[n],
		      "web10g columns 1-6: new '%.*s' ref '%s'", m + 1, w_new,
		      w_ref);
	}
}

/* @r's fields 8-14 (and ca_state, which the compat ssthresh reads) */
static void mid_copy(struct magnet_record *r, const struct magnet_record *from)
{
	r->mss = from->mss;
	r->srtt_us = from->srtt_us;
	r->cwnd = from->cwnd;
	r->ssthresh = from->ssthresh;
	r->snd_wnd = from->snd_wnd;
	r->rcv_wnd = from->rcv_wnd;
	r->state = from->state;
	r->ca_state = from->ca_state;
}

/*
 * @r's fields 8-14 as a flow's lines have them: mostly its socket @sock's
 * last ones, else one of them one apart or random, or another socket's
 * (@other); then @sock's last ones are @r's
 */
static void mid_values(struct magnet_record *r, struct magnet_record *sock,
		       const struct magnet_record *other)
{
	struct magnet_record fresh = *r;
	__u32 *f[] = { &r->mss, &r->srtt_us, &r->cwnd, &r->ssthresh,
		       &r->snd_wnd, &r->rcv_wnd };
	long dice = random() % 16;
	int i = (int)(random() % 8);

	mid_copy(r, sock);
	if (dice == 0) {
		mid_copy(r, &fresh);
	} else if (dice == 1) {
		mid_copy(r, other);
	} else if (dice < 5) {
		if (i < 6)
			*f[i] += random() % 2 ? 1 : (__u32)rnd64();
		else if (i == 6)
			r->state ^= (__u8)(1 + random() % 255);
		else
			r->ca_state = (__u8)(random() % 6);
	}
	mid_copy(sock, r);
}

/*
 * A stream through magnet_ttstream_format(), which copies the seconds and
 * fields 3-6 from its cache when they repeat: every line against the
 * reference, on records from a few sockets (IPv4 and IPv6 with the same
 * bytes, tuples one port or one address bit apart, or apart only in an
 * IPv4 address's unused bytes), with timestamps a few ms apart so seconds repeat and
 * change, other events between them, in both semantics. Fields 8-14 (mss
 * to state, cached per socket) mostly repeat the socket's last line, or
 * change in one field by one or at random, or take another socket's.
 */
static void stream(int compat, long n)
{
	struct magnet_ttcount count = { 12345 };
	struct magnet_ttstream st;
	struct magnet_record pool[6], r;
	__u64 ts = 1000000000ULL * 1700000000ULL - 5000000;
	__u64 counter = compat ? count.since_load : 1;
	long i;
	int k;

	for (k = 0; k < 6; k++) {
		random_record(&pool[k]);
		pool[k].family = k & 1 ? MAGNET_FAMILY_INET6 : MAGNET_FAMILY_INET;
	}
	pool[1].lport = pool[0].lport;	/* 0 and 1: same bytes, other family */
	pool[1].rport = pool[0].rport;
	memcpy(pool[1].laddr, pool[0].laddr, 16);
	memcpy(pool[1].raddr, pool[0].raddr, 16);
	pool[2] = pool[0];
	pool[2].rport ^= 1;		/* one port apart */
	pool[3] = pool[0];
	pool[3].laddr[7] ^= 0x40;	/* apart in bytes IPv4 does not print */
	pool[4] = pool[0];
	pool[4].laddr[2] ^= 1;		/* one address bit apart */
	pool[5] = pool[1];
	pool[5].raddr[15] ^= 1;		/* IPv6, the last bit of raddr */

	magnet_ttstream_open(&st, &count, compat);
	for (i = 0; i < n; i++) {
		int m, got;

		k = (int)(random() % 6);
		if (random() % 8)	/* runs of the same socket, as in a flow */
			k = (int)(i / 50 % 6);
		random_record(&r);
		mid_values(&r, &pool[k], &pool[random() % 6]);
		r.family = pool[k].family;
		r.lport = pool[k].lport;
		r.rport = pool[k].rport;
		memcpy(r.laddr, pool[k].laddr, 16);
		memcpy(r.raddr, pool[k].raddr, 16);
		ts += (__u64)(random() % 20000000);
		r.ts_ns = ts;
		got = magnet_ttstream_format(&st, tt_new, &r, 0);
		if (r.event != MAGNET_EV_TCP_OUT && r.event != MAGNET_EV_TCP_IN) {
			CHECK(got == 0, "stream: event %u wrote a line", r.event);
			continue;
		}
		if (compat)
			m = ref_format_ttprobe_with(tt_ref, &r, counter, 0,
						    (__u32)(r.cwnd * r.mss),
						    (__u32)(magnet_current_ssthresh(&r) *
							    r.mss));
		else
			m = ref_format_ttprobe_with(tt_ref, &r, counter, 0,
						    (__u64)r.cwnd * r.mss,
						    (__u64)r.ssthresh * r.mss);
		counter++;
		CHECK(got == m && !memcmp(tt_new, tt_ref, (size_t)m + 1),
		      "stream (compat %d), record %ld, socket %d: new '%.*s' ref '%.*s'",
		      compat, i, k, got, tt_new, m, tt_ref);
	}
	CHECK(compat ? count.since_load == counter : st.lines + 1 == counter,
	      "stream (compat %d): counter at %llu", compat,
	      (unsigned long long)counter);
}

int main(void)
{
	struct magnet_record r;
	long i;
	int ev;

	tt_new = malloc(MAGNET_TTPROBE_LINE_MAX);
	tt_ref = malloc(MAGNET_TTPROBE_LINE_MAX);
	tx_new = malloc(MAGNET_TEXT_LINE_MAX);
	tx_ref = malloc(MAGNET_TEXT_LINE_MAX);
	w_new = malloc(MAGNET_WEB10G_LINE_MAX);
	w_ref = malloc(MAGNET_WEB10G_LINE_MAX);
	if (!tt_new || !tt_ref || !tx_new || !tx_ref || !w_new || !w_ref)
		return 2;
	srandom(20261123);

	for (ev = 0; ev <= MAGNET_EV_MAX + 1; ev++) {
		widest_record(&r, ev);
		compare(&r, ~0ULL, 0x7fffffffffffffffLL, ~0ULL, ~0ULL, ~0U);
		r.flags = 0;
		r.family = MAGNET_FAMILY_INET;
		compare(&r, 0, 0, 0, 0, 0);
	}
	/* the lines the widest record gives bound every line */
	CHECK(widest_tt == 256, "widest ttprobe line %d bytes", widest_tt);
	CHECK(widest_tt < MAGNET_TTPROBE_LINE_MAX, "ttprobe line fits");
	CHECK(widest_text == 1062 && widest_text < MAGNET_TEXT_LINE_MAX,
	      "widest text line %d",
	      widest_text);

	for (i = 0; i < RANDOM_RECORDS; i++) {
		random_record(&r);
		compare(&r, rnd64(), (__s64)rnd64() * (random() % 2 ? 1 : -1),
			rnd64(), rnd64(), (__u32)rnd64());
	}
	/* the TCP events through the real products, as the module formats */
	for (i = 0; i < RANDOM_RECORDS / 10; i++) {
		random_record(&r);
		r.event = random() % 2 ? MAGNET_EV_TCP_OUT : MAGNET_EV_TCP_IN;
		compare(&r, rnd64(), 0, (__u64)r.cwnd * r.mss,
			(__u32)(magnet_current_ssthresh(&r) * r.mss), 1);
	}

	stream(0, RANDOM_RECORDS);
	stream(1, RANDOM_RECORDS);

	printf("test_format: widest lines: ttprobe %d, text %d bytes\n",
	       widest_tt, widest_text);
	printf("test_format: %d passed, %d failed\n", passed, failed);
	free(tt_new);
	free(tt_ref);
	free(tx_new);
	free(tx_ref);
	free(w_new);
	free(w_ref);
	return failed ? 1 : 0;
}
