// SPDX-License-Identifier: GPL-2.0
/*
 * The probes: where each MAGNeT event is taken, and the handlers that
 * pass their arguments to the record builders (rec.h).
 *
 *   layer  out (send path)           in (receive path)
 *   app    tcp_sendmsg (kretprobe)   tcp_recvmsg (kretprobe)
 *   tcp    __tcp_transmit_skb        tcp_v4_do_rcv, tcp_v6_do_rcv
 *   ip     ip_output, ip6_output     ip_rcv_core/ip_rcv, ip6_rcv_core/ipv6_rcv
 *   dev    __dev_queue_xmit          __netif_receive_skb
 *
 * TCP's decisions (events=retrans): the RTO at tcp_retransmit_timer's
 * entry (ftrace), the tail loss probe at tcp_send_loss_probe (a
 * kretprobe: from its entry to its return the CPU's retransmissions of
 * that socket are the probe's, and its return records it with what it
 * sent); tcpev.c has their handlers and the tracepoints' (retransmissions,
 * state changes), which tracepoints.c registers. Receive-buffer
 * autotuning (events=rcvbuf): tcp_rcvbuf_grow, else tcp_rcv_space_adjust (a
 * kretprobe: its entry notes the socket's buffer and window clamp, its
 * return records them if they grew; rec_tcp.c).
 *
 * Three more handlers record nothing: tcp_add_backlog's (ftrace) notes
 * where a socket's backlog starts; the return of __release_sock (a
 * kretprobe), where the owner has drained it, forgets it, and
 * tcp_release_cb (ftrace), which release_sock calls after it up to 6.x and
 * only for deferred work in 7.x, forgets a backlog whose first segment was
 * dropped; so that records carry segs_in as TCP processed it (backlog.c).
 *
 * Each probe point is resolved on the running kernel from a list of
 * candidate functions. Packet and TCP handlers are ftrace callbacks at the
 * function's entry; the application handlers are kretprobes, which see the
 * size asked for at entry and the return value.
 */
#include <linux/kprobes.h>
#include <linux/ftrace.h>
#include <linux/kallsyms.h>
#include <linux/if_ether.h>
#include <linux/if_vlan.h>
#include <linux/tcp.h>
#include <linux/netdevice.h>
#include <linux/seq_file.h>
#include <net/sock.h>
#include <net/tcp.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include "compat.h"
#include "rec.h"

/* ------------------------------------------------------ probe table */

struct magnet_candidate {
	const char *name;
	u8 skb_arg;		/* packet probes: which argument is the skb */
};

struct magnet_probe {
	const char *what;
	unsigned int layer;		/* MAGNET_LAYER_* */
	unsigned int direction;		/* MAGNET_DIR_OUT or MAGNET_DIR_IN */
	bool optional;			/* IPv6 may be absent */
	const struct magnet_candidate *candidates;
	ftrace_func_t handler;		/* ftrace probes */
	kretprobe_handler_t entry, ret;	/* kretprobes */
	u16 event;
	/* state */
	bool registered;
	bool absent;			/* optional and not found */
	const char *chosen;
	u8 skb_arg;
	atomic_long_t missed;
	atomic_long_t krp_seen;		/* kretprobe misses already reported */
	struct ftrace_ops ops;
	struct kretprobe krp;
};

/*
 * A kretprobe miss (no free instance: more calls in flight than maxactive;
 * or another kprobe running on this CPU) is counted by the kprobes core
 * in a global counter, without running any handler of ours. The next call
 * that reaches a handler, or the reader at the end of a drain, notices the
 * counter grew and reports the difference on its CPU, so the stream shows
 * it in the next LOST record, close to where it happened.
 */
static void notrace magnet_krp_sweep(struct magnet_probe *p)
{
	unsigned long now = READ_ONCE(p->krp.nmissed) +
			    READ_ONCE(p->krp.kp.nmissed);
	unsigned long seen = atomic_long_read(&p->krp_seen);

	if (likely(now <= seen))	/* also while re-registering */
		return;
	if (atomic_long_cmpxchg(&p->krp_seen, seen, now) == seen)
		magnet_ring_missed(magnet_rings, now - seen);
}
NOKPROBE_SYMBOL(magnet_krp_sweep);

