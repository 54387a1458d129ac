// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tests of the web10g formatter (module/shared/format_web10g.c, omode=2 and
 * `ttpb2ascii -f web10g`) and of the column counts of the magnet text
 * format. The expected column names are written out here from
 * docs/compat-formats.md, section 4 ("web10g-logger lines"), independently
 * of format_web10g.c's table; the expected values follow docs/web10g.md. Prints
 * "test_web10g: N passed, N failed" and exits non-zero on failure.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "format.h"

#include "check.h"

/* web10g userland 2.0.9's columns, docs/compat-formats.md section 4 */
static const char *const names[] = {
	"Timestamp", "CID", "LocalAddress", "LocalPort", "RemAddress",
	"RemPort",
	/* 7 */ "SegsOut", "DataSegsOut", "DataOctetsOut", "HCDataOctetsOut",
	/* 11 */ "SegsRetrans", "OctetsRetrans", "SegsIn", "DataSegsIn",
	/* 15 */ "DataOctetsIn", "HCDataOctetsIn", "ElapsedSecs",
	/* 18 */ "ElapsedMicroSecs", "StartTimeStamp", "CurMSS", "PipeSize",
	/* 22 */ "MaxPipeSize", "SmoothedRTT", "CurRTO", "CongSignals",
	/* 26 */ "CurCwnd", "CurSsthresh", "Timeouts", "CurRwinSent",
	/* 30 */ "MaxRwinSent", "ZeroRwinSent", "CurRwinRcvd", "MaxRwinRcvd",
	/* 34 */ "ZeroRwinRcvd", "SndLimTransRwin", "SndLimTransCwnd",
	/* 37 */ "SndLimTransSnd", "SndLimTransTSODefer", "SndLimTimeRwin",
	/* 40 */ "SndLimTimeCwnd", "SndLimTimeSnd", "SndLimTimeTSODefer",
	/* 43 */ "RetranThresh", "NonRecovDAEpisodes", "SumOctetsReordered",
	/* 46 */ "NonRecovDA", "SampleRTT", "RTTVar", "MaxRTT", "MinRTT",
	/* 51 */ "SumRTT", "HCSumRTT", "CountRTT", "MaxRTO", "MinRTO",
	/* 56 */ "IpTtl", "IpTosIn", "IpTosOut", "PreCongSumCwnd",
	/* 60 */ "PreCongSumRTT", "PostCongSumRTT", "PostCongCountRTT",
	/* 63 */ "ECNsignals", "DupAckEpisodes", "RcvRTT", "DupAcksOut",
	/* 67 */ "CERcvd", "ECESent", "ActiveOpen", "MSSSent", "MSSRcvd",
	/* 72 */ "WinScaleSent", "WinScaleRcvd", "TimeStamps", "ECN",
	/* 76 */ "WillSendSACK", "WillUseSACK", "State", "Nagle", "MaxSsCwnd",
	/* 81 */ "MaxCaCwnd", "MaxSsthresh", "MinSsthresh", "InRecovery",
	/* 85 */ "DupAcksIn", "SpuriousFrDetected", "SpuriousRtoDetected",
	/* 88 */ "SoftErrors", "SoftErrorReason", "SlowStart", "CongAvoid",
	/* 92 */ "OtherReductions", "CongOverCount", "FastRetran",
	/* 95 */ "SubsequentTimeouts", "CurTimeoutCount", "AbruptTimeouts",
	/* 98 */ "SACKsRcvd", "SACKBlocksRcvd", "SendStall", "DSACKDups",
	/* 102 */ "MaxMSS", "MinMSS", "SndInitial", "RecInitial",
	/* 106 */ "CurRetxQueue", "MaxRetxQueue", "CurReasmQueue",
	/* 109 */ "MaxReasmQueue", "EarlyRetrans", "EarlyRetransDelay",
	/* 112 */ "SndUna", "SndNxt", "SndMax", "ThruOctetsAcked",
	/* 116 */ "HCThruOctetsAcked", "RcvNxt", "ThruOctetsReceived",
	/* 119 */ "HCThruOctetsReceived", "CurAppWQueue", "MaxAppWQueue",
	/* 122 */ "CurAppRQueue", "MaxAppRQueue", "LimCwnd", "LimSsthresh",
	/* 126 */ "LimRwin", "LimMSS", "OtherReductionsCV",
};

#define NCOL ((int)(sizeof(names) / sizeof(names[0])))

