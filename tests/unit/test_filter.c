// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tests for the `filter` command (module/shared/filter.c): every term's
 * accepted forms and values, every kind of error (with the output left
 * untouched), address matching, formatting and the format -> parse round
 * trip, and a differential test of the address parser against inet_pton().
 * Closes with "test_filter: N passed, N failed"; exits non-zero on failure.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include "filter.h"
#include "cmd.h"
#include "record.h"

#include "check.h"

#define POISON 0xa5

/* parse a NUL-terminated line */
static int parse(const char *line, enum magnet_filter_op *op,
		 struct magnet_filter *f, const char **err)
{
	return magnet_filter_parse(line, strlen(line), op, f, err);
}

/* @line must parse as SET; returns the struct (poisoned first) */
static struct magnet_filter ok_set(const char *line, int lineno)
{
	struct magnet_filter f;
	enum magnet_filter_op op = 0;
	const char *err = NULL;
	int r;

	memset(&f, POISON, sizeof(f));
	r = parse(line, &op, &f, &err);
	CHECK(r == 0 && op == MAGNET_FILTER_SET, "line %d: \"%s\" -> %d op %d (%s)",
	      lineno, line, r, op, err ? err : "");
	if (r) {
		memset(&f, 0, sizeof(f));
		f.set = 0xdead;
	}
	return f;
}

/* a zeroed filter as the parser builds it */
static struct magnet_filter zero(void)
{
	struct magnet_filter f;

	memset(&f, 0, sizeof(f));
	return f;
}

/* @line (with explicit length) must fail, with a reason containing @want;
 * the struct and op must be untouched */
static void bad_n(const char *line, size_t len, const char *want, int lineno)
{
	struct magnet_filter f, ref;
	enum magnet_filter_op op = 77;
	const char *err = NULL;
	int r;

	memset(&f, POISON, sizeof(f));
	memset(&ref, POISON, sizeof(ref));
	r = magnet_filter_parse(line, len, &op, &f, &err);
	CHECK(r == -1, "line %d: \"%.*s\" accepted", lineno, (int)len, line);
	CHECK(err && *err && !strchr(err, '\n'),
	      "line %d: \"%.*s\": no one-line reason", lineno, (int)len, line);
	CHECK(err && strstr(err, want), "line %d: \"%.*s\": reason \"%s\" lacks \"%s\"",
	      lineno, (int)len, line, err ? err : "(null)", want);
	CHECK(!memcmp(&f, &ref, sizeof(f)) && op == 77,
	      "line %d: \"%.*s\": output modified on error", lineno, (int)len, line);
}

#define OK(line) ok_set(line, __LINE__)
#define BAD(line, want) bad_n(line, strlen(line), want, __LINE__)

static const __u8 *v6(const char *s)
{
	static __u8 a[16];

	if (inet_pton(AF_INET6, s, a) != 1) {
		printf("test bug: bad IPv6 literal %s\n", s);
		exit(2);
	}
	return a;
}

static const __u8 *v4(const char *s)
{
	static __u8 a[16];

	memset(a, 0, sizeof(a));
	if (inet_pton(AF_INET, s, a) != 1) {
		printf("test bug: bad IPv4 literal %s\n", s);
		exit(2);
	}
	return a;
}

/* ---- accepted forms ---- */

static void test_ports(void)
{
	struct magnet_filter f, w;

	f = OK("filter port=5201");
	w = zero();
	w.set = MAGNET_FT_PORT;
	w.port = 5201;
	CHECK(!memcmp(&f, &w, sizeof(f)), "port=5201: struct (padding and unset fields zero)");

	f = OK("filter sport=1");
	CHECK(f.set == MAGNET_FT_SPORT && f.sport == 1 && !f.port && !f.dport, "sport=1");
	f = OK("filter dport=65535");
	CHECK(f.set == MAGNET_FT_DPORT && f.dport == 65535, "dport=65535");
	f = OK("filter port=080");
	CHECK(f.port == 80, "port=080 is decimal 80, got %u", f.port);
	f = OK("filter port=0000065535");
	CHECK(f.port == 65535, "10-digit port with leading zeros");
	f = OK("filter port=1 sport=2 dport=3");
	CHECK(f.set == (MAGNET_FT_PORT | MAGNET_FT_SPORT | MAGNET_FT_DPORT) &&
	      f.port == 1 && f.sport == 2 && f.dport == 3, "port, sport, dport together");
}

static void check_addr(const char *line, __u8 fam, __u8 prefix, const __u8 *want,
		       int lineno)
{
	struct magnet_filter f = ok_set(line, lineno);
	__u8 w[16];

	memcpy(w, want, 16);
	CHECK(f.set == MAGNET_FT_ADDR && f.addr_family == fam && f.addr_prefix == prefix &&
	      !memcmp(f.addr, w, 16),
	      "line %d: %s -> family %u prefix %u", lineno, line, f.addr_family,
	      f.addr_prefix);
}

#define ADDR(line, fam, prefix, want) check_addr(line, fam, prefix, want, __LINE__)
#define I4 MAGNET_FAMILY_INET
#define I6 MAGNET_FAMILY_INET6