/* application calls: each entry first reports the misses not seen yet */
static int notrace magnet_app_send_entry(struct kretprobe_instance *ri,
					 struct pt_regs *regs)
{
	magnet_krp_sweep(container_of(get_kretprobe(ri), struct magnet_probe,
				      krp));
	return magnet_app_entry((struct magnet_app_call *)ri->data, regs, true);
}
NOKPROBE_SYMBOL(magnet_app_send_entry);

static int notrace magnet_app_recv_entry(struct kretprobe_instance *ri,
					 struct pt_regs *regs)
{
	magnet_krp_sweep(container_of(get_kretprobe(ri), struct magnet_probe,
				      krp));
	return magnet_app_entry((struct magnet_app_call *)ri->data, regs,
				false);
}
NOKPROBE_SYMBOL(magnet_app_recv_entry);

static int notrace magnet_app_send_ret(struct kretprobe_instance *ri,
				       struct pt_regs *regs)
{
	return magnet_app_return((const struct magnet_app_call *)ri->data,
				 regs, MAGNET_EV_APP_SEND);
}
NOKPROBE_SYMBOL(magnet_app_send_ret);

static int notrace magnet_app_recv_ret(struct kretprobe_instance *ri,
				       struct pt_regs *regs)
{
	return magnet_app_return((const struct magnet_app_call *)ri->data,
				 regs, MAGNET_EV_APP_RECV);
}
NOKPROBE_SYMBOL(magnet_app_recv_ret);

/*
 * tcp_send_loss_probe(sk): its entry keeps the socket and its
 * tlp_high_seq in the instance (struct magnet_app_call's sk and seq), its
 * return writes the TLP event (tcpev.c)
 */
static int notrace magnet_tlp_entry(struct kretprobe_instance *ri,
				    struct pt_regs *regs)
{
	struct magnet_app_call *call = (struct magnet_app_call *)ri->data;

	magnet_krp_sweep(container_of(get_kretprobe(ri), struct magnet_probe,
				      krp));
	call->sk = (struct sock *)regs_get_kernel_argument(regs, 0);
	if (!call->sk)
		return 1;	/* no return probe */
	call->seq = magnet_tcpev_tlp_begin(call->sk);
	return 0;
}
NOKPROBE_SYMBOL(magnet_tlp_entry);

static int notrace magnet_tlp_ret(struct kretprobe_instance *ri,
				  struct pt_regs *regs)
{
	const struct magnet_app_call *call =
		(const struct magnet_app_call *)ri->data;

	magnet_tcpev_tlp_end(call->sk, call->seq);
	return 0;
}
NOKPROBE_SYMBOL(magnet_tlp_ret);

/*
 * tcp_rcvbuf_grow(sk, ...) or tcp_rcv_space_adjust(sk) (events=rcvbuf):
 * receive-buffer autotuning, with the socket held. Its entry keeps
 * the socket, its sk_rcvbuf and window_clamp in the instance (struct
 * magnet_app_call's sk, seq and req); its return writes a RCVBUF event if
 * either changed.
 */
static int notrace magnet_rcvbuf_entry(struct kretprobe_instance *ri,
				       struct pt_regs *regs)
{
	struct magnet_app_call *call = (struct magnet_app_call *)ri->data;
	struct sock *sk = (struct sock *)regs_get_kernel_argument(regs, 0);

	magnet_krp_sweep(container_of(get_kretprobe(ri), struct magnet_probe,
				      krp));
	if (unlikely(!sk) || !sk_fullsock(sk) ||
	    sk->sk_protocol != IPPROTO_TCP)
		return 1;	/* no return probe */
	call->sk = sk;
	call->seq = (u32)READ_ONCE(sk->sk_rcvbuf);
	call->req = READ_ONCE(tcp_sk(sk)->window_clamp);
	return 0;
}
NOKPROBE_SYMBOL(magnet_rcvbuf_entry);

