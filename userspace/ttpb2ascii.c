// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ttpb2ascii: decode magnet's binary stream (omode=1) into the ttprobe ASCII
 * format, magnet's tab-separated text format, web10g-logger lines, or
 * ttprobe v0.1.2's 96-byte binary records; and read such 96-byte records
 * (ttprobe's own logs, or the ttprobe build's omode=1) into ttprobe ASCII.
 *
 * The stream is one struct magnet_sysinfo followed by struct magnet_record
 * entries (module/uapi/record.h, docs/binary-format.md), in the writer's byte
 * order. Input may be gzip-compressed. The text is produced by
 * module/shared/format*.c, the same code the kernel module prints with, so both
 * give byte-identical lines.
 *
 * It streams: one record at a time through a fixed buffer, so memory stays
 * flat whatever the input size (web10g keeps one small entry per socket,
 * for its connection ids).
 *
 * Exit codes: 0 success, 1 usage error, 2 bad input or an I/O error,
 * 3 the last record is truncated (every complete record is written first).
 */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <arpa/inet.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zlib.h>

#include "format.h"
#include "v3.h"
#include "cid.h"
#include "swap.h"
#include "pcapw.h"
#include "parquetw.h"

#ifndef MAGNET_VERSION
#define MAGNET_VERSION "unknown"
#endif

#define PROG "ttpb2ascii"

enum {
	EXIT_OK = 0,
	EXIT_USAGE = 1,
	EXIT_BADINPUT = 2,
	EXIT_TRUNCATED = 3,
};

enum out_format {
	FMT_TTPROBE, FMT_MAGNET, FMT_WEB10G, FMT_LEGACY, FMT_PARQUET,
	FMT_PCAPNG, FMT_PCAP, FMT_PCAP_NS,
};

#define IS_PCAP(f) ((f) >= FMT_PCAPNG)

enum in_format { IN_AUTO, IN_MAGNET, IN_LEGACY };

typedef struct magnet_legacy_record legacy_t;

static const char *in_name = "-";
static const char *out_name = "-";
static FILE *out;
/* -o OUT: a regular file (its device and inode), and whether this run
 * created it; only such a file is ever removed or emptied (-o /dev/null,
 * a FIFO or a device is never touched: the fuzzer's /dev/null was once
 * unlinked by a refusal) */
static int out_reg, out_created;
static struct stat out_reg_st;
/*
 * An uncompressed regular file is read through a mapping, not read(2): no
 * copy into a read buffer and none into zlib's. What was read is dropped
 * from the mapping every IN_MAP_CHUNK bytes, so memory stays flat. If the
 * file shrinks while it is read (a new capture truncating it), the access
 * past its end raises SIGBUS, which ends the run with a message.
 */
#define IN_MAP_CHUNK ((size_t)4 << 20)
static const unsigned char *in_map;
static size_t in_map_len, in_map_pos, in_map_done;
static sigjmp_buf in_map_fault;
/* lines are formatted in place here and written in large blocks; the
 * stdio stream itself is unbuffered */
static char obuf[1 << 18];
static size_t oused;
/* -f pcapng, pcap, pcap-ns: the writer, and what -L and -d chose */
static struct pcapw pcap_w;
/* -f parquet: its writer, while a file is open, and what its footer will
 * say of the log's end */
static struct pqw pq;
static int pq_open;
static const char *pq_end;
static unsigned int pcap_layers, pcap_dirs;
/* --all-interfaces, --drops, --events */
static int opt_all_ifs, opt_drops, opt_events;
/*
 * --split DIR: a file per interface, each with a writer of its own, by the
 * interface's number in pcap_w, which reads every record (all interfaces,
 * its blocks thrown away) to number them and to hold the TCP state and the
 * gaps a new file starts with
 */
static const char *split_dir;
struct split_file {
	struct pcapw *w;
	FILE *f;
	char *path;
};
static struct split_file *splits;
static unsigned int nsplits;
static struct magnet_sysinfo split_si;
static char split_buf[PCAPW_BLOCK_MAX];
/*
 * --netns and --ifindex: the records kept (0: any), and what the log held,
 * to say why a selection kept nothing and to refuse an ifindex that is in
 * several namespaces
 */
static __u32 sel_netns, sel_ifindex;
static unsigned long long sel_kept;
#define SEEN_NS 16
static struct { __u32 netns; unsigned long long n; } seen_ns[SEEN_NS];
static unsigned int nseen_ns;
static unsigned long long seen_unknown, seen_more;
/* --ifindex alone: the namespace of the events kept (once sel_kept) */
static __u32 sel_if_ns;