static void test_addr(void)
{
	ADDR("filter addr=10.1.2.3", I4, 32, v4("10.1.2.3"));
	ADDR("filter addr=10.1.2.3/8", I4, 8, v4("10.0.0.0"));
	ADDR("filter addr=10.1.2.3/32", I4, 32, v4("10.1.2.3"));
	ADDR("filter addr=10.1.2.3/0", I4, 0, v4("0.0.0.0"));
	ADDR("filter addr=0.0.0.0/0", I4, 0, v4("0.0.0.0"));
	ADDR("filter addr=255.255.255.255", I4, 32, v4("255.255.255.255"));
	ADDR("filter addr=192.168.1.255/31", I4, 31, v4("192.168.1.254"));
	ADDR("filter addr=172.31.255.255/12", I4, 12, v4("172.16.0.0"));
	ADDR("filter addr=10.200.1.2/08", I4, 8, v4("10.0.0.0"));
	ADDR("filter addr=1.2.3.4/0032", I4, 32, v4("1.2.3.4"));
	ADDR("filter addr=0.0.0.0", I4, 32, v4("0.0.0.0"));

	ADDR("filter addr=::", I6, 128, v6("::"));
	ADDR("filter addr=::1", I6, 128, v6("::1"));
	ADDR("filter addr=::/0", I6, 0, v6("::"));
	ADDR("filter addr=fd00:200::2/64", I6, 64, v6("fd00:200::"));
	ADDR("filter addr=fd00:200::2", I6, 128, v6("fd00:200::2"));
	ADDR("filter addr=2001:DB8::1", I6, 128, v6("2001:db8::1"));
	ADDR("filter addr=FE80::A:b:C", I6, 128, v6("fe80::a:b:c"));
	ADDR("filter addr=::ffff:10.0.0.1", I6, 128, v6("::ffff:10.0.0.1"));
	ADDR("filter addr=::ffff:10.0.0.1/104", I6, 104, v6("::ffff:10.0.0.0"));
	ADDR("filter addr=::1.2.3.4", I6, 128, v6("::1.2.3.4"));
	ADDR("filter addr=2001:0db8:0000:0000:0000:ff00:0042:8329", I6, 128,
	     v6("2001:db8::ff00:42:8329"));
	ADDR("filter addr=1:2:3:4:5:6:7:8", I6, 128, v6("1:2:3:4:5:6:7:8"));
	ADDR("filter addr=1:2:3:4:5:6:7::", I6, 128, v6("1:2:3:4:5:6:7:0"));
	ADDR("filter addr=::2:3:4:5:6:7:8", I6, 128, v6("0:2:3:4:5:6:7:8"));
	ADDR("filter addr=1::8", I6, 128, v6("1:0:0:0:0:0:0:8"));
	ADDR("filter addr=1::", I6, 128, v6("1::"));
	ADDR("filter addr=1:2:3:4:5:6:1.2.3.4", I6, 128, v6("1:2:3:4:5:6:102:304"));
	ADDR("filter addr=1::5:6:255.255.255.255", I6, 128, v6("1::5:6:ffff:ffff"));
	ADDR("filter addr=fe80::1/10", I6, 10, v6("fe80::"));
	ADDR("filter addr=febf:ffff::/9", I6, 9, v6("fe80::"));
	ADDR("filter addr=ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff/127", I6, 127,
	     v6("ffff:ffff:ffff:ffff:ffff:ffff:ffff:fffe"));
	ADDR("filter addr=ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff/1", I6, 1,
	     v6("8000::"));
	ADDR("filter addr=0:0:0:0:0:0:0:0/128", I6, 128, v6("::"));
	ADDR("filter addr=0000:0000:0000:0000:0000:0000:0000:0001", I6, 128, v6("::1"));
}

static void test_other_terms(void)
{
	struct magnet_filter f;

	f = OK("filter dir=i");
	CHECK(f.set == MAGNET_FT_DIR && f.dir == MAGNET_FDIR_IN, "dir=i");
	f = OK("filter dir=o");
	CHECK(f.dir == MAGNET_FDIR_OUT, "dir=o");
	f = OK("filter dir=io");
	CHECK(f.dir == (MAGNET_FDIR_IN | MAGNET_FDIR_OUT), "dir=io");
	f = OK("filter dir=oi");
	CHECK(f.dir == (MAGNET_FDIR_IN | MAGNET_FDIR_OUT), "dir=oi");

	f = OK("filter events=tcp");
	CHECK(f.set == MAGNET_FT_EVENTS && f.events == MAGNET_LAYER_TCP, "events=tcp");
	f = OK("filter events=app,tcp");
	CHECK(f.events == (MAGNET_LAYER_APP | MAGNET_LAYER_TCP), "events=app,tcp");
	f = OK("filter events=ip,dev");
	CHECK(f.events == (MAGNET_LAYER_IP | MAGNET_LAYER_DEV), "events=ip,dev");
	f = OK("filter events=all");
	CHECK(f.events == MAGNET_LAYER_ALL, "events=all");

	f = OK("filter full=0");
	CHECK(f.set == MAGNET_FT_FULL && f.full == 0, "full=0");
	f = OK("filter full=1");
	CHECK(f.full == 1, "full=1");

	f = OK("filter fwmark=0");
	CHECK(f.set == MAGNET_FT_FWMARK && f.fwmark == 0, "fwmark=0");
	f = OK("filter fwmark=16");
	CHECK(f.fwmark == 16, "fwmark=16");
	f = OK("filter fwmark=0x10");
	CHECK(f.fwmark == 16, "fwmark=0x10");
	f = OK("filter fwmark=0X1f");
	CHECK(f.fwmark == 31, "fwmark=0X1f");
	f = OK("filter fwmark=0xFFFFFFFF");
	CHECK(f.fwmark == 0xffffffffU, "fwmark=0xFFFFFFFF");
	f = OK("filter fwmark=0x00000001");
	CHECK(f.fwmark == 1, "fwmark=0x00000001 (8 hex digits)");
	f = OK("filter fwmark=4294967295");
	CHECK(f.fwmark == 0xffffffffU, "fwmark=4294967295");
	f = OK("filter fwmark=010");
	CHECK(f.fwmark == 10, "fwmark=010 is decimal 10");

	f = OK("filter netns=4026531840");
	CHECK(f.set == MAGNET_FT_NETNS && f.netns == 4026531840U, "netns=4026531840");
	f = OK("filter netns=1");
	CHECK(f.netns == 1, "netns=1");
	f = OK("filter netns=4294967295");
	CHECK(f.netns == 4294967295U, "netns max");

	f = OK("filter comm=iperf3");
	CHECK(f.set == MAGNET_FT_COMM && !strcmp(f.comm, "iperf3") &&
	      !memcmp(f.comm + 6, "\0\0\0\0\0\0\0\0\0\0", 10), "comm=iperf3, zero padded");
	f = OK("filter comm=123456789012345");
	CHECK(!strcmp(f.comm, "123456789012345") && f.comm[15] == 0, "15-byte comm");
	f = OK("filter comm=a.b-c_d:e/f!~[]");
	CHECK(!strcmp(f.comm, "a.b-c_d:e/f!~[]"), "comm punctuation");
	f = OK("filter comm=kworker/0:1");
	CHECK(!strcmp(f.comm, "kworker/0:1"), "comm=kworker/0:1");
	f = OK("filter comm=x");
	CHECK(!strcmp(f.comm, "x"), "1-byte comm");

	f = OK("filter pid=1");
	CHECK(f.set == MAGNET_FT_PID && f.pid == 1, "pid=1");
	f = OK("filter pid=4194304");
	CHECK(f.pid == 4194304, "pid max");
	f = OK("filter pid=42");
	CHECK(f.pid == 42, "pid=42");
}

