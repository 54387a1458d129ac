// SPDX-License-Identifier: GPL-2.0
/*
 * The IP and device events, from the packet's own headers (pktparse.h,
 * plain C that the unit tests and the fuzzer build too), and the DROP and
 * QDISC events, which are such a packet's event with a part of their own
 * after it: why and where the kernel freed it, which qdisc held it. The
 * tracepoints' probes (drops.c, qdisc.c) call down to these builders; the
 * builders call nothing of theirs.
 */
#include <linux/kprobes.h>
#include <linux/skbuff.h>
#include <linux/netdevice.h>
#include <linux/uaccess.h>
#include <net/sock.h>
#include <net/net_namespace.h>
#include <net/sch_generic.h>
#include "rec.h"

/* the packet's bytes for pktparse.h: @src is the skb, offset 0 at @nh */
struct magnet_pkt_src {
	const struct sk_buff *skb;
	int nhoff;			/* of the network header from skb->data */
};

static __always_inline const __u8 *magnet_pkt_bytes(const void *src,
						    unsigned int off,
						    unsigned int len,
						    void *buf)
{
	const struct magnet_pkt_src *s = src;
	const struct sk_buff *skb = s->skb;
	int o = s->nhoff + (int)off;

	/*
	 * skb_header_pointer()'s test of the linear part, here, where it is
	 * inlined: with three builders of packet events GCC no longer
	 * inlines skb_header_pointer() (make bench-insn: 5 instructions an
	 * event in its call); bytes beyond the linear part are its to copy
	 */
	if (likely((int)skb_headlen(skb) - o >= (int)len))
		return skb->data + o;
	return skb_header_pointer(skb, o, len, buf);
}

#include "pktparse.h"

/*
 * The drop part for @reason and @location: the reason's name, and the
 * function @location is in. An address that is in no known function is
 * written as "?", never as a number.
 */
static noinline void notrace magnet_drop_fill(struct magnet_v3_drop *d,
					       unsigned int reason,
					       const void *location)
{
	const char *name = magnet_drop_reason_name(reason);

	d->reason = reason;
	d->reserved = 0;
	strscpy_pad(d->reason_name, name ? name : "", sizeof(d->reason_name));
	memset(d->where, 0, sizeof(d->where));
	snprintf(d->where, sizeof(d->where), "%ps", location);
	if (!location || (d->where[0] == '0' && d->where[1] == 'x')) {
		memset(d->where, 0, sizeof(d->where));
		d->where[0] = '?';
	}
}
NOKPROBE_SYMBOL(magnet_drop_fill);

/*
 * @skb's device, if its dev field is one (registered, in some namespace),
 * else NULL. A dropped packet's dev field is not always a device: a
 * structure that queues packets may overlay it (the rbnode of a socket's
 * out-of-order tree and of netem's time queue, whose reset drops what it
 * holds; UDP's dev_scratch in its receive queue), and a packet in a
 * socket's queue may outlive the device it came in on. So the field is
 * read through only with copy_from_kernel_nofault() (its ifindex and
 * namespace), the namespace taken only if it is one (the packet's
 * socket's, or one on the list of namespaces: a pointer compare each),
 * and the device only if that namespace's device of that ifindex is it.
 *
 * TCP sets the field to NULL as it takes a packet in (tcp_v4_rcv), so its
 * own drops of received packets have none. Where the kernel gives the
 * receiving socket (@rx_net, its namespace: from 6.11), the device is
 * the one the packet came in on (skb_iif) in that namespace.
 */
static noinline struct net_device *notrace
magnet_drop_dev(const struct sk_buff *skb, const struct net *rx_net)
{
	struct net_device *dev = READ_ONCE(skb->dev), *found = NULL;
	struct net *cand, *net;
	possible_net_t pn;
	bool known;
	int idx;

	if (!dev) {
		if (!rx_net || skb->skb_iif <= 0)
			return NULL;
		rcu_read_lock();
		found = dev_get_by_index_rcu((struct net *)rx_net,
					     skb->skb_iif);
		rcu_read_unlock();
		return found;
	}
	if (copy_from_kernel_nofault(&idx, &dev->ifindex, sizeof(idx)) ||
	    idx <= 0 || copy_from_kernel_nofault(&pn, &dev->nd_net, sizeof(pn)))
		return NULL;
	cand = read_pnet(&pn);
	rcu_read_lock();
	known = (skb->sk && sock_net(skb->sk) == cand) || rx_net == cand;
	if (!known) {
		for_each_net_rcu(net) {
			if (net == cand) {
				known = true;
				break;
			}
		}
	}
	if (known && dev_get_by_index_rcu(cand, idx) == dev)
		found = dev;
	rcu_read_unlock();
	return found;
}
NOKPROBE_SYMBOL(magnet_drop_dev);

/* the qdisc part: which qdisc @q is, and what it holds now */
static noinline void notrace magnet_qdisc_fill(struct magnet_v3_qdisc *qd,
					       const struct Qdisc *q)
{
	qd->handle = q->handle;
	qd->parent = q->parent;
	/* a qdisc that counts per CPU: its numbers are a sum over CPUs,
	 * too dear to take per packet */
	if (q->flags & TCQ_F_CPUSTATS) {
		qd->qlen = ~0U;
		qd->backlog = ~0U;
	} else {
		qd->qlen = READ_ONCE(q->q.qlen);
		qd->backlog = READ_ONCE(q->qstats.backlog);
	}
	strscpy_pad(qd->kind, q->ops->id, sizeof(qd->kind));
}
NOKPROBE_SYMBOL(magnet_qdisc_fill);

/*
 * One IP or device event for @skb whose network header is at @nh. @out:
 * a packet this host sends (source = local end). The socket (sock_id,
 * state) is known only where skb->sk is a full socket, i.e. on transmit.
 * @net: the packet's namespace where the probed function is given it
 * (ip_output's): at its entry a reply a kernel control socket sends (a
 * RST, a TIME-WAIT ACK) has neither skb->dev nor skb->sk. NULL: from
 * skb->dev, else skb->sk. @drop: a DROP event (drops.c's probe), whose
 * skb->dev is taken only as magnet_drop_dev() checks it (@net: the
 * receiving socket's namespace where the kernel gives that socket, else
 * NULL), and whose drop part (@reason, @location) follows the options.
 * @q: a QDISC event's qdisc (qdisc.c's probes), whose part follows the
 * options (skb->dev is the qdisc's device).
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
	/* a drop's dev field is checked first (magnet_drop_dev()); @net is the
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
 * last (magnet_drop_fill(), for a packet that passed the filter).
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
 * a device event has it, and the qdisc part last (magnet_qdisc_fill()).
 */
void notrace magnet_record_qdisc(const struct sk_buff *skb, const u8 *nh,
				 const struct Qdisc *q, u16 event)
{
	magnet_pkt_event(skb, nh, event, true, true, NULL, false, 0, NULL, q);
}
NOKPROBE_SYMBOL(magnet_record_qdisc);