static void usage(FILE *f)
{
	fprintf(f,
		"usage: " PROG " [-i auto|magnet|legacy]\n"
		"                  [-f ttprobe|magnet|web10g|legacy|parquet|pcapng|pcap|\n"
		"                      pcap-ns]\n"
		"                  [-c magnet|ttprobe] [-L dev|ip|ip,dev] [-d in|out|both]\n"
		"                  [-n NETNS] [-I IFINDEX] [--split DIR]\n"
		"                  [--all-interfaces] [--drops] [--events] [-o OUT] [FILE]\n"
		"\n"
		"Decode a magnet binary log (omode=1), or a file of ttprobe's 96-byte\n"
		"binary records, read from FILE, or from standard input when FILE is\n"
		"absent or '-'. gzip-compressed input is accepted. Output goes to\n"
		"OUT, or to standard output.\n"
		"\n"
		"  -i, --input FMT   input format:\n"
		"      auto     magnet if the file starts with magnet's magic number,\n"
		"               ttprobe's 96-byte records if the first one is valid\n"
		"               (default)\n"
		"      magnet   magnet's binary log: a SYSINFO header, then records\n"
		"               (format 2: 256 bytes each; 3: sized by what they\n"
		"               carry)\n"
		"      legacy   ttprobe v0.1.2's 96-byte records, no header (ttprobe's\n"
		"               omode=1, magnet's ttprobe build with omode=1, or\n"
		"               -f legacy); written out as ttprobe or legacy only\n"
		"\n"
		"  -f, --format FMT  output format:\n"
		"      ttprobe  one ttprobe ASCII line per TCP-layer record\n"
		"               (tcp_out, tcp_in); other events are skipped (default)\n"
		"      magnet   magnet's tab-separated text: a header line, then one\n"
		"               line per record, lost and reset markers included\n"
		"      web10g   web10g-logger 2.0.9 lines (RFC 4898 variables, 128\n"
		"               comma-separated columns): a header line, then one line\n"
		"               per TCP-layer record of a connection; connection ids\n"
		"               (CID) 1, 2, ... per connection (socket and flow), in\n"
		"               order of first appearance\n"
		"      legacy   ttprobe v0.1.2's 96-byte binary record per TCP-layer\n"
		"               record (direction 'o'/'i', ssthresh as the kernel's\n"
		"               tcp_current_ssthresh(), length saturated at 65535)\n"
		"      parquet  the magnet text's rows and columns as an Apache\n"
		"               Parquet file for pandas, Polars, DuckDB: the same\n"
		"               names, an empty field a null, numbers as unsigned\n"
		"               32- or 64-bit integers (ret signed), time as a\n"
		"               timestamp in ns (UTC, no zone mark), sock as a\n"
		"               64-bit integer, the rest strings; row groups of\n"
		"               65,536 rows; its metadata's magnet.end says\n"
		"               \"complete\" only if the whole log was read\n"
		"      pcapng   the device-layer events (-L) as packets for Wireshark\n"
		"               and tshark: IP and TCP/UDP headers rebuilt from the\n"
		"               recorded fields, no payload, ns timestamps, one\n"
		"               interface per namespace and device (nsN:ifI) and\n"
		"               one per namespace for the IP layer (nsN:ip);\n"
		"               comments with the TCP state (cwnd, ssthresh, srtt,\n"
		"               ...) of the packet's flow in its namespace as of\n"
		"               its latest TCP-layer event, and with each gap (lost\n"
		"               records) where it was; one interface a file\n"
		"               (Wireshark merges a file's interfaces and takes a\n"
		"               packet's copy on another for a retransmission):\n"
		"               a packet of a second one is an error (1) unless\n"
		"               --all-interfaces; --split writes one file each\n"
		"      pcap     the same packets as a classic tcpdump -w file, of\n"
		"               one interface (a packet of a second one is an\n"
		"               error, 1: select one with -n, -I and -L),\n"
		"               microsecond timestamps, no comments (gaps are only\n"
		"               counted in a warning, drops left out)\n"
		"      pcap-ns  classic pcap with nanosecond timestamps\n"
		"  -c, --compat SEM  field semantics of the ttprobe lines:\n"
		"      magnet   field 7 counts 1, 2, ...; fields 10 and 11 are\n"
		"               snd_cwnd * mss and snd_ssthresh * mss in 64 bits\n"
		"               (the module's omode=0; default for magnet input)\n"
		"      ttprobe  ttprobe v0.1.2's: field 7 counts 0, 1, ...; fields 10\n"
		"               and 11 are 32-bit, field 11 tcp_current_ssthresh() *\n"
		"               mss (the ttprobe build's omode=0; always for legacy\n"
		"               input)\n"
		"  -L, --layers L    pcap formats: the events written as packets: dev\n"
		"                    (default: dev_in, and going out wire_out, where\n"
		"                    a capture on the device sees a packet leave, if\n"
		"                    the log has them (events=wire), else dev_out, as\n"
		"                    the device took it in, before its qdisc), ip\n"
		"                    (ip_out, ip_in), or ip,dev\n"
		"  -d, --direction D pcap formats: in, out or both (default); on one\n"
		"                    host's veth pair every packet is sent (out) and\n"
		"                    received (in): -d out shows each once\n"
		"  -n, --netns NETNS keep only the records of the network namespace\n"
		"                    NETNS (its inode number: the netns column of\n"
		"                    -f magnet, `lsns -t net`, `stat -L -c %%i\n"
		"                    /proc/PID/ns/net`); lost and reset marks are\n"
		"                    kept. A log whose records say no namespace\n"
		"                    (format 2, or format 3 before netns) has none\n"
		"  -I, --ifindex IFINDEX\n"
		"                    keep only the device events (dev_out, wire_out,\n"
		"                    dev_in, and drops and qdisc events there)\n"
		"                    of interface IFINDEX, and the marks; an ifindex\n"
		"                    is unique in its namespace only: with several\n"
		"                    namespaces in the log, give -n too\n"
		"                    A selection that keeps no record is an error (1),\n"
		"                    naming the namespaces the log has\n"
		"      --split DIR   pcap formats: one file per interface into DIR\n"
		"                    (made if missing): nsN-ifI.pcapng, nsN-ip.pcapng\n"
		"                    (.pcap); the output is a line per file (path,\n"
		"                    packets, namespace and device)\n"
		"      --all-interfaces  pcapng: every interface in one file\n"
		"      --drops       pcapng: each drop (events=drop) a packet where\n"
		"                    it was dropped, with the comment \"magnet drop:\n"
		"                    REASON in FUNCTION\" (no wire packet: left out\n"
		"                    by default)\n"
		"      --events      pcapng: the events that are no packet on the\n"
		"                    wire (retrans, rto, tlp, state, cong_state,\n"
		"                    rto_end, rcvbuf, qdisc, qdisc_enq, and drops\n"
		"                    without --drops) as records of an interface\n"
		"                    of their own per namespace, nsN:events (--split:\n"
		"                    nsN-events.pcapng), each with its fields in the\n"
		"                    comment \"magnet event EVENT: NAME VALUE ...\"\n"
		"  -o, --output OUT  write to OUT instead of standard output\n"
		"  -h, --help        print this help and exit\n"
		"      --version     print the version and exit\n"
		"\n"
		"Exit status:\n"
		"  0  success\n"
		"  1  usage error\n"
		"  2  bad input (not a magnet log nor ttprobe records, unsupported\n"
		"     version or sizes, unknown event code, a ttprobe record with an\n"
		"     impossible family, direction or time) or an I/O error\n"
		"  3  the last record is truncated; every complete record was written\n"
		"\n"
		"This " PROG " reads format versions %u and %u (the module's omode=1):\n"
		"256-byte records, or records sized by what they carry.\n",
		MAGNET_FORMAT_VERSION, MAGNET_FORMAT_VERSION_V3);
}

/* where messages go: stderr, or what the fuzz harness (tests/fuzz) sets */
#ifdef TTPB_MSG_FILE
extern FILE *TTPB_MSG_FILE;
#else
#define TTPB_MSG_FILE stderr
#endif

static void msg(const char *fmt, ...)
{
	va_list ap;

	fputs(PROG ": ", TTPB_MSG_FILE);
	va_start(ap, fmt);
	vfprintf(TTPB_MSG_FILE, fmt, ap);
	va_end(ap);
	fputc('\n', TTPB_MSG_FILE);
}

static int write_failed;

static void write_error(int err)
{
	msg("%s: write error: %s",
	    strcmp(out_name, "-") ? out_name : "standard output",
	    strerror(err ? err : EIO));
	write_failed = 1;
}

/* @n bytes of @buf to the output file as they are; false (and reported)
 * on a write error, or after one */
static int write_out(const void *buf, size_t n)
{
	if (write_failed)
		return 0;
	errno = 0;
	if (n && (fwrite(buf, 1, n, out) != n || ferror(out))) {
		write_error(errno);
		return 0;
	}
	return 1;
}

/* write out obuf; false (and reported) on a write error */
static int flush_obuf(void)
{
	size_t n = oused;

	oused = 0;
	return write_out(obuf, n);
}

/* room for @n bytes at the end of obuf, or NULL after a write error */
static char *out_room(size_t n)
{
	if (oused + n > sizeof(obuf) && !flush_obuf())
		return NULL;
	return write_failed ? NULL : obuf + oused;
}

static int put_parquet(void *ctx, const void *buf, size_t n);

/*
 * Flush and close the output, once; report a write error unless one was
 * reported already. True when everything went out. A Parquet file gets
 * its last rows and its footer first: what was decoded, readable, and
 * pq_end saying whether that was all of the log.
 */
static int finish_output(void)
{
	int err = 0;

	if (pq_open) {
		pq_open = 0;
		if (pqw_end(&pq, pq_end) && !write_failed)
			msg("%s: %s", strcmp(out_name, "-") ? out_name :
			    "standard output", pq.err);
	}
	if (!out)
		return !write_failed;
	flush_obuf();
	if (!write_failed) {
		errno = 0;
		if (fflush(out) == EOF || ferror(out))
			err = errno ? errno : EIO;
	}
	errno = 0;
	if (fclose(out) == EOF && !write_failed && !err)
		err = errno ? errno : EIO;
	out = NULL;
	if (err && !write_failed)
		write_error(err);
	return !write_failed;
}

/* @n bytes to the output; false after a write error (EPIPE, ENOSPC) */
static int put(const void *buf, size_t n)
{
	char *p = out_room(n);

	if (!p)
		return 0;
	memcpy(p, buf, n);
	oused += n;
	return 1;
}

/* the Parquet writer's output: small pieces through obuf, large ones
 * (a column chunk's values) after it, straight */
static int put_parquet(void *ctx, const void *buf, size_t n)
{
	(void)ctx;
	if (n <= sizeof(obuf) / 4)
		return put(buf, n);
	return flush_obuf() && write_out(buf, n);
}

static void on_sigbus(int sig)
{
	(void)sig;
	siglongjmp(in_map_fault, 1);
}