static void test_line_forms(void)
{
	struct magnet_filter f, g;
	enum magnet_filter_op op = 0;
	const char *err = NULL;
	char line[300];
	size_t n;

	f = OK("filter port=5201 addr=10.0.0.0/8 dir=o events=app,tcp full=0 "
	       "fwmark=0x10 netns=4026531840 comm=iperf3 pid=42 sport=1 dport=2");
	CHECK(f.set == 0x7ff, "all 11 terms: set 0x%x", f.set);
	CHECK(f.port == 5201 && f.sport == 1 && f.dport == 2 && f.dir == MAGNET_FDIR_OUT &&
	      f.events == 3 && f.full == 0 && f.fwmark == 16 && f.netns == 4026531840U &&
	      !strcmp(f.comm, "iperf3") && f.pid == 42 && f.addr_family == I4 &&
	      f.addr_prefix == 8 && !memcmp(f.addr, v4("10.0.0.0"), 16),
	      "all 11 terms: values");

	g = OK("filter  port=1");
	f = OK("filter port=1");
	CHECK(!memcmp(&f, &g, sizeof(f)), "two spaces after filter");
	g = OK("filter\tport=1");
	CHECK(!memcmp(&f, &g, sizeof(f)), "tab after filter");
	g = OK("  \t filter port=1 \t \r\n");
	CHECK(!memcmp(&f, &g, sizeof(f)), "surrounding blanks and CRLF");
	g = OK("filter port=1\n");
	CHECK(!memcmp(&f, &g, sizeof(f)), "trailing newline");
	f = OK("filter port=1 \t  pid=7");
	CHECK(f.port == 1 && f.pid == 7, "blanks and tabs between terms");
	f = OK("filter pid=7 port=1");
	g = OK("filter port=1 pid=7");
	CHECK(!memcmp(&f, &g, sizeof(f)), "term order does not matter");

	/* filter clear */
	memset(&f, POISON, sizeof(f));
	memset(&g, POISON, sizeof(g));
	CHECK(parse("filter clear", &op, &f, &err) == 0 && op == MAGNET_FILTER_CLEAR,
	      "filter clear");
	CHECK(!memcmp(&f, &g, sizeof(f)), "filter clear leaves the struct alone");
	op = 0;
	CHECK(parse(" filter\t clear \n", &op, &f, &err) == 0 && op == MAGNET_FILTER_CLEAR,
	      "filter clear with blanks");

	/* exactly 255 bytes: accepted */
	n = (size_t)snprintf(line, sizeof(line), "filter port=1");
	while (n < 255 - strlen(" pid=9"))
		line[n++] = ' ';
	memcpy(line + n, " pid=9", 6);
	n += 6;
	op = 0;
	memset(&f, 0, sizeof(f));
	CHECK(n == 255 && magnet_filter_parse(line, n, &op, &f, &err) == 0 &&
	      f.port == 1 && f.pid == 9, "255-byte line accepted");

	/* not NUL-terminated: only len bytes are read (ASan catches more) */
	{
		char *p = malloc(13);

		memcpy(p, "filter port=1", 13);
		op = 0;
		CHECK(magnet_filter_parse(p, 13, &op, &f, &err) == 0 && f.port == 1,
		      "unterminated buffer");
		CHECK(magnet_filter_parse(p, 12, &op, &f, &err) == -1,
		      "len cuts the value: \"filter port=\" is an error");
		free(p);
	}
}

/* ---- errors ---- */

