// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tests for the pure-C parts shared with the kernel module:
 * ttprobe line formatting (module/shared/format_ttprobe.c) and command parsing
 * (module/shared/cmd.c). Prints "N passed, N failed" and exits non-zero on failure.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "format.h"
#include "cmd.h"

#include "check.h"

static struct magnet_record v4_record(void)
{
	struct magnet_record r;

	memset(&r, 0, sizeof(r));
	r.ts_ns = 5000000123ULL;	/* 5.000000123 s after boot */
	r.event = MAGNET_EV_TCP_OUT;
	r.family = MAGNET_FAMILY_INET;
	r.state = 1;
	r.lport = 45416;
	r.rport = 5201;
	r.len = 65160;
	memcpy(r.laddr, "\x0a\xc8\x01\x01", 4);
	memcpy(r.raddr, "\x0a\xc8\x01\x02", 4);
	r.mss = 1448;
	r.srtt_us = 593;
	r.cwnd = 10;
	r.ssthresh = 0x7fffffff;	/* TCP_INFINITE_SSTHRESH */
	r.snd_wnd = 65160;
	r.rcv_wnd = 64240;
	r.snd_una = 237856003;
	r.snd_nxt = 4294967295U;
	return r;
}

static void test_format_v4(void)
{
	struct magnet_record r = v4_record();
	char buf[MAGNET_TTPROBE_LINE_MAX];
	/* wall clock = 1795237814.910360 s */
	long long off = 1795237814910360000LL - 5000000123LL + 456;
	int n = magnet_format_ttprobe(buf, &r, 1, off);
	const char *want =
		"o,1795237814.910360,10.200.1.1,45416,10.200.1.2,5201,1,1448,593,"
		"14480,3109556320856,65160,64240,1,237856003,4294967295,65160\n";

	CHECK(n == (int)strlen(want), "length %d, want %zu", n, strlen(want));
	CHECK(!strcmp(buf, want), "got  %swant %s", buf, want);
}

static void test_format_v6_and_in(void)
{
	struct magnet_record r = v4_record();
	char buf[MAGNET_TTPROBE_LINE_MAX];
	static const unsigned char l6[16] = { 0xfd, 0, 0x02, 0, 0, 0, 0, 0,
					      0, 0, 0, 0, 0, 0, 0xab, 0x01 };
	static const unsigned char r6[16] = { 0, 0, 0, 0, 0, 0, 0, 0,
					      0, 0, 0, 0, 0, 0, 0, 1 };
	const char *want =
		"i,0.000001,FD00:0200:0000:0000:0000:0000:0000:AB01,5201,"
		"0000:0000:0000:0000:0000:0000:0000:0001,45416,42,1448,593,14480,"
		"3109556320856,65160,64240,10,237856003,4294967295,40\n";

	r.event = MAGNET_EV_TCP_IN;
	r.family = MAGNET_FAMILY_INET6;
	memcpy(r.laddr, l6, 16);
	memcpy(r.raddr, r6, 16);
	r.lport = 5201;
	r.rport = 45416;
	r.state = 10;
	r.len = 40;
	r.ts_ns = 1999;		/* 1.999 us: truncated, not rounded */
	magnet_format_ttprobe(buf, &r, 42, 0);
	CHECK(!strcmp(buf, want), "got  %swant %s", buf, want);
}