/* the column number (1-based) of @name */
static int col(const char *name)
{
	int i;

	for (i = 0; i < NCOL; i++)
		if (!strcmp(names[i], name))
			return i + 1;
	fprintf(stderr, "test_web10g: no column %s\n", name);
	exit(99);
}

/*
 * The variables docs/web10g.md fills from a record with MAGNET_RF_TCP;
 * every other variable column must be empty. PipeSize needs ca_state Open
 * or CWR, SampleRTT rtt_us != 0, MinRTT min_rtt_us != ~0U, State RF_SOCK.
 */
static const char *const filled[] = {
	"SegsOut", "DataSegsOut", "DataOctetsOut", "HCDataOctetsOut",
	"SegsRetrans", "OctetsRetrans", "SegsIn", "DataSegsIn",
	"DataOctetsIn", "HCDataOctetsIn", "CurMSS", "PipeSize",
	"SmoothedRTT", "CurRTO", "CurCwnd", "CurSsthresh", "CurRwinSent",
	"CurRwinRcvd", "SampleRTT", "RTTVar", "MinRTT", "MSSSent",
	"WinScaleSent", "WinScaleRcvd", "TimeStamps", "ECN", "WillSendSACK",
	"WillUseSACK", "State", "Nagle", "InRecovery", "CurRetxQueue",
	"SndUna", "SndNxt", "ThruOctetsAcked", "HCThruOctetsAcked", "RcvNxt",
	"ThruOctetsReceived", "HCThruOctetsReceived", "CurAppWQueue",
	"CurAppRQueue",
	/* from the limit part, when the record has one (g_lim) */
	"SndLimTimeRwin", "SndLimTimeCwnd", "SndLimTimeSnd", "RetranThresh",
	"DSACKDups",
};
/* the limit part the lines are formatted with, or NULL */
static const struct magnet_v3_limit *g_lim;
/* the crafted record's limit part: HZ 250, so 4000 µs a jiffy */
static const struct magnet_v3_limit crafted_lim = {
	.busy = 1000, .rwnd_limited = 250, .sndbuf_limited = 3,
	.chrono_time = 7, .reordering = 3, .reord_seen = 5, .dsack_dups = 2,
	.jiffy_us = 4000, .chrono = MAGNET_CHRONO_RWND,
};

static int is_filled(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(filled) / sizeof(filled[0]); i++)
		if (!strcmp(filled[i], name))
			return 1;
	return 0;
}

/*
 * Split @line (without its newline) at commas into @f; returns the number
 * of columns. @line is modified.
 */
static int split(char *line, char **f, int max)
{
	int n = 0;
	char *p = line;

	for (;;) {
		if (n < max)
			f[n] = p;
		n++;
		p = strchr(p, ',');
		if (!p)
			break;
		*p++ = '\0';
	}
	return n;
}

static int has_lower(const char *s)
{
	for (; *s; s++)
		if (islower((unsigned char)*s))
			return 1;
	return 0;
}

static int count_char(const char *s, char c)
{
	int n = 0;

	for (; *s; s++)
		n += *s == c;
	return n;
}

static const __u8 v4l[4] = { 10, 200, 1, 1 };
static const __u8 v4r[4] = { 10, 200, 1, 2 };
static const __u8 v6l[16] = { 0xfd, 0x00, 0xab, 0xcd, 0xef, 0x01, 0x23, 0x45,
			      0x67, 0x89, 0xab, 0xcd, 0xef, 0x00, 0xfa, 0xce };
static const __u8 v6r[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0,
			      0, 0, 0, 0, 0, 0, 0xbe, 0xef };

/* a tcp_out record with every field set, see docs/web10g.md */
static struct magnet_record crafted(void)
{
	struct magnet_record r;

