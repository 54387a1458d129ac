/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Record formatting shared by the kernel (omode=0 and omode=3 reads) and
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
 * the columns. @buf must hold MAGNET_TEXT_LINE_MAX bytes. Return the length.
 */
int magnet_format_text_header(char *buf);
int magnet_format_text(char *buf, const struct magnet_record *r,
		       __s64 realtime_offset_ns);

/* Address as ttprobe prints it: dotted quad, or 8 uppercase 4-digit groups. */
int magnet_format_addr(char *buf, size_t size, __u8 family,
		       const __u8 addr[16]);

/* "tcp_out", "app_send", ... or NULL for an unknown code. */
const char *magnet_event_name(unsigned int event);

#endif /* MAGNET_FORMAT_H */
