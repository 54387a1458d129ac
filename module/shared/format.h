/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Record formatting shared by the kernel (omode=0, 2 and 3 reads) and
 * userspace (ttpb2ascii), so both write byte-identical text.
 */
#ifndef MAGNET_FORMAT_H
#define MAGNET_FORMAT_H

#include "shared.h"
#include "record.h"

struct magnet_v3_slot;	/* v3.h */

/* Longest ttprobe line, including the newline and the terminating NUL. */
#define MAGNET_TTPROBE_LINE_MAX 320
/* Longest magnet text line (header or record), newline and NUL included. */
#define MAGNET_TEXT_LINE_MAX 1152
/*
 * The magnet text's columns, in their order, a table per group of columns
 * that a record fills or leaves empty together (magnet_format_text() says
 * what fills each). Entries have schema.h's shape, X(type, name, dims,
 * kind), so that a group of record fields shown as they are is schema.h's
 * own table: the TCP snapshot (MAGNET_V2_SNAP) and the connection's
 * counters (MAGNET_V2_CONN), whose columns format_text.c writes by their
 * type. Only name is used otherwise: the column's name in the header.
 * The header, the column count, where a column is and how many an empty
 * group takes are all counted from these.
 */
#define MAGNET_TEXT_COLS_HEAD(X)					\
	X(, time, , ) X(, cpu, , ) X(, event, , ) X(, sock, , )		\
	X(, family, , ) X(, laddr, , ) X(, lport, , ) X(, raddr, , )	\
	X(, rport, , ) X(, state, , ) X(, len, , )
#define MAGNET_TEXT_COLS_SEQ(X) X(, seq, , ) X(, end_seq, , )	/* RF_SEQ */
#define MAGNET_TEXT_COLS_MARK(X) X(, mark, , )
#define MAGNET_TEXT_COLS_APP(X)		/* RF_APP */			\
	X(, pid, , ) X(, comm, , ) X(, req, , ) X(, ret, , )
/* RF_TCP: the snapshot (MAGNET_V2_SNAP), then these */
#define MAGNET_TEXT_COLS_CA(X) X(, ca_state, , ) X(, ca_name, , )
#define MAGNET_TEXT_COLS_WHERE(X) X(, ifindex, , ) X(, netns, , )
#define MAGNET_TEXT_COLS_IP(X)		/* RF_IP */			\
	X(, ip_id, , ) X(, ip_tos, , ) X(, ip_ttl, , ) X(, ip_proto, , )
#define MAGNET_TEXT_COLS_TCP(X)		/* RF_TCP: version 2's tail */	\
	MAGNET_V2_CONN(X)						\
	X(, snd_wscale, , ) X(, rcv_wscale, , ) X(, opts, , )
#define MAGNET_TEXT_COLS_RATE(X)	/* a rate part, and RF_TCP */	\
	X(, pacing_rate, , ) X(, delivery_rate, , ) X(, delivered, , )	\
	X(, delivered_ce, , ) X(, lost_out, , ) X(, sacked_out, , )	\
	X(, app_limited, , )
#define MAGNET_TEXT_COLS_BBR(X)		/* and the rate part is BBR's */ \
	X(, bbr_bw, , ) MAGNET_V3_BBR_WORDS(X)
#define MAGNET_TEXT_COLS_DROP(X)	/* a drop part */		\
	X(, drop_reason, , ) X(, drop_where, , )
#define MAGNET_TEXT_COLS_TCPEV(X)	/* a TCP event part */		\
	X(, prev_state, , ) X(, kind, , ) X(, timeouts, , )
#define MAGNET_TEXT_COLS_QDISC(X)	/* a qdisc part */		\
	X(, qdisc, , ) X(, qdisc_handle, , ) X(, qdisc_qlen, , )	\
	X(, qdisc_backlog, , )
#define MAGNET_TEXT_COLS_LIMIT(X)	/* a limit part */		\
	X(, chrono, , ) X(, chrono_us, , ) X(, busy_us, , )		\
	X(, rwnd_limited_us, , ) X(, sndbuf_limited_us, , )		\
	X(, reordering, , ) X(, reord_seen, , ) X(, dsack_dups, , )
