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
	MAGNET_EV_MAX = MAGNET_EV_RESET,
};

/* the layers of the events= parameter */
#define MAGNET_LAYER_APP 0x1
#define MAGNET_LAYER_TCP 0x2
#define MAGNET_LAYER_IP 0x4
#define MAGNET_LAYER_DEV 0x8
#define MAGNET_LAYER_ALL 0xf

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
 * One event. Unless a flag says otherwise, a field that does not apply is 0.
 *   ts_ns       CLOCK_MONOTONIC ns; + sysinfo.realtime_offset_ns = wall time.
 *   sock_id     the socket's cookie (`ss -e`'s sk:, SO_COOKIE): never
 *               the same for two sockets while the kernel runs, never a
 *               kernel address.
 *   family      MAGNET_FAMILY_*; a v4-mapped IPv6 socket is recorded as
 *               INET with its IPv4 addresses.
 *   state       sk_state (1 ESTABLISHED ... 10 LISTEN).
 *   lport/rport local/remote port, host order (the socket's own ends, also
 *               for received packets).
 *   len         bytes at this layer: skb->len (TCP out: payload; TCP in:
 *               header + payload; IP and device: the packet).
 *   laddr/raddr IPv4 in the first 4 bytes (network order), else IPv6.
 *   seq/end_seq TCP sequence range: of the segment (TCP, IP, device), of
 *               the data written (APP_SEND: write_seq before/after) or
 *               read (APP_RECV: copied_seq before/after).
 *   mark        sk_mark when sent, skb->mark when received.
 *   pid/comm    process (tgid) and command (APP events).
 *   req/ret     APP: size asked for, and the return value (bytes, or a
 *               negative errno). LOST: req = number of records lost.
 *   TCP state   mss_cache, srtt and rttvar (us), rto (us), snd_cwnd and
 *               snd_ssthresh (packets), windows and sequence variables,
 *               packets_out, retrans_out, total_retrans, ca_state, and the
 *               congestion control's name (NUL-padded, may fill all 11).
 *   ifindex     device events: the interface index.
 *   segs_out .. opts (version 2): the connection's counters (RFC 4898
 *               web10g variables): segments and data segments out/in,
 *               bytes sent (incl. retransmissions), received (in order),
 *               acked, retransmitted, rcv_nxt, the windowed minimum RTT
 *               and the RTT of the latest acked data (us), the advertised
 *               MSS, window scales, and the MAGNET_OPT_* options. A tcp_out
 *               record's counters include the segment being sent (its
 *               entry point runs before TCP counts it).
 *   ip_*        IP and device events: id (IPv4), tos (traffic class for
 *               IPv6), ttl (hop limit for IPv6), and the protocol (6 TCP,
 *               17 UDP, ...; IPv6: the first next-header).
 *   header      (RF_HDR, IP and device events, in the bytes the TCP
 *               snapshot uses on TCP events) what rebuilding the packet's
 *               headers needs: ip_hlen, the network header's length
 *               (IPv4 with options, IPv6 with extension headers);
 *               ip_frag, IPv4's flags and fragment offset (IPv6: 0); and
 *               for TCP, when the whole TCP header is in the packet
 *               (tcp_hlen != 0): the ack number, the window as sent, the
 *               flags, the header length and its options (tcp_hlen - 20
 *               bytes; the rest 0).
 */
