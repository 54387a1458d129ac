// SPDX-License-Identifier: GPL-2.0
/*
 * Queueing (events=qdisc): the qdisc:qdisc_dequeue tracepoint, which the
 * kernel fires when a device's root qdisc lets packets go toward the
 * driver (one dequeue may take several, chained), and the enqueue (from
 * 6.1; 5.10 has neither the tracepoint nor the function: compat.h). Each
 * IP packet that passes the filter, untagged or behind VLAN tags in its
 * data, becomes a QDISC event, and a QDISC_ENQ one (rec_pkt.c): its
 * headers as a device event has them, on the qdisc's device, and the
 * qdisc part: which qdisc, and what it holds (after the dequeue; with the
 * packet, after the enqueue).
 *
 * The enqueue is taken in two halves, because qdisc:qdisc_enqueue fires
 * after the qdisc returned, when the packet may be freed (a qdisc that
 * splits a GSO packet frees it; docs/reliability.md, "What a probe may
 * touch"): the packet is read at dev_qdisc_enqueue()'s entry (an ftrace
 * probe, probes.c), and the tracepoint's probe writes the event only if
 * the qdisc kept it, reading nothing of the packet (rec_pkt.c,
 * magnet_qdisc_enq_end()). A GSO packet the qdisc splits has one
 * QDISC_ENQ event, the packet it was given (its length, sequence range
 * and first IP id the segments share out), and a QDISC event for each
 * segment it became: a segment's wait is its QDISC event's time minus
 * that of the QDISC_ENQ whose range holds it.
 *
 * How long a packet waited is its QDISC event's time minus its QDISC_ENQ
 * event's, or without one its dev_out event's (__dev_queue_xmit's entry,
 * before the enqueue). A packet an empty qdisc hands straight to the
 * driver (TCQ_F_CAN_BYPASS: pfifo_fast, fq_codel) is never enqueued nor
 * dequeued and has neither event; tbf, netem, prio and htb never bypass.
 * The tracepoints are found by name (tracepoints.c): they are not
 * exported.
 *
 * And where the packet leaves (events=wire): net:net_dev_start_xmit, as
 * the device hands it to its driver, after the qdisc, right after the
 * taps (tcpdump) got it: a WIRE_OUT event, a device event's.
 */
#include <linux/skbuff.h>
#include <linux/netdevice.h>
#include <net/sch_generic.h>
#include "compat.h"
#include "rec.h"

/* an IP packet (or one behind VLAN tags) leaving the qdisc @q */
static __always_inline void magnet_qdisc_packet(struct sk_buff *skb,
						const struct Qdisc *q)
{
	const u8 *nh = skb->dev ? magnet_out_nh(skb) : NULL;

	if (nh)
		magnet_record_qdisc(skb, nh, q, MAGNET_EV_QDISC);
}

/*
 * the tracepoint's probe: @packets packets from @skb on, chained, just
 * taken off the qdisc under its lock and not yet given to the driver
 */
void notrace magnet_qdisc_dequeue(void *data, struct Qdisc *q,
				  const struct netdev_queue *txq, int packets,
				  struct sk_buff *skb)
{
	int i;

	if (unlikely(!q))
		return;
	rcu_read_lock();
	for (i = 0; skb && i < packets; i++, skb = skb->next)
		magnet_qdisc_packet(skb, q);
	rcu_read_unlock();
}
NOKPROBE_SYMBOL(magnet_qdisc_dequeue);

/*
 * qdisc:qdisc_enqueue's probe: the root qdisc @q said it took @skb in.
 * @skb may be freed already: it is never read (rec_pkt.c). @q is alive:
 * its root lock is held, or (TCQ_F_NOLOCK) the caller's RCU-bh section.
 */
void notrace magnet_qdisc_enqueue(void *data, struct Qdisc *q,
				  const struct netdev_queue *txq,
				  struct sk_buff *skb)
{
	if (unlikely(!q))
		return;
	rcu_read_lock();
	magnet_qdisc_enq_end(q, txq, skb);
	rcu_read_unlock();
}
NOKPROBE_SYMBOL(magnet_qdisc_enqueue);

/*
 * net:net_dev_start_xmit's probe (events=wire): the device @dev hands
 * @skb to its driver, after its qdisc (or at once, with none), right
 * after the taps (tcpdump) were given it: the time it leaves, where a
 * capture on the device sees it. A GSO packet the device takes whole is
 * one event, as the capture has it; one segmented before the driver, an
 * event per segment. @skb is the caller's until the driver has it: alive.
 * A VLAN device's frame is seen on it and again on its parent.
 */
void notrace magnet_wire_out(void *data, const struct sk_buff *skb,
			     const struct net_device *dev)
{
	const u8 *nh;

	if (unlikely(!skb || !skb->dev))
		return;
	rcu_read_lock();
	nh = magnet_out_nh(skb);
	if (nh)
		magnet_record_wire(skb, nh);
	rcu_read_unlock();
}
NOKPROBE_SYMBOL(magnet_wire_out);
