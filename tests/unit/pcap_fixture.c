// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Fixtures and checkers for `ttpb2ascii -f pcapng|pcap|pcap-ns` (check.sh).
 *
 *   pcap_fixture write DIR     pcap.bin (native), pcap-swapped.bin (the
 *                              other byte order), pcap-old.bin (IP and
 *                              device events without the header fields)
 *   pcap_fixture check FMT LAYERS DIRS FILE [IFINDEX]
 *                              parse FILE (FMT: pcapng, pcap or pcap-ns),
 *                              written with -L LAYERS -d DIRS [-I IFINDEX]
 *                              from pcap.bin, and compare every packet byte,
 *                              length, time, interface, direction, drop
 *                              count and comment with the records
 *   pcap_fixture tshark        what `tshark -T fields` (check.sh's field
 *                              list) must print for -f pcapng of pcap.bin
 *
 * The packets are rebuilt here from the records, independently of
 * userspace/pcapw.c: header by header, at the offsets of RFC 791, RFC 8200
 * and RFC 9293. The check commands print a FAIL line per mismatch and close
 * with "pcap_fixture: N passed, N failed".
 */
#define _GNU_SOURCE	/* memmem */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record.h"
#include "swap.h"
#include "check.h"

#define CHECK_EQ_U(what, got, want) \
	CHECK((got) == (want), "%s: %u, want %u", (what), (unsigned int)(got), \
	      (unsigned int)(want))

static int check_summary(const char *name)
{
	printf("%s: %d passed, %d failed\n", name, passed, failed);
	return failed ? 1 : 0;
}

#define REALTIME_OFFSET 1700000000123456789LL
#define NREC 14

static const __u8 v4a[4] = { 10, 200, 1, 1 };
static const __u8 v4b[4] = { 10, 200, 1, 2 };
static const __u8 v6a[16] = { 0xfd, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1 };
static const __u8 v6b[16] = { 0xfd, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2 };
/* NOP NOP timestamps 0x01020304 0x05060708 */
static const __u8 ts_opts[12] = { 1, 1, 8, 10, 1, 2, 3, 4, 5, 6, 7, 8 };
/* a SYN's: MSS 1440, SACK permitted, timestamps, NOP, window scale 7 */
static const __u8 syn_opts[20] = { 2, 4, 0x05, 0xa0, 4, 2, 8, 10, 0, 0, 0,
				   9, 0, 0, 0, 0, 1, 3, 3, 7 };

static void die(const char *what)
{
	fprintf(stderr, "pcap_fixture: %s: %s\n", what, strerror(errno));
	exit(99);
}

static void flow(struct magnet_record *r, int v6, unsigned int lport,
		 unsigned int rport)
{
	r->family = v6 ? MAGNET_FAMILY_INET6 : MAGNET_FAMILY_INET;
	memcpy(r->laddr, v6 ? v6a : v4a, v6 ? 16 : 4);
	memcpy(r->raddr, v6 ? v6b : v4b, v6 ? 16 : 4);
	r->lport = (__u16)lport;
	r->rport = (__u16)rport;
}

static void tcp_state(struct magnet_record *r, __u32 cwnd)
{
	r->flags = MAGNET_RF_SOCK | MAGNET_RF_TCP | MAGNET_RF_SEQ;
	r->sock_id = 0x1122334455667788ULL;
	r->state = 1;
	r->cwnd = cwnd;
	r->ssthresh = 0x7fffffff;
	r->srtt_us = 1234;
	r->rttvar_us = 617;
	r->rto_us = 204000;
	r->mss = 1448;
	r->snd_una = 1000;
	r->snd_nxt = 1100;
	r->snd_wnd = 64256;
	r->rcv_wnd = 65160;
	r->packets_out = 1;
	r->total_retrans = 2;
	r->ca_state = 3;
	strcpy(r->ca_name, "cubic");
}

/* a packet event: @hdr the header fields, @opts the TCP options */
static void pkt(struct magnet_record *r, __u16 ev, __u32 ifindex,
		__u16 ip_hlen, __u8 tcp_hlen, const __u8 *opts)
{
	r->event = ev;
	r->flags = MAGNET_RF_IP | MAGNET_RF_HDR |
		   (ev == MAGNET_EV_DEV_OUT || ev == MAGNET_EV_DEV_IN ?
		    MAGNET_RF_DEV : 0) | (tcp_hlen ? MAGNET_RF_SEQ : 0);
	r->ifindex = r->flags & MAGNET_RF_DEV ? ifindex : 0;
	r->ip_hlen = ip_hlen;
	r->tcp_hlen = tcp_hlen;
	if (opts)
		memcpy(r->tcp_opts, opts, tcp_hlen - 20U);
	r->ip_ttl = 64;
	r->ip_proto = 6;
}

