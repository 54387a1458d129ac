// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ttprobe ASCII formatting. This file compiles into the kernel module and
 * into the userspace tools, so both produce byte-identical lines.
 */
#include "format.h"

int magnet_format_addr(char *buf, size_t size, __u8 family,
		       const __u8 addr[16])
{
	static const char hex[] = "0123456789ABCDEF";
	size_t pos = 0;
	int i;

	if (family == MAGNET_FAMILY_INET)
		return snprintf(buf, size, "%u.%u.%u.%u",
				addr[0], addr[1], addr[2], addr[3]);

	/* 8 groups of 4 uppercase hex digits joined by ':', no compression */
	if (size < 40)
		return snprintf(buf, size, "%s", "");
	for (i = 0; i < 16; i++) {
		buf[pos++] = hex[addr[i] >> 4];
		buf[pos++] = hex[addr[i] & 0xf];
		if ((i & 1) && i != 15)
			buf[pos++] = ':';
	}
	buf[pos] = '\0';
	return (int)pos;
}

int magnet_format_ttprobe(char *buf, const struct magnet_record *r,
			  __u64 counter, __s64 realtime_offset_ns)
{
	char laddr[40], raddr[40];
	__u64 wall_ns = r->ts_ns + (__u64)realtime_offset_ns;
	__u32 rem_ns;
	__u64 sec = magnet_div_u64_rem(wall_ns, 1000000000U, &rem_ns);
	char dir;

	switch (r->event) {
	case MAGNET_EV_TCP_OUT:
		dir = 'o';
		break;
	case MAGNET_EV_TCP_IN:
		dir = 'i';
		break;
	default:
		return 0;
	}

	magnet_format_addr(laddr, sizeof(laddr), r->family, r->laddr);
	magnet_format_addr(raddr, sizeof(raddr), r->family, r->raddr);

	return snprintf(buf, MAGNET_TTPROBE_LINE_MAX,
			"%c,%llu.%06u,%s,%u,%s,%u,%llu,%u,%u,%llu,%llu,%u,%u,%u,%u,%u,%u\n",
			dir, sec, rem_ns / 1000U,
			laddr, r->lport, raddr, r->rport,
			counter, r->mss, r->srtt_us,
			(__u64)r->cwnd * r->mss, (__u64)r->ssthresh * r->mss,
			r->snd_wnd, r->rcv_wnd, r->state,
			r->snd_una, r->snd_nxt, r->len);
}
