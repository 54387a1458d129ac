// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Format version 3: encoder and decoder (v3.h).
 */
#include "v3.h"
#ifdef __KERNEL__
#include <linux/slab.h>
#include <linux/mm.h>
#define V3_FREE kvfree
#else
#include <stdlib.h>
#include <stdio.h>
#define V3_FREE free
#endif

/*
 * The layout of an event's record, by its type: TCP and app events carry
 * the TCP part (app events the call after it, and either the rate part
 * last when RF_RATE says so), IP and device events the packet part. The
 * flags only say which fields hold values, except that a packet record has
 * no room for a TCP snapshot or a rate part, and a record holds a TCP
 * snapshot or a packet header, not both.
 */
enum { V3_NONE, V3_TCP, V3_PKT };

static int v3_is_app(unsigned int event)
{
	return event == MAGNET_EV_APP_SEND || event == MAGNET_EV_APP_RECV;
}

static int v3_layout(unsigned int event, unsigned int flags)
{
	if ((flags & (MAGNET_RF_TCP | MAGNET_RF_HDR)) ==
	    (MAGNET_RF_TCP | MAGNET_RF_HDR))
		return V3_NONE;
	switch (event) {
	case MAGNET_EV_TCP_OUT:
	case MAGNET_EV_TCP_IN:
	case MAGNET_EV_APP_SEND:
	case MAGNET_EV_APP_RECV:
		return (flags & MAGNET_RF_HDR) ? V3_NONE : V3_TCP;
	case MAGNET_EV_IP_OUT:
	case MAGNET_EV_IP_IN:
	case MAGNET_EV_DEV_OUT:
	case MAGNET_EV_DEV_IN:
		return (flags & (MAGNET_RF_TCP | MAGNET_RF_RATE)) ? V3_NONE :
								    V3_PKT;
	}
	return V3_NONE;
}

/* a FLOW record's part from what both ends know of the flow */
static void v3_flow_part(struct magnet_v3_flow *f,
			 const struct magnet_v3_slot *s)
{
	f->sock_id = s->sock_id;
	f->lport = s->lport;
	f->rport = s->rport;
	f->family = s->family;
	memcpy(f->ca_name, s->ca_name, MAGNET_CA_NAME_LEN);
	memcpy(f->laddr, s->laddr, 16);
	memcpy(f->raddr, s->raddr, 16);
}

/* ---------------------------------------------------------- the writer */
#ifndef __KERNEL__

void magnet_v3_enc_init(struct magnet_v3_enc *e)
{
	memset(e, 0, sizeof(*e));
}

/* the flow of @r as both ends keep it (ca_name aside) */
static void v3_flow_of(struct magnet_v3_slot *s, const struct magnet_record *r,
		       __u64 sock)
{
	s->sock_id = sock;
	s->cpu = r->cpu;
	s->lport = r->lport;
	s->rport = r->rport;
	s->family = r->family;
	memcpy(s->laddr, r->laddr, 16);
	memcpy(s->raddr, r->raddr, 16);
}

/* @n bytes at @p as a word: a constant-size memcpy is a load, where the
 * kernel's memcmp() would loop byte by byte */
static __always_inline __u64 v3_word(const void *p)
{
	__u64 w;

	memcpy(&w, p, 8);
	return w;
}

static __always_inline int v3_same16(const __u8 *a, const __u8 *b)
{
	return !((v3_word(a) ^ v3_word(b)) | (v3_word(a + 8) ^ v3_word(b + 8)));
}

/* the 11 bytes of a congestion control name, as two overlapping words */
static __always_inline int v3_same_ca(const char *a, const char *b)
{
	__u32 x, y;

	memcpy(&x, a + 7, 4);
	memcpy(&y, b + 7, 4);
	return v3_word(a) == v3_word(b) && x == y;
}

