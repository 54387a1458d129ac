// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ttprobe ASCII, magnet text and web10g formatting. This file compiles into
 * the kernel module and into the userspace tools, so both produce
 * byte-identical lines. Kernel rules apply: no allocation, no floating
 * point, small stack frames.
 */
#include "format.h"
#include "emit.h"
#include "v3.h"

/* the address as the formats spell it, at @p; returns the end */
static char *magnet_put_addr(char *p, __u8 family, const __u8 addr[16])
{
	if (family == MAGNET_FAMILY_INET)
		return magnet_put_ipv4(p, addr);
	return magnet_put_ipv6(p, addr);
}

static const char *const magnet_event_names[MAGNET_EV_MAX + 1] = {
	[MAGNET_EV_TCP_OUT] = "tcp_out",
	[MAGNET_EV_TCP_IN] = "tcp_in",
	[MAGNET_EV_APP_SEND] = "app_send",
	[MAGNET_EV_APP_RECV] = "app_recv",
	[MAGNET_EV_IP_OUT] = "ip_out",
	[MAGNET_EV_IP_IN] = "ip_in",
	[MAGNET_EV_DEV_OUT] = "dev_out",
	[MAGNET_EV_DEV_IN] = "dev_in",
	[MAGNET_EV_LOST] = "lost",
	[MAGNET_EV_RESET] = "reset",
	[MAGNET_EV_DROP_OUT] = "drop_out",
	[MAGNET_EV_DROP_IN] = "drop_in",
	[MAGNET_EV_RETRANS] = "retrans",
	[MAGNET_EV_RTO] = "rto",
	[MAGNET_EV_TLP] = "tlp",
	[MAGNET_EV_STATE] = "state",
	[MAGNET_EV_QDISC] = "qdisc",
	[MAGNET_EV_QDISC_ENQ] = "qdisc_enq",
};

/* struct magnet_v3_tcpev's kind: of a RETRANS event, of a TLP event */
static const char *const magnet_kinds[2][4] = {
	{ [MAGNET_RETRANS_RTO] = "rto", [MAGNET_RETRANS_FAST] = "fast",
	  [MAGNET_RETRANS_TLP] = "tlp" },
	{ [MAGNET_TLP_NONE] = "none", [MAGNET_TLP_NEW] = "new",
	  [MAGNET_TLP_RETRANS] = "retrans" },
};

/* one 64-bit word into the flow key: multiply, fold the high bits down */
static __u64 magnet_mix(__u64 h, __u64 v)
{
	h = (h ^ v) * 0x9e3779b97f4a7c15ULL;
	return h ^ (h >> 29);
}

/* word by word: a byte-wise hash cost a web10g line 214 instructions */
__u32 magnet_flow_key(const struct magnet_record *r)
{
	__u64 a[4], h;

	memcpy(a, r->laddr, 16);
	memcpy(a + 2, r->raddr, 16);
	h = magnet_mix(0x6a09e667f3bcc908ULL, (__u64)r->family << 32 |
		       (__u32)r->lport << 16 | r->rport);
	h = magnet_mix(h, a[0]);
	h = magnet_mix(h, a[1]);
	h = magnet_mix(h, a[2]);
	h = magnet_mix(h, a[3]);
	return (__u32)(h ^ (h >> 32));
}

const char *magnet_event_name(unsigned int event)
{
	if (event == 0 || event > MAGNET_EV_MAX)
		return NULL;
	return magnet_event_names[event];
}

/* the wall clock's seconds of timestamp @ts_ns, and the nanoseconds */
static __u64 magnet_wall(__u64 ts_ns, __s64 offset, __u32 *rem_ns)
{
	return magnet_div_u64_rem(ts_ns + (__u64)offset, 1000000000U, rem_ns);
}

/* fields 3-6: "laddr,lport,raddr,rport" */
static char *magnet_put_tuple(char *p, const struct magnet_ttview *v)
{
	p = magnet_put_addr(p, v->family, v->laddr);
	*p++ = ',';
	p = magnet_put_u32(p, v->lport);
	*p++ = ',';
	p = magnet_put_addr(p, v->family, v->raddr);
	*p++ = ',';
	return magnet_put_u32(p, v->rport);
}

/* two 16-byte addresses are equal: word compares (the kernel's memcmp
 * goes byte by byte) */
static int magnet_eq16(const __u8 *a, const __u8 *b)
{
	__u64 a0, a1, b0, b1;

	memcpy(&a0, a, 8);
	memcpy(&a1, a + 8, 8);
	memcpy(&b0, b, 8);
	memcpy(&b1, b + 8, 8);
	return !((a0 ^ b0) | (a1 ^ b1));
}

/* 8 bytes from @s to @d, unaligned */
static __always_inline void magnet_copy8(char *d, const char *s)
{
	__u64 w;

	memcpy(&w, s, 8);
	memcpy(d, &w, 8);
}

/*
 * The cached text @txt (@n bytes, of an array of MAGNET_TTCACHE_TXT) at
 * @p, in 48-byte pieces of whole words, not a memcpy() of @n (the kernel's
 * is a call): up to 47 bytes past the text's end are written too, which
 * the fields after it write over, or lie past the line's end, inside the
 * buffer: the last text copied so (fields 8-14) starts at most 143 bytes
 * in, so nothing is written past byte 239 of MAGNET_TTPROBE_LINE_MAX (320).
 */
static __always_inline char *magnet_put_cached(char *p, const char *txt,
					       unsigned int n)
{
	magnet_copy8(p, txt);
	magnet_copy8(p + 8, txt + 8);
	magnet_copy8(p + 16, txt + 16);
	magnet_copy8(p + 24, txt + 24);
	magnet_copy8(p + 32, txt + 32);
	magnet_copy8(p + 40, txt + 40);
	if (n > 48) {
		magnet_copy8(p + 48, txt + 48);
		magnet_copy8(p + 56, txt + 56);
		magnet_copy8(p + 64, txt + 64);
		magnet_copy8(p + 72, txt + 72);
		magnet_copy8(p + 80, txt + 80);
		magnet_copy8(p + 88, txt + 88);
	}
	return p + n;
}

/*
 * Fields 3-6 from @c when one of its tuples is @v's, else written there;
 * the tuple in *@tp. A view with a key finds its tuple by the key while
 * the generation holds; otherwise, or when it changed, by comparing the
 * fields, and a tuple found so takes the view's key.
 */