static int notrace magnet_rcvbuf_ret(struct kretprobe_instance *ri,
				     struct pt_regs *regs)
{
	const struct magnet_app_call *call =
		(const struct magnet_app_call *)ri->data;
	struct sock *sk = call->sk;

	if ((u32)READ_ONCE(sk->sk_rcvbuf) != call->seq ||
	    READ_ONCE(tcp_sk(sk)->window_clamp) != (u32)call->req)
		magnet_record_rcvbuf(sk, call->seq, (u32)call->req);
	return 0;
}
NOKPROBE_SYMBOL(magnet_rcvbuf_ret);

static void notrace magnet_probe_missed(struct ftrace_ops *op)
{
	atomic_long_inc(&container_of(op, struct magnet_probe, ops)->missed);
	magnet_ring_missed(magnet_rings, 1);
}
NOKPROBE_SYMBOL(magnet_probe_missed);

/*
 * ftrace handlers. Unlike a kprobe, which is dropped (nmissed) whenever any
 * kprobe is already running on the CPU, ftrace's recursion guard is per
 * context: a softirq that interrupts a handler in task context records its
 * own event. A miss is left only for true same-context recursion, and is
 * counted.
 */
#define MAGNET_FTRACE_HANDLER(name, body)                                    \
static void notrace name(unsigned long ip, unsigned long parent_ip,          \
			 struct ftrace_ops *op, magnet_fregs_t *fregs)       \
{                                                                            \
	struct magnet_probe *p __maybe_unused =                              \
		container_of(op, struct magnet_probe, ops);                  \
	int bit = magnet_ftrace_trylock(ip, parent_ip);                      \
									     \
	if (unlikely(bit < 0)) {                                             \
		magnet_probe_missed(op);                                     \
		return;                                                      \
	}                                                                    \
	{ body; }                                                            \
	magnet_ftrace_unlock(bit);                                           \
}                                                                            \
NOKPROBE_SYMBOL(name)

#define ARG(n) magnet_ftrace_arg(fregs, n)
#define SKB ((struct sk_buff *)ARG(p->skb_arg))

/* tcp_retransmit_timer(sk): the RTO fired */
MAGNET_FTRACE_HANDLER(magnet_rto_h, magnet_tcpev_rto((struct sock *)ARG(0)));

/* __tcp_transmit_skb(sk, skb, ...), tcp_v4_do_rcv(sk, skb) */
MAGNET_FTRACE_HANDLER(magnet_tcp_h,
	magnet_record_tcp((struct sock *)ARG(0), (struct sk_buff *)ARG(1),
			  p->event));
/*
 * tcp_add_backlog(sk, skb, ...), under the socket spinlock: the segment
 * waits for the task that owns the socket. sk_backlog.len is reset only
 * when __release_sock has drained the backlog: 0 means none is pending.
 * A listener's backlog holds no data of a connection: not counted.
 */
static void notrace magnet_bl_add(const struct sock *sk,
				   const struct sk_buff *skb)
{
	u32 segs, dsegs;

	if (!sk || !skb || READ_ONCE(sk->sk_state) == TCP_LISTEN)
		return;
	magnet_skb_segs(skb, &segs, &dsegs);
	magnet_backlog_add(sk, segs, dsegs, !READ_ONCE(sk->sk_backlog.len));
}
NOKPROBE_SYMBOL(magnet_bl_add);

MAGNET_FTRACE_HANDLER(magnet_bl_add_h,
	magnet_bl_add((const struct sock *)ARG(0),
		      (const struct sk_buff *)ARG(1)));
/*
 * tcp_release_cb(sk), from release_sock under the spinlock, after any
 * drain: a slot the socket still holds is one whose first segment
 * tcp_add_backlog dropped, or whose drain the return probe missed. Up to
 * 6.x every release_sock calls it, about one TCP event in two in make
 * bench, and the search for a slot cost 38 instructions an event there
 * (bench-insn): magnet_backlog_release() searches only while a socket of
 * the same home slot holds one.
 */
MAGNET_FTRACE_HANDLER(magnet_bl_release_h,
	const struct sock *sk = (const struct sock *)ARG(0);
	if (sk)
		magnet_backlog_release(sk));
