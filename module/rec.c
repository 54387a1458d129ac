// SPDX-License-Identifier: GPL-2.0
/*
 * What the record builders share (rec.h): the filter terms of an event
 * tied to a socket, the slot reservation, and the TCP snapshot.
 */
#include <linux/kprobes.h>
#include <linux/tcp.h>
#include <net/sock.h>
#include <net/tcp.h>
#include <net/inet_sock.h>
#include <net/inet_connection_sock.h>
#include <net/ipv6.h>
#include "compat.h"
#include "rec.h"

/*
 * full=0: last cwnd (bytes) seen per socket. A slot holds a 32-bit tag of
 * the socket and the cwnd; a collision can only cause an extra line, never
 * hide a change. Written only when cwnd changed, so mostly read-shared.
 */
#define MAGNET_CWND_SLOTS_BITS 12
static u64 magnet_cwnd_seen[1 << MAGNET_CWND_SLOTS_BITS];

bool notrace magnet_cwnd_changed(const struct sock *sk, u32 cwnd_bytes)
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

bool notrace magnet_ports_ok(const struct magnet_filter *f, u16 lport,
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

bool notrace magnet_mark_ok(const struct magnet_filter *f, u32 mark)
{
	return !(f->set & MAGNET_FT_FWMARK) || !f->fwmark || mark == f->fwmark;
}
NOKPROBE_SYMBOL(magnet_mark_ok);

bool notrace magnet_netns_ok(const struct magnet_filter *f,
			     const struct net *net)
{
	return !(f->set & MAGNET_FT_NETNS) || (net && net->ns.inum == f->netns);
}
NOKPROBE_SYMBOL(magnet_netns_ok);

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

/* the port, mark, netns and address terms, for an event tied to @sk */
bool notrace magnet_sock_ok(const struct magnet_filter *f, const struct sock *sk,
			    u16 lport, u16 rport, u32 mark)
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
struct magnet_record *notrace
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
void notrace magnet_fill_tcp(struct magnet_record *rec, const struct sock *sk)
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

/* Zero what an event type does not fill (the ring slot holds old data). */
void notrace magnet_clear_app(struct magnet_record *rec)
{
	rec->pid = 0;
	rec->ret = 0;
	rec->req = 0;
	memset(rec->comm, 0, sizeof(rec->comm));
}
NOKPROBE_SYMBOL(magnet_clear_app);

/* the TCP snapshot's fields outside mss .. total_retrans, which IP and
 * device events fill with the packet's header (magnet_fill_hdr) */
void notrace magnet_clear_tcp(struct magnet_record *rec)
{
	rec->ca_state = 0;
	memset(rec->ca_name, 0, MAGNET_CA_NAME_LEN);
	/* segs_out .. opts: the version 2 counters, to the record's end */
	memset((char *)rec + offsetof(struct magnet_record, segs_out), 0,
	       sizeof(*rec) - offsetof(struct magnet_record, segs_out));
}
NOKPROBE_SYMBOL(magnet_clear_tcp);
