/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The tests' writer of the other byte order for format version 3: swaps
 * every multi-byte integer of a record, built from the layout in record.h
 * alone (not from module/v3.c, whose decoder it tests).
 */
#ifndef MAGNET_TEST_V3SWAP_H
#define MAGNET_TEST_V3SWAP_H

#include <stddef.h>
#include <string.h>
#include "record.h"


static inline void v3sw16(unsigned char *p)
{
	__u16 v;

	memcpy(&v, p, 2);
	v = __builtin_bswap16(v);
	memcpy(p, &v, 2);
}

static inline void v3sw32(unsigned char *p)
{
	__u32 v;

	memcpy(&v, p, 4);
	v = __builtin_bswap32(v);
	memcpy(p, &v, 4);
}

static inline void v3sw64(unsigned char *p)
{
	__u64 v;

	memcpy(&v, p, 8);
	v = __builtin_bswap64(v);
	memcpy(p, &v, 8);
}

#define V3H MAGNET_V3_HDR_SIZE
#define V3O(type, f) (V3H + offsetof(type, f))

/* byte-swap every multi-byte integer of the version 3 record at @p */
static inline void swap_v3(unsigned char *p)
{
	unsigned int event = p[12], i;

	v3sw64(p);
	v3sw16(p + 8);
	v3sw16(p + 10);
	v3sw16(p + 14);
	switch (event) {
	case MAGNET_EV_LOST:
	case MAGNET_EV_RESET:
		v3sw64(p + V3O(struct magnet_v3_count, req));
		v3sw64(p + V3O(struct magnet_v3_count, ret));
		return;
	case MAGNET_V3_FLOW:
		v3sw64(p + V3O(struct magnet_v3_flow, sock_id));
		v3sw16(p + V3O(struct magnet_v3_flow, lport));
		v3sw16(p + V3O(struct magnet_v3_flow, rport));
		return;
	case MAGNET_EV_IP_OUT:
	case MAGNET_EV_IP_IN:
	case MAGNET_EV_DEV_OUT:
	case MAGNET_EV_DEV_IN:
		for (i = 0; i < 6; i++)
			v3sw32(p + V3H + 4 * i);	/* len .. tcp_ack */
		for (i = 0; i < 4; i++)
			v3sw16(p + V3O(struct magnet_v3_pkt, ip_id) + 2 * i);
		return;
	}
	for (i = 0; i < 4; i++)
		v3sw32(p + V3H + 4 * i);		/* len .. end_seq */
	v3sw16(p + V3O(struct magnet_v3_tcp, advmss));
	v3sw16(p + V3O(struct magnet_v3_tcp, reserved));
	for (i = 0; i < 22; i++)		/* mss .. rtt_us */
		v3sw32(p + V3O(struct magnet_v3_tcp, mss) + 4 * i);
	for (i = 0; i < 4; i++)
		v3sw64(p + V3O(struct magnet_v3_tcp, bytes_sent) + 8 * i);
	if (event == MAGNET_EV_APP_SEND || event == MAGNET_EV_APP_RECV) {
		v3sw32(p + MAGNET_V3_TCP_SIZE);
		v3sw32(p + MAGNET_V3_TCP_SIZE + 4);
		v3sw64(p + MAGNET_V3_TCP_SIZE + 8);
		v3sw64(p + MAGNET_V3_TCP_SIZE + 16);
	}
	if (p[13] & MAGNET_RF_RATE) {	/* the rate part, last */
		unsigned char *x = p + ((unsigned int)p[14] << 8 | p[15]) -
				   MAGNET_V3_RATE_SIZE;

		/* the length was swapped above: read it big-endian */
		v3sw64(x);
		for (i = 0; i < 6; i++)		/* delivered .. interval */
			v3sw32(x + 8 + 4 * i);
		v3sw16(x + offsetof(struct magnet_v3_rate, reserved));
		for (i = 0; i < 5; i++)
			v3sw32(x + offsetof(struct magnet_v3_rate, cc_info) + 4 * i);
	}
}

#endif /* MAGNET_TEST_V3SWAP_H */