/* Map @fd if it is a regular file that is not gzip; else leave it to zlib. */
static void map_input(int fd)
{
	struct sigaction sa;
	struct stat st;
	void *m;

	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size < 2 ||
	    (unsigned long long)st.st_size > (size_t)-1)
		return;
	m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (m == MAP_FAILED)
		return;
	if (((unsigned char *)m)[0] == 0x1f && ((unsigned char *)m)[1] == 0x8b) {
		munmap(m, (size_t)st.st_size);
		return;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigbus;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGBUS, &sa, NULL)) {
		munmap(m, (size_t)st.st_size);
		return;
	}
	madvise(m, (size_t)st.st_size, MADV_SEQUENTIAL);
	in_map = m;
	in_map_len = (size_t)st.st_size;
}

/*
 * Read exactly @n bytes unless the input ends first. Returns the bytes
 * read (less than @n at end of input), or -1 on a read error, which also
 * covers a damaged or truncated gzip stream.
 */
static long read_full(gzFile gz, void *buf, size_t n)
{
	size_t got = 0;
	const char *why;
	int err;

	if (in_map) {
		got = in_map_len - in_map_pos < n ? in_map_len - in_map_pos : n;
		memcpy(buf, in_map + in_map_pos, got);
		in_map_pos += got;
		/* drop what was read from the mapping: memory stays flat */
		if (in_map_pos - in_map_done >= IN_MAP_CHUNK) {
			size_t upto = in_map_pos & ~(IN_MAP_CHUNK - 1);

			madvise((void *)(in_map + in_map_done),
				upto - in_map_done, MADV_DONTNEED);
			in_map_done = upto;
		}
		return (long)got;
	}
	while (got < n) {
		int r = gzread(gz, (char *)buf + got, (unsigned int)(n - got));

		if (r <= 0)
			break;
		got += (size_t)r;
	}
	if (got == n)
		return (long)got;
	why = gzerror(gz, &err);
	if (err == Z_OK || err == Z_STREAM_END)
		return (long)got;
	/* zlib prefixes its messages with "<fd:N>: " */
	if (why && !strncmp(why, "<fd:", 4) && strstr(why, ">: "))
		why = strstr(why, ">: ") + 3;
	if (!why || !*why)
		why = "unknown error";
	switch (err) {
	case Z_ERRNO:
		msg("%s: read error: %s", in_name,
		    strerror(errno ? errno : EIO));
		break;
	case Z_BUF_ERROR:
		msg("%s: truncated gzip stream (unexpected end of compressed data)",
		    in_name);
		break;
	case Z_DATA_ERROR:
		msg("%s: corrupt gzip stream: %s", in_name, why);
		break;
	default:
		msg("%s: read error: %s", in_name, why);
		break;
	}
	return -1;
}

/*
 * web10g connection ids (cid.h, the module's own numbering), in a table
 * made at the first web10g line and limited only by memory
 */
static struct magnet_cids cids;

/* the connection id of @r's connection; 0 if out of memory or ids */
static __u32 cid_of(const struct magnet_record *r)
{
	if (!cids.t && magnet_cids_init(&cids, 8, 40))
		return 0;
	return magnet_cid_of(&cids, r->sock_id, magnet_flow_key(r));
}

/*
 * Why @l cannot be a ttprobe record, or NULL. ttprobe wrote no magic and no
 * version, so these are what a record of any ttprobe log satisfies.
 */
static const char *legacy_invalid(const legacy_t *l)
{
	static char why[96];

	if (l->addr_family != MAGNET_LEGACY_AF_INET &&
	    l->addr_family != MAGNET_LEGACY_AF_INET6)
		snprintf(why, sizeof(why), "address family %u (want 2 or 10)",
			 l->addr_family);
	else if (l->direction != 'o' && l->direction != 'i')
		snprintf(why, sizeof(why), "direction %u (want 'o' or 'i')",
			 l->direction);
	else if (l->tv_usec < 0 || l->tv_usec >= 1000000)
		snprintf(why, sizeof(why), "tv_usec %lld (want 0..999999)",
			 (long long)l->tv_usec);
	else if (l->tv_sec < 0 || l->tv_sec >= 10000000000LL)
		snprintf(why, sizeof(why), "tv_sec %lld (want 0..9999999999)",
			 (long long)l->tv_sec);
	else
		return NULL;
	return why;
}

/* the fields of a ttprobe record as a magnet record, for the formatter */
static void from_legacy(struct magnet_record *r, const legacy_t *l)
{
	const __u8 *sp = (const __u8 *)&l->sport, *dp = (const __u8 *)&l->dport;

	memset(r, 0, sizeof(*r));
	r->ts_ns = (__u64)l->tv_sec * 1000000000ULL + (__u64)l->tv_usec * 1000U;
	r->event = l->direction == 'i' ? MAGNET_EV_TCP_IN : MAGNET_EV_TCP_OUT;
	r->flags = MAGNET_RF_SOCK | MAGNET_RF_TCP;
	r->family = l->addr_family == MAGNET_LEGACY_AF_INET6 ?
		    MAGNET_FAMILY_INET6 : MAGNET_FAMILY_INET;
	memcpy(r->laddr, l->src, 16);
	memcpy(r->raddr, l->dst, 16);
	r->lport = (__u16)(sp[0] << 8 | sp[1]);
	r->rport = (__u16)(dp[0] << 8 | dp[1]);
	r->len = l->length;
	r->state = l->sock_state;
	r->snd_nxt = l->snd_nxt;
	r->snd_una = l->snd_una;
	r->snd_wnd = l->snd_wnd;
	r->rcv_wnd = l->rcv_wnd;
	r->cwnd = l->snd_cwnd;
	r->ssthresh = l->ssthresh;
	r->srtt_us = l->srtt;
	r->mss = l->mss_cache;
}

/*
 * ttprobe's 96-byte records: @first holds the first @n bytes read. Written
 * as ttprobe lines (ttprobe's field semantics: the record's ssthresh is
 * tcp_current_ssthresh() already; the counter starts at 0) or copied.
 */
static int decode_legacy(gzFile gz, enum out_format fmt, const void *first,
			 long n)
{
	unsigned long long index = 0, offset = 0;
	char line[MAGNET_TTPROBE_LINE_MAX];
	struct magnet_record rec;
	legacy_t l;
	const char *why;

	memset(&l, 0, sizeof(l));
	memcpy(&l, first, (size_t)n);
	for (; n; index++, offset += sizeof(l)) {
		int len;

		if (n < (long)sizeof(l)) {
			if (!finish_output())
				return EXIT_BADINPUT;
			msg("warning: %s: last ttprobe record truncated: %ld of %zu bytes at byte offset %llu (record index %llu) ignored",
			    in_name, n, sizeof(l), offset, index);
			return EXIT_TRUNCATED;
		}
		why = legacy_invalid(&l);
		if (why) {
			if (!finish_output())
				return EXIT_BADINPUT;
			msg("%s: record index %llu at byte offset %llu: not a ttprobe record: %s",
			    in_name, index, offset, why);
			return EXIT_BADINPUT;
		}
		if (fmt == FMT_LEGACY) {
			if (!put(&l, sizeof(l)))
				return EXIT_BADINPUT;
		} else {
			from_legacy(&rec, &l);
			len = magnet_format_ttprobe_with(line, &rec, index, 0,
							 (__u32)(rec.cwnd * rec.mss),
							 (__u32)(rec.ssthresh * rec.mss));
			if (len <= 0 || len >= (int)sizeof(line)) {
				msg("%s: record index %llu: formatting failed",
				    in_name, index);
				return EXIT_BADINPUT;
			}
			if (!put(line, (size_t)len))
				return EXIT_BADINPUT;
		}
		n = read_full(gz, &l, sizeof(l));
		if (n < 0)
			return EXIT_BADINPUT;
	}
	return finish_output() ? EXIT_OK : EXIT_BADINPUT;
}

static int split_write(struct split_file *sf, int n)
{
	if (n > 0 && fwrite(split_buf, 1, (size_t)n, sf->f) != (size_t)n) {
		msg("%s: %s", sf->path, strerror(errno));
		return -1;
	}
	return 0;
}

