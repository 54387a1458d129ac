/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * magnet's binary stream (omode=1): the layout shared by the kernel module
 * and the userspace tools. docs/binary-format.md describes it for readers.
 *
 * A stream is one SYSINFO header (struct magnet_sysinfo, sysinfo_size
 * bytes) followed by records (struct magnet_record, record_size bytes),
 * all in the writer's byte order. The SYSINFO magic tells the order: a
 * reader that sees MAGNET_MAGIC_SWAPPED byte-swaps every field.
 *
 * Records are naturally aligned and fixed-size; the static asserts at the
 * end fail the build (kernel and userspace alike) if a field moves.
 */
#ifndef MAGNET_RECORD_H
#define MAGNET_RECORD_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/build_bug.h>
#include <linux/stddef.h>
#define MAGNET_STATIC_ASSERT(c, m) static_assert(c, m)
#else
#include <linux/types.h>
#include <stddef.h>
#define MAGNET_STATIC_ASSERT(c, m) _Static_assert(c, m)
#endif
#include "schema.h"

#define MAGNET_MAGIC 0x01234567U
#define MAGNET_MAGIC_SWAPPED 0x67452301U
#define MAGNET_FORMAT_VERSION 2

enum magnet_event {
	MAGNET_EV_TCP_OUT = 1,	/* segment sent, at TCP transmit */
	MAGNET_EV_TCP_IN = 2,	/* segment received, at TCP receive */
	MAGNET_EV_APP_SEND = 3,	/* tcp_sendmsg() returned */
	MAGNET_EV_APP_RECV = 4,	/* tcp_recvmsg() returned */
	MAGNET_EV_IP_OUT = 5,	/* IP transmit of a TCP segment */
	MAGNET_EV_IP_IN = 6,	/* IP receive */
	MAGNET_EV_DEV_OUT = 7,	/* device queue transmit */
	MAGNET_EV_DEV_IN = 8,	/* device receive */
	MAGNET_EV_LOST = 9,	/* `req` records were lost on `cpu` */
	MAGNET_EV_RESET = 10,	/* `req` buffered records were discarded by
				 * the reset command (cpu: 0) */
	/* 11 is version 3's FLOW record (MAGNET_V3_FLOW), not an event */
	/* version 3 only: the kernel freed the packet as dropped
	 * (skb:kfree_skb), one this host sent or forwards (laddr: its
	 * source), or one it received (laddr: its destination) */
	MAGNET_EV_DROP_OUT = 12,
	MAGNET_EV_DROP_IN = 13,
	/* version 3 only: TCP's decisions, each with the TCP snapshot and
	 * the TCP event part (struct magnet_v3_tcpev) */
	MAGNET_EV_RETRANS = 14,	/* a segment retransmitted (sent again) */
	MAGNET_EV_RTO = 15,	/* the retransmission timer fired */
	MAGNET_EV_TLP = 16,	/* the tail loss probe timer fired (written
				 * when TCP is done with it) */
	MAGNET_EV_STATE = 17,	/* the socket's TCP state changed */
	/* version 3 only: a packet its device's qdisc let go toward the
	 * driver (qdisc:qdisc_dequeue), the packet part and the qdisc part
	 * (struct magnet_v3_qdisc) */
	MAGNET_EV_QDISC = 18,
	/* version 3 only: a packet its device's qdisc took in and kept
	 * (dev_qdisc_enqueue() and qdisc:qdisc_enqueue, where the kernel has
	 * them), the packet part and the qdisc part, what it holds with this
	 * packet (a GSO packet it split: the packet it was given) */
	MAGNET_EV_QDISC_ENQ = 19,
	/* version 3 only: a packet its device hands to the driver, after
	 * the qdisc (net:net_dev_start_xmit, where a capture such as tcpdump
	 * sees it leave), a device event (events=wire); DEV_OUT is its hand-
	 * over to the device's queue, before the qdisc */
	MAGNET_EV_WIRE_OUT = 20,
	/* version 3 only: the socket's congestion state (icsk_ca_state:
	 * Open, Disorder, CWR, Recovery, Loss) changed (tcp:tcp_cong_state_
	 * set, where the kernel has it: Linux 5.15 and later), a TCP event
	 * (events=cong); its TCP part's ca_state is the state entered, its
	 * TCP event part's prev_state the state left */
	MAGNET_EV_CA_STATE = 21,
	/* version 3 only: receive-buffer autotuning grew the socket's
	 * receive buffer or window clamp (events=rcvbuf), the TCP part and
	 * the rcvbuf part (struct magnet_v3_rcvbuf): the values after */
	MAGNET_EV_RCVBUF = 22,
	/* version 3 only: an RTO recovery ended (the congestion state left
	 * Loss, on Linux 6.7 and later: events=cong), the TCP part and the
	 * rtoend part (struct magnet_v3_rtoend): the socket's time in RTO
	 * recoveries as the kernel sums it, and this recovery's */
	MAGNET_EV_RTO_END = 23,
	MAGNET_EV_MAX = MAGNET_EV_RTO_END,
};