static __always_inline char *
magnet_put_tuple_cached(char *p, const struct magnet_ttview *v,
			struct magnet_ttcache *c, struct magnet_tttuple **tp)
{
	struct magnet_tttuple *t;
	char *end;
	int i;

	if (v->key)
		for (i = 0; i < MAGNET_TTCACHE_TUPLES; i++) {
			t = &c->tuple[i];
			if (t->key == v->key && t->gen == v->gen && t->len) {
				*tp = t;
				return magnet_put_cached(p, t->txt, t->len);
			}
		}
	for (i = 0; i < MAGNET_TTCACHE_TUPLES; i++) {
		t = &c->tuple[i];
		if (t->len && t->lport == v->lport && t->rport == v->rport &&
		    t->family == v->family && magnet_eq16(t->laddr, v->laddr) &&
		    magnet_eq16(t->raddr, v->raddr)) {
			t->key = v->key;
			t->gen = v->gen;
			*tp = t;
			return magnet_put_cached(p, t->txt, t->len);
		}
	}
	end = magnet_put_tuple(p, v);
	t = &c->tuple[c->next];
	c->next = (__u8)((c->next + 1) % MAGNET_TTCACHE_TUPLES);
	t->family = v->family;
	t->lport = v->lport;
	t->rport = v->rport;
	memcpy(t->laddr, v->laddr, 16);
	memcpy(t->raddr, v->raddr, 16);
	t->key = v->key;
	t->gen = v->gen;
	t->len = (__u8)(end - p);
	memcpy(t->txt, p, t->len);
	*tp = t;
	return end;
}

/* the timestamp's seconds, from @c when they did not change */
static __always_inline char *magnet_put_sec_cached(char *p, __u64 sec,
						   struct magnet_ttcache *c)
{
	char *end;

	if (c->sec_len && c->sec == sec) {
		/* at most 20 bytes, in 3 words: ".uuuuuu," follows */
		magnet_copy8(p, c->sec_txt);
		magnet_copy8(p + 8, c->sec_txt + 8);
		magnet_copy8(p + 16, c->sec_txt + 16);
		return p + c->sec_len;
	}
	end = magnet_put_u64(p, sec);
	c->sec = sec;
	c->sec_len = (__u8)(end - p);
	memcpy(c->sec_txt, p, c->sec_len);
	return end;
}

/* fields 8-14, "mss,srtt,cwnd,ssthresh,snd_wnd,rcv_wnd,state," */
static __always_inline char *magnet_put_mid(char *p,
					    const struct magnet_ttview *v,
					    __u64 cwnd_bytes,
					    __u64 ssthresh_bytes)
{
	p = magnet_put_u32(p, v->mss);
	*p++ = ',';
	p = magnet_put_u32(p, v->srtt_us);
	*p++ = ',';
	p = magnet_put_u64(p, cwnd_bytes);
	*p++ = ',';
	p = magnet_put_u64(p, ssthresh_bytes);
	*p++ = ',';
	p = magnet_put_u32(p, v->snd_wnd);
	*p++ = ',';
	p = magnet_put_u32(p, v->rcv_wnd);
	*p++ = ',';
	p = magnet_put_u32(p, v->state);
	*p++ = ',';
	return p;
}

/*
 * The same from the socket's tuple @t when its last line had the same
 * values: in a bulk transfer they change on about one line in five (the
 * smoothed RTT, the windows), the sequence numbers after them on every one.
 */
static __always_inline char *magnet_put_mid_cached(char *p,
						   const struct magnet_ttview *v,
						   __u64 cwnd_bytes,
						   __u64 ssthresh_bytes,
						   struct magnet_tttuple *t)
{
	__u64 k0 = v->mss | (__u64)v->srtt_us << 32;
	__u64 k3 = v->snd_wnd | (__u64)v->rcv_wnd << 32;
	char *end;

	if (t->mid_len &&
	    !((t->mid[0] ^ k0) | (t->mid[1] ^ cwnd_bytes) |
	      (t->mid[2] ^ ssthresh_bytes) | (t->mid[3] ^ k3) |
	      (t->mid[4] ^ v->state)))
		return magnet_put_cached(p, t->mid_txt, t->mid_len);
	end = magnet_put_mid(p, v, cwnd_bytes, ssthresh_bytes);
	t->mid[0] = k0;
	t->mid[1] = cwnd_bytes;
	t->mid[2] = ssthresh_bytes;
	t->mid[3] = k3;
	t->mid[4] = v->state;
	t->mid_len = (__u8)(end - p);
	memcpy(t->mid_txt, p, t->mid_len);
	return end;
}

/* the view of a version 2 record: no key */
static __always_inline void magnet_ttview_of(struct magnet_ttview *v,
					     const struct magnet_record *r)
{
	v->ts_ns = r->ts_ns;
	v->laddr = r->laddr;
	v->raddr = r->raddr;
	v->key = NULL;
	v->gen = 0;
	v->len = r->len;
	v->mss = r->mss;
	v->srtt_us = r->srtt_us;
	v->cwnd = r->cwnd;
	v->ssthresh = r->ssthresh;
	v->snd_wnd = r->snd_wnd;
	v->rcv_wnd = r->rcv_wnd;
	v->snd_una = r->snd_una;
	v->snd_nxt = r->snd_nxt;
	v->lport = r->lport;
	v->rport = r->rport;
	v->event = (__u8)r->event;
	v->family = r->family;
	v->state = r->state;
	v->ca_state = r->ca_state;
}

static __always_inline void magnet_ttview_v3(struct magnet_ttview *v,
					     const void *rec,
					     const struct magnet_v3_slot *flow,
					     __u64 gen)
{
	const struct magnet_v3_hdr *h = rec;
	const struct magnet_v3_tcp *t =
		(const void *)((const char *)rec + MAGNET_V3_HDR_SIZE);

	v->ts_ns = h->ts_ns;
	v->laddr = flow->laddr;
	v->raddr = flow->raddr;
	v->key = flow;
	v->gen = gen;
	v->len = t->len;
	v->mss = t->mss;
	v->srtt_us = t->srtt_us;
	v->cwnd = t->cwnd;
	v->ssthresh = t->ssthresh;
	v->snd_wnd = t->snd_wnd;
	v->rcv_wnd = t->rcv_wnd;
	v->snd_una = t->snd_una;
	v->snd_nxt = t->snd_nxt;
	v->lport = flow->lport;
	v->rport = flow->rport;
	v->event = h->event;
	v->family = flow->family;
	v->state = t->state;
	v->ca_state = t->ca_state;
}

