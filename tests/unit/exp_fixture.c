// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Logs for the magnet-exp analysis tests (tests/unit/test_exp.py):
 *
 *   exp_fixture DIR   writes, into DIR:
 *     clean.bin   one connection, both ends traced at every layer: the
 *                 sender writes 5 segments of 1000 bytes, each goes out
 *                 through TCP, IP and the device and comes in at the
 *                 receiver, which ACKs each (IP IDs 100, 101, ...); then
 *                 the sender's FIN and the receiver's LAST_ACK
 *     lost.bin    clean.bin with a LOST record (3 records, 2 probe misses,
 *                 CPU 1) after the third segment
 *     trunc.bin   clean.bin cut in the middle of its last record
 *     idgap.bin   clean.bin with the receiver's IP IDs jumping by 2 after
 *                 its second ACK: one ACK lost on the return path
 *     fwdgap.bin  clean.bin with the sender's IP IDs jumping by 2 after
 *                 its second segment: loss on the forward path
 *     nodev.bin   clean.bin without the device record of the sender's
 *                 fourth segment
 *     open.bin    clean.bin without the closing FIN records
 *     reorder.bin clean.bin with the second and third segments' IP IDs
 *                 swapped (recorded out of order, as two CPUs may): no
 *                 packet is missing
 *     retx.bin    clean.bin, but the third segment is lost after the
 *                 sender's device (the receiver sees nothing of it) and is
 *                 sent again after the fifth, and the fifth is sent again
 *                 though it had arrived (a spurious retransmission)
 *     cut.bin     clean.bin, but the receiver's application reads 3000
 *                 of the 5000 bytes and its host answers the sender's FIN
 *                 with a reset (as iperf3's server closing with data
 *                 unread): 2000 bytes never delivered
 *     listen.bin  clean.bin after a record of the receiver's listening
 *                 socket (LISTEN, no peer), and with each end's TCP
 *                 records up to the first ACK without an RTT sample
 *                 (min_rtt_us ~0U, pacing_rate not set: ~0UL)
 *
 *   exp_fixture DIR N   writes DIR/long.bin only: clean.bin's connection
 *                 with N segments (12 records each; bench/analysis.py's
 *                 binary logs)
 *
 * Each is a complete magnet binary log (module/uapi/record.h); the analysis
 * reads them through ttpb2ascii, as it reads any log.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record.h"

#define T0 1000000000ULL
#define SEG 1000
#define NSEG 5
static long nseg = NSEG;	/* the data segments (exp_fixture DIR N: N) */

static const __u8 a_addr[4] = { 10, 0, 0, 1 };	/* the sender */
static const __u8 b_addr[4] = { 10, 0, 0, 2 };	/* the receiver */

enum variant { CLEAN, LOST, TRUNC, IDGAP, FWDGAP, NODEV, OPEN, RETX,
	       REORDER, LISTEN, CUT };

/* listen.bin: TCP records without an RTT sample yet; a listener's */
static int no_rtt, listener;
/* cut.bin: the packets out carry RST */
static int rst;

static FILE *out;
/* the congestion control the TCP records name */
static const char *ca_name = "cubic";
static __u64 now;

static void emit(const struct magnet_record *r)
{
	if (fwrite(r, sizeof(*r), 1, out) != 1) {
		perror("exp_fixture");
		exit(99);
	}
}

/* a record of end @a (1: the sender) at the next microsecond */
static struct magnet_record rec(int a, __u16 ev)
{
	struct magnet_record r;

	memset(&r, 0, sizeof(r));
	now += 1000;
	r.ts_ns = now;
	r.event = ev;
	r.family = MAGNET_FAMILY_INET;
	memcpy(r.laddr, a ? a_addr : b_addr, 4);
	memcpy(r.raddr, a ? b_addr : a_addr, 4);
	r.lport = a ? 40000 : 5201;
	r.rport = a ? 5201 : 40000;
	return r;
}

struct end {
	int a;
	__u32 snd_nxt, rcv_nxt;
	__u64 sent, received, acked;
	__u8 state;
	__u16 ip_id;
};

