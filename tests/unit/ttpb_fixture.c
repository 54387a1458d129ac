// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Fixtures and checkers for the ttpb2ascii tests (check.sh).
 *
 *   ttpb_fixture write DIR          the binary logs the tests decode (below)
 *                                   and the expected ttprobe and web10g text
 *   ttpb_fixture check-magnet FILE  parse `ttpb2ascii -f magnet` output of
 *                                   DIR/native.bin back, compare every field
 *   ttpb_fixture check-legacy FILE  decode `-f legacy` output at the
 *                                   documented offsets, compare every field
 *   ttpb_fixture check-ttcompat FILE  `-c ttprobe` lines of native.bin:
 *                                   ttprobe v0.1.2's fields 7, 10 and 11
 *   ttpb_fixture stream N           a header and N TCP records to stdout,
 *                                   written lazily (the memory test)
 *   ttpb_fixture mutate IN DIR N SEED   N random mutations of IN
 *   ttpb_fixture to-v3 IN OUT [swap]  the version 2 log IN as version 3,
 *                                   through module/shared/v3.c's encoder
 *
 * The check commands print a FAIL line per mismatch and close with
 * "ttpb_fixture: N passed, N failed"; the driver adds those up.
 *
 * The records are built here from record.h alone; the expected text is
 * derived independently of format*.c, except expect-ttprobe.txt and
 * expect-web10g.txt, which are format*.c's own output (the kernel's
 * formatter) for the byte-for-byte comparison; the web10g connection ids
 * in expect-web10g.txt are assigned here (1, 2, ... per connection in order of
 * first appearance), independently of ttpb2ascii.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include "format.h"
#include "v3.h"
#include "v3swap.h"

#include "check.h"

static void die(const char *what)
{
	fprintf(stderr, "ttpb_fixture: %s: %s\n", what, strerror(errno));
	exit(99);
}

/* ---- the fixture log ---- */

#define REALTIME_OFFSET 1700000000123456789LL
#define NREC 15

static const __u8 v4a[4] = { 10, 200, 1, 1 };
static const __u8 v4b[4] = { 192, 0, 2, 254 };
static const __u8 v6a[16] = { 0xfd, 0x00, 0x02, 0x00, 0x12, 0x34, 0x56, 0x78,
			      0x9a, 0xbc, 0xde, 0xf0, 0x00, 0x00, 0xab, 0x01 };
static const __u8 v6b[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0,
			      0, 0, 0, 0, 0, 0, 0, 0x02 };

static struct magnet_sysinfo fixture_sysinfo(void)
{
	struct magnet_sysinfo s;

	memset(&s, 0, sizeof(s));
	s.magic = MAGNET_MAGIC;
	s.version = MAGNET_FORMAT_VERSION;
	s.record_size = sizeof(struct magnet_record);
	s.sysinfo_size = sizeof(struct magnet_sysinfo);
	s.ncpus = 0x0104;
	s.features = 0;
	s.realtime_offset_ns = REALTIME_OFFSET;
	s.start_ns = 0x0000001122334455ULL;
	strcpy(s.release, "6.1.0-test-magnet");
	s.port = 5201;
	s.full = 1;
	s.bufsize = 16384;
	s.omode = 1;
	s.direction = 2;
	s.fwmark = 0x00c0ffee;
	s.events = MAGNET_LAYER_ALL;
	strcpy(s.procname, "magnet");
	strcpy(s.version_string, "0.1.0");
	return s;
}

static void set_addrs(struct magnet_record *r, int v6)
{
	r->family = v6 ? MAGNET_FAMILY_INET6 : MAGNET_FAMILY_INET;
	memcpy(r->laddr, v6 ? v6a : v4a, v6 ? 16 : 4);
	memcpy(r->raddr, v6 ? v6b : v4b, v6 ? 16 : 4);
}

static void set_tcp(struct magnet_record *r, __u32 k)
{
	r->flags |= MAGNET_RF_TCP;
	r->mss = 1448 - k;
	r->srtt_us = 0x00012345 + k;
	r->rttvar_us = 0x00023456 + k;
	r->rto_us = 0x00034567 + k;
	r->cwnd = 0x00000a0b + k;
	r->ssthresh = 0x7fffffff - k;
	r->snd_wnd = 0x00fedcba + k;
	r->rcv_wnd = 0x00abcdef + k;
	r->snd_una = 0xa1b2c3d4 + k;
	r->snd_nxt = 0xffffffff - k;
	r->write_seq = 0xb1c2d3e4 + k;
	r->copied_seq = 0xc1d2e3f4 + k;
	r->packets_out = 0x00010203 + k;
	r->retrans_out = 0x00020304 + k;
	r->total_retrans = 0x01020304 + k;
	r->ca_state = (__u8)(1 + k % 4);
	strcpy(r->ca_name, "cubic");
	/* version 2 */
	r->segs_out = 0x00112233 + k;
	r->data_segs_out = 0x00102030 + k;
	r->segs_in = 0x00221100 + k;
	r->data_segs_in = 0x00201000 + k;
	r->bytes_sent = 0x0000000123456789ULL + k;
	r->bytes_received = 0x000000fedcba9876ULL + k;
	r->bytes_acked = 0x0000000fedcba987ULL + k;
	r->bytes_retrans = 0x00000001a2b3c4d5ULL + k;
	r->rcv_nxt = 0xd1e2f3a4 + k;
	r->min_rtt_us = k == 9 ? ~0U : 0x00001357 + k;
	r->rtt_us = k == 10 ? 0 : 0x00002468 + k;
	r->advmss = (__u16)(1460 - k);
	r->wscale = (__u8)((7 << 4) | (k % 15));
	r->opts = (__u8)(k & 0xf);
}

/* record i of the fixture: every event type, distinctive values */
static struct magnet_record fixture_record(int i)
{
	struct magnet_record r;
	__u32 k = (__u32)i;