	memset(&r, 0, sizeof(r));
	r.ts_ns = 5000000123ULL;
	r.sock_id = 0x1122334455667788ULL;
	r.event = MAGNET_EV_TCP_OUT;
	r.cpu = 1;
	r.family = MAGNET_FAMILY_INET;
	r.state = 1;			/* ESTABLISHED */
	r.ca_state = 0;			/* Open */
	r.flags = MAGNET_RF_SOCK | MAGNET_RF_SEQ | MAGNET_RF_TCP;
	r.lport = 45416;
	r.rport = 5201;
	r.len = 1448;
	memcpy(r.laddr, v4l, 4);
	memcpy(r.raddr, v4r, 4);
	r.seq = 1000;
	r.end_seq = 2448;
	r.mss = 1448;
	r.srtt_us = 12345;
	r.rttvar_us = 2500;
	r.rto_us = 204000;
	r.cwnd = 10;
	r.ssthresh = 0x7fffffff;	/* TCP_INFINITE_SSTHRESH */
	r.snd_wnd = 65535;
	r.rcv_wnd = 131072;
	r.snd_una = 1000;
	r.snd_nxt = 5344;
	r.write_seq = 9688;
	r.copied_seq = 7000;
	r.packets_out = 3;
	r.retrans_out = 1;
	r.total_retrans = 7;
	strcpy(r.ca_name, "cubic");
	r.segs_out = 100;
	r.data_segs_out = 90;
	r.segs_in = 80;
	r.data_segs_in = 70;
	r.bytes_sent = 0x100000005ULL;
	r.bytes_received = 0x200000007ULL;
	r.bytes_acked = 123456;
	r.bytes_retrans = 0x300000001ULL;
	r.rcv_nxt = 8000;
	r.min_rtt_us = 999;
	r.rtt_us = 15999;
	r.advmss = 1460;
	r.wscale = (9 << 4) | 7;	/* snd_wscale 9, rcv_wscale 7 */
	r.opts = MAGNET_OPT_TIMESTAMPS | MAGNET_OPT_SACK | MAGNET_OPT_NAGLE;
	return r;
}

/* format @r, split it: the number of columns; checks the line's shape */
static int line_of(const struct magnet_record *r, __s64 off, __u32 cid,
		   char *buf, char **f)
{
	int n = magnet_format_web10g(buf, r, g_lim, off, cid);

	CHECK(n > 0 && n < MAGNET_WEB10G_LINE_MAX, "length %d", n);
	if (n <= 0)
		return 0;
	CHECK((size_t)n == strlen(buf), "returned %d, strlen %zu", n,
	      strlen(buf));
	CHECK(buf[n - 1] == '\n' && !strchr(buf, '\n')[1],
	      "one line, ending in a newline");
	CHECK(!has_lower(buf), "lowercase letter in a data line: %s", buf);
	buf[n - 1] = '\0';
	return split(buf, f, NCOL);
}

static void test_header(void)
{
	char buf[MAGNET_WEB10G_LINE_MAX], want[MAGNET_WEB10G_LINE_MAX] = "";
	char *f[NCOL];
	int n, i, cols;

	CHECK(NCOL == 128 && MAGNET_WEB10G_NCOLS == 128, "128 names");
	for (i = 0; i < NCOL; i++) {
		strcat(want, names[i]);
		strcat(want, i + 1 < NCOL ? "," : "\n");
	}
	memset(buf, 'x', sizeof(buf));
	n = magnet_format_web10g_header(buf);
	CHECK(n == (int)strlen(want), "header length %d, want %zu", n,
	      strlen(want));
	CHECK(!strcmp(buf, want), "header\n got %s\nwant %s", buf, want);
	CHECK(n + 1 <= MAGNET_WEB10G_LINE_MAX,
	      "header (%d bytes + NUL) fits MAGNET_WEB10G_LINE_MAX", n);
	/* TEACUP counts the words of the first line, commas as blanks */
	CHECK(count_char(buf, ',') == 127, "127 commas in the header");
	CHECK(strncmp(buf, "Timestamp,CID,LocalAddress,LocalPort,RemAddress,RemPort,", 56) == 0,
	      "the fixed columns");
	buf[n - 1] = '\0';
	cols = split(buf, f, NCOL);
	CHECK(cols == 128, "header: %d columns", cols);
	for (i = 0; i < NCOL && i < cols; i++)
		CHECK(!strcmp(f[i], names[i]), "column %d: %s, want %s", i + 1,
		      f[i], names[i]);
	printf("  header: %d bytes\n", n);
}

