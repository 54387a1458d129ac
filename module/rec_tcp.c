// SPDX-License-Identifier: GPL-2.0
/*
 * The TCP and application events: a segment at TCP transmit and receive,
 * and a tcp_sendmsg()/tcp_recvmsg() call at its return. Both carry the TCP
 * snapshot (rec.c) and, where the output shows it (magnet_cfg.rate),
 * the rate part (magnet_fill_rate below), then a segment's record the
 * limit part (magnet_cfg.limit, magnet_fill_limit below):
 * pacing and delivery rates, delivered and CE-marked packets, lost and
 * SACKed segments out, and what the congestion control's get_info()
 * answers (magnet_fill_cc_info below, asked at TCP events only, where the
 * socket is locked).
 */
#include <linux/inet_diag.h>
#include <linux/kprobes.h>
#include <linux/sched.h>
#include <linux/tcp.h>
#include <net/sock.h>
#include <net/tcp.h>
#include <net/inet_sock.h>
#include "compat.h"
#include "rec.h"

/*
 * At __tcp_transmit_skb's entry the segment is not counted yet: count it,
 * so a tcp_out record carries the connection's state after this segment
 * (and consecutive records of a flow never repeat the same counters).
 */
static void notrace magnet_count_out(struct magnet_v3_tcp *t,
				     const struct sk_buff *skb)
{
	u32 pcount = max_t(u32, TCP_SKB_CB(skb)->tcp_gso_segs, 1);

	t->segs_out += pcount;
	if (skb->len) {
		t->data_segs_out += pcount;
		t->bytes_sent += skb->len;
	}
}
NOKPROBE_SYMBOL(magnet_count_out);

/*
 * What @ca's get_info() reports of @sk (tcp_bbr_info, tcpvegas_info or
 * tcp_dctcp_info) into @x's cc_info, as inet_diag asks for it: every
 * attribute wanted, one answer. Out of line: only a congestion control
 * with a get_info() (BBR, Vegas, DCTCP, Illinois) pays for it. The socket
 * is locked, and @ca cannot go away in a handler (magnet_rec_begin_sock()).
 */
static noinline void notrace
magnet_fill_cc_info(struct magnet_v3_rate *x, struct sock *sk,
		    const struct tcp_congestion_ops *ca)
{
	union tcp_cc_info info;
	int attr = 0;
	size_t n;

	BUILD_BUG_ON(sizeof(info) > sizeof(x->cc_info));
	n = ca->get_info(sk, ~0U, &attr, &info);
	if (n && n <= sizeof(x->cc_info) && attr > 0 && attr <= 0xff) {
		memcpy(x->cc_info, &info, n);
		x->cc_attr = attr;
	}
}
NOKPROBE_SYMBOL(magnet_fill_cc_info);

/*
 * The rate part (record.h, RF_RATE) after the TCP part, read as
 * magnet_fill_tcp() reads. @ca: the socket's congestion control as the
 * caller read it, asked for its get_info() state only when @locked (a TCP
 * event; at an app return the socket is not, and a congestion control
 * reads several of its fields to compute what it reports).
 */
static __always_inline void magnet_fill_rate(struct magnet_v3_rate *x,
					     struct sock *sk,
					     const struct tcp_congestion_ops *ca,
					     bool locked)
{
	const struct tcp_sock *tp = tcp_sk(sk);
	unsigned long rate = READ_ONCE(sk->sk_pacing_rate);

	x->pacing_rate = rate != ~0UL ? rate : ~0ULL;
	x->delivered = READ_ONCE(tp->delivered);
	x->delivered_ce = READ_ONCE(tp->delivered_ce);
	x->lost_out = READ_ONCE(tp->lost_out);
	x->sacked_out = READ_ONCE(tp->sacked_out);
	x->rate_delivered = READ_ONCE(tp->rate_delivered);
	x->rate_interval_us = READ_ONCE(tp->rate_interval_us);
	x->app_limited = tp->rate_app_limited;	/* a bit field */
	x->cc_attr = 0;
	x->reserved = 0;
	memset(x->cc_info, 0, sizeof(x->cc_info));
	if (locked && ca && ca->get_info)
		magnet_fill_cc_info(x, sk, ca);
}