static void test_errors(void)
{
	char line[400];

	/* the command word */
	BAD("", "filter");
	BAD("   \n", "filter");
	BAD("filter", "at least one term");
	BAD("filter   \t\n", "at least one term");
	BAD("filterx port=1", "filter");
	BAD("Filter port=1", "filter");
	BAD("filter=1", "filter");
	BAD("flush", "filter");
	BAD("xfilter port=1", "filter");
	BAD("filter clear junk", "clear");
	BAD("filter clear clear", "clear");
	BAD("filter clear port=1", "clear");
	BAD("filter port=1 clear", "clear");
	BAD("filter clear=1", "unknown term");
	BAD("filter foo=1", "unknown term");
	BAD("filter foo", "unknown term");
	BAD("filter =1", "unknown term");
	BAD("filter PORT=1", "unknown term");
	BAD("filter port:1", "unknown term");
	BAD("filter port=1,sport=2", "port");
	BAD("filter port=1\nsport=2", "control");
	BAD("filter port=1\rpid=2", "control");
	BAD("filter\rport=1", "control");
	BAD("filter\nclear", "control");
	BAD("filter \nport=1", "control");
	BAD("filter comm=a\x01" "b", "control");
	BAD("filter comm=caf\xc3\xa9", "non-ASCII");
	BAD("filter comm=a\x7f", "non-ASCII");
	bad_n("filter port=1\0", 14, "NUL", __LINE__);
	bad_n("filter po\0rt=1", 14, "NUL", __LINE__);
	bad_n("\0filter port=1", 14, "NUL", __LINE__);
	memset(line, ' ', sizeof(line));
	memcpy(line, "filter port=1", 13);
	bad_n(line, 256, "too long", __LINE__);
	memcpy(line + 250, "pid=1", 5);
	bad_n(line, 256, "too long", __LINE__);
	bad_n(line, 400, "too long", __LINE__);

	/* port, sport, dport */
	BAD("filter port", "port");
	BAD("filter port=", "port: empty");
	BAD("filter port= 1", "port: empty");
	BAD("filter port=0", "port: out of range");
	BAD("filter port=65536", "port: out of range");
	BAD("filter port=4294967296", "port: out of range");
	BAD("filter port=99999999999", "port: out of range");
	BAD("filter port=00000000080", "port: out of range");
	BAD("filter port=-1", "port: not a decimal");
	BAD("filter port=+1", "port: not a decimal");
	BAD("filter port=1a", "port: not a decimal");
	BAD("filter port=0x50", "port: not a decimal");
	BAD("filter port=1.0", "port: not a decimal");
	BAD("filter port=1 port=2", "duplicate term port");
	BAD("filter port=1 port=1", "duplicate term port");
	BAD("filter sport=0", "sport: out of range");
	BAD("filter sport=x", "sport: not a decimal");
	BAD("filter sport=", "sport");
	BAD("filter sport=1 sport=1", "duplicate term sport");
	BAD("filter dport=70000", "dport: out of range");
	BAD("filter dport=abc", "dport: not a decimal");
	BAD("filter dport", "dport");
	BAD("filter dport=1 port=2 dport=3", "duplicate term dport");

	/* addr */
	BAD("filter addr=", "addr: empty");
	BAD("filter addr", "addr");
	BAD("filter addr=host", "addr");
	BAD("filter addr=10", "addr");
	BAD("filter addr=10.0.0", "addr: bad IPv4");
	BAD("filter addr=10.0.0.0.0", "addr: bad IPv4");
	BAD("filter addr=256.1.1.1", "addr: bad IPv4");
	BAD("filter addr=1.2.3.999", "addr: bad IPv4");
	BAD("filter addr=1.2.3.4444", "addr: bad IPv4");
	BAD("filter addr=01.2.3.4", "addr: bad IPv4");
	BAD("filter addr=1.2.3.00", "addr: bad IPv4");
	BAD("filter addr=1..2.3", "addr: bad IPv4");
	BAD("filter addr=.1.2.3.4", "addr: bad IPv4");
	BAD("filter addr=1.2.3.4.", "addr: bad IPv4");
	BAD("filter addr=+1.2.3.4", "addr: bad IPv4");
	BAD("filter addr=1.2.3.-4", "addr: bad IPv4");
	BAD("filter addr=0x1.2.3.4", "addr: bad IPv4");
	BAD("filter addr=1.2.3.4/33", "addr: prefix length out of range 0..32");
	BAD("filter addr=1.2.3.4/128", "addr: prefix length out of range 0..32");
	BAD("filter addr=1.2.3.4/", "addr: bad prefix");
	BAD("filter addr=1.2.3.4/-1", "addr: bad prefix");
	BAD("filter addr=1.2.3.4/a", "addr: bad prefix");
	BAD("filter addr=1.2.3.4/8/8", "addr: bad prefix");
	BAD("filter addr=1.2.3.4/99999999999", "addr: prefix length out of range");
	BAD("filter addr=/8", "addr: missing address");
	BAD("filter addr=1::2::3", "addr: bad IPv6");
	BAD("filter addr=::1::", "addr: bad IPv6");
	BAD("filter addr=1:2:3:4:5:6:7:8:9", "addr: bad IPv6");
	BAD("filter addr=1:2:3:4:5:6:7:8::", "addr: bad IPv6");
	BAD("filter addr=::1:2:3:4:5:6:7:8", "addr: bad IPv6");
	BAD("filter addr=1:2:3:4:5:6:7", "addr: bad IPv6");
	BAD("filter addr=12345::1", "addr: bad IPv6");
	BAD("filter addr=1:00000::1", "addr: bad IPv6");
	BAD("filter addr=:::", "addr: bad IPv6");
	BAD("filter addr=:", "addr: bad IPv6");
	BAD("filter addr=:1::", "addr: bad IPv6");
	BAD("filter addr=1:", "addr: bad IPv6");
	BAD("filter addr=1::2:", "addr: bad IPv6");
	BAD("filter addr=g::1", "addr: bad IPv6");
	BAD("filter addr=1:2:3:4:5:6:7:8/129", "addr: prefix length out of range 0..128");
	BAD("filter addr=::/129", "addr: prefix length out of range 0..128");
	BAD("filter addr=::/", "addr: bad prefix");
	BAD("filter addr=::1/64/1", "addr: bad prefix");
	BAD("filter addr=::ffff:1.2.3.256", "addr: bad IPv6");
	BAD("filter addr=::ffff:1.2.3", "addr: bad IPv6");
	BAD("filter addr=::ffff:01.2.3.4", "addr: bad IPv6");
	BAD("filter addr=::1.2.3.4:5", "addr: bad IPv6");
	BAD("filter addr=1:2:3:4:5:6:7:1.2.3.4", "addr: bad IPv6");
	BAD("filter addr=1:2:3:4:5:6:7:8:1.2.3.4", "addr: bad IPv6");
	BAD("filter addr=1.2.3.4::", "addr: bad IPv6");
	BAD("filter addr=::ffff:a.2.3.4", "addr: bad IPv6");
	BAD("filter addr=[::1]", "addr: bad IPv6");
	BAD("filter addr=fe80::1%eth0", "addr: bad IPv6");
	BAD("filter addr=1.2.3.4 addr=1.2.3.4", "duplicate term addr");
	BAD("filter addr=::1 port=1 addr=1.2.3.4", "duplicate term addr");

	/* dir */
	BAD("filter dir=", "dir: empty");
	BAD("filter dir", "dir");
	BAD("filter dir=x", "dir: expected");
	BAD("filter dir=ioo", "dir: expected");
	BAD("filter dir=I", "dir: expected");
	BAD("filter dir=ii", "dir: expected");
	BAD("filter dir=both", "dir: expected");
	BAD("filter dir=i dir=o", "duplicate term dir");

	/* events */
	BAD("filter events=", "events: empty");
	BAD("filter events=tcp,", "events: unknown layer");
	BAD("filter events=,tcp", "events: unknown layer");
	BAD("filter events=tcp,,ip", "events: unknown layer");
	BAD("filter events=foo", "events: unknown layer");
	BAD("filter events=TCP", "events: unknown layer");
	BAD("filter events=drops", "events: unknown layer");
	BAD("filter events=tcp events=ip", "duplicate term events");

	/* full */
	BAD("filter full=2", "full: expected 0 or 1");
	BAD("filter full=01", "full: expected 0 or 1");
	BAD("filter full=true", "full: expected 0 or 1");
	BAD("filter full=", "full: empty");
	BAD("filter full=1 full=1", "duplicate term full");

	/* fwmark */
	BAD("filter fwmark=", "fwmark: empty");
	BAD("filter fwmark=0x", "fwmark: not a");
	BAD("filter fwmark=0xg", "fwmark: not a");
	BAD("filter fwmark=-1", "fwmark: not a");
	BAD("filter fwmark=1x", "fwmark: not a");
	BAD("filter fwmark=x1", "fwmark: not a");
	BAD("filter fwmark=0x0x1", "fwmark: not a");
	BAD("filter fwmark=0x100000000", "fwmark: out of range");
	BAD("filter fwmark=0x000000001", "fwmark: out of range");
	BAD("filter fwmark=4294967296", "fwmark: out of range");
	BAD("filter fwmark=00000000000", "fwmark: out of range");
	BAD("filter fwmark=1 fwmark=0x1", "duplicate term fwmark");

	/* netns */
	BAD("filter netns=0", "netns: out of range");
	BAD("filter netns=4294967296", "netns: out of range");
	BAD("filter netns=12345678901", "netns: out of range");
	BAD("filter netns=0x10", "netns: not a decimal");
	BAD("filter netns=net:[4026531840]", "netns: not a decimal");
	BAD("filter netns=", "netns: empty");
	BAD("filter netns=1 netns=2", "duplicate term netns");

	/* comm */
	BAD("filter comm=", "comm: empty");
	BAD("filter comm", "comm");
	BAD("filter comm=1234567890123456", "comm: longer than 15");
	BAD("filter comm=a=b", "comm: '='");
	BAD("filter comm==", "comm: '='");
	BAD("filter comm=a comm=b", "duplicate term comm");

	/* pid */
	BAD("filter pid=0", "pid: out of range");
	BAD("filter pid=4194305", "pid: out of range");
	BAD("filter pid=1.5", "pid: not a decimal");
	BAD("filter pid=", "pid: empty");
	BAD("filter pid=1 pid=1", "duplicate term pid");

	/* an error after valid terms still leaves the output alone */
	BAD("filter port=1 addr=10.0.0.0/8 dir=o comm=x pid=99999999", "pid: out of range");
}