/*
 * One ttprobe line. Written with emit.h, not printf: this runs for every
 * record the reader takes in omode=0. At most 256 bytes and a NUL (two
 * IPv6 addresses, every number at its widest; test_format checks), so the
 * buffer of MAGNET_TTPROBE_LINE_MAX always has room. With a cache (@c not
 * NULL), fields that repeat from line to line are copied from it.
 */
static int magnet_ttprobe_line(char *buf, const struct magnet_ttview *v,
			       __u64 counter, __s64 realtime_offset_ns,
			       __u64 cwnd_bytes, __u64 ssthresh_bytes,
			       struct magnet_ttcache *c)
{
	__u32 rem_ns;
	__u64 sec;
	char *p = buf;

	switch (v->event) {
	case MAGNET_EV_TCP_OUT:
		*p++ = 'o';
		break;
	case MAGNET_EV_TCP_IN:
		*p++ = 'i';
		break;
	default:
		return 0;
	}
	sec = magnet_wall(v->ts_ns, realtime_offset_ns, &rem_ns);
	*p++ = ',';
	p = c ? magnet_put_sec_cached(p, sec, c) : magnet_put_u64(p, sec);
	*p++ = '.';
	p = magnet_put_u32_pad(p, rem_ns / 1000U, 6);
	*p++ = ',';
	if (c) {
		struct magnet_tttuple *t;

		p = magnet_put_tuple_cached(p, v, c, &t);
		*p++ = ',';
		p = magnet_put_u64(p, counter);
		*p++ = ',';
		p = magnet_put_mid_cached(p, v, cwnd_bytes, ssthresh_bytes, t);
	} else {
		p = magnet_put_tuple(p, v);
		*p++ = ',';
		p = magnet_put_u64(p, counter);
		*p++ = ',';
		p = magnet_put_mid(p, v, cwnd_bytes, ssthresh_bytes);
	}
	p = magnet_put_u32(p, v->snd_una);
	*p++ = ',';
	p = magnet_put_u32(p, v->snd_nxt);
	*p++ = ',';
	p = magnet_put_u32(p, v->len);
	*p++ = '\n';
	*p = '\0';
	return (int)(p - buf);
}

int magnet_format_ttprobe_with(char *buf, const struct magnet_record *r,
			       __u64 counter, __s64 realtime_offset_ns,
			       __u64 cwnd_bytes, __u64 ssthresh_bytes)
{
	struct magnet_ttview v;

	magnet_ttview_of(&v, r);
	return magnet_ttprobe_line(buf, &v, counter, realtime_offset_ns,
				   cwnd_bytes, ssthresh_bytes, NULL);
}

static __u32 magnet_ssthresh_now(__u32 cwnd, __u32 ssthresh, __u8 ca_state)
{
	__u32 three_quarters = (cwnd >> 1) + (cwnd >> 2);

	if (ca_state == MAGNET_CA_CWR || ca_state == MAGNET_CA_RECOVERY)
		return ssthresh;
	return ssthresh > three_quarters ? ssthresh : three_quarters;
}

__u32 magnet_current_ssthresh(const struct magnet_record *r)
{
	return magnet_ssthresh_now(r->cwnd, r->ssthresh, r->ca_state);
}

/* magnet's fields 10 and 11, or (@compat) ttprobe's: see format.h */
static int magnet_ttprobe_fields(char *buf, const struct magnet_ttview *v,
				 __u64 counter, __s64 realtime_offset_ns,
				 int compat, struct magnet_ttcache *c)
{
	if (compat)	/* ttprobe multiplies and prints in 32 bits: they wrap */
		return magnet_ttprobe_line(buf, v, counter, realtime_offset_ns,
					   (__u32)(v->cwnd * v->mss),
					   (__u32)(magnet_ssthresh_now(v->cwnd,
								       v->ssthresh,
								       v->ca_state) *
						   v->mss), c);
	return magnet_ttprobe_line(buf, v, counter, realtime_offset_ns,
				   (__u64)v->cwnd * v->mss,
				   (__u64)v->ssthresh * v->mss, c);
}

int magnet_format_ttprobe(char *buf, const struct magnet_record *r,
			  __u64 counter, __s64 realtime_offset_ns)
{
	struct magnet_ttview v;

	magnet_ttview_of(&v, r);
	return magnet_ttprobe_fields(buf, &v, counter, realtime_offset_ns, 0,
				     NULL);
}

int magnet_format_ttprobe_compat(char *buf, const struct magnet_record *r,
				 __u64 counter, __s64 realtime_offset_ns)
{
	struct magnet_ttview v;

	magnet_ttview_of(&v, r);
	return magnet_ttprobe_fields(buf, &v, counter, realtime_offset_ns, 1,
				     NULL);
}

void magnet_ttstream_open(struct magnet_ttstream *s, struct magnet_ttcount *c,
			  int compat)
{
	s->count = c;
	s->lines = 0;
	s->compat = compat;
	memset(&s->cache, 0, sizeof(s->cache));
}

static __always_inline int magnet_ttstream_view(struct magnet_ttstream *s,
						char *buf,
						const struct magnet_ttview *v,
						__s64 realtime_offset_ns)
{
	__u64 counter = s->compat ? s->count->since_load : s->lines + 1;
	int n = magnet_ttprobe_fields(buf, v, counter, realtime_offset_ns,
				      s->compat, &s->cache);

	if (n > 0) {
		if (s->compat)
			s->count->since_load++;
		else
			s->lines++;
	}
	return n;
}

int magnet_ttstream_format(struct magnet_ttstream *s, char *buf,
			   const struct magnet_record *r,
			   __s64 realtime_offset_ns)
{
	struct magnet_ttview v;

	magnet_ttview_of(&v, r);
	return magnet_ttstream_view(s, buf, &v, realtime_offset_ns);
}

int magnet_ttstream_format_v3(struct magnet_ttstream *s, char *buf,
			      const void *rec,
			      const struct magnet_v3_slot *flow, __u64 gen,
			      __s64 realtime_offset_ns)
{
	struct magnet_ttview v __uninitialized;

	magnet_ttview_v3(&v, rec, flow, gen);
	return magnet_ttstream_view(s, buf, &v, realtime_offset_ns);
}

