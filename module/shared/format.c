// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * What the formatters share: the ttprobe lines and the legacy records
 * (format_ttprobe.c), the magnet text (format_text.c) and web10g
 * (format_web10g.c) are each a file of their own. These files compile into
 * the kernel module and into the userspace tools, so both produce
 * byte-identical lines. Kernel rules apply: no allocation, no floating
 * point, small stack frames.
 */
#include "format_common.h"

char *magnet_put_addr(char *p, __u8 family, const __u8 addr[16])
{
	if (family == MAGNET_FAMILY_INET)
		return magnet_put_ipv4(p, addr);
	return magnet_put_ipv6(p, addr);
}

/* one 64-bit word into the flow key: multiply, fold the high bits down */
static __u64 magnet_mix(__u64 h, __u64 v)
{
	h = (h ^ v) * 0x9e3779b97f4a7c15ULL;
	return h ^ (h >> 29);
}

/* word by word: a byte-wise hash cost a web10g line 214 instructions */
__u32 magnet_flow_key(const struct magnet_record *r)
{
	__u64 a[4], h;

	memcpy(a, r->laddr, 16);
	memcpy(a + 2, r->raddr, 16);
	h = magnet_mix(0x6a09e667f3bcc908ULL, (__u64)r->family << 32 |
		       (__u32)r->lport << 16 | r->rport);
	h = magnet_mix(h, a[0]);
	h = magnet_mix(h, a[1]);
	h = magnet_mix(h, a[2]);
	h = magnet_mix(h, a[3]);
	return (__u32)(h ^ (h >> 32));
}