/* interface @id's file, opened, its header and what it starts with */
static struct split_file *split_open(enum out_format fmt, unsigned int id)
{
	struct split_file *sf = &splits[id];
	unsigned int layer = (unsigned int)(pcap_w.ifs[id] >> 32);
	__u32 netns = pcap_w.if_ns[id], ifindex = (__u32)pcap_w.ifs[id];
	char ns[24] = "", dev[24];
	size_t n;

	if (netns)
		snprintf(ns, sizeof(ns), "ns%u-", netns);
	if (layer == PCAPW_LAYER_EVENTS)
		snprintf(dev, sizeof(dev), "events");
	else if (layer == MAGNET_LAYER_IP)
		snprintf(dev, sizeof(dev), "ip");
	else
		snprintf(dev, sizeof(dev), "if%u", ifindex);
	n = strlen(split_dir) + sizeof(ns) + sizeof(dev) + 16;
	sf->path = malloc(n);
	sf->w = calloc(1, sizeof(*sf->w));
	if (!sf->path || !sf->w) {
		msg("%s: out of memory", in_name);
		return NULL;
	}
	snprintf(sf->path, n, "%s/%s%s.%s", split_dir, ns, dev,
		 fmt == FMT_PCAPNG ? "pcapng" : "pcap");
	sf->f = fopen(sf->path, "w");
	if (!sf->f) {
		msg("%s: %s", sf->path, strerror(errno));
		return NULL;
	}
	if (id >= nsplits)
		nsplits = id + 1;
	if (split_write(sf, pcapw_begin(sf->w, fmt == FMT_PCAPNG ? PCAPW_NG :
				     fmt == FMT_PCAP ? PCAPW_US : PCAPW_NS,
				     pcap_layers, pcap_dirs, &split_si,
				     PROG " (magnet) " MAGNET_VERSION,
				     split_buf)))
		return NULL;
	sf->w->drops = opt_drops;
	/* only the events interface's file writes events */
	sf->w->events = layer == PCAPW_LAYER_EVENTS;
	if (pcapw_copy_state(sf->w, &pcap_w)) {
		msg("%s: out of memory for the flow table", in_name);
		return NULL;
	}
	return sf;
}

/* a version 3 record's parts, decoded (into @b) */
struct parts_buf {
	struct magnet_v3_rate rate;
	struct magnet_v3_drop drop;
	struct magnet_v3_limit lim;
	struct magnet_v3_tcpev tcpev;
	struct magnet_v3_qdisc qdisc;
	struct magnet_v3_rcvbuf rcvbuf;
	struct magnet_v3_rtoend rtoend;
};

/* the parts the record @d (a version 3 decoder, NULL for version 2) last
 * decoded has, into @b; @pt points at each, NULL where it has none */
static void get_parts(const struct magnet_v3_dec *d, struct parts_buf *b,
		      struct pcapw_parts *pt)
{
	pt->rate = d && magnet_v3_rate(d, &b->rate) ? &b->rate : NULL;
	pt->drop = d && magnet_v3_drop(d, &b->drop) ? &b->drop : NULL;
	pt->lim = d && magnet_v3_limit(d, &b->lim) ? &b->lim : NULL;
	pt->tcpev = d && magnet_v3_tcpev(d, &b->tcpev) ? &b->tcpev : NULL;
	pt->qdisc = d && magnet_v3_qdisc(d, &b->qdisc) ? &b->qdisc : NULL;
	pt->rcvbuf = d && magnet_v3_rcvbuf(d, &b->rcvbuf) ? &b->rcvbuf : NULL;
	pt->rtoend = d && magnet_v3_rtoend(d, &b->rtoend) ? &b->rtoend : NULL;
}

/*
 * --split: record @r to pcap_w, then to its interface's file if a packet,
 * else (the TCP state, a gap) to every file. 0, or an exit status
 */
static int split_record(enum out_format fmt, const struct magnet_record *r,
			const struct pcapw_parts *dp, __u32 netns)
{
	struct split_file *sf;
	unsigned int i;
	int id;

	if (pcapw_record(&pcap_w, r, dp, netns, split_buf) < 0)
		return -1;
	id = pcap_w.last_if;
	/* not a packet: to every file (the TCP state, a gap); an event
	 * (--events) written by its namespace's events file only, the
	 * others keeping its TCP state */
	if (id < 0 || (pcap_w.ifs[id] >> 32) == PCAPW_LAYER_EVENTS) {
		for (i = 0; i < nsplits; i++) {
			int ev, n;

			if (!splits[i].w || (int)i == id)
				continue;
			/* another namespace's events file keeps the state */
			ev = splits[i].w->events;
			splits[i].w->events = 0;
			n = pcapw_record(splits[i].w, r, dp, netns, split_buf);
			splits[i].w->events = ev;
			if (n < 0) {
				pcap_w.err = splits[i].w->err;
				return -1;
			}
		}
		if (id < 0)
			return 0;
	}
	if (!splits) {
		splits = calloc(PCAPW_MAX_IFS, sizeof(*splits));
		if (!splits) {
			msg("%s: out of memory", in_name);
			return EXIT_BADINPUT;
		}
	}
	sf = splits[id].w ? &splits[id] : split_open(fmt, (unsigned int)id);
	if (!sf)
		return EXIT_BADINPUT;
	id = pcapw_record(sf->w, r, dp, netns, split_buf);
	if (id < 0) {
		pcap_w.err = sf->w->err;
		return -1;
	}
	return split_write(sf, id) ? EXIT_BADINPUT : 0;
}

/*
 * --split's end: each file's statistics blocks, closed, and a line each on
 * the output: its path, packets, and what it holds; then what pcap_end
 * says. Closes every file, also after an error (@rc: the run's status)
 */
static int split_end(enum out_format fmt, int rc)
{
	unsigned int i;
	int n;

	for (i = 0; i < nsplits; i++) {
		struct split_file *sf = &splits[i];
		char line[PATH_MAX + 160];
		unsigned long long pk;
		int len;

		if (!sf->w)
			continue;
		pk = sf->w->nifs ? (unsigned long long)sf->w->if_packets[0] : 0;
		do {
			n = pcapw_end(sf->w, split_buf);
			if (rc == EXIT_OK && split_write(sf, n))
				rc = EXIT_BADINPUT;
		} while (n > 0);
		if (sf->f && fclose(sf->f) == EOF && rc == EXIT_OK) {
			msg("%s: %s", sf->path, strerror(errno));
			rc = EXIT_BADINPUT;
		}
		/* a cut log's files hold every complete record: listed */
		if (rc == EXIT_OK || rc == EXIT_TRUNCATED) {
			unsigned int layer = (unsigned int)(pcap_w.ifs[i] >> 32);

			len = snprintf(line, sizeof(line), "%s\t%llu packets\t",
				       sf->path, fmt == FMT_PCAPNG ? pk :
				       (unsigned long long)sf->w->packets);
			if (pcap_w.if_ns[i])
				len += snprintf(line + len, sizeof(line) - (size_t)len,
						"netns %u ", pcap_w.if_ns[i]);
			if (layer == PCAPW_LAYER_EVENTS)
				snprintf(line + len, sizeof(line) - (size_t)len,
					 "events\n");
			else if (layer == MAGNET_LAYER_IP)
				snprintf(line + len, sizeof(line) - (size_t)len,
					 "IP layer\n");
			else
				snprintf(line + len, sizeof(line) - (size_t)len,
					 "ifindex %u\n", (__u32)pcap_w.ifs[i]);
			if (!put(line, strlen(line)) && rc == EXIT_OK)
				rc = EXIT_BADINPUT;
		}
		free(sf->w->flows);
		free(sf->w);
		free(sf->path);
	}
	free(splits);
	splits = NULL;
	nsplits = 0;
	if (rc == EXIT_OK && !pcap_w.packets)
		msg("warning: %s: no packet to write (-L, -d, -n, -I and --drops choose them): no file written",
		    in_name);
	/* pcap_w's blocks go nowhere; its counts say what was lost */
	return rc;
}