/* the crafted record, column by column */
static void test_values(void)
{
	static const struct {
		const char *name, *want;
	} want[] = {
		{ "Timestamp", "1795237814.910360" },
		{ "CID", "42" },
		{ "LocalAddress", "10.200.1.1" },
		{ "LocalPort", "45416" },
		{ "RemAddress", "10.200.1.2" },
		{ "RemPort", "5201" },
		{ "SegsOut", "100" },
		{ "DataSegsOut", "90" },
		{ "DataOctetsOut", "5" },		/* low 32 bits */
		{ "HCDataOctetsOut", "4294967301" },
		{ "SegsRetrans", "7" },
		{ "OctetsRetrans", "1" },
		{ "SegsIn", "80" },
		{ "DataSegsIn", "70" },
		{ "DataOctetsIn", "7" },
		{ "HCDataOctetsIn", "8589934599" },
		{ "CurMSS", "1448" },
		{ "PipeSize", "4344" },			/* snd_nxt - snd_una */
		{ "SmoothedRTT", "12" },		/* 12345 us */
		{ "CurRTO", "204" },
		{ "CurCwnd", "14480" },			/* 10 * 1448 */
		{ "CurSsthresh", "4294967295" },	/* infinite, capped */
		{ "CurRwinSent", "131072" },		/* rcv_wnd */
		{ "CurRwinRcvd", "65535" },		/* snd_wnd */
		{ "SampleRTT", "15" },			/* 15999 us */
		{ "RTTVar", "2" },
		{ "MinRTT", "0" },			/* 999 us */
		{ "MSSSent", "1460" },
		{ "WinScaleSent", "7" },
		{ "WinScaleRcvd", "9" },
		{ "TimeStamps", "1" },
		{ "ECN", "3" },
		{ "WillSendSACK", "1" },
		{ "WillUseSACK", "1" },
		{ "State", "5" },
		{ "Nagle", "1" },
		{ "InRecovery", "2" },
		{ "CurRetxQueue", "4344" },
		{ "SndUna", "1000" },
		{ "SndNxt", "5344" },
		{ "ThruOctetsAcked", "123456" },
		{ "HCThruOctetsAcked", "123456" },
		{ "RcvNxt", "8000" },
		{ "ThruOctetsReceived", "7" },
		{ "HCThruOctetsReceived", "8589934599" },
		{ "CurAppWQueue", "4344" },		/* write_seq - snd_nxt */
		{ "CurAppRQueue", "1000" },		/* rcv_nxt - copied_seq */
		{ "SndLimTimeRwin", "1000" },		/* 250 jiffies, ms */
		{ "SndLimTimeCwnd", "4000" },		/* 1000 jiffies */
		{ "SndLimTimeSnd", "12" },		/* 3 jiffies */
		{ "RetranThresh", "3" },		/* reordering */
		{ "DSACKDups", "2" },
	};
	static const char *const from_limit[] = {
		"SndLimTimeRwin", "SndLimTimeCwnd", "SndLimTimeSnd",
		"RetranThresh", "DSACKDups",
	};
	struct magnet_record r = crafted();
	char buf[MAGNET_WEB10G_LINE_MAX], *f[NCOL];
	/* wall clock 1795237814.910360999 s */
	__s64 off = 1795237814910360999LL - 5000000123LL;
	int cols, i, nfilled = 0;
	size_t k;

	/* without a limit part (a log from before it): those are empty */
	cols = line_of(&r, off, 42, buf, f);
	CHECK(cols == 128, "crafted IPv4, no limit part: %d columns", cols);
	for (k = 0; cols == 128 && k < sizeof(from_limit) / sizeof(from_limit[0]); k++)
		CHECK(!*f[col(from_limit[k]) - 1], "%s without a limit part: '%s'",
		      from_limit[k], f[col(from_limit[k]) - 1]);
	g_lim = &crafted_lim;
	cols = line_of(&r, off, 42, buf, f);
	g_lim = NULL;
	CHECK(cols == 128, "crafted IPv4: %d columns", cols);
	if (cols != 128)
		return;
	for (k = 0; k < sizeof(want) / sizeof(want[0]); k++) {
		int c = col(want[k].name) - 1;

		CHECK(!strcmp(f[c], want[k].want), "%s (column %d) '%s', want '%s'",
		      want[k].name, c + 1, f[c], want[k].want);
	}
	/* every other variable column empty; every documented one set */
	for (i = 6; i < NCOL; i++) {
		if (is_filled(names[i])) {
			nfilled++;
			CHECK(*f[i], "%s (column %d) empty", names[i], i + 1);
		} else {
			CHECK(!*f[i], "%s (column %d) '%s': documented empty",
			      names[i], i + 1, f[i]);
		}
	}
	CHECK(nfilled == (int)(sizeof(filled) / sizeof(filled[0])),
	      "every filled name is a column (%d)", nfilled);
	/* the table above covers every filled column */
	CHECK(sizeof(want) / sizeof(want[0]) == 6 + sizeof(filled) / sizeof(filled[0]),
	      "the value table covers every filled column");
}

/* the value of column @name for @r */
static const char *value(const struct magnet_record *r, const char *name,
			 char *buf)
{
	char *f[NCOL];
	int cols = line_of(r, 0, 1, buf, f);

	if (cols != NCOL)
		return "(bad line)";
	return f[col(name) - 1];
}

