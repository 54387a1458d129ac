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

/*
 * One IP or device event for @skb whose network header is at @nh. @out:
 * a packet this host sends (source = local end). The socket (sock_id,
 * state) is known only where skb->sk is a full socket, i.e. on transmit.
 * @net: the packet's namespace where the probed function is given it
 * (ip_output's): at its entry a reply a kernel control socket sends (a
 * RST, a TIME-WAIT ACK) has neither skb->dev nor skb->sk. NULL: from
 * skb->dev, else skb->sk. @drop: a DROP event (drops.c), whose skb->dev is
 * taken only as magnet_drop_dev() checks it (@net: the receiving
 * socket's namespace where the kernel gives that socket, else NULL), and
 * whose drop part (@reason, @location) follows the options. @q: a QDISC
 * event's qdisc (qdisc.c), whose part follows the options (skb->dev is the
 * qdisc's device).
 */
static __always_inline void
magnet_pkt_event(const struct sk_buff *skb, const u8 *nh, u16 event, bool out,
		 bool dev, const struct net *net, bool drop,
		 unsigned int reason, const void *location,
		 const struct Qdisc *q)
{
	struct magnet_v3_drop d;
	struct magnet_v3_qdisc qd;
	const struct magnet_filter *f = magnet_filter();
	struct magnet_flow_key k __uninitialized;	/* no padding: all set */
	struct magnet_v3_pkt *k3;
	/* magnet_pkt_parse() writes what its result says is there */
	struct magnet_pkt p __uninitialized;
	struct magnet_rec c;
	struct magnet_pkt_src src;
	const struct net_device *ndev;
	const struct sock *sk;
	unsigned int optlen, alen;
	u16 lport, rport;
	u8 flags;

	if (unlikely(!skb || !nh))
		return;
	if (!(f->events & (drop ? MAGNET_LAYER_DROP : q ? MAGNET_LAYER_QDISC :
			   dev ? MAGNET_LAYER_DEV : MAGNET_LAYER_IP)) ||
	    !(f->dir & (out ? MAGNET_FDIR_OUT : MAGNET_FDIR_IN)))
		goto filtered;
	src.skb = skb;
	src.nhoff = nh - skb->data;
	/* a drop's network header may be behind data, pulled but in the
	 * head (skb_header_pointer() reads it there) */
	if (unlikely((drop ? nh < skb->head : src.nhoff < 0) ||
		     src.nhoff > (int)skb->len)) {
		magnet_ring_unparsed();
		return;
	}
	switch (magnet_pkt_parse(&src, skb->len - src.nhoff,
				 magnet_cfg.nontcp, &p)) {
	case MAGNET_PKT_OK:
		break;
	case MAGNET_PKT_SKIP:
		goto filtered;
	default:
		magnet_ring_unparsed();
		return;
	}
	lport = out ? p.sport : p.dport;
	rport = out ? p.dport : p.sport;
	if (!magnet_ports_ok(f, lport, rport) || !magnet_mark_ok(f, skb->mark))
		goto filtered;
	/* a drop's dev field is checked first (drops.c); @net is the
	 * receiving socket's namespace there, if the kernel gives it */
	ndev = drop ? magnet_drop_dev(skb, net) : skb->dev;
	if (!net)
		net = ndev ? dev_net(ndev) :
			     (skb->sk ? sock_net(skb->sk) : NULL);
	if ((f->set & MAGNET_FT_NETNS) && !magnet_netns_ok(f, net))
		goto filtered;
	if ((f->set & MAGNET_FT_ADDR) &&
	    !magnet_filter_addr_match(f, p.family, out ? p.saddr : p.daddr) &&
	    !magnet_filter_addr_match(f, p.family, out ? p.daddr : p.saddr))
		goto filtered;

	flags = MAGNET_RF_IP | MAGNET_RF_HDR |
		(dev && (ndev || !drop) ? MAGNET_RF_DEV : 0) |
		(p.has_seq ? MAGNET_RF_SEQ : 0);
	sk = skb->sk;
	if (out && sk && sk_fullsock(sk))
		flags |= MAGNET_RF_SOCK;
	else
		sk = NULL;
	k.sk = sk ? magnet_sock_id(sk) : 0;
	k.lport = lport;
	k.rport = rport;
	k.family = p.family;
	k.netns = magnet_net_id(net);
	k.zero = 0;
	alen = p.family == 4 ? 4 : 16;
	memset(k.laddr, 0, sizeof(k.laddr));
	memset(k.raddr, 0, sizeof(k.raddr));
	memcpy(k.laddr, out ? p.saddr : p.daddr, alen);
	memcpy(k.raddr, out ? p.daddr : p.saddr, alen);
	optlen = p.thlen > 20 ? p.thlen - 20U : 0;
	if (drop)
		magnet_drop_fill(&d, reason, location);
	if (q)
		magnet_qdisc_fill(&qd, q);

	k3 = magnet_rec_begin(&c, &k, event, flags,
			      MAGNET_V3_PKT_SIZE + ((optlen + 7) & ~7U) +
			      (drop ? MAGNET_V3_DROP_SIZE :
			       q ? MAGNET_V3_QDISC_SIZE : 0));
	if (!k3)
		return;
	k3->len = p.len;
	k3->mark = skb->mark;
	k3->seq = p.has_seq ? p.seq : 0;
	k3->end_seq = p.has_seq ? p.end_seq : 0;
	k3->ifindex = dev && ndev ? ndev->ifindex : 0;
	k3->ip_id = p.id;
	k3->ip_hlen = p.nhlen;
	k3->ip_frag = p.frag;
	k3->state = sk ? READ_ONCE(sk->sk_state) : 0;
	k3->ip_tos = p.tos;
	k3->ip_ttl = p.ttl;
	k3->ip_proto = p.proto;
	k3->tcp_hlen = p.thlen;
	k3->reserved[0] = 0;
	k3->reserved[1] = 0;
	if (p.thlen) {
		k3->tcp_ack = p.ack;
		k3->tcp_win = p.win;
		k3->tcp_flags = p.tflags;
	} else {
		k3->tcp_ack = 0;
		k3->tcp_win = 0;
		k3->tcp_flags = 0;
	}
	/* the options, then zeros to the 8-byte boundary */
	if (optlen) {
		u8 *o = (u8 *)(k3 + 1);

		*(u64 *)(o + ((optlen - 1) & ~7U)) = 0;
		memcpy(o, p.topts, optlen);
	}
	if (drop)
		memcpy((u8 *)(k3 + 1) + ((optlen + 7) & ~7U), &d, sizeof(d));
	if (q)
		memcpy((u8 *)(k3 + 1) + ((optlen + 7) & ~7U), &qd, sizeof(qd));
	magnet_rec_end(&c);
	return;
filtered:
	magnet_ring_filtered();
}