static struct magnet_record fixture(int i)
{
	struct magnet_record r;

	memset(&r, 0, sizeof(r));
	r.ts_ns = 0x0000123456789abcULL + (__u64)i * 1000003ULL;
	r.cpu = (__u16)(i % 2);
	switch (i) {
	case 0:		/* the TCP state of flow A */
		r.event = MAGNET_EV_TCP_OUT;
		flow(&r, 0, 40000, 5201);
		tcp_state(&r, 10);
		r.seq = 1000;
		r.end_seq = 1100;
		r.len = 100;
		break;
	case 1:		/* flow A's data out, timestamps, DF */
		flow(&r, 0, 40000, 5201);
		pkt(&r, MAGNET_EV_DEV_OUT, 2, 20, 32, ts_opts);
		r.flags |= MAGNET_RF_SOCK;
		r.sock_id = 0x1122334455667788ULL;
		r.state = 1;
		r.len = 152;
		r.seq = 1000;
		r.end_seq = 1100;
		r.tcp_ack = 0xa0b0c0d0;
		r.tcp_win = 502;
		r.tcp_flags = 0x18;
		r.ip_id = 0x1234;
		r.ip_frag = 0x4000;
		break;
	case 2:		/* records lost on CPU 1, with probe misses */
		r.event = MAGNET_EV_LOST;
		r.cpu = 1;
		r.req = 5;
		r.ret = 2;
		break;
	case 3:		/* flow A's ACK in */
		flow(&r, 0, 40000, 5201);
		pkt(&r, MAGNET_EV_DEV_IN, 2, 20, 32, ts_opts);
		r.len = 52;
		r.seq = 0xa0b0c0d0;
		r.end_seq = 0xa0b0c0d0;
		r.tcp_ack = 1100;
		r.tcp_win = 65535;
		r.tcp_flags = 0x10;
		r.ip_id = 0x4321;
		r.ip_frag = 0x4000;
		r.ip_ttl = 63;
		break;
	case 4:		/* flow B's SYN at the IP layer, IPv6 */
		flow(&r, 1, 40001, 5202);
		pkt(&r, MAGNET_EV_IP_OUT, 0, 40, 40, syn_opts);
		r.len = 80;
		r.seq = 0xfffffff0;
		r.end_seq = 0xfffffff1;
		r.tcp_win = 64800;
		r.tcp_flags = 0x02;
		r.ip_tos = 0x28;
		break;
	case 5:		/* flow B's FIN on a device, one extension header */
		flow(&r, 1, 40001, 5202);
		pkt(&r, MAGNET_EV_DEV_OUT, 3, 48, 20, NULL);
		r.len = 78;
		r.seq = 0xfffffff1;
		r.end_seq = 0xfffffff1 + 11;
		r.tcp_ack = 77;
		r.tcp_win = 1000;
		r.tcp_flags = 0x11;
		r.ip_tos = 0xb8;
		r.ip_ttl = 1;
		break;
	case 6:		/* a reset discarded buffered records */
		r.event = MAGNET_EV_RESET;
		r.req = 7;
		break;
	case 7:		/* UDP in */
		flow(&r, 0, 40002, 53);
		pkt(&r, MAGNET_EV_DEV_IN, 2, 20, 0, NULL);
		r.ip_proto = 17;
		r.len = 92;
		r.ip_id = 0x0101;
		break;
	case 8:		/* a later IPv4 fragment with 4 bytes of options */
		flow(&r, 0, 0, 0);
		pkt(&r, MAGNET_EV_DEV_OUT, 2, 24, 0, NULL);
		r.ip_proto = 17;
		r.len = 524;
		r.ip_frag = 0x00b9;
		r.ip_id = 0x0202;
		break;
	case 9:		/* flow A's TCP state changes */
		r.event = MAGNET_EV_TCP_IN;
		flow(&r, 0, 40000, 5201);
		tcp_state(&r, 11);
		r.len = 32;
		break;
	case 10:	/* flow A's pure ACK out */
		flow(&r, 0, 40000, 5201);
		pkt(&r, MAGNET_EV_DEV_OUT, 2, 20, 20, NULL);
		r.len = 40;
		r.seq = 1100;
		r.end_seq = 1100;
		r.tcp_ack = 0xa0b0c0d1;
		r.tcp_win = 0;
		r.tcp_flags = 0x10;
		break;
	case 11:	/* flow A: a GSO packet above 64 KiB (BIG TCP) */
		flow(&r, 0, 40000, 5201);
		pkt(&r, MAGNET_EV_DEV_OUT, 2, 20, 20, NULL);
		r.len = 70040;
		r.seq = 1100;
		r.end_seq = 1100 + 70000;
		r.tcp_ack = 0xa0b0c0d1;
		r.tcp_win = 9;
		r.tcp_flags = 0x10;
		break;
	case 12:	/* the largest headers: IPv6, 40 bytes of extension
			 * headers, a 60-byte TCP header */
		flow(&r, 1, 40001, 5202);
		pkt(&r, MAGNET_EV_DEV_IN, 3, 80, 60, NULL);
		memcpy(r.tcp_opts, syn_opts, sizeof(syn_opts));
		memcpy(r.tcp_opts + 20, syn_opts, sizeof(syn_opts));
		r.len = 80 + 60 + 7;
		r.seq = 77;
		r.end_seq = 84;
		r.tcp_ack = 0xfffffff2;
		r.tcp_win = 4;
		r.tcp_flags = 0x18;
		break;
	default:	/* 13: lost on CPU 40, after the last packet */
		r.event = MAGNET_EV_LOST;
		r.cpu = 40;
		r.req = 3;
		break;
	}
	return r;
}