/* the layers of the events= parameter */
#define MAGNET_LAYER_APP 0x1
#define MAGNET_LAYER_TCP 0x2
#define MAGNET_LAYER_IP 0x4
#define MAGNET_LAYER_DEV 0x8
#define MAGNET_LAYER_ALL 0xf	/* the four layers (all: not drops) */
#define MAGNET_LAYER_DROP 0x10	/* drops (events=drop), format 3 only */
/* retransmissions, RTO and TLP fires (events=retrans), format 3 only */
#define MAGNET_LAYER_RETRANS 0x20
#define MAGNET_LAYER_STATE 0x40	/* TCP state changes (events=state), too */
#define MAGNET_LAYER_QDISC 0x80	/* qdisc enqueues, dequeues (events=qdisc), too */
/* packets handed to the driver, after the qdisc (events=wire), too */
#define MAGNET_LAYER_WIRE 0x100
/* congestion-state changes (events=cong), too */
#define MAGNET_LAYER_CONG 0x200
/* receive-buffer autotuning (events=rcvbuf), too */
#define MAGNET_LAYER_RCVBUF 0x400
/* what only format 3 carries */
#define MAGNET_LAYER_V3_ONLY (MAGNET_LAYER_DROP | MAGNET_LAYER_RETRANS | \
			      MAGNET_LAYER_STATE | MAGNET_LAYER_QDISC | \
			      MAGNET_LAYER_WIRE | MAGNET_LAYER_CONG | \
			      MAGNET_LAYER_RCVBUF)

/* struct magnet_v3_tcpev's kind: what made a RETRANS event */
#define MAGNET_RETRANS_RTO 1	/* in loss recovery (icsk_ca_state Loss):
				 * the timer's own, and those after it */
#define MAGNET_RETRANS_FAST 2	/* another state: fast retransmit, RACK */
#define MAGNET_RETRANS_TLP 3	/* sent by the tail loss probe */
/* and of a TLP event: what the probe sent */
#define MAGNET_TLP_NONE 1	/* nothing (a probe was out already, or no
				 * segment could go): the timer rearmed */
#define MAGNET_TLP_NEW 2	/* new data */
#define MAGNET_TLP_RETRANS 3	/* the last segment again (its RETRANS
				 * event, kind tlp, comes before) */

#define MAGNET_FAMILY_INET 4
#define MAGNET_FAMILY_INET6 6

/* record flags: which groups of fields are valid */
#define MAGNET_RF_TCP 0x01	/* mss .. total_retrans, ca_state, ca_name */
#define MAGNET_RF_SEQ 0x02	/* seq, end_seq */
#define MAGNET_RF_IP 0x04	/* ip_id, ip_tos, ip_ttl, ip_proto */
#define MAGNET_RF_DEV 0x08	/* ifindex */
#define MAGNET_RF_APP 0x10	/* pid, comm, req, ret */
#define MAGNET_RF_SOCK 0x20	/* sock_id, state; else not tied to a socket */
#define MAGNET_RF_HDR 0x40	/* ip_hlen, ip_frag, tcp_* (IP and device
				 * events; shares its bytes with RF_TCP's) */
#define MAGNET_RF_RATE 0x80	/* version 3 only: the rate part (struct
				 * magnet_v3_rate) after the TCP snapshot */

