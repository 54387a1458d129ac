// SPDX-License-Identifier: GPL-2.0
/*
 * Queueing (events=qdisc): the qdisc:qdisc_dequeue tracepoint, which the
 * kernel fires when a device's root qdisc lets packets go toward the
 * driver (one dequeue may take several, chained). Each IP packet that
 * passes the filter becomes a QDISC event (rec_pkt.c): its headers as a
 * device event has them, on the qdisc's device, and the qdisc part: which
 * qdisc, and what it still holds. How long a packet waited is its QDISC
 * event's time minus its dev_out event's (__dev_queue_xmit's entry,
 * before the enqueue). A packet an empty qdisc hands straight to the
 * driver (TCQ_F_CAN_BYPASS: pfifo_fast, fq_codel) is never dequeued and
 * has no QDISC event; tbf, netem, prio and htb never bypass. The
 * tracepoint is found by name, as tcpev.c's are (it is not exported).
 */
#include <linux/skbuff.h>
#include <linux/netdevice.h>
#include <net/sch_generic.h>
#include "compat.h"
#include "rec.h"

void notrace magnet_qdisc_fill(struct magnet_v3_qdisc *qd, const struct Qdisc *q)
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

/* the tracepoint's probe: @packets packets from @skb on, chained */
void notrace magnet_qdisc_dequeue(void *data, struct Qdisc *q,
				  const struct netdev_queue *txq, int packets,
				  struct sk_buff *skb)
{
	int i;

	if (unlikely(!q))
		return;
	for (i = 0; skb && i < packets; i++, skb = skb->next)
		if (skb->dev && (skb->protocol == htons(ETH_P_IP) ||
				 skb->protocol == htons(ETH_P_IPV6)))
			magnet_record_qdisc(skb, skb_network_header(skb), q);
}
NOKPROBE_SYMBOL(magnet_qdisc_dequeue);