static struct magnet_sysinfo sysinfo(void)
{
	struct magnet_sysinfo s;

	memset(&s, 0, sizeof(s));
	s.magic = MAGNET_MAGIC;
	s.version = MAGNET_FORMAT_VERSION;
	s.record_size = sizeof(struct magnet_record);
	s.sysinfo_size = sizeof(struct magnet_sysinfo);
	s.ncpus = 2;
	s.realtime_offset_ns = REALTIME_OFFSET;
	strcpy(s.release, "6.1.0-test-pcap");
	s.omode = 1;
	s.events = MAGNET_LAYER_ALL;
	strcpy(s.procname, "magnet");
	strcpy(s.version_string, "0.1.0");
	return s;
}

static void write_log(const char *dir, const char *name, int swapped,
		      int old)
{
	struct magnet_sysinfo s = sysinfo();
	char path[4096];
	FILE *f;
	int i;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f)
		die(path);
	if (swapped)
		magnet_swap_sysinfo(&s);
	if (fwrite(&s, sizeof(s), 1, f) != 1)
		die(path);
	for (i = 0; i < NREC; i++) {
		struct magnet_record r = fixture(i);

		if (old && (r.flags & MAGNET_RF_HDR)) {
			r.flags &= (__u8)~MAGNET_RF_HDR;
			memset((char *)&r + 112, 0, 60);
		}
		if (swapped)
			magnet_swap_record(&r);
		if (fwrite(&r, sizeof(r), 1, f) != 1)
			die(path);
	}
	if (fclose(f))
		die(path);
}

/* ---- the packets as they must be ---- */

static int is_out(const struct magnet_record *r)
{
	return r->event == MAGNET_EV_DEV_OUT || r->event == MAGNET_EV_IP_OUT;
}

/* check's optional IFINDEX: ttpb2ascii -I's device events only */
static __u32 sel_ifindex;

static int is_pkt(const struct magnet_record *r, unsigned int layers,
		  unsigned int dirs)
{
	unsigned int layer;

	if (sel_ifindex && (!(r->flags & MAGNET_RF_DEV) ||
			    r->ifindex != sel_ifindex))
		return 0;

	if (r->event == MAGNET_EV_IP_OUT || r->event == MAGNET_EV_IP_IN)
		layer = MAGNET_LAYER_IP;
	else if (r->event == MAGNET_EV_DEV_OUT || r->event == MAGNET_EV_DEV_IN)
		layer = MAGNET_LAYER_DEV;
	else
		return 0;
	return (layers & layer) && (dirs & (is_out(r) ? 2 : 1));
}

static unsigned int get16(const __u8 *p)
{
	return (unsigned int)p[0] << 8 | p[1];
}