struct magnet_record {
	__u64 ts_ns;			/*   0 */
	__u64 sock_id;			/*   8 */
	__u16 event;			/*  16 */
	__u16 cpu;			/*  18 */
	__u8 family;			/*  20 */
	__u8 state;			/*  21 */
	__u8 ca_state;			/*  22 */
	__u8 flags;			/*  23 */
	__u16 lport;			/*  24 */
	__u16 rport;			/*  26 */
	__u32 len;			/*  28 */
	__u8 laddr[16];			/*  32 */
	__u8 raddr[16];			/*  48 */
	__u32 seq;			/*  64 */
	__u32 end_seq;			/*  68 */
	__u32 mark;			/*  72 */
	__u32 pid;			/*  76 */
	__s64 ret;			/*  80 */
	__u64 req;			/*  88 */
	char comm[MAGNET_COMM_LEN];	/*  96 */
	union {
		struct {	/* MAGNET_RF_TCP: TCP and app events */
			__u32 mss;		/* 112 */
			__u32 srtt_us;		/* 116 */
			__u32 rttvar_us;	/* 120 */
			__u32 rto_us;		/* 124 */
			__u32 cwnd;		/* 128 */
			__u32 ssthresh;		/* 132 */
			__u32 snd_wnd;		/* 136 */
			__u32 rcv_wnd;		/* 140 */
			__u32 snd_una;		/* 144 */
			__u32 snd_nxt;		/* 148 */
			__u32 write_seq;	/* 152 */
			__u32 copied_seq;	/* 156 */
			__u32 packets_out;	/* 160 */
			__u32 retrans_out;	/* 164 */
			__u32 total_retrans;	/* 168 */
		};
		struct {	/* MAGNET_RF_HDR: IP and device events */
			__u32 tcp_ack;		/* 112: acknowledgment number */
			__u16 tcp_win;		/* 116: window, as sent (unscaled) */
			__u8 tcp_flags;		/* 118: FIN 0x01 .. CWR 0x80 */
			__u8 tcp_hlen;		/* 119: TCP header bytes, 0 = none */
			__u16 ip_hlen;		/* 120: network header bytes */
			__u16 ip_frag;		/* 122: IPv4 flags + fragment offset */
			__u8 tcp_opts[MAGNET_TCP_OPTS_LEN];	/* 124 */
			__u32 hdr_reserved[2];	/* 164: 0 */
		};
	};
	__u32 ifindex;			/* 172 */
	__u16 ip_id;			/* 176 */
	__u8 ip_tos;			/* 178 */
	__u8 ip_ttl;			/* 179 */
	char ca_name[MAGNET_CA_NAME_LEN];	/* 180 */
	__u8 ip_proto;			/* 191 */
	/* version 2: the per-connection counters web10g needs (RF_TCP) */
	__u32 segs_out;			/* 192: tp->segs_out */
	__u32 data_segs_out;		/* 196 */
	__u32 segs_in;			/* 200 */
	__u32 data_segs_in;		/* 204 */
	__u64 bytes_sent;		/* 208: incl. retransmissions */
	__u64 bytes_received;		/* 216: in-order data received */
	__u64 bytes_acked;		/* 224 */
	__u64 bytes_retrans;		/* 232 */
	__u32 rcv_nxt;			/* 240 */
	__u32 min_rtt_us;		/* 244: windowed min RTT, ~0U = none */
	__u32 rtt_us;			/* 248: RTT of the latest acked data
					 * (rack.rtt_us), 0 = none yet */
	__u16 advmss;			/* 252: MSS we advertised */
	__u8 wscale;			/* 254: snd_wscale << 4 | rcv_wscale */
	__u8 opts;			/* 255: MAGNET_OPT_* */
};

#define MAGNET_RECORD_SIZE 256

/* record.opts: negotiated options and socket settings (RF_TCP) */
#define MAGNET_OPT_TIMESTAMPS 0x01	/* tcp_timestamps in use */
#define MAGNET_OPT_SACK 0x02		/* SACK permitted */
#define MAGNET_OPT_ECN 0x04		/* ECN negotiated */
#define MAGNET_OPT_NAGLE 0x08		/* Nagle on (no TCP_NODELAY) */