static void test_units(void)
{
	struct magnet_record r;
	char buf[MAGNET_WEB10G_LINE_MAX];
	static const unsigned char mib[] = { 0, 5, 3, 4, 6, 7, 11, 1, 8, 9, 2,
					     10, 4 };
	const char *v;
	unsigned int s;

	/* State: every Linux state; unknown codes empty. A listener (10) has
	 * no line at all: web10g describes connections */
	r = crafted();
	r.state = 10;
	CHECK(magnet_format_web10g(buf, &r, NULL, 0, 1) == 0,
	      "a LISTEN socket's record gave a web10g line");
	r.flags &= ~MAGNET_RF_SOCK;
	CHECK(magnet_format_web10g(buf, &r, NULL, 0, 1) > 0,
	      "state 10 without RF_SOCK gave no line");
	for (s = 0; s <= 255; s++) {
		char want[8] = "";

		if (s == 10)
			continue;
		r = crafted();
		r.state = (__u8)s;
		if (s < sizeof(mib) && mib[s])
			snprintf(want, sizeof(want), "%u", mib[s]);
		v = value(&r, "State", buf);
		CHECK(!strcmp(v, want), "sk_state %u: State '%s', want '%s'", s,
		      v, want);
	}
	r = crafted();
	r.flags &= (__u8)~MAGNET_RF_SOCK;
	CHECK(!*value(&r, "State", buf), "State empty without RF_SOCK");

	/* milliseconds, truncated */
	r = crafted();
	r.srtt_us = 999;
	r.rttvar_us = 1000;
	r.rto_us = 200999;
	CHECK(!strcmp(value(&r, "SmoothedRTT", buf), "0"), "srtt 999 us -> 0");
	CHECK(!strcmp(value(&r, "RTTVar", buf), "1"), "rttvar 1000 us -> 1");
	CHECK(!strcmp(value(&r, "CurRTO", buf), "200"), "rto 200999 us -> 200");
	r.rtt_us = 0;
	CHECK(!*value(&r, "SampleRTT", buf), "rtt_us 0: SampleRTT empty");
	r.rtt_us = 1;
	CHECK(!strcmp(value(&r, "SampleRTT", buf), "0"), "rtt_us 1 -> 0");
	r.min_rtt_us = ~0U;
	CHECK(!*value(&r, "MinRTT", buf), "min_rtt ~0U: MinRTT empty");
	r.min_rtt_us = 0;
	CHECK(!strcmp(value(&r, "MinRTT", buf), "0"), "min_rtt 0 -> 0");
	r.min_rtt_us = 0xfffffffe;
	CHECK(!strcmp(value(&r, "MinRTT", buf), "4294967"), "min_rtt max");

	/* bytes: cwnd and ssthresh times mss, Gauge32 capped */
	r = crafted();
	r.ssthresh = 20;
	CHECK(!strcmp(value(&r, "CurSsthresh", buf), "28960"), "ssthresh 20 * 1448");
	r.cwnd = 0xffffffff;
	CHECK(!strcmp(value(&r, "CurCwnd", buf), "4294967295"), "cwnd capped");
	r.cwnd = 2966137;	/* * 1448 = 4294966376 */
	CHECK(!strcmp(value(&r, "CurCwnd", buf), "4294966376"), "cwnd below the cap");
	r.mss = 0;
	CHECK(!strcmp(value(&r, "CurCwnd", buf), "0"), "mss 0: cwnd 0 bytes");

	/* PipeSize only outside recovery; InRecovery from ca_state */
	for (s = 0; s <= 5; s++) {
		r = crafted();
		r.ca_state = (__u8)s;
		v = value(&r, "PipeSize", buf);
		CHECK(!strcmp(v, (s == 0 || s == 2) ? "4344" : ""),
		      "ca_state %u: PipeSize '%s'", s, v);
		v = value(&r, "InRecovery", buf);
		CHECK(!strcmp(v, (s == 3 || s == 4) ? "1" : "2"),
		      "ca_state %u: InRecovery '%s'", s, v);
		v = value(&r, "CurRetxQueue", buf);
		CHECK(!strcmp(v, "4344"), "ca_state %u: CurRetxQueue '%s'", s, v);
	}

	/* sequence differences wrap modulo 2^32 */
	r = crafted();
	r.snd_una = 0xfffffff0;
	r.snd_nxt = 0x00000010;
	r.write_seq = 0x00000020;
	r.rcv_nxt = 5;
	r.copied_seq = 0xfffffffb;
	CHECK(!strcmp(value(&r, "PipeSize", buf), "32"), "PipeSize wraps");
	CHECK(!strcmp(value(&r, "CurRetxQueue", buf), "32"), "CurRetxQueue wraps");
	CHECK(!strcmp(value(&r, "CurAppWQueue", buf), "16"), "CurAppWQueue wraps");
	CHECK(!strcmp(value(&r, "CurAppRQueue", buf), "10"), "CurAppRQueue wraps");

	/* options */
	r = crafted();
	r.opts = 0;
	CHECK(!strcmp(value(&r, "TimeStamps", buf), "3"), "no timestamps: 3");
	CHECK(!strcmp(value(&r, "ECN", buf), "3"), "no ECN: 3");
	CHECK(!strcmp(value(&r, "WillSendSACK", buf), "3"), "no SACK: 3");
	CHECK(!strcmp(value(&r, "WillUseSACK", buf), "3"), "no SACK: 3");
	CHECK(!strcmp(value(&r, "Nagle", buf), "2"), "TCP_NODELAY: Nagle 2");
	r.opts = MAGNET_OPT_ECN;
	CHECK(!strcmp(value(&r, "ECN", buf), "1"), "ECN: 1");
	CHECK(!strcmp(value(&r, "TimeStamps", buf), "3"), "ECN only: TimeStamps 3");
	r.wscale = 0xe0;
	CHECK(!strcmp(value(&r, "WinScaleSent", buf), "0") &&
	      !strcmp(value(&r, "WinScaleRcvd", buf), "14"), "wscale 0xe0");

	/* 64-bit counters: full in HC, low 32 bits otherwise */
	r = crafted();
	r.bytes_sent = ~0ULL;
	r.bytes_acked = 0xffffffffULL;
	CHECK(!strcmp(value(&r, "HCDataOctetsOut", buf), "18446744073709551615"),
	      "HCDataOctetsOut max");
	CHECK(!strcmp(value(&r, "DataOctetsOut", buf), "4294967295"),
	      "DataOctetsOut low 32 bits");
	CHECK(!strcmp(value(&r, "ThruOctetsAcked", buf), "4294967295"),
	      "ThruOctetsAcked");
	r.bytes_acked = 0x100000000ULL;
	CHECK(!strcmp(value(&r, "ThruOctetsAcked", buf), "0"),
	      "ThruOctetsAcked wraps like a Counter32");
}