void notrace magnet_record_pkt(const struct sk_buff *skb, const u8 *nh,
			       u16 event, bool out, bool dev,
			       const struct net *net)
{
	magnet_pkt_event(skb, nh, event, out, dev, net, false, 0, NULL, NULL);
}
NOKPROBE_SYMBOL(magnet_record_pkt);

/*
 * A DROP event: the packet @skb, whose network header is at @nh, as an IP
 * event has it (a device event when @skb has a device), and the drop part
 * last (drops.c fills it, for a packet that passed the filter).
 */
void notrace magnet_record_drop(const struct sk_buff *skb, const u8 *nh,
				bool out, unsigned int reason,
				const void *location, const struct sock *rx_sk)
{
	magnet_pkt_event(skb, nh, out ? MAGNET_EV_DROP_OUT : MAGNET_EV_DROP_IN,
			 out, true, rx_sk ? sock_net(rx_sk) : NULL,
			 true, reason, location, NULL);
}
NOKPROBE_SYMBOL(magnet_record_drop);

/*
 * A QDISC (@event: or QDISC_ENQ) event: the packet @skb, whose network
 * header is at @nh, that the qdisc @q of its device (skb->dev, which
 * __dev_queue_xmit() queued it on) let go toward the driver (took in), as
 * a device event has it, and the qdisc part last (qdisc.c).
 */
void notrace magnet_record_qdisc(const struct sk_buff *skb, const u8 *nh,
				 const struct Qdisc *q, u16 event)
{
	magnet_pkt_event(skb, nh, event, true, true, NULL, false, 0, NULL, q);
}
NOKPROBE_SYMBOL(magnet_record_qdisc);