#define MAGNET_TEXT_COLS_RCVBUF(X)	/* an rcvbuf part */		\
	X(, rcvbuf, , ) X(, rcvbuf_before, , ) X(, window_clamp, , )	\
	X(, window_clamp_before, , ) X(, rcv_ssthresh, , )		\
	X(, rcv_space, , ) X(, rcv_rtt_us, , )
#define MAGNET_TEXT_COLS_RTO(X)	/* a TCP event part with RTO totals */ \
	X(, total_rto, , ) X(, total_rto_recoveries, , )
#define MAGNET_TEXT_COLS_RTOEND(X)	/* an rtoend part */		\
	X(, total_rto_time, , ) X(, rto_recovery_ms, , )
#define MAGNET_TEXT_COLS_LOST(X) X(, lost, , )	/* LOST and RESET */

/* every column, in order */
#define MAGNET_TEXT_COLUMNS(X)						\
	MAGNET_TEXT_COLS_HEAD(X) MAGNET_TEXT_COLS_SEQ(X)		\
	MAGNET_TEXT_COLS_MARK(X) MAGNET_TEXT_COLS_APP(X)		\
	MAGNET_V2_SNAP(X) MAGNET_TEXT_COLS_CA(X)			\
	MAGNET_TEXT_COLS_WHERE(X) MAGNET_TEXT_COLS_IP(X)		\
	MAGNET_TEXT_COLS_TCP(X) MAGNET_TEXT_COLS_RATE(X)		\
	MAGNET_TEXT_COLS_BBR(X) MAGNET_TEXT_COLS_DROP(X)		\
	MAGNET_TEXT_COLS_TCPEV(X) MAGNET_TEXT_COLS_QDISC(X)		\
	MAGNET_TEXT_COLS_LIMIT(X) MAGNET_TEXT_COLS_RCVBUF(X)		\
	MAGNET_TEXT_COLS_RTO(X) MAGNET_TEXT_COLS_RTOEND(X)		\
	MAGNET_TEXT_COLS_LOST(X)

/* how many columns a table has: MAGNET_TEXT_N(MAGNET_TEXT_COLS_IP) */
#define MAGNET_TEXT_ONE(type, name, dims, kind) + 1
#define MAGNET_TEXT_N(table) (0 table(MAGNET_TEXT_ONE))
/* Columns of the magnet text format (header and every line). */
#define MAGNET_TEXT_NCOLS MAGNET_TEXT_N(MAGNET_TEXT_COLUMNS)
/* 1-based: where a lost line's misses go, `ret` */
#define MAGNET_TEXT_COL_RET						\
	(MAGNET_TEXT_N(MAGNET_TEXT_COLS_HEAD) +				\
	 MAGNET_TEXT_N(MAGNET_TEXT_COLS_SEQ) +				\
	 MAGNET_TEXT_N(MAGNET_TEXT_COLS_MARK) +				\
	 MAGNET_TEXT_N(MAGNET_TEXT_COLS_APP))
/*
 * Longest web10g line (the header is the longest), newline and NUL
 * included, with a margin; tests/unit/test_web10g.c checks that the header
 * and a record with every field at its maximum fit.
 */
#define MAGNET_WEB10G_LINE_MAX 2048
/* Columns of a web10g line: 6 fixed ones and 122 variables. */
#define MAGNET_WEB10G_NCOLS 128

/*
 * Format one record as a ttprobe ASCII line (17 comma-separated fields and a
 * newline), see docs/compat-formats.md, section 1, "ttprobe ASCII lines".
 * @counter is field 7, the line number of the output; @realtime_offset_ns
 * converts the record's monotonic timestamp to CLOCK_REALTIME. @buf must
 * hold MAGNET_TTPROBE_LINE_MAX bytes. Returns the line length without the
 * NUL, or 0 if the record is not a TCP-layer event (no ttprobe line exists
 * for it).
 */
int magnet_format_ttprobe(char *buf, const struct magnet_record *r,
			  __u64 counter, __s64 realtime_offset_ns);