/* @s holds the flow of @r, whose socket id as a flow has is @sock */
static __always_inline int v3_is_flow(const struct magnet_v3_slot *s,
				      const struct magnet_record *r, __u64 sock)
{
	return s->used && s->sock_id == sock && s->cpu == r->cpu &&
	       s->lport == r->lport && s->rport == r->rport &&
	       s->family == r->family && v3_same16(s->laddr, r->laddr) &&
	       v3_same16(s->raddr, r->raddr);
}
static __always_inline unsigned int v3_slot_of(const struct magnet_record *r,
					       __u64 sock)
{
	__u64 h = sock ^ ((__u64)r->lport << 48 | (__u64)r->rport << 32 |
			  (__u64)r->cpu << 16 | r->family);

	h ^= v3_word(r->laddr + 8) * 0x9e3779b97f4a7c15ULL;
	h ^= v3_word(r->raddr + 8) * 0xc2b2ae3d27d4eb4fULL;
	h = (h ^ v3_word(r->laddr)) * 0x9e3779b97f4a7c15ULL;
	h = (h ^ v3_word(r->raddr)) * 0xc2b2ae3d27d4eb4fULL;
	return (unsigned int)(h >> 54) & (MAGNET_V3_FLOW_IDS - 1);
}
static void v3_hdr(void *out, const struct magnet_record *r, __u16 flow,
		   __u8 event, __u8 flags, __u16 len)
{
	magnet_v3_put_hdr(out, r->ts_ns, r->cpu, flow, event, flags, len);
}

static unsigned int v3_put_flow(void *out, const struct magnet_record *r,
				const struct magnet_v3_slot *s, __u16 id)
{
	struct magnet_v3_flow *f = (void *)((char *)out + MAGNET_V3_HDR_SIZE);

	v3_hdr(out, r, id, MAGNET_V3_FLOW, 0, MAGNET_V3_FLOW_SIZE);
	v3_flow_part(f, s);
	return MAGNET_V3_FLOW_SIZE;
}

/* a LOST record ends the scope of its CPU's ids, a RESET every CPU's */
static void v3_forget(struct magnet_v3_enc *e, int all, __u16 cpu)
{
	unsigned int i;

	for (i = 0; i < MAGNET_V3_FLOW_IDS; i++)
		if (all || e->slot[i].cpu == cpu)
			e->slot[i].used = 0;
}

static void v3_put_tcp(struct magnet_v3_tcp *t, const struct magnet_record *r)
{
	t->len = r->len;
	t->mark = r->mark;
	t->seq = r->seq;
	t->end_seq = r->end_seq;
	t->state = r->state;
	t->ca_state = r->ca_state;
	t->wscale = r->wscale;
	t->opts = r->opts;
	t->advmss = r->advmss;
	t->reserved = 0;
	t->mss = r->mss;
	t->srtt_us = r->srtt_us;
	t->rttvar_us = r->rttvar_us;
	t->rto_us = r->rto_us;
	t->cwnd = r->cwnd;
	t->ssthresh = r->ssthresh;
	t->snd_wnd = r->snd_wnd;
	t->rcv_wnd = r->rcv_wnd;
	t->snd_una = r->snd_una;
	t->snd_nxt = r->snd_nxt;
	t->write_seq = r->write_seq;
	t->copied_seq = r->copied_seq;
	t->packets_out = r->packets_out;
	t->retrans_out = r->retrans_out;
	t->total_retrans = r->total_retrans;
	t->segs_out = r->segs_out;
	t->data_segs_out = r->data_segs_out;
	t->segs_in = r->segs_in;
	t->data_segs_in = r->data_segs_in;
	t->rcv_nxt = r->rcv_nxt;
	t->min_rtt_us = r->min_rtt_us;
	t->rtt_us = r->rtt_us;
	t->bytes_sent = r->bytes_sent;
	t->bytes_received = r->bytes_received;
	t->bytes_acked = r->bytes_acked;
	t->bytes_retrans = r->bytes_retrans;
}