/*
 * __release_sock(sk) returns with the backlog drained and the socket
 * spinlock held, from release_sock and __sk_flush_backlog: the socket's
 * slot is free again. A miss (no kretprobe instance) leaves the slot until
 * the socket's next backlog, or tcp_release_cb, frees it.
 */
static int notrace magnet_bl_drain_entry(struct kretprobe_instance *ri,
					 struct pt_regs *regs)
{
	struct sock *sk = (struct sock *)regs_get_kernel_argument(regs, 0);

	if (!READ_ONCE(magnet_bl_on) || !sk ||
	    READ_ONCE(sk->sk_protocol) != IPPROTO_TCP)
		return 1;	/* no return probe for this call */
	*(struct sock **)ri->data = sk;
	return 0;
}
NOKPROBE_SYMBOL(magnet_bl_drain_entry);

static int notrace magnet_bl_drained_ret(struct kretprobe_instance *ri,
					 struct pt_regs *regs)
{
	magnet_backlog_release(*(struct sock **)ri->data);
	return 0;
}
NOKPROBE_SYMBOL(magnet_bl_drained_ret);

/* tcp_v6_do_rcv(sk, skb): an IPv4 segment goes on to tcp_v4_do_rcv */
MAGNET_FTRACE_HANDLER(magnet_tcp_v6_in_h,
	struct sk_buff *skb = (struct sk_buff *)ARG(1);
	if (skb && skb->protocol != htons(ETH_P_IP))
		magnet_record_tcp((struct sock *)ARG(0), skb, p->event));
/*
 * ip_output / ip6_output(net, sk, skb): the IP header is built, at the
 * network header; the namespace from @net, as skb->dev is not set yet
 */
MAGNET_FTRACE_HANDLER(magnet_ip_out_h,
	struct sk_buff *skb = SKB;
	if (skb)
		magnet_record_pkt(skb, skb_network_header(skb), p->event,
				  true, false, (const struct net *)ARG(0)));
/* ip_rcv_core / ipv6_rcv ...: skb->data is the IP header */
MAGNET_FTRACE_HANDLER(magnet_ip_in_h,
	struct sk_buff *skb = SKB;
	if (skb)
		magnet_record_pkt(skb, skb->data, p->event, false, false,
				  NULL));
/* __dev_queue_xmit(skb, sb_dev): the link header is pushed already */
MAGNET_FTRACE_HANDLER(magnet_dev_out_h,
	struct sk_buff *skb = SKB;
	/* untagged, or behind VLAN tags in its data (rec.h) */
	const u8 *nh = skb ? magnet_out_nh(skb) : NULL;
	if (nh)
		magnet_record_pkt(skb, nh, p->event, true, true, NULL));
#if MAGNET_HAVE_QDISC_ENQUEUE
/*
 * dev_qdisc_enqueue(skb, q, to_free, txq), static in net/core/dev.c: the
 * packet, still the caller's, on its way into the root qdisc q; the
 * qdisc:qdisc_enqueue tracepoint at its end writes the event if the qdisc
 * kept it (qdisc.c, rec_pkt.c). Every call must reach the builder, or
 * forget what it prepared last: a call the recursion guard turned away
 * would otherwise leave the slot of an earlier one, whose caller's list of
 * packets to free is gone.
 */
static void notrace magnet_qdisc_enq_h(unsigned long ip,
				       unsigned long parent_ip,
				       struct ftrace_ops *op,
				       magnet_fregs_t *fregs)
{
	int bit = magnet_ftrace_trylock(ip, parent_ip);

	if (unlikely(bit < 0)) {
		/* what this CPU's last entry prepared is not this call's */
		magnet_qdisc_enq_missed();
		magnet_probe_missed(op);
		return;
	}
	magnet_qdisc_enq_begin((const struct sk_buff *)ARG(0),
			       (const struct Qdisc *)ARG(1),
			       (struct sk_buff **)ARG(2),
			       (const struct netdev_queue *)ARG(3));
	magnet_ftrace_unlock(bit);
}
NOKPROBE_SYMBOL(magnet_qdisc_enq_h);
static const struct magnet_candidate magnet_qdisc_enq_c[] = {
	{ "dev_qdisc_enqueue", 0 }, { NULL } };
