/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * pcapw: magnet records as pcapng or classic pcap packets, for Wireshark,
 * tshark, tcpdump and the tools that read `tcpdump -w` files.
 *
 * Each IP or device event (MAGNET_RF_HDR) becomes one packet whose IPv4 or
 * IPv6 header and TCP or UDP header are rebuilt from the recorded fields:
 * no payload (the captured length is the headers, the original length the
 * IP packet's), link type LINKTYPE_RAW (101). In pcapng, one interface per
 * network namespace, layer and device (a namespace's IP layer; each of its
 * devices by ifindex, which is unique only within its namespace), nanosecond
 * timestamps (if_tsresol 9), the direction in epb_flags, and comments: the
 * kernel's TCP state of the packet's socket as of its latest TCP-layer
 * event (cwnd, ssthresh, srtt, ..., then its rate and limit parts' fields
 * and the pid and command of the socket's last application call, named as
 * the magnet text's columns; wireshark/magnet.lua makes them fields), and
 * any gap (LOST and RESET records)
 * before the packet, also counted in epb_dropcount. With w->drops set, a
 * DROP event (a packet the kernel dropped, events=drop) is a packet too in
 * pcapng, on the interface it was dropped at, with the comment "magnet
 * drop: REASON in WHERE"; else, and always in a classic pcap file (which
 * has no comments), it is left out. A file takes the packets of one
 * interface only, and refuses the first packet of another (w->usage):
 * Wireshark's TCP analysis merges a file's interfaces, and takes the copy
 * of a packet another interface saw (a router's two devices, the two ends
 * of a veth pair, a VLAN device and its parent) for a retransmission;
 * unless w->all_ifs is set, in pcapng. A classic pcap file has no
 * interfaces at all.
 *
 * Plain C with no I/O: the caller gives each block a buffer of
 * PCAPW_BLOCK_MAX bytes and writes out what the call returns. The unit
 * tests (tests/unit) and the fuzzer (tests/fuzz/fuzz_ttpb) run this code.
 */
#ifndef MAGNET_PCAPW_H
#define MAGNET_PCAPW_H

#include <stddef.h>
#include "record.h"

enum pcapw_format {
	PCAPW_NG,		/* pcapng */
	PCAPW_US,		/* classic pcap, microseconds (0xa1b2c3d4) */
	PCAPW_NS,		/* classic pcap, nanoseconds (0xa1b23c4d) */
};

#define PCAPW_DIR_IN 1
#define PCAPW_DIR_OUT 2

/* the most bytes a packet's rebuilt headers take (IPv6 with 40 bytes of
 * extension headers and a 60-byte TCP header), and the snaplen given */
#define PCAPW_SNAPLEN 140
/* the most bytes one call writes */
#define PCAPW_BLOCK_MAX 4096

#define PCAPW_MAX_IFS 4096
/* the most bytes of one comment; the most extra columns a state comment
 * carries (pcapw.c, extra_cols) */
#define PCAPW_COMMENT_MAX 1600
#define PCAPW_EXTRA_MAX 48

struct pcapw_flow;

/* a version 3 record's parts (magnet_v3_rate() and the others), each NULL
 * if the record has none */
struct pcapw_parts {
	const struct magnet_v3_rate *rate;
	const struct magnet_v3_drop *drop;
	const struct magnet_v3_limit *lim;
	const struct magnet_v3_tcpev *tcpev;
	const struct magnet_v3_qdisc *qdisc;
	const struct magnet_v3_rcvbuf *rcvbuf;
	const struct magnet_v3_rtoend *rtoend;
};

/* the interface of a namespace's events (w->events): its layer */
#define PCAPW_LAYER_EVENTS 0x80000000U

struct pcapw {
	enum pcapw_format fmt;
	unsigned int layers;	/* MAGNET_LAYER_IP and/or MAGNET_LAYER_DEV */
	unsigned int dirs;	/* PCAPW_DIR_* */
	int all_ifs;		/* pcapng: any number of interfaces */
	int drops;		/* pcapng: DROP events as packets */
	int events;		/* pcapng: the events that are no packet on
				 * the wire (TCP events, qdisc events, drops
				 * unless ->drops) as records of their own
				 * interface per namespace, nsN:events */
	int wire;		/* a device's outgoing packets: its WIRE_OUT
				 * events (the log has them), else DEV_OUT */
	int last_if;		/* the last call's packet's interface, or -1 */
	__s64 rt_off;		/* sysinfo.realtime_offset_ns */
	/* interfaces: layer << 32 | ifindex, and the namespace (0: unknown),
	 * in order of first use (classic pcap: one) */
	__u64 ifs[PCAPW_MAX_IFS];
	__u32 if_ns[PCAPW_MAX_IFS];
	__u64 if_packets[PCAPW_MAX_IFS];
	__u64 if_first[PCAPW_MAX_IFS], if_last[PCAPW_MAX_IFS];
	unsigned int nifs;
	/* gaps not yet shown on a packet */
	__u64 gap_lost, gap_misses, gap_reset, gap_records;
	__u32 gap_cpus;		/* bit per CPU (CPU 31 for 31 and up) */
	/* totals, and the CPUs of every LOST record */
	__u64 packets, lost, misses, reset;
	__u32 lost_cpus;
	/* where the magnet text has the columns a state comment carries */
	int extra_ix[PCAPW_EXTRA_MAX];
	/* the latest TCP snapshot per flow, for the comments */
	struct pcapw_flow *flows;
	size_t flow_cap, flow_used;
	const char *err;	/* why the last call failed */
	int usage;		/* it failed for what was asked, not the log */
	char errbuf[512];
};

/*
 * Start: @w set up for @fmt, @layers, @dirs and the stream @si (one
 * interface, no drops: set all_ifs and drops after); writes the section
 * header (pcapng) or the file header (pcap) into @buf. Returns its length.
 */
int pcapw_begin(struct pcapw *w, enum pcapw_format fmt, unsigned int layers,
		unsigned int dirs, const struct magnet_sysinfo *si,
		const char *appname, char *buf);

/*
 * One record, of the network namespace @netns (0: unknown): a packet, with
 * the interface block before it if new; nothing for records that are not
 * packets (their TCP state or gap is kept for the next packet; a packet's
 * comment shows the state of the same flow in the same namespace). Returns
 * the bytes written into @buf, or -1 with w->err set: a record that cannot
 * be a packet (a corrupt log), or with w->usage set, a classic pcap file's
 * second interface. @parts: the record's rate, drop and limit parts, or
 * NULL for none (a DROP event without a drop part is left out; a TCP-layer
 * record's rate and limit parts go into its flow's comments).
 */
int pcapw_record(struct pcapw *w, const struct magnet_record *r,
		 const struct pcapw_parts *parts, __u32 netns, char *buf);

/*
 * End: in pcapng, an interface statistics block per interface (packets,
 * first and last time; the first one also says what gap the last packet
 * did not show). Returns the bytes written into @buf (at most
 * PCAPW_BLOCK_MAX per call: call again while it returns > 0), and frees
 * what @w holds.
 */
int pcapw_end(struct pcapw *w, char *buf);

/*
 * A new file's writer @dst (after pcapw_begin) takes what @src, which has
 * read the stream until now, knows: the flows' TCP state for the comments,
 * and every gap so far as the gap before its first packet. 0, or -1 if out
 * of memory.
 */
int pcapw_copy_state(struct pcapw *dst, const struct pcapw *src);

/* free what @w holds (after an error; pcapw_end does it otherwise) */
void pcapw_free(struct pcapw *w);

#endif /* MAGNET_PCAPW_H */