/* ---- matching ---- */

static struct magnet_filter filt(const char *line, int lineno)
{
	return ok_set(line, lineno);
}

#define FILT(line) filt(line, __LINE__)
#define M(f, fam, a) magnet_filter_addr_match(&(f), fam, a)

static void test_match(void)
{
	struct magnet_filter f;
	__u8 zero16[16] = { 0 };

	f = FILT("filter port=1");
	CHECK(M(f, I4, v4("1.2.3.4")) == 1 && M(f, I6, v6("::1")) == 1,
	      "no addr term: everything matches");

	f = FILT("filter addr=10.1.2.3");
	CHECK(M(f, I4, v4("10.1.2.3")) == 1, "v4 /32 exact");
	CHECK(M(f, I4, v4("10.1.2.2")) == 0, "v4 /32 last bit differs");
	CHECK(M(f, I4, v4("138.1.2.3")) == 0, "v4 /32 first bit differs");
	CHECK(M(f, I6, v6("::a01:203")) == 0, "v4 filter, v6 family: no match");
	CHECK(M(f, 0, v4("10.1.2.3")) == 0, "family 0: no match");
	CHECK(M(f, I6, v6("::ffff:10.1.2.3")) == 1, "v4 filter matches v4-mapped v6");
	CHECK(M(f, I6, v6("::ffff:10.1.2.4")) == 0, "v4 filter, other v4-mapped");

	f = FILT("filter addr=10.9.9.9/8");
	CHECK(M(f, I4, v4("10.0.0.0")) && M(f, I4, v4("10.255.255.255")), "v4 /8 inside");
	CHECK(!M(f, I4, v4("11.0.0.0")) && !M(f, I4, v4("9.255.255.255")), "v4 /8 outside");

	f = FILT("filter addr=192.168.1.255/31");
	CHECK(M(f, I4, v4("192.168.1.254")) && M(f, I4, v4("192.168.1.255")), "v4 /31 both");
	CHECK(!M(f, I4, v4("192.168.1.253")) && !M(f, I4, v4("192.168.0.255")),
	      "v4 /31 outside");

	f = FILT("filter addr=0.0.0.0/0");
	CHECK(M(f, I4, v4("0.0.0.0")) && M(f, I4, v4("255.255.255.255")) &&
	      M(f, I4, v4("10.1.2.3")), "v4 /0 matches all IPv4");
	CHECK(!M(f, I6, v6("::")) && !M(f, I6, v6("2001:db8::1")), "v4 /0 not IPv6");
	CHECK(!M(f, 0, zero16), "v4 /0: family 0");

	f = FILT("filter addr=fd00:200::2/64");
	CHECK(M(f, I6, v6("fd00:200::2")) && M(f, I6, v6("fd00:200::ffff:ffff:ffff:ffff")),
	      "v6 /64 inside");
	CHECK(!M(f, I6, v6("fd00:200:0:1::2")) && !M(f, I6, v6("fd00:201::2")),
	      "v6 /64 outside");
	CHECK(!M(f, I4, v4("253.0.2.0")), "v6 filter, v4 family");

	f = FILT("filter addr=2001:db8::ff/127");
	CHECK(M(f, I6, v6("2001:db8::fe")) && M(f, I6, v6("2001:db8::ff")), "v6 /127 both");
	CHECK(!M(f, I6, v6("2001:db8::fd")) && !M(f, I6, v6("2001:db8::1fe")),
	      "v6 /127 outside");

	f = FILT("filter addr=2001:db8::1");
	CHECK(M(f, I6, v6("2001:db8::1")), "v6 /128 exact");
	CHECK(!M(f, I6, v6("2001:db8::")) && !M(f, I6, v6("2001:db8::3")) &&
	      !M(f, I6, v6("3001:db8::1")), "v6 /128 other");
	CHECK(!M(f, I4, v4("32.1.13.184")), "v6 /128 vs v4 with the same first bytes");

	f = FILT("filter addr=::/0");
	CHECK(M(f, I6, v6("::")) && M(f, I6, v6("ffff::ffff")) && M(f, I6, v6("::ffff:1.2.3.4")),
	      "v6 /0 matches all IPv6");
	CHECK(!M(f, I4, v4("1.2.3.4")), "v6 /0 does not match IPv4");

	f = FILT("filter addr=fe80::/8");
	CHECK(M(f, I6, v6("fe00::")) && M(f, I6, v6("feff::1")) && !M(f, I6, v6("ff00::")),
	      "v6 /8");

	/* v4-mapped filters also match IPv4 records */
	f = FILT("filter addr=::ffff:10.0.0.1");
	CHECK(M(f, I4, v4("10.0.0.1")) && !M(f, I4, v4("10.0.0.2")), "mapped /128 vs IPv4");
	CHECK(M(f, I6, v6("::ffff:10.0.0.1")), "mapped /128 vs mapped");
	f = FILT("filter addr=::ffff:10.0.0.0/104");
	CHECK(M(f, I4, v4("10.1.2.3")) && !M(f, I4, v4("11.1.2.3")), "mapped /104 vs IPv4");
	f = FILT("filter addr=::ffff:0:0/96");
	CHECK(M(f, I4, v4("1.2.3.4")) && M(f, I4, v4("255.0.0.0")), "mapped /96: all IPv4");
	CHECK(!M(f, I6, v6("::1")), "mapped /96 vs ::1");
	f = FILT("filter addr=::ffff:0:0/95");
	CHECK(!M(f, I4, v4("1.2.3.4")), "prefix < 96: no IPv4 match");
	f = FILT("filter addr=::10.0.0.1");
	CHECK(!M(f, I4, v4("10.0.0.1")), "v4-compatible (not mapped) does not match IPv4");
}