static void test_shapes(void)
{
	struct magnet_record r = crafted();
	char buf[MAGNET_WEB10G_LINE_MAX], *f[NCOL];
	unsigned int ev;
	int cols, i, empty;

	/* IPv6: uppercase addresses */
	r.family = MAGNET_FAMILY_INET6;
	memcpy(r.laddr, v6l, 16);
	memcpy(r.raddr, v6r, 16);
	r.event = MAGNET_EV_TCP_IN;
	cols = line_of(&r, 0, 7, buf, f);
	CHECK(cols == 128, "IPv6: %d columns", cols);
	if (cols == 128) {
		CHECK(!strcmp(f[2], "FD00:ABCD:EF01:2345:6789:ABCD:EF00:FACE"),
		      "IPv6 local address %s", f[2]);
		CHECK(!strcmp(f[4], "2001:0DB8:0000:0000:0000:0000:0000:BEEF"),
		      "IPv6 remote address %s", f[4]);
		CHECK(!strcmp(f[1], "7"), "cid 7");
	}

	/* a TCP event without RF_TCP: only State is known */
	r = crafted();
	r.flags = MAGNET_RF_SOCK;
	cols = line_of(&r, 0, 1, buf, f);
	CHECK(cols == 128, "no RF_TCP: %d columns", cols);
	for (i = 6, empty = 0; i < cols && i < NCOL; i++)
		empty += !*f[i] || !strcmp(names[i], "State");
	CHECK(empty == 122, "no RF_TCP: every variable but State empty (%d)",
	      empty);

	/* no line for other events; the buffer is left alone */
	for (ev = 0; ev <= MAGNET_EV_MAX + 2; ev++) {
		if (ev == MAGNET_EV_TCP_OUT || ev == MAGNET_EV_TCP_IN)
			continue;
		r = crafted();
		r.event = (__u16)ev;
		memset(buf, '#', sizeof(buf));
		CHECK(magnet_format_web10g(buf, &r, NULL, 0, 1) == 0,
		      "event %u: no web10g line", ev);
		CHECK(buf[0] == '#' && buf[sizeof(buf) - 1] == '#',
		      "event %u: buffer untouched", ev);
	}
}