static void tcp(struct end *e, __u16 ev, __u32 seq, __u32 len)
{
	struct magnet_record r = rec(e->a, ev);

	r.flags = MAGNET_RF_SOCK | MAGNET_RF_TCP | MAGNET_RF_SEQ;
	r.sock_id = e->a ? 0xa : 0xb;
	r.state = e->state;
	r.len = ev == MAGNET_EV_TCP_OUT ? len : len + 32;
	r.seq = seq;
	r.end_seq = seq + len;
	r.mss = SEG;
	r.advmss = SEG;
	r.cwnd = 10 + e->a;
	r.ssthresh = 0x7fffffff;
	r.srtt_us = 5000;
	r.rttvar_us = 2500;
	r.rto_us = 205000;
	r.snd_nxt = e->snd_nxt;
	r.rcv_nxt = e->rcv_nxt;
	r.bytes_sent = e->sent;
	r.bytes_received = e->received;
	r.bytes_acked = e->acked;
	r.min_rtt_us = no_rtt ? 0xffffffff : 4000;
	strcpy(r.ca_name, ca_name);
	if (listener) {		/* no peer */
		memset(r.raddr, 0, sizeof(r.raddr));
		r.rport = 0;
		r.sock_id = 0xc;
	}
	emit(&r);
}

static void pkt(struct end *e, __u16 ev, __u32 seq, __u32 len, __u16 id)
{
	struct magnet_record r = rec(e->a, ev);

	r.flags = MAGNET_RF_IP | MAGNET_RF_HDR | MAGNET_RF_SEQ |
		  (ev >= MAGNET_EV_DEV_OUT ? MAGNET_RF_DEV : 0);
	r.len = 52 + len;
	r.seq = seq;
	r.end_seq = seq + len;
	r.ip_id = id;
	r.ip_ttl = 64;
	r.ip_proto = 6;
	r.ip_hlen = 20;
	r.tcp_hlen = 32;
	r.tcp_flags = rst ? 0x14 : 0x10;	/* RST|ACK or ACK */
	r.ifindex = 2;
	emit(&r);
}

static void app(struct end *e, __u16 ev, __u32 seq, __s64 n)
{
	struct magnet_record r = rec(e->a, ev);

	r.flags = MAGNET_RF_SOCK | MAGNET_RF_APP | MAGNET_RF_SEQ;
	r.sock_id = e->a ? 0xa : 0xb;
	r.state = e->state;
	r.seq = seq;
	r.end_seq = seq + (__u32)n;
	r.pid = 42;
	strcpy(r.comm, "iperf3");
	r.req = (__u64)n;
	r.ret = n;
	emit(&r);
}

/* one segment from @s to @d: each layer out, each layer in */
static void segment(struct end *s, struct end *d, __u32 seq, __u32 len,
		    int dev_out)
{
	tcp(s, MAGNET_EV_TCP_OUT, seq, len);
	pkt(s, MAGNET_EV_IP_OUT, seq, len, s->ip_id);
	if (dev_out)
		pkt(s, MAGNET_EV_DEV_OUT, seq, len, s->ip_id);
	pkt(d, MAGNET_EV_DEV_IN, seq, len, s->ip_id);
	pkt(d, MAGNET_EV_IP_IN, seq, len, s->ip_id);
	d->received += len;
	d->rcv_nxt = seq + len;
	tcp(d, MAGNET_EV_TCP_IN, seq, len);
	s->ip_id++;
}