/*
 * Fields 10 and 11 and field 7 differ between magnet's own ttprobe lines and
 * ttprobe v0.1.2's (compat=ttprobe, the default of the ttprobe build):
 *
 *              magnet (compat=magnet)        ttprobe (compat=ttprobe)
 *   field 7    1, 2, ... per open            0, 1, ... since load, never
 *                                            reset by an open
 *   field 10   snd_cwnd * mss, 64-bit        the same product, u32
 *   field 11   snd_ssthresh * mss, 64-bit    tcp_current_ssthresh() * mss,
 *                                            u32
 *
 * magnet_format_ttprobe() writes the magnet line,
 * magnet_format_ttprobe_compat() the ttprobe one; both from the record's
 * snapshot (cwnd, ssthresh and ca_state are taken together in the probe
 * handler). magnet_format_ttprobe_with() takes fields 10 and 11 as given.
 */
int magnet_format_ttprobe_compat(char *buf, const struct magnet_record *r,
				 __u64 counter, __s64 realtime_offset_ns);
int magnet_format_ttprobe_with(char *buf, const struct magnet_record *r,
			       __u64 counter, __s64 realtime_offset_ns,
			       __u64 cwnd_bytes, __u64 ssthresh_bytes);

/* icsk_ca_state values (include/net/tcp.h), as record.ca_state holds them */
#define MAGNET_CA_OPEN 0
#define MAGNET_CA_DISORDER 1
#define MAGNET_CA_CWR 2
#define MAGNET_CA_RECOVERY 3
#define MAGNET_CA_LOSS 4

/*
 * The kernel's tcp_current_ssthresh() on the record's snapshot, in packets:
 * snd_ssthresh while the socket reduces its window (ca_state CWR or
 * Recovery), otherwise max(snd_ssthresh, 3/4 of cwnd), that is
 * max(snd_ssthresh, (cwnd >> 1) + (cwnd >> 2)).
 */
__u32 magnet_current_ssthresh(const struct magnet_record *r);

/*
 * Field 7 across opens. A module (or a decoder run) has one struct
 * magnet_ttcount; each open (or input file) one struct magnet_ttstream.
 * compat=magnet numbers the lines of each open 1, 2, ...; compat=ttprobe
 * numbers every line formatted since load 0, 1, ..., and an open does not
 * restart it. magnet_ttstream_format() formats @r in the stream's
 * semantics and advances the counter when it wrote a line (return as
 * magnet_format_ttprobe).
 */
struct magnet_ttcount {
	__u64 since_load;	/* the next ttprobe counter value */
};

/*
 * What consecutive lines of a stream share, kept as text: the seconds of the
 * timestamp, fields 3-6 (addresses and ports) of the last sockets, and each
 * socket's fields 8-14 (mss to state), which change on few of its lines.
 * Copying them is cheaper than writing them out again; the lines are the
 * same bytes either way (test_format checks). The tuples' texts are copied
 * in 48-byte pieces of whole words (format_ttprobe.c, magnet_put_cached),
 * up to 47 bytes past their end, so each array holds MAGNET_TTCACHE_TXT
 * bytes, more than its longest text; the seconds in three words.
 */
#define MAGNET_TTCACHE_TXT 96

/*
 * The text of a connection end's "laddr,lport,raddr,rport". @key and @gen:
 * the flow a view from a version 3 record named (its decoder's slot and
 * generation, struct magnet_ttview), which then finds it without comparing
 * the addresses. @mid_txt: "mss,srtt,cwnd,ssthresh,snd_wnd,rcv_wnd,state,"
 * of the values @mid (packed as magnet_ttprobe_line() packs them) as the
 * socket's last line wrote them; it is found by those values, so a line of
 * another socket with the same values would be right to take it too.
 */
struct magnet_tttuple {
	__u8 len;		/* 0: none yet */
	__u8 family;
	__u16 lport, rport;
	__u8 mid_len;		/* 0: none yet */
	__u8 laddr[16], raddr[16];
	const void *key;
	__u64 gen;
	__u64 mid[5];
	char txt[MAGNET_TTCACHE_TXT];		/* at most 91 */
	char mid_txt[MAGNET_TTCACHE_TXT];	/* at most 90 */
};

/*
 * The last few tuples: both ends of a connection traced on one host
 * alternate, and a tuple's text costs about 100 instructions
 * (make bench-profile).
 */
#define MAGNET_TTCACHE_TUPLES 4

struct magnet_ttcache {
	__u64 sec;		/* whose text sec_txt holds */
	__u8 sec_len;		/* 0: none yet */
	__u8 next;		/* the tuple slot to replace next */
	char sec_txt[24];	/* at most 20 */
	struct magnet_tttuple tuple[MAGNET_TTCACHE_TUPLES];
};