	memset(&r, 0, sizeof(r));
	r.ts_ns = 0x0000123456789abcULL + (__u64)i * 1000003ULL;
	r.sock_id = 0x0123456789abcdefULL ^ ((__u64)i << 56);
	r.cpu = (__u16)(0x0102 + i);
	r.lport = (__u16)(0xa1b2 + i);
	r.rport = (__u16)(5201 + i);
	r.state = 1;
	r.len = 0x00001234 + k;
	r.seq = 0x11223344 + k;
	r.end_seq = 0x11223344 + k + r.len;
	r.mark = 0x00c0ffee + k;
	r.flags = MAGNET_RF_SOCK | MAGNET_RF_SEQ;

	switch (i) {
	case 0:		/* TCP out, IPv4 */
		r.event = MAGNET_EV_TCP_OUT;
		set_addrs(&r, 0);
		set_tcp(&r, k);
		r.len = 65160;
		break;
	case 1:		/* TCP in, IPv6, len beyond u16 */
		r.event = MAGNET_EV_TCP_IN;
		set_addrs(&r, 1);
		set_tcp(&r, k);
		r.len = 0x00123456;
		r.state = 4;
		break;
	case 2:		/* app send, IPv4, an error return */
		r.event = MAGNET_EV_APP_SEND;
		set_addrs(&r, 0);
		r.flags |= MAGNET_RF_APP;
		r.pid = 0x00012345;
		strcpy(r.comm, "iperf3");
		r.req = 0x0102030405060708ULL;
		r.ret = -32;
		break;
	case 3:		/* app recv, IPv6, comm fills all 16 bytes */
		r.event = MAGNET_EV_APP_RECV;
		set_addrs(&r, 1);
		r.flags |= MAGNET_RF_APP;
		r.pid = 0x7fff0001;
		memcpy(r.comm, "abcdefghijklmnop", MAGNET_COMM_LEN);
		r.req = 131072;
		r.ret = 123456789012LL;
		break;
	case 4:		/* IP out, IPv4 */
		r.event = MAGNET_EV_IP_OUT;
		set_addrs(&r, 0);
		r.flags |= MAGNET_RF_IP;
		r.ip_id = 0xbeef;
		r.ip_tos = 0xb8;
		r.ip_ttl = 64;
		r.ip_proto = 6;
		break;
	case 5:		/* IP in, IPv6 */
		r.event = MAGNET_EV_IP_IN;
		set_addrs(&r, 1);
		r.flags |= MAGNET_RF_IP;
		r.ip_id = 0x1234;
		r.ip_tos = 0x20;
		r.ip_ttl = 255;
		r.ip_proto = 6;
		break;
	case 6:		/* device out, IPv4 */
		r.event = MAGNET_EV_DEV_OUT;
		set_addrs(&r, 0);
		r.flags |= MAGNET_RF_DEV | MAGNET_RF_IP;
		r.ifindex = 0x01020304;
		r.ip_id = 0xfeed;
		r.ip_tos = 0x04;
		r.ip_ttl = 63;
		r.ip_proto = 6;
		break;
	case 7:		/* device in, IPv6, not tied to a socket */
		r.event = MAGNET_EV_DEV_IN;
		set_addrs(&r, 1);
		r.flags = MAGNET_RF_DEV | MAGNET_RF_IP;
		r.sock_id = 0;
		r.state = 0;
		r.seq = r.end_seq = 0;
		r.ifindex = 7;
		r.ip_tos = 0x48;
		r.ip_ttl = 1;
		r.ip_proto = 17;
		break;
	case 8:		/* records lost and probe misses on CPU 0x010a */
		memset(&r, 0, sizeof(r));
		r.ts_ns = 0x0000123456789abcULL + (__u64)i * 1000003ULL;
		r.event = MAGNET_EV_LOST;
		r.cpu = 0x010a;
		r.req = 0x0000000a0b0c0d0eULL;
		r.ret = 0x0000000102030405LL;
		break;
	case 9:		/* TCP out, IPv6, ca_name fills all 12 bytes */
		r.event = MAGNET_EV_TCP_OUT;
		set_addrs(&r, 1);
		set_tcp(&r, k);
		memcpy(r.ca_name, "abcdefghijklmnop", MAGNET_CA_NAME_LEN);
		r.state = 8;
		break;
	case 10:	/* TCP in, IPv4, the socket of record 0, in
			 * Recovery: current ssthresh is snd_ssthresh */
		r.event = MAGNET_EV_TCP_IN;
		set_addrs(&r, 0);
		set_tcp(&r, k);
		r.ca_state = 3;
		r.ssthresh = 7;
		r.len = 52;
		r.sock_id = 0x0123456789abcdefULL;
		r.lport = 0xa1b2;
		r.rport = 5201;
		break;
	case 11:	/* app send, comm with a blank and a control byte */
		r.event = MAGNET_EV_APP_SEND;
		set_addrs(&r, 0);
		r.flags |= MAGNET_RF_APP;
		r.pid = 1;
		strcpy(r.comm, "my prog\x01x");
		r.req = 0;
		r.ret = -4;
		break;
	case 12:	/* buffered records discarded by a reset */
		memset(&r, 0, sizeof(r));
		r.ts_ns = 0x0000123456789abcULL + (__u64)i * 1000003ULL;
		r.event = MAGNET_EV_RESET;
		r.req = 0x00000000fedcba98ULL;
		break;
	case 14:	/* the last one: TCP out on the memory of record
			 * 0's socket, a new connection (another flow) */
		r.event = MAGNET_EV_TCP_OUT;
		set_addrs(&r, 0);
		set_tcp(&r, k);
		r.sock_id = 0x0123456789abcdefULL;
		r.lport = 0xa1b2;
		r.rport = 5299;
		break;
	default:	/* 13: TCP out again, socket of 0,
			 * Open: current ssthresh is 3/4 of cwnd */
		r.event = MAGNET_EV_TCP_OUT;
		set_addrs(&r, 0);
		set_tcp(&r, k);
		r.ca_state = 0;
		r.ssthresh = 100;
		r.state = 1;
		r.sock_id = 0x0123456789abcdefULL;
		r.lport = 0xa1b2;
		r.rport = 5201;
		break;
	}
	return r;
}