/* ---- formatting and round trip ---- */

static void check_format(const char *line, const char *want, int lineno)
{
	struct magnet_filter f = ok_set(line, lineno);
	char buf[MAGNET_FILTER_TEXT_MAX];
	int n = magnet_filter_format(buf, sizeof(buf), &f);

	CHECK(n == (int)strlen(want) && !strcmp(buf, want), "line %d: format of %s: \"%s\" (%d), want \"%s\"",
	      lineno, line, buf, n, want);
}

#define FMT(line, want) check_format(line, want, __LINE__)

static int round_trip(const struct magnet_filter *f, char *text, size_t size)
{
	struct magnet_filter g;
	enum magnet_filter_op op = 0;
	const char *err = NULL;
	char line[MAGNET_FILTER_TEXT_MAX + 8];
	int n = magnet_filter_format(text, size, f);

	if (n < 0 || (size_t)n >= size)
		return -1;
	snprintf(line, sizeof(line), "filter %s", text);
	memset(&g, POISON, sizeof(g));
	if (magnet_filter_parse(line, strlen(line), &op, &g, &err)) {
		printf("  re-parse of \"%s\": %s\n", line, err);
		return -1;
	}
	return op == MAGNET_FILTER_SET && !memcmp(f, &g, sizeof(g)) ? 0 : -1;
}