/*
 * The limit part (record.h, FEAT_LIMIT), last: the chronographs as
 * tcp_get_info_chrono_stats() reads them (the running one's time until now
 * added to its own), the reordering state. The socket is locked (a TCP
 * event) or its owner's softirq runs: the values are the ones tcp_info
 * would give now.
 */
static __always_inline void magnet_fill_limit(struct magnet_v3_limit *x,
					      const struct sock *sk)
{
	const struct tcp_sock *tp = tcp_sk(sk);
	unsigned int type = magnet_chrono_type(tp);
	u32 start = READ_ONCE(tp->chrono_start);
	/* since it entered @type; a socket that never ran one has start 0 */
	u32 now = start || type ? tcp_jiffies32 - start : 0;

	x->busy = READ_ONCE(tp->chrono_stat[TCP_CHRONO_BUSY - 1]);
	x->rwnd_limited = READ_ONCE(tp->chrono_stat[TCP_CHRONO_RWND_LIMITED - 1]);
	x->sndbuf_limited =
		READ_ONCE(tp->chrono_stat[TCP_CHRONO_SNDBUF_LIMITED - 1]);
	if (type == TCP_CHRONO_BUSY)
		x->busy += now;
	else if (type == TCP_CHRONO_RWND_LIMITED)
		x->rwnd_limited += now;
	else if (type == TCP_CHRONO_SNDBUF_LIMITED)
		x->sndbuf_limited += now;
	x->chrono_time = now;
	x->reordering = READ_ONCE(tp->reordering);
	x->reord_seen = READ_ONCE(tp->reord_seen);
	x->dsack_dups = READ_ONCE(tp->dsack_dups);
	x->jiffy_us = USEC_PER_SEC / HZ;
	x->chrono = type;
	x->reserved = 0;
}

/*
 * magnet_record_tcp()'s record, once the filters kept it; @rate, @limit:
 * constants, so each copy inlined is written for its own layout (one with
 * a test of @rate at each use cost the version 3 stream 28 instructions
 * an event, bench-insn)
 */
static __always_inline void magnet_write_tcp(struct sock *sk,
					     const struct sk_buff *skb,
					     u16 event, u16 lport, u16 rport,
					     u32 mark, const bool rate,
					     const bool limit)
{
	const struct tcp_congestion_ops *ca = READ_ONCE(inet_csk(sk)->icsk_ca_ops);
	struct magnet_v3_tcp *t;
	struct magnet_rec c;

	t = magnet_rec_begin_sock(&c, sk, lport, rport, ca, event,
				  MAGNET_RF_SOCK | MAGNET_RF_TCP | MAGNET_RF_SEQ |
				  (rate ? MAGNET_RF_RATE : 0),
				  MAGNET_V3_TCP_SIZE +
				  (rate ? MAGNET_V3_RATE_SIZE : 0) +
				  (limit ? MAGNET_V3_LIMIT_SIZE : 0));
	if (!t)
		return;
	t->len = skb->len;
	t->mark = mark;
	t->seq = TCP_SKB_CB(skb)->seq;
	t->end_seq = TCP_SKB_CB(skb)->end_seq;
	magnet_fill_tcp(t, sk);
	if (event == MAGNET_EV_TCP_OUT)
		magnet_count_out(t, skb);
	if (rate)
		magnet_fill_rate((struct magnet_v3_rate *)(t + 1), sk, ca,
				 true);
	if (limit)
		magnet_fill_limit((struct magnet_v3_limit *)
				  ((char *)(t + 1) +
				   (rate ? MAGNET_V3_RATE_SIZE : 0)), sk);
	magnet_rec_end(&c);
}

/*
 * A segment of @sk at TCP transmit (__tcp_transmit_skb's entry, before it
 * is counted) or receive (tcp_v4_do_rcv, tcp_v6_do_rcv).
 */
