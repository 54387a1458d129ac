/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* format_ref.c: the printf formatters before emit.h, the reference */
#ifndef MAGNET_FORMAT_REF_H
#define MAGNET_FORMAT_REF_H

#include "format.h"

int ref_format_ttprobe_with(char *buf, const struct magnet_record *r,
			    __u64 counter, __s64 realtime_offset_ns,
			    __u64 cwnd_bytes, __u64 ssthresh_bytes);
int ref_format_text(char *buf, const struct magnet_record *r,
		    const struct magnet_v3_rate *rate,
		    const struct magnet_v3_drop *drop,
		    const struct magnet_v3_tcpev *ev,
		    const struct magnet_v3_qdisc *qd,
		    const struct magnet_v3_limit *lim,
		    const struct magnet_v3_rcvbuf *rb,
		    const struct magnet_v3_rtoend *re, __u32 netns,
		    __s64 realtime_offset_ns);
int ref_format_web10g_prefix(char *buf, const struct magnet_record *r,
			     __s64 realtime_offset_ns, __u32 cid);

#endif