unsigned int magnet_v3_encode(struct magnet_v3_enc *e,
			      const struct magnet_record *r, void *out)
{
	struct magnet_v3_slot *s;
	unsigned int n = 0, id, optlen = 0;
	__u64 sock;
	char *p;

	if (r->event == MAGNET_EV_LOST || r->event == MAGNET_EV_RESET) {
		v3_forget(e, r->event == MAGNET_EV_RESET, r->cpu);
		return magnet_v3_put_count(out, r->ts_ns, r->cpu,
					   (__u8)r->event, r->req, r->ret);
	}
	switch (v3_layout(r->event, r->flags)) {
	case V3_TCP:
		break;
	case V3_PKT:
		if (r->tcp_hlen > 20)
			optlen = r->tcp_hlen - 20U;
		if (optlen > MAGNET_TCP_OPTS_LEN)
			return 0;
		break;
	default:
		return 0;
	}

	sock = (r->flags & MAGNET_RF_SOCK) ? r->sock_id : 0;
	id = v3_slot_of(r, sock);
	s = &e->slot[id];
	if (!v3_is_flow(s, r, sock)) {
		v3_flow_of(s, r, sock);
		s->used = 1;
		memset(s->ca_name, 0, MAGNET_CA_NAME_LEN);
		if (r->flags & MAGNET_RF_TCP)
			memcpy(s->ca_name, r->ca_name, MAGNET_CA_NAME_LEN);
		n = v3_put_flow(out, r, s, (__u16)(id + 1));
	} else if ((r->flags & MAGNET_RF_TCP) &&
		   !v3_same_ca(s->ca_name, r->ca_name)) {
		memcpy(s->ca_name, r->ca_name, MAGNET_CA_NAME_LEN);
		n = v3_put_flow(out, r, s, (__u16)(id + 1));
	}
	p = (char *)out + n;

	if (v3_layout(r->event, r->flags) == V3_TCP) {
		int app = v3_is_app(r->event);
		unsigned int len = app ? MAGNET_V3_APP_SIZE : MAGNET_V3_TCP_SIZE;

		v3_hdr(p, r, (__u16)(id + 1), (__u8)r->event, r->flags,
		       (__u16)len);
		v3_put_tcp((void *)(p + MAGNET_V3_HDR_SIZE), r);
		if (app) {
			struct magnet_v3_app *a =
				(void *)(p + MAGNET_V3_TCP_SIZE);

			a->pid = r->pid;
			a->reserved = 0;
			a->req = r->req;
			a->ret = r->ret;
			memcpy(a->comm, r->comm, MAGNET_COMM_LEN);
		}
		return n + len;
	} else {
		struct magnet_v3_pkt *k3 = (void *)(p + MAGNET_V3_HDR_SIZE);
		unsigned int len = MAGNET_V3_PKT_SIZE + ((optlen + 7) & ~7U);

		v3_hdr(p, r, (__u16)(id + 1), (__u8)r->event, r->flags,
		       (__u16)len);
		k3->len = r->len;
		k3->mark = r->mark;
		k3->seq = r->seq;
		k3->end_seq = r->end_seq;
		k3->ifindex = r->ifindex;
		k3->tcp_ack = r->tcp_ack;
		k3->ip_id = r->ip_id;
		k3->tcp_win = r->tcp_win;
		k3->ip_hlen = r->ip_hlen;
		k3->ip_frag = r->ip_frag;
		k3->state = r->state;
		k3->ip_tos = r->ip_tos;
		k3->ip_ttl = r->ip_ttl;
		k3->ip_proto = r->ip_proto;
		k3->tcp_flags = r->tcp_flags;
		k3->tcp_hlen = r->tcp_hlen;
		k3->reserved[0] = 0;
		k3->reserved[1] = 0;
		/* the options, then zeros to the 8-byte boundary */
		if (optlen) {
			memset(p + len - 8, 0, 8);
			memcpy(p + MAGNET_V3_PKT_SIZE, r->tcp_opts, optlen);
		}
		return n + len;
	}
}


#endif /* !__KERNEL__ */

/* ---------------------------------------------------------- the reader */
#ifdef __KERNEL__
/* every table now: the reader must not fail for memory in the middle */
int magnet_v3_dec_init(struct magnet_v3_dec *d, unsigned int ncpus)
{
	unsigned int i;

	memset(d, 0, sizeof(*d));
	d->ncpus = ncpus;
	d->tab = kvcalloc(ncpus, sizeof(*d->tab), GFP_KERNEL);
	if (!d->tab)
		return -1;
	d->ntab = ncpus;
	for (i = 0; i < ncpus; i++) {
		d->tab[i] = kvcalloc(MAGNET_V3_FLOW_IDS, sizeof(**d->tab),
				     GFP_KERNEL);
		if (!d->tab[i]) {
			magnet_v3_dec_free(d);
			return -1;
		}
	}
	return 0;
}

