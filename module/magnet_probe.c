// SPDX-License-Identifier: GPL-2.0
/*
 * Probe handlers: the MAGNeT events at every layer.
 *
 *   layer  out (send path)           in (receive path)
 *   app    tcp_sendmsg (kretprobe)   tcp_recvmsg (kretprobe)
 *   tcp    __tcp_transmit_skb        tcp_v4_do_rcv, tcp_v6_do_rcv
 *   ip     ip_output, ip6_output     ip_rcv_core/ip_rcv, ip6_rcv_core/ipv6_rcv
 *   dev    __dev_queue_xmit          __netif_receive_skb
 *
 * Three more handlers record nothing: tcp_add_backlog's (ftrace) notes
 * where a socket's backlog starts; the return of __release_sock (a
 * kretprobe), where the owner has drained it, and tcp_release_cb (ftrace),
 * which release_sock calls after it up to 6.x and only for deferred work
 * in 7.x, forget it; so that records carry segs_in as TCP processed it
 * (backlog.c).
 *
 * Each probe point is resolved on the running kernel from a list of
 * candidate functions. Packet and TCP handlers are ftrace callbacks at the
 * function's entry; the application handlers are kretprobes, which see the
 * size asked for at entry and the return value. A handler decides every
 * filter (port, fwmark, TCP or not, cwnd change) before it reserves a ring
 * slot, then fills the slot in place with local interrupts off. It never
 * sleeps, allocates or takes a lock.
 */
#include <linux/kprobes.h>
#include <linux/ftrace.h>
#include <linux/kallsyms.h>
#include <linux/siphash.h>
#include <linux/random.h>
#include <linux/sched.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/tcp.h>
#include <linux/udp.h>
#include <linux/netdevice.h>
#include <linux/seq_file.h>
#include <net/sock.h>
#include <net/tcp.h>
#include <net/inet_sock.h>
#include <net/inet_connection_sock.h>
#include <net/ipv6.h>
#include "compat.h"
#include "magnet.h"
#include "ring.h"
#include "backlog.h"

static siphash_key_t magnet_sock_key __read_mostly;
static bool magnet_sock_key_set;

/*
 * A record's sock_id, as the handler stored it, is the socket's address:
 * it never leaves the kernel. The reader turns it into this keyed hash as
 * it takes the record from the ring, so the siphash costs the reader, not
 * the traffic.
 */
u64 magnet_sock_id(u64 sk)
{
	return siphash_1u64(sk, &magnet_sock_key);
}

/* ------------------------------------------------------------ helpers */

/*
 * full=0: last cwnd (bytes) seen per socket. A slot holds a 32-bit tag of
 * the socket and the cwnd; a collision can only cause an extra line, never
 * hide a change. Written only when cwnd changed, so mostly read-shared.
 */
#define MAGNET_CWND_SLOTS_BITS 12
static u64 magnet_cwnd_seen[1 << MAGNET_CWND_SLOTS_BITS];

static bool notrace magnet_cwnd_changed(const struct sock *sk, u32 cwnd_bytes)
{
	u64 h = (u64)(unsigned long)sk * GOLDEN_RATIO_64;
	u64 *slot = &magnet_cwnd_seen[h >> (64 - MAGNET_CWND_SLOTS_BITS)];
	u64 v = (h << 32) | cwnd_bytes;

	if (READ_ONCE(*slot) == v)
		return false;
	WRITE_ONCE(*slot, v);
	return true;
}
NOKPROBE_SYMBOL(magnet_cwnd_changed);

/* The filter in force; handlers run with preemption off (RCU-sched). */
static __always_inline const struct magnet_filter *magnet_filter(void)
{
	return &rcu_dereference_sched(magnet_active)->f;
}

static __always_inline void magnet_filtered(void)
{
	this_cpu_inc(magnet_rings->filtered);
}

static bool notrace magnet_ports_ok(const struct magnet_filter *f, u16 lport,
				    u16 rport)
{
	if ((f->set & MAGNET_FT_PORT) && lport != f->port && rport != f->port)
		return false;
	if ((f->set & MAGNET_FT_SPORT) && lport != f->sport)
		return false;
	if ((f->set & MAGNET_FT_DPORT) && rport != f->dport)
		return false;
	return true;
}
NOKPROBE_SYMBOL(magnet_ports_ok);