/* the pcapng statistics blocks, and what the packets do not show */
static int pcap_end(enum out_format fmt)
{
	int n;

	do {
		char *b = split_dir ? split_buf : out_room(PCAPW_BLOCK_MAX);

		if (!b)
			return EXIT_BADINPUT;
		n = pcapw_end(&pcap_w, b);
		if (!split_dir)
			oused += (size_t)n;
	} while (n > 0);
	if (pcap_w.lost || pcap_w.misses || pcap_w.reset)
		msg("warning: %s: %llu records lost, %llu probe misses, %llu records discarded by reset%s",
		    in_name, (unsigned long long)pcap_w.lost,
		    (unsigned long long)pcap_w.misses,
		    (unsigned long long)pcap_w.reset,
		    fmt == FMT_PCAPNG ?
		    " (each shown in a comment and epb_dropcount where it happened)" :
		    " (a pcap file cannot show where: use -f pcapng)");
	return finish_output() ? EXIT_OK : EXIT_BADINPUT;
}

/*
 * The next event of a version 3 stream into @r, FLOW records taken on the
 * way: 1, 0 at the end, or an exit code. @index and @offset: those of the
 * record read (FLOW records count), @rlen its length.
 */
static int next_v3(gzFile gz, struct magnet_v3_dec *d, int swapped,
		   struct magnet_record *r, unsigned long long *index,
		   unsigned long long *offset, unsigned long long *rlen)
{
	/* static: the event stays here until the next call, for
	 * magnet_v3_rate(), which reads its rate part from it */
	static _Alignas(8) unsigned char b[MAGNET_V3_LEN_LIMIT];
	long n;
	int len, rc;

	for (;;) {
		n = read_full(gz, b, MAGNET_V3_HDR_SIZE);
		if (n < 0)
			return EXIT_BADINPUT;
		if (n == 0)
			return 0;
		if (n < MAGNET_V3_HDR_SIZE) {
			if (!finish_output())
				return EXIT_BADINPUT;
			msg("warning: %s: last record truncated: %ld of its %d-byte header at byte offset %llu (record index %llu) ignored",
			    in_name, n, MAGNET_V3_HDR_SIZE, *offset, *index);
			return EXIT_TRUNCATED;
		}
		len = magnet_v3_record_len(d, b, swapped);
		if (len < 0) {
			if (!finish_output())
				return EXIT_BADINPUT;
			msg("%s: record index %llu at byte offset %llu: %s",
			    in_name, *index, *offset, d->err);
			return EXIT_BADINPUT;
		}
		n = read_full(gz, b + MAGNET_V3_HDR_SIZE,
			      (size_t)len - MAGNET_V3_HDR_SIZE);
		if (n < 0)
			return EXIT_BADINPUT;
		if (n < len - MAGNET_V3_HDR_SIZE) {
			if (!finish_output())
				return EXIT_BADINPUT;
			msg("warning: %s: last record truncated: %ld of %d bytes at byte offset %llu (record index %llu) ignored",
			    in_name, n + MAGNET_V3_HDR_SIZE, len, *offset,
			    *index);
			return EXIT_TRUNCATED;
		}
		rc = magnet_v3_decode(d, b, (unsigned int)len, swapped, r);
		if (rc < 0) {
			if (!finish_output())
				return EXIT_BADINPUT;
			msg("%s: record index %llu at byte offset %llu: %s",
			    in_name, *index, *offset, d->err);
			return EXIT_BADINPUT;
		}
		*rlen = (unsigned long long)len;
		if (rc == 1)
			return 1;
		(*index)++;
		*offset += (unsigned long long)len;
	}
}

/* @s as a decimal number from 1 to 4294967295 into @v: 0, or -1 */
static int parse_u32(const char *s, __u32 *v)
{
	unsigned long long x = 0;

	if (!*s)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		x = x * 10 + (unsigned long long)(*s - '0');
		if (x > 0xffffffffULL)
			return -1;
	}
	if (!x)
		return -1;
	*v = (__u32)x;
	return 0;
}

/* --netns and --ifindex: count @netns among the namespaces seen */
static void seen_netns(__u32 netns)
{
	unsigned int i;

	if (!netns) {
		seen_unknown++;
		return;
	}
	for (i = 0; i < nseen_ns; i++)
		if (seen_ns[i].netns == netns) {
			seen_ns[i].n++;
			return;
		}
	if (nseen_ns == SEEN_NS) {
		seen_more++;
		return;
	}
	seen_ns[nseen_ns].netns = netns;
	seen_ns[nseen_ns++].n = 1;
}

/*
 * Whether an event @r of the namespace @netns (0: unknown) is kept: 1 or
 * 0; -1 (said) if --ifindex alone names an interface of two namespaces
 */
static int select_record(const struct magnet_record *r, __u32 netns)
{
	seen_netns(netns);
	if (sel_netns && netns != sel_netns)
		return 0;
	if (sel_ifindex) {
		if (!(r->flags & MAGNET_RF_DEV) || r->ifindex != sel_ifindex)
			return 0;
		if (!sel_netns) {
			if (sel_kept && netns != sel_if_ns) {
				msg("%s: ifindex %u is in two network namespaces (%u and %u): add --netns to choose one",
				    in_name, sel_ifindex, sel_if_ns, netns);
				return -1;
			}
			sel_if_ns = netns;
		}
	}
	sel_kept++;
	return 1;
}

/* a selection kept nothing: say what the log has */
static void say_nothing_kept(void)
{
	char list[SEEN_NS * 40 + 120], what[64];
	size_t n = 0;
	unsigned int i;

	list[0] = '\0';
	for (i = 0; i < nseen_ns; i++)
		n += (size_t)snprintf(list + n, sizeof(list) - n, "%s%u (%llu)",
				      i ? ", " : "", seen_ns[i].netns,
				      seen_ns[i].n);
	if (seen_more)
		n += (size_t)snprintf(list + n, sizeof(list) - n,
				      ", and %llu events of other namespaces",
				      seen_more);
	if (seen_unknown)
		snprintf(list + n, sizeof(list) - n,
			 "%s%llu events that say no namespace (format 2, or format 3 written before netns)",
			 n ? "; " : "", seen_unknown);
	if (sel_netns && sel_ifindex)
		snprintf(what, sizeof(what), "netns %u and ifindex %u",
			 sel_netns, sel_ifindex);
	else if (sel_netns)
		snprintf(what, sizeof(what), "netns %u", sel_netns);
	else
		snprintf(what, sizeof(what), "ifindex %u", sel_ifindex);
	msg("%s: no record is of %s; the log's events by namespace (their count): %s",
	    in_name, what, n || seen_unknown ? list : "none");
}

/*
 * A log newer than this reader (docs/binary-format.md, "Growing the
 * format"): what it skipped, once the whole log is read
 */
static void say_newer(const struct magnet_v3_dec *d)
{
	char codes[256 * 5] = "", *p = codes;
	unsigned int c;

	if (!d->newer)
		return;
	for (c = 0; c < 256; c++)
		if (d->skipped_codes[c / 8] & (1U << (c % 8)))
			p += sprintf(p, "%s%u", p == codes ? "" : " ", c);
	msg("warning: %s: this log is newer than this reader: its header names additions to version 3 this reader does not know (features 0x%x); %llu records of kinds it does not know were skipped%s%s%s, %llu records longer than it knows were read as far as it knows",
	    in_name, d->newer, (unsigned long long)d->skipped,
	    d->skipped ? " (event codes " : "", codes,
	    d->skipped ? ")" : "", (unsigned long long)d->longer);
}