static void test_format(void)
{
	static const char *lines[] = {
		"filter port=5201",
		"filter sport=1 dport=65535",
		"filter addr=10.1.2.3/8",
		"filter addr=0.0.0.0/0",
		"filter addr=255.255.255.255",
		"filter addr=::",
		"filter addr=::/0",
		"filter addr=::1",
		"filter addr=fd00:200::2/64",
		"filter addr=2001:DB8::1",
		"filter addr=::ffff:10.0.0.1",
		"filter addr=::ffff:10.0.0.1/100",
		"filter addr=::1.2.3.4",
		"filter addr=2001:0db8:0000:0000:0000:ff00:0042:8329",
		"filter addr=1:0:0:2:0:0:0:3",
		"filter addr=1:0:2:3:4:5:6:7",
		"filter addr=ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff/127",
		"filter dir=i", "filter dir=o", "filter dir=oi",
		"filter events=all", "filter events=dev,app",
		"filter full=0", "filter full=1",
		"filter fwmark=0", "filter fwmark=4294967295", "filter fwmark=0xabc",
		"filter netns=4026531840",
		"filter comm=iperf3", "filter comm=123456789012345", "filter comm=a/b:c!",
		"filter pid=4194304",
		"filter port=5201 addr=10.0.0.0/8 dir=o events=app,tcp full=0 fwmark=0x10 "
		"netns=4026531840 comm=iperf3 pid=42",
		"filter pid=1 comm=z netns=1 fwmark=1 full=1 events=ip dir=io "
		"addr=ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff dport=65535 sport=65535 port=65535",
	};
	struct magnet_filter f;
	char buf[MAGNET_FILTER_TEXT_MAX], small[8];
	size_t i;
	int n;

	FMT("filter port=5201 addr=10.0.0.0/8 dir=o events=app,tcp full=0 fwmark=0x10 "
	    "netns=4026531840 comm=iperf3 pid=42",
	    "port=5201 addr=10.0.0.0/8 dir=o events=app,tcp full=0 fwmark=0x10 "
	    "netns=4026531840 comm=iperf3 pid=42");
	FMT("filter pid=42 port=1", "port=1 pid=42");
	FMT("filter sport=080 dport=00443", "sport=80 dport=443");
	FMT("filter addr=10.1.2.3/8", "addr=10.0.0.0/8");
	FMT("filter addr=10.1.2.3", "addr=10.1.2.3");
	FMT("filter addr=10.1.2.3/32", "addr=10.1.2.3");
	FMT("filter addr=::", "addr=::");
	FMT("filter addr=::/0", "addr=::/0");
	FMT("filter addr=::1", "addr=::1");
	FMT("filter addr=1::", "addr=1::");
	FMT("filter addr=2001:DB8::1", "addr=2001:db8::1");
	FMT("filter addr=fd00:200::2/64", "addr=fd00:200::/64");
	FMT("filter addr=2001:0db8:0000:0000:0000:ff00:0042:8329",
	    "addr=2001:db8::ff00:42:8329");
	FMT("filter addr=1:0:0:2:0:0:0:3", "addr=1:0:0:2::3");
	FMT("filter addr=1:0:0:2:3:0:0:4", "addr=1::2:3:0:0:4");
	FMT("filter addr=1:0:2:3:4:5:6:7", "addr=1:0:2:3:4:5:6:7");
	FMT("filter addr=1:2:3:4:5:6:7:0", "addr=1:2:3:4:5:6:7:0");
	FMT("filter addr=0:2:3:4:5:6:7:8", "addr=0:2:3:4:5:6:7:8");
	FMT("filter addr=0:0:3:4:5:6:7:8", "addr=::3:4:5:6:7:8");
	FMT("filter addr=::ffff:10.0.0.1", "addr=::ffff:10.0.0.1");
	FMT("filter addr=::ffff:10.1.2.3/104", "addr=::ffff:10.0.0.0/104");
	FMT("filter addr=::1.2.3.4", "addr=::102:304");
	FMT("filter dir=oi", "dir=io");
	FMT("filter events=all", "events=app,tcp,ip,dev");
	FMT("filter events=dev,app,dev", "events=app,dev");
	FMT("filter events=drop,tcp", "events=tcp,drop");
	FMT("filter events=all,drop", "events=app,tcp,ip,dev,drop");
	FMT("filter fwmark=16", "fwmark=0x10");
	FMT("filter fwmark=0", "fwmark=0x0");
	FMT("filter fwmark=0XABCDEF01", "fwmark=0xabcdef01");
	FMT("filter netns=00001", "netns=1");

	/* empty set */
	memset(&f, 0, sizeof(f));
	memset(buf, 'x', sizeof(buf));
	CHECK(magnet_filter_format(buf, sizeof(buf), &f) == 0 && buf[0] == 0, "empty set: \"\"");

	/* round trips of the list */
	for (i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		f = ok_set(lines[i], __LINE__);
		CHECK(round_trip(&f, buf, sizeof(buf)) == 0, "round trip of %s (text %s)",
		      lines[i], buf);
	}

	/* a small buffer: cut, NUL-terminated, full length returned */
	f = OK("filter port=5201 addr=2001:db8::1/64 comm=iperf3");
	n = magnet_filter_format(buf, sizeof(buf), &f);
	for (i = 0; i <= sizeof(small); i++) {
		char *p = malloc(i ? i : 1);
		int m = magnet_filter_format(p, i, &f);

		CHECK(m == n && (!i || (strlen(p) == i - 1 && !memcmp(p, buf, i - 1))),
		      "format into %zu bytes: %d", i, m);
		free(p);
	}
	CHECK(magnet_filter_format(NULL, 0, &f) == n, "format (NULL, 0) gives the length");
}

/* deterministic PRNG (xorshift64*) */
static unsigned long long rng_state = 0x9e3779b97f4a7c15ULL;

static unsigned int rnd(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return (unsigned int)((rng_state * 2685821657736338717ULL) >> 32);
}