/* every field at its widest: the longest line there can be */
static void test_longest(void)
{
	struct magnet_v3_limit lim;
	struct magnet_record r;
	char buf[MAGNET_WEB10G_LINE_MAX + 64], *f[NCOL];
	int n, cols, i;

	memset(&r, 0xff, sizeof(r));
	r.event = MAGNET_EV_TCP_OUT;
	r.family = MAGNET_FAMILY_INET6;
	r.ca_state = 0;			/* PipeSize set */
	r.state = 1;
	memset(r.laddr, 0xee, 16);	/* "EEEE", as wide as "FFFF" */
	r.min_rtt_us = 0xfffffffe;
	memset(buf, '#', sizeof(buf));
	memset(&lim, 0xff, sizeof(lim));
	n = magnet_format_web10g(buf, &r, &lim, 0x7fffffffffffffffLL, 0xffffffffU);
	printf("  longest web10g line: %d bytes (+ NUL), limit %d\n", n,
	       MAGNET_WEB10G_LINE_MAX);
	CHECK(n > 0 && n + 1 <= MAGNET_WEB10G_LINE_MAX,
	      "longest line %d + NUL fits %d", n, MAGNET_WEB10G_LINE_MAX);
	/* margin: at least a quarter of the buffer spare */
	CHECK(n < MAGNET_WEB10G_LINE_MAX * 3 / 4, "longest line %d leaves a margin", n);
	CHECK(buf[MAGNET_WEB10G_LINE_MAX] == '#', "nothing written past the limit");
	CHECK((size_t)n == strlen(buf), "length");
	CHECK(!has_lower(buf), "no lowercase");
	buf[n - 1] = '\0';
	cols = split(buf, f, NCOL);
	CHECK(cols == 128, "longest: %d columns", cols);
	for (i = 0; i < cols && i < NCOL; i++)
		if (is_filled(names[i]))
			CHECK(*f[i], "longest: %s empty", names[i]);
}

/* random records: shape, size and case whatever the bytes */
static void test_random(void)
{
	static __u64 x = 0x9e3779b97f4a7c15ULL;
	char buf[MAGNET_WEB10G_LINE_MAX], *f[NCOL];
	int i, bad_shape = 0, bad_len = 0, lower = 0, lines = 0;

	for (i = 0; i < 20000; i++) {
		struct magnet_record r;
		unsigned char *p = (unsigned char *)&r;
		size_t k;
		int n;

		for (k = 0; k < sizeof(r); k++) {
			x ^= x >> 12;
			x ^= x << 25;
			x ^= x >> 27;
			p[k] = (unsigned char)((x * 2685821657736338717ULL) >> 56);
		}
		r.event = (__u16)(1 + i % 2);
		r.family = i % 3 ? MAGNET_FAMILY_INET6 : MAGNET_FAMILY_INET;
		if ((r.flags & MAGNET_RF_SOCK) && r.state == 10)
			r.state = 1;	/* listeners have no line (tested above) */
		n = magnet_format_web10g(buf, &r, x % 2 ? &crafted_lim : NULL, (__s64)x, (__u32)x);
		lines++;
		if (n <= 0 || n >= MAGNET_WEB10G_LINE_MAX ||
		    (size_t)n != strlen(buf) || buf[n - 1] != '\n') {
			bad_len++;
			continue;
		}
		lower += has_lower(buf);
		buf[n - 1] = '\0';
		bad_shape += split(buf, f, NCOL) != 128;
	}
	CHECK(!bad_len, "random records: %d of %d bad lengths", bad_len, lines);
	CHECK(!bad_shape, "random records: %d of %d without 128 columns",
	      bad_shape, lines);
	CHECK(!lower, "random records: %d of %d with lowercase", lower, lines);
}