/* @v3d: a version 3 stream's flow tables, which decode() frees */
static int decode_stream(gzFile gz, enum out_format fmt,
			 enum in_format infmt, int compat,
			 struct magnet_v3_dec *v3d)
{
	union {
		struct magnet_sysinfo si;
		legacy_t l;
	} first;
	struct magnet_sysinfo si;
	struct magnet_record rec;
	struct magnet_ttcount ttcount = { 0 };
	struct magnet_ttstream tt;
	static char head[MAGNET_WEB10G_LINE_MAX > MAGNET_TEXT_LINE_MAX ?
			 MAGNET_WEB10G_LINE_MAX : MAGNET_TEXT_LINE_MAX];
	const int line_max = fmt == FMT_TTPROBE ? MAGNET_TTPROBE_LINE_MAX :
			     fmt == FMT_WEB10G ? MAGNET_WEB10G_LINE_MAX :
			     IS_PCAP(fmt) ? PCAPW_BLOCK_MAX :
			     MAGNET_TEXT_LINE_MAX;
	unsigned long long index = 0, offset, rlen = 0;
	int swapped = 0, v3, rc;
	long n, more;

	/* the first ttprobe record, or the start of magnet's header */
	memset(&first, 0, sizeof(first));
	n = read_full(gz, &first, sizeof(legacy_t));
	if (n < 0)
		return EXIT_BADINPUT;
	if (infmt == IN_AUTO)
		infmt = n >= 4 && (first.si.magic == MAGNET_MAGIC ||
				   first.si.magic == MAGNET_MAGIC_SWAPPED) ?
			IN_MAGNET :
			n == (long)sizeof(legacy_t) && !legacy_invalid(&first.l) ?
			IN_LEGACY : IN_MAGNET;
	if (infmt == IN_LEGACY) {
		if (fmt != FMT_TTPROBE && fmt != FMT_LEGACY) {
			msg("%s: ttprobe's 96-byte records can be written as ttprobe or legacy only",
			    in_name);
			return EXIT_USAGE;
		}
		if (compat == 0) {
			msg("%s: ttprobe's 96-byte records have ttprobe's semantics only (-c ttprobe)",
			    in_name);
			return EXIT_USAGE;
		}
		if (n == 0) {
			msg("%s: empty input, no ttprobe records", in_name);
			return EXIT_BADINPUT;
		}
		return decode_legacy(gz, fmt, &first, n);
	}
	si = first.si;
	if (n == (long)sizeof(legacy_t)) {
		more = read_full(gz, (char *)&si + n, sizeof(si) - (size_t)n);
		if (more < 0)
			return EXIT_BADINPUT;
		n += more;
	}
	magnet_ttstream_open(&tt, &ttcount, compat == 1);
	if (n == 0) {
		msg("%s: empty input, not a magnet log", in_name);
		return EXIT_BADINPUT;
	}
	if (n < 4) {
		msg("%s: only %ld bytes, not a magnet log", in_name, n);
		return EXIT_BADINPUT;
	}
	if (si.magic == MAGNET_MAGIC_SWAPPED) {
		swapped = 1;
		magnet_swap_sysinfo(&si);
	} else if (si.magic != MAGNET_MAGIC) {
		msg("%s: bad magic 0x%08x (want 0x%08x), not a magnet log (nor ttprobe's 96-byte records)",
		    in_name, si.magic, MAGNET_MAGIC);
		return EXIT_BADINPUT;
	}
	if (n >= 6 && si.version != MAGNET_FORMAT_VERSION &&
	    si.version != MAGNET_FORMAT_VERSION_V3) {
		msg("%s: unsupported version %u (this " PROG
		    " reads versions %u and %u)", in_name, si.version,
		    MAGNET_FORMAT_VERSION, MAGNET_FORMAT_VERSION_V3);
		return EXIT_BADINPUT;
	}
	if (n < (long)sizeof(si)) {
		msg("%s: only %ld bytes, shorter than the %zu-byte header, not a complete magnet log",
		    in_name, n, sizeof(si));
		return EXIT_BADINPUT;
	}
	v3 = si.version == MAGNET_FORMAT_VERSION_V3;
	if (v3 && si.record_size != 0) {
		msg("%s: bad record_size %u (version 3 records vary: 0)",
		    in_name, si.record_size);
		return EXIT_BADINPUT;
	}
	if (!v3 && si.record_size != sizeof(rec)) {
		msg("%s: bad record_size %u (version %u records are %zu bytes)",
		    in_name, si.record_size, si.version, sizeof(rec));
		return EXIT_BADINPUT;
	}
	if (si.sysinfo_size != sizeof(si)) {
		msg("%s: bad sysinfo_size %u (the version %u header is %zu bytes)",
		    in_name, si.sysinfo_size, si.version, sizeof(si));
		return EXIT_BADINPUT;
	}

	if (fmt == FMT_MAGNET || fmt == FMT_WEB10G) {
		int len = fmt == FMT_MAGNET ? magnet_format_text_header(head) :
			  magnet_format_web10g_header(head);

		if (!put(head, (size_t)len))
			return EXIT_BADINPUT;
	}
	if (IS_PCAP(fmt)) {
		char *b = split_dir ? split_buf : out_room(PCAPW_BLOCK_MAX);
		int n;

		if (!b)
			return EXIT_BADINPUT;
		/* with --split, pcap_w numbers every interface, in pcapng */
		n = pcapw_begin(&pcap_w,
				fmt == FMT_PCAPNG || split_dir ? PCAPW_NG :
				fmt == FMT_PCAP ? PCAPW_US : PCAPW_NS,
				pcap_layers, pcap_dirs, &si,
				PROG " (magnet) " MAGNET_VERSION, b);
		pcap_w.all_ifs = opt_all_ifs || split_dir;
		pcap_w.drops = opt_drops;
		pcap_w.events = opt_events;
		if (split_dir)
			split_si = si;
		else
			oused += (size_t)n;
	}