#define MAGNET_COMM_LEN 16
#define MAGNET_TCP_OPTS_LEN 40	/* the most a TCP header carries */
#define MAGNET_CA_NAME_LEN 11

/*
 * One event (format version 2; version 3 decodes to it). The fields and
 * what they mean: schema.h, MAGNET_V2_* (and the version 3 parts).
 */
struct magnet_record {
	MAGNET_V2_HEAD(MAGNET_SCHEMA_MEMBER)
	union {
		struct {	/* MAGNET_RF_TCP: TCP and app events */
			MAGNET_V2_SNAP(MAGNET_SCHEMA_MEMBER)
		};
		struct {	/* MAGNET_RF_HDR: IP and device events */
			MAGNET_V2_HDR(MAGNET_SCHEMA_MEMBER)
		};
	};
	MAGNET_V2_TAIL(MAGNET_SCHEMA_MEMBER)
};

#define MAGNET_RECORD_SIZE 256

/* record.opts: negotiated options and socket settings (RF_TCP) */
#define MAGNET_OPT_TIMESTAMPS 0x01	/* tcp_timestamps in use */
#define MAGNET_OPT_SACK 0x02		/* SACK permitted */
#define MAGNET_OPT_ECN 0x04		/* ECN negotiated */
#define MAGNET_OPT_NAGLE 0x08		/* Nagle on (no TCP_NODELAY) */

/* The header of every stream (the first bytes of every open in omode=1). */
struct magnet_sysinfo {
	MAGNET_SYSINFO_FIELDS(MAGNET_SCHEMA_MEMBER)
};

#define MAGNET_SYSINFO_SIZE 256

/*
 * ttprobe v0.1.2's binary record, `struct tcp_log` as its x86-64 build
 * wrote it (docs/compat-formats.md, section 2, "ttprobe's 96-byte binary
 * record"): what the ttprobe-compatible stream (compat=ttprobe, omode=1) is
 * made of, with no header, and what `ttpb2ascii -f legacy` writes and
 * `-i legacy` reads. Addresses as on the wire (IPv4 in the first 4 bytes,
 * then zeros; IPv6 as 8 network-order u16), ports in network order, every
 * other field in host order.
 */
struct magnet_legacy_record {
	__s64 tv_sec;			/*  0: wall clock, seconds */
	__s64 tv_usec;			/*  8: and microseconds */
	__u8 src[16];			/* 16: local address */
	__u8 dst[16];			/* 32: remote address */
	__u16 sport;			/* 48: local port, network order */
	__u16 dport;			/* 50: remote port, network order */
	__u16 length;			/* 52: skb->len, saturated at 65535 */
	__u16 pad0;			/* 54: 0 */
	__u32 snd_nxt;			/* 56 */
	__u32 snd_una;			/* 60 */
	__u32 snd_wnd;			/* 64 */
	__u32 rcv_wnd;			/* 68 */
	__u32 snd_cwnd;			/* 72: packets */
	__u32 ssthresh;			/* 76: tcp_current_ssthresh(), packets */
	__u32 srtt;			/* 80: srtt_us >> 3, microseconds */
	__u32 mss_cache;		/* 84 */
	__u8 sock_state;		/* 88: sk_state */
	__u8 direction;			/* 89: 'o' sent, 'i' received */
	__u8 addr_family;		/* 90: AF_INET 2, AF_INET6 10 */
	__u8 pad1[5];			/* 91: 0 */
};

#define MAGNET_LEGACY_RECORD_SIZE 96
#define MAGNET_LEGACY_AF_INET 2
#define MAGNET_LEGACY_AF_INET6 10

MAGNET_STATIC_ASSERT(sizeof(struct magnet_record) == MAGNET_RECORD_SIZE,
		     "magnet_record must be 256 bytes");
