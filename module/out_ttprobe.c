// SPDX-License-Identifier: GPL-2.0
/*
 * ttprobe's outputs (stream.h's struct magnet_output): its ASCII lines
 * (omode=0) and, with compat=ttprobe, its 96-byte binary records
 * (omode=1, no header). Neither has a LOST or RESET record: the kernel log
 * says where records were lost. With compat=ttprobe, omode=0 and 1 follow
 * ttprobe v0.1.2 (docs/compat-formats.md): field 7 counts from 0 since
 * load, fields 10 and 11 are 32-bit with tcp_current_ssthresh(), and an
 * open discards (and counts) what was buffered before it.
 */
#include "stream.h"

static int magnet_ttprobe_emit(struct magnet_reader *rd, char *dst,
			       const struct magnet_record *rec,
			       const struct magnet_v3_rate *rate)
{
	return magnet_ttstream_format(&rd->tt, dst, rec, rd->rt_offset_ns);
}

/* compat=ttprobe or not: rd->tt follows the compat in force at open */
const struct magnet_output magnet_out_ttprobe = {
	.name = "omode=0",
	.line_max = MAGNET_TEXT_LINE_MAX,
	.take = magnet_take_ttprobe,
	.emit = magnet_ttprobe_emit,
};

static int magnet_legacy_emit(struct magnet_reader *rd, char *dst,
			      const struct magnet_record *rec,
			      const struct magnet_v3_rate *rate)
{
	struct magnet_legacy_record l;
	int n = magnet_format_legacy(&l, rec, rd->rt_offset_ns);

	if (n > 0)
		memcpy(dst, &l, n);
	return n;
}

const struct magnet_output magnet_out_legacy = {
	.name = "omode=1",
	.line_max = MAGNET_TEXT_LINE_MAX,
	.take = magnet_take_decoded,
	.emit = magnet_legacy_emit,
};