/* The header of every stream (the first bytes of every open in omode=1). */
struct magnet_sysinfo {
	__u32 magic;			/*   0: MAGNET_MAGIC */
	__u16 version;			/*   4: MAGNET_FORMAT_VERSION */
	__u16 record_size;		/*   6: sizeof(struct magnet_record) */
	__u16 sysinfo_size;		/*   8: sizeof(struct magnet_sysinfo) */
	__u16 ncpus;			/*  10: nr_cpu_ids */
	__u32 reserved0;		/*  12 */
	__s64 realtime_offset_ns;	/*  16: CLOCK_REALTIME - ts clock */
	__u64 start_ns;			/*  24: ts clock when the stream began */
	char release[72];		/*  32: uname -r, NUL-terminated */
	__u32 port;			/* 104: the parameters in force */
	__u32 full;			/* 108 */
	__u32 bufsize;			/* 112 */
	__u32 omode;			/* 116 */
	__u32 direction;		/* 120 */
	__u32 fwmark;			/* 124 */
	__u32 events;			/* 128: MAGNET_LAYER_* mask */
	__u32 reserved1;		/* 132 */
	char procname[32];		/* 136 */
	char version_string[24];	/* 168: module version */
	__u8 reserved2[64];		/* 192 */
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

struct magnet_v3_hdr {
	__u64 ts_ns;			/*  0 */
	__u16 cpu;			/*  8 */
	__u16 flow;			/* 10: 0 = none (LOST, RESET, FLOW) */
	__u8 event;			/* 12: MAGNET_EV_* or MAGNET_V3_FLOW */
	__u8 flags;			/* 13: MAGNET_RF_* */
	__u16 len;			/* 14: of the record, header included */
};

/* LOST and RESET: the counts of version 2's req and ret */
struct magnet_v3_count {
	__u64 req;			/* 16 */
	__s64 ret;			/* 24 */
};

/* FLOW: the flow id is the header's flow; its cpu, the scope */
struct magnet_v3_flow {
	__u64 sock_id;			/* 16: 0 = not tied to a socket */
	__u16 lport;			/* 24 */
	__u16 rport;			/* 26 */
	__u8 family;			/* 28: MAGNET_FAMILY_* */
	char ca_name[MAGNET_CA_NAME_LEN];	/* 29 */
	__u8 laddr[16];			/* 40: IPv4 in the first 4 bytes */
	__u8 raddr[16];			/* 56 */
};

/* RF_TCP (TCP and app events): the event and the TCP snapshot */
struct magnet_v3_tcp {
	__u32 len;			/* 16 */
	__u32 mark;			/* 20 */
	__u32 seq;			/* 24 */
	__u32 end_seq;			/* 28 */
	__u8 state;			/* 32 */
	__u8 ca_state;			/* 33 */
	__u8 wscale;			/* 34 */
	__u8 opts;			/* 35 */
	__u16 advmss;			/* 36 */
	__u16 reserved;			/* 38: 0 */
	__u32 mss;			/* 40 */
	__u32 srtt_us;			/* 44 */
	__u32 rttvar_us;		/* 48 */
	__u32 rto_us;			/* 52 */
	__u32 cwnd;			/* 56 */
	__u32 ssthresh;			/* 60 */
	__u32 snd_wnd;			/* 64 */
	__u32 rcv_wnd;			/* 68 */
	__u32 snd_una;			/* 72 */
	__u32 snd_nxt;			/* 76 */
	__u32 write_seq;		/* 80 */
	__u32 copied_seq;		/* 84 */
	__u32 packets_out;		/* 88 */
	__u32 retrans_out;		/* 92 */
	__u32 total_retrans;		/* 96 */
	__u32 segs_out;			/* 100 */
	__u32 data_segs_out;		/* 104 */
	__u32 segs_in;			/* 108 */
	__u32 data_segs_in;		/* 112 */
	__u32 rcv_nxt;			/* 116 */
	__u32 min_rtt_us;		/* 120 */
	__u32 rtt_us;			/* 124 */
	__u64 bytes_sent;		/* 128 */
	__u64 bytes_received;		/* 136 */
	__u64 bytes_acked;		/* 144 */
	__u64 bytes_retrans;		/* 152 */
};

/* RF_APP, after the TCP part: the call */
struct magnet_v3_app {
	__u32 pid;			/* 160 */
	__u32 reserved;			/* 164: 0 */
	__u64 req;			/* 168 */
	__s64 ret;			/* 176 */
	char comm[MAGNET_COMM_LEN];	/* 184 */
};

/* RF_HDR (IP and device events): the packet's headers */
struct magnet_v3_pkt {
	__u32 len;			/* 16 */
	__u32 mark;			/* 20 */
	__u32 seq;			/* 24: 0 without RF_SEQ */
	__u32 end_seq;			/* 28 */
	__u32 ifindex;			/* 32: 0 without RF_DEV */
	__u32 tcp_ack;			/* 36 */
	__u16 ip_id;			/* 40 */
	__u16 tcp_win;			/* 42 */
	__u16 ip_hlen;			/* 44 */
	__u16 ip_frag;			/* 46 */
	__u8 state;			/* 48: 0 without RF_SOCK */
	__u8 ip_tos;			/* 49 */
	__u8 ip_ttl;			/* 50 */
	__u8 ip_proto;			/* 51 */
	__u8 tcp_flags;			/* 52 */
	__u8 tcp_hlen;			/* 53 */
	__u8 reserved[2];		/* 54: 0 */
	/* 56: tcp_hlen - 20 bytes of TCP options, zero-padded to 8 */
};

/*
 * RF_RATE (TCP and app events), after the TCP part and, in an app record,
 * the call: what tcp_info gives congestion-control research beyond the TCP
 * part, read where the TCP part is. delivery rate = rate_delivered * mss *
 * 1000000 / rate_interval_us bytes/s (0 if either is 0), as tcp_info's
 * tcpi_delivery_rate. cc_info: what the congestion control's get_info()
 * reports (INET_DIAG attribute cc_attr: 16 = tcp_bbr_info, 3 =
 * tcpvegas_info, 9 = tcp_dctcp_info, as 32-bit words; the rest 0), at TCP
 * events only, where the socket is locked (0 = none).
 */
struct magnet_v3_rate {
	__u64 pacing_rate;		/*  0: bytes/s, ~0 = unlimited */
	__u32 delivered;		/*  8: packets delivered (acked) */
	__u32 delivered_ce;		/* 12: of them, ECN CE-marked */
	__u32 lost_out;			/* 16: packets presumed lost */
	__u32 sacked_out;		/* 20: packets SACKed */
	__u32 rate_delivered;		/* 24: of the last rate sample */
	__u32 rate_interval_us;		/* 28: its interval */
	__u8 app_limited;		/* 32: that sample was app-limited */
	__u8 cc_attr;			/* 33: INET_DIAG_*INFO, 0 = none */
	__u16 reserved;			/* 34: 0 */
	__u32 cc_info[5];		/* 36 */
};

#define MAGNET_V3_HDR_SIZE 16
#define MAGNET_V3_RATE_SIZE 56		/* the part alone: no header */
#define MAGNET_V3_COUNT_SIZE (MAGNET_V3_HDR_SIZE + 16)
#define MAGNET_V3_FLOW_SIZE (MAGNET_V3_HDR_SIZE + 56)
#define MAGNET_V3_TCP_SIZE (MAGNET_V3_HDR_SIZE + 144)
#define MAGNET_V3_APP_SIZE (MAGNET_V3_TCP_SIZE + 40)
#define MAGNET_V3_PKT_SIZE (MAGNET_V3_HDR_SIZE + 40)	/* + options */
#define MAGNET_V3_MAX_SIZE (MAGNET_V3_APP_SIZE + MAGNET_V3_RATE_SIZE)

MAGNET_STATIC_ASSERT(sizeof(struct magnet_v3_hdr) == MAGNET_V3_HDR_SIZE,
		     "v3 header");
MAGNET_STATIC_ASSERT(sizeof(struct magnet_v3_count) + MAGNET_V3_HDR_SIZE ==
		     MAGNET_V3_COUNT_SIZE, "v3 LOST/RESET");
MAGNET_STATIC_ASSERT(sizeof(struct magnet_v3_flow) + MAGNET_V3_HDR_SIZE ==
		     MAGNET_V3_FLOW_SIZE, "v3 FLOW");
MAGNET_STATIC_ASSERT(offsetof(struct magnet_v3_flow, laddr) == 24,
		     "v3 FLOW laddr");
MAGNET_STATIC_ASSERT(sizeof(struct magnet_v3_tcp) + MAGNET_V3_HDR_SIZE ==
		     MAGNET_V3_TCP_SIZE, "v3 TCP");
MAGNET_STATIC_ASSERT(offsetof(struct magnet_v3_tcp, bytes_sent) == 112,
		     "v3 TCP bytes_sent");
MAGNET_STATIC_ASSERT(sizeof(struct magnet_v3_app) == 40, "v3 app");
MAGNET_STATIC_ASSERT(sizeof(struct magnet_v3_pkt) + MAGNET_V3_HDR_SIZE ==
		     MAGNET_V3_PKT_SIZE, "v3 packet");
MAGNET_STATIC_ASSERT(sizeof(struct magnet_v3_rate) == MAGNET_V3_RATE_SIZE &&
		     offsetof(struct magnet_v3_rate, cc_info) == 36,
		     "v3 rate part");
MAGNET_STATIC_ASSERT(MAGNET_V3_PKT_SIZE + MAGNET_TCP_OPTS_LEN <=
		     MAGNET_V3_MAX_SIZE, "v3 largest record");
MAGNET_STATIC_ASSERT(MAGNET_V3_FLOW_SIZE % 8 == 0 && MAGNET_V3_TCP_SIZE % 8 == 0 &&
		     MAGNET_V3_APP_SIZE % 8 == 0 && MAGNET_V3_PKT_SIZE % 8 == 0,
		     "v3 records are multiples of 8 bytes");

#endif /* MAGNET_RECORD_H */
