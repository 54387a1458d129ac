/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Record formatting shared by the kernel (omode=0, 2 and 3 reads) and
 * userspace (ttpb2ascii), so both write byte-identical text.
 */
#ifndef MAGNET_FORMAT_H
#define MAGNET_FORMAT_H

#include "shared.h"
#include "record.h"

/* Longest ttprobe line, including the newline and the terminating NUL. */
#define MAGNET_TTPROBE_LINE_MAX 320
/* Longest magnet text line (header or record), newline and NUL included. */
#define MAGNET_TEXT_LINE_MAX 1024
/* Columns of the magnet text format (header and every line). */
#define MAGNET_TEXT_NCOLS 56
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
 * newline), see compat-formats.md section 1. @counter is field 7, the line
 * number of the output; @realtime_offset_ns converts the record's monotonic
 * timestamp to CLOCK_REALTIME. @buf must hold MAGNET_TTPROBE_LINE_MAX bytes.
 * Returns the line length without the NUL, or 0 if the record is not a
 * TCP-layer event (no ttprobe line exists for it).
 */
int magnet_format_ttprobe(char *buf, const struct magnet_record *r,
			  __u64 counter, __s64 realtime_offset_ns);

/*
 * The magnet text format (omode=3): one tab-separated line per record with
 * every field, fields that do not apply left empty; the header line names
 * the MAGNET_TEXT_NCOLS columns, and every line has that many. LOST and
 * RESET lines have only time, cpu, event and the last column, `lost`, with
 * the count (req). @buf must hold MAGNET_TEXT_LINE_MAX bytes. Return the
 * length (0 for an unknown event code).
 */
int magnet_format_text_header(char *buf);
int magnet_format_text(char *buf, const struct magnet_record *r,
		       __s64 realtime_offset_ns);

/*
 * web10g-logger lines (omode=2), see compat-formats.md section 4 and
 * docs/web10g.md: the header names the 128 comma-separated columns
 * (Timestamp, CID, the four address and port columns, then the 122
 * RFC 4898 variables of web10g userland 2.0.9). A record line gives the
 * wall-clock time (sec.usec), @cid, the addresses and ports, and each
 * variable in RFC 4898 units; a variable the record cannot supply is empty.
 * The caller assigns @cid, a small number per connection (ttpb2ascii: 1, 2,
 * ... per sock_id in order of first appearance). @buf must hold
 * MAGNET_WEB10G_LINE_MAX bytes. Return the length without the NUL; for a
 * record that is not a TCP-layer event (tcp_out, tcp_in) there is no line:
 * 0, and @buf is left as it was.
 */
int magnet_format_web10g_header(char *buf);
int magnet_format_web10g(char *buf, const struct magnet_record *r,
			 __s64 realtime_offset_ns, __u32 cid);

/* Address as ttprobe prints it: dotted quad, or 8 uppercase 4-digit groups. */
int magnet_format_addr(char *buf, size_t size, __u8 family,
		       const __u8 addr[16]);

/* "tcp_out", "app_send", ..., "lost", "reset", or NULL for an unknown code. */
const char *magnet_event_name(unsigned int event);

#endif /* MAGNET_FORMAT_H */