/* one connection: the same socket and flow */
static int same_conn(const struct magnet_record *a,
		     const struct magnet_record *b)
{
	return a->sock_id == b->sock_id && a->family == b->family &&
	       a->lport == b->lport && a->rport == b->rport &&
	       !memcmp(a->laddr, b->laddr, 16) && !memcmp(a->raddr, b->raddr, 16);
}

/* ---- byte swapping, from a table of every field ---- */

struct field {
	size_t off, size;
	int swap;		/* a multi-byte integer */
};

/* every field of schema.h's tables: the snapshot's, not the packet
 * header's, in the union (every byte once) */
#define RF(type, name, dims, kind)					\
	{ offsetof(struct magnet_record, name),				\
	  sizeof(((struct magnet_record *)0)->name), sizeof(type) > 1 },
#define SF(type, name, dims, kind)					\
	{ offsetof(struct magnet_sysinfo, name),			\
	  sizeof(((struct magnet_sysinfo *)0)->name), sizeof(type) > 1 },

static const struct field record_fields[] = {
	MAGNET_V2_HEAD(RF) MAGNET_V2_SNAP(RF) MAGNET_V2_TAIL(RF)
};

static const struct field sysinfo_fields[] = {
	MAGNET_SYSINFO_FIELDS(SF)
};

#define NFIELDS(t) (sizeof(t) / sizeof((t)[0]))

/* the table covers every byte of the struct exactly once */
static int covers(const struct field *t, size_t n, size_t size)
{
	unsigned char seen[256] = { 0 };
	size_t i, j;

	if (size > sizeof(seen))
		return 0;
	for (i = 0; i < n; i++)
		for (j = t[i].off; j < t[i].off + t[i].size; j++)
			if (j >= size || seen[j]++)
				return 0;
	for (j = 0; j < size; j++)
		if (!seen[j])
			return 0;
	return 1;
}

static void swap_fields(void *p, const struct field *t, size_t n)
{
	size_t i, j;

	for (i = 0; i < n; i++) {
		unsigned char *b = (unsigned char *)p + t[i].off;

		if (!t[i].swap)
			continue;
		for (j = 0; j < t[i].size / 2; j++) {
			unsigned char c = b[j];

			b[j] = b[t[i].size - 1 - j];
			b[t[i].size - 1 - j] = c;
		}
	}
}

/* ---- writing files ---- */

struct buf {
	unsigned char *p;
	size_t len, cap;
};

static void buf_add(struct buf *b, const void *p, size_t n)
{
	if (b->len + n > b->cap) {
		b->cap = (b->len + n) * 2;
		b->p = realloc(b->p, b->cap);
		if (!b->p)
			die("realloc");
	}
	memcpy(b->p + b->len, p, n);
	b->len += n;
}

static void write_file(const char *dir, const char *name, const void *p,
		       size_t n)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f)
		die(path);
	if ((n && fwrite(p, 1, n, f) != n) || fclose(f))
		die(path);
}

static struct buf read_file(const char *path)
{
	struct buf b = { 0 };
	unsigned char tmp[65536];
	FILE *f = fopen(path, "rb");
	size_t n;

	if (!f)
		die(path);
	while ((n = fread(tmp, 1, sizeof(tmp), f)) > 0)
		buf_add(&b, tmp, n);
	if (ferror(f))
		die(path);
	fclose(f);
	return b;
}

/* a log: the sysinfo and the fixture records, optionally byte-swapped */
static struct buf make_log(int swapped, int event77_at)
{
	struct magnet_sysinfo s = fixture_sysinfo();
	struct buf b = { 0 };
	int i;

	if (swapped)
		swap_fields(&s, sysinfo_fields, NFIELDS(sysinfo_fields));
	buf_add(&b, &s, sizeof(s));
	for (i = 0; i < NREC; i++) {
		struct magnet_record r = fixture_record(i);

		if (i == event77_at)
			r.event = 77;
		if (swapped)
			swap_fields(&r, record_fields, NFIELDS(record_fields));
		buf_add(&b, &r, sizeof(r));
	}
	return b;
}

static __u64 rng_state = 0x9e3779b97f4a7c15ULL;

static __u64 rng(void)
{
	/* xorshift64* */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 2685821657736338717ULL;
}