static struct magnet_v3_slot *v3_table(struct magnet_v3_dec *d,
				       unsigned int cpu)
{
	if (cpu >= d->ncpus) {
		snprintf(d->err, sizeof(d->err), "cpu %u of %u", cpu, d->ncpus);
		return NULL;
	}
	return d->tab[cpu];
}
#else
int magnet_v3_dec_init(struct magnet_v3_dec *d)
{
	memset(d, 0, sizeof(*d));
	/* any u16 cpu: 512 KiB of pointers, untouched pages stay unmapped */
	d->ncpus = 1U << 16;
	d->tab = calloc(d->ncpus, sizeof(*d->tab));
	return d->tab ? 0 : -1;
}

static struct magnet_v3_slot *v3_table(struct magnet_v3_dec *d,
				       unsigned int cpu)
{
	if (!d->tab[cpu]) {
		d->tab[cpu] = calloc(MAGNET_V3_FLOW_IDS, sizeof(**d->tab));
		if (!d->tab[cpu])
			snprintf(d->err, sizeof(d->err), "out of memory");
		else if (cpu >= d->ntab)
			d->ntab = cpu + 1;
	}
	return d->tab[cpu];
}
#endif

void magnet_v3_dec_free(struct magnet_v3_dec *d)
{
	unsigned int i;

	if (d->tab)
		for (i = 0; i < d->ntab; i++)
			V3_FREE(d->tab[i]);
	V3_FREE(d->tab);
	d->tab = NULL;
	d->ntab = 0;
}

/*
 * The FLOW record of id @id (1 ..) of @cpu as @d knows it, stamped @ts,
 * into @out (MAGNET_V3_FLOW_SIZE bytes, 8-byte aligned); 0 if @d has no
 * such flow. A writer that hands on a stream from the middle says with
 * these what the ids of the records to come mean.
 */
unsigned int magnet_v3_dec_flow(const struct magnet_v3_dec *d,
				unsigned int cpu, unsigned int id, __u64 ts,
				void *out)
{
	struct magnet_v3_flow *f = (void *)((char *)out + MAGNET_V3_HDR_SIZE);
	const struct magnet_v3_slot *s;

	if (cpu >= d->ncpus || !d->tab[cpu] || id < 1 ||
	    id > MAGNET_V3_FLOW_IDS || !d->tab[cpu][id - 1].used)
		return 0;
	s = &d->tab[cpu][id - 1];
	magnet_v3_put_hdr(out, ts, (__u16)cpu, (__u16)id, MAGNET_V3_FLOW, 0,
			  MAGNET_V3_FLOW_SIZE);
	v3_flow_part(f, s);
	return MAGNET_V3_FLOW_SIZE;
}

static __always_inline __u16 g16(const unsigned char *b, unsigned int off,
				  int sw)
{
	__u16 v;

	memcpy(&v, b + off, 2);
	return sw ? __builtin_bswap16(v) : v;
}

static __always_inline __u32 g32(const unsigned char *b, unsigned int off,
				  int sw)
{
	__u32 v;

	memcpy(&v, b + off, 4);
	return sw ? __builtin_bswap32(v) : v;
}

static __always_inline __u64 g64(const unsigned char *b, unsigned int off,
				  int sw)
{
	__u64 v;

	memcpy(&v, b + off, 8);
	return sw ? __builtin_bswap64(v) : v;
}

/*
 * Zero the fields of @r from @first to @last, both included (through a
 * pointer into the record, not a field's: the write spans fields)
 */
#define V3_ZERO(r, first, last)						\
	memset((char *)(r) + offsetof(struct magnet_record, first), 0,	\
	       offsetof(struct magnet_record, last) + sizeof((r)->last) -	\
	       offsetof(struct magnet_record, first))

#define V3_OFF(type, field) ((unsigned int)offsetof(type, field) + \
			     MAGNET_V3_HDR_SIZE)

int magnet_v3_record_len(struct magnet_v3_dec *d, const void *hdr,
			 int swapped)
{
	unsigned int len = g16(hdr, offsetof(struct magnet_v3_hdr, len),
			       swapped);

	if (len < MAGNET_V3_COUNT_SIZE || len % 8 || len > MAGNET_V3_MAX_SIZE) {
		snprintf(d->err, sizeof(d->err),
			 "record length %u (version 3 records are %u to %u bytes, a multiple of 8)",
			 len, MAGNET_V3_COUNT_SIZE, MAGNET_V3_MAX_SIZE);
		return -1;
	}
	return (int)len;
}