static bool notrace magnet_mark_ok(const struct magnet_filter *f, u32 mark)
{
	return !(f->set & MAGNET_FT_FWMARK) || !f->fwmark || mark == f->fwmark;
}
NOKPROBE_SYMBOL(magnet_mark_ok);

static bool notrace magnet_netns_ok(const struct magnet_filter *f,
				    const struct net *net)
{
	return !(f->set & MAGNET_FT_NETNS) || (net && net->ns.inum == f->netns);
}
NOKPROBE_SYMBOL(magnet_netns_ok);

/*
 * A socket's family and addresses (16 bytes each): IPv6, or IPv4 in the
 * first 4 bytes for AF_INET and for an IPv6 socket talking to an IPv4 peer.
 */
static u8 notrace magnet_sock_addrs(const struct sock *sk, u8 *laddr,
				    u8 *raddr)
{
#if IS_ENABLED(CONFIG_IPV6)
	if (sk->sk_family == AF_INET6 &&
	    !ipv6_addr_v4mapped(&sk->sk_v6_daddr)) {
		memcpy(laddr, &sk->sk_v6_rcv_saddr, 16);
		memcpy(raddr, &sk->sk_v6_daddr, 16);
		return MAGNET_FAMILY_INET6;
	}
#endif
	memset(laddr, 0, 16);
	memset(raddr, 0, 16);
	memcpy(laddr, &sk->sk_rcv_saddr, 4);
	memcpy(raddr, &sk->sk_daddr, 4);
	return MAGNET_FAMILY_INET;
}
NOKPROBE_SYMBOL(magnet_sock_addrs);

/* the port, mark, netns and address terms, for an event tied to @sk */
static bool notrace magnet_sock_ok(const struct magnet_filter *f,
				   const struct sock *sk, u16 lport, u16 rport,
				   u32 mark)
{
	if (!magnet_ports_ok(f, lport, rport) || !magnet_mark_ok(f, mark) ||
	    !magnet_netns_ok(f, sock_net(sk)))
		return false;
	if (f->set & MAGNET_FT_ADDR) {
		u8 l[16], r[16], fam = magnet_sock_addrs(sk, l, r);

		if (!magnet_filter_addr_match(f, fam, l) &&
		    !magnet_filter_addr_match(f, fam, r))
			return false;
	}
	return true;
}
NOKPROBE_SYMBOL(magnet_sock_ok);

/* Reserve a slot on this CPU, with local interrupts off until _end(). */
static struct magnet_record *notrace
magnet_rec_begin(struct magnet_ring **ringp, unsigned long *flags, u16 event)
{
	struct magnet_record *rec;
	struct magnet_ring *ring;

	local_irq_save(*flags);
	ring = this_cpu_ptr(magnet_rings);
	rec = magnet_ring_reserve(ring);
	if (unlikely(!rec)) {
		local_irq_restore(*flags);
		return NULL;
	}
	rec->ts_ns = ktime_get_mono_fast_ns();
	rec->event = event;
	rec->cpu = smp_processor_id();
	*ringp = ring;
	return rec;
}
NOKPROBE_SYMBOL(magnet_rec_begin);

static void notrace magnet_rec_end(struct magnet_ring *ring,
				   unsigned long flags)
{
	magnet_ring_commit(ring);
	local_irq_restore(flags);
}
NOKPROBE_SYMBOL(magnet_rec_end);

/* The socket's identity: id, family, addresses, ports, state. */
static void notrace magnet_fill_sock(struct magnet_record *rec,
				     const struct sock *sk, u16 lport, u16 rport)
{
	rec->sock_id = (u64)(unsigned long)sk;	/* hashed by the reader */
	rec->state = READ_ONCE(sk->sk_state);
	rec->lport = lport;
	rec->rport = rport;
	rec->family = magnet_sock_addrs(sk, rec->laddr, rec->raddr);
}
NOKPROBE_SYMBOL(magnet_fill_sock);

/*
 * A task owns @sk, so arrivals may wait in its backlog (backlog.c; a
 * listener has none).
 */
static __always_inline bool magnet_bl_owned(const struct sock *sk)
{
	return READ_ONCE(magnet_bl_on) && sock_owned_by_user_nocheck(sk) &&
	       READ_ONCE(sk->sk_state) != TCP_LISTEN;
}

