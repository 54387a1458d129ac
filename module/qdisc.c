// SPDX-License-Identifier: GPL-2.0
/*
 * Queueing (events=qdisc): the qdisc:qdisc_dequeue tracepoint, which the
 * kernel fires when a device's root qdisc lets packets go toward the
 * driver (one dequeue may take several, chained), and qdisc:qdisc_enqueue
 * (used from 6.1; 5.10 has none: compat.h), which it fires when the root
 * qdisc has taken a packet in. Each IP packet that passes the filter becomes a
 * QDISC event, and a QDISC_ENQ one (rec_pkt.c): its headers as a device
 * event has them, on the qdisc's device, and the qdisc part: which qdisc,
 * and what it holds (after the dequeue; with the packet, after the
 * enqueue). How long a packet waited is its QDISC event's time minus its
 * QDISC_ENQ event's, or without one its dev_out event's
 * (__dev_queue_xmit's entry, before the enqueue). A packet an empty
 * qdisc hands straight to the driver (TCQ_F_CAN_BYPASS: pfifo_fast,
 * fq_codel) is never enqueued nor dequeued and has neither event; tbf,
 * netem, prio and htb never bypass. The tracepoints are found by name,
 * as tcpev.c's are (they are not exported).
 */
#include <linux/skbuff.h>
#include <linux/netdevice.h>
#include <net/sch_generic.h>
#include "compat.h"
#include "rec.h"

/* an IP packet on a device: its event (@event), the qdisc @q's part last */
static __always_inline void magnet_qdisc_packet(struct sk_buff *skb,
						const struct Qdisc *q,
						u16 event)
{
	if (skb->dev && (skb->protocol == htons(ETH_P_IP) ||
			 skb->protocol == htons(ETH_P_IPV6)))
		magnet_record_qdisc(skb, skb_network_header(skb), q, event);
}

/* the tracepoint's probe: @packets packets from @skb on, chained */
void notrace magnet_qdisc_dequeue(void *data, struct Qdisc *q,
				  const struct netdev_queue *txq, int packets,
				  struct sk_buff *skb)
{
	int i;

	if (unlikely(!q))
		return;
	for (i = 0; skb && i < packets; i++, skb = skb->next)
		magnet_qdisc_packet(skb, q, MAGNET_EV_QDISC);
}
NOKPROBE_SYMBOL(magnet_qdisc_dequeue);

/*
 * qdisc:qdisc_enqueue's probe: @skb, which the qdisc @q took in. The
 * kernel fires it after the enqueue. A qdisc that takes no lock
 * (TCQ_F_NOLOCK: pfifo_fast) may have let the packet go on another CPU
 * by then, and the driver freed it: its packets are not read (nor are
 * its numbers known, it counts per CPU). Any other qdisc enqueues and
 * dequeues under its root lock, which the kernel holds here.
 */
void notrace magnet_qdisc_enqueue(void *data, struct Qdisc *q,
				  const struct netdev_queue *txq,
				  struct sk_buff *skb)
{
	if (unlikely(!q || !skb) || (q->flags & TCQ_F_NOLOCK))
		return;
	magnet_qdisc_packet(skb, q, MAGNET_EV_QDISC_ENQ);
}
NOKPROBE_SYMBOL(magnet_qdisc_enqueue);