int magnet_format_legacy(struct magnet_legacy_record *l,
			 const struct magnet_record *r,
			 __s64 realtime_offset_ns)
{
	__u32 rem_ns;
	__u64 sec;

	if (r->event != MAGNET_EV_TCP_OUT && r->event != MAGNET_EV_TCP_IN)
		return 0;
	sec = magnet_wall(r->ts_ns, realtime_offset_ns, &rem_ns);
	memset(l, 0, sizeof(*l));
	l->tv_sec = (__s64)sec;
	l->tv_usec = rem_ns / 1000U;
	if (r->family == MAGNET_FAMILY_INET6) {
		memcpy(l->src, r->laddr, 16);
		memcpy(l->dst, r->raddr, 16);
		l->addr_family = MAGNET_LEGACY_AF_INET6;
	} else {
		memcpy(l->src, r->laddr, 4);
		memcpy(l->dst, r->raddr, 4);
		l->addr_family = MAGNET_LEGACY_AF_INET;
	}
	/* network order, written bytewise: the same on any host */
	((__u8 *)&l->sport)[0] = (__u8)(r->lport >> 8);
	((__u8 *)&l->sport)[1] = (__u8)r->lport;
	((__u8 *)&l->dport)[0] = (__u8)(r->rport >> 8);
	((__u8 *)&l->dport)[1] = (__u8)r->rport;
	l->length = r->len > 0xffff ? 0xffff : (__u16)r->len;
	l->snd_nxt = r->snd_nxt;
	l->snd_una = r->snd_una;
	l->snd_wnd = r->snd_wnd;
	l->rcv_wnd = r->rcv_wnd;
	l->snd_cwnd = r->cwnd;
	l->ssthresh = magnet_current_ssthresh(r);
	l->srtt = r->srtt_us;
	l->mss_cache = r->mss;
	l->sock_state = r->state;
	l->direction = r->event == MAGNET_EV_TCP_IN ? 'i' : 'o';
	return MAGNET_LEGACY_RECORD_SIZE;
}

/* the TCP snapshot's columns: its fields (schema.h), each a u32 */
#define MAGNET_TEXT_SNAP_COL(type, name, dims, kind) MAGNET_COL_U32(p, r->name);
/* a column's name in the header, after a tab */
#define MAGNET_TEXT_NAME(type, name, dims, kind) "\t" #name

/* "\ttime\tcpu...\tlost\n": the header follows its first tab */
static const char magnet_text_columns[] =
	MAGNET_TEXT_COLUMNS(MAGNET_TEXT_NAME) "\n";

int magnet_format_text_header(char *buf)
{
	return snprintf(buf, MAGNET_TEXT_LINE_MAX, "%s",
			magnet_text_columns + 1);
}

/* a kernel string field of at most @n bytes: printable ASCII, blanks as
 * '_', anything else as '?' */
static char *magnet_put_clean(char *p, const char *src, size_t n)
{
	size_t i;

	for (i = 0; i < n && src[i]; i++) {
		unsigned char c = (unsigned char)src[i];

		*p++ = (c > ' ' && c < 0x7f) ? (char)c : (c == ' ' ? '_' : '?');
	}
	return p;
}

/* @n tabs: the empty columns of what a record does not carry */
static char *magnet_put_tabs(char *p, int n)
{
	while (n-- > 0)
		*p++ = '\t';
	return p;
}

/* "\t" and @v: one column */
#define MAGNET_COL_U32(p, v) (*(p)++ = '\t', (p) = magnet_put_u32((p), (v)))
#define MAGNET_COL_U64(p, v) (*(p)++ = '\t', (p) = magnet_put_u64((p), (v)))

/*
 * tcp_info's tcpi_delivery_rate from a rate part, the kernel's arithmetic
 * (tcp_compute_delivery_rate(): u64, wrapping alike): bytes/s
 */
__u64 magnet_delivery_rate(const struct magnet_v3_rate *x, __u32 mss)
{
	__u32 rem;

	if (!x->rate_delivered || !x->rate_interval_us)
		return 0;
	return magnet_div_u64_rem((__u64)x->rate_delivered * mss * 1000000U,
				  x->rate_interval_us, &rem);
}

/* tcp_bbr_info's attribute (INET_DIAG_BBRINFO) */
#define MAGNET_CC_BBR 16

/*
 * One line of magnet's own text format: MAGNET_TEXT_NCOLS tab-separated
 * columns, as format.h's MAGNET_TEXT_COLUMNS lists them. The widest line
 * (every field at its widest, IPv6, 16-byte comm and ca_name, a BBR rate
 * part, a netns, a drop part with 31-byte names, a TCP event part, a
 * qdisc part) is 924 bytes (test_format checks); MAGNET_TEXT_LINE_MAX is
 * 1024.
 */