/*
 * The TCP state snapshot of a full TCP socket. The TCP probes run where the
 * socket is locked (owned by a task, or its spinlock held in softirq), so
 * the snapshot is consistent. The application return probe runs after
 * release_sock(), unlocked: there every field is read once (READ_ONCE, no
 * torn or refetched value), each is a value the field held at that moment,
 * but ACK processing on another CPU may change some between two reads
 * (docs/binary-format.md, "How exact an app record is"). icsk_ca_ops is
 * loaded once and its name copied with interrupts off, an RCU read-side
 * section: a congestion control module that the socket left meanwhile
 * cannot be freed before it ends (tcp_unregister_congestion_control()
 * waits for a grace period).
 */
static void notrace magnet_fill_tcp(struct magnet_record *rec,
				    const struct sock *sk)
{
	const struct tcp_sock *tp = tcp_sk(sk);
	const struct inet_connection_sock *icsk = inet_csk(sk);
	const struct tcp_congestion_ops *ca = READ_ONCE(icsk->icsk_ca_ops);

	rec->mss = READ_ONCE(tp->mss_cache);
	rec->srtt_us = READ_ONCE(tp->srtt_us) >> 3;
	rec->rttvar_us = READ_ONCE(tp->mdev_us) >> 2;
	rec->rto_us = jiffies_to_usecs(READ_ONCE(icsk->icsk_rto));
	rec->cwnd = tcp_snd_cwnd(tp);
	rec->ssthresh = READ_ONCE(tp->snd_ssthresh);
	rec->snd_wnd = READ_ONCE(tp->snd_wnd);
	rec->rcv_wnd = READ_ONCE(tp->rcv_wnd);
	rec->snd_una = READ_ONCE(tp->snd_una);
	rec->snd_nxt = READ_ONCE(tp->snd_nxt);
	rec->write_seq = READ_ONCE(tp->write_seq);
	rec->copied_seq = READ_ONCE(tp->copied_seq);
	rec->packets_out = READ_ONCE(tp->packets_out);
	rec->retrans_out = READ_ONCE(tp->retrans_out);
	rec->total_retrans = READ_ONCE(tp->total_retrans);
	rec->ca_state = icsk->icsk_ca_state;	/* a bit field */
	if (ca)
		memcpy(rec->ca_name, ca->name, MAGNET_CA_NAME_LEN);
	else
		memset(rec->ca_name, 0, MAGNET_CA_NAME_LEN);
	rec->segs_out = READ_ONCE(tp->segs_out);
	rec->data_segs_out = READ_ONCE(tp->data_segs_out);
	rec->segs_in = READ_ONCE(tp->segs_in);
	rec->data_segs_in = READ_ONCE(tp->data_segs_in);
	if (magnet_bl_owned(sk))
		magnet_backlog_segs_in(sk, &rec->segs_in, &rec->data_segs_in);
	rec->bytes_sent = READ_ONCE(tp->bytes_sent);
	rec->bytes_received = READ_ONCE(tp->bytes_received);
	rec->bytes_acked = READ_ONCE(tp->bytes_acked);
	rec->bytes_retrans = READ_ONCE(tp->bytes_retrans);
	rec->rcv_nxt = READ_ONCE(tp->rcv_nxt);
	rec->min_rtt_us = tcp_min_rtt(tp);
	rec->rtt_us = READ_ONCE(tp->rack.rtt_us);
	rec->advmss = READ_ONCE(tp->advmss);
	/* bit fields, set by the handshake (nonagle by setsockopt) */
	rec->wscale = tp->rx_opt.snd_wscale << 4 | tp->rx_opt.rcv_wscale;
	rec->opts = (tp->rx_opt.tstamp_ok ? MAGNET_OPT_TIMESTAMPS : 0) |
		    (tp->rx_opt.sack_ok ? MAGNET_OPT_SACK : 0) |
		    (magnet_tcp_ecn(tp) ? MAGNET_OPT_ECN : 0) |
		    (tp->nonagle & TCP_NAGLE_OFF ? 0 : MAGNET_OPT_NAGLE);
}
NOKPROBE_SYMBOL(magnet_fill_tcp);