static int v3_bad_len(struct magnet_v3_dec *d, unsigned int len,
		      unsigned int want, const char *what)
{
	snprintf(d->err, sizeof(d->err),
		 "a %s record of %u bytes (version 3 has %u)", what, len, want);
	return -1;
}

/*
 * Inlined twice, for each byte order, so that a record in the reader's own
 * order is read with plain loads and no test per field (the module decodes
 * every record it hands to an output other than version 3).
 */
static __always_inline int v3_decode(struct magnet_v3_dec *d, const void *buf,
				     unsigned int len, int sw,
				     struct magnet_record *r)
{
	const unsigned char *b = buf;
	struct magnet_v3_slot *tab, *s;
	unsigned int cpu = g16(b, offsetof(struct magnet_v3_hdr, cpu), sw);
	unsigned int flow = g16(b, offsetof(struct magnet_v3_hdr, flow), sw);
	unsigned int event = b[offsetof(struct magnet_v3_hdr, event)];
	unsigned int flags = b[offsetof(struct magnet_v3_hdr, flags)];
	unsigned int i, want;
	int layout;

	/* no rate part until a record that carries one is decoded */
	d->rate = NULL;
	if (event == MAGNET_EV_LOST || event == MAGNET_EV_RESET) {
		if (len != MAGNET_V3_COUNT_SIZE)
			return v3_bad_len(d, len, MAGNET_V3_COUNT_SIZE,
					  event == MAGNET_EV_LOST ? "LOST" :
								    "RESET");
		tab = v3_table(d, cpu);
		if (!tab)
			return -1;
		memset(r, 0, sizeof(*r));
		r->ts_ns = g64(b, 0, sw);
		r->cpu = (__u16)cpu;
		r->event = (__u16)event;
		r->req = g64(b, V3_OFF(struct magnet_v3_count, req), sw);
		r->ret = (__s64)g64(b, V3_OFF(struct magnet_v3_count, ret), sw);
		/* the ids this record ends the scope of */
		d->gen++;
		if (event == MAGNET_EV_LOST)
			memset(tab, 0, MAGNET_V3_FLOW_IDS * sizeof(*tab));
		else
			for (i = 0; i < d->ntab; i++)
				if (d->tab[i])
					memset(d->tab[i], 0, MAGNET_V3_FLOW_IDS *
					       sizeof(**d->tab));
		return 1;
	}
	if (event == MAGNET_V3_FLOW) {
		if (len != MAGNET_V3_FLOW_SIZE)
			return v3_bad_len(d, len, MAGNET_V3_FLOW_SIZE, "FLOW");
		if (flow < 1 || flow > MAGNET_V3_FLOW_IDS) {
			snprintf(d->err, sizeof(d->err),
				 "a FLOW record for flow id %u (ids are 1 to %u)",
				 flow, MAGNET_V3_FLOW_IDS);
			return -1;
		}
		tab = v3_table(d, cpu);
		if (!tab)
			return -1;
		s = &tab[flow - 1];
		d->gen++;
		s->sock_id = g64(b, V3_OFF(struct magnet_v3_flow, sock_id), sw);
		s->lport = g16(b, V3_OFF(struct magnet_v3_flow, lport), sw);
		s->rport = g16(b, V3_OFF(struct magnet_v3_flow, rport), sw);
		s->family = b[V3_OFF(struct magnet_v3_flow, family)];
		memcpy(s->ca_name, b + V3_OFF(struct magnet_v3_flow, ca_name),
		       MAGNET_CA_NAME_LEN);
		memcpy(s->laddr, b + V3_OFF(struct magnet_v3_flow, laddr), 16);
		memcpy(s->raddr, b + V3_OFF(struct magnet_v3_flow, raddr), 16);
		s->cpu = (__u16)cpu;
		s->used = 1;
		return 0;
	}
	if (event < MAGNET_EV_TCP_OUT || event > MAGNET_EV_DEV_IN) {
		snprintf(d->err, sizeof(d->err), "unknown event code %u",
			 event);
		return -1;
	}