int magnet_format_text(char *buf, const struct magnet_record *r,
		       const struct magnet_v3_rate *rate,
		       const struct magnet_v3_drop *drop,
		       const struct magnet_v3_tcpev *ev,
		       const struct magnet_v3_qdisc *qd, __u32 netns,
		       __s64 realtime_offset_ns)
{
	const char *name = magnet_event_name(r->event);
	__u32 rem_ns;
	__u64 sec;
	char *p = buf;

	if (!name)
		return 0;
	sec = magnet_wall(r->ts_ns, realtime_offset_ns, &rem_ns);
	p = magnet_put_u64(p, sec);
	*p++ = '.';
	p = magnet_put_u32_pad(p, rem_ns, 9);
	MAGNET_COL_U32(p, r->cpu);
	*p++ = '\t';
	p = magnet_put_str(p, name);
	if (r->event == MAGNET_EV_LOST || r->event == MAGNET_EV_RESET) {
		/*
		 * every column empty but the last, `lost`: the count; and a
		 * LOST record's probe misses, if any, in `ret`
		 */
		if (r->event == MAGNET_EV_LOST && r->ret) {
			p = magnet_put_tabs(p, MAGNET_TEXT_COL_RET - 4);
			MAGNET_COL_U64(p, (__u64)r->ret);
			p = magnet_put_tabs(p, MAGNET_TEXT_NCOLS -
					     MAGNET_TEXT_COL_RET - 1);
		} else {
			p = magnet_put_tabs(p, MAGNET_TEXT_NCOLS - 4);
		}
		MAGNET_COL_U64(p, r->req);
		goto out;
	}

	*p++ = '\t';
	if (r->flags & MAGNET_RF_SOCK)
		p = magnet_put_hex64(p, r->sock_id);
	MAGNET_COL_U32(p, r->family);
	*p++ = '\t';
	p = magnet_put_addr(p, r->family, r->laddr);
	MAGNET_COL_U32(p, r->lport);
	*p++ = '\t';
	p = magnet_put_addr(p, r->family, r->raddr);
	MAGNET_COL_U32(p, r->rport);
	if (r->flags & MAGNET_RF_SOCK)
		MAGNET_COL_U32(p, r->state);
	else
		*p++ = '\t';
	MAGNET_COL_U32(p, r->len);
	if (r->flags & MAGNET_RF_SEQ) {
		MAGNET_COL_U32(p, r->seq);
		MAGNET_COL_U32(p, r->end_seq);
	} else {
		p = magnet_put_tabs(p, MAGNET_TEXT_N(MAGNET_TEXT_COLS_SEQ));
	}
	MAGNET_COL_U32(p, r->mark);
	if (r->flags & MAGNET_RF_APP) {
		MAGNET_COL_U32(p, r->pid);
		*p++ = '\t';
		p = magnet_put_clean(p, r->comm, MAGNET_COMM_LEN);
		MAGNET_COL_U64(p, r->req);
		*p++ = '\t';
		p = magnet_put_s64(p, r->ret);
	} else {
		p = magnet_put_tabs(p, MAGNET_TEXT_N(MAGNET_TEXT_COLS_APP));
	}
	if (r->flags & MAGNET_RF_TCP) {
		MAGNET_V2_SNAP(MAGNET_TEXT_SNAP_COL)
		MAGNET_COL_U32(p, r->ca_state);
		*p++ = '\t';
		p = magnet_put_clean(p, r->ca_name, MAGNET_CA_NAME_LEN);
	} else {
		p = magnet_put_tabs(p, MAGNET_TEXT_N(MAGNET_V2_SNAP) +
				     MAGNET_TEXT_N(MAGNET_TEXT_COLS_CA));
	}
	if (r->flags & MAGNET_RF_DEV)
		MAGNET_COL_U32(p, r->ifindex);
	else
		*p++ = '\t';
	if (netns)
		MAGNET_COL_U32(p, netns);
	else
		*p++ = '\t';
	if (r->flags & MAGNET_RF_IP) {
		MAGNET_COL_U32(p, r->ip_id);
		MAGNET_COL_U32(p, r->ip_tos);
		MAGNET_COL_U32(p, r->ip_ttl);
		MAGNET_COL_U32(p, r->ip_proto);
	} else {
		p = magnet_put_tabs(p, MAGNET_TEXT_N(MAGNET_TEXT_COLS_IP));
	}
	if (r->flags & MAGNET_RF_TCP) {
		MAGNET_COL_U32(p, r->segs_out);
		MAGNET_COL_U32(p, r->data_segs_out);
		MAGNET_COL_U32(p, r->segs_in);
		MAGNET_COL_U32(p, r->data_segs_in);
		MAGNET_COL_U64(p, r->bytes_sent);
		MAGNET_COL_U64(p, r->bytes_received);
		MAGNET_COL_U64(p, r->bytes_acked);
		MAGNET_COL_U64(p, r->bytes_retrans);
		MAGNET_COL_U32(p, r->rcv_nxt);
		MAGNET_COL_U32(p, r->min_rtt_us);
		MAGNET_COL_U32(p, r->rtt_us);
		MAGNET_COL_U32(p, r->advmss);
		MAGNET_COL_U32(p, (unsigned int)r->wscale >> 4);
		MAGNET_COL_U32(p, (unsigned int)r->wscale & 0xfU);
		MAGNET_COL_U32(p, r->opts);
	} else {
		p = magnet_put_tabs(p, MAGNET_TEXT_N(MAGNET_TEXT_COLS_TCP));
	}
	if (rate && (r->flags & MAGNET_RF_TCP)) {
		MAGNET_COL_U64(p, rate->pacing_rate);
		MAGNET_COL_U64(p, magnet_delivery_rate(rate, r->mss));
		MAGNET_COL_U32(p, rate->delivered);
		MAGNET_COL_U32(p, rate->delivered_ce);
		MAGNET_COL_U32(p, rate->lost_out);
		MAGNET_COL_U32(p, rate->sacked_out);
		MAGNET_COL_U32(p, rate->app_limited);
		if (rate->cc_attr == MAGNET_CC_BBR) {
			/* bbr_bw_lo, bbr_bw_hi, min_rtt, pacing and cwnd gain */
			MAGNET_COL_U64(p, (__u64)rate->cc_info[1] << 32 |
					  rate->cc_info[0]);
			MAGNET_COL_U32(p, rate->cc_info[2]);
			MAGNET_COL_U32(p, rate->cc_info[3]);
			MAGNET_COL_U32(p, rate->cc_info[4]);
		} else {
			p = magnet_put_tabs(p,
					     MAGNET_TEXT_N(MAGNET_TEXT_COLS_BBR));
		}
	} else {
		p = magnet_put_tabs(p, MAGNET_TEXT_N(MAGNET_TEXT_COLS_RATE) +
				     MAGNET_TEXT_N(MAGNET_TEXT_COLS_BBR));
	}
	if (drop) {
		*p++ = '\t';
		if (drop->reason_name[0])
			p = magnet_put_clean(p, drop->reason_name,
					     sizeof(drop->reason_name));
		else if (drop->reason)
			p = magnet_put_u32(p, drop->reason);
		else
			p = magnet_put_str(p, "unknown");
		*p++ = '\t';
		p = magnet_put_clean(p, drop->where, sizeof(drop->where));
	} else {
		p = magnet_put_tabs(p, MAGNET_TEXT_N(MAGNET_TEXT_COLS_DROP));
	}
	if (ev && r->event == MAGNET_EV_STATE)
		MAGNET_COL_U32(p, ev->prev_state);
	else
		*p++ = '\t';
	*p++ = '\t';
	if (ev && (r->event == MAGNET_EV_RETRANS ||
		   r->event == MAGNET_EV_TLP)) {
		const char *k = ev->kind < 4 ?
			magnet_kinds[r->event == MAGNET_EV_TLP][ev->kind] : NULL;

		if (k)
			p = magnet_put_str(p, k);
		else
			p = magnet_put_u32(p, ev->kind);
	}
	if (ev && r->event == MAGNET_EV_RTO)
		MAGNET_COL_U32(p, ev->timeouts);
	else
		*p++ = '\t';
	if (qd && (r->event == MAGNET_EV_QDISC ||
		   r->event == MAGNET_EV_QDISC_ENQ)) {
		*p++ = '\t';
		p = magnet_put_clean(p, qd->kind, sizeof(qd->kind));
		*p++ = '\t';
		p = magnet_put_hex(p, qd->handle >> 16);
		*p++ = ':';
		p = magnet_put_hex(p, qd->handle & 0xffffU);
		if (qd->qlen != ~0U)
			MAGNET_COL_U32(p, qd->qlen);
		else
			*p++ = '\t';
		if (qd->backlog != ~0U)
			MAGNET_COL_U32(p, qd->backlog);
		else
			*p++ = '\t';
	} else {
		p = magnet_put_tabs(p, MAGNET_TEXT_N(MAGNET_TEXT_COLS_QDISC));
	}
	*p++ = '\t';
out:
	*p++ = '\n';
	*p = '\0';
	return (int)(p - buf);
}

