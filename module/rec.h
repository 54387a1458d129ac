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
#include <net/sock.h>
#include <net/tcp.h>
#include "magnet.h"
#include "ring.h"
#include "backlog.h"

/* ------------------------------------------------------------ rec.c */

/* The filter in force; handlers run with preemption off (RCU-sched). */
static __always_inline const struct magnet_filter *magnet_filter(void)
{
	return &rcu_dereference_sched(magnet_active)->f;
}

static __always_inline void magnet_filtered(void)
{
	this_cpu_inc(magnet_rings->filtered);
}

bool magnet_cwnd_changed(const struct sock *sk, u32 cwnd_bytes);
bool magnet_ports_ok(const struct magnet_filter *f, u16 lport, u16 rport);
bool magnet_mark_ok(const struct magnet_filter *f, u32 mark);
bool magnet_netns_ok(const struct magnet_filter *f, const struct net *net);
u8 magnet_sock_addrs(const struct sock *sk, u8 *laddr, u8 *raddr);
bool magnet_sock_ok(const struct magnet_filter *f, const struct sock *sk,
		    u16 lport, u16 rport, u32 mark);

/*
 * What a FLOW record says, as the writer keys its flows: the socket (its
 * address, 0 for a packet not tied to one), ports, family and addresses.
 * The congestion control is compared apart, for TCP and app events only.
 */
struct magnet_flow_key {
	u64 sk;
	u16 lport;
	u16 rport;
	u32 family;
	u8 laddr[16];
	u8 raddr[16];
};

/* an event being written: see magnet_rec_begin() */
struct magnet_rec {
	struct magnet_ring *ring;
	unsigned long flags;		/* local_irq_save() */
};

int magnet_flows_init(void);
void magnet_flows_exit(void);
void *magnet_rec_begin(struct magnet_rec *c, const struct magnet_flow_key *k,
		       u8 event, u8 flags, u16 len);
void *magnet_rec_begin_sock(struct magnet_rec *c, const struct sock *sk,
			    u16 lport, u16 rport,
			    const struct tcp_congestion_ops *ca,
			    u8 event, u8 flags, u16 len);
void magnet_fill_tcp(struct magnet_v3_tcp *t, const struct sock *sk);

static __always_inline void magnet_rec_end(struct magnet_rec *c)
{
	magnet_ring_commit(c->ring);
	local_irq_restore(c->flags);
}

/* The socket's flow: ports, family, addresses. */
static __always_inline void magnet_sock_key(struct magnet_flow_key *k,
					    const struct sock *sk, u16 lport,
					    u16 rport)
{
	k->sk = (u64)(unsigned long)sk;
	k->lport = lport;
	k->rport = rport;
	k->family = magnet_sock_addrs(sk, k->laddr, k->raddr);
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

/* ------------------------------------------------------------ rec_tcp.c */

/* what an application call's kretprobe instance keeps from entry to return */
struct magnet_app_call {
	struct sock *sk;
	u64 req;
	u32 seq;
};

void magnet_record_tcp(struct sock *sk, const struct sk_buff *skb, u16 event);
int magnet_app_entry(struct magnet_app_call *call, struct pt_regs *regs,
		     bool send);
int magnet_app_return(const struct magnet_app_call *call,
		      struct pt_regs *regs, u16 event);

/* ------------------------------------------------------------ rec_pkt.c */

void magnet_record_pkt(const struct sk_buff *skb, const u8 *nh, u16 event,
		       bool out, bool dev);

#endif /* MAGNET_REC_H */