static int cmd_write(const char *dir)
{
	struct buf native, swapped, bad, gz;
	struct magnet_sysinfo *s;
	char path[4096], line[MAGNET_WEB10G_LINE_MAX];
	unsigned char garbage[4096];
	__u64 counter = 0;
	struct magnet_record socks[NREC];
	int nsocks = 0, n;
	FILE *f;
	gzFile z;
	size_t i;

	if (!covers(record_fields, NFIELDS(record_fields),
		    sizeof(struct magnet_record)) ||
	    !covers(sysinfo_fields, NFIELDS(sysinfo_fields),
		    sizeof(struct magnet_sysinfo))) {
		fprintf(stderr, "ttpb_fixture: the field tables do not cover record.h's structs\n");
		return 1;
	}

	native = make_log(0, -1);
	swapped = make_log(1, -1);
	write_file(dir, "native.bin", native.p, native.len);
	write_file(dir, "swapped.bin", swapped.p, swapped.len);
	/* a header and no records */
	write_file(dir, "header-only.bin", native.p,
		   sizeof(struct magnet_sysinfo));

	/* gzip'd copy, through zlib */
	snprintf(path, sizeof(path), "%s/native.bin.gz", dir);
	z = gzopen(path, "wb9");
	if (!z || gzwrite(z, native.p, (unsigned int)native.len) !=
		  (int)native.len || gzclose(z) != Z_OK)
		die(path);
	gz = read_file(path);
	/* the same gzip stream cut at 60% */
	write_file(dir, "trunc.bin.gz", gz.p, gz.len * 6 / 10);

	/* what the kernel's formatter prints for the TCP records */
	snprintf(path, sizeof(path), "%s/expect-ttprobe.txt", dir);
	f = fopen(path, "w");
	if (!f)
		die(path);
	for (i = 0; i < NREC; i++) {
		struct magnet_record r = fixture_record((int)i);

		if (r.event != MAGNET_EV_TCP_OUT && r.event != MAGNET_EV_TCP_IN)
			continue;
		n = magnet_format_ttprobe(line, &r, ++counter,
					  REALTIME_OFFSET);
		if (n <= 0 || fwrite(line, 1, (size_t)n, f) != (size_t)n)
			die("format");
	}
	if (fclose(f))
		die(path);

	/* web10g: the header, then the TCP records with their connection
	 * ids: 1, 2, ... per connection (a sock_id with one flow: family,
	 * ports, addresses) in order of first appearance
	 */
	snprintf(path, sizeof(path), "%s/expect-web10g.txt", dir);
	f = fopen(path, "w");
	if (!f)
		die(path);
	n = magnet_format_web10g_header(line);
	if (n <= 0 || fwrite(line, 1, (size_t)n, f) != (size_t)n)
		die("format");
	for (i = 0; i < NREC; i++) {
		struct magnet_record r = fixture_record((int)i);
		int k;

		if (r.event != MAGNET_EV_TCP_OUT && r.event != MAGNET_EV_TCP_IN)
			continue;
		for (k = 0; k < nsocks && !same_conn(&socks[k], &r); k++)
			;
		if (k == nsocks)
			socks[nsocks++] = r;
		n = magnet_format_web10g(line, &r, NULL, REALTIME_OFFSET,
					 (__u32)k + 1);
		if (n <= 0 || fwrite(line, 1, (size_t)n, f) != (size_t)n)
			die("format");
	}
	if (fclose(f))
		die(path);
	/* four connections: records 0, 10 and 13 share one, 14 reuses its
	 * socket for another */
	if (nsocks != 4) {
		fprintf(stderr, "ttpb_fixture: %d web10g connections, want 4\n",
			nsocks);
		return 1;
	}

	/* corrupt inputs */
	write_file(dir, "empty.bin", "", 0);
	write_file(dir, "short10.bin", native.p, 10);

	bad = make_log(0, -1);
	s = (struct magnet_sysinfo *)bad.p;
	s->magic = 0xdeadbeef;
	write_file(dir, "badmagic.bin", bad.p, bad.len);
	s->magic = MAGNET_MAGIC;
	/* a version 1 log: 192-byte records, never released */
	s->version = 1;
	s->record_size = 192;
	write_file(dir, "version1.bin", bad.p, 256 + 3 * 192);
	s->version = 3;
	s->record_size = sizeof(struct magnet_record);
	write_file(dir, "version3.bin", bad.p, bad.len);
	s->version = 4;
	write_file(dir, "version4.bin", bad.p, bad.len);
	s->version = MAGNET_FORMAT_VERSION;
	s->record_size = 100;
	write_file(dir, "recsize100.bin", bad.p, bad.len);
	s->record_size = sizeof(struct magnet_record);
	s->sysinfo_size = 300;
	write_file(dir, "sysinfo300.bin", bad.p, bad.len);
	free(bad.p);

	bad = make_log(0, 2);
	write_file(dir, "event77.bin", bad.p, bad.len);
	free(bad.p);
	bad = make_log(1, 2);
	write_file(dir, "event77-swapped.bin", bad.p, bad.len);
	free(bad.p);

	/* cut 50 bytes into the last record */
	write_file(dir, "cut.bin", native.p,
		   native.len - sizeof(struct magnet_record) + 50);

	for (i = 0; i < sizeof(garbage); i++)
		garbage[i] = (unsigned char)rng();
	garbage[0] = 0x5a;	/* neither a gzip header nor a magic */
	write_file(dir, "garbage.bin", garbage, sizeof(garbage));

	printf("ttpb_fixture: wrote %d records (%zu bytes) in %s\n", NREC,
	       native.len, dir);
	free(native.p);
	free(swapped.p);
	free(gz.p);
	return 0;
}

/* ---- check-magnet: parse the text back ---- */

/* the text's columns, by name and index, from its table (format.h) */
#define COL_NAME(type, name, dims, kind) #name,
static const char *const columns[] = { MAGNET_TEXT_COLUMNS(COL_NAME) };

#define NCOL (sizeof(columns) / sizeof(columns[0]))

#define COL_ENUM(type, name, dims, kind) C_##name,
enum col { MAGNET_TEXT_COLUMNS(COL_ENUM) };

_Static_assert(NCOL == MAGNET_TEXT_NCOLS, "the text format's column count");

static const char *const event_names[] = {
	NULL, "tcp_out", "tcp_in", "app_send", "app_recv", "ip_out", "ip_in",
	"dev_out", "dev_in", "lost", "reset",
};

/* a decimal number that is all of @s */
static int parse_u64(const char *s, int base, __u64 *v)
{
	char *end;

	if (!*s || *s == '-' || *s == '+' || *s == ' ')
		return 0;
	errno = 0;
	*v = strtoull(s, &end, base);
	return !errno && !*end;
}

static int parse_s64(const char *s, __s64 *v)
{
	char *end;

	if (!*s || *s == '+' || *s == ' ')
		return 0;
	errno = 0;
	*v = strtoll(s, &end, 10);
	return !errno && !*end;
}

static int num_is(const char *s, __u64 want)
{
	__u64 v;

	return parse_u64(s, 10, &v) && v == want;
}

/* strings as the text format shows them: blanks '_', others '?' */
static void clean(char *dst, const char *src, size_t n)
{
	size_t i;

	for (i = 0; i < n && src[i]; i++) {
		unsigned char c = (unsigned char)src[i];

		dst[i] = c == ' ' ? '_' : (c < ' ' || c >= 0x7f) ? '?' : (char)c;
	}
	dst[i] = '\0';
}

static int addr_is(const char *s, const struct magnet_record *r,
		   const __u8 *addr)
{
	__u8 got[16];

	if (r->family == MAGNET_FAMILY_INET)
		return inet_pton(AF_INET, s, got) == 1 && !memcmp(got, addr, 4);
	/* eight uppercase 4-digit groups, no :: */
	if (strlen(s) != 39 || strspn(s, "0123456789ABCDEF:") != 39)
		return 0;
	return inet_pton(AF_INET6, s, got) == 1 && !memcmp(got, addr, 16);
}