MAGNET_STATIC_ASSERT(offsetof(struct magnet_record, sock_id) == 8, "sock_id");
MAGNET_STATIC_ASSERT(offsetof(struct magnet_record, event) == 16, "event");
MAGNET_STATIC_ASSERT(offsetof(struct magnet_record, family) == 20, "family");
MAGNET_STATIC_ASSERT(offsetof(struct magnet_record, flags) == 23, "flags");
MAGNET_STATIC_ASSERT(offsetof(struct magnet_record, len) == 28, "len");
MAGNET_STATIC_ASSERT(offsetof(struct magnet_record, laddr) == 32, "laddr");
MAGNET_STATIC_ASSERT(offsetof(struct magnet_record, raddr) == 48, "raddr");
MAGNET_STATIC_ASSERT(offsetof(struct magnet_record, seq) == 64, "seq");
MAGNET_STATIC_ASSERT(offsetof(struct magnet_record, ret) == 80, "ret");
MAGNET_STATIC_ASSERT(offsetof(struct magnet_record, req) == 88, "req");
MAGNET_STATIC_ASSERT(offsetof(struct magnet_record, comm) == 96, "comm");
MAGNET_STATIC_ASSERT(offsetof(struct magnet_record, mss) == 112, "mss");
MAGNET_STATIC_ASSERT(offsetof(struct magnet_record, cwnd) == 128, "cwnd");
MAGNET_STATIC_ASSERT(offsetof(struct magnet_record, tcp_ack) == 112, "tcp_ack");
MAGNET_STATIC_ASSERT(offsetof(struct magnet_record, tcp_win) == 116, "tcp_win");
MAGNET_STATIC_ASSERT(offsetof(struct magnet_record, tcp_hlen) == 119,
		     "tcp_hlen");
MAGNET_STATIC_ASSERT(offsetof(struct magnet_record, ip_frag) == 122,
		     "ip_frag");
MAGNET_STATIC_ASSERT(offsetof(struct magnet_record, tcp_opts) == 124,
		     "tcp_opts");
MAGNET_STATIC_ASSERT(offsetof(struct magnet_record, hdr_reserved) == 164,
		     "hdr_reserved");
MAGNET_STATIC_ASSERT(offsetof(struct magnet_record, write_seq) == 152,
		     "write_seq");
MAGNET_STATIC_ASSERT(offsetof(struct magnet_record, ifindex) == 172,
		     "ifindex");
MAGNET_STATIC_ASSERT(offsetof(struct magnet_record, ip_id) == 176, "ip_id");
MAGNET_STATIC_ASSERT(offsetof(struct magnet_record, ca_name) == 180,
		     "ca_name");
MAGNET_STATIC_ASSERT(offsetof(struct magnet_record, ip_proto) == 191,
		     "ip_proto");
MAGNET_STATIC_ASSERT(offsetof(struct magnet_record, segs_out) == 192,
		     "segs_out");
MAGNET_STATIC_ASSERT(offsetof(struct magnet_record, bytes_sent) == 208,
		     "bytes_sent");
MAGNET_STATIC_ASSERT(offsetof(struct magnet_record, rcv_nxt) == 240,
		     "rcv_nxt");
MAGNET_STATIC_ASSERT(offsetof(struct magnet_record, advmss) == 252,
		     "advmss");
MAGNET_STATIC_ASSERT(offsetof(struct magnet_record, opts) == 255, "opts");
MAGNET_STATIC_ASSERT(sizeof(struct magnet_sysinfo) == MAGNET_SYSINFO_SIZE,
		     "magnet_sysinfo must be 256 bytes");
MAGNET_STATIC_ASSERT(offsetof(struct magnet_sysinfo, realtime_offset_ns) == 16,
		     "realtime_offset_ns");
MAGNET_STATIC_ASSERT(offsetof(struct magnet_sysinfo, release) == 32,
		     "release");
MAGNET_STATIC_ASSERT(offsetof(struct magnet_sysinfo, port) == 104, "port");
MAGNET_STATIC_ASSERT(offsetof(struct magnet_sysinfo, events) == 128,
		     "events");
MAGNET_STATIC_ASSERT(offsetof(struct magnet_sysinfo, procname) == 136,
		     "procname");
MAGNET_STATIC_ASSERT(offsetof(struct magnet_sysinfo, version_string) == 168,
		     "version_string");

MAGNET_STATIC_ASSERT(sizeof(struct magnet_legacy_record) ==
		     MAGNET_LEGACY_RECORD_SIZE, "legacy record must be 96 bytes");