/*
 * At __tcp_transmit_skb's entry the segment is not counted yet: count it,
 * so a tcp_out record carries the connection's state after this segment
 * (and consecutive records of a flow never repeat the same counters).
 */
static void notrace magnet_count_out(struct magnet_record *rec,
				     const struct sk_buff *skb)
{
	u32 pcount = max_t(u32, TCP_SKB_CB(skb)->tcp_gso_segs, 1);

	rec->segs_out += pcount;
	if (skb->len) {
		rec->data_segs_out += pcount;
		rec->bytes_sent += skb->len;
	}
}
NOKPROBE_SYMBOL(magnet_count_out);

/* Zero what an event type does not fill (the ring slot holds old data). */
static void notrace magnet_clear_app(struct magnet_record *rec)
{
	rec->pid = 0;
	rec->ret = 0;
	rec->req = 0;
	memset(rec->comm, 0, sizeof(rec->comm));
}
NOKPROBE_SYMBOL(magnet_clear_app);

static void notrace magnet_clear_pkt(struct magnet_record *rec)
{
	rec->ifindex = 0;
	rec->ip_id = 0;
	rec->ip_tos = 0;
	rec->ip_ttl = 0;
	rec->ip_proto = 0;
}
NOKPROBE_SYMBOL(magnet_clear_pkt);

/* the TCP snapshot's fields outside mss .. total_retrans, which IP and
 * device events fill with the packet's header (magnet_fill_hdr) */
static void notrace magnet_clear_tcp(struct magnet_record *rec)
{
	rec->ca_state = 0;
	memset(rec->ca_name, 0, MAGNET_CA_NAME_LEN);
	/* segs_out .. opts: the version 2 counters, to the record's end */
	memset((char *)rec + offsetof(struct magnet_record, segs_out), 0,
	       sizeof(*rec) - offsetof(struct magnet_record, segs_out));
}
NOKPROBE_SYMBOL(magnet_clear_tcp);

/* ------------------------------------------------------------ TCP layer */

/* What tcp_segs_in() counted for @skb: segments, and segments with data. */
static __always_inline void magnet_skb_segs(const struct sk_buff *skb,
					    u32 *segs, u32 *dsegs)
{
	*segs = max_t(u16, 1, skb_shinfo(skb)->gso_segs);
	*dsegs = skb->len > tcp_hdrlen(skb) ? *segs : 0;
}

static void notrace magnet_record_tcp(struct sock *sk, const struct sk_buff *skb,
				      u16 event)
{
	const struct magnet_filter *f = magnet_filter();
	struct magnet_record *rec;
	struct magnet_ring *ring;
	unsigned long flags;
	u16 lport, rport;
	u32 mark;

	if (unlikely(!sk || !skb || !sk_fullsock(sk)))
		return;
	/*
	 * The owner processes a segment from the backlog: no longer pending
	 * (backlog.c). Counted for every socket, whatever the filter says.
	 */
	if (event == MAGNET_EV_TCP_IN && magnet_bl_owned(sk)) {
		u32 segs, dsegs;

		magnet_skb_segs(skb, &segs, &dsegs);
		magnet_backlog_consume(sk, segs, dsegs);
	}
	/* filters first: nothing is copied for a segment we do not keep */
	if (!(f->events & MAGNET_LAYER_TCP) ||
	    !(f->dir & (event == MAGNET_EV_TCP_OUT ? MAGNET_FDIR_OUT :
						     MAGNET_FDIR_IN)))
		goto filtered;
	lport = ntohs(inet_sk(sk)->inet_sport);
	rport = ntohs(sk->sk_dport);
	mark = event == MAGNET_EV_TCP_OUT ? READ_ONCE(sk->sk_mark) : skb->mark;
	if (!magnet_sock_ok(f, sk, lport, rport, mark))
		goto filtered;
	if (!f->full &&
	    !magnet_cwnd_changed(sk, tcp_snd_cwnd(tcp_sk(sk)) *
				 tcp_sk(sk)->mss_cache))
		goto filtered;

	rec = magnet_rec_begin(&ring, &flags, event);
	if (!rec)
		return;
	rec->flags = MAGNET_RF_SOCK | MAGNET_RF_TCP | MAGNET_RF_SEQ;
	magnet_fill_sock(rec, sk, lport, rport);
	rec->len = skb->len;
	rec->seq = TCP_SKB_CB(skb)->seq;
	rec->end_seq = TCP_SKB_CB(skb)->end_seq;
	rec->mark = mark;
	magnet_fill_tcp(rec, sk);
	if (event == MAGNET_EV_TCP_OUT)
		magnet_count_out(rec, skb);
	magnet_clear_app(rec);
	magnet_clear_pkt(rec);
	magnet_rec_end(ring, flags);
	return;
filtered:
	magnet_filtered();
}
NOKPROBE_SYMBOL(magnet_record_tcp);