static void check_line(int i, char *line)
{
	const struct magnet_record want = fixture_record(i), *r = &want;
	__u64 wall = r->ts_ns + (__u64)REALTIME_OFFSET, v;
	char *f[NCOL + 1], *p = line, *dot, str[32];
	size_t n = 0, c;
	__s64 sv;

	while (n <= NCOL) {
		f[n++] = p;
		p = strchr(p, '\t');
		if (!p)
			break;
		*p++ = '\0';
	}
	CHECK(n == NCOL, "record %d: %zu fields, want %zu", i, n, NCOL);
	if (n != NCOL)
		return;

	/* time: seconds.nanoseconds (9 digits) of ts_ns + offset */
	dot = strchr(f[C_time], '.');
	CHECK(dot && strlen(dot + 1) == 9, "record %d: time '%s'", i,
	      f[C_time]);
	if (dot) {
		__u64 sec, ns;

		*dot = '\0';
		CHECK(parse_u64(f[C_time], 10, &sec) &&
		      parse_u64(dot + 1, 10, &ns) &&
		      sec * 1000000000ULL + ns == wall,
		      "record %d: time %s.%s, want %llu ns", i, f[C_time],
		      dot + 1, wall);
	}
	CHECK(num_is(f[C_cpu], r->cpu), "record %d: cpu '%s', want %u", i,
	      f[C_cpu], r->cpu);
	CHECK(!strcmp(f[C_event], event_names[r->event]),
	      "record %d: event '%s', want %s", i, f[C_event],
	      event_names[r->event]);

	if (r->event == MAGNET_EV_LOST || r->event == MAGNET_EV_RESET) {
		for (c = C_sock; c < C_lost; c++)
			if (c != C_ret || r->event != MAGNET_EV_LOST || !r->ret)
				CHECK(!*f[c], "record %d (%s): %s '%s' not empty", i,
				      event_names[r->event], columns[c], f[c]);
		if (r->event == MAGNET_EV_LOST && r->ret)
			CHECK(num_is(f[C_ret], (__u64)r->ret),
			      "record %d: lost's misses (ret) '%s', want %lld",
			      i, f[C_ret], r->ret);
		CHECK(num_is(f[C_lost], r->req), "record %d: lost '%s', want %llu",
		      i, f[C_lost], r->req);
		return;
	}
	CHECK(!*f[C_lost], "record %d: lost '%s' not empty", i, f[C_lost]);
	/* the fixture's records have no rate, drop, TCP event or qdisc part
	 * (version 2 has none) */
	for (c = C_pacing_rate; c <= C_qdisc_backlog; c++)
		CHECK(!*f[c], "record %d: %s '%s' not empty", i, columns[c],
		      f[c]);

	if (r->flags & MAGNET_RF_SOCK) {
		CHECK(strlen(f[C_sock]) == 16 && parse_u64(f[C_sock], 16, &v) &&
		      v == r->sock_id, "record %d: sock '%s', want %016llx", i,
		      f[C_sock], r->sock_id);
		CHECK(num_is(f[C_state], r->state), "record %d: state '%s'", i,
		      f[C_state]);
	} else {
		CHECK(!*f[C_sock] && !*f[C_state],
		      "record %d: sock '%s' state '%s' not empty", i,
		      f[C_sock], f[C_state]);
	}
	CHECK(num_is(f[C_family], r->family), "record %d: family '%s'", i,
	      f[C_family]);
	CHECK(addr_is(f[C_laddr], r, r->laddr), "record %d: laddr '%s'", i,
	      f[C_laddr]);
	CHECK(addr_is(f[C_raddr], r, r->raddr), "record %d: raddr '%s'", i,
	      f[C_raddr]);
	CHECK(num_is(f[C_lport], r->lport), "record %d: lport '%s', want %u",
	      i, f[C_lport], r->lport);
	CHECK(num_is(f[C_rport], r->rport), "record %d: rport '%s', want %u",
	      i, f[C_rport], r->rport);
	CHECK(num_is(f[C_len], r->len), "record %d: len '%s', want %u", i,
	      f[C_len], r->len);
	CHECK(num_is(f[C_mark], r->mark), "record %d: mark '%s', want %u", i,
	      f[C_mark], r->mark);

	if (r->flags & MAGNET_RF_SEQ)
		CHECK(num_is(f[C_seq], r->seq) && num_is(f[C_end_seq], r->end_seq),
		      "record %d: seq '%s' end_seq '%s'", i, f[C_seq],
		      f[C_end_seq]);
	else
		CHECK(!*f[C_seq] && !*f[C_end_seq], "record %d: seq not empty", i);

	if (r->flags & MAGNET_RF_APP) {
		CHECK(num_is(f[C_pid], r->pid), "record %d: pid '%s'", i,
		      f[C_pid]);
		clean(str, r->comm, MAGNET_COMM_LEN);
		CHECK(!strcmp(f[C_comm], str), "record %d: comm '%s', want '%s'",
		      i, f[C_comm], str);
		CHECK(num_is(f[C_req], r->req), "record %d: req '%s', want %llu",
		      i, f[C_req], r->req);
		CHECK(parse_s64(f[C_ret], &sv) && sv == r->ret,
		      "record %d: ret '%s', want %lld", i, f[C_ret], r->ret);
	} else {
		for (c = C_pid; c <= C_ret; c++)
			CHECK(!*f[c], "record %d: %s '%s' not empty", i,
			      columns[c], f[c]);
	}

	if (r->flags & MAGNET_RF_TCP) {
		const __u32 tcp[] = {
			r->mss, r->srtt_us, r->rttvar_us, r->rto_us, r->cwnd,
			r->ssthresh, r->snd_wnd, r->rcv_wnd, r->snd_una,
			r->snd_nxt, r->write_seq, r->copied_seq,
			r->packets_out, r->retrans_out, r->total_retrans,
			r->ca_state,
		};
		const __u64 v2[] = {
			r->segs_out, r->data_segs_out, r->segs_in,
			r->data_segs_in, r->bytes_sent, r->bytes_received,
			r->bytes_acked, r->bytes_retrans, r->rcv_nxt,
			r->min_rtt_us, r->rtt_us, r->advmss,
			(__u64)(r->wscale >> 4), (__u64)(r->wscale & 0xf),
			r->opts,
		};

		for (c = C_mss; c <= C_ca_state; c++)
			CHECK(num_is(f[c], tcp[c - C_mss]),
			      "record %d: %s '%s', want %u", i, columns[c],
			      f[c], tcp[c - C_mss]);
		clean(str, r->ca_name, MAGNET_CA_NAME_LEN);
		CHECK(!strcmp(f[C_ca_name], str),
		      "record %d: ca_name '%s', want '%s'", i, f[C_ca_name],
		      str);
		for (c = C_segs_out; c <= C_opts; c++)
			CHECK(num_is(f[c], v2[c - C_segs_out]),
			      "record %d: %s '%s', want %llu", i, columns[c],
			      f[c], v2[c - C_segs_out]);
	} else {
		for (c = C_mss; c <= C_ca_name; c++)
			CHECK(!*f[c], "record %d: %s '%s' not empty", i,
			      columns[c], f[c]);
		for (c = C_segs_out; c <= C_opts; c++)
			CHECK(!*f[c], "record %d: %s '%s' not empty", i,
			      columns[c], f[c]);
	}

	if (r->flags & MAGNET_RF_DEV)
		CHECK(num_is(f[C_ifindex], r->ifindex),
		      "record %d: ifindex '%s'", i, f[C_ifindex]);
	else
		CHECK(!*f[C_ifindex], "record %d: ifindex not empty", i);
	/* a version 2 log does not say the namespace */
	CHECK(!*f[C_netns], "record %d: netns '%s' not empty", i, f[C_netns]);

	if (r->flags & MAGNET_RF_IP)
		CHECK(num_is(f[C_ip_id], r->ip_id) &&
		      num_is(f[C_ip_tos], r->ip_tos) &&
		      num_is(f[C_ip_ttl], r->ip_ttl) &&
		      num_is(f[C_ip_proto], r->ip_proto),
		      "record %d: ip '%s' '%s' '%s' '%s'", i, f[C_ip_id],
		      f[C_ip_tos], f[C_ip_ttl], f[C_ip_proto]);
	else
		CHECK(!*f[C_ip_id] && !*f[C_ip_tos] && !*f[C_ip_ttl] &&
		      !*f[C_ip_proto], "record %d: ip fields not empty", i);
}