/*
 * web10g (omode=2): the columns of web10g-logger 2.0.9, the 122 RFC 4898
 * variables in web10g userland's order (docs/compat-formats.md, section 4,
 * "web10g-logger lines"). The list gives both the header and the variable
 * numbers; docs/web10g.md has the mapping, column by column.
 */
#define MAGNET_WEB10G_VARS(X)						\
	X(SegsOut) X(DataSegsOut) X(DataOctetsOut) X(HCDataOctetsOut)	\
	X(SegsRetrans) X(OctetsRetrans) X(SegsIn) X(DataSegsIn)	\
	X(DataOctetsIn) X(HCDataOctetsIn) X(ElapsedSecs)		\
	X(ElapsedMicroSecs) X(StartTimeStamp) X(CurMSS) X(PipeSize)	\
	X(MaxPipeSize) X(SmoothedRTT) X(CurRTO) X(CongSignals)		\
	X(CurCwnd) X(CurSsthresh) X(Timeouts) X(CurRwinSent)		\
	X(MaxRwinSent) X(ZeroRwinSent) X(CurRwinRcvd) X(MaxRwinRcvd)	\
	X(ZeroRwinRcvd) X(SndLimTransRwin) X(SndLimTransCwnd)		\
	X(SndLimTransSnd) X(SndLimTransTSODefer) X(SndLimTimeRwin)	\
	X(SndLimTimeCwnd) X(SndLimTimeSnd) X(SndLimTimeTSODefer)	\
	X(RetranThresh) X(NonRecovDAEpisodes) X(SumOctetsReordered)	\
	X(NonRecovDA) X(SampleRTT) X(RTTVar) X(MaxRTT) X(MinRTT)	\
	X(SumRTT) X(HCSumRTT) X(CountRTT) X(MaxRTO) X(MinRTO) X(IpTtl)	\
	X(IpTosIn) X(IpTosOut) X(PreCongSumCwnd) X(PreCongSumRTT)	\
	X(PostCongSumRTT) X(PostCongCountRTT) X(ECNsignals)		\
	X(DupAckEpisodes) X(RcvRTT) X(DupAcksOut) X(CERcvd) X(ECESent)	\
	X(ActiveOpen) X(MSSSent) X(MSSRcvd) X(WinScaleSent)		\
	X(WinScaleRcvd) X(TimeStamps) X(ECN) X(WillSendSACK)		\
	X(WillUseSACK) X(State) X(Nagle) X(MaxSsCwnd) X(MaxCaCwnd)	\
	X(MaxSsthresh) X(MinSsthresh) X(InRecovery) X(DupAcksIn)	\
	X(SpuriousFrDetected) X(SpuriousRtoDetected) X(SoftErrors)	\
	X(SoftErrorReason) X(SlowStart) X(CongAvoid)			\
	X(OtherReductions) X(CongOverCount) X(FastRetran)		\
	X(SubsequentTimeouts) X(CurTimeoutCount) X(AbruptTimeouts)	\
	X(SACKsRcvd) X(SACKBlocksRcvd) X(SendStall) X(DSACKDups)	\
	X(MaxMSS) X(MinMSS) X(SndInitial) X(RecInitial)		\
	X(CurRetxQueue) X(MaxRetxQueue) X(CurReasmQueue)		\
	X(MaxReasmQueue) X(EarlyRetrans) X(EarlyRetransDelay) X(SndUna)	\
	X(SndNxt) X(SndMax) X(ThruOctetsAcked) X(HCThruOctetsAcked)	\
	X(RcvNxt) X(ThruOctetsReceived) X(HCThruOctetsReceived)	\
	X(CurAppWQueue) X(MaxAppWQueue) X(CurAppRQueue)		\
	X(MaxAppRQueue) X(LimCwnd) X(LimSsthresh) X(LimRwin) X(LimMSS)	\
	X(OtherReductionsCV)

#define MAGNET_W10G_ENUM(name) MAGNET_W10G_##name,
#define MAGNET_W10G_NAME(name) "," #name

enum magnet_w10g_var {
	MAGNET_WEB10G_VARS(MAGNET_W10G_ENUM)
	MAGNET_W10G_NVARS
};

static const char magnet_web10g_columns[] =
	"Timestamp,CID,LocalAddress,LocalPort,RemAddress,RemPort"
	MAGNET_WEB10G_VARS(MAGNET_W10G_NAME) "\n";

MAGNET_STATIC_ASSERT(MAGNET_W10G_NVARS + 6 == MAGNET_WEB10G_NCOLS,
		     "122 web10g variables");
MAGNET_STATIC_ASSERT(sizeof(magnet_web10g_columns) <= MAGNET_WEB10G_LINE_MAX,
		     "the web10g header fits its buffer");

int magnet_format_web10g_header(char *buf)
{
	return snprintf(buf, MAGNET_WEB10G_LINE_MAX, "%s",
			magnet_web10g_columns);
}

