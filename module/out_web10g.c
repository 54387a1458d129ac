// SPDX-License-Identifier: GPL-2.0
/*
 * web10g lines (omode=2; stream.h's struct magnet_output, docs/web10g.md):
 * a header line, then a line per TCP event, each with its connection's id
 * (cid.h, numbered per open as ttpb2ascii numbers them). No LOST or RESET
 * record: the kernel log says where records were lost.
 */
#include "stream.h"

static size_t magnet_web10g_header(struct magnet_reader *rd, char *buf)
{
	return magnet_format_web10g_header(buf);
}

static int magnet_web10g_emit(struct magnet_reader *rd, char *dst,
			      const struct magnet_record *rec,
			      const struct magnet_v3_rate *rate)
{
	u32 cid;

	if (!magnet_web10g_has_line(rec))
		return 0;
	cid = magnet_cid_of(&rd->cids, rec->sock_id, magnet_flow_key(rec));
	if (!cid)
		pr_warn_ratelimited("web10g: no room for more than %u connections in one open; later ones get CID 0\n",
				    rd->cids.count);
	return magnet_format_web10g(dst, rec, rd->lim, rd->rt_offset_ns, cid);
}

const struct magnet_output magnet_out_web10g = {
	.name = "omode=2",
	.line_max = MAGNET_WEB10G_LINE_MAX,
	.cids = true,
	.header = magnet_web10g_header,
	.take = magnet_take_decoded,
	.emit = magnet_web10g_emit,
};