MAGNET_STATIC_ASSERT(offsetof(struct magnet_legacy_record, src) == 16, "src");
MAGNET_STATIC_ASSERT(offsetof(struct magnet_legacy_record, dst) == 32, "dst");
MAGNET_STATIC_ASSERT(offsetof(struct magnet_legacy_record, sport) == 48,
		     "sport");
MAGNET_STATIC_ASSERT(offsetof(struct magnet_legacy_record, length) == 52,
		     "length");
MAGNET_STATIC_ASSERT(offsetof(struct magnet_legacy_record, snd_nxt) == 56,
		     "snd_nxt");
MAGNET_STATIC_ASSERT(offsetof(struct magnet_legacy_record, snd_cwnd) == 72,
		     "snd_cwnd");
MAGNET_STATIC_ASSERT(offsetof(struct magnet_legacy_record, ssthresh) == 76,
		     "ssthresh");
MAGNET_STATIC_ASSERT(offsetof(struct magnet_legacy_record, mss_cache) == 84,
		     "mss_cache");
MAGNET_STATIC_ASSERT(offsetof(struct magnet_legacy_record, sock_state) == 88,
		     "sock_state");
MAGNET_STATIC_ASSERT(offsetof(struct magnet_legacy_record, addr_family) == 90,
		     "addr_family");

/*
 * Version 3: records sized by what they carry (docs/binary-format.md,
 * "Version 3"). A stream is the same SYSINFO header (version 3,
 * record_size 0: records vary), then records, each a 16-byte header and a
 * payload chosen by its event and flags, a multiple of 8 bytes in all. What
 * is constant for a connection (its socket id, family, addresses, ports and
 * congestion control) is in a FLOW record, written before the first record
 * that refers to it and again when it changes; a record names its flow by
 * a small id whose scope is its CPU. A LOST record on a CPU ends the scope
 * of that CPU's ids, a RESET record of every CPU's: a writer writes the
 * FLOW records again before it refers to them.
 */
#define MAGNET_FORMAT_VERSION_V3 3
#define MAGNET_V3_FLOW 11	/* the record type of a FLOW record */
#define MAGNET_V3_FLOW_IDS 1024	/* flow ids are 1 .. MAGNET_V3_FLOW_IDS */

/*
 * The additions made to version 3 since its first layout, a bit each, in
 * the order they were made (docs/binary-format.md, "Growing the format"):
 * a version 3 header's `features` says which of them its records may use.
 * A writer that adds to the format adds a bit, and only appends: a new
 * record kind (event code), or bytes after a layout readers know. A
 * reader that meets a bit it does not know skips what it cannot read, by
 * each record's length, and says how much; one that knows every bit the
 * header sets refuses anything else, as before.
 */
#define MAGNET_V3_FEAT_RATE 0x01	/* the rate part (RF_RATE), TCP and app events */
#define MAGNET_V3_FEAT_NETNS 0x02	/* FLOW records of 80 bytes, with netns */
#define MAGNET_V3_FEAT_DROP 0x04	/* DROP_OUT, DROP_IN (12, 13) */
#define MAGNET_V3_FEAT_TCPEV 0x08	/* RETRANS, RTO, TLP, STATE (14-17) */
#define MAGNET_V3_FEAT_QDISC 0x10	/* QDISC (18) */
#define MAGNET_V3_FEAT_QDISC_ENQ 0x20	/* QDISC_ENQ (19) */
#define MAGNET_V3_FEAT_WIRE 0x40	/* WIRE_OUT (20) */
/* the limit part, last in TCP_OUT, TCP_IN and TCP event records */
#define MAGNET_V3_FEAT_LIMIT 0x80
#define MAGNET_V3_FEAT_CA_STATE 0x100	/* CA_STATE (21), a TCP event */
#define MAGNET_V3_FEAT_RCVBUF 0x200	/* RCVBUF (22) */
/* the TCP event part's bytes 3-7 (reserved before): the RTO totals */
#define MAGNET_V3_FEAT_RTO_TOTALS 0x400
#define MAGNET_V3_FEAT_RTO_END 0x800	/* RTO_END (23) */
/*
 * What a header's features of 0 means: a writer from before the field,
 * whose records may use any addition made until then (this never grows)
 */
