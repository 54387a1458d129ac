// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ttprobe ASCII lines (omode=0, ttpb2ascii's default) and ttprobe's 96-byte
 * legacy records; format.c says where the other formats are. Kernel rules
 * apply: no allocation, no floating point, small stack frames.
 */
#include "format_common.h"
#include "v3.h"

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
