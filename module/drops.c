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
#include <linux/if_vlan.h>
#include "compat.h"
#include "rec.h"

static bool magnet_drops_registered;

static void notrace magnet_kfree_skb(void *data, MAGNET_KFREE_SKB_ARGS)
{
	const u8 *nh;
	bool out;

	if (unlikely(!skb))
		return;
	/* the probe's own read-side section (magnet_filter(), the reason's
	 * name, the device found): a kernel may run it preemptible */
	rcu_read_lock();
	if (likely(skb->protocol == htons(ETH_P_IP) ||
		   skb->protocol == htons(ETH_P_IPV6))) {
		nh = skb_network_header(skb);
		/*
		 * A received frame dropped before the stack set its network
		 * header (a full backlog, right after eth_type_trans() pulled
		 * the link header): it is where data is
		 */
		if (skb_mac_header_was_set(skb) &&
		    skb->network_header < skb->mac_header)
			nh = skb->data;
	} else if (eth_type_vlan(skb->protocol)) {
		/* VLAN tags in the data: before the network header if it is
		 * set beyond data (a frame being sent, or received with it
		 * set), else from data on (magnet_vlan_nh()) */
		nh = magnet_vlan_nh(skb, skb_network_header(skb) > skb->data);
	} else {
		nh = NULL;
	}
	if (nh) {
		/*
		 * A packet this host sends: made here (no device received
		 * it), or with its link header pushed for a device's transmit
		 * (a router's qdisc or driver dropped it). Else as it was
		 * received.
		 */
		out = !skb->skb_iif || skb->data < nh;
		magnet_record_drop(skb, nh, out, MAGNET_KFREE_SKB_REASON,
				   location, MAGNET_KFREE_SKB_RX_SK);
	}
	rcu_read_unlock();
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
