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
#include <linux/kallsyms.h>
#include <linux/skbuff.h>
#include <linux/netdevice.h>
#include <linux/if_vlan.h>
#include <linux/uaccess.h>
#include <net/sock.h>
#include <net/net_namespace.h>
#include <net/sch_generic.h>
#include "rec.h"
#include "nets.h"

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
 * socket's, or one in the set of namespaces that exist: nets.c, one
 * bucket of a hash table), and the device only if that namespace's device
 * of that ifindex is it. The caller holds rcu_read_lock(), which keeps
 * the device found, and the namespace, until it is done.
 *
 * TCP sets the field to NULL as it takes a packet in (tcp_v4_rcv), so its
 * own drops of received packets have none. Where the kernel gives the
 * receiving socket (@rx_net, its namespace: from 6.11), the device is
 * the one the packet came in on (skb_iif) in that namespace.
 */
static noinline struct net_device *notrace
magnet_drop_dev(const struct sk_buff *skb, const struct net *rx_net)
{
	struct net_device *dev = READ_ONCE(skb->dev);
	struct net *cand;
	possible_net_t pn;
	int idx;

	if (!dev) {
		if (!rx_net || skb->skb_iif <= 0)
			return NULL;
		return dev_get_by_index_rcu((struct net *)rx_net,
					    skb->skb_iif);
	}
	if (copy_from_kernel_nofault(&idx, &dev->ifindex, sizeof(idx)) ||
	    idx <= 0 || copy_from_kernel_nofault(&pn, &dev->nd_net, sizeof(pn)))
		return NULL;
	cand = read_pnet(&pn);
	if (!((skb->sk && sock_net(skb->sk) == cand) || rx_net == cand ||
	      magnet_net_known(cand)))
		return NULL;
	return dev_get_by_index_rcu(cand, idx) == dev ? dev : NULL;
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
 * An IP or device event taken apart from its writing: what the packet's
 * headers, its device and its socket say, read while the packet is the
 * caller's. magnet_pkt_prepare() fills it from the packet, and
 * magnet_pkt_write() writes the event from it alone, reading the packet
 * no more: a QDISC_ENQ event is prepared at the enqueue's entry and
 * written once the qdisc says it kept the packet, by which time the packet
 * may be gone (qdisc.c).
 */
struct magnet_pkt_ev {
	struct magnet_flow_key k;	/* no padding: all set */
	/* magnet_pkt_parse() writes what its result says is there */
	struct magnet_pkt p;
	u32 mark;
	int ifindex;
	u8 state;
	u8 flags;
};

enum { MAGNET_PREP_OK, MAGNET_PREP_FILTERED, MAGNET_PREP_UNPARSED };

/*
 * Prepare one IP or device event for @skb whose network header is at @nh.
 * @out: a packet this host sends (source = local end). The socket
 * (sock_id, state) is known only where skb->sk is a full socket, i.e. on
 * transmit. @net: the packet's namespace where the probed function is
 * given it (ip_output's): at its entry a reply a kernel control socket
 * sends (a RST, a TIME-WAIT ACK) has neither skb->dev nor skb->sk. NULL:
 * from skb->dev, else skb->sk. @drop: a DROP event (drops.c's probe),
 * whose skb->dev is taken only as magnet_drop_dev() checks it (@net: the
 * receiving socket's namespace where the kernel gives that socket, else
 * NULL). @layer: the event's MAGNET_LAYER_* (the filter's events=).
 * Returns MAGNET_PREP_OK with @e filled, or why not (nothing counted yet).
 * The caller holds rcu_read_lock() or runs with preemption off.
 */
static __always_inline int
magnet_pkt_prepare(struct magnet_pkt_ev *e, const struct sk_buff *skb,
		   const u8 *nh, unsigned int layer, bool out, bool dev,
		   const struct net *net, bool drop)
{
	const struct magnet_filter *f = magnet_filter();
	struct magnet_pkt *p = &e->p;
	struct magnet_flow_key *k = &e->k;
	struct magnet_pkt_src src;
	const struct net_device *ndev;
	const struct sock *sk;
	unsigned int alen;
	u16 lport, rport;

	if (!(f->events & layer) ||
	    !(f->dir & (out ? MAGNET_FDIR_OUT : MAGNET_FDIR_IN)))
		return MAGNET_PREP_FILTERED;
	src.skb = skb;
	src.nhoff = nh - skb->data;
	/* a drop's network header may be behind data, pulled but in the
	 * head (skb_header_pointer() reads it there) */
	if (unlikely((drop ? nh < skb->head : src.nhoff < 0) ||
		     src.nhoff > (int)skb->len))
		return MAGNET_PREP_UNPARSED;
	switch (magnet_pkt_parse(&src, skb->len - src.nhoff,
				 magnet_cfg.nontcp, p)) {
	case MAGNET_PKT_OK:
		break;
	case MAGNET_PKT_SKIP:
		return MAGNET_PREP_FILTERED;
	default:
		return MAGNET_PREP_UNPARSED;
	}
	lport = out ? p->sport : p->dport;
	rport = out ? p->dport : p->sport;
	if (!magnet_ports_ok(f, lport, rport) || !magnet_mark_ok(f, skb->mark))
		return MAGNET_PREP_FILTERED;
	/* a drop's dev field is checked first (magnet_drop_dev()); @net is the
	 * receiving socket's namespace there, if the kernel gives it */
	ndev = drop ? magnet_drop_dev(skb, net) : skb->dev;
	if (!net)
		net = ndev ? dev_net(ndev) :
			     (skb->sk ? sock_net(skb->sk) : NULL);
	if ((f->set & MAGNET_FT_NETNS) && !magnet_netns_ok(f, net))
		return MAGNET_PREP_FILTERED;
	if ((f->set & MAGNET_FT_ADDR) &&
	    !magnet_filter_addr_match(f, p->family, out ? p->saddr : p->daddr) &&
	    !magnet_filter_addr_match(f, p->family, out ? p->daddr : p->saddr))
		return MAGNET_PREP_FILTERED;

	e->flags = MAGNET_RF_IP | MAGNET_RF_HDR |
		   (dev && (ndev || !drop) ? MAGNET_RF_DEV : 0) |
		   (p->has_seq ? MAGNET_RF_SEQ : 0);
	sk = skb->sk;
	if (out && sk && sk_fullsock(sk))
		e->flags |= MAGNET_RF_SOCK;
	else
		sk = NULL;
	e->state = sk ? READ_ONCE(sk->sk_state) : 0;
	e->mark = skb->mark;
	e->ifindex = dev && ndev ? ndev->ifindex : 0;
	k->sk = sk ? magnet_sock_id(sk) : 0;
	k->lport = lport;
	k->rport = rport;
	k->family = p->family;
	k->netns = magnet_net_id(net);
	k->zero = 0;
	alen = p->family == 4 ? 4 : 16;
	memset(k->laddr, 0, sizeof(k->laddr));
	memset(k->raddr, 0, sizeof(k->raddr));
	memcpy(k->laddr, out ? p->saddr : p->daddr, alen);
	memcpy(k->raddr, out ? p->daddr : p->saddr, alen);
	return MAGNET_PREP_OK;
}

/*
 * Write the event @event that @e prepared, with @part (@part_len bytes,
 * a DROP or QDISC event's part, else 0) after its options. Reads nothing
 * of the packet but the TCP options @e->p.topts points to, in the packet
 * unless the caller copied them into @e->p.optbuf (the enqueue's end).
 */
static __always_inline void magnet_pkt_write(const struct magnet_pkt_ev *e,
					     u16 event, const void *part,
					     unsigned int part_len)
{
	const struct magnet_pkt *p = &e->p;
	unsigned int optlen = p->thlen > 20 ? p->thlen - 20U : 0;
	struct magnet_v3_pkt *k3;
	struct magnet_rec c;

	k3 = magnet_rec_begin(&c, &e->k, event, e->flags,
			      MAGNET_V3_PKT_SIZE + ((optlen + 7) & ~7U) +
			      part_len);
	if (!k3)
		return;
	k3->len = p->len;
	k3->mark = e->mark;
	k3->seq = p->has_seq ? p->seq : 0;
	k3->end_seq = p->has_seq ? p->end_seq : 0;
	k3->ifindex = e->ifindex;
	k3->ip_id = p->id;
	k3->ip_hlen = p->nhlen;
	k3->ip_frag = p->frag;
	k3->state = e->state;
	k3->ip_tos = p->tos;
	k3->ip_ttl = p->ttl;
	k3->ip_proto = p->proto;
	k3->tcp_hlen = p->thlen;
	k3->reserved[0] = 0;
	k3->reserved[1] = 0;
	if (p->thlen) {
		k3->tcp_ack = p->ack;
		k3->tcp_win = p->win;
		k3->tcp_flags = p->tflags;
	} else {
		k3->tcp_ack = 0;
		k3->tcp_win = 0;
		k3->tcp_flags = 0;
	}
	/* the options, then zeros to the 8-byte boundary */
	if (optlen) {
		u8 *o = (u8 *)(k3 + 1);

		*(u64 *)(o + ((optlen - 1) & ~7U)) = 0;
		memcpy(o, p->topts, optlen);
	}
	if (part_len)
		memcpy((u8 *)(k3 + 1) + ((optlen + 7) & ~7U), part, part_len);
	magnet_rec_end(&c);
}

/* prepare and write, counting what the filter left out or could not parse */
static __always_inline void
magnet_pkt_event(const struct sk_buff *skb, const u8 *nh, u16 event, bool out,
		 bool dev, const struct net *net, bool drop,
		 unsigned int reason, const void *location,
		 const struct Qdisc *q)
{
	struct magnet_pkt_ev e __uninitialized;
	struct magnet_v3_drop d;
	struct magnet_v3_qdisc qd;

	if (unlikely(!skb || !nh))
		return;
	switch (magnet_pkt_prepare(&e, skb, nh, drop ? MAGNET_LAYER_DROP :
				   q ? MAGNET_LAYER_QDISC :
				   event == MAGNET_EV_WIRE_OUT ?
				   MAGNET_LAYER_WIRE :
				   dev ? MAGNET_LAYER_DEV : MAGNET_LAYER_IP,
				   out, dev, net, drop)) {
	case MAGNET_PREP_OK:
		break;
	case MAGNET_PREP_FILTERED:
		magnet_ring_filtered();
		return;
	default:
		magnet_ring_unparsed();
		return;
	}
	if (drop) {
		magnet_drop_fill(&d, reason, location);
		magnet_pkt_write(&e, event, &d, sizeof(d));
	} else if (q) {
		magnet_qdisc_fill(&qd, q);
		magnet_pkt_write(&e, event, &qd, sizeof(qd));
	} else {
		magnet_pkt_write(&e, event, NULL, 0);
	}
}

void notrace magnet_record_pkt(const struct sk_buff *skb, const u8 *nh,
			       u16 event, bool out, bool dev,
			       const struct net *net)
{
	magnet_pkt_event(skb, nh, event, out, dev, net, false, 0, NULL, NULL);
}
NOKPROBE_SYMBOL(magnet_record_pkt);

/*
 * A packet a raw socket was building from user memory when the kernel
 * freed it (@location in raw_send_hdrinc or rawv6_send_hdrinc, or the
 * sendmsg they are inlined in): with IP_HDRINCL the headers are copied
 * from the caller's buffer into a packet already marked IP, and a copy
 * that faults part-way frees it with the rest of its bytes never written.
 * Its bytes are not read. Only raw sockets' drops pay for the name.
 */
static noinline bool notrace magnet_drop_unwritten(const struct sk_buff *skb,
						   const void *location)
{
	static const char *const fns[] = { "raw_send_hdrinc",
		"rawv6_send_hdrinc", "raw_sendmsg", "rawv6_sendmsg" };
	char name[KSYM_SYMBOL_LEN];
	const char *plus;
	size_t i, n;

	if (!skb->sk || !sk_fullsock(skb->sk) ||
	    READ_ONCE(skb->sk->sk_type) != SOCK_RAW || !location)
		return false;
	snprintf(name, sizeof(name), "%ps", location);
	/* the name alone: without GCC's suffix (".constprop.0") or the
	 * module's (" [ipv6]") */
	plus = strpbrk(name, ". ");
	n = plus ? (size_t)(plus - name) : strlen(name);
	for (i = 0; i < ARRAY_SIZE(fns); i++)
		if (n == strlen(fns[i]) && !memcmp(name, fns[i], n))
			return true;
	return false;
}
NOKPROBE_SYMBOL(magnet_drop_unwritten);

/*
 * A DROP event: the packet @skb, whose network header is at @nh, as an IP
 * event has it (a device event when @skb has a device), and the drop part
 * last (magnet_drop_fill(), for a packet that passed the filter). A packet
 * whose bytes may never have been written is not read: counted as one that
 * could not be parsed.
 */
void notrace magnet_record_drop(const struct sk_buff *skb, const u8 *nh,
				bool out, unsigned int reason,
				const void *location, const struct sock *rx_sk)
{
	if (unlikely(skb->sk && magnet_drop_unwritten(skb, location))) {
		magnet_ring_unparsed();
		return;
	}
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

/*
 * A WIRE_OUT event: the packet @skb, whose network header is at @nh, that
 * its device (skb->dev) hands to its driver, after the qdisc, as a device
 * event has it (events=wire, its own layer of the filter)
 */
void notrace magnet_record_wire(const struct sk_buff *skb, const u8 *nh)
{
	magnet_pkt_event(skb, nh, MAGNET_EV_WIRE_OUT, true, true, NULL, false,
			 0, NULL, NULL);
}
NOKPROBE_SYMBOL(magnet_record_wire);

/*
 * The IP header of the frame @skb at a device whose skb->protocol is a
 * VLAN's (802.1Q, 802.1ad): its tags (up to two) are in its data, not in
 * skb->vlan_tci (a VLAN device with reorder_hdr off, a receive the driver
 * did not untag, a frame sent as it came). NULL: no IP packet behind them.
 * @pushed: the link header is pushed and the network header set (a frame
 * being sent): the innermost tag's protocol is right before it. Else data
 * is the outer tag (the link header pulled).
 */
const u8 *notrace magnet_vlan_nh(const struct sk_buff *skb, bool pushed)
{
	struct vlan_hdr vh;
	__be16 proto = skb->protocol;
	int off;
	int i;

	if (pushed) {
		off = skb_network_offset(skb);
		if (off < (int)sizeof(vh) ||
		    skb_copy_bits(skb, off - 2, &proto, sizeof(proto)))
			return NULL;
	} else {
		for (off = 0, i = 0; i < 2 && eth_type_vlan(proto); i++) {
			if (skb_copy_bits(skb, off, &vh, sizeof(vh)))
				return NULL;
			proto = vh.h_vlan_encapsulated_proto;
			off += sizeof(vh);
		}
	}
	if (proto != htons(ETH_P_IP) && proto != htons(ETH_P_IPV6))
		return NULL;
	return pushed ? skb_network_header(skb) : skb->data + off;
}
NOKPROBE_SYMBOL(magnet_vlan_nh);

/*
 * A packet on its way into a device's root qdisc (qdisc.c): its event is
 * prepared at dev_qdisc_enqueue()'s entry, where the packet is still the
 * caller's, and written by qdisc:qdisc_enqueue's probe at that function's
 * end, if the qdisc kept it. By then the packet may be freed: a qdisc that
 * splits a GSO packet (tbf beyond its burst, cake, netem corrupting,
 * taprio) queues the segments and frees the original before it returns.
 * So the end reads nothing of the packet: it compares its address with the
 * one the entry saw, and walks only the list of packets the caller frees
 * after the root lock (alive until then). Both run on one CPU with bottom
 * halves off (__dev_queue_xmit's rcu_read_lock_bh(); on PREEMPT_RT a per-CPU
 * lock that also keeps the task on it), so no other enqueue comes between.
 */
struct magnet_qdisc_pending {
	const struct sk_buff *skb;	/* compared, never read at the end */
	const struct Qdisc *q;
	const struct netdev_queue *txq;
	struct sk_buff **to_free;
	bool ready;			/* @e holds a prepared event */
	struct magnet_pkt_ev e;
};

static DEFINE_PER_CPU(struct magnet_qdisc_pending, magnet_qdisc_pending);

/* dev_qdisc_enqueue(@skb, @q, @to_free, @txq)'s entry (probes.c) */
void notrace magnet_qdisc_enq_begin(const struct sk_buff *skb,
				    const struct Qdisc *q,
				    struct sk_buff **to_free,
				    const struct netdev_queue *txq)
{
	struct magnet_qdisc_pending *pd = this_cpu_ptr(&magnet_qdisc_pending);
	const u8 *nh;

	pd->skb = skb;
	pd->q = q;
	pd->txq = txq;
	pd->to_free = to_free;
	pd->ready = false;
	if (unlikely(!skb || !q || !to_free) || !skb->dev)
		return;
	nh = magnet_out_nh(skb);
	if (!nh)
		return;
	switch (magnet_pkt_prepare(&pd->e, skb, nh, MAGNET_LAYER_QDISC, true,
				   true, NULL, false)) {
	case MAGNET_PREP_OK:
		/*
		 * the TCP options are the one part of the parse that points
		 * into the packet (pktparse.h: topts, in place or in optbuf):
		 * copied into the slot's own optbuf, as the end must not
		 * read the packet (KFENCE caught that read on 7.2, the
		 * packet freed by tbf_enqueue's split)
		 */
		if (pd->e.p.thlen > 20 && pd->e.p.topts != pd->e.p.optbuf) {
			memcpy(pd->e.p.optbuf, pd->e.p.topts,
			       pd->e.p.thlen - 20U);
			pd->e.p.topts = pd->e.p.optbuf;
		}
		pd->ready = true;
		break;
	case MAGNET_PREP_FILTERED:
		magnet_ring_filtered();
		break;
	default:
		magnet_ring_unparsed();
	}
}
NOKPROBE_SYMBOL(magnet_qdisc_enq_begin);

/* an entry the probe could not take (probes.c): forget the last one's */
void notrace magnet_qdisc_enq_missed(void)
{
	this_cpu_write(magnet_qdisc_pending.ready, false);
}
NOKPROBE_SYMBOL(magnet_qdisc_enq_missed);

/* the longest list of packets to free that is walked (a qdisc's drops in
 * one enqueue: fq_codel's batch is 64) */
#define MAGNET_TO_FREE_MAX 1024

/*
 * qdisc:qdisc_enqueue(@q, @txq, @skb): the root qdisc @q said it took @skb
 * (NET_XMIT_SUCCESS once dev_qdisc_enqueue() masked the flags). @skb's
 * address is only compared. The event is written if the entry prepared
 * it, with the qdisc's state now, unless @skb is on the list to free: a
 * qdisc that dropped it and still said success (netem's loss, a
 * classifier's STOLEN, QUEUED, TRAP or SHOT verdict: __NET_XMIT_BYPASS or
 * __NET_XMIT_STOLEN, which the mask took away).
 */
void notrace magnet_qdisc_enq_end(const struct Qdisc *q,
				  const struct netdev_queue *txq,
				  const struct sk_buff *skb)
{
	struct magnet_qdisc_pending *pd = this_cpu_ptr(&magnet_qdisc_pending);
	struct magnet_v3_qdisc qd;
	const struct sk_buff *n;
	int i;

	/* the entry's arguments are the tracepoint's: the function's
	 * layout is as read (compat.h), and to_free is its third */
	if (!pd->ready || pd->skb != skb || pd->q != q || pd->txq != txq)
		return;
	pd->ready = false;
	for (n = *pd->to_free, i = 0; n; n = n->next, i++) {
		if (n == skb)
			return;		/* not kept */
		if (unlikely(i == MAGNET_TO_FREE_MAX)) {
			magnet_ring_unparsed();
			return;
		}
	}
	magnet_qdisc_fill(&qd, q);
	magnet_pkt_write(&pd->e, MAGNET_EV_QDISC_ENQ, &qd, sizeof(qd));
}
NOKPROBE_SYMBOL(magnet_qdisc_enq_end);