static void test_format_widths(void)
{
	struct magnet_record r = v4_record();
	char buf[MAGNET_TTPROBE_LINE_MAX];
	static const unsigned char ff[16] = {
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	int n, commas = 0, i;

	/* the longest line the format can produce still fits */
	r.family = MAGNET_FAMILY_INET6;
	memcpy(r.laddr, ff, 16);
	memcpy(r.raddr, ff, 16);
	r.ts_ns = ~0ULL;
	r.mss = r.srtt_us = r.cwnd = r.ssthresh = 0xffffffffU;
	r.snd_wnd = r.rcv_wnd = r.snd_una = r.snd_nxt = r.len = 0xffffffffU;
	r.state = 255;
	n = magnet_format_ttprobe(buf, &r, ~0ULL, 0);
	CHECK(n > 0 && n < MAGNET_TTPROBE_LINE_MAX, "longest line is %d bytes", n);
	CHECK(buf[n - 1] == '\n', "line does not end in a newline");
	for (i = 0; i < n; i++)
		commas += buf[i] == ',';
	CHECK(commas == 16, "%d commas, want 16", commas);
	/* cwnd and ssthresh in bytes need 64 bits */
	CHECK(strstr(buf, ",18446744065119617025,18446744065119617025,") != NULL,
	      "cwnd/ssthresh not 64-bit: %s", buf);

	r.event = 99;
	CHECK(magnet_format_ttprobe(buf, &r, 1, 0) == 0,
	      "non-TCP event formatted");
}

static void test_format_timestamp(void)
{
	struct magnet_record r = v4_record();
	char buf[MAGNET_TTPROBE_LINE_MAX];

	r.ts_ns = 999999999;
	magnet_format_ttprobe(buf, &r, 1, 0);
	CHECK(!strncmp(buf, "o,0.999999,", 11), "got %s", buf);
	r.ts_ns = 1000000000;
	magnet_format_ttprobe(buf, &r, 1, 0);
	CHECK(!strncmp(buf, "o,1.000000,", 11), "got %s", buf);
	/* a negative offset (monotonic clock ahead of realtime) */
	r.ts_ns = 3000000000ULL;
	magnet_format_ttprobe(buf, &r, 1, -1500000000LL);
	CHECK(!strncmp(buf, "o,1.500000,", 11), "got %s", buf);
}

/* field @n (1-based) of a ttprobe line, as a number */
static unsigned long long field(const char *line, int n)
{
	while (--n > 0 && line)
		line = strchr(line, ',') ? strchr(line, ',') + 1 : NULL;
	return line ? strtoull(line, NULL, 10) : ~0ULL;
}

/* compat=ttprobe: field 11 is tcp_current_ssthresh() * mss in 32 bits */
static void test_compat_ssthresh(void)
{
	static const struct {
		unsigned char ca_state;
		unsigned int cwnd, ssthresh, mss;
		unsigned long long f10, f11;
	} c[] = {
		/* Open, initial "infinite" ssthresh: 0x7fffffff * 1448 wraps */
		{ 0, 10, 0x7fffffff, 1448, 14480, 4294965848ULL },
		/* Open, ssthresh below 3/4 cwnd: (40 >> 1) + (40 >> 2) = 30 */
		{ 0, 40, 7, 1448, 57920, 30 * 1448 },
		/* Disorder and Loss follow the same rule as Open: 21 + 10 = 31 */
		{ 1, 42, 7, 1000, 42000, 31000 },
		{ 4, 42, 7, 1000, 42000, 31000 },
		/* ssthresh above 3/4 cwnd: ssthresh */
		{ 0, 40, 35, 1448, 57920, 35 * 1448 },
		/* CWR and Recovery: snd_ssthresh as it is, even below 3/4 cwnd */
		{ 2, 40, 7, 1448, 57920, 7 * 1448 },
		{ 3, 40, 7, 1448, 57920, 7 * 1448 },
		/* Recovery with the infinite ssthresh: the wrap again */
		{ 3, 10, 0x7fffffff, 1448, 14480, 4294965848ULL },
		/* cwnd in bytes wraps too: 3000000 * 65483 mod 2^32 */
		{ 2, 3000000, 5, 65483, (3000000ULL * 65483) & 0xffffffffULL,
		  5 * 65483 },
	};
	struct magnet_record r = v4_record();
	char buf[MAGNET_TTPROBE_LINE_MAX];
	size_t i;

	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		r.ca_state = c[i].ca_state;
		r.cwnd = c[i].cwnd;
		r.ssthresh = c[i].ssthresh;
		r.mss = c[i].mss;
		CHECK(magnet_format_ttprobe_compat(buf, &r, 0, 0) > 0,
		      "case %zu: no line", i);
		CHECK(field(buf, 10) == c[i].f10 && field(buf, 11) == c[i].f11,
		      "case %zu: fields 10, 11 = %llu, %llu, want %llu, %llu: %s",
		      i, field(buf, 10), field(buf, 11), c[i].f10, c[i].f11,
		      buf);
		/* magnet's own line keeps snd_ssthresh * mss in 64 bits */
		magnet_format_ttprobe(buf, &r, 1, 0);
		CHECK(field(buf, 11) == (unsigned long long)c[i].ssthresh * c[i].mss,
		      "case %zu: magnet's field 11 %llu", i, field(buf, 11));
	}
	/* the example: magnet 3109556320856, ttprobe 4294965848 */
	r = v4_record();
	magnet_format_ttprobe(buf, &r, 1, 0);
	CHECK(field(buf, 11) == 3109556320856ULL, "magnet: %s", buf);
}