	/* an event: its layout, by its type */
	layout = v3_layout(event, flags);
	if (layout == V3_TCP) {
		want = (v3_is_app(event) ? MAGNET_V3_APP_SIZE :
					   MAGNET_V3_TCP_SIZE) +
		       (flags & MAGNET_RF_RATE ? MAGNET_V3_RATE_SIZE : 0);
		if (len != want)
			return v3_bad_len(d, len, want,
					  v3_is_app(event) ?
					  (flags & MAGNET_RF_RATE ? "app+rate" : "app") :
					  (flags & MAGNET_RF_RATE ? "TCP+rate" : "TCP"));
	} else if (layout == V3_PKT) {
		unsigned int th = len >= MAGNET_V3_PKT_SIZE ?
				  b[V3_OFF(struct magnet_v3_pkt, tcp_hlen)] : 0;
		unsigned int optlen = th > 20 ? th - 20 : 0;

		if (optlen > MAGNET_TCP_OPTS_LEN) {
			snprintf(d->err, sizeof(d->err),
				 "a packet record with tcp_hlen %u (at most %u)",
				 th, 20 + MAGNET_TCP_OPTS_LEN);
			return -1;
		}
		want = MAGNET_V3_PKT_SIZE + ((optlen + 7) & ~7U);
		if (len != want)
			return v3_bad_len(d, len, want, "packet");
	} else {
		snprintf(d->err, sizeof(d->err),
			 "event %u with flags 0x%02x: a TCP snapshot and a packet header, or a TCP snapshot in a packet record",
			 event, flags);
		return -1;
	}
	tab = v3_table(d, cpu);
	if (!tab)
		return -1;
	if (flow < 1 || flow > MAGNET_V3_FLOW_IDS || !tab[flow - 1].used) {
		snprintf(d->err, sizeof(d->err),
			 "refers to flow %u of cpu %u, which no FLOW record defined since the last LOST or RESET",
			 flow, cpu);
		return -1;
	}
	s = &tab[flow - 1];

	/*
	 * Every byte of @r is written once: the fields this layout carries,
	 * and zeros for the rest (not a memset of the whole record first,
	 * which the module paid on every record it decoded). The unit tests
	 * decode into a poisoned record.
	 */
	r->ts_ns = g64(b, 0, sw);
	r->cpu = (__u16)cpu;
	r->event = (__u16)event;
	r->flags = (__u8)(flags & ~MAGNET_RF_RATE);
	r->sock_id = flags & MAGNET_RF_SOCK ? s->sock_id : 0;
	r->family = s->family;
	r->lport = s->lport;
	r->rport = s->rport;
	memcpy(r->laddr, s->laddr, 16);
	memcpy(r->raddr, s->raddr, 16);
	/* RF_TCP is a TCP or app event's, an app call an app event's */
	if (flags & MAGNET_RF_TCP)
		memcpy(r->ca_name, s->ca_name, MAGNET_CA_NAME_LEN);
	else
		memset(r->ca_name, 0, MAGNET_CA_NAME_LEN);
	if (!v3_is_app(event))
		V3_ZERO(r, pid, comm);