void notrace magnet_record_tcp(struct sock *sk, const struct sk_buff *skb,
			       u16 event)
{
	const struct magnet_filter *f = magnet_filter();
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
	    !magnet_cwnd_changed(magnet_sock_id(sk),
				 tcp_snd_cwnd(tcp_sk(sk)) * tcp_sk(sk)->mss_cache))
		goto filtered;
	if (magnet_cfg.rate)	/* and the limit part */
		magnet_write_tcp(sk, skb, event, lport, rport, mark, true, true);
	else if (magnet_cfg.limit)
		magnet_write_tcp(sk, skb, event, lport, rport, mark, false, true);
	else
		magnet_write_tcp(sk, skb, event, lport, rport, mark, false, false);
	return;
filtered:
	magnet_ring_filtered();
}
NOKPROBE_SYMBOL(magnet_record_tcp);

/*
 * At a tcp_sendmsg() (@send) or tcp_recvmsg() entry: whether to record the
 * call (0: its return probe runs), and what its return needs.
 */
int notrace magnet_app_entry(struct magnet_app_call *call,
			     struct pt_regs *regs, bool send)
{
	struct sock *sk = (struct sock *)regs_get_kernel_argument(regs, 0);
	const struct magnet_filter *f = magnet_filter();

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
		magnet_ring_filtered();
		return 1;
	}
	call->sk = sk;
	call->req = regs_get_kernel_argument(regs, 2);
	call->seq = send ? READ_ONCE(tcp_sk(sk)->write_seq) :
			   READ_ONCE(tcp_sk(sk)->copied_seq);
	return 0;
}
NOKPROBE_SYMBOL(magnet_app_entry);

/* magnet_app_return()'s record; @rate a constant, as magnet_write_tcp() */
static __always_inline void magnet_write_app(const struct magnet_app_call *call,
					     int ret, u16 event,
					     const bool rate)
{
	struct sock *sk = call->sk;
	struct magnet_v3_tcp *t;
	struct magnet_v3_app *a;
	struct magnet_rec c;

	t = magnet_rec_begin_sock(&c, sk, ntohs(inet_sk(sk)->inet_sport),
				  ntohs(sk->sk_dport),
				  READ_ONCE(inet_csk(sk)->icsk_ca_ops), event,
				  MAGNET_RF_SOCK | MAGNET_RF_TCP | MAGNET_RF_SEQ |
				  MAGNET_RF_APP | (rate ? MAGNET_RF_RATE : 0),
				  MAGNET_V3_APP_SIZE +
				  (rate ? MAGNET_V3_RATE_SIZE : 0));
	if (!t)
		return;
	t->len = ret > 0 ? ret : 0;
	t->mark = READ_ONCE(sk->sk_mark);
	t->seq = call->seq;
	t->end_seq = event == MAGNET_EV_APP_SEND ?
		     READ_ONCE(tcp_sk(sk)->write_seq) :
		     READ_ONCE(tcp_sk(sk)->copied_seq);
	magnet_fill_tcp(t, sk);
	a = (struct magnet_v3_app *)(t + 1);
	a->pid = current->tgid;
	a->reserved = 0;
	a->req = call->req;
	a->ret = ret;
	memcpy(a->comm, current->comm, sizeof(a->comm));
	if (rate)
		magnet_fill_rate((struct magnet_v3_rate *)(a + 1), sk, NULL,
				 false);
	magnet_rec_end(&c);
}

/* At the return of a call magnet_app_entry() chose: its record. */
int notrace magnet_app_return(const struct magnet_app_call *call,
			      struct pt_regs *regs, u16 event)
{
	/* tcp_sendmsg and tcp_recvmsg return int: rax's upper half is junk */
	int ret = (int)regs_return_value(regs);

	if (magnet_cfg.rate)
		magnet_write_app(call, ret, event, true);
	else
		magnet_write_app(call, ret, event, false);
	return 0;
}
NOKPROBE_SYMBOL(magnet_app_return);

/*
 * The beginning shared by a TCP event's record (magnet_record_tcpev,
 * magnet_record_rcvbuf, magnet_record_rtoend) once its layer passed the
 * filter: the socket's ports and mark through the filter (counted as
 * filtered if not), then @event's record of @size bytes with @flags begun
 * and its TCP part filled (@skb's len, seq and end_seq, or none). NULL if
 * filtered or the ring is full (counted there); *@cap: the congestion
 * control the TCP part names.
 */
