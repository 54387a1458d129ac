// SPDX-License-Identifier: GPL-2.0
/*
 * magnet's text lines (omode=3; stream.h's struct magnet_output): a header
 * line of column names, then a line per record, LOST and RESET marks
 * included, with the rate part of the TCP and application events and each
 * event's network namespace.
 */
#include "stream.h"

static size_t magnet_text_header(struct magnet_reader *rd, char *buf)
{
	return magnet_format_text_header(buf);
}

static int magnet_text_emit(struct magnet_reader *rd, char *dst,
			    const struct magnet_record *rec,
			    const struct magnet_v3_rate *rate)
{
	return magnet_format_text(dst, rec, rate, rd->drop, rd->tcpev, rd->qdisc,
				  rd->lim, rd->rcvbuf, rd->rtoend, rd->netns,
				  rd->rt_offset_ns);
}

const struct magnet_output magnet_out_text = {
	.name = "omode=3",
	.line_max = MAGNET_TEXT_LINE_MAX,
	.marks = true,
	.rate = true,
	.header = magnet_text_header,
	.take = magnet_take_decoded,
	.emit = magnet_text_emit,
};