/* ------------------------------------------------------- IP and device */

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
static void notrace magnet_record_pkt(const struct sk_buff *skb, const u8 *nh,
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

/* -------------------------------------------------------- application */

/* what a kretprobe instance keeps from entry to return */
struct magnet_app_call {
	struct sock *sk;
	u64 req;
	u32 seq;
};

/* reports kretprobe misses, see below */
static void magnet_app_sweep(struct kretprobe *rp);

static int notrace magnet_app_entry(struct kretprobe_instance *ri,
				    struct pt_regs *regs, bool send)
{
	struct magnet_app_call *call = (struct magnet_app_call *)ri->data;
	struct sock *sk = (struct sock *)regs_get_kernel_argument(regs, 0);
	const struct magnet_filter *f = magnet_filter();

	magnet_app_sweep(get_kretprobe(ri));

	/* tcp_sendmsg(sk, msg, size) / tcp_recvmsg(sk, msg, len, ...) */
	if (!sk || !sk_fullsock(sk))
		return 1;	/* no return probe for this call */
	if (!(f->events & MAGNET_LAYER_APP) ||
	    !(f->dir & (send ? MAGNET_FDIR_OUT : MAGNET_FDIR_IN)) ||
	    !magnet_sock_ok(f, sk, ntohs(inet_sk(sk)->inet_sport),
			    ntohs(sk->sk_dport), READ_ONCE(sk->sk_mark)) ||
	    ((f->set & MAGNET_FT_PID) && current->tgid != f->pid) ||
	    ((f->set & MAGNET_FT_COMM) &&
	     strncmp(current->comm, f->comm, sizeof(current->comm)))) {
		magnet_filtered();
		return 1;
	}
	call->sk = sk;
	call->req = regs_get_kernel_argument(regs, 2);
	call->seq = send ? READ_ONCE(tcp_sk(sk)->write_seq) :
			   READ_ONCE(tcp_sk(sk)->copied_seq);
	return 0;
}
NOKPROBE_SYMBOL(magnet_app_entry);

static int notrace magnet_app_send_entry(struct kretprobe_instance *ri,
					 struct pt_regs *regs)
{
	return magnet_app_entry(ri, regs, true);
}
NOKPROBE_SYMBOL(magnet_app_send_entry);

static int notrace magnet_app_recv_entry(struct kretprobe_instance *ri,
					 struct pt_regs *regs)
{
	return magnet_app_entry(ri, regs, false);
}
NOKPROBE_SYMBOL(magnet_app_recv_entry);

static int notrace magnet_app_return(struct kretprobe_instance *ri,
				     struct pt_regs *regs, u16 event)
{
	const struct magnet_app_call *call =
		(const struct magnet_app_call *)ri->data;
	struct sock *sk = call->sk;
	struct magnet_record *rec;
	struct magnet_ring *ring;
	unsigned long flags;

	rec = magnet_rec_begin(&ring, &flags, event);
	if (!rec)
		return 0;
	rec->flags = MAGNET_RF_SOCK | MAGNET_RF_TCP | MAGNET_RF_SEQ |
		     MAGNET_RF_APP;
	magnet_fill_sock(rec, sk, ntohs(inet_sk(sk)->inet_sport),
			 ntohs(sk->sk_dport));
	/* tcp_sendmsg and tcp_recvmsg return int: rax's upper half is junk */
	rec->ret = (int)regs_return_value(regs);
	rec->req = call->req;
	rec->len = rec->ret > 0 ? (u32)min_t(s64, rec->ret, U32_MAX) : 0;
	rec->seq = call->seq;
	rec->end_seq = event == MAGNET_EV_APP_SEND ?
		       READ_ONCE(tcp_sk(sk)->write_seq) :
		       READ_ONCE(tcp_sk(sk)->copied_seq);
	rec->mark = READ_ONCE(sk->sk_mark);
	rec->pid = current->tgid;
	memcpy(rec->comm, current->comm, sizeof(rec->comm));
	magnet_fill_tcp(rec, sk);
	magnet_clear_pkt(rec);
	magnet_rec_end(ring, flags);
	return 0;
}
NOKPROBE_SYMBOL(magnet_app_return);

static int notrace magnet_app_send_ret(struct kretprobe_instance *ri,
				       struct pt_regs *regs)
{
	return magnet_app_return(ri, regs, MAGNET_EV_APP_SEND);
}
NOKPROBE_SYMBOL(magnet_app_send_ret);

static int notrace magnet_app_recv_ret(struct kretprobe_instance *ri,
				       struct pt_regs *regs)
{
	return magnet_app_return(ri, regs, MAGNET_EV_APP_RECV);
}
NOKPROBE_SYMBOL(magnet_app_recv_ret);

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

static void notrace magnet_app_sweep(struct kretprobe *rp)
{
	magnet_krp_sweep(container_of(rp, struct magnet_probe, krp));
}
NOKPROBE_SYMBOL(magnet_app_sweep);

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
 * tcp_release_cb(sk), from release_sock under the spinlock, the backlog
 * drained: the socket's slot is free again.
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
/* ip_output / ip6_output: the IP header is built, at the network header */
MAGNET_FTRACE_HANDLER(magnet_ip_out_h,
	struct sk_buff *skb = SKB;
	if (skb)
		magnet_record_pkt(skb, skb_network_header(skb), p->event,
				  true, false));
/* ip_rcv_core / ipv6_rcv ...: skb->data is the IP header */
MAGNET_FTRACE_HANDLER(magnet_ip_in_h,
	struct sk_buff *skb = SKB;
	if (skb)
		magnet_record_pkt(skb, skb->data, p->event, false, false));
/* __dev_queue_xmit(skb, sb_dev): the link header is pushed already */
MAGNET_FTRACE_HANDLER(magnet_dev_out_h,
	struct sk_buff *skb = SKB;
	if (skb && (skb->protocol == htons(ETH_P_IP) ||
		    skb->protocol == htons(ETH_P_IPV6)))
		magnet_record_pkt(skb, skb_network_header(skb), p->event,
				  true, true));
/* __netif_receive_skb(skb): the link header is pulled, data = network */
MAGNET_FTRACE_HANDLER(magnet_dev_in_h,
	struct sk_buff *skb = SKB;
	if (skb && (skb->protocol == htons(ETH_P_IP) ||
		    skb->protocol == htons(ETH_P_IPV6)))
		magnet_record_pkt(skb, skb->data, p->event, false, true));

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
};

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