static __always_inline struct magnet_v3_tcp *
magnet_tcpev_begin(struct magnet_rec *c, const struct magnet_filter *f,
		   struct sock *sk, const struct sk_buff *skb, u8 event,
		   u8 flags, u16 size, const struct tcp_congestion_ops **cap)
{
	const struct tcp_congestion_ops *ca;
	struct magnet_v3_tcp *t;
	u16 lport = ntohs(inet_sk(sk)->inet_sport);
	u16 rport = ntohs(sk->sk_dport);
	u32 mark = READ_ONCE(sk->sk_mark);

	if (!magnet_sock_ok(f, sk, lport, rport, mark)) {
		magnet_ring_filtered();
		return NULL;
	}
	*cap = ca = READ_ONCE(inet_csk(sk)->icsk_ca_ops);
	t = magnet_rec_begin_sock(c, sk, lport, rport, ca, event, flags, size);
	if (!t)
		return NULL;
	t->len = skb ? skb->len : 0;
	t->mark = mark;
	t->seq = skb ? TCP_SKB_CB(skb)->seq : 0;
	t->end_seq = skb ? TCP_SKB_CB(skb)->end_seq : 0;
	magnet_fill_tcp(t, sk);
	return t;
}

/*
 * A TCP event (events=retrans, events=state; tcpev.c) of the full TCP
 * socket @sk, where it is locked: @event with the TCP snapshot and the
 * rate part, then the TCP event part (@prev_state and @kind). RETRANS
 * carries the segment @skb (len, seq, end_seq as a tcp_out record has
 * them); the others none. @n: STATE's state entered (the TCP part's
 * state: the tracepoint runs before sk_state changes), CA_STATE's
 * congestion state entered (the TCP part's ca_state; @prev_state the one
 * left), RTO's timeouts before it; at each, the socket's RTO totals where
 * the kernel keeps them. The congestion control is asked for
 * its state except at a STATE event (a socket being cloned for a
 * connection (SYN_RECV) or connecting has not initialised its own yet)
 * and a CA_STATE one (the congestion control is itself being told).
 */
void notrace magnet_record_tcpev(struct sock *sk, const struct sk_buff *skb,
				 u8 event, u8 prev_state, u8 kind, u8 n)
{
	const struct magnet_filter *f = magnet_filter();
	const struct tcp_congestion_ops *ca;
	struct magnet_v3_tcpev *ev;
	struct magnet_v3_tcp *t;
	struct magnet_rec c;

	if (unlikely(!sk_fullsock(sk)))
		return;
	if (!(f->events & (event == MAGNET_EV_STATE ? MAGNET_LAYER_STATE :
			   event == MAGNET_EV_CA_STATE ? MAGNET_LAYER_CONG :
						      MAGNET_LAYER_RETRANS)) ||
	    (event != MAGNET_EV_STATE && !(f->dir & MAGNET_FDIR_OUT))) {
		magnet_ring_filtered();
		return;
	}
	t = magnet_tcpev_begin(&c, f, sk, skb, event,
			       MAGNET_RF_SOCK | MAGNET_RF_TCP | MAGNET_RF_RATE |
			       (skb ? MAGNET_RF_SEQ : 0),
			       MAGNET_V3_TCP_SIZE + MAGNET_V3_RATE_SIZE +
			       MAGNET_V3_TCPEV_SIZE + MAGNET_V3_LIMIT_SIZE, &ca);
	if (!t)
		return;
	if (event == MAGNET_EV_STATE)
		t->state = n;
	else if (event == MAGNET_EV_CA_STATE)
		t->ca_state = n;
	magnet_fill_rate((struct magnet_v3_rate *)(t + 1), sk, ca,
			 event != MAGNET_EV_STATE &&
			 event != MAGNET_EV_CA_STATE);
	ev = (struct magnet_v3_tcpev *)((char *)(t + 1) + MAGNET_V3_RATE_SIZE);
	ev->prev_state = prev_state;
	ev->kind = kind;
	ev->timeouts = event == MAGNET_EV_RTO ? n : 0;
	ev->rto_totals = magnet_rto_totals(tcp_sk(sk), &ev->total_rto,
					   &ev->total_rto_recoveries);
	/* the outputs with TCP events have the limit part (magnet_cfg) */
	magnet_fill_limit((struct magnet_v3_limit *)(ev + 1), sk);
	magnet_rec_end(&c);
}
NOKPROBE_SYMBOL(magnet_record_tcpev);

