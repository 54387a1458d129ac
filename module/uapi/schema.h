/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The record schema, defined once: every field of the binary stream, part
 * by part, in its order, with what it means. record.h declares the structs
 * from these tables; v3.c encodes and decodes with them (the byte swap
 * included); ttpb2ascii, the unit tests' writers of the other byte order
 * and their fixtures swap with them; tests/vm/schema.py reads this file
 * for the Python checks; tests/unit/check.sh compares the tables with
 * docs/binary-format.md and with schema.py (tests/unit/schema_dump prints
 * every part with its offsets). Plain C, for the kernel and userspace.
 *
 * A table is a macro of entries X(type, name, dims, kind):
 *   type  __u8, __u16, __u32, __u64, __s64 or char, in the writer's byte
 *         order (a reader of the other order swaps every integer wider
 *         than a byte, element by element in an array; never a byte or a
 *         char array)
 *   name  the struct field's name
 *   dims  empty, or [n] for an array
 *   kind  F  a field. In a version 3 part: the decoder copies it into the
 *            field of the same name of what it decodes into (struct
 *            magnet_record for an event, struct magnet_v3_slot for a FLOW
 *            record, struct magnet_v3_rate for the rate part), and the
 *            encoder (from a version 2 record) takes it from there.
 *         V  version 3 only, in a part that decodes into struct
 *            magnet_record (full: 256 bytes): the decoder leaves it (a
 *            reader that shows it reads it from the record, as
 *            magnet_v3_rate() does the rate part), the encoder writes 0.
 *         R  reserved: written 0, never read.
 * Fields are naturally aligned and every part a multiple of 8 bytes with
 * no hidden padding (record.h's static asserts): a new field may need an
 * R beside it. Adding one: docs/binary-format.md's table of its part
 * (check.sh compares them), the writer that fills it (module/rec_*.c),
 * and whatever shows it.
 */
#ifndef MAGNET_SCHEMA_H
#define MAGNET_SCHEMA_H

/* ------------------------------------------------------------ version 3 */

/* Every record's 16-byte header (struct magnet_v3_hdr). */
#define MAGNET_V3_HDR_FIELDS(X)						\
	/* CLOCK_MONOTONIC ns; + sysinfo.realtime_offset_ns = wall time */ \
	X(__u64, ts_ns, , F)						\
	/* the CPU that wrote the record (LOST: that lost records; RESET:	\
	 * 0); also the scope of the flow id */				\
	X(__u16, cpu, , F)						\
	/* the flow id, 1 .. MAGNET_V3_FLOW_IDS; in a FLOW record the id it	\
	 * defines; 0 in LOST and RESET */				\
	X(__u16, flow, , F)						\
	/* MAGNET_EV_* or MAGNET_V3_FLOW */				\
	X(__u8, event, , F)						\
	/* MAGNET_RF_*: which groups of fields hold values */		\
	X(__u8, flags, , F)						\
	/* of the record, this header included */			\
	X(__u16, len, , F)

/* LOST and RESET (struct magnet_v3_count) */
#define MAGNET_V3_COUNT_PART(X)						\
	/* LOST: records lost on `cpu`; RESET: buffered records discarded */ \
	X(__u64, req, , F)						\
	/* LOST: the probe misses on that CPU since its last LOST record */ \
	X(__s64, ret, , F)

/*
 * FLOW (struct magnet_v3_flow): what is constant for a connection, under
 * the flow id of the header's flow, on the header's cpu.
 */
#define MAGNET_V3_FLOW_PART(X)						\
	/* the socket's cookie (`ss -e`'s sk:, SO_COOKIE): never the same	\
	 * for two sockets while the kernel runs, never a kernel address;	\
	 * 0 = not tied to a socket */					\
	X(__u64, sock_id, , F)						\
	/* local and remote port, host order (the socket's own ends, also	\
	 * for received packets) */					\
	X(__u16, lport, , F)						\
	X(__u16, rport, , F)						\
	/* MAGNET_FAMILY_*; a v4-mapped IPv6 socket is INET with its IPv4	\
	 * addresses */							\
	X(__u8, family, , F)						\
	/* the congestion control's name, NUL-padded (may fill all 11), for	\
	 * the records with RF_TCP */					\
	X(char, ca_name, [MAGNET_CA_NAME_LEN], F)			\
	/* IPv4 in the first 4 bytes (network order, the rest 0), else IPv6 */ \
	X(__u8, laddr, [16], F)						\
	X(__u8, raddr, [16], F)						\
	/* the network namespace the flow's events happened in: its inode	\
	 * number, as `lsns -t net`, `stat -L -c %i /proc/PID/ns/net`	\
	 * and the netns= filter give it; 0 = unknown (a FLOW record of 72	\
	 * bytes, written before this field existed, or encoded from format	\
	 * 2, which has none). The same addresses and ports in two		\
	 * namespaces are two flows. */					\
	X(__u32, netns, , F)						\
	X(__u32, reserved, , R)

/*
 * RF_TCP (TCP and app events, struct magnet_v3_tcp): the event and the
 * TCP snapshot. The TCP probes run where the socket is locked; an app
 * event reads each field once after the call (docs/binary-format.md, "How
 * exact an app record is").
 */
#define MAGNET_V3_TCP_PART(X)						\
	/* bytes at this layer: skb->len (TCP out: payload; TCP in: header	\
	 * + payload); app events: the bytes the call moved */		\
	X(__u32, len, , F)						\
	/* sk_mark when sent, skb->mark when received */		\
	X(__u32, mark, , F)						\
	/* the TCP sequence range of the segment, of the data written	\
	 * (APP_SEND: write_seq before/after) or read (APP_RECV: copied_seq	\
	 * before/after) */						\
	X(__u32, seq, , F)						\
	X(__u32, end_seq, , F)						\
	/* sk_state (1 ESTABLISHED ... 10 LISTEN) */			\
	X(__u8, state, , F)						\
	/* icsk_ca_state */						\
	X(__u8, ca_state, , F)						\
	/* window scales: snd_wscale << 4 | rcv_wscale */		\
	X(__u8, wscale, , F)						\
	/* MAGNET_OPT_*: negotiated options, Nagle */			\
	X(__u8, opts, , F)						\
	/* the MSS this end advertised */				\
	X(__u16, advmss, , F)						\
	X(__u16, reserved, , R)						\
	/* mss_cache, bytes */						\
	X(__u32, mss, , F)						\
	/* smoothed RTT and its variation, retransmission timeout, us */	\
	X(__u32, srtt_us, , F)						\
	X(__u32, rttvar_us, , F)					\
	X(__u32, rto_us, , F)						\
	/* snd_cwnd and snd_ssthresh, packets */			\
	X(__u32, cwnd, , F)						\
	X(__u32, ssthresh, , F)						\
	/* send and receive windows, bytes */				\
	X(__u32, snd_wnd, , F)						\
	X(__u32, rcv_wnd, , F)						\
	/* the sequence variables */					\
	X(__u32, snd_una, , F)						\
	X(__u32, snd_nxt, , F)						\
	X(__u32, write_seq, , F)					\
	X(__u32, copied_seq, , F)					\
	/* packets in flight, of them retransmitted; all retransmissions */ \
	X(__u32, packets_out, , F)					\
	X(__u32, retrans_out, , F)					\
	X(__u32, total_retrans, , F)					\
	/* the connection's counters (RFC 4898, web10g): segments, and	\
	 * segments with data, out and in; a tcp_out record's include the	\
	 * segment being sent, a tcp_in record's what TCP has processed */	\
	X(__u32, segs_out, , F)						\
	X(__u32, data_segs_out, , F)					\
	X(__u32, segs_in, , F)						\
	X(__u32, data_segs_in, , F)					\
	/* next sequence number expected from the peer */		\
	X(__u32, rcv_nxt, , F)						\
	/* the windowed minimum RTT, us; ~0U = no sample yet */		\
	X(__u32, min_rtt_us, , F)					\
	/* the RTT of the latest acked data (rack.rtt_us), us; 0 = none yet */ \
	X(__u32, rtt_us, , F)						\
	/* data bytes sent (retransmissions included), received in order,	\
	 * cumulatively acked, retransmitted */				\
	X(__u64, bytes_sent, , F)					\
	X(__u64, bytes_received, , F)					\
	X(__u64, bytes_acked, , F)					\
	X(__u64, bytes_retrans, , F)

/* RF_APP, after the TCP part (struct magnet_v3_app): the call */
#define MAGNET_V3_APP_PART(X)						\
	/* the process (tgid) */					\
	X(__u32, pid, , F)						\
	X(__u32, reserved, , R)						\
	/* the size asked for */					\
	X(__u64, req, , F)						\
	/* the return value: bytes, or a negative errno */		\
	X(__s64, ret, , F)						\
	/* the command, NUL-padded (may fill all 16) */			\
	X(char, comm, [MAGNET_COMM_LEN], F)

/*
 * RF_HDR (IP and device events, struct magnet_v3_pkt): the packet's
 * headers, what rebuilding them needs; then tcp_hlen - 20 bytes of TCP
 * options, zero-padded to 8 (not in the table: their length varies).
 */
#define MAGNET_V3_PKT_PART(X)						\
	/* the IP packet by its header's length (IPv4 total length, IPv6	\
	 * payload length + 40) */					\
	X(__u32, len, , F)						\
	/* sk_mark when sent, skb->mark when received */		\
	X(__u32, mark, , F)						\
	/* the TCP segment's sequence range; 0 without RF_SEQ */	\
	X(__u32, seq, , F)						\
	X(__u32, end_seq, , F)						\
	/* device events: the interface index; 0 without RF_DEV */	\
	X(__u32, ifindex, , F)						\
	/* TCP (tcp_hlen != 0): the acknowledgment number */		\
	X(__u32, tcp_ack, , F)						\
	/* IPv4's id */							\
	X(__u16, ip_id, , F)						\
	/* TCP: the window as sent (unscaled) */			\
	X(__u16, tcp_win, , F)						\
	/* the network header's bytes (IPv4 with options, IPv6 with	\
	 * extension headers) */					\
	X(__u16, ip_hlen, , F)						\
	/* IPv4's flags and fragment offset (IPv6: 0) */		\
	X(__u16, ip_frag, , F)						\
	/* sk_state; 0 without RF_SOCK */				\
	X(__u8, state, , F)						\
	/* TOS (IPv6: traffic class), TTL (IPv6: hop limit), the transport	\
	 * protocol (6 TCP, 17 UDP, ...; IPv6: after extension headers) */	\
	X(__u8, ip_tos, , F)						\
	X(__u8, ip_ttl, , F)						\
	X(__u8, ip_proto, , F)						\
	/* TCP: the flags byte, FIN 0x01 .. CWR 0x80 */			\
	X(__u8, tcp_flags, , F)						\
	/* TCP header bytes, options included; 0 = no whole TCP header */	\
	X(__u8, tcp_hlen, , F)						\
	X(__u8, reserved, [2], R)

/*
 * RF_RATE (TCP and app events, struct magnet_v3_rate), after the TCP part
 * and, in an app record, the call: what tcp_info gives congestion-control
 * research beyond the TCP part, read where the TCP part is. delivery rate
 * = rate_delivered * mss * 1000000 / rate_interval_us bytes/s (0 if either
 * is 0), as tcp_info's tcpi_delivery_rate.
 */
#define MAGNET_V3_RATE_PART(X)						\
	/* sk_pacing_rate, bytes/s; ~0 = unlimited */			\
	X(__u64, pacing_rate, , F)					\
	/* packets delivered (acked); of them, ECN CE-marked */		\
	X(__u32, delivered, , F)					\
	X(__u32, delivered_ce, , F)					\
	/* packets presumed lost; SACKed */				\
	X(__u32, lost_out, , F)						\
	X(__u32, sacked_out, , F)					\
	/* the last rate sample: packets delivered, its interval */	\
	X(__u32, rate_delivered, , F)					\
	X(__u32, rate_interval_us, , F)					\
	/* that sample was app-limited */				\
	X(__u8, app_limited, , F)					\
	/* what cc_info holds: INET_DIAG_*INFO (16 tcp_bbr_info, 3		\
	 * tcpvegas_info, 9 tcp_dctcp_info); 0 = none */		\
	X(__u8, cc_attr, , F)						\
	X(__u16, reserved, , R)						\
	/* the congestion control's get_info() answer as 32-bit words, at	\
	 * TCP events only, where the socket is locked (the rest 0) */	\
	X(__u32, cc_info, [5], F)

/*
 * cc_info's words as BBR's get_info() fills them (cc_attr 16, the kernel's
 * struct tcp_bbr_info): the bandwidth's two halves, then the words the
 * magnet text shows a column each, by these names, after bbr_bw
 */
#define MAGNET_V3_BBR_BW(X)						\
	X(__u32, bbr_bw_lo, , F)					\
	X(__u32, bbr_bw_hi, , F)
#define MAGNET_V3_BBR_WORDS(X)						\
	X(__u32, bbr_min_rtt, , F)	/* µs */			\
	X(__u32, bbr_pacing_gain, , F)	/* << 8 */			\
	X(__u32, bbr_cwnd_gain, , F)	/* << 8 */

/*
 * A DROP event (struct magnet_v3_drop): the packet part and its options as
 * an IP or device event has them (the flags say which fields hold values),
 * then this part, last: why and where the kernel freed the packet as
 * dropped (its skb:kfree_skb tracepoint).
 */
#define MAGNET_V3_DROP_PART(X)						\
	/* the kernel's enum skb_drop_reason value, as that kernel numbers	\
	 * it (the name below is what means the same on every kernel); 0 =	\
	 * the kernel gives no reason (before 5.17) */			\
	X(__u32, reason, , F)						\
	X(__u32, reserved, , R)						\
	/* the reason's name without SKB_DROP_REASON_ (NOT_SPECIFIED,	\
	 * QDISC_DROP, NETFILTER_DROP, ...), NUL-padded; empty when the	\
	 * kernel gives none */						\
	X(char, reason_name, [32], F)					\
	/* the function that freed it (kfree_skb's caller, the location	\
	 * the tracepoint gives) by its name, never its address, with	\
	 * " [module]" for a module's; NUL-padded, cut at 31 bytes */	\
	X(char, where, [32], F)

/*
 * A TCP event (RETRANS, RTO, TLP, STATE, CA_STATE; struct
 * magnet_v3_tcpev): the TCP part and the rate part, as a TCP event has
 * them, then this part, last. A STATE event's TCP part has the state
 * entered in `state`, a CA_STATE event's the congestion state entered in
 * `ca_state`.
 */
#define MAGNET_V3_TCPEV_PART(X)						\
	/* STATE: the state left (sk_state before); CA_STATE: the	\
	 * congestion state left (icsk_ca_state before); else 0 */	\
	X(__u8, prev_state, , F)					\
	/* RETRANS: MAGNET_RETRANS_* (what made it); TLP: MAGNET_TLP_*	\
	 * (what the probe sent); else 0 */				\
	X(__u8, kind, , F)						\
	/* RTO: the timeouts in a row before this one (icsk_retransmits,	\
	 * 255 at most); else 0 */					\
	X(__u8, timeouts, , F)						\
	/* FEAT_RTO_TOTALS (bytes 3-7 reserved, 0, before it): 1 if the	\
	 * two below are the kernel's (Linux 6.7 on), 0 if it keeps none */ \
	X(__u8, rto_totals, , F)					\
	/* tp->total_rto: the socket's RTO timeouts (SYN's and those in	\
	 * a row included) before this event's moment (tcpi_total_rto) */ \
	X(__u16, total_rto, , F)					\
	/* tp->total_rto_recoveries: the RTO recoveries it entered, one	\
	 * still running included (tcpi_total_rto_recoveries) */	\
	X(__u16, total_rto_recoveries, , F)

/*
 * The limit part (struct magnet_v3_limit): last in every TCP_OUT, TCP_IN
 * and TCP event (RETRANS, RTO, TLP, STATE, CA_STATE) record of a log
 * whose header's features have MAGNET_V3_FEAT_LIMIT (after the rate part, or the TCP
 * event part), never in an app record. What held the sender back, as the
 * kernel's chronographs count it (tp->chrono_*, Linux 4.10+), and its
 * reordering state. Times are in jiffies, as the kernel keeps them: µs =
 * jiffies * jiffy_us, which is how tcp_info computes tcpi_busy_time (the
 * three summed), tcpi_rwnd_limited and tcpi_sndbuf_limited, the running
 * chronograph's time until the event included. The bytes written but not
 * yet sent are the TCP part's write_seq - snd_nxt.
 */
#define MAGNET_V3_LIMIT_PART(X)						\
	/* the time sending, not limited by the receiver's window or the	\
	 * send buffer (by the congestion window or pacing), jiffies */	\
	X(__u32, busy, , F)						\
	/* the time limited by the receiver's window; by the send buffer */ \
	X(__u32, rwnd_limited, , F)					\
	X(__u32, sndbuf_limited, , F)					\
	/* how long the socket has been in `chrono`, jiffies (0: it never	\
	 * ran one) */							\
	X(__u32, chrono_time, , F)					\
	/* tp->reordering: the reordering, in packets, loss detection	\
	 * allows (RFC 4898's RetranThresh) */				\
	X(__u32, reordering, , F)					\
	/* tp->reord_seen: reorderings detected; tp->dsack_dups: segments	\
	 * DSACKed (tcp_info's tcpi_reord_seen, tcpi_dsack_dups) */	\
	X(__u32, reord_seen, , F)					\
	X(__u32, dsack_dups, , F)					\
	/* µs per jiffy: 1000000 / HZ, as the kernel divides */		\
	X(__u16, jiffy_us, , F)						\
	/* the running chronograph (the kernel's enum tcp_chrono): 0 none	\
	 * (nothing queued to send), 1 busy, 2 receiver's window, 3 send	\
	 * buffer */							\
	X(__u8, chrono, , F)						\
	X(__u8, reserved, , R)

/*
 * A RCVBUF event (struct magnet_v3_rcvbuf): the TCP part (no rate part),
 * then this part, last: the receiver's autotuning (tcp_rcv_space_adjust,
 * Linux's "DRS") as it left the socket, each time it grew the receive
 * buffer or the window clamp. Values after the growth; the TCP part's
 * rcv_wnd is the window last advertised.
 */
#define MAGNET_V3_RCVBUF_PART(X)					\
	/* sk_rcvbuf: the receive buffer, bytes; its value before */	\
	X(__u32, rcvbuf, , F)						\
	X(__u32, rcvbuf_before, , F)					\
	/* tp->window_clamp: the largest window TCP may advertise, bytes;	\
	 * its value before */						\
	X(__u32, window_clamp, , F)					\
	X(__u32, window_clamp_before, , F)				\
	/* tp->rcv_ssthresh: the window's current limit, bytes */	\
	X(__u32, rcv_ssthresh, , F)					\
	/* tp->rcvq_space.space: the bytes the application read in the	\
	 * last measured round trip, which the buffer is sized from	\
	 * (tcp_info's tcpi_rcv_space) */				\
	X(__u32, space, , F)						\
	/* the receiver's RTT estimate (rcv_rtt_est, tcpi_rcv_rtt), µs */	\
	X(__u32, rcv_rtt_us, , F)					\
	X(__u32, reserved, , R)

/*
 * An RTO_END event (struct magnet_v3_rtoend): the TCP part (no rate part),
 * then this part, last: an RTO recovery ended, the socket's congestion
 * state leaving Loss (tcp:tcp_cong_state_set, events=cong) on a kernel
 * that times RTO recoveries (Linux 6.7 and later: tp->rto_stamp, the
 * recovery's first timeout, in ms of tcp_mstamp's clock). Where the state
 * entered is Open the kernel adds the recovery's time to
 * tp->total_rto_time right after the change (tcp_update_rto_time()), from
 * the same clock reading: total_rto_time here is its value then, what
 * tcp_info's tcpi_total_rto_time says until the next recovery starts.
 * Into Recovery (tcp_enter_recovery()) it adds nothing and keeps timing
 * from rto_stamp: total_rto_time is then the total before. The TCP part's
 * ca_state is the state entered.
 */
#define MAGNET_V3_RTOEND_PART(X)					\
	/* tp->total_rto_time after the change: with this recovery's ms	\
	 * where the state entered is Open, as the kernel adds them (the \
	 * ms spent in RTO recoveries, tcpi_total_rto_time) */		\
	X(__u32, total_rto_time, , F)					\
	/* this recovery's own ms: its first timeout (tp->rto_stamp) to	\
	 * this change, tcp_mstamp's ms as the kernel counts them */	\
	X(__u32, rto_recovery_ms, , F)					\
	/* tp->total_rto and tp->total_rto_recoveries at the change	\
	 * (tcpi_total_rto, tcpi_total_rto_recoveries) */		\
	X(__u16, total_rto, , F)					\
	X(__u16, total_rto_recoveries, , F)				\
	X(__u32, reserved, , R)

/*
 * A QDISC event (struct magnet_v3_qdisc): the packet part and its options
 * as a device event has them (the device the qdisc is on), then this
 * part, last: the qdisc the packet left toward the driver (the device's
 * root qdisc, which qdisc:qdisc_dequeue reports) and what it still holds.
 */
#define MAGNET_V3_QDISC_PART(X)						\
	/* its handle and its parent's, as tc numbers them (major << 16 |	\
	 * minor: 0x10000 is "1:") */					\
	X(__u32, handle, , F)						\
	X(__u32, parent, , F)						\
	/* packets and bytes still in it after the dequeue that took this	\
	 * one (one dequeue may take several); ~0 = not known (a qdisc that	\
	 * counts per CPU) */						\
	X(__u32, qlen, , F)						\
	X(__u32, backlog, , F)						\
	/* its kind (tbf, netem, fq_codel, ...), NUL-padded */		\
	X(char, kind, [16], F)

/* ------------------------------------------------------------ version 2 */

/*
 * struct magnet_record: one event, 256 bytes, fields as in version 3's
 * parts (above) unless said. Unless a flag says otherwise, a field that
 * does not apply is 0. The TCP snapshot (RF_TCP) and the packet header
 * (RF_HDR) share offsets 112-171.
 */
#define MAGNET_V2_HEAD(X)						\
	X(__u64, ts_ns, , F)		/*   0 */			\
	X(__u64, sock_id, , F)		/*   8: RF_SOCK */		\
	X(__u16, event, , F)		/*  16: MAGNET_EV_* */		\
	X(__u16, cpu, , F)		/*  18 */			\
	X(__u8, family, , F)		/*  20 */			\
	X(__u8, state, , F)		/*  21: RF_SOCK */		\
	X(__u8, ca_state, , F)		/*  22: RF_TCP */		\
	X(__u8, flags, , F)		/*  23: MAGNET_RF_* */		\
	X(__u16, lport, , F)		/*  24 */			\
	X(__u16, rport, , F)		/*  26 */			\
	X(__u32, len, , F)		/*  28 */			\
	X(__u8, laddr, [16], F)		/*  32 */			\
	X(__u8, raddr, [16], F)		/*  48 */			\
	X(__u32, seq, , F)		/*  64: RF_SEQ */		\
	X(__u32, end_seq, , F)		/*  68 */			\
	X(__u32, mark, , F)		/*  72 */			\
	X(__u32, pid, , F)		/*  76: RF_APP */		\
	/* RF_APP: the call's return; LOST: the probe misses */		\
	X(__s64, ret, , F)		/*  80 */			\
	/* RF_APP: the size asked for; LOST, RESET: the count */	\
	X(__u64, req, , F)		/*  88 */			\
	X(char, comm, [MAGNET_COMM_LEN], F)	/*  96: RF_APP */

/* RF_TCP (TCP and app events), offsets 112-171 */
#define MAGNET_V2_SNAP(X)						\
	X(__u32, mss, , F)		/* 112 */			\
	X(__u32, srtt_us, , F)		/* 116 */			\
	X(__u32, rttvar_us, , F)	/* 120 */			\
	X(__u32, rto_us, , F)		/* 124 */			\
	X(__u32, cwnd, , F)		/* 128 */			\
	X(__u32, ssthresh, , F)		/* 132 */			\
	X(__u32, snd_wnd, , F)		/* 136 */			\
	X(__u32, rcv_wnd, , F)		/* 140 */			\
	X(__u32, snd_una, , F)		/* 144 */			\
	X(__u32, snd_nxt, , F)		/* 148 */			\
	X(__u32, write_seq, , F)	/* 152 */			\
	X(__u32, copied_seq, , F)	/* 156 */			\
	X(__u32, packets_out, , F)	/* 160 */			\
	X(__u32, retrans_out, , F)	/* 164 */			\
	X(__u32, total_retrans, , F)	/* 168 */

/* RF_HDR (IP and device events), in the same bytes */
#define MAGNET_V2_HDR(X)						\
	X(__u32, tcp_ack, , F)		/* 112 */			\
	X(__u16, tcp_win, , F)		/* 116 */			\
	X(__u8, tcp_flags, , F)		/* 118 */			\
	X(__u8, tcp_hlen, , F)		/* 119 */			\
	X(__u16, ip_hlen, , F)		/* 120 */			\
	X(__u16, ip_frag, , F)		/* 122 */			\
	/* the options, tcp_hlen - 20 bytes; the rest 0 */		\
	X(__u8, tcp_opts, [MAGNET_TCP_OPTS_LEN], F)	/* 124 */	\
	X(__u32, hdr_reserved, [2], R)	/* 164 */

/*
 * RF_TCP, offsets 192-253 of MAGNET_V2_TAIL (below): the per-connection
 * counters web10g needs (wscale and opts follow them there). A table of
 * their own: the magnet text's columns segs_out .. advmss are these fields
 * (module/shared/format.h's MAGNET_TEXT_COLS_TCP).
 */
#define MAGNET_V2_CONN(X)						\
	X(__u32, segs_out, , F)		/* 192 */			\
	X(__u32, data_segs_out, , F)	/* 196 */			\
	X(__u32, segs_in, , F)		/* 200 */			\
	X(__u32, data_segs_in, , F)	/* 204 */			\
	X(__u64, bytes_sent, , F)	/* 208 */			\
	X(__u64, bytes_received, , F)	/* 216 */			\
	X(__u64, bytes_acked, , F)	/* 224 */			\
	X(__u64, bytes_retrans, , F)	/* 232 */			\
	X(__u32, rcv_nxt, , F)		/* 240 */			\
	X(__u32, min_rtt_us, , F)	/* 244 */			\
	X(__u32, rtt_us, , F)		/* 248 */			\
	X(__u16, advmss, , F)		/* 252 */

#define MAGNET_V2_TAIL(X)						\
	X(__u32, ifindex, , F)		/* 172: RF_DEV */		\
	X(__u16, ip_id, , F)		/* 176: RF_IP */		\
	X(__u8, ip_tos, , F)		/* 178: RF_IP */		\
	X(__u8, ip_ttl, , F)		/* 179: RF_IP */		\
	X(char, ca_name, [MAGNET_CA_NAME_LEN], F)	/* 180: RF_TCP */ \
	X(__u8, ip_proto, , F)		/* 191: RF_IP */		\
	/* the per-connection counters web10g needs (RF_TCP) */		\
	MAGNET_V2_CONN(X)						\
	X(__u8, wscale, , F)		/* 254 */			\
	X(__u8, opts, , F)		/* 255 */

/* ------------------------------------------------------ the header */

/* struct magnet_sysinfo: the first 256 bytes of every stream */
#define MAGNET_SYSINFO_FIELDS(X)					\
	X(__u32, magic, , F)		/*   0: MAGNET_MAGIC */		\
	X(__u16, version, , F)		/*   4: MAGNET_FORMAT_VERSION* */ \
	/* sizeof(struct magnet_record); 0 in version 3 */		\
	X(__u16, record_size, , F)	/*   6 */			\
	X(__u16, sysinfo_size, , F)	/*   8: sizeof(this) */		\
	X(__u16, ncpus, , F)		/*  10: nr_cpu_ids */		\
	/* version 3: MAGNET_V3_FEAT_* the writer's records may use; 0 in \
	 * version 2, and from a writer before the field (record.h) */	\
	X(__u32, features, , F)		/*  12 */			\
	X(__s64, realtime_offset_ns, , F)	/*  16: REALTIME - ts clock */ \
	X(__u64, start_ns, , F)		/*  24: ts clock at the start */ \
	X(char, release, [72], F)	/*  32: uname -r, NUL-terminated */ \
	/* the parameters in force */					\
	X(__u32, port, , F)		/* 104 */			\
	X(__u32, full, , F)		/* 108 */			\
	X(__u32, bufsize, , F)		/* 112 */			\
	X(__u32, omode, , F)		/* 116 */			\
	X(__u32, direction, , F)	/* 120 */			\
	X(__u32, fwmark, , F)		/* 124 */			\
	X(__u32, events, , F)		/* 128: MAGNET_LAYER_* mask */	\
	X(__u32, reserved1, , R)	/* 132 */			\
	X(char, procname, [32], F)	/* 136 */			\
	X(char, version_string, [24], F)	/* 168: module version */ \
	X(__u8, reserved2, [64], R)	/* 192 */

/* ------------------------------------------------- what the tables give */

/* a struct's member, from an entry: struct s { MAGNET_V3_TCP_PART(...) } */
#define MAGNET_SCHEMA_MEMBER(type, name, dims, kind) type name dims;

/* the bytes of an entry, summed: (0 TABLE(MAGNET_SCHEMA_SIZE)) */
#define MAGNET_SCHEMA_SIZE(type, name, dims, kind) + sizeof(type dims)

#endif /* MAGNET_SCHEMA_H */