struct magnet_ttstream {
	struct magnet_ttcount *count;
	__u64 lines;		/* lines of this open */
	int compat;		/* 1: ttprobe's fields 7, 10 and 11 */
	struct magnet_ttcache cache;
};

void magnet_ttstream_open(struct magnet_ttstream *s, struct magnet_ttcount *c,
			  int compat);
int magnet_ttstream_format(struct magnet_ttstream *s, char *buf,
			   const struct magnet_record *r,
			   __s64 realtime_offset_ns);

/*
 * What a ttprobe line shows of a TCP event, read in place from a version 3
 * record in the reader's byte order (magnet_ttstream_format_v3), so the module's
 * omode=0 reader formats the records its writers put in the rings without
 * decoding each into a 256-byte struct magnet_record first (make
 * bench-insn: 187 instructions a line). @key, @gen: the flow's slot in the
 * decoder and the decoder's generation (struct magnet_v3_dec), which
 * together name the tuple until a FLOW, LOST or RESET record changes the
 * flow tables; @key NULL: compare the tuple's fields.
 */
struct magnet_ttview {
	__u64 ts_ns;
	const __u8 *laddr, *raddr;
	const void *key;
	__u64 gen;
	__u32 len, mss, srtt_us, cwnd, ssthresh, snd_wnd, rcv_wnd, snd_una,
	      snd_nxt;
	__u16 lport, rport;
	__u8 event, family, state, ca_state;
};

/*
 * magnet_ttstream_format() of the version 3 TCP event record at @rec (a
 * TCP_OUT or TCP_IN record of MAGNET_V3_TCP_SIZE bytes or more, in this
 * host's byte order: v3.h's magnet_v3_tcp_flow() says which) whose flow is
 * @flow (its decoder's slot: family, ports, addresses), with @key @flow
 * and @gen, the decoder's generation, as above: the same line, byte for
 * byte, as from the record magnet_v3_decode() makes of it.
 */
int magnet_ttstream_format_v3(struct magnet_ttstream *s, char *buf,
			      const void *rec,
			      const struct magnet_v3_slot *flow, __u64 gen,
			      __s64 realtime_offset_ns);

/*
 * ttprobe's 96-byte binary record (record.h) of a TCP-layer record, in
 * ttprobe's semantics: wall-clock timeval, direction 'o'/'i', ssthresh as
 * tcp_current_ssthresh() in packets, length saturated at 65535, padding
 * zeroed. Returns MAGNET_LEGACY_RECORD_SIZE, or 0 (and @l untouched) for
 * any other event.
 */
int magnet_format_legacy(struct magnet_legacy_record *l,
			 const struct magnet_record *r,
			 __s64 realtime_offset_ns);