/*
 * The beginning of an event with the TCP part and one part of its own
 * (RCVBUF, RTO_END) of @size bytes with it: NULL if @layer or direction
 * @dir is filtered out, or as magnet_tcpev_begin() (with no packet, the
 * flags RF_SOCK and RF_TCP)
 */
static __always_inline struct magnet_v3_tcp *
magnet_part_begin(struct magnet_rec *c, struct sock *sk, u8 event,
		  u32 layer, u32 dir, u16 size)
{
	const struct magnet_filter *f = magnet_filter();
	const struct tcp_congestion_ops *ca;

	if (!(f->events & layer) || !(f->dir & dir)) {
		magnet_ring_filtered();
		return NULL;
	}
	return magnet_tcpev_begin(c, f, sk, NULL, event,
				  MAGNET_RF_SOCK | MAGNET_RF_TCP, size, &ca);
}

/*
 * Receive-buffer autotuning (events=rcvbuf; probes.c): the call to
 * tcp_rcv_space_adjust() of the full TCP socket @sk, which holds it (its
 * owner, or the softirq with it locked), left sk_rcvbuf at other than
 * @rcvbuf or window_clamp at other than @clamp: a RCVBUF event with the TCP
 * part and the rcvbuf part, the values after and before.
 */
void notrace magnet_record_rcvbuf(struct sock *sk, u32 rcvbuf, u32 clamp)
{
	const struct tcp_sock *tp = tcp_sk(sk);
	struct magnet_v3_rcvbuf *rb;
	struct magnet_v3_tcp *t;
	struct magnet_rec c;

	t = magnet_part_begin(&c, sk, MAGNET_EV_RCVBUF, MAGNET_LAYER_RCVBUF,
			      MAGNET_FDIR_IN,
			      MAGNET_V3_TCP_SIZE + MAGNET_V3_RCVBUF_SIZE);
	if (!t)
		return;
	rb = (struct magnet_v3_rcvbuf *)(t + 1);
	rb->rcvbuf = (u32)READ_ONCE(sk->sk_rcvbuf);
	rb->rcvbuf_before = rcvbuf;
	rb->window_clamp = READ_ONCE(tp->window_clamp);
	rb->window_clamp_before = clamp;
	rb->rcv_ssthresh = READ_ONCE(tp->rcv_ssthresh);
	rb->space = (u32)READ_ONCE(tp->rcvq_space.space);
	rb->rcv_rtt_us = READ_ONCE(tp->rcv_rtt_est.rtt_us) >> 3;
	rb->reserved = 0;
	magnet_rec_end(&c);
}
NOKPROBE_SYMBOL(magnet_record_rcvbuf);

/*
 * The end of an RTO recovery (events=cong; tcpev.c): the full TCP socket
 * @sk, locked, leaves Loss for @ca_state after a recovery of @ms, and its
 * total_rto_time is @total after the change (the kernel adds @ms only
 * into Open: magnet_rto_end()): an RTO_END event with the TCP part (its
 * ca_state the state entered) and the rtoend part.
 */
void notrace magnet_record_rtoend(struct sock *sk, u8 ca_state, u32 total,
				  u32 ms)
{
	struct magnet_v3_rtoend *re;
	struct magnet_v3_tcp *t;
	struct magnet_rec c;
	u16 n, rec;

	t = magnet_part_begin(&c, sk, MAGNET_EV_RTO_END, MAGNET_LAYER_CONG,
			      MAGNET_FDIR_OUT,
			      MAGNET_V3_TCP_SIZE + MAGNET_V3_RTOEND_SIZE);
	if (!t)
		return;
	t->ca_state = ca_state;
	re = (struct magnet_v3_rtoend *)(t + 1);
	re->total_rto_time = total;
	re->rto_recovery_ms = ms;
	(void)magnet_rto_totals(tcp_sk(sk), &n, &rec);
	re->total_rto = n;
	re->total_rto_recoveries = rec;
	re->reserved = 0;
	magnet_rec_end(&c);
}
NOKPROBE_SYMBOL(magnet_record_rtoend);