	if (fmt == FMT_PARQUET) {
		pq_end = "cut short: the log ended in a truncated record or an error after these rows (ttpb2ascii's message and exit status said which)";
		if (pqw_begin(&pq, put_parquet, NULL,
			      PROG " (magnet) " MAGNET_VERSION)) {
			msg("%s: %s", in_name, pq.err);
			return EXIT_BADINPUT;
		}
		pq_open = 1;
	}
	if (v3 && magnet_v3_dec_init(v3d)) {
		msg("%s: out of memory", in_name);
		return EXIT_BADINPUT;
	}
	if (v3)
		magnet_v3_dec_features(v3d, si.features);
	for (offset = sizeof(si);; index++, offset += rlen) {
		int len = 0;
		char *line;
		__u32 netns;	/* the record's namespace, 0: not said */

		if (v3) {
			rc = next_v3(gz, v3d, swapped, &rec, &index,
				     &offset, &rlen);

			if (rc == 0)
				break;
			if (rc == EXIT_TRUNCATED)
				say_newer(v3d);
			if (rc != 1)
				return rc;
			goto decoded;
		}
		rlen = sizeof(rec);
		n = read_full(gz, &rec, sizeof(rec));
		if (n < 0)
			return EXIT_BADINPUT;
		if (n == 0)
			break;
		if (n < (long)sizeof(rec)) {
			if (!finish_output())
				return EXIT_BADINPUT;
			msg("warning: %s: last record truncated: %ld of %zu bytes at byte offset %llu (record index %llu) ignored",
			    in_name, n, sizeof(rec), offset, index);
			return EXIT_TRUNCATED;
		}
		if (swapped)
			magnet_swap_record(&rec);
		/* version 2's events are 1 to 10: a drop, a TCP or a qdisc
		 * event (12 to 19) has no version 2 form */
		if (!magnet_event_name(rec.event) ||
		    rec.event > MAGNET_EV_RESET) {
			if (!finish_output())
				return EXIT_BADINPUT;
			msg("%s: record index %llu at byte offset %llu: unknown event code %u",
			    in_name, index, offset, rec.event);
			return EXIT_BADINPUT;
		}
		if ((rec.flags & (MAGNET_RF_TCP | MAGNET_RF_HDR)) ==
		    (MAGNET_RF_TCP | MAGNET_RF_HDR)) {
			if (!finish_output())
				return EXIT_BADINPUT;
			msg("%s: record index %llu at byte offset %llu: flags 0x%02x claim both a TCP snapshot and a packet header (they share their bytes)",
			    in_name, index, offset, rec.flags);
			return EXIT_BADINPUT;
		}
		/* a version 3 record: its decoder refused both cases above */
decoded:
		netns = v3 ? v3d->netns : 0;
		if ((sel_netns || sel_ifindex) &&
		    rec.event != MAGNET_EV_LOST && rec.event != MAGNET_EV_RESET) {
			int k = select_record(&rec, netns);

			if (k < 0) {
				finish_output();
				return EXIT_USAGE;
			}
			if (!k)
				continue;
		}

		/* the line goes straight into the output buffer */
		line = out_room((size_t)line_max);
		if (!line)
			return EXIT_BADINPUT;
		switch (fmt) {
		case FMT_TTPROBE:
			if (rec.event != MAGNET_EV_TCP_OUT &&
			    rec.event != MAGNET_EV_TCP_IN)
				continue;
			len = magnet_ttstream_format(&tt, line, &rec,
						     si.realtime_offset_ns);
			break;
		case FMT_MAGNET:
		case FMT_PARQUET: {
			struct parts_buf pb;
			struct pcapw_parts pt;

			get_parts(v3 ? v3d : NULL, &pb, &pt);
			len = magnet_format_text(line, &rec, pt.rate, pt.drop,
						 pt.tcpev, pt.qdisc, pt.lim,
						 pt.rcvbuf, pt.rtoend, netns,
						 si.realtime_offset_ns);
			if (fmt == FMT_MAGNET || len <= 0 || len >= line_max)
				break;
			/* -f parquet: the line, in obuf's room, into the
			 * columns; nothing of it goes out as text */
			if (pqw_line(&pq, line, (size_t)len)) {
				if (!write_failed) {
					finish_output();
					msg("%s: record index %llu: %s",
					    in_name, index, pq.err);
				}
				return EXIT_BADINPUT;
			}
			continue;
		}
		case FMT_WEB10G: {
			struct magnet_v3_limit lm;
			__u32 cid;

			if (!magnet_web10g_has_line(&rec))
				continue;
			cid = cid_of(&rec);
			if (!cid) {
				msg("%s: record index %llu: out of memory for connection ids",
				    in_name, index);
				return EXIT_BADINPUT;
			}
			len = magnet_format_web10g(line, &rec,
						   v3 && magnet_v3_limit(v3d, &lm) ?
						   &lm : NULL,
						   si.realtime_offset_ns, cid);
			break;
		}
		case FMT_PCAPNG:
		case FMT_PCAP:
		case FMT_PCAP_NS: {
			struct parts_buf pb;
			struct pcapw_parts parts;

			get_parts(v3 ? v3d : NULL, &pb, &parts);

			len = split_dir ?
			      split_record(fmt, &rec, &parts, netns) :
			      pcapw_record(&pcap_w, &rec, &parts, netns, line);
			if (split_dir && len > 0)
				return len;
			if (len < 0) {
				if (!finish_output())
					return EXIT_BADINPUT;
				msg("%s: record index %llu at byte offset %llu: %s",
				    in_name, index, offset, pcap_w.err);
				return pcap_w.usage ? EXIT_USAGE : EXIT_BADINPUT;
			}
			break;
		}
		case FMT_LEGACY: {
			legacy_t l;

			if (magnet_format_legacy(&l, &rec,
						 si.realtime_offset_ns) &&
			    !put(&l, sizeof(l)))
				return EXIT_BADINPUT;
			continue;
		}
		}
		/* cannot happen: format*.c's lines fit their buffers */
		if (len < 0 || len >= line_max) {
			msg("%s: record index %llu: formatting failed",
			    in_name, index);
			return EXIT_BADINPUT;
		}
		oused += (size_t)len;
	}
	if ((sel_netns || sel_ifindex) && !sel_kept) {
		finish_output();
		say_nothing_kept();
		return EXIT_USAGE;
	}
	rc = split_dir ? split_end(fmt, EXIT_OK) : EXIT_OK;
	pq_end = v3 && v3d->newer ?
		 "complete as far as this reader knows: the log is newer, and ttpb2ascii's warning said what it skipped" :
		 "complete";
	if (rc == EXIT_OK)
		rc = IS_PCAP(fmt) ? pcap_end(fmt) :
		     finish_output() ? EXIT_OK : EXIT_BADINPUT;
	/* after everything it read is out, as on a cut log (next_v3) */
	if (v3)
		say_newer(v3d);
	return rc;
}

static int decode(gzFile gz, enum out_format fmt, enum in_format infmt,
		  int compat)
{
	struct magnet_v3_dec v3d = { 0 };
	int rc = decode_stream(gz, fmt, infmt, compat, &v3d);

	magnet_v3_dec_free(&v3d);
	return rc;
}

/* decode(), ended cleanly if a mapped input shrinks under it (SIGBUS) */
static int decode_mapped(gzFile gz, enum out_format fmt, enum in_format infmt,
			 int compat)
{
	if (in_map && sigsetjmp(in_map_fault, 1)) {
		in_map = NULL;
		finish_output();
		msg("%s: read error: the file shrank while it was read (at byte offset %zu)",
		    in_name, in_map_pos);
		return EXIT_BADINPUT;
	}
	return decode(gz, fmt, infmt, compat);
}

enum { OPT_SPLIT = 1000, OPT_ALL_IFS, OPT_DROPS, OPT_EVENTS };

/*
 * A refused run's -o OUT: removed if this run created it, emptied if it
 * was a regular file before (opening it truncated it already), and only
 * while OUT is still that file; anything else (/dev/null, a FIFO, a
 * device) is left alone.
 */