/* the magnet text format: every line as many columns as the header */
static void test_text_columns(void)
{
	char buf[MAGNET_TEXT_LINE_MAX];
	unsigned int ev;
	int n, flags;

	n = magnet_format_text_header(buf);
	CHECK(n > 0 && count_char(buf, '\t') == MAGNET_TEXT_NCOLS - 1,
	      "text header: %d columns, want %d", count_char(buf, '\t') + 1,
	      MAGNET_TEXT_NCOLS);
	CHECK(strstr(buf, "\tip_proto\tsegs_out\tdata_segs_out\tsegs_in\tdata_segs_in"
			  "\tbytes_sent\tbytes_received\tbytes_acked\tbytes_retrans"
			  "\trcv_nxt\tmin_rtt_us\trtt_us\tadvmss\tsnd_wscale"
			  "\trcv_wscale\topts\tpacing_rate\tdelivery_rate"
			  "\tdelivered\tdelivered_ce\tlost_out\tsacked_out"
			  "\tapp_limited\tbbr_bw\tbbr_min_rtt\tbbr_pacing_gain"
			  "\tbbr_cwnd_gain\tdrop_reason\tdrop_where\tprev_state"
			  "\tkind\ttimeouts\tqdisc\tqdisc_handle\tqdisc_qlen"
			  "\tqdisc_backlog\tchrono\tchrono_us\tbusy_us"
			  "\trwnd_limited_us\tsndbuf_limited_us\treordering"
			  "\treord_seen\tdsack_dups\trcvbuf\trcvbuf_before"
			  "\twindow_clamp\twindow_clamp_before\trcv_ssthresh"
			  "\trcv_space\trcv_rtt_us\ttotal_rto"
			  "\ttotal_rto_recoveries\ttotal_rto_time"
			  "\trto_recovery_ms\tlost\n") != NULL,
	      "text header: the version 2 columns, then the rate part's, the drop part's, the TCP event part's, the qdisc part's, the limit part's, the rcvbuf part's, the RTO totals and the rtoend part's times, before lost");
	CHECK(magnet_event_name(MAGNET_V3_FLOW) == NULL,
	      "no event name for 11, version 3's FLOW record");
	CHECK(magnet_format_text(buf, &(struct magnet_record){ .event =
				 MAGNET_V3_FLOW }, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0, 0) == 0,
	      "no text line for 11, version 3's FLOW record");
	for (ev = 1; ev <= MAGNET_EV_MAX; ev++) {
		if (ev == MAGNET_V3_FLOW)
			continue;
		for (flags = 0; flags < 64; flags++) {
			struct magnet_record r = crafted();

			r.event = (__u16)ev;
			r.flags = (__u8)flags;
			n = magnet_format_text(buf, &r, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0, 0);
			CHECK(n > 0 && n < MAGNET_TEXT_LINE_MAX &&
			      count_char(buf, '\t') == MAGNET_TEXT_NCOLS - 1,
			      "text, event %u flags 0x%02x: %d columns", ev,
			      flags, count_char(buf, '\t') + 1);
		}
	}
	{
		/* every field at its widest, every flag: the longest line */
		struct magnet_record r;
		int longest = 0;

		for (ev = 1; ev <= MAGNET_EV_MAX; ev++) {
			if (ev == MAGNET_V3_FLOW)
				continue;
			memset(&r, 0xff, sizeof(r));
			r.event = (__u16)ev;
			r.family = MAGNET_FAMILY_INET6;
			r.ret = -0x7fffffffffffffffLL - 1;
			memset(buf, '#', sizeof(buf));
			n = magnet_format_text(buf, &r, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0, 0x7fffffffffffffffLL);
			CHECK(n > 0 && n + 1 <= MAGNET_TEXT_LINE_MAX &&
			      (size_t)n == strlen(buf) &&
			      count_char(buf, '\t') == MAGNET_TEXT_NCOLS - 1,
			      "widest text line, event %u: %d bytes", ev, n);
			if (n > longest)
				longest = n;
		}
		printf("  longest text line: %d bytes (+ NUL), limit %d\n",
		       longest, MAGNET_TEXT_LINE_MAX);
	}
	{
		struct magnet_record r;

		memset(&r, 0, sizeof(r));
		r.event = MAGNET_EV_RESET;
		r.req = 1234;
		n = magnet_format_text(buf, &r, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0, 1000000000);
		CHECK(n > 0 && !strncmp(buf, "1.000000000\t0\treset\t", 20) &&
		      !strcmp(buf + n - 6, "\t1234\n"),
		      "reset line: %s", buf);
		CHECK(!strcmp(magnet_event_name(MAGNET_EV_RESET), "reset"),
		      "event name reset");
		CHECK(magnet_event_name(MAGNET_EV_MAX + 1) == NULL,
		      "no name past MAGNET_EV_MAX");
	}
}

int main(void)
{
	test_header();
	test_values();
	test_units();
	test_shapes();
	test_longest();
	test_random();
	test_text_columns();
	printf("test_web10g: %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