/* Linux sk_state (TCP_ESTABLISHED 1 .. TCP_NEW_SYN_RECV 12) -> RFC 4898 */
static const __u8 magnet_w10g_state[] = {
	[1] = 5,	/* ESTABLISHED -> established */
	[2] = 3,	/* SYN_SENT -> synSent */
	[3] = 4,	/* SYN_RECV -> synReceived */
	[4] = 6,	/* FIN_WAIT1 -> finWait1 */
	[5] = 7,	/* FIN_WAIT2 -> finWait2 */
	[6] = 11,	/* TIME_WAIT -> timeWait */
	[7] = 1,	/* CLOSE -> closed */
	[8] = 8,	/* CLOSE_WAIT -> closeWait */
	[9] = 9,	/* LAST_ACK -> lastAck */
	[10] = 2,	/* LISTEN -> listen */
	[11] = 10,	/* CLOSING -> closing */
	[12] = 4,	/* NEW_SYN_RECV -> synReceived */
};

/* icsk_ca_state values (include/uapi/linux/tcp.h) */
#define MAGNET_CA_OPEN 0
#define MAGNET_CA_CWR 2
#define MAGNET_CA_RECOVERY 3
#define MAGNET_CA_LOSS 4

/* RFC 4898 enumerations */
#define MAGNET_W10G_TRUE 1		/* TruthValue */
#define MAGNET_W10G_FALSE 2
#define MAGNET_W10G_ENABLED 1		/* TcpEStatsNegotiated */
#define MAGNET_W10G_PEER_DISABLED 3

#define MAGNET_U32_MAX 0xffffffffULL

/* a Gauge32: latches at its maximum */
static __u64 magnet_gauge32(__u64 v)
{
	return v > MAGNET_U32_MAX ? MAGNET_U32_MAX : v;
}

static __u64 magnet_negotiated(const struct magnet_record *r, __u8 opt)
{
	return (r->opts & opt) ? MAGNET_W10G_ENABLED :
				 MAGNET_W10G_PEER_DISABLED;
}

/*
 * Variable @var of record @r into *@v, in RFC 4898 units. Returns 0 when
 * the record has no honest value for it: the column stays empty.
 * docs/web10g.md documents every choice.
 */
static __always_inline int magnet_w10g_value(const struct magnet_record *r,
					     unsigned int var, __u64 *v)
{
	if (var == MAGNET_W10G_State) {
		if (!(r->flags & MAGNET_RF_SOCK) ||
		    r->state >= sizeof(magnet_w10g_state) ||
		    !magnet_w10g_state[r->state])
			return 0;
		*v = magnet_w10g_state[r->state];
		return 1;
	}
	if (!(r->flags & MAGNET_RF_TCP))
		return 0;

	switch (var) {
	case MAGNET_W10G_SegsOut:
		*v = r->segs_out;
		break;
	case MAGNET_W10G_DataSegsOut:
		*v = r->data_segs_out;
		break;
	case MAGNET_W10G_DataOctetsOut:		/* Counter32: low 32 bits */
		*v = r->bytes_sent & MAGNET_U32_MAX;
		break;
	case MAGNET_W10G_HCDataOctetsOut:
		*v = r->bytes_sent;
		break;
	case MAGNET_W10G_SegsRetrans:
		*v = r->total_retrans;
		break;
	case MAGNET_W10G_OctetsRetrans:
		*v = r->bytes_retrans & MAGNET_U32_MAX;
		break;
	case MAGNET_W10G_SegsIn:
		*v = r->segs_in;
		break;
	case MAGNET_W10G_DataSegsIn:
		*v = r->data_segs_in;
		break;
	case MAGNET_W10G_DataOctetsIn:
	case MAGNET_W10G_ThruOctetsReceived:
		*v = r->bytes_received & MAGNET_U32_MAX;
		break;
	case MAGNET_W10G_HCDataOctetsIn:
	case MAGNET_W10G_HCThruOctetsReceived:
		*v = r->bytes_received;
		break;
	case MAGNET_W10G_CurMSS:
		*v = r->mss;
		break;
	case MAGNET_W10G_PipeSize:
		/* flight size; RFC 4898: "while not in recovery, ...
		 * SND.NXT minus SND.UNA". In recovery Linux's pipe needs
		 * sacked_out and lost_out, which the record lacks.
		 */
		if (r->ca_state != MAGNET_CA_OPEN &&
		    r->ca_state != MAGNET_CA_CWR)
			return 0;
		*v = (__u32)(r->snd_nxt - r->snd_una);
		break;
	case MAGNET_W10G_SmoothedRTT:
		*v = r->srtt_us / 1000U;
		break;
	case MAGNET_W10G_CurRTO:
		*v = r->rto_us / 1000U;
		break;
	case MAGNET_W10G_CurCwnd:
		*v = magnet_gauge32((__u64)r->cwnd * r->mss);
		break;
	case MAGNET_W10G_CurSsthresh:
		*v = magnet_gauge32((__u64)r->ssthresh * r->mss);
		break;
	case MAGNET_W10G_CurRwinSent:
		*v = r->rcv_wnd;
		break;
	case MAGNET_W10G_CurRwinRcvd:
		*v = r->snd_wnd;
		break;
	case MAGNET_W10G_SampleRTT:
		if (!r->rtt_us)
			return 0;
		*v = r->rtt_us / 1000U;
		break;
	case MAGNET_W10G_RTTVar:
		*v = r->rttvar_us / 1000U;
		break;
	case MAGNET_W10G_MinRTT:
		if (r->min_rtt_us == ~0U)
			return 0;
		*v = r->min_rtt_us / 1000U;
		break;
	case MAGNET_W10G_MSSSent:
		*v = r->advmss;
		break;
	case MAGNET_W10G_WinScaleSent:
		*v = r->wscale & 0xf;		/* rcv_wscale */
		break;
	case MAGNET_W10G_WinScaleRcvd:
		*v = r->wscale >> 4;		/* snd_wscale */
		break;
	case MAGNET_W10G_TimeStamps:
		*v = magnet_negotiated(r, MAGNET_OPT_TIMESTAMPS);
		break;
	case MAGNET_W10G_ECN:
		*v = magnet_negotiated(r, MAGNET_OPT_ECN);
		break;
	case MAGNET_W10G_WillSendSACK:
	case MAGNET_W10G_WillUseSACK:
		*v = magnet_negotiated(r, MAGNET_OPT_SACK);
		break;
	case MAGNET_W10G_Nagle:
		*v = (r->opts & MAGNET_OPT_NAGLE) ? MAGNET_W10G_TRUE :
						    MAGNET_W10G_FALSE;
		break;
	case MAGNET_W10G_InRecovery:
		*v = (r->ca_state == MAGNET_CA_RECOVERY ||
		      r->ca_state == MAGNET_CA_LOSS) ? MAGNET_W10G_TRUE :
						       MAGNET_W10G_FALSE;
		break;
	case MAGNET_W10G_CurRetxQueue:
		/* sent, not yet cumulatively acked: Linux's rtx queue */
		*v = (__u32)(r->snd_nxt - r->snd_una);
		break;
	case MAGNET_W10G_SndUna:
		*v = r->snd_una;
		break;
	case MAGNET_W10G_SndNxt:
		*v = r->snd_nxt;
		break;
	case MAGNET_W10G_ThruOctetsAcked:
		*v = r->bytes_acked & MAGNET_U32_MAX;
		break;
	case MAGNET_W10G_HCThruOctetsAcked:
		*v = r->bytes_acked;
		break;
	case MAGNET_W10G_RcvNxt:
		*v = r->rcv_nxt;
		break;
	case MAGNET_W10G_CurAppWQueue:
		/* written by the application, not yet sent */
		*v = (__u32)(r->write_seq - r->snd_nxt);
		break;
	case MAGNET_W10G_CurAppRQueue:
		/* received in order, not yet read */
		*v = (__u32)(r->rcv_nxt - r->copied_seq);
		break;
	default:
		return 0;
	}
	return 1;
}