static __u32 get32(const __u8 *p)
{
	return (__u32)p[0] << 24 | (__u32)p[1] << 16 | (__u32)p[2] << 8 | p[3];
}

/* the packet bytes of @r against RFC 791/8200/9293, field by field */
static void check_packet(int i, const struct magnet_record *r,
			 const __u8 *p, __u32 caplen, __u32 origlen)
{
	const __u8 *src = is_out(r) ? r->laddr : r->raddr;
	const __u8 *dst = is_out(r) ? r->raddr : r->laddr;
	unsigned int sport = is_out(r) ? r->lport : r->rport;
	unsigned int dport = is_out(r) ? r->rport : r->lport;
	unsigned int nh = r->ip_hlen, want_cap, j;
	char what[64];

	want_cap = nh + (r->ip_proto == 6 ? r->tcp_hlen :
			 r->ip_proto == 17 && r->lport ? 8 : 0);
	snprintf(what, sizeof(what), "record %d: captured length", i);
	CHECK_EQ_U(what, caplen, want_cap);
	snprintf(what, sizeof(what), "record %d: original length", i);
	CHECK_EQ_U(what, origlen, r->len);
	if (caplen != want_cap)
		return;
	if (r->family == MAGNET_FAMILY_INET) {
		__u32 sum = 0;

		CHECK(p[0] == (0x40 | nh / 4), "record %d: IPv4 version/IHL %02x", i, p[0]);
		CHECK(p[1] == r->ip_tos, "record %d: TOS", i);
		CHECK(get16(p + 2) == (r->len > 65535 ? 0 : r->len),
		      "record %d: total length %u", i, get16(p + 2));
		CHECK(get16(p + 4) == r->ip_id, "record %d: IP id", i);
		CHECK(get16(p + 6) == r->ip_frag, "record %d: flags/fragment", i);
		CHECK(p[8] == r->ip_ttl, "record %d: TTL", i);
		CHECK(p[9] == r->ip_proto, "record %d: protocol", i);
		for (j = 0; j < nh; j += 2)
			sum += get16(p + j);
		while (sum >> 16)
			sum = (sum & 0xffff) + (sum >> 16);
		CHECK(sum == 0xffff, "record %d: IPv4 header checksum", i);
		CHECK(!memcmp(p + 12, src, 4) && !memcmp(p + 16, dst, 4),
		      "record %d: IPv4 addresses", i);
		for (j = 20; j < nh; j++)
			CHECK(p[j] == 1, "record %d: IPv4 option byte %u not NOP", i, j);
	} else {
		CHECK(p[0] >> 4 == 6 && ((p[0] & 15) << 4 | p[1] >> 4) == r->ip_tos,
		      "record %d: IPv6 version/traffic class", i);
		CHECK(get16(p + 4) == r->len - 40, "record %d: payload length", i);
		CHECK(p[6] == (nh > 40 ? 60 : r->ip_proto), "record %d: next header %u", i, p[6]);
		CHECK(p[7] == r->ip_ttl, "record %d: hop limit", i);
		CHECK(!memcmp(p + 8, src, 16) && !memcmp(p + 24, dst, 16),
		      "record %d: IPv6 addresses", i);
		if (nh > 40)
			CHECK(p[40] == r->ip_proto && p[41] == (nh - 40) / 8 - 1 &&
			      p[42] == 1 && p[43] == nh - 44,
			      "record %d: destination options with PadN", i);
	}
	p += nh;
	if (r->ip_proto == 6 && r->tcp_hlen) {
		CHECK(get16(p) == sport && get16(p + 2) == dport, "record %d: TCP ports", i);
		CHECK(get32(p + 4) == r->seq, "record %d: seq", i);
		CHECK(get32(p + 8) == r->tcp_ack, "record %d: ack", i);
		CHECK(p[12] == (r->tcp_hlen / 4) << 4, "record %d: data offset", i);
		CHECK(p[13] == r->tcp_flags, "record %d: TCP flags", i);
		CHECK(get16(p + 14) == r->tcp_win, "record %d: window", i);
		CHECK(!memcmp(p + 20, r->tcp_opts, r->tcp_hlen - 20U),
		      "record %d: TCP options", i);
	} else if (r->ip_proto == 17 && r->lport) {
		CHECK(get16(p) == sport && get16(p + 2) == dport, "record %d: UDP ports", i);
		CHECK(get16(p + 4) == r->len - nh, "record %d: UDP length", i);
	}
}

