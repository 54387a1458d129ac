// SPDX-License-Identifier: GPL-2.0
/*
 * What the record builders share (rec.h): the filter terms of an event
 * tied to a socket, the flow ids and slot reservation, and the TCP
 * snapshot.
 */
#include <linux/kprobes.h>
#include <linux/tcp.h>
#include <net/sock.h>
#include <net/tcp.h>
#include <net/inet_sock.h>
#include <net/inet_connection_sock.h>
#include <net/ipv6.h>
#include "compat.h"
#include <linux/vmalloc.h>
#include <linux/hash.h>
#include <linux/random.h>
#include <linux/log2.h>
#include "rec.h"
#include "sockid.h"
#include "v3.h"

/*
 * full=0: last cwnd (bytes) seen per socket. A slot holds a 32-bit tag of
 * the socket's id and the cwnd; a collision can only cause an extra line,
 * never hide a change. The id, not the address: a new socket in a freed
 * one's memory, with the same cwnd (the initial window of two short
 * connections), has its first line. Written only when cwnd changed, so
 * mostly read-shared.
 */
#define MAGNET_CWND_SLOTS_BITS 12
static u64 magnet_cwnd_seen[1 << MAGNET_CWND_SLOTS_BITS];

bool notrace magnet_cwnd_changed(u64 sid, u32 cwnd_bytes)
{
	u64 h = sid * GOLDEN_RATIO_64;
	u64 *slot = &magnet_cwnd_seen[h >> (64 - MAGNET_CWND_SLOTS_BITS)];
	u64 v = (h << 32) | cwnd_bytes;

	if (READ_ONCE(*slot) == v)
		return false;
	WRITE_ONCE(*slot, v);
	return true;
}
NOKPROBE_SYMBOL(magnet_cwnd_changed);

/*
 * A socket's family and addresses (16 bytes each): IPv6, or IPv4 in the
 * first 4 bytes for AF_INET and for an IPv6 socket talking to an IPv4 peer.
 */
u8 notrace magnet_sock_addrs(const struct sock *sk, u8 *laddr, u8 *raddr)
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

/* the addr term, for an event tied to @sk (magnet_sock_ok()) */
bool notrace magnet_sock_addr_ok(const struct magnet_filter *f,
				 const struct sock *sk)
{
	u8 l[16], r[16], fam = magnet_sock_addrs(sk, l, r);

	return magnet_filter_addr_match(f, fam, l) ||
	       magnet_filter_addr_match(f, fam, r);
}
NOKPROBE_SYMBOL(magnet_sock_addr_ok);

DEFINE_PER_CPU(struct magnet_flow_ent *, magnet_flows);
u64 magnet_flow_salt __read_mostly;

int magnet_flows_init(void)
{
	int cpu;

	magnet_flow_salt = get_random_u64();

	for_each_possible_cpu(cpu) {
		struct magnet_flow_ent *t;

		t = vzalloc_node(array_size(MAGNET_V3_FLOW_IDS, sizeof(*t)),
				 cpu_to_node(cpu));
		if (!t) {
			magnet_flows_exit();
			return -ENOMEM;
		}
		per_cpu(magnet_flows, cpu) = t;
	}
	return 0;
}

/* Only after every probe is unregistered: no writer may be running. */
void magnet_flows_exit(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		vfree(per_cpu(magnet_flows, cpu));
		per_cpu(magnet_flows, cpu) = NULL;
	}
}

/* a FLOW record for @k as id @id (the socket's id is in @k) */
void notrace magnet_write_flow(union magnet_slot *s, u64 ts, u16 cpu, u16 id,
			       const struct magnet_flow_key *k,
			       const struct tcp_congestion_ops *ca)
{
	struct magnet_v3_flow *f = (void *)((char *)s + MAGNET_V3_HDR_SIZE);

	magnet_v3_put_hdr(s, ts, cpu, id, MAGNET_V3_FLOW, 0, MAGNET_V3_FLOW_SIZE);
	f->sock_id = k->sk;
	f->lport = k->lport;
	f->rport = k->rport;
	f->family = k->family;
	if (ca)
		memcpy(f->ca_name, ca->name, MAGNET_CA_NAME_LEN);
	else
		memset(f->ca_name, 0, MAGNET_CA_NAME_LEN);
	memcpy(f->laddr, k->laddr, 16);
	memcpy(f->raddr, k->raddr, 16);
	f->netns = k->netns;
	f->reserved = 0;
}
NOKPROBE_SYMBOL(magnet_write_flow);

/*
 * With local interrupts off, for magnet_rec_begin() and
 * magnet_rec_begin_sock() when this CPU's writer has no id for the flow
 * (or a LOST record is pending): the flow takes id @id + 1 (its entry @e),
 * its FLOW record goes in a slot before the event's. Not inlined: once per
 * flow and CPU.
 */
void *notrace magnet_rec_begin_flow(struct magnet_rec *c,
				    struct magnet_ring *ring,
				    struct magnet_flow_ent *e, unsigned int id,
				    bool pending,
				    const struct magnet_flow_key *k,
				    const struct tcp_congestion_ops *ca,
				    u8 event, u8 flags, u16 len)
{
	return magnet_rec_start(c, ring, e, id, true, pending, k, ca, event,
				flags, len);
}
NOKPROBE_SYMBOL(magnet_rec_begin_flow);

/* the same for the socket @sk, whose flow key is built here */
void *notrace magnet_rec_begin_sock_flow(struct magnet_rec *c,
					 struct magnet_ring *ring,
					 struct magnet_flow_ent *e,
					 unsigned int id, bool pending,
					 const struct sock *sk, u64 sid,
					 u16 lport, u16 rport,
					 const struct tcp_congestion_ops *ca,
					 u8 event, u8 flags, u16 len)
{
	struct magnet_flow_key k;

	magnet_sock_key(&k, sk, sid, lport, rport);
	return magnet_rec_start(c, ring, e, id, true, pending, &k, ca, event,
				flags, len);
}
NOKPROBE_SYMBOL(magnet_rec_begin_sock_flow);