	if (layout == V3_TCP) {
#define T(f) V3_OFF(struct magnet_v3_tcp, f)
		r->len = g32(b, T(len), sw);
		r->mark = g32(b, T(mark), sw);
		r->seq = g32(b, T(seq), sw);
		r->end_seq = g32(b, T(end_seq), sw);
		r->state = b[T(state)];
		r->ca_state = b[T(ca_state)];
		r->wscale = b[T(wscale)];
		r->opts = b[T(opts)];
		r->advmss = g16(b, T(advmss), sw);
		r->mss = g32(b, T(mss), sw);
		r->srtt_us = g32(b, T(srtt_us), sw);
		r->rttvar_us = g32(b, T(rttvar_us), sw);
		r->rto_us = g32(b, T(rto_us), sw);
		r->cwnd = g32(b, T(cwnd), sw);
		r->ssthresh = g32(b, T(ssthresh), sw);
		r->snd_wnd = g32(b, T(snd_wnd), sw);
		r->rcv_wnd = g32(b, T(rcv_wnd), sw);
		r->snd_una = g32(b, T(snd_una), sw);
		r->snd_nxt = g32(b, T(snd_nxt), sw);
		r->write_seq = g32(b, T(write_seq), sw);
		r->copied_seq = g32(b, T(copied_seq), sw);
		r->packets_out = g32(b, T(packets_out), sw);
		r->retrans_out = g32(b, T(retrans_out), sw);
		r->total_retrans = g32(b, T(total_retrans), sw);
		r->segs_out = g32(b, T(segs_out), sw);
		r->data_segs_out = g32(b, T(data_segs_out), sw);
		r->segs_in = g32(b, T(segs_in), sw);
		r->data_segs_in = g32(b, T(data_segs_in), sw);
		r->rcv_nxt = g32(b, T(rcv_nxt), sw);
		r->min_rtt_us = g32(b, T(min_rtt_us), sw);
		r->rtt_us = g32(b, T(rtt_us), sw);
		r->bytes_sent = g64(b, T(bytes_sent), sw);
		r->bytes_received = g64(b, T(bytes_received), sw);
		r->bytes_acked = g64(b, T(bytes_acked), sw);
		r->bytes_retrans = g64(b, T(bytes_retrans), sw);
#undef T
		if (v3_is_app(event)) {
#define A(f) ((unsigned int)offsetof(struct magnet_v3_app, f) + \
	      MAGNET_V3_TCP_SIZE)
			r->pid = g32(b, A(pid), sw);
			r->req = g64(b, A(req), sw);
			r->ret = (__s64)g64(b, A(ret), sw);
			memcpy(r->comm, b + A(comm), MAGNET_COMM_LEN);
#undef A
		}
		if (flags & MAGNET_RF_RATE) {
			d->rate = b + len - MAGNET_V3_RATE_SIZE;
			d->rate_swapped = sw;
		}
		/* the packet fields of a record with a TCP snapshot */
		V3_ZERO(r, ifindex, ip_ttl);
		r->ip_proto = 0;
	} else {
		unsigned int th;

#define P(f) V3_OFF(struct magnet_v3_pkt, f)
		r->len = g32(b, P(len), sw);
		r->mark = g32(b, P(mark), sw);
		r->seq = g32(b, P(seq), sw);
		r->end_seq = g32(b, P(end_seq), sw);
		r->ifindex = g32(b, P(ifindex), sw);
		r->tcp_ack = g32(b, P(tcp_ack), sw);
		r->ip_id = g16(b, P(ip_id), sw);
		r->tcp_win = g16(b, P(tcp_win), sw);
		r->ip_hlen = g16(b, P(ip_hlen), sw);
		r->ip_frag = g16(b, P(ip_frag), sw);
		r->state = b[P(state)];
		r->ip_tos = b[P(ip_tos)];
		r->ip_ttl = b[P(ip_ttl)];
		r->ip_proto = b[P(ip_proto)];
		r->tcp_flags = b[P(tcp_flags)];
		r->tcp_hlen = b[P(tcp_hlen)];
#undef P
		th = r->tcp_hlen;
		V3_ZERO(r, tcp_opts, hdr_reserved);
		if (th > 20)
			memcpy(r->tcp_opts, b + MAGNET_V3_PKT_SIZE, th - 20);
		/* what only a TCP snapshot carries */
		r->ca_state = 0;
		V3_ZERO(r, segs_out, opts);
	}
	return 1;
}

int magnet_v3_rate(const struct magnet_v3_dec *d, struct magnet_v3_rate *x)
{
	const unsigned char *b = d->rate;
	int sw = d->rate_swapped;
	unsigned int i;

	if (!b)
		return 0;
#define X(f) ((unsigned int)offsetof(struct magnet_v3_rate, f))
	x->pacing_rate = g64(b, X(pacing_rate), sw);
	x->delivered = g32(b, X(delivered), sw);
	x->delivered_ce = g32(b, X(delivered_ce), sw);
	x->lost_out = g32(b, X(lost_out), sw);
	x->sacked_out = g32(b, X(sacked_out), sw);
	x->rate_delivered = g32(b, X(rate_delivered), sw);
	x->rate_interval_us = g32(b, X(rate_interval_us), sw);
	x->app_limited = b[X(app_limited)];
	x->cc_attr = b[X(cc_attr)];
	x->reserved = 0;
	for (i = 0; i < 5; i++)
		x->cc_info[i] = g32(b, X(cc_info) + 4 * i, sw);
#undef X
	return 1;
}

int magnet_v3_decode(struct magnet_v3_dec *d, const void *buf,
		     unsigned int len, int swapped, struct magnet_record *out)
{
	if (swapped)
		return v3_decode(d, buf, len, 1, out);
	return v3_decode(d, buf, len, 0, out);
}