static int magnet_probe_register(struct magnet_probe *p)
{
	const struct magnet_candidate *c;
	int ret = -ENOENT;

	for (c = p->candidates; c->name; c++) {
		ret = magnet_probe_attach(p, c);
		if (!ret) {
			p->registered = true;
			p->chosen = c->name;
			if (p->handler == magnet_bl_add_h)
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
	BUILD_BUG_ON(!MAGNET_DEV_XMIT_SIGNATURE_OK);

	if (!magnet_sock_key_set) {
		get_random_bytes(&magnet_sock_key, sizeof(magnet_sock_key));
		magnet_sock_key_set = true;
	}

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
	return 0;
}

/* Returns once no handler runs any more on any CPU. */
void magnet_probes_unregister(void)
{
	size_t i;

	WRITE_ONCE(magnet_bl_on, false);
	for (i = 0; i < ARRAY_SIZE(magnet_probes); i++) {
		struct magnet_probe *p = &magnet_probes[i];

		if (!p->registered)
			continue;
		if (p->entry && p->layer == MAGNET_LAYER_APP) {
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
	magnet_sock_key_set = false;
	magnet_backlog_clear();
}

/* The reader, at the end of a drain: report kretprobe misses not seen yet. */
void magnet_probes_sweep_missed(void)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(magnet_probes); i++) {
		struct magnet_probe *p = &magnet_probes[i];

		if (p->entry && p->layer == MAGNET_LAYER_APP &&
		    READ_ONCE(p->registered))
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
		if (p->registered && p->entry && p->layer == MAGNET_LAYER_APP)
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
}