#define MAGNET_V3_FEATURES_UNSAID (MAGNET_V3_FEAT_RATE | MAGNET_V3_FEAT_NETNS | \
				   MAGNET_V3_FEAT_DROP | MAGNET_V3_FEAT_TCPEV | \
				   MAGNET_V3_FEAT_QDISC | MAGNET_V3_FEAT_QDISC_ENQ)
/* every addition this tree writes and reads: UNSAID's, and each new bit */
#define MAGNET_V3_FEATURES (MAGNET_V3_FEATURES_UNSAID | MAGNET_V3_FEAT_WIRE | \
			    MAGNET_V3_FEAT_LIMIT | MAGNET_V3_FEAT_CA_STATE | \
			    MAGNET_V3_FEAT_RCVBUF | MAGNET_V3_FEAT_RTO_TOTALS | \
			    MAGNET_V3_FEAT_RTO_END)
/*
 * The longest record a reader accepts from a log that uses an addition it
 * does not know (a later writer's may be longer than any it knows); from a
 * log it knows every addition of, MAGNET_V3_MAX_SIZE
 */
#define MAGNET_V3_LEN_LIMIT 1024

/* the parts of a record, each from its table in schema.h */
struct magnet_v3_hdr {
	MAGNET_V3_HDR_FIELDS(MAGNET_SCHEMA_MEMBER)
};

/* LOST and RESET: the counts of version 2's req and ret */
struct magnet_v3_count {
	MAGNET_V3_COUNT_PART(MAGNET_SCHEMA_MEMBER)
};

/* FLOW: the flow id is the header's flow; its cpu, the scope */
struct magnet_v3_flow {
	MAGNET_V3_FLOW_PART(MAGNET_SCHEMA_MEMBER)
};

/* RF_TCP (TCP and app events): the event and the TCP snapshot */
struct magnet_v3_tcp {
	MAGNET_V3_TCP_PART(MAGNET_SCHEMA_MEMBER)
};

/* RF_APP, after the TCP part: the call */
struct magnet_v3_app {
	MAGNET_V3_APP_PART(MAGNET_SCHEMA_MEMBER)
};

/* RF_HDR (IP and device events): the packet's headers, then options */
struct magnet_v3_pkt {
	MAGNET_V3_PKT_PART(MAGNET_SCHEMA_MEMBER)
};

/* RF_RATE (TCP and app events), last: rates and the congestion control */
struct magnet_v3_rate {
	MAGNET_V3_RATE_PART(MAGNET_SCHEMA_MEMBER)
};

/* DROP, last (after the packet part and its options): why and where */
struct magnet_v3_drop {
	MAGNET_V3_DROP_PART(MAGNET_SCHEMA_MEMBER)
};

/* RETRANS, RTO, TLP, STATE, CA_STATE, last (after the TCP and rate parts) */
struct magnet_v3_tcpev {
	MAGNET_V3_TCPEV_PART(MAGNET_SCHEMA_MEMBER)
};

/* last in TCP_OUT, TCP_IN and TCP event records (FEAT_LIMIT): what
 * held the sender back */
struct magnet_v3_limit {
	MAGNET_V3_LIMIT_PART(MAGNET_SCHEMA_MEMBER)
};
/* its chrono: the kernel's enum tcp_chrono */
#define MAGNET_CHRONO_NONE 0
#define MAGNET_CHRONO_BUSY 1
#define MAGNET_CHRONO_RWND 2
#define MAGNET_CHRONO_SNDBUF 3

/* RCVBUF, after the TCP part: the receive buffer autotuning left */
struct magnet_v3_rcvbuf {
	MAGNET_V3_RCVBUF_PART(MAGNET_SCHEMA_MEMBER)
};

/* RTO_END, after the TCP part: the socket's time in RTO recoveries */
struct magnet_v3_rtoend {
	MAGNET_V3_RTOEND_PART(MAGNET_SCHEMA_MEMBER)
};

/* QDISC, last (after the packet part and its options): the qdisc */
struct magnet_v3_qdisc {
	MAGNET_V3_QDISC_PART(MAGNET_SCHEMA_MEMBER)
};