/* a random filter as the parser would build it */
static void random_filter(struct magnet_filter *f)
{
	static const char comm_chars[] =
		"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!\"#$%&'()*+,-./:;<>?@[\\]^_`{|}~";
	unsigned int i, n;

	memset(f, 0, sizeof(*f));
	f->set = rnd() & 0x7ff;
	if (!f->set)
		f->set = MAGNET_FT_PORT;
	if (f->set & MAGNET_FT_PORT)
		f->port = (__u16)(rnd() % 65535 + 1);
	if (f->set & MAGNET_FT_SPORT)
		f->sport = (__u16)(rnd() % 65535 + 1);
	if (f->set & MAGNET_FT_DPORT)
		f->dport = (__u16)(rnd() % 65535 + 1);
	if (f->set & MAGNET_FT_ADDR) {
		unsigned int bytes, k;

		f->addr_family = rnd() & 1 ? I4 : I6;
		bytes = f->addr_family == I4 ? 4 : 16;
		f->addr_prefix = (__u8)(rnd() % (bytes * 8 + 1));
		for (k = 0; k < bytes; k++) {
			/* many zero groups, to exercise "::" */
			f->addr[k] = rnd() % 3 ? 0 : (__u8)rnd();
		}
		if (bytes == 16 && rnd() % 4 == 0) {
			memset(f->addr, 0, 10);
			f->addr[10] = f->addr[11] = 0xff;
		}
		for (k = 0; k < bytes; k++) {
			unsigned int lo = k * 8, p = f->addr_prefix;

			if (lo >= p)
				f->addr[k] = 0;
			else if (lo + 8 > p)
				f->addr[k] &= (__u8)(0xff << (8 - (p - lo)));
		}
	}
	if (f->set & MAGNET_FT_DIR)
		f->dir = (__u8)(rnd() % 3 + 1);
	if (f->set & MAGNET_FT_EVENTS)
		f->events = rnd() % 15 + 1;
	if (f->set & MAGNET_FT_FULL)
		f->full = rnd() & 1;
	if (f->set & MAGNET_FT_FWMARK)
		f->fwmark = rnd() % 4 ? rnd() : rnd() % 3;
	if (f->set & MAGNET_FT_NETNS)
		f->netns = rnd() | 1;
	if (f->set & MAGNET_FT_COMM) {
		n = rnd() % 15 + 1;
		for (i = 0; i < n; i++)
			f->comm[i] = comm_chars[rnd() % (sizeof(comm_chars) - 1)];
	}
	if (f->set & MAGNET_FT_PID)
		f->pid = rnd() % 4194304 + 1;
}

static void test_random_round_trip(void)
{
	struct magnet_filter f;
	char buf[MAGNET_FILTER_TEXT_MAX];
	int i, bad = 0, longest = 0;

	for (i = 0; i < 200000; i++) {
		int n;

		random_filter(&f);
		n = magnet_filter_format(buf, sizeof(buf), &f);
		if (n > longest)
			longest = n;
		if (round_trip(&f, buf, sizeof(buf))) {
			if (bad++ < 5)
				printf("  round trip failed: %s\n", buf);
		}
	}
	CHECK(!bad, "random round trip: %d of 200000 failed", bad);
	CHECK(longest + 8 < MAGNET_CMD_MAX_LEN, "longest formatted filter %d bytes", longest);
}

/* ---- differential: the address parser against inet_pton ---- */

static int our_addr(const char *s, __u8 *fam, __u8 a[16])
{
	struct magnet_filter f;
	enum magnet_filter_op op;
	const char *err;
	char line[128];

	snprintf(line, sizeof(line), "filter addr=%s", s);
	if (magnet_filter_parse(line, strlen(line), &op, &f, &err))
		return -1;
	*fam = f.addr_family;
	memcpy(a, f.addr, 16);
	return 0;
}

static void test_inet_pton(void)
{
	static const char *alpha[] = {
		"0", "1", "9", "a", "F", "ffff", "0000", "12345", ":", ":", "::", ".",
		"1.2.3.4", "255", "256", "01", "g", "10", "::ffff:",
	};
	int i, diff = 0, v4ok = 0, v6ok = 0;

	for (i = 0; i < 400000; i++) {
		char s[64];
		unsigned int parts = rnd() % 12 + 1, k;
		size_t n = 0;
		__u8 want[16], got[16], fam = 0;
		int r6, r4, ours;

		s[0] = 0;
		for (k = 0; k < parts; k++) {
			const char *p = alpha[rnd() % (sizeof(alpha) / sizeof(alpha[0]))];

			if (n + strlen(p) + 1 > sizeof(s))
				break;
			memcpy(s + n, p, strlen(p) + 1);
			n += strlen(p);
		}
		if (!n)
			continue;
		memset(want, 0, sizeof(want));
		r6 = inet_pton(AF_INET6, s, want) == 1;
		r4 = !r6 && inet_pton(AF_INET, s, want) == 1;
		ours = our_addr(s, &fam, got) == 0;
		v4ok += r4;
		v6ok += r6;
		if (ours != (r4 || r6) ||
		    (ours && (fam != (r4 ? I4 : I6) || memcmp(got, want, 16)))) {
			if (diff++ < 10)
				printf("  differs from inet_pton: \"%s\": ours %d, pton v4 %d v6 %d\n",
				       s, ours, r4, r6);
		}
	}
	CHECK(!diff, "address parser differs from inet_pton on %d strings", diff);
	CHECK(v4ok > 100 && v6ok > 1000, "differential reached valid forms (%d v4, %d v6)",
	      v4ok, v6ok);
}

int main(void)
{
	test_ports();
	test_addr();
	test_other_terms();
	test_line_forms();
	test_errors();
	test_match();
	test_format();
	test_random_round_trip();
	test_inet_pton();
	printf("test_filter: %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