static void drop_output(void)
{
	struct stat st;

	if (!out_reg || stat(out_name, &st) ||
	    st.st_dev != out_reg_st.st_dev || st.st_ino != out_reg_st.st_ino)
		return;
	if (out_created)
		unlink(out_name);
	else if (truncate(out_name, 0))
		msg("%s: %s", out_name, strerror(errno));
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "input", required_argument, NULL, 'i' },
		{ "compat", required_argument, NULL, 'c' },
		{ "output", required_argument, NULL, 'o' },
		{ "layers", required_argument, NULL, 'L' },
		{ "direction", required_argument, NULL, 'd' },
		{ "netns", required_argument, NULL, 'n' },
		{ "ifindex", required_argument, NULL, 'I' },
		{ "split", required_argument, NULL, OPT_SPLIT },
		{ "all-interfaces", no_argument, NULL, OPT_ALL_IFS },
		{ "drops", no_argument, NULL, OPT_DROPS },
		{ "events", no_argument, NULL, OPT_EVENTS },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	enum out_format fmt = FMT_TTPROBE;
	enum in_format infmt = IN_AUTO;
	int compat = -1;	/* -1: not given */
	gzFile gz;
	int fd = STDIN_FILENO, c, ret;

	/* a fresh start, also when main() runs again (the fuzz harness) */
	in_name = out_name = "-";
	out = NULL;
	in_map = NULL;
	in_map_len = in_map_pos = in_map_done = 0;
	oused = 0;
	write_failed = 0;
	pq_open = 0;
	memset(&cids, 0, sizeof(cids));
	memset(&pcap_w, 0, sizeof(pcap_w));
	pcap_layers = 0;
	pcap_dirs = 0;
	sel_netns = sel_ifindex = 0;
	sel_kept = 0;
	nseen_ns = 0;
	seen_unknown = seen_more = 0;
	sel_if_ns = 0;
	opt_all_ifs = opt_drops = opt_events = 0;
	split_dir = NULL;
	splits = NULL;
	nsplits = 0;
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":f:i:c:o:L:d:n:I:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'f':
			if (!strcmp(optarg, "ttprobe")) {
				fmt = FMT_TTPROBE;
			} else if (!strcmp(optarg, "magnet")) {
				fmt = FMT_MAGNET;
			} else if (!strcmp(optarg, "web10g")) {
				fmt = FMT_WEB10G;
			} else if (!strcmp(optarg, "legacy")) {
				fmt = FMT_LEGACY;
			} else if (!strcmp(optarg, "parquet")) {
				fmt = FMT_PARQUET;
			} else if (!strcmp(optarg, "pcapng")) {
				fmt = FMT_PCAPNG;
			} else if (!strcmp(optarg, "pcap")) {
				fmt = FMT_PCAP;
			} else if (!strcmp(optarg, "pcap-ns")) {
				fmt = FMT_PCAP_NS;
			} else {
				msg("unknown format '%s' (ttprobe, magnet, web10g, legacy, parquet, pcapng, pcap or pcap-ns); try --help",
				    optarg);
				return EXIT_USAGE;
			}
			break;
		case 'i':
			if (!strcmp(optarg, "auto")) {
				infmt = IN_AUTO;
			} else if (!strcmp(optarg, "magnet")) {
				infmt = IN_MAGNET;
			} else if (!strcmp(optarg, "legacy")) {
				infmt = IN_LEGACY;
			} else {
				msg("unknown input format '%s' (auto, magnet or legacy); try --help",
				    optarg);
				return EXIT_USAGE;
			}
			break;
		case 'c':
			if (!strcmp(optarg, "magnet")) {
				compat = 0;
			} else if (!strcmp(optarg, "ttprobe")) {
				compat = 1;
			} else {
				msg("unknown semantics '%s' (magnet or ttprobe); try --help",
				    optarg);
				return EXIT_USAGE;
			}
			break;
		case 'o':
			out_name = optarg;
			break;
		case 'L':
			if (!strcmp(optarg, "dev")) {
				pcap_layers = MAGNET_LAYER_DEV;
			} else if (!strcmp(optarg, "ip")) {
				pcap_layers = MAGNET_LAYER_IP;
			} else if (!strcmp(optarg, "ip,dev") ||
				   !strcmp(optarg, "dev,ip")) {
				pcap_layers = MAGNET_LAYER_IP | MAGNET_LAYER_DEV;
			} else {
				msg("unknown layers '%s' (dev, ip or ip,dev); try --help",
				    optarg);
				return EXIT_USAGE;
			}
			break;
		case 'd':
			if (!strcmp(optarg, "in")) {
				pcap_dirs = PCAPW_DIR_IN;
			} else if (!strcmp(optarg, "out")) {
				pcap_dirs = PCAPW_DIR_OUT;
			} else if (!strcmp(optarg, "both")) {
				pcap_dirs = PCAPW_DIR_IN | PCAPW_DIR_OUT;
			} else {
				msg("unknown direction '%s' (in, out or both); try --help",
				    optarg);
				return EXIT_USAGE;
			}
			break;
		case 'n':
		case 'I':
			if (parse_u32(optarg, c == 'n' ? &sel_netns :
						 &sel_ifindex)) {
				msg("%s '%s': not a number from 1 to 4294967295; try --help",
				    c == 'n' ? "--netns" : "--ifindex", optarg);
				return EXIT_USAGE;
			}
			break;
		case OPT_SPLIT:
			split_dir = optarg;
			break;
		case OPT_ALL_IFS:
			opt_all_ifs = 1;
			break;
		case OPT_DROPS:
			opt_drops = 1;
			break;
		case OPT_EVENTS:
			opt_events = 1;
			break;
		case 'h':
			usage(stdout);
			return EXIT_OK;
		case 'V':
			printf(PROG " (magnet) %s\n", MAGNET_VERSION);
			return EXIT_OK;
		case ':':
			msg("option '%s' needs an argument; try --help",
			    argv[optind - 1]);
			return EXIT_USAGE;
		default:
			if (optopt)
				msg("unknown option '-%c'; try --help", optopt);
			else
				msg("unknown option '%s'; try --help",
				    argv[optind - 1]);
			return EXIT_USAGE;
		}
	}
	if (compat >= 0 && fmt != FMT_TTPROBE) {
		msg("-c applies to -f ttprobe only; try --help");
		return EXIT_USAGE;
	}
	if ((pcap_layers || pcap_dirs || split_dir) && !IS_PCAP(fmt)) {
		msg("-L, -d and --split apply to -f pcapng, pcap and pcap-ns only; try --help");
		return EXIT_USAGE;
	}
	if ((opt_all_ifs || opt_drops || opt_events) && fmt != FMT_PCAPNG) {
		msg("--all-interfaces, --drops and --events apply to -f pcapng only; try --help");
		return EXIT_USAGE;
	}
	if (split_dir && opt_all_ifs) {
		msg("--split writes a file per interface: not with --all-interfaces; try --help");
		return EXIT_USAGE;
	}
	if (split_dir && !*split_dir) {
		msg("--split: an empty directory name; try --help");
		return EXIT_USAGE;
	}
	if (sel_ifindex && (fmt == FMT_TTPROBE || fmt == FMT_WEB10G ||
			    fmt == FMT_LEGACY)) {
		msg("-I keeps device events, which -f ttprobe, web10g and legacy do not show; try --help");
		return EXIT_USAGE;
	}
	if (sel_ifindex && pcap_layers == MAGNET_LAYER_IP) {
		msg("-I keeps device events, and -L ip writes the IP layer's; try --help");
		return EXIT_USAGE;
	}
	if (!pcap_layers)
		pcap_layers = MAGNET_LAYER_DEV;
	if (!pcap_dirs)
		pcap_dirs = PCAPW_DIR_IN | PCAPW_DIR_OUT;
	if (argc - optind > 1) {
		msg("more than one input file; try --help");
		return EXIT_USAGE;
	}
	if (argc - optind == 1)
		in_name = argv[optind];

	if (strcmp(in_name, "-")) {
		fd = open(in_name, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			msg("%s: %s", in_name, strerror(errno));
			return EXIT_BADINPUT;
		}
	} else {
		in_name = "standard input";
	}
	map_input(fd);
	gz = gzdopen(fd, "rb");
	if (!gz) {
		msg("%s: cannot read: %s", in_name,
		    errno ? strerror(errno) : "out of memory");
		return EXIT_BADINPUT;
	}
	gzbuffer(gz, 1 << 17);

	if (strcmp(out_name, "-")) {
		struct stat in_st, out_st;
		int existed = !stat(out_name, &out_st);

		/* opening OUT would truncate the input before it is read */
		if (existed && !fstat(fd, &in_st) &&
		    in_st.st_dev == out_st.st_dev &&
		    in_st.st_ino == out_st.st_ino) {
			msg("%s: the output is the input file", out_name);
			gzclose(gz);
			return EXIT_USAGE;
		}
		out = fopen(out_name, "w");
		if (!out) {
			msg("%s: %s", out_name, strerror(errno));
			gzclose(gz);
			return EXIT_BADINPUT;
		}
		if (!fstat(fileno(out), &out_reg_st) &&
		    S_ISREG(out_reg_st.st_mode)) {
			out_reg = 1;
			out_created = !existed;
		}
	} else {
		out = stdout;
	}
	setvbuf(out, NULL, _IONBF, 0);

	if (split_dir && mkdir(split_dir, 0777) && errno != EEXIST) {
		msg("%s: %s", split_dir, strerror(errno));
		gzclose(gz);
		return EXIT_BADINPUT;
	}
	ret = decode_mapped(gz, fmt, infmt, compat);
	if (splits)	/* an early end: the files closed (listed if cut) */
		split_end(fmt, ret == EXIT_OK ? EXIT_BADINPUT : ret);
	magnet_cids_free(&cids);
	pcapw_free(&pcap_w);
	/* after an early error, still write out what was decoded before it */
	if (!finish_output())
		ret = EXIT_BADINPUT;
	/* a selection or a file's one interface refused the log: no file
	 * that looks whole but holds part of what was asked */
	if (ret == EXIT_USAGE && strcmp(out_name, "-"))
		drop_output();
	gzclose(gz);
	if (in_map)
		munmap((void *)in_map, in_map_len);
	return ret;
}