#endif
/* __netif_receive_skb(skb): the link header is pulled, data = network */
MAGNET_FTRACE_HANDLER(magnet_dev_in_h,
	struct sk_buff *skb = SKB;
	if (!skb) {
		/* nothing */
	} else if (likely(skb->protocol == htons(ETH_P_IP) ||
			  skb->protocol == htons(ETH_P_IPV6))) {
		magnet_record_pkt(skb, skb->data, p->event, false, true,
				  NULL);
	} else if (eth_type_vlan(skb->protocol)) {
		/*
		 * a frame whose VLAN tags (802.1Q, 802.1ad, up to two) are in
		 * its data, not in skb->vlan_tci (a receive the driver did not
		 * untag): its IP packet is recorded like an untagged one's, at
		 * the device that carries it; one of another protocol is not
		 */
		const u8 *nh = magnet_vlan_nh(skb, false);
		if (nh)
			magnet_record_pkt(skb, nh, p->event, false, true,
					  NULL);
	});

static const struct magnet_candidate magnet_rto_c[] = {
	{ "tcp_retransmit_timer" }, { NULL } };
static const struct magnet_candidate magnet_tlp_c[] = {
	{ "tcp_send_loss_probe" }, { NULL } };
/*
 * where the buffer grows: tcp_rcvbuf_grow(sk, ...) where the kernel has it
 * apart (7.x: tcp_rcv_space_adjust calls it, and so does an out-of-order
 * arrival), else tcp_rcv_space_adjust(sk), which grows it itself
 */
static const struct magnet_candidate magnet_rcvbuf_c[] = {
	{ "tcp_rcvbuf_grow" }, { "tcp_rcv_space_adjust" }, { NULL } };
static const struct magnet_candidate magnet_app_send_c[] = {
	{ "tcp_sendmsg" }, { NULL } };
static const struct magnet_candidate magnet_app_recv_c[] = {
	{ "tcp_recvmsg" }, { NULL } };
static const struct magnet_candidate magnet_tcp_out_c[] = {
	{ "__tcp_transmit_skb" }, { "tcp_transmit_skb" }, { NULL } };
static const struct magnet_candidate magnet_tcp_backlog_c[] = {
	{ "tcp_add_backlog" }, { NULL } };
static const struct magnet_candidate magnet_tcp_release_c[] = {
	{ "tcp_release_cb" }, { NULL } };
static const struct magnet_candidate magnet_tcp_drain_c[] = {
	{ "__release_sock" }, { NULL } };
static const struct magnet_candidate magnet_tcp_v4_in_c[] = {
	{ "tcp_v4_do_rcv" }, { NULL } };
static const struct magnet_candidate magnet_tcp_v6_in_c[] = {
	{ "tcp_v6_do_rcv" }, { NULL } };
/* ip_output(net, sk, skb), ip_finish_output2(net, sk, skb) */
static const struct magnet_candidate magnet_ip_out_c[] = {
	{ "ip_output", 2 }, { "ip_finish_output2", 2 }, { NULL } };
static const struct magnet_candidate magnet_ip6_out_c[] = {
	{ "ip6_output", 2 }, { "ip6_finish_output2", 2 }, { NULL } };
/* ip_rcv_core(skb, net) also sees GRO list receives; else ip_rcv(skb, ...) */
static const struct magnet_candidate magnet_ip_in_c[] = {
	{ "ip_rcv_core", 0 }, { "ip_rcv", 0 }, { NULL } };
static const struct magnet_candidate magnet_ip6_in_c[] = {
	{ "ip6_rcv_core", 0 }, { "ipv6_rcv", 0 }, { NULL } };
static const struct magnet_candidate magnet_dev_out_c[] = {
	{ "__dev_queue_xmit", 0 }, { "dev_queue_xmit", 0 }, { NULL } };
static const struct magnet_candidate magnet_dev_in_c[] = {
	{ "__netif_receive_skb", 0 }, { "__netif_receive_skb_one_core", 0 },
	{ NULL } };

