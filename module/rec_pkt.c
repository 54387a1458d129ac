// SPDX-License-Identifier: GPL-2.0
/*
 * The IP and device events, from the packet's own headers (pktparse.h,
 * plain C that the unit tests and the fuzzer build too).
 */
#include <linux/kprobes.h>
#include <linux/skbuff.h>
#include <linux/netdevice.h>
#include <net/sock.h>
#include "rec.h"

/* the packet's bytes for pktparse.h: @src is the skb, offset 0 at @nh */
struct magnet_pkt_src {
	const struct sk_buff *skb;
	int nhoff;			/* of the network header from skb->data */
};

static inline const __u8 *magnet_pkt_bytes(const void *src, unsigned int off,
					   unsigned int len, void *buf)
{
	const struct magnet_pkt_src *s = src;

	return skb_header_pointer(s->skb, s->nhoff + off, len, buf);
}

#include "pktparse.h"

static __always_inline void magnet_unparsed(void)
{
	this_cpu_inc(magnet_rings->unparsed);
}

/* the RF_HDR fields (mss .. total_retrans's bytes) from @p */
static __always_inline void magnet_fill_hdr(struct magnet_record *rec,
					    const struct magnet_pkt *p)
{
	unsigned int optlen = p->thlen > 20 ? p->thlen - 20U : 0;

	rec->ip_hlen = p->nhlen;
	rec->ip_frag = p->frag;
	rec->tcp_hlen = p->thlen;
	/* a constant-size clear is a few stores; a variable one, a loop */
	memset(rec->tcp_opts, 0, MAGNET_TCP_OPTS_LEN);
	if (p->thlen) {
		rec->tcp_ack = p->ack;
		rec->tcp_win = p->win;
		rec->tcp_flags = p->tflags;
		memcpy(rec->tcp_opts, p->topts, optlen);
	} else {
		rec->tcp_ack = 0;
		rec->tcp_win = 0;
		rec->tcp_flags = 0;
	}
	rec->hdr_reserved[0] = 0;
	rec->hdr_reserved[1] = 0;
}

/*
 * One IP or device event for @skb whose network header is at @nh. @out:
 * a packet this host sends (source = local end). The socket (sock_id,
 * state) is known only where skb->sk is a full socket, i.e. on transmit.
 */
void notrace magnet_record_pkt(const struct sk_buff *skb, const u8 *nh,
			       u16 event, bool out, bool dev)
{
	const struct magnet_filter *f = magnet_filter();
	struct magnet_record *rec;
	struct magnet_ring *ring;
	struct magnet_pkt p;
	unsigned long flags;
	struct magnet_pkt_src src;
	const struct sock *sk;
	u16 lport, rport;

	if (unlikely(!skb || !nh))
		return;
	if (!(f->events & (dev ? MAGNET_LAYER_DEV : MAGNET_LAYER_IP)) ||
	    !(f->dir & (out ? MAGNET_FDIR_OUT : MAGNET_FDIR_IN)))
		goto filtered;
	src.skb = skb;
	src.nhoff = nh - skb->data;
	if (unlikely(src.nhoff < 0 || src.nhoff > (int)skb->len)) {
		magnet_unparsed();
		return;
	}
	switch (magnet_pkt_parse(&src, skb->len - src.nhoff,
				 magnet_cfg.nontcp, &p)) {
	case MAGNET_PKT_OK:
		break;
	case MAGNET_PKT_SKIP:
		goto filtered;
	default:
		magnet_unparsed();
		return;
	}
	lport = out ? p.sport : p.dport;
	rport = out ? p.dport : p.sport;
	if (!magnet_ports_ok(f, lport, rport) || !magnet_mark_ok(f, skb->mark))
		goto filtered;
	if ((f->set & MAGNET_FT_NETNS) &&
	    !magnet_netns_ok(f, skb->dev ? dev_net(skb->dev) :
			     (skb->sk ? sock_net(skb->sk) : NULL)))
		goto filtered;
	if ((f->set & MAGNET_FT_ADDR) &&
	    !magnet_filter_addr_match(f, p.family, out ? p.saddr : p.daddr) &&
	    !magnet_filter_addr_match(f, p.family, out ? p.daddr : p.saddr))
		goto filtered;

	rec = magnet_rec_begin(&ring, &flags, event);
	if (!rec)
		return;
	rec->flags = MAGNET_RF_IP | MAGNET_RF_HDR |
		     (dev ? MAGNET_RF_DEV : 0) |
		     (p.has_seq ? MAGNET_RF_SEQ : 0);
	sk = skb->sk;
	if (out && sk && sk_fullsock(sk)) {
		rec->flags |= MAGNET_RF_SOCK;
		rec->sock_id = (u64)(unsigned long)sk;	/* hashed by the reader */
		rec->state = READ_ONCE(sk->sk_state);
	} else {
		rec->sock_id = 0;
		rec->state = 0;
	}
	rec->family = p.family;
	memset(rec->laddr, 0, sizeof(rec->laddr));
	memset(rec->raddr, 0, sizeof(rec->raddr));
	memcpy(rec->laddr, out ? p.saddr : p.daddr, p.family == 4 ? 4 : 16);
	memcpy(rec->raddr, out ? p.daddr : p.saddr, p.family == 4 ? 4 : 16);
	rec->lport = lport;
	rec->rport = rport;
	rec->len = p.len;
	rec->seq = p.has_seq ? p.seq : 0;
	rec->end_seq = p.has_seq ? p.end_seq : 0;
	rec->mark = skb->mark;
	rec->ifindex = dev && skb->dev ? skb->dev->ifindex : 0;
	rec->ip_id = p.id;
	rec->ip_tos = p.tos;
	rec->ip_ttl = p.ttl;
	rec->ip_proto = p.proto;
	magnet_fill_hdr(rec, &p);
	magnet_clear_app(rec);
	magnet_clear_tcp(rec);
	magnet_rec_end(ring, flags);
	return;
filtered:
	magnet_filtered();
}
NOKPROBE_SYMBOL(magnet_record_pkt);