/* ---- reading the file ---- */

static unsigned char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	unsigned char *b = NULL;
	size_t cap = 0, n;

	*len = 0;
	if (!f)
		die(path);
	for (;;) {
		if (*len + 65536 > cap) {
			cap = (*len + 65536) * 2;
			b = realloc(b, cap);
			if (!b)
				die("realloc");
		}
		n = fread(b + *len, 1, 65536, f);
		if (!n)
			break;
		*len += n;
	}
	fclose(f);
	return b;
}

static __u32 h32(const unsigned char *p)
{
	__u32 v;

	memcpy(&v, p, 4);
	return v;
}

static unsigned int h16(const unsigned char *p)
{
	__u16 v;

	memcpy(&v, p, 2);
	return v;
}

/* the comment options of an EPB, joined by '|' */
static void epb_options(const unsigned char *o, const unsigned char *end,
			char *comments, size_t n, __u32 *flags, __u64 *drops)
{
	size_t used = 0;

	comments[0] = '\0';
	*flags = 0;
	*drops = 0;
	while (o + 4 <= end) {
		unsigned int code = h16(o), len = h16(o + 2);

		if (!code)
			break;
		if (code == 1 && used + len + 2 < n) {
			if (used)
				comments[used++] = '|';
			memcpy(comments + used, o + 4, len);
			used += len;
			comments[used] = '\0';
		} else if (code == 2 && len == 4) {
			*flags = h32(o + 4);
		} else if (code == 4 && len == 8) {
			memcpy(drops, o + 4, 8);
		}
		o += 4 + ((len + 3) & ~3U);
	}
}