/* a table's bytes (an int, as the sizes always were) */
#define MAGNET_SCHEMA_BYTES(table) ((int)(0 table(MAGNET_SCHEMA_SIZE)))

#define MAGNET_V3_HDR_SIZE 16
#define MAGNET_V3_RATE_SIZE MAGNET_SCHEMA_BYTES(MAGNET_V3_RATE_PART)	/* the part alone: no header */
#define MAGNET_V3_COUNT_SIZE (MAGNET_V3_HDR_SIZE + \
			      MAGNET_SCHEMA_BYTES(MAGNET_V3_COUNT_PART))
#define MAGNET_V3_FLOW_SIZE (MAGNET_V3_HDR_SIZE + \
			     MAGNET_SCHEMA_BYTES(MAGNET_V3_FLOW_PART))
/* a FLOW record as written before it carried netns: read with netns 0 */
#define MAGNET_V3_FLOW_SIZE_0 72
#define MAGNET_V3_TCP_SIZE (MAGNET_V3_HDR_SIZE + \
			    MAGNET_SCHEMA_BYTES(MAGNET_V3_TCP_PART))
#define MAGNET_V3_APP_SIZE (MAGNET_V3_TCP_SIZE + \
			    MAGNET_SCHEMA_BYTES(MAGNET_V3_APP_PART))
#define MAGNET_V3_PKT_SIZE (MAGNET_V3_HDR_SIZE + \
			    MAGNET_SCHEMA_BYTES(MAGNET_V3_PKT_PART))	/* + options */
#define MAGNET_V3_DROP_SIZE MAGNET_SCHEMA_BYTES(MAGNET_V3_DROP_PART)	/* the part alone: no header */
#define MAGNET_V3_TCPEV_SIZE MAGNET_SCHEMA_BYTES(MAGNET_V3_TCPEV_PART)	/* the part alone: no header */
#define MAGNET_V3_QDISC_SIZE MAGNET_SCHEMA_BYTES(MAGNET_V3_QDISC_PART)	/* the part alone: no header */
#define MAGNET_V3_LIMIT_SIZE MAGNET_SCHEMA_BYTES(MAGNET_V3_LIMIT_PART)	/* the part alone: no header */
#define MAGNET_V3_RCVBUF_SIZE MAGNET_SCHEMA_BYTES(MAGNET_V3_RCVBUF_PART)	/* the part alone: no header */
#define MAGNET_V3_RTOEND_SIZE MAGNET_SCHEMA_BYTES(MAGNET_V3_RTOEND_PART)	/* the part alone: no header */
#define MAGNET_V3_MAX_SIZE (MAGNET_V3_APP_SIZE + MAGNET_V3_RATE_SIZE)

/* no hidden padding: every byte of a part is a field of its table */
MAGNET_STATIC_ASSERT(sizeof(struct magnet_v3_hdr) == MAGNET_V3_HDR_SIZE &&
		     MAGNET_SCHEMA_BYTES(MAGNET_V3_HDR_FIELDS) ==
		     MAGNET_V3_HDR_SIZE, "v3 header");
MAGNET_STATIC_ASSERT(sizeof(struct magnet_v3_count) + MAGNET_V3_HDR_SIZE ==
		     MAGNET_V3_COUNT_SIZE, "v3 LOST/RESET");
MAGNET_STATIC_ASSERT(sizeof(struct magnet_v3_flow) + MAGNET_V3_HDR_SIZE ==
		     MAGNET_V3_FLOW_SIZE &&
		     offsetof(struct magnet_v3_flow, netns) + MAGNET_V3_HDR_SIZE ==
		     MAGNET_V3_FLOW_SIZE_0, "v3 FLOW");
MAGNET_STATIC_ASSERT(sizeof(struct magnet_v3_tcp) + MAGNET_V3_HDR_SIZE ==
		     MAGNET_V3_TCP_SIZE, "v3 TCP");
MAGNET_STATIC_ASSERT(sizeof(struct magnet_v3_app) + MAGNET_V3_TCP_SIZE ==
		     MAGNET_V3_APP_SIZE, "v3 app");