#define FTRACE_PROBE(w, l, d, opt, c, h, ev) \
	{ .what = w, .layer = l, .direction = d, .optional = opt, \
	  .candidates = c, .handler = h, .event = ev }

static struct magnet_probe magnet_probes[] = {
	{ .what = "application send", .layer = MAGNET_LAYER_APP,
	  .direction = MAGNET_DIR_OUT, .candidates = magnet_app_send_c,
	  .entry = magnet_app_send_entry, .ret = magnet_app_send_ret },
	{ .what = "application receive", .layer = MAGNET_LAYER_APP,
	  .direction = MAGNET_DIR_IN, .candidates = magnet_app_recv_c,
	  .entry = magnet_app_recv_entry, .ret = magnet_app_recv_ret },
	/* before the receive probes: counts what tcp_v4_do_rcv consumes */
	FTRACE_PROBE("TCP release", MAGNET_LAYER_TCP, MAGNET_DIR_IN, true,
		     magnet_tcp_release_c, magnet_bl_release_h, 0),
	{ .what = "TCP backlog drained", .layer = MAGNET_LAYER_TCP,
	  .direction = MAGNET_DIR_IN, .optional = true,
	  .candidates = magnet_tcp_drain_c,
	  .entry = magnet_bl_drain_entry, .ret = magnet_bl_drained_ret },
	FTRACE_PROBE("TCP backlog", MAGNET_LAYER_TCP, MAGNET_DIR_IN, true,
		     magnet_tcp_backlog_c, magnet_bl_add_h, 0),
	FTRACE_PROBE("TCP transmit", MAGNET_LAYER_TCP, MAGNET_DIR_OUT, false,
		     magnet_tcp_out_c, magnet_tcp_h, MAGNET_EV_TCP_OUT),
	FTRACE_PROBE("TCP/IPv4 receive", MAGNET_LAYER_TCP, MAGNET_DIR_IN, false,
		     magnet_tcp_v4_in_c, magnet_tcp_h, MAGNET_EV_TCP_IN),
	FTRACE_PROBE("TCP/IPv6 receive", MAGNET_LAYER_TCP, MAGNET_DIR_IN, true,
		     magnet_tcp_v6_in_c, magnet_tcp_v6_in_h, MAGNET_EV_TCP_IN),
	FTRACE_PROBE("IPv4 transmit", MAGNET_LAYER_IP, MAGNET_DIR_OUT, false,
		     magnet_ip_out_c, magnet_ip_out_h, MAGNET_EV_IP_OUT),
	FTRACE_PROBE("IPv6 transmit", MAGNET_LAYER_IP, MAGNET_DIR_OUT, true,
		     magnet_ip6_out_c, magnet_ip_out_h, MAGNET_EV_IP_OUT),
	FTRACE_PROBE("IPv4 receive", MAGNET_LAYER_IP, MAGNET_DIR_IN, false,
		     magnet_ip_in_c, magnet_ip_in_h, MAGNET_EV_IP_IN),
	FTRACE_PROBE("IPv6 receive", MAGNET_LAYER_IP, MAGNET_DIR_IN, true,
		     magnet_ip6_in_c, magnet_ip_in_h, MAGNET_EV_IP_IN),
	FTRACE_PROBE("device transmit", MAGNET_LAYER_DEV, MAGNET_DIR_OUT, false,
		     magnet_dev_out_c, magnet_dev_out_h, MAGNET_EV_DEV_OUT),
	FTRACE_PROBE("device receive", MAGNET_LAYER_DEV, MAGNET_DIR_IN, false,
		     magnet_dev_in_c, magnet_dev_in_h, MAGNET_EV_DEV_IN),
	FTRACE_PROBE("TCP RTO", MAGNET_LAYER_RETRANS, MAGNET_DIR_OUT, false,
		     magnet_rto_c, magnet_rto_h, MAGNET_EV_RTO),
	{ .what = "TCP loss probe", .layer = MAGNET_LAYER_RETRANS,
	  .direction = MAGNET_DIR_OUT, .candidates = magnet_tlp_c,
	  .entry = magnet_tlp_entry, .ret = magnet_tlp_ret },
	{ .what = "TCP receive buffer autotuning", .layer = MAGNET_LAYER_RCVBUF,
	  .direction = MAGNET_DIR_IN, .candidates = magnet_rcvbuf_c,
	  .entry = magnet_rcvbuf_entry, .ret = magnet_rcvbuf_ret },
#if MAGNET_HAVE_QDISC_ENQUEUE
	/* before qdisc:qdisc_enqueue (tracepoints.c), which needs it */
	FTRACE_PROBE("qdisc enqueue entry", MAGNET_LAYER_QDISC, MAGNET_DIR_OUT,
		     true, magnet_qdisc_enq_c, magnet_qdisc_enq_h,
		     MAGNET_EV_QDISC_ENQ),
#endif
};

