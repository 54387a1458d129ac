// SPDX-License-Identifier: GPL-2.0
/*
 * TCP's decisions (events=retrans, events=state): each a TCP event with
 * the socket's TCP snapshot and rate part (rec_tcp.c), then the TCP event
 * part (record.h, struct magnet_v3_tcpev).
 *
 *   event    where                                   events=
 *   RETRANS  tcp:tcp_retransmit_skb (tracepoint)     retrans
 *   RTO      tcp_retransmit_timer's entry (ftrace)   retrans
 *   TLP      tcp_send_loss_probe's return (kretprobe) retrans
 *   STATE    sock:inet_sock_set_state (tracepoint)   state
 *   CA_STATE tcp:tcp_cong_state_set (tracepoint)     cong
 *   RTO_END  the same, out of Loss, where the kernel  cong
 *            times RTO recoveries (6.7+): the TCP part and the rtoend
 *            part (struct magnet_v3_rtoend), no rate part
 *
 * The two tracepoints are not exported to modules: tracepoints.c finds
 * them by name and registers the handlers here. The RTO and TLP
 * probes are in probes.c's table; what they share with the retransmission
 * handler is here: while tcp_send_loss_probe() runs (its kretprobe's entry
 * to its return), this CPU's loss probe socket is set, so a retransmission
 * of that socket then is the probe's (MAGNET_RETRANS_TLP). The socket is
 * locked all along, so no other retransmission of it can run in between.
 */
#include <linux/percpu.h>
#include <net/tcp.h>
#include "compat.h"
#include "rec.h"

/* the socket whose tail loss probe this CPU is sending, or NULL */
static DEFINE_PER_CPU(const struct sock *, magnet_tlp_sk);

void notrace magnet_retransmit(void *data, MAGNET_RETRANSMIT_ARGS)
{
	struct sock *s = (struct sock *)sk;
	u8 kind;

	if (unlikely(!s || !skb) || !(MAGNET_RETRANSMIT_SENT))
		return;
	/* the socket is locked: its state is what the retransmission saw */
	if (this_cpu_read(magnet_tlp_sk) == sk)
		kind = MAGNET_RETRANS_TLP;
	else if (inet_csk(sk)->icsk_ca_state == TCP_CA_Loss)
		kind = MAGNET_RETRANS_RTO;
	else
		kind = MAGNET_RETRANS_FAST;
	/* a tracepoint's probe holds its own read-side section (the
	 * filter): a kernel may run it preemptible */
	rcu_read_lock();
	magnet_record_tcpev(s, skb, MAGNET_EV_RETRANS, 0, kind, 0);
	rcu_read_unlock();
}
NOKPROBE_SYMBOL(magnet_retransmit);

void notrace magnet_set_state(void *data, const struct sock *sk,
			      const int oldstate, const int newstate)
{
	if (unlikely(!sk) || sk->sk_protocol != IPPROTO_TCP)
		return;
	/*
	 * A connection's socket, cloned from its listener, enters SYN_RECV
	 * before it has its own ends and cookie on some kernels (5.10, 6.1,
	 * 6.12: they are the listener's until inet_csk_clone_lock() sets
	 * them, after; 7.2 sets them first):
	 * such a change is not written, as it would be the listener's. The
	 * socket's first event, to ESTABLISHED, says it left SYN_RECV.
	 */
	if (newstate == TCP_SYN_RECV && !READ_ONCE(sk->sk_dport))
		return;
	rcu_read_lock();
	magnet_record_tcpev((struct sock *)sk, NULL, MAGNET_EV_STATE,
			    (u8)oldstate, 0, (u8)newstate);
	rcu_read_unlock();
}
NOKPROBE_SYMBOL(magnet_set_state);

/*
 * tcp_set_ca_state(sk, ca_state): the tracepoint fires before the state
 * changes, with the socket locked (ACK processing, the timers, a
 * connection's start or end). Only a change is written: the kernel also
 * sets the state it already has (Open again, Loss at a backed-off RTO).
 */
void notrace magnet_cong_state(void *data, struct sock *sk, const u8 ca_state)
{
	u32 total, ms;
	u8 old;

	if (unlikely(!sk) || sk->sk_protocol != IPPROTO_TCP)
		return;
	old = inet_csk(sk)->icsk_ca_state;
	if (old == ca_state)
		return;
	rcu_read_lock();
	magnet_record_tcpev(sk, NULL, MAGNET_EV_CA_STATE, old, 0, ca_state);
	if (old == TCP_CA_Loss && magnet_rto_end(tcp_sk(sk), ca_state, &total, &ms))
		magnet_record_rtoend(sk, ca_state, total, ms);
	rcu_read_unlock();
}
NOKPROBE_SYMBOL(magnet_cong_state);

/* tcp_retransmit_timer(sk)'s entry: the RTO fired */
void notrace magnet_tcpev_rto(struct sock *sk)
{
	if (unlikely(!sk))
		return;
	magnet_record_tcpev(sk, NULL, MAGNET_EV_RTO, 0, 0,
			    READ_ONCE(inet_csk(sk)->icsk_retransmits));
}
NOKPROBE_SYMBOL(magnet_tcpev_rto);

/*
 * tcp_send_loss_probe(sk)'s entry: until its return, a retransmission of
 * @sk on this CPU is the probe's. Returns tlp_high_seq, for the return.
 */
u32 notrace magnet_tcpev_tlp_begin(struct sock *sk)
{
	__this_cpu_write(magnet_tlp_sk, sk);
	return READ_ONCE(tcp_sk(sk)->tlp_high_seq);
}
NOKPROBE_SYMBOL(magnet_tcpev_tlp_begin);

/*
 * Its return: the TLP event, with what the probe sent. TCP sends at most
 * one probe at a time: with one out (tlp_high_seq set at entry) the timer
 * only rearms; a probe sent sets tlp_high_seq (the kernel counts it in
 * TCPLossProbes there), and tlp_retrans if it was the last segment again.
 */
void notrace magnet_tcpev_tlp_end(struct sock *sk, u32 high_seq)
{
	const struct tcp_sock *tp = tcp_sk(sk);
	u8 kind;

	__this_cpu_write(magnet_tlp_sk, NULL);
	if (high_seq || !READ_ONCE(tp->tlp_high_seq))
		kind = MAGNET_TLP_NONE;
	else
		kind = tp->tlp_retrans ? MAGNET_TLP_RETRANS : MAGNET_TLP_NEW;
	magnet_record_tcpev(sk, NULL, MAGNET_EV_TLP, 0, kind, 0);
}
NOKPROBE_SYMBOL(magnet_tcpev_tlp_end);