static int cmd_check_magnet(const char *path)
{
	char *line = NULL, hdr[1024] = "";
	size_t cap = 0, c;
	ssize_t len;
	FILE *f = fopen(path, "r");
	int i = 0;

	if (!f)
		die(path);
	for (c = 0; c < NCOL; c++) {
		strcat(hdr, columns[c]);
		strcat(hdr, c + 1 < NCOL ? "\t" : "\n");
	}
	len = getline(&line, &cap, f);
	CHECK(len > 0 && !strcmp(line, hdr), "header line '%s'",
	      len > 0 ? line : "(none)");

	while ((len = getline(&line, &cap, f)) > 0) {
		CHECK(line[len - 1] == '\n', "line %d has no newline", i + 2);
		if (line[len - 1] == '\n')
			line[len - 1] = '\0';
		if (i < NREC)
			check_line(i, line);
		i++;
	}
	CHECK(i == NREC, "%d record lines, want %d", i, NREC);
	free(line);
	fclose(f);
	printf("ttpb_fixture: %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}

/* ---- check-legacy: the 96-byte records at the documented offsets ---- */

/*
 * tcp_current_ssthresh() as include/net/tcp.h has it, written out here
 * independently of format*.c: snd_ssthresh in CWR (2) and Recovery (3),
 * else the larger of snd_ssthresh and 3/4 of cwnd.
 */
static __u32 current_ssthresh(const struct magnet_record *r)
{
	__u32 q = r->cwnd / 2 + r->cwnd / 4;

	if ((1U << r->ca_state) & ((1U << 2) | (1U << 3)))
		return r->ssthresh;
	return r->ssthresh >= q ? r->ssthresh : q;
}

/* a host-order integer at @off (ttprobe wrote its structs as they were) */
static __u64 get(const unsigned char *p, size_t off, size_t size)
{
	__u16 v16;
	__u32 v32;
	__u64 v64;

	switch (size) {
	case 2:
		memcpy(&v16, p + off, 2);
		return v16;
	case 4:
		memcpy(&v32, p + off, 4);
		return v32;
	default:
		memcpy(&v64, p + off, 8);
		return v64;
	}
}

static int cmd_check_legacy(const char *path)
{
	struct buf b = read_file(path);
	int i, ntcp = 0, k = 0;

	for (i = 0; i < NREC; i++) {
		struct magnet_record r = fixture_record(i);

		ntcp += r.event == MAGNET_EV_TCP_OUT || r.event == MAGNET_EV_TCP_IN;
	}
	CHECK(b.len == (size_t)ntcp * 96, "legacy output %zu bytes, want 96 * %d",
	      b.len, ntcp);

	for (i = 0; i < NREC && (size_t)(k + 1) * 96 <= b.len; i++) {
		struct magnet_record r = fixture_record(i);
		const unsigned char *p = b.p + k * 96;
		__u64 wall = r.ts_ns + (__u64)REALTIME_OFFSET;
		int v6 = r.family == MAGNET_FAMILY_INET6;
		static const unsigned char zero[16];

		if (r.event != MAGNET_EV_TCP_OUT && r.event != MAGNET_EV_TCP_IN)
			continue;
		k++;
		CHECK(get(p, 0, 8) == wall / 1000000000ULL,
		      "legacy %d: tv_sec %llu", k, get(p, 0, 8));
		CHECK(get(p, 8, 8) == wall % 1000000000ULL / 1000,
		      "legacy %d: tv_usec %llu", k, get(p, 8, 8));
		CHECK(!memcmp(p + 16, r.laddr, v6 ? 16 : 4) &&
		      (v6 || !memcmp(p + 20, zero, 12)), "legacy %d: src", k);
		CHECK(!memcmp(p + 32, r.raddr, v6 ? 16 : 4) &&
		      (v6 || !memcmp(p + 36, zero, 12)), "legacy %d: dst", k);
		CHECK(p[48] == r.lport >> 8 && p[49] == (r.lport & 0xff),
		      "legacy %d: sport %02x%02x, want %04x (network order)", k,
		      p[48], p[49], r.lport);
		CHECK(p[50] == r.rport >> 8 && p[51] == (r.rport & 0xff),
		      "legacy %d: dport %02x%02x, want %04x", k, p[50], p[51],
		      r.rport);
		CHECK(get(p, 52, 2) == (r.len > 65535 ? 65535 : r.len),
		      "legacy %d: length %llu, want %u saturated", k,
		      get(p, 52, 2), r.len);
		CHECK(get(p, 56, 4) == r.snd_nxt, "legacy %d: snd_nxt", k);
		CHECK(get(p, 60, 4) == r.snd_una, "legacy %d: snd_una", k);
		CHECK(get(p, 64, 4) == r.snd_wnd, "legacy %d: snd_wnd", k);
		CHECK(get(p, 68, 4) == r.rcv_wnd, "legacy %d: rcv_wnd", k);
		CHECK(get(p, 72, 4) == r.cwnd, "legacy %d: snd_cwnd", k);
		CHECK(get(p, 76, 4) == current_ssthresh(&r),
		      "legacy %d: ssthresh %llu, want %u (current, ca_state %u)",
		      k, get(p, 76, 4), current_ssthresh(&r), r.ca_state);
		CHECK(get(p, 80, 4) == r.srtt_us, "legacy %d: srtt", k);
		CHECK(get(p, 84, 4) == r.mss, "legacy %d: mss_cache", k);
		CHECK(p[88] == r.state, "legacy %d: sock_state %u", k, p[88]);
		CHECK(p[89] == (r.event == MAGNET_EV_TCP_IN ? 'i' : 'o'),
		      "legacy %d: direction %u", k, p[89]);
		CHECK(p[90] == (v6 ? 10 : 2), "legacy %d: addr_family %u", k,
		      p[90]);
		CHECK(!memcmp(p + 91, zero, 5) && !memcmp(p + 54, zero, 2),
		      "legacy %d: padding not zero", k);
	}
	CHECK(k == ntcp, "decoded %d legacy records, want %d", k, ntcp);
	free(b.p);
	printf("ttpb_fixture: %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}

/*
 * ---- check-ttcompat: `ttpb2ascii -c ttprobe native.bin`, the fields that
 * differ from magnet's lines ----
 */
static int cmd_check_ttcompat(const char *path)
{
	struct buf b = read_file(path);
	char *text = malloc(b.len + 1), *line, *save = NULL;
	int i = 0, k = 0, seen = 0;

	if (!text)
		die("malloc");
	memcpy(text, b.p, b.len);
	text[b.len] = '\0';
	/* the rule's three cases are all in the fixture */
	for (i = 0; i < NREC; i++) {
		struct magnet_record r = fixture_record(i);

		if (r.event != MAGNET_EV_TCP_OUT && r.event != MAGNET_EV_TCP_IN)
			continue;
		if (r.ssthresh == 0x7fffffff)
			seen |= 1;	/* infinite: the 32-bit wrap */
		else if (r.ca_state == 3 && r.ssthresh < r.cwnd / 2 + r.cwnd / 4)
			seen |= 2;	/* Recovery keeps a small ssthresh */
		else if (r.ca_state == 0 && r.ssthresh < r.cwnd / 2 + r.cwnd / 4)
			seen |= 4;	/* Open: 3/4 of cwnd */
	}
	CHECK(seen == 7, "fixture lacks a case of the ssthresh rule (%d)", seen);
	i = 0;
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *f[17], *p = line;
		struct magnet_record r;
		__u64 v;
		int nf = 0;

		while (i < NREC && (r = fixture_record(i),
				    r.event != MAGNET_EV_TCP_OUT &&
				    r.event != MAGNET_EV_TCP_IN))
			i++;
		if (i >= NREC) {
			CHECK(0, "more ttprobe lines than TCP records");
			break;
		}
		i++;
		for (nf = 0; nf < 17 && p; nf++)
			f[nf] = strsep(&p, ",");
		CHECK(nf == 17 && !p, "line %d: not 17 fields", k);
		if (nf != 17)
			break;
		CHECK(parse_u64(f[6], 10, &v) && v == (__u64)k,
		      "line %d: field 7 is %s, want %d (from 0)", k, f[6], k);
		CHECK(parse_u64(f[9], 10, &v) &&
		      v == (__u32)((__u64)r.cwnd * r.mss),
		      "line %d: field 10 is %s, want %u (32-bit)", k, f[9],
		      (__u32)((__u64)r.cwnd * r.mss));
		CHECK(parse_u64(f[10], 10, &v) &&
		      v == (__u32)((__u64)current_ssthresh(&r) * r.mss),
		      "line %d: field 11 is %s, want %u (ca_state %u, ssthresh %u, cwnd %u)",
		      k, f[10], (__u32)((__u64)current_ssthresh(&r) * r.mss),
		      r.ca_state, r.ssthresh, r.cwnd);
		if (r.ssthresh == 0x7fffffff && r.mss == 1448)
			CHECK(v == 4294965848ULL,
			      "line %d: infinite ssthresh, mss 1448: %llu", k,
			      (unsigned long long)v);
		k++;
	}
	CHECK(k == 6, "%d ttprobe lines, want 6", k);
	free(text);
	free(b.p);
	printf("ttpb_fixture: %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}

/* ---- stream: a big log, written as it goes ---- */

static int cmd_stream(unsigned long long n)
{
	struct magnet_sysinfo s = fixture_sysinfo();
	static struct magnet_record chunk[256];
	unsigned long long i = 0;
	size_t k;

	if (fwrite(&s, sizeof(s), 1, stdout) != 1)
		die("stdout");
	while (i < n) {
		for (k = 0; k < 256 && i < n; k++, i++) {
			struct magnet_record *r = &chunk[k];

			*r = fixture_record(i & 1 ? 10 : 0);
			r->ts_ns += i * 1000;
			r->snd_nxt += (__u32)i;
		}
		if (fwrite(chunk, sizeof(chunk[0]), k, stdout) != k)
			die("stdout");
	}
	if (fflush(stdout))
		die("stdout");
	return 0;
}

/* ---- mutate: bit flips, truncations, bad fields ---- */

static int cmd_mutate(const char *in, const char *dir, int count, __u64 seed)
{
	struct buf orig = read_file(in);
	unsigned char *m = malloc(orig.len + 1);
	int i;

	if (!m || !orig.len)
		die("mutate");
	rng_state = seed | 1;
	for (i = 0; i < count; i++) {
		size_t len = orig.len, j, flips;
		char name[64];

		memcpy(m, orig.p, orig.len);
		switch (rng() % 5) {
		case 0:		/* flip a few bits anywhere */
			flips = 1 + rng() % 8;
			for (j = 0; j < flips; j++)
				m[rng() % len] ^= (unsigned char)(1u << (rng() % 8));
			break;
		case 1:		/* truncate anywhere */
			len = rng() % len;
			break;
		case 2:		/* flip bits in the header */
			flips = 1 + rng() % 4;
			for (j = 0; j < flips; j++)
				m[rng() % (len < 256 ? len : 256)] ^=
					(unsigned char)(1u << (rng() % 8));
			break;
		case 3:		/* random bytes over a record's event/cpu */
			j = sizeof(struct magnet_sysinfo) +
			    sizeof(struct magnet_record) * (rng() % NREC) + 16;
			if (j + 4 <= len) {
				__u64 v = rng();

				memcpy(m + j, &v, 1 + rng() % 4);
			}
			break;
		default:	/* flips and a truncation */
			flips = 1 + rng() % 16;
			for (j = 0; j < flips; j++)
				m[rng() % len] ^= (unsigned char)(1u << (rng() % 8));
			len = rng() % len;
			break;
		}
		snprintf(name, sizeof(name), "mut-%03d.bin", i);
		write_file(dir, name, m, len);
	}
	free(m);
	free(orig.p);
	return 0;
}

/*
 * to-v3 IN OUT [swap]: the version 2 log IN (native byte order) as
 * version 3, through module/shared/v3.c's encoder, the one the module uses;
 * "swap": written in the other byte order. Prints the record counts.
 */
static int cmd_to_v3(const char *in, const char *out, int swap)
{
	static struct magnet_v3_enc e;
	struct buf b = read_file(in), o = { 0 };
	struct magnet_sysinfo si;
	size_t off, nrec = 0, nflow = 0;
	FILE *f;

	if (b.len < sizeof(si)) {
		fprintf(stderr, "ttpb_fixture: %s: no header\n", in);
		return 99;
	}
	memcpy(&si, b.p, sizeof(si));
	if (si.magic != MAGNET_MAGIC || si.version != MAGNET_FORMAT_VERSION ||
	    (b.len - sizeof(si)) % sizeof(struct magnet_record)) {
		fprintf(stderr, "ttpb_fixture: %s: not a native version 2 log\n",
			in);
		return 99;
	}
	si.version = MAGNET_FORMAT_VERSION_V3;
	si.record_size = 0;
	if (swap)
		swap_fields(&si, sysinfo_fields, NFIELDS(sysinfo_fields));
	buf_add(&o, &si, sizeof(si));
	magnet_v3_enc_init(&e);
	for (off = sizeof(si); off < b.len; off += sizeof(struct magnet_record)) {
		_Alignas(8) unsigned char v3[MAGNET_V3_ENC_MAX];
		struct magnet_record r;
		unsigned int n, k;

		memcpy(&r, b.p + off, sizeof(r));
		n = magnet_v3_encode(&e, &r, v3);
		if (!n) {
			fprintf(stderr, "ttpb_fixture: %s: record at %zu (event %u, flags 0x%02x) has no version 3 layout\n",
				in, off, r.event, r.flags);
			return 99;
		}
		for (k = 0; k < n;) {
			__u16 len;

			memcpy(&len, v3 + k + 14, 2);
			nflow += v3[k + 12] == MAGNET_V3_FLOW;
			if (swap)
				swap_v3(v3 + k);
			k += len;
		}
		buf_add(&o, v3, n);
		nrec++;
	}
	f = fopen(out, "wb");
	if (!f || fwrite(o.p, 1, o.len, f) != o.len || fclose(f))
		die(out);
	printf("ttpb_fixture: %s: %zu records, %zu FLOW records, %zu bytes (version 2: %zu)\n",
	       out, nrec, nflow, o.len, b.len);
	free(b.p);
	free(o.p);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "write"))
		return cmd_write(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "check-magnet"))
		return cmd_check_magnet(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "check-legacy"))
		return cmd_check_legacy(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "check-ttcompat"))
		return cmd_check_ttcompat(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "stream"))
		return cmd_stream(strtoull(argv[2], NULL, 0));
	if ((argc == 4 || (argc == 5 && !strcmp(argv[4], "swap"))) &&
	    !strcmp(argv[1], "to-v3"))
		return cmd_to_v3(argv[2], argv[3], argc == 5);
	if (argc == 6 && !strcmp(argv[1], "mutate"))
		return cmd_mutate(argv[2], argv[3], atoi(argv[4]),
				  strtoull(argv[5], NULL, 0));
	fprintf(stderr,
		"usage: ttpb_fixture write DIR | check-magnet FILE | check-legacy FILE\n"
		"       | check-ttcompat FILE\n"
		"       | stream N | mutate IN DIR COUNT SEED | to-v3 IN OUT [swap]\n");
	return 99;
}