MAGNET_STATIC_ASSERT(sizeof(struct magnet_v3_pkt) + MAGNET_V3_HDR_SIZE ==
		     MAGNET_V3_PKT_SIZE, "v3 packet");
MAGNET_STATIC_ASSERT(sizeof(struct magnet_v3_rate) == MAGNET_V3_RATE_SIZE,
		     "v3 rate part");
/* BBR's words (schema.h) are cc_info's, the bandwidth's halves first */
MAGNET_STATIC_ASSERT((0 MAGNET_V3_BBR_BW(MAGNET_SCHEMA_SIZE)) == 8 &&
		     (0 MAGNET_V3_BBR_BW(MAGNET_SCHEMA_SIZE)
			MAGNET_V3_BBR_WORDS(MAGNET_SCHEMA_SIZE)) ==
		     sizeof(((struct magnet_v3_rate *)0)->cc_info),
		     "BBR's words");
MAGNET_STATIC_ASSERT(sizeof(struct magnet_v3_drop) == MAGNET_V3_DROP_SIZE,
		     "v3 drop part");
MAGNET_STATIC_ASSERT(sizeof(struct magnet_v3_tcpev) == MAGNET_V3_TCPEV_SIZE,
		     "v3 TCP event part");
MAGNET_STATIC_ASSERT(sizeof(struct magnet_v3_qdisc) == MAGNET_V3_QDISC_SIZE &&
		     MAGNET_V3_QDISC_SIZE % 8 == 0 &&
		     MAGNET_V3_QDISC_SIZE <= MAGNET_V3_DROP_SIZE,
		     "v3 qdisc part (a QDISC record no longer than a DROP one)");
MAGNET_STATIC_ASSERT(sizeof(struct magnet_v3_limit) == MAGNET_V3_LIMIT_SIZE,
		     "v3 limit part");
MAGNET_STATIC_ASSERT(sizeof(struct magnet_v3_rcvbuf) == MAGNET_V3_RCVBUF_SIZE &&
		     MAGNET_V3_RCVBUF_SIZE % 8 == 0,
		     "v3 rcvbuf part");
MAGNET_STATIC_ASSERT(sizeof(struct magnet_v3_rtoend) == MAGNET_V3_RTOEND_SIZE &&
		     MAGNET_V3_RTOEND_SIZE % 8 == 0,
		     "v3 rtoend part");
MAGNET_STATIC_ASSERT(MAGNET_V3_TCP_SIZE + MAGNET_V3_RATE_SIZE +
		     MAGNET_V3_LIMIT_SIZE <= MAGNET_V3_MAX_SIZE,
		     "v3 TCP record with its limit part");
MAGNET_STATIC_ASSERT(MAGNET_V3_TCP_SIZE + MAGNET_V3_RATE_SIZE +
		     MAGNET_V3_TCPEV_SIZE + MAGNET_V3_LIMIT_SIZE <=
		     MAGNET_V3_MAX_SIZE,
		     "v3 largest record (TCP event)");
MAGNET_STATIC_ASSERT(MAGNET_V3_PKT_SIZE + MAGNET_TCP_OPTS_LEN +
		     MAGNET_V3_DROP_SIZE <= MAGNET_V3_MAX_SIZE,
		     "v3 largest record");
/* and the writers' 8-byte alignment holds (the rate part comes after the
 * TCP part or the call) */
MAGNET_STATIC_ASSERT(MAGNET_V3_COUNT_SIZE % 8 == 0 &&
		     MAGNET_V3_FLOW_SIZE % 8 == 0 && MAGNET_V3_TCP_SIZE % 8 == 0 &&
		     MAGNET_V3_APP_SIZE % 8 == 0 && MAGNET_V3_PKT_SIZE % 8 == 0 &&
		     MAGNET_V3_RATE_SIZE % 8 == 0 && MAGNET_V3_DROP_SIZE % 8 == 0 &&
		     MAGNET_V3_TCPEV_SIZE % 8 == 0 && MAGNET_V3_LIMIT_SIZE % 8 == 0,
		     "v3 records are multiples of 8 bytes");

#endif /* MAGNET_RECORD_H */