static int cmd_check(const char *fmt, const char *layers_s,
		     const char *dirs_s, const char *path)
{
	unsigned int layers = 0, dirs = 0, nifs = 0, want_id;
	__u64 ifs[16], gap = 0, gap_misses = 0, gap_reset = 0;
	__u64 ifrecv[16] = { 0 };
	size_t len, off;
	unsigned char *b = slurp(path, &len);
	int ng = !strcmp(fmt, "pcapng"), ns = !strcmp(fmt, "pcap-ns");
	int i, isbs = 0;

	if (strstr(layers_s, "dev"))
		layers |= MAGNET_LAYER_DEV;
	if (strstr(layers_s, "ip"))
		layers |= MAGNET_LAYER_IP;
	dirs = !strcmp(dirs_s, "in") ? 1 : !strcmp(dirs_s, "out") ? 2 : 3;

	if (len < 28) {
		CHECK(0, "%s: only %zu bytes", path, len);
		return check_summary("pcap_fixture");
	}
	if (ng) {
		CHECK(h32(b) == 0x0A0D0D0A && h32(b + 8) == 0x1A2B3C4D,
		      "section header block and byte-order magic");
		CHECK(h16(b + 12) == 1 && h16(b + 14) == 0, "pcapng version 1.0");
		off = h32(b + 4);
		if (off > len)
			off = len;
		CHECK(memmem(b, off, "Linux 6.1.0-test-pcap", 21) != NULL,
		      "shb_os names the release");
	} else {
		CHECK(len >= 24 && h32(b) == (ns ? 0xa1b23c4dU : 0xa1b2c3d4U),
		      "pcap magic");
		CHECK(h16(b + 4) == 2 && h16(b + 6) == 4, "pcap version 2.4");
		CHECK(h32(b + 20) == 101, "pcap link type LINKTYPE_RAW");
		CHECK(h32(b + 16) >= 140, "pcap snaplen holds the headers");
		off = 24;
	}
	for (i = 0; i < NREC; i++) {
		struct magnet_record r = fixture(i);
		__u64 wall = r.ts_ns + (__u64)REALTIME_OFFSET;
		__u32 caplen, origlen;
		const unsigned char *data;

		if (r.event == MAGNET_EV_LOST) {
			gap += r.req;
			gap_misses += (__u64)r.ret;
		}
		if (r.event == MAGNET_EV_RESET) {
			gap += r.req;
			gap_reset += r.req;
		}
		if (!is_pkt(&r, layers, dirs))
			continue;
		if (!ng) {
			CHECK(off + 16 <= len, "record %d: a packet record", i);
			if (off + 16 > len)
				break;
			CHECK(h32(b + off) == wall / 1000000000ULL,
			      "record %d: seconds", i);
			CHECK(h32(b + off + 4) == (ns ? wall % 1000000000ULL :
						   wall % 1000000000ULL / 1000),
			      "record %d: fraction", i);
			caplen = h32(b + off + 8);
			origlen = h32(b + off + 12);
			data = b + off + 16;
			check_packet(i, &r, data, caplen, origlen);
			off += 16 + caplen;
			continue;
		}
		want_id = 0;
		{
			__u64 key = (__u64)(r.event <= MAGNET_EV_IP_IN ? 4 : 8) << 32 |
				    (r.flags & MAGNET_RF_DEV ? r.ifindex : 0);
			unsigned int k;

			for (k = 0; k < nifs && ifs[k] != key; k++)
				;
			if (k == nifs) {
				char want[64];

				/* a new interface: its description block first */
				CHECK(off + 20 <= len && h32(b + off) == 1,
				      "record %d: interface block before its first packet", i);
				if (off + 20 > len || h32(b + off) != 1)
					break;
				CHECK(h16(b + off + 8) == 101, "record %d: link type", i);
				snprintf(want, sizeof(want), "%s",
					 key >> 32 == 4 ? "ip" : "if");
				CHECK(!memcmp(b + off + 16, "\x02\x00", 2) &&
				      !memcmp(b + off + 20, want, strlen(want)),
				      "record %d: if_name %s...", i, want);
				CHECK(memmem(b + off, h32(b + off + 4), "\x09\x00\x01\x00\x09", 5) != NULL,
				      "record %d: if_tsresol 9 (ns)", i);
				off += h32(b + off + 4);
				ifs[nifs++] = key;
			}
			want_id = k;
		}
		CHECK(off + 28 <= len && h32(b + off) == 6,
		      "record %d: an enhanced packet block", i);
		if (off + 28 > len || h32(b + off) != 6)
			break;
		{
			__u32 blen = h32(b + off + 4), fl;
			__u64 ts = (__u64)h32(b + off + 12) << 32 | h32(b + off + 16);
			__u64 drops;
			char comments[2048];

			CHECK(h32(b + off + 8) == want_id, "record %d: interface id %u",
			      i, h32(b + off + 8));
			CHECK(ts == wall, "record %d: ns timestamp", i);
			caplen = h32(b + off + 20);
			origlen = h32(b + off + 24);
			check_packet(i, &r, b + off + 28, caplen, origlen);
			epb_options(b + off + 28 + ((caplen + 3) & ~3U),
				    b + off + blen - 4, comments,
				    sizeof(comments), &fl, &drops);
			CHECK(fl == (is_out(&r) ? 2U : 1U), "record %d: direction", i);
			CHECK(drops == gap, "record %d: epb_dropcount %llu, want %llu",
			      i, (unsigned long long)drops, (unsigned long long)gap);
			if (gap) {
				char want[200];

				snprintf(want, sizeof(want),
					 "magnet gap before this packet: %llu records lost",
					 (unsigned long long)(gap - gap_reset));
				CHECK(strstr(comments, want) != NULL,
				      "record %d: gap comment '%s' in '%s'", i, want, comments);
				snprintf(want, sizeof(want), "%llu probe misses, %llu records discarded by reset",
					 (unsigned long long)gap_misses,
					 (unsigned long long)gap_reset);
				CHECK(strstr(comments, want) != NULL,
				      "record %d: gap comment '%s'", i, want);
			}
			/* flow A's packets: the state of the last TCP record */
			if (r.lport == 40000) {
				const char *want = i < 9 ?
					"magnet tcp_out " : "magnet tcp_in ";

				CHECK(strstr(comments, want) != NULL,
				      "record %d: state comment from %s", i, want);
				CHECK(strstr(comments, i < 9 ? "cwnd 10 " : "cwnd 11 ") &&
				      strstr(comments, "state ESTABLISHED ca_state Recovery ca cubic") &&
				      strstr(comments, "ssthresh 2147483647 srtt_us 1234 ") &&
				      strstr(comments, "total_retrans 2"),
				      "record %d: state comment '%s'", i, comments);
			} else {
				CHECK(!strstr(comments, "magnet tcp_"),
				      "record %d: no state comment for a flow without TCP records", i);
			}
			CHECK((r.ip_hlen > 20 && r.family == 4) ==
			      !!strstr(comments, "IPv4 options not recorded"),
			      "record %d: IPv4 options note", i);
			CHECK((r.ip_hlen > 40 && r.family == 6) ==
			      !!strstr(comments, "IPv6 extension headers not recorded"),
			      "record %d: IPv6 extension headers note", i);
			ifrecv[want_id]++;
			gap = gap_misses = gap_reset = 0;
			off += blen;
		}
	}
	/* pcapng: one statistics block per interface, the last one first */
	while (ng && off + 12 <= len && h32(b + off) == 5) {
		__u32 id = h32(b + off + 8);
		const unsigned char *o = b + off + 20, *end = b + off + h32(b + off + 4) - 4;
		__u64 recv = ~0ULL;
		int saw_gap = 0;

		while (o + 4 <= end && h16(o)) {
			if (h16(o) == 4)
				memcpy(&recv, o + 4, 8);
			if (h16(o) == 1 && memmem(o + 4, h16(o + 2), "after the last packet: 3 records lost (CPU 31+)", 47))
				saw_gap = 1;
			o += 4 + ((h16(o + 2) + 3) & ~3U);
		}
		CHECK(id < nifs && recv == ifrecv[id],
		      "statistics of interface %u: %llu packets", id,
		      (unsigned long long)recv);
		CHECK(saw_gap == (id == 0 && gap != 0),
		      "interface %u: the gap after the last packet %s", id,
		      gap ? "shown on interface 0" : "not shown");
		isbs++;
		off += h32(b + off + 4);
	}
	if (ng)
		CHECK(isbs == (int)nifs, "%d statistics blocks for %u interfaces", isbs, nifs);
	CHECK(off == len, "the file ends after the last block (%zu of %zu bytes)", off, len);
	free(b);
	return check_summary("pcap_fixture");
}