/*
 * The magnet text format (omode=3): one tab-separated line per record with
 * every field, fields that do not apply left empty; the header line names
 * the MAGNET_TEXT_NCOLS columns, and every line has that many. LOST and
 * RESET lines have only time, cpu, event and the last column, `lost`, with
 * the count (req); a LOST record's probe misses (ret), when not 0, go in
 * the `ret` column. @rate: the record's rate part (version 3's RF_RATE),
 * or NULL; its columns (pacing_rate .. bbr_cwnd_gain) are empty without
 * one, the bbr_* ones unless the congestion control is BBR. @drop: a DROP
 * event's drop part (magnet_v3_drop()), or NULL: drop_reason is its
 * reason's name ("unknown" when the kernel gives none, the number when it
 * has no name for it), drop_where the function that dropped it; both
 * empty without one. @ev: a RETRANS, RTO, TLP or STATE event's TCP event
 * part (magnet_v3_tcpev()), or NULL: prev_state is a STATE event's state
 * left, kind a RETRANS event's kind (rto, fast, tlp; the number
 * if unknown), timeouts an RTO event's timeouts before it; each empty
 * otherwise; total_rto and total_rto_recoveries, any TCP event's where
 * its part says the kernel keeps them (rto_totals), an RTO_END event's
 * from its rtoend part, else empty. @qd: a
 * QDISC event's qdisc part (magnet_v3_qdisc()), or NULL: qdisc its kind,
 * qdisc_handle its handle as tc writes it (hex major:minor), qdisc_qlen
 * and qdisc_backlog what it still held (empty when not known); each empty
 * otherwise. @lim: a TCP_OUT, TCP_IN or TCP
 * event's limit part (magnet_v3_limit()), or NULL: chrono the running
 * chronograph (none, busy, rwnd, sndbuf), chrono_us how long it has run,
 * busy_us, rwnd_limited_us and sndbuf_limited_us tcp_info's
 * tcpi_busy_time (the three chronographs summed), tcpi_rwnd_limited and
 * tcpi_sndbuf_limited, in µs as the kernel computes them, then
 * reordering, reord_seen and dsack_dups; each empty otherwise. @rb: an
 * RCVBUF event's rcvbuf part (magnet_v3_rcvbuf()), or NULL: rcvbuf,
 * rcvbuf_before, window_clamp, window_clamp_before, rcv_ssthresh (bytes),
 * rcv_space (bytes read in the last measured round trip) and rcv_rtt_us;
 * each empty otherwise. @re: an RTO_END event's rtoend part
 * (magnet_v3_rtoend()), or NULL: total_rto_time (ms in RTO recoveries
 * as the kernel sums them: this one included where it ended into Open)
 * and rto_recovery_ms (this one's), and the RTO totals above; each empty otherwise. @netns: the
 * event's network namespace (version 3's FLOW record), 0 if unknown: an
 * empty column. @buf must hold
 * MAGNET_TEXT_LINE_MAX bytes. Return the length (0 for an unknown event
 * code).
 */
int magnet_format_text_header(char *buf);
int magnet_format_text(char *buf, const struct magnet_record *r,
		       const struct magnet_v3_rate *rate,
		       const struct magnet_v3_drop *drop,
		       const struct magnet_v3_tcpev *ev,
		       const struct magnet_v3_qdisc *qd,
		       const struct magnet_v3_limit *lim,
		       const struct magnet_v3_rcvbuf *rb,
		       const struct magnet_v3_rtoend *re, __u32 netns,
		       __s64 realtime_offset_ns);
/* tcp_info's delivery rate (bytes/s) of a rate part, with the MSS @mss */
__u64 magnet_delivery_rate(const struct magnet_v3_rate *x, __u32 mss);

/*
 * web10g-logger lines (omode=2), see docs/compat-formats.md, section 4
 * ("web10g-logger lines"), and docs/web10g.md: the header names the 128
 * comma-separated columns (Timestamp, CID, the four address and port
 * columns, then the 122 RFC 4898 variables of web10g userland 2.0.9). A record line gives the
 * wall-clock time (sec.usec), @cid, the addresses and ports, and each
 * variable in RFC 4898 units; a variable the record cannot supply is empty.
 * The caller assigns @cid, a small number per connection: 1, 2, ... in order
 * of first appearance, a connection being a sock_id (never another
 * socket's) with one flow (magnet_flow_key), so a socket connected again
 * to another peer gets a new id. @buf must hold
 * MAGNET_WEB10G_LINE_MAX bytes. @lim: the record's limit part, or NULL
 * (then SndLimTime*, RetranThresh and DSACKDups are empty). Return the
 * length without the NUL; for a
 * record that is not a TCP-layer event (tcp_out, tcp_in) there is no line:
 * 0, and @buf is left as it was.
 */
int magnet_format_web10g_header(char *buf);
/* 1 if @r has a web10g line (a TCP-layer event of a connection, not of a
 * listener); only those are given a cid */
int magnet_web10g_has_line(const struct magnet_record *r);
int magnet_format_web10g(char *buf, const struct magnet_record *r,
			 const struct magnet_v3_limit *lim,
			 __s64 realtime_offset_ns, __u32 cid);

/*
 * A 32-bit key of a record's flow (family, ports, addresses, mixed a word
 * at a time), which tells a socket's new connection from its old one. The
 * kernel's web10g output and ttpb2ascii both use it, so they number alike.
 */
__u32 magnet_flow_key(const struct magnet_record *r);

/* "tcp_out", "app_send", ..., "lost", "reset", or NULL for an unknown code. */
const char *magnet_event_name(unsigned int event);

#endif /* MAGNET_FORMAT_H */