static void write_log(const char *dir, const char *name, enum variant v)
{
	struct magnet_sysinfo si;
	struct end a = { 1, 1000, 5000, 0, 0, 0, 1, 7000 };
	struct end b = { 0, 5000, 1000, 0, 0, 0, 1, 100 };
	char path[4096];
	int i;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	out = fopen(path, "wb");
	if (!out) {
		perror(path);
		exit(99);
	}
	now = T0;
	memset(&si, 0, sizeof(si));
	si.magic = MAGNET_MAGIC;
	si.version = MAGNET_FORMAT_VERSION;
	si.record_size = sizeof(struct magnet_record);
	si.sysinfo_size = sizeof(si);
	si.ncpus = 2;
	si.realtime_offset_ns = 1700000000000000000LL;
	si.omode = 1;
	si.events = MAGNET_LAYER_ALL;
	strcpy(si.release, "6.1.0-test-exp");
	strcpy(si.procname, "magnet");
	if (fwrite(&si, sizeof(si), 1, out) != 1)
		exit(99);

	if (v == LISTEN) {
		struct end l = b;

		l.state = 10;	/* LISTEN */
		listener = 1;
		tcp(&l, MAGNET_EV_TCP_IN, 999, 0);
		listener = 0;
		no_rtt = 1;
	}
	app(&a, MAGNET_EV_APP_SEND, 1000, nseg * SEG);
	for (i = 0; i < nseg; i++) {
		__u32 seq = 1000 + (__u32)i * SEG;

		a.sent += SEG;
		a.snd_nxt = seq + SEG;
		if (v == REORDER && i == 1)
			a.ip_id++;
		if (v == REORDER && i == 2)
			a.ip_id -= 2;
		if (v == RETX && i == 2) {
			/* out of the sender, never at the receiver */
			tcp(&a, MAGNET_EV_TCP_OUT, seq, SEG);
			pkt(&a, MAGNET_EV_IP_OUT, seq, SEG, a.ip_id);
			pkt(&a, MAGNET_EV_DEV_OUT, seq, SEG, a.ip_id);
			a.ip_id++;
		} else {
			segment(&a, &b, seq, SEG, !(v == NODEV && i == 3));
		}
		/* the receiver's ACK */
		segment(&b, &a, 5000, 0, 1);
		no_rtt = 0;
		a.acked += SEG;
		if (v == REORDER && i == 2)
			a.ip_id += 1;
		if (v == IDGAP && i == 1)
			b.ip_id++;
		if (v == FWDGAP && i == 1)
			a.ip_id++;
		if (v == LOST && i == 2) {
			struct magnet_record r;

			memset(&r, 0, sizeof(r));
			now += 1000;
			r.ts_ns = now;
			r.event = MAGNET_EV_LOST;
			r.cpu = 1;
			r.req = 3;
			r.ret = 2;
			emit(&r);
		}
	}
	if (v == RETX) {
		segment(&a, &b, 1000 + 2 * SEG, SEG, 1);
		segment(&a, &b, 1000 + 4 * SEG, SEG, 1);
	}
	app(&b, MAGNET_EV_APP_RECV, 1000, v == CUT ? 3000 : nseg * SEG);
	if (v == CUT) {
		a.state = 4;	/* FIN_WAIT1 */
		segment(&a, &b, 1000 + nseg * SEG, 0, 1);
		b.state = 7;	/* CLOSE: a reset */
		rst = 1;
		segment(&b, &a, 5000, 0, 1);
		rst = 0;
	} else if (v != OPEN) {
		a.state = 4;	/* FIN_WAIT1 */
		segment(&a, &b, 1000 + nseg * SEG, 0, 1);
		b.state = 9;	/* LAST_ACK */
		segment(&b, &a, 5000, 0, 1);
	}
	if (fclose(out)) {
		perror(path);
		exit(99);
	}
	if (v == TRUNC && truncate(path, (off_t)(sizeof(si) + 10 * 256 + 100)))
		exit(99);
}

int main(int argc, char **argv)
{
	if (argc == 3) {
		/* the clean flow of N data segments, DIR/long.bin (12 records
		 * a segment: bench/analysis.py's binary log) */
		char *end;

		nseg = strtol(argv[2], &end, 10);
		if (*end || nseg < 1) {
			fprintf(stderr, "exp_fixture: %s: not a count\n",
				argv[2]);
			return 2;
		}
		write_log(argv[1], "long.bin", CLEAN);
		return 0;
	}
	if (argc != 2) {
		fprintf(stderr, "usage: exp_fixture DIR [SEGMENTS]\n");
		return 2;
	}
	write_log(argv[1], "clean.bin", CLEAN);
	write_log(argv[1], "lost.bin", LOST);
	write_log(argv[1], "trunc.bin", TRUNC);
	write_log(argv[1], "idgap.bin", IDGAP);
	write_log(argv[1], "fwdgap.bin", FWDGAP);
	write_log(argv[1], "nodev.bin", NODEV);
	write_log(argv[1], "open.bin", OPEN);
	write_log(argv[1], "retx.bin", RETX);
	write_log(argv[1], "reorder.bin", REORDER);
	write_log(argv[1], "listen.bin", LISTEN);
	write_log(argv[1], "cut.bin", CUT);
	/* the same as retx.bin and lost.bin, their TCP records naming reno */
	ca_name = "reno";
	write_log(argv[1], "retx_reno.bin", RETX);
	write_log(argv[1], "lost_reno.bin", LOST);
	return 0;
}