/* field 7 across two opens: ttprobe from 0 since load, magnet per open */
static void test_compat_counter(void)
{
	struct magnet_record r = v4_record(), other = v4_record();
	struct magnet_ttcount load = { 0 };
	struct magnet_ttstream s;
	char buf[MAGNET_TTPROBE_LINE_MAX];
	unsigned long long want;
	int i;

	other.event = MAGNET_EV_IP_OUT;	/* no line: does not count */
	magnet_ttstream_open(&s, &load, 1);
	for (i = 0, want = 0; i < 3; i++, want++) {
		CHECK(magnet_ttstream_format(&s, buf, &r, 0) > 0 &&
		      field(buf, 7) == want, "ttprobe open 1, line %d: %s", i, buf);
		CHECK(magnet_ttstream_format(&s, buf, &other, 0) == 0,
		      "an IP event formatted");
	}
	magnet_ttstream_open(&s, &load, 1);	/* a second open */
	for (i = 0; i < 2; i++, want++)
		CHECK(magnet_ttstream_format(&s, buf, &r, 0) > 0 &&
		      field(buf, 7) == want,
		      "ttprobe open 2, line %d: %s (want %llu)", i, buf, want);
	CHECK(load.since_load == 5, "since_load %llu", load.since_load);

	/* magnet: 1, 2, ... per open; the module-wide count is untouched */
	magnet_ttstream_open(&s, &load, 0);
	for (i = 1; i <= 2; i++)
		CHECK(magnet_ttstream_format(&s, buf, &r, 0) > 0 &&
		      field(buf, 7) == (unsigned long long)i,
		      "magnet open 1, line %d: %s", i, buf);
	magnet_ttstream_open(&s, &load, 0);
	CHECK(magnet_ttstream_format(&s, buf, &r, 0) > 0 && field(buf, 7) == 1,
	      "magnet open 2 restarts at 1: %s", buf);
	CHECK(load.since_load == 5, "magnet opens changed since_load");
}

/* ttprobe's 96-byte record from a TCP record */
static void test_legacy_record(void)
{
	struct magnet_record r = v4_record();
	struct magnet_legacy_record l;
	const unsigned char *b = (const unsigned char *)&l;
	static const unsigned char zero[16];
	long long off = 1795237814910360000LL - 5000000123LL + 456;

	memset(&l, 0xa5, sizeof(l));
	CHECK(magnet_format_legacy(&l, &r, off) == 96, "not 96 bytes");
	CHECK(l.tv_sec == 1795237814 && l.tv_usec == 910360,
	      "timeval %lld.%lld", (long long)l.tv_sec, (long long)l.tv_usec);
	CHECK(!memcmp(b + 16, "\x0a\xc8\x01\x01", 4) && !memcmp(b + 20, zero, 12),
	      "source address");
	CHECK(!memcmp(b + 32, "\x0a\xc8\x01\x02", 4) && !memcmp(b + 36, zero, 12),
	      "destination address");
	/* 45416 = 0xb168, 5201 = 0x1451, network order */
	CHECK(b[48] == 0xb1 && b[49] == 0x68 && b[50] == 0x14 && b[51] == 0x51,
	      "ports %02x%02x %02x%02x", b[48], b[49], b[50], b[51]);
	CHECK(l.length == 65160 && l.snd_nxt == 4294967295U &&
	      l.snd_una == 237856003 && l.snd_wnd == 65160 &&
	      l.rcv_wnd == 64240 && l.snd_cwnd == 10 && l.srtt == 593 &&
	      l.mss_cache == 1448 && l.sock_state == 1, "u32 fields");
	CHECK(l.ssthresh == 0x7fffffff, "ssthresh %u", l.ssthresh);
	CHECK(b[89] == 'o' && b[90] == 2, "direction %u family %u", b[89], b[90]);
	CHECK(!memcmp(b + 54, zero, 2) && !memcmp(b + 91, zero, 5),
	      "padding not zeroed");

	r.ssthresh = 3;	/* Open: 3/4 of cwnd 10 = 5 + 2 = 7 packets */
	r.len = 70000;	/* saturates */
	r.event = MAGNET_EV_TCP_IN;
	magnet_format_legacy(&l, &r, off);
	CHECK(l.ssthresh == 7 && l.length == 65535 && b[89] == 'i',
	      "ssthresh %u length %u direction %u", l.ssthresh, l.length, b[89]);
	r.ca_state = MAGNET_CA_RECOVERY;
	magnet_format_legacy(&l, &r, off);
	CHECK(l.ssthresh == 3, "Recovery: ssthresh %u", l.ssthresh);

	r.family = MAGNET_FAMILY_INET6;
	memset(r.laddr, 0x11, 16);
	magnet_format_legacy(&l, &r, off);
	CHECK(b[90] == 10 && !memcmp(b + 16, r.laddr, 16), "IPv6");

	r.event = MAGNET_EV_APP_SEND;
	memset(&l, 0xa5, sizeof(l));
	CHECK(magnet_format_legacy(&l, &r, off) == 0 && b[0] == 0xa5,
	      "an application event made a record");
}

