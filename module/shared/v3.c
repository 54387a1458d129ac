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
 * last when RF_RATE says so), IP and device events the packet part, DROP
 * events the packet part and the drop part last, TCP events (RETRANS, RTO,
 * TLP, STATE) the TCP part, the rate part and the TCP event part last
 * (version 3 only, always with the rate part), QDISC events the packet
 * part and the qdisc part last (version 3 only), RCVBUF and RTO_END
 * events the TCP part and their own part last (version 3 only). The
 * flags only say which fields hold values, except that a packet record has
 * no room for a TCP snapshot or a rate part, and a record holds a TCP
 * snapshot or a packet header, not both.
 */
enum { V3_NONE, V3_TCP, V3_PKT, V3_DROP, V3_TCPEV, V3_QDISC, V3_RCVBUF,
       V3_RTOEND };

/*
 * The additions to version 3 this reader knows (record.h): all of them,
 * unless built to know fewer (the compatibility test builds ttpb2ascii
 * with -DMAGNET_V3_KNOWN=0, a reader of the first layout), always the
 * first so many of them
 */
#ifndef MAGNET_V3_KNOWN
#define MAGNET_V3_KNOWN MAGNET_V3_FEATURES
#endif

/*
 * The addition an event code of 1 to MAGNET_EV_MAX needs, 0 for the first
 * layout's. Where the reader knows every addition (the module, ttpb2ascii)
 * its callers' test against MAGNET_V3_KNOWN folds away.
 */
static unsigned int v3_event_feature(unsigned int event)
{
	switch (event) {
	case MAGNET_EV_DROP_OUT:
	case MAGNET_EV_DROP_IN:
		return MAGNET_V3_FEAT_DROP;
	case MAGNET_EV_RETRANS:
	case MAGNET_EV_RTO:
	case MAGNET_EV_TLP:
	case MAGNET_EV_STATE:
		return MAGNET_V3_FEAT_TCPEV;
	case MAGNET_EV_CA_STATE:
		return MAGNET_V3_FEAT_CA_STATE;
	case MAGNET_EV_RCVBUF:
		return MAGNET_V3_FEAT_RCVBUF;
	case MAGNET_EV_RTO_END:
		return MAGNET_V3_FEAT_RTO_END;
	case MAGNET_EV_QDISC:
		return MAGNET_V3_FEAT_QDISC;
	case MAGNET_EV_QDISC_ENQ:
		return MAGNET_V3_FEAT_QDISC_ENQ;
	case MAGNET_EV_WIRE_OUT:
		return MAGNET_V3_FEAT_WIRE;
	}
	return 0;
}

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
	case MAGNET_EV_WIRE_OUT:
		return (flags & (MAGNET_RF_TCP | MAGNET_RF_RATE)) ? V3_NONE :
								    V3_PKT;
	case MAGNET_EV_DROP_OUT:
	case MAGNET_EV_DROP_IN:
		return (flags & (MAGNET_RF_TCP | MAGNET_RF_RATE)) ? V3_NONE :
								    V3_DROP;
	case MAGNET_EV_QDISC:
	case MAGNET_EV_QDISC_ENQ:
		return (flags & (MAGNET_RF_TCP | MAGNET_RF_RATE)) ? V3_NONE :
								    V3_QDISC;
	case MAGNET_EV_RETRANS:
	case MAGNET_EV_RTO:
	case MAGNET_EV_TLP:
	case MAGNET_EV_STATE:
	case MAGNET_EV_CA_STATE:
		return (flags & (MAGNET_RF_TCP | MAGNET_RF_RATE |
				 MAGNET_RF_HDR | MAGNET_RF_APP)) ==
		       (MAGNET_RF_TCP | MAGNET_RF_RATE) ? V3_TCPEV : V3_NONE;
	case MAGNET_EV_RCVBUF:
	case MAGNET_EV_RTO_END:
		/* the TCP part and the event's own part, no rate part */
		if ((flags & (MAGNET_RF_TCP | MAGNET_RF_RATE | MAGNET_RF_HDR |
			      MAGNET_RF_APP)) != MAGNET_RF_TCP)
			return V3_NONE;
		return event == MAGNET_EV_RCVBUF ? V3_RCVBUF : V3_RTOEND;
	}
	return V3_NONE;
}