/* the fields check.sh asks tshark for, as tshark 4.0 prints them */
static int cmd_tshark(void)
{
	int i;

	for (i = 0; i < NREC; i++) {
		struct magnet_record r = fixture(i);
		int v6 = r.family == MAGNET_FAMILY_INET6, out = is_out(&r);
		const __u8 *s = out ? r.laddr : r.raddr, *d = out ? r.raddr : r.laddr;
		char sa[64], da[64];

		if (!is_pkt(&r, MAGNET_LAYER_DEV, 3))
			continue;
		if (v6) {
			/* fd00:200::1 style: the fixture's addresses only */
			snprintf(sa, sizeof(sa), "fd00:200::%x", s[15]);
			snprintf(da, sizeof(da), "fd00:200::%x", d[15]);
		} else {
			snprintf(sa, sizeof(sa), "%u.%u.%u.%u", s[0], s[1], s[2], s[3]);
			snprintf(da, sizeof(da), "%u.%u.%u.%u", d[0], d[1], d[2], d[3]);
		}
		/* frame.len, IPv4 or IPv6 src and dst, then TCP: ports, raw
		 * seq and ack, flags, window; then UDP: ports */
		printf("%u\t%s\t%s\t%s\t%s\t", r.len, v6 ? "" : sa, v6 ? "" : da,
		       v6 ? sa : "", v6 ? da : "");
		if (r.ip_proto == 6 && r.tcp_hlen)
			printf("%u\t%u\t%u\t%u\t0x%04x\t%u\t\t\n",
			       out ? r.lport : r.rport, out ? r.rport : r.lport,
			       r.seq, r.tcp_ack, r.tcp_flags, r.tcp_win);
		else if (r.ip_proto == 17 && r.lport)
			printf("\t\t\t\t\t\t%u\t%u\n", out ? r.lport : r.rport,
			       out ? r.rport : r.lport);
		else
			printf("\t\t\t\t\t\t\t\n");
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "write")) {
		write_log(argv[2], "pcap.bin", 0, 0);
		write_log(argv[2], "pcap-swapped.bin", 1, 0);
		write_log(argv[2], "pcap-old.bin", 0, 1);
		return 0;
	}
	if ((argc == 6 || argc == 7) && !strcmp(argv[1], "check")) {
		if (argc == 7)
			sel_ifindex = (__u32)strtoul(argv[6], NULL, 10);
		return cmd_check(argv[2], argv[3], argv[4], argv[5]);
	}
	if (argc == 2 && !strcmp(argv[1], "tshark"))
		return cmd_tshark();
	fprintf(stderr, "usage: pcap_fixture write DIR | check FMT LAYERS DIRS FILE [IFINDEX] | tshark\n");
	return 2;
}
