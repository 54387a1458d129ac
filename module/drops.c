// SPDX-License-Identifier: GPL-2.0
/*
 * Drops (events=drop): the skb:kfree_skb tracepoint, which the kernel fires
 * for a packet it frees as dropped (kfree_skb() and, from 5.17,
 * kfree_skb_reason(); a packet that served its purpose goes through
 * consume_skb(), another tracepoint). Each IP packet it frees that passes
 * the filter becomes a DROP event (rec_pkt.c): its headers as an IP or
 * device event has them, and why (the kernel's drop reason, from 5.17) and
 * where (the function that freed it, by name).
 *
 * A path that frees a packet with __kfree_skb() fires nothing: on 5.10,
 * TCP's own drops (tcp_drop(): a full receive queue, an out-of-window
 * segment) are such.
 */
#include <linux/skbuff.h>
#include <linux/netdevice.h>
#include <linux/tracepoint.h>
#include <linux/seq_file.h>
#include <linux/uaccess.h>
#include <net/net_namespace.h>
#include "compat.h"
#include "rec.h"

static bool magnet_drops_registered;

/*
 * The drop part for @reason and @location: the reason's name, and the
 * function @location is in. An address that is in no known function is
 * written as "?", never as a number.
 */
void notrace magnet_drop_fill(struct magnet_v3_drop *d, unsigned int reason,
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
struct net_device *notrace magnet_drop_dev(const struct sk_buff *skb,
					   const struct net *rx_net)
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

static void notrace magnet_kfree_skb(void *data, MAGNET_KFREE_SKB_ARGS)
{
	const u8 *nh;

	if (unlikely(!skb) || (skb->protocol != htons(ETH_P_IP) &&
			       skb->protocol != htons(ETH_P_IPV6)))
		return;
	nh = skb_network_header(skb);
	/*
	 * A received frame dropped before the stack set its network header
	 * (a full backlog, right after eth_type_trans() pulled the link
	 * header): it is where data is
	 */
	if (skb_mac_header_was_set(skb) &&
	    skb->network_header < skb->mac_header)
		nh = skb->data;
	/*
	 * A packet this host sends: made here (no device received it), or
	 * with its link header pushed for a device's transmit (a router's
	 * qdisc or driver dropped it). Else as it was received.
	 */
	magnet_record_drop(skb, nh, !skb->skb_iif || skb->data < nh,
			   MAGNET_KFREE_SKB_REASON, location,
			   MAGNET_KFREE_SKB_RX_SK);
}
NOKPROBE_SYMBOL(magnet_kfree_skb);

int magnet_drops_register(void)
{
	int ret;

	BUILD_BUG_ON(!MAGNET_KFREE_SKB_SIGNATURE_OK);
	if (magnet_drops_registered)
		return 0;
	ret = tracepoint_probe_register(&__tracepoint_kfree_skb,
					(void *)magnet_kfree_skb, NULL);
	if (ret) {
		pr_err("drops: the skb:kfree_skb tracepoint cannot be probed (error %d)\n",
		       ret);
		return ret;
	}
	magnet_drops_registered = true;
	return 0;
}

/* Returns once the probe runs on no CPU. */
void magnet_drops_unregister(void)
{
	if (!magnet_drops_registered)
		return;
	tracepoint_probe_unregister(&__tracepoint_kfree_skb,
				    (void *)magnet_kfree_skb, NULL);
	tracepoint_synchronize_unregister();
	magnet_drops_registered = false;
}

void magnet_drops_show(struct seq_file *m)
{
	if (magnet_drops_registered)
		seq_puts(m, "probe\tdrop\ttracepoint\tskb:kfree_skb\n");
}
