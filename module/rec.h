/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Record builders: what a probe handler does once it has its arguments.
 * Each builder decides every filter (port, fwmark, netns, address, TCP or
 * not, cwnd change) before it reserves a ring slot, then writes the event
 * as a version 3 record (record.h) in the slot, with local interrupts off,
 * after a FLOW record when its CPU has no flow id for the connection yet. It never sleeps, allocates or takes a
 * lock. One file per layer: rec_tcp.c (TCP and application events, which
 * carry the TCP snapshot), rec_pkt.c (IP and device events, from the
 * packet's headers); rec.c holds what they share. probes.c decides where
 * the handlers are attached and calls these.
 */
#ifndef MAGNET_REC_H
#define MAGNET_REC_H

#include <linux/kprobes.h>
#include <linux/skbuff.h>
#include <linux/if_vlan.h>
#include <net/sock.h>
#include <net/tcp.h>
#include <net/ipv6.h>
#include "magnet.h"
#include "ring.h"
#include "backlog.h"
#include "compat.h"
#include "v3.h"
#include "sockid.h"
#include <linux/hash.h>
#include <linux/log2.h>

/* ------------------------------------------------------------ rec.c */

/*
 * The filter in force. The ftrace and kprobe handlers run with preemption
 * off; the tracepoints' probes hold rcu_read_lock() themselves, as a
 * kernel may run them preemptible (PREEMPT_RT). Either is a read-side
 * section of the one RCU that kfree_rcu() waits for (control.c).
 */
static __always_inline const struct magnet_filter *magnet_filter(void)
{
	return &rcu_dereference_check(magnet_active,
				      rcu_read_lock_any_held())->f;
}

bool magnet_cwnd_changed(u64 sid, u32 cwnd_bytes);
u8 magnet_sock_addrs(const struct sock *sk, u8 *laddr, u8 *raddr);
bool magnet_sock_addr_ok(const struct magnet_filter *f, const struct sock *sk);

/* The filter's terms, inlined: most are unset, a test of one bit each. */
static __always_inline bool magnet_ports_ok(const struct magnet_filter *f,
					    u16 lport, u16 rport)
{
	if ((f->set & MAGNET_FT_PORT) && lport != f->port && rport != f->port)
		return false;
	if ((f->set & MAGNET_FT_SPORT) && lport != f->sport)
		return false;
	if ((f->set & MAGNET_FT_DPORT) && rport != f->dport)
		return false;
	return true;
}

static __always_inline bool magnet_mark_ok(const struct magnet_filter *f,
					   u32 mark)
{
	return !(f->set & MAGNET_FT_FWMARK) || !f->fwmark || mark == f->fwmark;
}

static __always_inline bool magnet_netns_ok(const struct magnet_filter *f,
					    const struct net *net)
{
	return !(f->set & MAGNET_FT_NETNS) || (net && net->ns.inum == f->netns);
}

/* the port, mark, netns and address terms, for an event tied to @sk */
static __always_inline bool magnet_sock_ok(const struct magnet_filter *f,
					   const struct sock *sk, u16 lport,
					   u16 rport, u32 mark)
{
	if (!magnet_ports_ok(f, lport, rport) || !magnet_mark_ok(f, mark))
		return false;
	if ((f->set & MAGNET_FT_NETNS) && !magnet_netns_ok(f, sock_net(sk)))
		return false;
	return !(f->set & MAGNET_FT_ADDR) || magnet_sock_addr_ok(f, sk);
}

/*
 * What a FLOW record says, as the writer keys its flows: the socket (its
 * id, the cookie: sockid.h; 0 for a packet not tied to one), ports, family,
 * addresses and the network namespace's inode number (0 if unknown).
 * The congestion control is compared apart, for TCP and app events only.
 */
struct magnet_flow_key {
	u64 sk;
	u16 lport;
	u16 rport;
	u32 family;
	u8 laddr[16];
	u8 raddr[16];
	u32 netns;
	u32 zero;	/* 0: the key is compared as words */
};

/* the inode number of @net, which the netns= filter and FLOW records use */
static __always_inline u32 magnet_net_id(const struct net *net)
{
	return net ? net->ns.inum : 0;
}

/* an event being written: see magnet_rec_begin() */
struct magnet_rec {
	struct magnet_ring *ring;
	unsigned long flags;		/* local_irq_save() */
};

/* The flow of the socket @sk, whose id is @sid: ports, family, addresses. */
static __always_inline void magnet_sock_key(struct magnet_flow_key *k,
					    const struct sock *sk, u64 sid,
					    u16 lport, u16 rport)
{
	k->sk = sid;
	k->lport = lport;
	k->rport = rport;
	k->family = magnet_sock_addrs(sk, k->laddr, k->raddr);
	k->netns = magnet_net_id(sock_net(sk));
	k->zero = 0;
}

/*
 * The flows each CPU's writer has given an id (version 3's FLOW records):
 * slot i holds the flow of id i + 1, chosen by a hash of the flow. A flow
 * that finds its slot held by another takes it over with a new FLOW
 * record. An entry is good while ->gen is its ring's marks + 1: a LOST
 * record ends the scope of the CPU's ids. 72 KiB per possible CPU.
 */
struct magnet_flow_ent {
	struct magnet_flow_key k;
	const struct tcp_congestion_ops *ca;
	unsigned long gen;
};

DECLARE_PER_CPU(struct magnet_flow_ent *, magnet_flows);
/*
 * Drawn at load and mixed into the choice of a flow's id: a sender cannot
 * pick ports (or make sockets) that make flows share an id.
 */
extern u64 magnet_flow_salt;

int magnet_flows_init(void);
void magnet_flows_exit(void);
void magnet_write_flow(union magnet_slot *s, u64 ts, u16 cpu, u16 id,
		       const struct magnet_flow_key *k,
		       const struct tcp_congestion_ops *ca);
void *magnet_rec_begin_flow(struct magnet_rec *c, struct magnet_ring *ring,
			    struct magnet_flow_ent *e, unsigned int id,
			    bool pending, const struct magnet_flow_key *k,
			    const struct tcp_congestion_ops *ca, u8 event,
			    u8 flags, u16 len);
void *magnet_rec_begin_sock_flow(struct magnet_rec *c,
				 struct magnet_ring *ring,
				 struct magnet_flow_ent *e, unsigned int id,
				 bool pending, const struct sock *sk,
				 u64 sid, u16 lport, u16 rport,
				 const struct tcp_congestion_ops *ca, u8 event,
				 u8 flags, u16 len);

static __always_inline u64 magnet_word(const void *p)
{
	u64 w;

	memcpy(&w, p, 8);
	return w;
}

/* 16 bytes compared as two words (memcmp loops byte by byte) */
static __always_inline bool magnet_same16(const void *a, const void *b)
{
	const u8 *x = a, *y = b;

	return !((magnet_word(x) ^ magnet_word(y)) |
		 (magnet_word(x + 8) ^ magnet_word(y + 8)));
}

static __always_inline unsigned int magnet_flow_hash(const struct magnet_flow_key *k)
{
	u64 h = k->sk ^ magnet_flow_salt ^
		((u64)k->lport << 48 | (u64)k->rport << 32 | k->family);

	h ^= (u64)k->netns * 0xff51afd7ed558ccdULL;
	h ^= magnet_word(k->laddr + 8) * 0x9e3779b97f4a7c15ULL;
	h ^= magnet_word(k->raddr + 8) * 0xc2b2ae3d27d4eb4fULL;
	h = (h ^ magnet_word(k->laddr)) * 0x9e3779b97f4a7c15ULL;
	h = (h ^ magnet_word(k->raddr)) * 0xc2b2ae3d27d4eb4fULL;
	return (unsigned int)(h >> 54) & (MAGNET_V3_FLOW_IDS - 1);
}

/* the key's seven words, compared as words (memcmp loops byte by byte) */
static __always_inline bool magnet_flow_same(const struct magnet_flow_key *a,
					     const struct magnet_flow_key *b)
{
	const u64 *x = (const u64 *)a, *y = (const u64 *)b;

	BUILD_BUG_ON(sizeof(*a) != 56);
	return !((x[0] ^ y[0]) | (x[1] ^ y[1]) | (x[2] ^ y[2]) |
		 (x[3] ^ y[3]) | (x[4] ^ y[4]) | (x[5] ^ y[5]) |
		 (x[6] ^ y[6]));
}

/*
 * With local interrupts off: reserve the event's slot on @ring, after a
 * FLOW record for @k as id @id + 1 (its table entry @e) if @need, and write
 * its header. @pending: magnet_ring_pending() as the caller read it.
 */
static __always_inline void *
magnet_rec_start(struct magnet_rec *c, struct magnet_ring *ring,
		 struct magnet_flow_ent *e, unsigned int id, bool need,
		 bool pending, const struct magnet_flow_key *k,
		 const struct tcp_congestion_ops *ca, u8 event, u8 flags,
		 u16 len)
{
	union magnet_slot *s;
	unsigned long pos;
	u16 cpu;
	u64 ts;

	if (unlikely(!magnet_ring_reserve(ring, need ? 2 : 1, pending, &pos))) {
		local_irq_restore(c->flags);
		return NULL;
	}
	ts = ktime_get_mono_fast_ns();
	cpu = smp_processor_id();
	if (need) {
		e->k = *k;
		e->ca = ca;
		e->gen = ring->marks + 1;
		magnet_write_flow(magnet_ring_slot(ring, pos), ts, cpu, id + 1,
				  k, ca);
		pos++;
	}
	s = magnet_ring_slot(ring, pos);
	magnet_v3_put_hdr(s, ts, cpu, id + 1, event, flags, len);
	c->ring = ring;
	return (char *)s + MAGNET_V3_HDR_SIZE;
}

/*
 * does @k hold the ends of @sk (id @sid) now (magnet_sock_key() would give
 * @k)?
 */
static __always_inline bool magnet_flow_is_sock(const struct magnet_flow_key *k,
						const struct sock *sk, u64 sid,
						u16 lport, u16 rport)
{
	if (k->sk != sid || k->lport != lport ||
	    k->rport != rport)
		return false;
#if IS_ENABLED(CONFIG_IPV6)
	if (sk->sk_family == AF_INET6 &&
	    !ipv6_addr_v4mapped(&sk->sk_v6_daddr))
		return k->family == MAGNET_FAMILY_INET6 &&
		       magnet_same16(k->laddr, &sk->sk_v6_rcv_saddr) &&
		       magnet_same16(k->raddr, &sk->sk_v6_daddr);
#endif
	/* the other 12 bytes of each address are zero in the key */
	return k->family == MAGNET_FAMILY_INET &&
	       *(const u32 *)k->laddr == sk->sk_rcv_saddr &&
	       *(const u32 *)k->raddr == sk->sk_daddr;
}

/*
 * Local interrupts off until magnet_rec_end(): this CPU's ring, and the
 * entry of flow id @id + 1 in its writer's table.
 */
static __always_inline struct magnet_flow_ent *
magnet_rec_open(struct magnet_rec *c, unsigned int id,
		struct magnet_ring **ring)
{
	local_irq_save(c->flags);
	*ring = this_cpu_ptr(magnet_rings);
	return &__this_cpu_read(magnet_flows)[id];
}

/*
 * Does the entry @e still give its id? Not once a LOST record ended the
 * CPU's ids, nor when the reserve is to write one (@pending).
 */
static __always_inline bool magnet_flow_current(const struct magnet_flow_ent *e,
						const struct magnet_ring *ring,
						bool pending)
{
	return !pending && e->gen == ring->marks + 1;
}

/*
 * Begin an event of @len bytes on this CPU for the packet flow @k (IP and
 * device events): reserve its slot, after a FLOW record if this CPU's
 * writer has no id for the flow, and write its header. Returns where the
 * event's part goes (after the header), with local interrupts off until
 * magnet_rec_end(), or NULL if the ring is full (the event is counted as
 * lost). Inlined in the builder; the FLOW record's path is not.
 */
static __always_inline void *magnet_rec_begin(struct magnet_rec *c,
					      const struct magnet_flow_key *k,
					      u8 event, u8 flags, u16 len)
{
	unsigned int id = magnet_flow_hash(k);
	struct magnet_ring *ring;
	struct magnet_flow_ent *e = magnet_rec_open(c, id, &ring);
	bool pending = magnet_ring_pending(ring);

	/* Congestion control is not part of a packet's flow: its FLOW
	 * record has none */
	if (unlikely(!magnet_flow_current(e, ring, pending) ||
		     !magnet_flow_same(&e->k, k)))
		return magnet_rec_begin_flow(c, ring, e, id, pending, k, NULL,
					     event, flags, len);
	return magnet_rec_start(c, ring, e, id, false, false, k, NULL, event,
				flags, len);
}

/*
 * The same for a TCP or app event of the full socket @sk (local and
 * remote port @lport, @rport): its flow's id is chosen by the socket, and
 * checked against the socket itself (its ends, and the congestion control
 * @ca, a pointer the caller loaded once), so the flow's key is built only
 * when a FLOW record is written. @ca's name is copied with interrupts off,
 * an RCU read-side section: a congestion control module cannot be freed
 * before it ends (tcp_unregister_congestion_control() waits for a grace
 * period).
 */
static __always_inline void *
magnet_rec_begin_sock(struct magnet_rec *c, const struct sock *sk, u16 lport,
		      u16 rport, const struct tcp_congestion_ops *ca, u8 event,
		      u8 flags, u16 len)
{
	u64 sid = magnet_sock_id(sk);
	unsigned int id = hash_64(sid ^ magnet_flow_salt,
				  ilog2(MAGNET_V3_FLOW_IDS));
	struct magnet_ring *ring;
	struct magnet_flow_ent *e = magnet_rec_open(c, id, &ring);
	bool pending = magnet_ring_pending(ring);

	if (unlikely(!magnet_flow_current(e, ring, pending) || e->ca != ca ||
		     !magnet_flow_is_sock(&e->k, sk, sid, lport, rport)))
		return magnet_rec_begin_sock_flow(c, ring, e, id, pending, sk,
						  sid, lport, rport, ca, event,
						  flags, len);
	return magnet_rec_start(c, ring, e, id, false, false, NULL, NULL,
				event, flags, len);
}

static __always_inline void magnet_rec_end(struct magnet_rec *c)
{
	magnet_ring_commit(c->ring);
	local_irq_restore(c->flags);
}

/*
 * A task owns @sk, so arrivals may wait in its backlog (backlog.c; a
 * listener has none).
 */
static __always_inline bool magnet_bl_owned(const struct sock *sk)
{
	return READ_ONCE(magnet_bl_on) && sock_owned_by_user_nocheck(sk) &&
	       READ_ONCE(sk->sk_state) != TCP_LISTEN;
}

/* What tcp_segs_in() counted for @skb: segments, and segments with data. */
static __always_inline void magnet_skb_segs(const struct sk_buff *skb,
					    u32 *segs, u32 *dsegs)
{
	*segs = max_t(u16, 1, skb_shinfo(skb)->gso_segs);
	*dsegs = skb->len > tcp_hdrlen(skb) ? *segs : 0;
}

/*
 * The TCP state snapshot of a full TCP socket, after the event's own
 * fields (len, mark, seq, end_seq, which the caller writes). The TCP probes
 * run where the socket is locked (owned by a task, or its spinlock held in
 * softirq), so the snapshot is consistent. The application return probe
 * runs after release_sock(), unlocked: there every field is read once
 * (READ_ONCE, no torn or refetched value), each is a value the field held
 * at that moment, but ACK processing on another CPU may change some
 * between two reads (docs/binary-format.md, "How exact an app record is").
 * Inlined in the two builders: one call, prologue and epilogue fewer on
 * every TCP and app event.
 */
static __always_inline void magnet_fill_tcp(struct magnet_v3_tcp *t,
					    const struct sock *sk)
{
	const struct tcp_sock *tp = tcp_sk(sk);
	const struct inet_connection_sock *icsk = inet_csk(sk);

	t->state = READ_ONCE(sk->sk_state);
	t->ca_state = icsk->icsk_ca_state;	/* a bit field */
	/* bit fields, set by the handshake (nonagle by setsockopt) */
	t->wscale = tp->rx_opt.snd_wscale << 4 | tp->rx_opt.rcv_wscale;
	t->opts = (tp->rx_opt.tstamp_ok ? MAGNET_OPT_TIMESTAMPS : 0) |
		  (tp->rx_opt.sack_ok ? MAGNET_OPT_SACK : 0) |
		  (magnet_tcp_ecn(tp) ? MAGNET_OPT_ECN : 0) |
		  (tp->nonagle & TCP_NAGLE_OFF ? 0 : MAGNET_OPT_NAGLE);
	t->advmss = READ_ONCE(tp->advmss);
	t->reserved = 0;
	t->mss = READ_ONCE(tp->mss_cache);
	t->srtt_us = READ_ONCE(tp->srtt_us) >> 3;
	t->rttvar_us = READ_ONCE(tp->mdev_us) >> 2;
	t->rto_us = jiffies_to_usecs(READ_ONCE(icsk->icsk_rto));
	t->cwnd = tcp_snd_cwnd(tp);
	t->ssthresh = READ_ONCE(tp->snd_ssthresh);
	t->snd_wnd = READ_ONCE(tp->snd_wnd);
	t->rcv_wnd = READ_ONCE(tp->rcv_wnd);
	t->snd_una = READ_ONCE(tp->snd_una);
	t->snd_nxt = READ_ONCE(tp->snd_nxt);
	t->write_seq = READ_ONCE(tp->write_seq);
	t->copied_seq = READ_ONCE(tp->copied_seq);
	t->packets_out = READ_ONCE(tp->packets_out);
	t->retrans_out = READ_ONCE(tp->retrans_out);
	t->total_retrans = READ_ONCE(tp->total_retrans);
	t->segs_out = READ_ONCE(tp->segs_out);
	t->data_segs_out = READ_ONCE(tp->data_segs_out);
	t->segs_in = READ_ONCE(tp->segs_in);
	t->data_segs_in = READ_ONCE(tp->data_segs_in);
	if (magnet_bl_owned(sk))
		magnet_backlog_segs_in(sk, &t->segs_in, &t->data_segs_in);
	t->rcv_nxt = READ_ONCE(tp->rcv_nxt);
	t->min_rtt_us = tcp_min_rtt(tp);
	t->rtt_us = READ_ONCE(tp->rack.rtt_us);
	t->bytes_sent = READ_ONCE(tp->bytes_sent);
	t->bytes_received = READ_ONCE(tp->bytes_received);
	t->bytes_acked = READ_ONCE(tp->bytes_acked);
	t->bytes_retrans = READ_ONCE(tp->bytes_retrans);
}

/* ------------------------------------------------------------ rec_tcp.c */

/* what an application call's kretprobe instance keeps from entry to return */
struct magnet_app_call {
	struct sock *sk;
	u64 req;
	u32 seq;
};

void magnet_record_tcp(struct sock *sk, const struct sk_buff *skb, u16 event);
void magnet_record_tcpev(struct sock *sk, const struct sk_buff *skb,
			 u8 event, u8 prev_state, u8 kind, u8 n);
void magnet_record_rcvbuf(struct sock *sk, u32 rcvbuf, u32 clamp);
void magnet_record_rtoend(struct sock *sk, u8 ca_state, u32 total, u32 ms);
int magnet_app_entry(struct magnet_app_call *call, struct pt_regs *regs,
		     bool send);
int magnet_app_return(const struct magnet_app_call *call,
		      struct pt_regs *regs, u16 event);

/* ------------------------------------------------------------ rec_pkt.c */

void magnet_record_pkt(const struct sk_buff *skb, const u8 *nh, u16 event,
		       bool out, bool dev, const struct net *net);
void magnet_record_drop(const struct sk_buff *skb, const u8 *nh, bool out,
			unsigned int reason, const void *location,
			const struct sock *rx_sk);
struct Qdisc;
struct netdev_queue;
void magnet_record_qdisc(const struct sk_buff *skb, const u8 *nh,
			 const struct Qdisc *q, u16 event);
void magnet_record_wire(const struct sk_buff *skb, const u8 *nh);
void magnet_qdisc_enq_begin(const struct sk_buff *skb, const struct Qdisc *q,
			    struct sk_buff **to_free,
			    const struct netdev_queue *txq);
void magnet_qdisc_enq_missed(void);
void magnet_qdisc_enq_end(const struct Qdisc *q,
			  const struct netdev_queue *txq,
			  const struct sk_buff *skb);
const u8 *magnet_vlan_nh(const struct sk_buff *skb, bool pushed);

/*
 * The IP header of a frame being sent (its link header pushed): untagged,
 * or behind VLAN tags in its data; NULL if it carries no IP packet
 */
static __always_inline const u8 *magnet_out_nh(const struct sk_buff *skb)
{
	if (likely(skb->protocol == htons(ETH_P_IP) ||
		   skb->protocol == htons(ETH_P_IPV6)))
		return skb_network_header(skb);
	if (eth_type_vlan(skb->protocol))
		return magnet_vlan_nh(skb, true);
	return NULL;
}

/* ------------------------------------------------------------- drops.c */

int magnet_drops_register(void);
void magnet_drops_unregister(void);
struct seq_file;
void magnet_drops_show(struct seq_file *m);

/* ------------------------------------------------------------ qdisc.c */

void magnet_qdisc_dequeue(void *data, struct Qdisc *q,
			  const struct netdev_queue *txq, int packets,
			  struct sk_buff *skb);
void magnet_qdisc_enqueue(void *data, struct Qdisc *q,
			  const struct netdev_queue *txq, struct sk_buff *skb);
struct net_device;
void magnet_wire_out(void *data, const struct sk_buff *skb,
		     const struct net_device *dev);

/* ------------------------------------------------------------ tcpev.c */

void magnet_retransmit(void *data, MAGNET_RETRANSMIT_ARGS);
void magnet_set_state(void *data, const struct sock *sk, const int oldstate,
		      const int newstate);
void magnet_cong_state(void *data, struct sock *sk, const u8 ca_state);
void magnet_tcpev_rto(struct sock *sk);
u32 magnet_tcpev_tlp_begin(struct sock *sk);
void magnet_tcpev_tlp_end(struct sock *sk, u32 high_seq);

/* ------------------------------------------------------ tracepoints.c */

int magnet_tracepoints_register(unsigned int layers);
void magnet_tracepoints_unregister(void);
void magnet_tracepoints_show(struct seq_file *m);

#endif /* MAGNET_REC_H */