/* a kretprobe whose misses lose records (not the backlog's drain) */
static bool magnet_krp_records(const struct magnet_probe *p)
{
	return p->entry && p->layer != MAGNET_LAYER_TCP;
}

static int magnet_probe_attach(struct magnet_probe *p,
			       const struct magnet_candidate *c)
{
	char name[KSYM_NAME_LEN];
	int ret;

	if (p->entry) {
		memset(&p->krp, 0, sizeof(p->krp));
		p->krp.kp.symbol_name = c->name;
		p->krp.entry_handler = p->entry;
		p->krp.handler = p->ret;
		p->krp.data_size = sizeof(struct magnet_app_call);
		p->krp.maxactive = magnet_cfg.maxactive;
		atomic_long_set(&p->krp_seen, 0);
		return register_kretprobe(&p->krp);
	}
	strscpy(name, c->name, sizeof(name));
	memset(&p->ops, 0, sizeof(p->ops));
	p->ops.func = p->handler;
	p->ops.flags = MAGNET_FTRACE_OPS_FLAGS;
	p->skb_arg = c->skb_arg;
	ret = ftrace_set_filter(&p->ops, name, strlen(name), 1);
	if (!ret)
		ret = register_ftrace_function(&p->ops);
	if (ret)
		magnet_ftrace_free_filter(&p->ops);
	return ret;
}

/*
 * The backlog table is used only where every drain frees its slot: with
 * the return probe on __release_sock registered (before tcp_add_backlog's,
 * in the table above). Without it, slots would stay until each socket's
 * next backlog and the table would fill with closed sockets'.
 */
static bool magnet_bl_drain_registered(void)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(magnet_probes); i++)
		if (magnet_probes[i].entry == magnet_bl_drain_entry)
			return magnet_probes[i].registered;
	return false;
}

static int magnet_probe_register(struct magnet_probe *p)
{
	const struct magnet_candidate *c;
	int ret = -ENOENT;

	for (c = p->candidates; c->name; c++) {
		ret = magnet_probe_attach(p, c);
		if (!ret) {
			p->registered = true;
			p->chosen = c->name;
			if (p->handler == magnet_bl_add_h &&
			    magnet_bl_drain_registered())
				WRITE_ONCE(magnet_bl_on, true);
			pr_debug("%s: probing %s\n", p->what, c->name);
			return 0;
		}
	}
	if (p->optional) {
		pr_warn("%s: no probe point (last error %d); left out\n",
			p->what, ret);
		p->absent = true;
		return 0;
	}
	pr_err("%s: none of the candidate functions can be probed on this kernel (first tried %s, last error %d)\n",
	       p->what, p->candidates[0].name, ret);
	return ret;
}

/*
 * Register the probes of @layers (MAGNET_LAYER_*) in the directions of
 * @dirmask (MAGNET_FDIR_*) that are not registered yet. Called at load and
 * when a filter widens what is recorded (process context, serialised by
 * the caller). On failure, the probes registered so far stay.
 */
