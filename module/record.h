/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * magnet record layout, shared by the kernel module and the userspace tools.
 *
 * One record is written per probe hit into the per-CPU ring. The layout is
 * fixed-size, naturally aligned, host-endian, and identical on every kernel
 * magnet builds for; the static asserts at the end of this file fail the
 * build (kernel and userspace alike) if a field moves.
 *
 * Field meanings (TCP events):
 *   ts_ns        CLOCK_MONOTONIC nanoseconds, taken when the record is
 *                reserved; add the realtime offset of the capture to get
 *                wall-clock time.
 *   sock_id      keyed hash (siphash, random key per load) of the socket.
 *                Never a kernel address.
 *   event        MAGNET_EV_*.
 *   cpu          CPU that wrote the record.
 *   family       MAGNET_FAMILY_INET or MAGNET_FAMILY_INET6 (v4-mapped IPv6
 *                sockets are recorded as INET with their IPv4 addresses).
 *   state        sk_state (1 ESTABLISHED ... 10 LISTEN, 12 NEW_SYN_RECV).
 *   lport/rport  local / remote port of the socket, host byte order.
 *   len          skb->len at the probe point, bytes.
 *   laddr/raddr  local / remote address; IPv4 uses the first 4 bytes,
 *                network byte order, the rest is zero.
 *   mss          mss_cache, bytes.
 *   srtt_us      smoothed RTT in microseconds (srtt_us >> 3).
 *   rttvar_us    RTT mean deviation in microseconds (mdev_us >> 2).
 *   cwnd         snd_cwnd, packets.
 *   ssthresh     snd_ssthresh, packets.
 *   snd_wnd, rcv_wnd, snd_una, snd_nxt: the tcp_sock fields.
 *   seq, end_seq TCP sequence range of the segment (TCP_SKB_CB).
 *   mark         fwmark: sk_mark for sent, skb->mark for received segments.
 */
#ifndef MAGNET_RECORD_H
#define MAGNET_RECORD_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/build_bug.h>
#define MAGNET_STATIC_ASSERT(c, m) static_assert(c, m)
#else
#include <linux/types.h>
#include <stddef.h>
#include <assert.h>
#define MAGNET_STATIC_ASSERT(c, m) _Static_assert(c, m)
#endif

#define MAGNET_RECORD_VERSION 1

enum magnet_event {
	MAGNET_EV_TCP_OUT = 1,	/* segment sent, at TCP transmit */
	MAGNET_EV_TCP_IN = 2,	/* segment received, at TCP receive */
};

#define MAGNET_FAMILY_INET 4
#define MAGNET_FAMILY_INET6 6

struct magnet_record {
	__u64 ts_ns;		/*   0 */
	__u64 sock_id;		/*   8 */
	__u16 event;		/*  16 */
	__u16 cpu;		/*  18 */
	__u8 family;		/*  20 */
	__u8 state;		/*  21 */
	__u16 reserved0;	/*  22 */
	__u16 lport;		/*  24 */
	__u16 rport;		/*  26 */
	__u32 len;		/*  28 */
	__u8 laddr[16];		/*  32 */
	__u8 raddr[16];		/*  48 */
	__u32 mss;		/*  64 */
	__u32 srtt_us;		/*  68 */
	__u32 rttvar_us;	/*  72 */
	__u32 cwnd;		/*  76 */
	__u32 ssthresh;		/*  80 */
	__u32 snd_wnd;		/*  84 */
	__u32 rcv_wnd;		/*  88 */
	__u32 snd_una;		/*  92 */
	__u32 snd_nxt;		/*  96 */
	__u32 seq;		/* 100 */
	__u32 end_seq;		/* 104 */
	__u32 mark;		/* 108 */
	__u32 packets_out;	/* 112 */
	__u32 retrans_out;	/* 116 */
	__u32 total_retrans;	/* 120 */
	__u32 reserved1;	/* 124 */
};

#define MAGNET_RECORD_SIZE 128

MAGNET_STATIC_ASSERT(sizeof(struct magnet_record) == MAGNET_RECORD_SIZE,
		     "magnet_record must be 128 bytes");
MAGNET_STATIC_ASSERT(offsetof(struct magnet_record, sock_id) == 8, "sock_id");
MAGNET_STATIC_ASSERT(offsetof(struct magnet_record, event) == 16, "event");
MAGNET_STATIC_ASSERT(offsetof(struct magnet_record, family) == 20, "family");
MAGNET_STATIC_ASSERT(offsetof(struct magnet_record, lport) == 24, "lport");
MAGNET_STATIC_ASSERT(offsetof(struct magnet_record, len) == 28, "len");
MAGNET_STATIC_ASSERT(offsetof(struct magnet_record, laddr) == 32, "laddr");
MAGNET_STATIC_ASSERT(offsetof(struct magnet_record, raddr) == 48, "raddr");
MAGNET_STATIC_ASSERT(offsetof(struct magnet_record, mss) == 64, "mss");
MAGNET_STATIC_ASSERT(offsetof(struct magnet_record, cwnd) == 76, "cwnd");
MAGNET_STATIC_ASSERT(offsetof(struct magnet_record, snd_nxt) == 96, "snd_nxt");
MAGNET_STATIC_ASSERT(offsetof(struct magnet_record, seq) == 100, "seq");
MAGNET_STATIC_ASSERT(offsetof(struct magnet_record, mark) == 108, "mark");
MAGNET_STATIC_ASSERT(offsetof(struct magnet_record, total_retrans) == 120,
		     "total_retrans");

#endif /* MAGNET_RECORD_H */