/*
 * One entry of a part (schema.h) from @from to @to, both structs with a
 * field of its name, of one size (the names @to and @from must be in
 * scope): a field copied, a reserved one 0, one only version 3 has 0 (a
 * version 2 record has none to give).
 */
#define V3_SAME_SIZE(a, b) ((void)sizeof(char[sizeof(a) == sizeof(b) ? 1 : -1]))
#define V3_COPY(type, name, dims, kind) V3_COPY_##kind(name)
#define V3_COPY_F(name)							\
	V3_SAME_SIZE(to->name, from->name);				\
	memcpy(&to->name, &from->name, sizeof(to->name));
#define V3_COPY_V(name) memset(&to->name, 0, sizeof(to->name));
#define V3_COPY_R(name) V3_COPY_V(name)

/* a FLOW record's part from what both ends know of the flow */
static void v3_flow_part(struct magnet_v3_flow *to,
			 const struct magnet_v3_slot *from)
{
	MAGNET_V3_FLOW_PART(V3_COPY)
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
	s->netns = 0;	/* a version 2 record does not say */
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

static void v3_put_tcp(struct magnet_v3_tcp *to,
		       const struct magnet_record *from)
{
	MAGNET_V3_TCP_PART(V3_COPY)
}

static void v3_put_app(struct magnet_v3_app *to,
		       const struct magnet_record *from)
{
	MAGNET_V3_APP_PART(V3_COPY)
}

static void v3_put_pkt(struct magnet_v3_pkt *to,
		       const struct magnet_record *from)
{
	MAGNET_V3_PKT_PART(V3_COPY)
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
		if (app)
			v3_put_app((void *)(p + MAGNET_V3_TCP_SIZE), r);
		return n + len;
	} else {
		struct magnet_v3_pkt *k3 = (void *)(p + MAGNET_V3_HDR_SIZE);
		unsigned int len = MAGNET_V3_PKT_SIZE + ((optlen + 7) & ~7U);

		v3_hdr(p, r, (__u16)(id + 1), (__u8)r->event, r->flags,
		       (__u16)len);
		v3_put_pkt(k3, r);
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
 * @n bytes at @src into @dst, which are integers of @size bytes each (1: a
 * byte array), swapped if @sw. Constants all but @src and @dst: a load (a
 * bswap) and a store per integer.
 */
static __always_inline void v3_get(void *dst, const unsigned char *src,
				   unsigned int size, unsigned int n, int sw)
{
	unsigned char *d = dst;
	unsigned int i;

	if (size == 1 || !sw) {
		memcpy(d, src, n);
		return;
	}
	for (i = 0; i < n; i += size) {
		if (size == 2) {
			__u16 v = g16(src, i, 1);

			memcpy(d + i, &v, 2);
		} else if (size == 4) {
			__u32 v = g32(src, i, 1);

			memcpy(d + i, &v, 4);
		} else {
			__u64 v = g64(src, i, 1);

			memcpy(d + i, &v, 8);
		}
	}
}

/*
 * One entry of the part v3_part_t (a struct) at @b + @at into @to, a struct
 * with a field of its name and size, in @sw's byte order (the names must
 * be in scope): a field read, a reserved one left (V3_GET), or 0
 * (V3_GET_ALL, into the part's own struct, which has every entry, version
 * 3's only too)
 */
#define V3_GET(type, name, dims, kind) V3_GET_##kind(type, name)
#define V3_GET_F(type, name)						\
	V3_SAME_SIZE(to->name, ((v3_part_t *)0)->name);			\
	v3_get(&to->name, b + at + offsetof(v3_part_t, name), sizeof(type), \
	       sizeof(to->name), sw);
#define V3_GET_V(type, name)
#define V3_GET_R(type, name)
#define V3_GET_ALL(type, name, dims, kind) V3_GET_ALL_##kind(type, name)
#define V3_GET_ALL_F(type, name) V3_GET_F(type, name)
#define V3_GET_ALL_V(type, name) V3_GET_F(type, name)
#define V3_GET_ALL_R(type, name) memset(&to->name, 0, sizeof(to->name));

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

void magnet_v3_dec_features(struct magnet_v3_dec *d, __u32 features)
{
	d->newer = (features ? features : MAGNET_V3_FEATURES_UNSAID) &
		   ~MAGNET_V3_KNOWN;
	d->has_limit = !!(features & MAGNET_V3_KNOWN & MAGNET_V3_FEAT_LIMIT);
	d->has_rto_totals = !!(features & MAGNET_V3_KNOWN &
			       MAGNET_V3_FEAT_RTO_TOTALS);
}

int magnet_v3_record_len(struct magnet_v3_dec *d, const void *hdr,
			 int swapped)
{
	unsigned int len = g16(hdr, offsetof(struct magnet_v3_hdr, len),
			       swapped);
	/* a newer writer's records may be longer than any this one knows */
	unsigned int max = d->newer ? MAGNET_V3_LEN_LIMIT : MAGNET_V3_MAX_SIZE;

	if (len < MAGNET_V3_COUNT_SIZE || len % 8 || len > max) {
		snprintf(d->err, sizeof(d->err),
			 "record length %u (version 3 records are %u to %u bytes, a multiple of 8)",
			 len, MAGNET_V3_COUNT_SIZE, max);
		return -1;
	}
	return (int)len;
}

/*
 * A record of @len bytes whose layout, as this reader knows it, is @want:
 * 1 if it is to be read (as far as @want, the rest skipped, when it is
 * longer in a log newer than this reader: counted), else 0
 */
static int v3_len_ok(struct magnet_v3_dec *d, unsigned int len,
		     unsigned int want)
{
	if (len == want)
		return 1;
	if (len < want || !d->newer)
		return 0;
	d->longer++;
	return 1;
}

static int v3_bad_len(struct magnet_v3_dec *d, unsigned int len,
		      unsigned int want, const char *what)
{
	snprintf(d->err, sizeof(d->err),
		 "a %s record of %u bytes (version 3 has %u%s)", what, len,
		 want, d->newer ? " at least" : "");
	return -1;
}

/*
 * fn(to, b, sw): a part's entries from the record @b into @to (the names
 * V3_GET uses), each inlined in v3_decode() for its byte order. @part: the
 * part's struct; @at: its offset in the record; @list: its entries
 * (record.h); @get: V3_GET or V3_GET_ALL.
 */
#define V3_GETTER(fn, totype, part, at_, list, get)			\
static __always_inline void fn(totype *to, const unsigned char *b, int sw) \
{									\
	typedef part v3_part_t;						\
	const unsigned int at = (at_);					\
									\
	list(get)							\
}

V3_GETTER(v3_get_count, struct magnet_record, struct magnet_v3_count,
	  MAGNET_V3_HDR_SIZE, MAGNET_V3_COUNT_PART, V3_GET)
V3_GETTER(v3_get_flow, struct magnet_v3_slot, struct magnet_v3_flow,
	  MAGNET_V3_HDR_SIZE, MAGNET_V3_FLOW_PART, V3_GET)
V3_GETTER(v3_get_tcp, struct magnet_record, struct magnet_v3_tcp,
	  MAGNET_V3_HDR_SIZE, MAGNET_V3_TCP_PART, V3_GET)
V3_GETTER(v3_get_app, struct magnet_record, struct magnet_v3_app,
	  MAGNET_V3_TCP_SIZE, MAGNET_V3_APP_PART, V3_GET)
V3_GETTER(v3_get_pkt, struct magnet_record, struct magnet_v3_pkt,
	  MAGNET_V3_HDR_SIZE, MAGNET_V3_PKT_PART, V3_GET)
/* the drop part, at @b, into its own struct */
V3_GETTER(v3_get_drop, struct magnet_v3_drop, struct magnet_v3_drop,
	  0, MAGNET_V3_DROP_PART, V3_GET_ALL)
/* the qdisc part, at @b, into its own struct */
V3_GETTER(v3_get_qdisc, struct magnet_v3_qdisc, struct magnet_v3_qdisc,
	  0, MAGNET_V3_QDISC_PART, V3_GET_ALL)
/* the TCP event part, at @b, into its own struct */
V3_GETTER(v3_get_tcpev, struct magnet_v3_tcpev, struct magnet_v3_tcpev,
	  0, MAGNET_V3_TCPEV_PART, V3_GET_ALL)
/* the limit part, at @b, into its own struct */
V3_GETTER(v3_get_limit, struct magnet_v3_limit, struct magnet_v3_limit,
	  0, MAGNET_V3_LIMIT_PART, V3_GET_ALL)
/* the rcvbuf part, at @b, into its own struct */
V3_GETTER(v3_get_rcvbuf, struct magnet_v3_rcvbuf, struct magnet_v3_rcvbuf,
	  0, MAGNET_V3_RCVBUF_PART, V3_GET_ALL)
/* the rtoend part, at @b, into its own struct */
V3_GETTER(v3_get_rtoend, struct magnet_v3_rtoend, struct magnet_v3_rtoend,
	  0, MAGNET_V3_RTOEND_PART, V3_GET_ALL)
/* the rate part, at @b, into its own struct */
V3_GETTER(v3_get_rate, struct magnet_v3_rate, struct magnet_v3_rate,
	  0, MAGNET_V3_RATE_PART, V3_GET_ALL)

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
	unsigned int i, want, base = 0, part = 0, lim = 0;
	int layout;

	/* no rate part until a record that carries one is decoded */
	d->rate = NULL;
	d->drop = NULL;
	d->tcpev = NULL;
	d->qdisc = NULL;
	d->limit = NULL;
	d->rcvbuf = NULL;
	d->rtoend = NULL;
	d->netns = 0;
	if (event == MAGNET_EV_LOST || event == MAGNET_EV_RESET) {
		if (!v3_len_ok(d, len, MAGNET_V3_COUNT_SIZE))
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
		v3_get_count(r, b, sw);
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
		/* 8-byte aligned, as every record the decoder reads */
		__u64 old[MAGNET_V3_FLOW_SIZE / 8];
		/* the FLOW record this reader knows: 80 bytes, or 72 (a
		 * reader from before netns); a 72-byte one is also a writer's
		 * from before netns */
		unsigned int flen = MAGNET_V3_KNOWN & MAGNET_V3_FEAT_NETNS ?
				    MAGNET_V3_FLOW_SIZE : MAGNET_V3_FLOW_SIZE_0;

		if (len == MAGNET_V3_FLOW_SIZE_0) {
			flen = len;
		} else if (!v3_len_ok(d, len, flen)) {
			return v3_bad_len(d, len, flen, "FLOW");
		}
		if (flen == MAGNET_V3_FLOW_SIZE_0) {
			/* without netns: it reads as 0 (unknown) */
			memcpy(old, b, MAGNET_V3_FLOW_SIZE_0);
			memset((char *)old + MAGNET_V3_FLOW_SIZE_0, 0,
			       MAGNET_V3_FLOW_SIZE - MAGNET_V3_FLOW_SIZE_0);
			b = (const unsigned char *)old;
		}
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
		v3_get_flow(s, b, sw);
		s->cpu = (__u16)cpu;
		s->used = 1;
		return 0;
	}
	if (event < MAGNET_EV_TCP_OUT || event > MAGNET_EV_MAX ||
	    (v3_event_feature(event) & ~MAGNET_V3_KNOWN)) {
		/* a kind a newer writer added: skipped by its length */
		if (event && d->newer) {
			d->skipped++;
			d->skipped_codes[event / 8] |= (__u8)(1U << (event % 8));
			return 0;
		}
		snprintf(d->err, sizeof(d->err), "unknown event code %u",
			 event);
		return -1;
	}
	/* a reader before the rate part reads RF_RATE as a flag it does not
	 * know: the part is bytes after the layout it knows */
	if (!(MAGNET_V3_KNOWN & MAGNET_V3_FEAT_RATE))
		flags &= ~MAGNET_RF_RATE;

	/* an event: its layout, by its type */
	layout = v3_layout(event, flags);
	if (layout == V3_TCP) {
		base = v3_is_app(event) ? MAGNET_V3_APP_SIZE :
					  MAGNET_V3_TCP_SIZE;
		want = base + (flags & MAGNET_RF_RATE ? MAGNET_V3_RATE_SIZE : 0);
		/* a segment's record: the limit part last, in a log with it */
		if (d->has_limit && !v3_is_app(event)) {
			lim = want;
			want += MAGNET_V3_LIMIT_SIZE;
		}
		if (!v3_len_ok(d, len, want))
			return v3_bad_len(d, len, want,
					  v3_is_app(event) ?
					  (flags & MAGNET_RF_RATE ? "app+rate" : "app") :
					  (flags & MAGNET_RF_RATE ? "TCP+rate" : "TCP"));
	} else if (layout == V3_TCPEV) {
		base = MAGNET_V3_TCP_SIZE;
		want = MAGNET_V3_TCP_SIZE + MAGNET_V3_RATE_SIZE +
		       MAGNET_V3_TCPEV_SIZE;
		if (d->has_limit) {
			lim = want;
			want += MAGNET_V3_LIMIT_SIZE;
		}
		if (!v3_len_ok(d, len, want))
			return v3_bad_len(d, len, want, "TCP event");
	} else if (layout == V3_RCVBUF) {
		base = MAGNET_V3_TCP_SIZE;
		want = MAGNET_V3_TCP_SIZE + MAGNET_V3_RCVBUF_SIZE;
		if (!v3_len_ok(d, len, want))
			return v3_bad_len(d, len, want, "rcvbuf");
	} else if (layout == V3_RTOEND) {
		base = MAGNET_V3_TCP_SIZE;
		want = MAGNET_V3_TCP_SIZE + MAGNET_V3_RTOEND_SIZE;
		if (!v3_len_ok(d, len, want))
			return v3_bad_len(d, len, want, "rto_end");
	} else if (layout == V3_PKT || layout == V3_DROP ||
		   layout == V3_QDISC) {
		unsigned int th = len >= MAGNET_V3_PKT_SIZE ?
				  b[V3_OFF(struct magnet_v3_pkt, tcp_hlen)] : 0;
		unsigned int optlen = th > 20 ? th - 20 : 0;

		if (optlen > MAGNET_TCP_OPTS_LEN) {
			snprintf(d->err, sizeof(d->err),
				 "a packet record with tcp_hlen %u (at most %u)",
				 th, 20 + MAGNET_TCP_OPTS_LEN);
			return -1;
		}
		/* where the drop or qdisc part begins */
		part = MAGNET_V3_PKT_SIZE + ((optlen + 7) & ~7U);
		want = part +
		       (layout == V3_DROP ? MAGNET_V3_DROP_SIZE :
			layout == V3_QDISC ? MAGNET_V3_QDISC_SIZE : 0);
		if (!v3_len_ok(d, len, want))
			return v3_bad_len(d, len, want, layout == V3_DROP ?
					  "drop" : layout == V3_QDISC ?
					  "qdisc" : "packet");
	} else {
		snprintf(d->err, sizeof(d->err),
			 "event %u with flags 0x%02x: a TCP snapshot and a packet header, a TCP snapshot in a packet record, or an event without the parts its kind has",
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
	d->netns = s->netns;

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

	if (layout == V3_TCP || layout == V3_TCPEV || layout == V3_RCVBUF ||
	    layout == V3_RTOEND) {
		v3_get_tcp(r, b, sw);
		if (v3_is_app(event))
			v3_get_app(r, b, sw);
		/* each part where the layout puts it: a longer record's
		 * bytes beyond it are a newer writer's */
		if (layout == V3_TCPEV) {
			d->rate = b + base;
			d->tcpev = b + base + MAGNET_V3_RATE_SIZE;
			d->rate_swapped = sw;
		} else if (layout == V3_RCVBUF) {
			d->rcvbuf = b + base;
			d->rate_swapped = sw;
		} else if (layout == V3_RTOEND) {
			d->rtoend = b + base;
			d->rate_swapped = sw;
		} else if (flags & MAGNET_RF_RATE) {
			d->rate = b + base;
			d->rate_swapped = sw;
		}
		if (lim) {
			d->limit = b + lim;
			d->rate_swapped = sw;
		}
		/* the packet fields of a record with a TCP snapshot */
		V3_ZERO(r, ifindex, ip_ttl);
		r->ip_proto = 0;
	} else {
		unsigned int th;

		v3_get_pkt(r, b, sw);
		th = r->tcp_hlen;
		V3_ZERO(r, tcp_opts, hdr_reserved);
		if (th > 20)
			memcpy(r->tcp_opts, b + MAGNET_V3_PKT_SIZE, th - 20);
		/* what only a TCP snapshot carries */
		r->ca_state = 0;
		V3_ZERO(r, segs_out, opts);
		if (layout == V3_DROP) {
			d->drop = b + part;
			d->rate_swapped = sw;
		} else if (layout == V3_QDISC) {
			d->qdisc = b + part;
			d->rate_swapped = sw;
		}
	}
	return 1;
}

int magnet_v3_drop(const struct magnet_v3_dec *d, struct magnet_v3_drop *x)
{
	if (!d->drop)
		return 0;
	v3_get_drop(x, d->drop, d->rate_swapped);
	/* a full field from a writer that did not end it */
	x->reason_name[sizeof(x->reason_name) - 1] = 0;
	x->where[sizeof(x->where) - 1] = 0;
	return 1;
}

int magnet_v3_qdisc(const struct magnet_v3_dec *d, struct magnet_v3_qdisc *x)
{
	if (!d->qdisc)
		return 0;
	v3_get_qdisc(x, d->qdisc, d->rate_swapped);
	/* a full name from a writer that did not end it */
	x->kind[sizeof(x->kind) - 1] = 0;
	return 1;
}

int magnet_v3_tcpev(const struct magnet_v3_dec *d, struct magnet_v3_tcpev *x)
{
	if (!d->tcpev)
		return 0;
	v3_get_tcpev(x, d->tcpev, d->rate_swapped);
	if (!d->has_rto_totals) {
		x->rto_totals = 0;
		x->total_rto = 0;
		x->total_rto_recoveries = 0;
	}
	return 1;
}

int magnet_v3_rate(const struct magnet_v3_dec *d, struct magnet_v3_rate *x)
{
	const unsigned char *b = d->rate;
	int sw = d->rate_swapped;

	if (!b)
		return 0;
	v3_get_rate(x, b, sw);
	return 1;
}

int magnet_v3_limit(const struct magnet_v3_dec *d, struct magnet_v3_limit *x)
{
	if (!d->limit)
		return 0;
	v3_get_limit(x, d->limit, d->rate_swapped);
	return 1;
}

int magnet_v3_rcvbuf(const struct magnet_v3_dec *d,
		     struct magnet_v3_rcvbuf *x)
{
	if (!d->rcvbuf)
		return 0;
	v3_get_rcvbuf(x, d->rcvbuf, d->rate_swapped);
	return 1;
}

int magnet_v3_rtoend(const struct magnet_v3_dec *d,
		     struct magnet_v3_rtoend *x)
{
	if (!d->rtoend)
		return 0;
	v3_get_rtoend(x, d->rtoend, d->rate_swapped);
	return 1;
}

int magnet_v3_decode(struct magnet_v3_dec *d, const void *buf,
		     unsigned int len, int swapped, struct magnet_record *out)
{
	if (swapped)
		return v3_decode(d, buf, len, 1, out);
	return v3_decode(d, buf, len, 0, out);
}