int magnet_probes_register(unsigned int layers, unsigned int dirmask)
{
	size_t i;
	int ret;

	/* fail the build if a probed function's signature changes */
	BUILD_BUG_ON(!__same_type(&tcp_v4_do_rcv,
				  int (*)(struct sock *, struct sk_buff *)));
	BUILD_BUG_ON(!__same_type(&tcp_sendmsg,
				  int (*)(struct sock *, struct msghdr *, size_t)));
	BUILD_BUG_ON(!__same_type(&ip_output,
				  int (*)(struct net *, struct sock *,
					  struct sk_buff *)));
	BUILD_BUG_ON(!__same_type(&ip6_output,
				  int (*)(struct net *, struct sock *,
					  struct sk_buff *)));
	BUILD_BUG_ON(!MAGNET_DEV_XMIT_SIGNATURE_OK);
	BUILD_BUG_ON(!MAGNET_ADD_BACKLOG_SIGNATURE_OK);
	BUILD_BUG_ON(!__same_type(&tcp_release_cb, void (*)(struct sock *)));
	BUILD_BUG_ON(!__same_type(&__release_sock, void (*)(struct sock *)));
	BUILD_BUG_ON(!MAGNET_RTO_SIGNATURE_OK);
	BUILD_BUG_ON(!MAGNET_TLP_SIGNATURE_OK);
	BUILD_BUG_ON(!__same_type(&tcp_rcv_space_adjust,
				  void (*)(struct sock *)));

	for (i = 0; i < ARRAY_SIZE(magnet_probes); i++) {
		struct magnet_probe *p = &magnet_probes[i];
		unsigned int d = p->direction == MAGNET_DIR_OUT ?
				 MAGNET_FDIR_OUT : MAGNET_FDIR_IN;

		if (p->registered || p->absent || !(layers & p->layer) ||
		    !(dirmask & d))
			continue;
		ret = magnet_probe_register(p);
		if (ret)
			return ret;
	}
	if (layers & MAGNET_LAYER_DROP) {
		ret = magnet_drops_register();
		if (ret)
			return ret;
	}
	return magnet_tracepoints_register(layers);
}

/* Returns once no handler runs any more on any CPU. */
void magnet_probes_unregister(void)
{
	size_t i;

	WRITE_ONCE(magnet_bl_on, false);
	magnet_drops_unregister();
	magnet_tracepoints_unregister();
	for (i = 0; i < ARRAY_SIZE(magnet_probes); i++) {
		struct magnet_probe *p = &magnet_probes[i];

		if (!p->registered)
			continue;
		if (magnet_krp_records(p)) {
			unregister_kretprobe(&p->krp);
			magnet_krp_sweep(p);
			atomic_long_add(p->krp.nmissed + p->krp.kp.nmissed,
					&p->missed);
		} else if (p->entry) {
			/* a missed drain loses no record (see above) */
			unregister_kretprobe(&p->krp);
		} else {
			unregister_ftrace_function(&p->ops);
			magnet_ftrace_free_filter(&p->ops);
		}
		p->registered = false;
		p->absent = false;
	}
	magnet_backlog_clear();
}

/* The reader, at the end of a drain: report kretprobe misses not seen yet. */
void magnet_probes_sweep_missed(void)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(magnet_probes); i++) {
		struct magnet_probe *p = &magnet_probes[i];

		if (magnet_krp_records(p) && READ_ONCE(p->registered))
			magnet_krp_sweep(p);
	}
}

unsigned long magnet_probes_nmissed(void)
{
	unsigned long n = 0;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(magnet_probes); i++) {
		struct magnet_probe *p = &magnet_probes[i];

		n += atomic_long_read(&p->missed);
		if (p->registered && magnet_krp_records(p))
			n += READ_ONCE(p->krp.nmissed) +
			     READ_ONCE(p->krp.kp.nmissed);
	}
	return n;
}

/* /proc/net/<procname>_stats: the function chosen for each probe */
void magnet_probes_show(struct seq_file *m)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(magnet_probes); i++) {
		const struct magnet_probe *p = &magnet_probes[i];

		if (p->registered)
			seq_printf(m, "probe\t%s\t%s\t%s\n", p->what,
				   p->entry ? "kretprobe" : "ftrace",
				   p->chosen);
	}
	magnet_drops_show(m);
	magnet_tracepoints_show(m);
}
