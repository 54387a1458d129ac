/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What the formatters (format_ttprobe.c, format_text.c, format_web10g.c)
 * share, not for their callers: format.h is.
 */
#ifndef MAGNET_FORMAT_COMMON_H
#define MAGNET_FORMAT_COMMON_H

#include "format.h"
#include "emit.h"

/* the address as the formats spell it, at @p; returns the end (format.c) */
char *magnet_put_addr(char *p, __u8 family, const __u8 addr[16]);

/* the wall clock's seconds of timestamp @ts_ns, and the nanoseconds */
static inline __u64 magnet_wall(__u64 ts_ns, __s64 offset, __u32 *rem_ns)
{
	return magnet_div_u64_rem(ts_ns + (__u64)offset, 1000000000U, rem_ns);
}

#endif /* MAGNET_FORMAT_COMMON_H */
