// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tests for the pure-C parts shared with the kernel module:
 * ttprobe line formatting (module/format.c) and command parsing
 * (module/cmd.c). Prints "N passed, N failed" and exits non-zero on failure.
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
	test_cmd_accepted();
	test_cmd_rejected();
	printf("unit: %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