/*
 * The variables magnet_w10g_value() can give (State and the cases of its
 * switch), in column order. Every other column is always empty: written
 * as a bare comma, without asking (most of the 122 are; asking each cost
 * a web10g line more than half its instructions). magnet_format_web10g
 * asks for each of these by a constant, so that the compiler reduces
 * magnet_w10g_value() to the one case. test_web10g checks that
 * a record with every field set fills exactly the variables
 * docs/web10g.md lists.
 */
#define MAGNET_W10G_FILLED(X) X(SegsOut) X(DataSegsOut)	\
	X(DataOctetsOut) X(HCDataOctetsOut) X(SegsRetrans) X(OctetsRetrans)	\
	X(SegsIn) X(DataSegsIn) X(DataOctetsIn) X(HCDataOctetsIn) X(CurMSS)	\
	X(PipeSize) X(SmoothedRTT) X(CurRTO) X(CurCwnd) X(CurSsthresh)	\
	X(CurRwinSent) X(CurRwinRcvd) X(SampleRTT) X(RTTVar) X(MinRTT)	\
	X(MSSSent) X(WinScaleSent) X(WinScaleRcvd) X(TimeStamps) X(ECN)	\
	X(WillSendSACK) X(WillUseSACK) X(State) X(Nagle) X(InRecovery)	\
	X(CurRetxQueue) X(SndUna) X(SndNxt) X(ThruOctetsAcked)	\
	X(HCThruOctetsAcked) X(RcvNxt) X(ThruOctetsReceived)	\
	X(HCThruOctetsReceived) X(CurAppWQueue) X(CurAppRQueue)

#define MAGNET_W10G_ONE(name) + 1
/* the number of variables in the list */
#define MAGNET_W10G_NFILLED (0 MAGNET_W10G_FILLED(MAGNET_W10G_ONE))

/*
 * The longest line fits, by construction: the first six columns (time
 * "18446744073.709551" at most, CID, two IPv6 addresses and ports, 130
 * bytes with their commas), a comma per variable, 20 digits per filled
 * one, 7 bytes magnet_put_commas() may write past its commas, "\n\0".
 * test_web10g prints the longest it makes.
 */
MAGNET_STATIC_ASSERT(130 + MAGNET_W10G_NVARS + 20 * MAGNET_W10G_NFILLED +
		     7 + 2 <= MAGNET_WEB10G_LINE_MAX,
		     "the longest web10g line fits its buffer");

int magnet_web10g_has_line(const struct magnet_record *r)
{
	if (r->event != MAGNET_EV_TCP_OUT && r->event != MAGNET_EV_TCP_IN)
		return 0;
	/* web10g describes connections: a listener (TCP_LISTEN, 10) receiving
	 * SYNs has no connection counters, and would repeat the same line */
	return !((r->flags & MAGNET_RF_SOCK) && r->state == 10);
}

/*
 * @n commas, 8 bytes at a time: may write up to 7 bytes past them, which
 * the caller leaves room for.
 */
static __always_inline char *magnet_put_commas(char *p, unsigned int n)
{
	static const char c8[8] = { ',', ',', ',', ',', ',', ',', ',', ',' };

	while (n > 8) {
		memcpy(p, c8, 8);
		p += 8;
		n -= 8;
	}
	memcpy(p, c8, 8);
	return p + n;
}

/* %llu as a call: inlined in each of the 41 columns, the emitters would
 * multiply the function's code */
static char *magnet_put_u64_call(char *p, __u64 v)
{
	return magnet_put_u64(p, v);
}

int magnet_format_web10g(char *buf, const struct magnet_record *r,
			 __s64 realtime_offset_ns, __u32 cid)
{
	__u32 rem_ns;
	__u64 sec, v;
	unsigned int col;
	char *p = buf;

	if (!magnet_web10g_has_line(r))
		return 0;

	sec = magnet_wall(r->ts_ns, realtime_offset_ns, &rem_ns);
	p = magnet_put_u64(p, sec);
	*p++ = '.';
	p = magnet_put_u32_pad(p, rem_ns / 1000U, 6);
	*p++ = ',';
	p = magnet_put_u32(p, cid);
	*p++ = ',';
	p = magnet_put_addr(p, r->family, r->laddr);
	*p++ = ',';
	p = magnet_put_u32(p, r->lport);
	*p++ = ',';
	p = magnet_put_addr(p, r->family, r->raddr);
	*p++ = ',';
	p = magnet_put_u32(p, r->rport);
	col = 0;
#define MAGNET_W10G_COL(name)						\
	p = magnet_put_commas(p, MAGNET_W10G_##name - col + 1);		\
	col = MAGNET_W10G_##name + 1;					\
	if (magnet_w10g_value(r, MAGNET_W10G_##name, &v))		\
		p = magnet_put_u64_call(p, v);
	MAGNET_W10G_FILLED(MAGNET_W10G_COL)
#undef MAGNET_W10G_COL
	p = magnet_put_commas(p, MAGNET_W10G_NVARS - col);
	*p++ = '\n';
	*p = '\0';
	return (int)(p - buf);
}
