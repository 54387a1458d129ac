/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Format version 3 (record.h, docs/binary-format.md): the encoder, from a
 * version 2 record, and the decoder back to it. Plain C: the decoder
 * builds into the module (which decodes what its writers put in the rings
 * for every output but version 3 itself) and the userspace tools; the
 * encoder into the userspace tools, unit tests and fuzzer only (the
 * module's writers write version 3 directly, rec.c).
 *
 * A decoded record equals the version 2 record that was encoded, byte for
 * byte, for every record the module writes: fields a record's flags do not
 * name are zero in both. So every text format prints the same lines from
 * either version.
 */
#ifndef MAGNET_V3_H
#define MAGNET_V3_H

#include "shared.h"
#include "record.h"

/* a record's 16-byte header at @out (8-byte aligned) */
static __always_inline void magnet_v3_put_hdr(void *out, __u64 ts, __u16 cpu,
					      __u16 flow, __u8 event,
					      __u8 flags, __u16 len)
{
	struct magnet_v3_hdr *h = out;

	h->ts_ns = ts;
	h->cpu = cpu;
	h->flow = flow;
	h->event = event;
	h->flags = flags;
	h->len = len;
}

/* a LOST or RESET record (@event) at @out; returns its length */
static __always_inline unsigned int magnet_v3_put_count(void *out, __u64 ts,
							__u16 cpu, __u8 event,
							__u64 req, __s64 ret)
{
	struct magnet_v3_count *c = (void *)((char *)out + MAGNET_V3_HDR_SIZE);

	magnet_v3_put_hdr(out, ts, cpu, 0, event, 0, MAGNET_V3_COUNT_SIZE);
	c->req = req;
	c->ret = ret;
	return MAGNET_V3_COUNT_SIZE;
}

/* what both ends know of a flow id */
struct magnet_v3_slot {
	__u64 sock_id;
	__u16 cpu;			/* the scope of the id */
	__u16 lport;
	__u16 rport;
	__u8 family;
	__u8 used;
	char ca_name[MAGNET_CA_NAME_LEN];
	__u8 laddr[16];
	__u8 raddr[16];
	__u32 netns;			/* 0: unknown */
};

#ifndef __KERNEL__
/*
 * The writer's side: one slot per flow id, chosen by a hash of the flow
 * and the CPU; a flow that finds its slot taken by another takes it over
 * with a new FLOW record. 64 KiB: allocate it, not on a stack.
 */
struct magnet_v3_enc {
	struct magnet_v3_slot slot[MAGNET_V3_FLOW_IDS];
};

/* the most one magnet_v3_encode() writes: a FLOW record and a record */
#define MAGNET_V3_ENC_MAX (MAGNET_V3_FLOW_SIZE + MAGNET_V3_MAX_SIZE)

void magnet_v3_enc_init(struct magnet_v3_enc *e);

/*
 * Write @r (a version 2 record: sock_id already the id user space sees)
 * as version 3 into @out, which holds MAGNET_V3_ENC_MAX bytes and is 8-byte
 * aligned: first a FLOW record if @r's flow has no id on its CPU yet, or
 * its congestion control changed. Returns the bytes written, or 0 for a
 * record version 3 has no layout for (an unknown event, or flags naming
 * neither a TCP snapshot nor a packet header).
 */
unsigned int magnet_v3_encode(struct magnet_v3_enc *e,
			      const struct magnet_record *r, void *out);

#endif

/*
 * The reader's side: the flows of each CPU, allocated as CPUs appear
 * (64 KiB each), so its memory is bounded by the CPUs, not the log. The
 * module keeps one too (stream.c): the flows the records taken from the
 * rings so far define, with every CPU's table allocated at load.
 */
struct magnet_v3_dec {
	unsigned int ncpus;		/* userspace: 65536, any u16 cpu */
	struct magnet_v3_slot **tab;	/* [ncpus], each [MAGNET_V3_FLOW_IDS] */
	/*
	 * tab[ntab ..] are all NULL: userspace allocates a CPU's table at its
	 * first record, so freeing and RESET walk the CPUs seen, not 65536
	 * pointers (a free() of each cost ttpb2ascii's fuzzer 7x its speed
	 * under ASan, which unwinds the stack on every free, NULL or not)
	 */
	unsigned int ntab;
	/*
	 * The rate part of the event magnet_v3_decode() returned last, in
	 * the record it read (NULL: none), and that record's byte order:
	 * magnet_v3_rate() decodes it for an output that shows it, while
	 * the record is still there (a version 2 record has no room for
	 * it: its flags never have MAGNET_RF_RATE).
	 */
	const unsigned char *rate;
	int rate_swapped;
	/* the drop part of the DROP event decoded last, or NULL */
	const unsigned char *drop;
	/* the TCP event part of the TCP event decoded last, or NULL */
	const unsigned char *tcpev;
	/* the qdisc part of the QDISC event decoded last, or NULL */
	const unsigned char *qdisc;
	/* the limit part of the TCP_OUT, TCP_IN or TCP event decoded last,
	 * or NULL */
	const unsigned char *limit;
	/* the rcvbuf part of the RCVBUF event decoded last, or NULL */
	const unsigned char *rcvbuf;
	/* the rtoend part of the RTO_END event decoded last, or NULL */
	const unsigned char *rtoend;
	/*
	 * The log's TCP_OUT, TCP_IN and TCP event records carry the limit
	 * part (its features have MAGNET_V3_FEAT_LIMIT and this reader knows
	 * it: magnet_v3_dec_features())
	 */
	int has_limit;
	/*
	 * The TCP event part's bytes 3-7 are the RTO totals, not reserved
	 * (MAGNET_V3_FEAT_RTO_TOTALS, known to this reader)
	 */
	int has_rto_totals;
	/*
	 * The network namespace of the event magnet_v3_decode() returned
	 * last, from its flow (0: unknown, or a LOST or RESET record): a
	 * version 2 record has no room for it
	 */
	__u32 netns;
	/*
	 * Counts the records that changed the flow tables (FLOW, LOST,
	 * RESET): while it holds, a slot names the same flow, so a reader
	 * may key what it keeps of a flow on the slot (format.h's struct
	 * magnet_ttview)
	 */
	__u64 gen;
	/*
	 * Growing the format (record.h, MAGNET_V3_FEAT_*): @newer, the
	 * additions the log's header says it may use that this reader does
	 * not know (magnet_v3_dec_features(); v3.c's MAGNET_V3_KNOWN: all of
	 * them, unless built to know fewer). While @newer is 0 a record of a
	 * kind or length this reader does not know is invalid; else it is
	 * skipped (@skipped, its event code in @skipped_codes) or read as far
	 * as its layout goes (@longer).
	 */
	unsigned int newer;
	__u64 skipped;
	__u64 longer;
	__u8 skipped_codes[32];		/* a bit per event code */
	char err[160];			/* why the last call failed */
};

/* returns 0, or -1 (out of memory) */
#ifdef __KERNEL__
int magnet_v3_dec_init(struct magnet_v3_dec *d, unsigned int ncpus);
#else
int magnet_v3_dec_init(struct magnet_v3_dec *d);
#endif
void magnet_v3_dec_free(struct magnet_v3_dec *d);

/*
 * What the stream's header says its records may use (its `features`; 0:
 * written before the field, MAGNET_V3_FEATURES_UNSAID): sets d->newer and
 * d->has_limit.
 */
void magnet_v3_dec_features(struct magnet_v3_dec *d, __u32 features);

/*
 * The FLOW record of id @id (1 ..) of @cpu as @d knows it, stamped @ts,
 * into @out (MAGNET_V3_FLOW_SIZE bytes, 8-byte aligned); 0 if @d has no
 * such flow.
 */
unsigned int magnet_v3_dec_flow(const struct magnet_v3_dec *d,
				unsigned int cpu, unsigned int id, __u64 ts,
				void *out);

/*
 * The length a record's 16-byte header @hdr announces, or -1 if it cannot
 * be a record's (d->err says why). @swapped: the stream's byte order is the
 * other one (MAGNET_MAGIC_SWAPPED).
 */
int magnet_v3_record_len(struct magnet_v3_dec *d, const void *hdr,
			 int swapped);

/*
 * Decode the record of @len bytes at @buf (its header announced @len).
 * Returns 1 with the event in @out (its rate part, if it has one, for
 * magnet_v3_rate()), 0 for a FLOW record (taken into the flow table, nothing in
 * @out) or a record of a kind this reader does not know in a log newer than
 * it (skipped: d->skipped), -1 if the record is invalid (d->err).
 */
int magnet_v3_decode(struct magnet_v3_dec *d, const void *buf,
		     unsigned int len, int swapped, struct magnet_record *out);

/*
 * The flow of the record at @buf (@len bytes, this host's byte order) if it
 * is a TCP_OUT or TCP_IN event that magnet_v3_decode() would decode (its
 * length right, its flow defined on its CPU), else NULL: decode it then,
 * which takes what it says or tells why it is invalid. Reads @d only: the
 * module's ttprobe reader formats such records in place (format.h,
 * magnet_ttstream_format_v3).
 */
static __always_inline const struct magnet_v3_slot *
magnet_v3_tcp_flow(const struct magnet_v3_dec *d, const void *buf,
		   unsigned int len)
{
	const struct magnet_v3_hdr *h = buf;
	const struct magnet_v3_slot *s;

	/* a TCP event's layout: a TCP snapshot, never a packet header */
	if ((h->event != MAGNET_EV_TCP_OUT && h->event != MAGNET_EV_TCP_IN) ||
	    (h->flags & MAGNET_RF_HDR) ||
	    len != MAGNET_V3_TCP_SIZE +
		   (h->flags & MAGNET_RF_RATE ? MAGNET_V3_RATE_SIZE : 0) +
		   (d->has_limit ? (unsigned int)MAGNET_V3_LIMIT_SIZE : 0U) ||
	    h->len != len || h->cpu >= d->ntab || !d->tab[h->cpu] ||
	    h->flow < 1 || h->flow > MAGNET_V3_FLOW_IDS)
		return NULL;
	s = &d->tab[h->cpu][h->flow - 1];
	return s->used ? s : NULL;
}

/*
 * The rate part of the event magnet_v3_decode() returned last into @x,
 * from its record (which must not have changed since): 1, or 0 if it has
 * none. Apart from the decode, so an output that does not show it (every
 * one but the magnet text) does not pay for it.
 */
int magnet_v3_rate(const struct magnet_v3_dec *d, struct magnet_v3_rate *x);

/*
 * The drop part of the DROP event magnet_v3_decode() returned last (from
 * its record, which must not have changed since): 1, or 0 if that was no
 * DROP event. Its names end with a NUL (a full field is cut at 31 bytes).
 */
int magnet_v3_drop(const struct magnet_v3_dec *d, struct magnet_v3_drop *x);

/*
 * The TCP event part of the RETRANS, RTO, TLP, STATE or CA_STATE event
 * magnet_v3_decode() returned last (its record unchanged since): 1, or 0
 * if that was no such event. In a log whose features lack
 * MAGNET_V3_FEAT_RTO_TOTALS, rto_totals, total_rto and
 * total_rto_recoveries are 0 (reserved bytes there).
 */
int magnet_v3_tcpev(const struct magnet_v3_dec *d, struct magnet_v3_tcpev *x);

/*
 * The limit part of the TCP_OUT, TCP_IN, RETRANS, RTO, TLP or STATE event
 * magnet_v3_decode() returned last (its record unchanged since): 1, or 0
 * if it has none (another event, or a log without them).
 */
int magnet_v3_limit(const struct magnet_v3_dec *d, struct magnet_v3_limit *x);

/*
 * The rcvbuf part of the RCVBUF event magnet_v3_decode() returned last
 * (its record unchanged since): 1, or 0 if that was no RCVBUF event.
 */
int magnet_v3_rcvbuf(const struct magnet_v3_dec *d,
		     struct magnet_v3_rcvbuf *x);

/*
 * The rtoend part of the RTO_END event magnet_v3_decode() returned last
 * (its record unchanged since): 1, or 0 if that was no RTO_END event.
 */
int magnet_v3_rtoend(const struct magnet_v3_dec *d,
		     struct magnet_v3_rtoend *x);

/*
 * The qdisc part of the QDISC event magnet_v3_decode() returned last (its
 * record unchanged since): 1, or 0 if that was no QDISC event. Its kind
 * ends with a NUL (a full field is cut at 15 bytes).
 */
int magnet_v3_qdisc(const struct magnet_v3_dec *d, struct magnet_v3_qdisc *x);

#endif /* MAGNET_V3_H */