static int parse(const char *s, size_t len, enum magnet_cmd_op *op,
		 const char **err)
{
	struct magnet_cmd cmd = { 0 };
	int ret = magnet_cmd_parse(s, len, &cmd, err);

	*op = cmd.op;
	return ret;
}

static void test_cmd_accepted(void)
{
	static const struct {
		const char *text;
		enum magnet_cmd_op op;
	} ok[] = {
		{ "flush", MAGNET_CMD_FLUSH },
		{ "flush\n", MAGNET_CMD_FLUSH },
		{ "  flush \t\r\n", MAGNET_CMD_FLUSH },
		{ "finish", MAGNET_CMD_FINISH },
		{ "finish\n", MAGNET_CMD_FINISH },
	};
	size_t i;

	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		enum magnet_cmd_op op;
		const char *err = NULL;
		int ret = parse(ok[i].text, strlen(ok[i].text), &op, &err);

		CHECK(ret == 0 && op == ok[i].op, "%s: ret %d op %d err %s",
		      ok[i].text, ret, op, err ? err : "-");
	}
}

static void test_cmd_rejected(void)
{
	static const struct {
		const char *text;
		size_t len;
		const char *reason;
	} bad[] = {
		{ "bogus", 5, "unknown command" },
		{ "flushx", 6, "unknown command" },
		{ "FLUSH", 5, "unknown command" },
		{ "fl ush", 6, "unknown command" },
		{ "flush finish", 12, "unknown command" },
		{ "flus", 4, "unknown command" },
		{ "", 0, "empty command" },
		{ "\n", 1, "empty command" },
		{ " \t ", 3, "empty command" },
		{ "fl\0ush", 6, "NUL" },
		{ "flush\0", 6, "NUL" },
	};
	char longcmd[MAGNET_CMD_MAX_LEN + 2];
	enum magnet_cmd_op op;
	const char *err;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err = NULL;
		CHECK(parse(bad[i].text, bad[i].len, &op, &err) == -1 && err &&
		      strstr(err, bad[i].reason),
		      "'%s' (len %zu) not rejected with '%s' (err %s)",
		      bad[i].text, bad[i].len, bad[i].reason, err ? err : "-");
	}

	/* longest accepted length: padded with blanks; one more is refused */
	memset(longcmd, ' ', sizeof(longcmd));
	memcpy(longcmd, "flush", 5);
	CHECK(parse(longcmd, MAGNET_CMD_MAX_LEN, &op, &err) == 0 &&
	      op == MAGNET_CMD_FLUSH, "255-byte padded flush refused");
	err = NULL;
	CHECK(parse(longcmd, MAGNET_CMD_MAX_LEN + 1, &op, &err) == -1 && err &&
	      strstr(err, "too long"), "256-byte command not refused");
}

int main(void)
{
	test_format_v4();
	test_format_v6_and_in();
	test_format_widths();
	test_format_timestamp();
	test_compat_ssthresh();
	test_compat_counter();
	test_legacy_record();
	test_cmd_accepted();
	test_cmd_rejected();
	printf("unit: %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
