/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The tests' writer of the other byte order for format version 3: swaps
 * every multi-byte integer of a record, from the tables of module/uapi/schema.h
 * (module/shared/swap.h), not from module/shared/v3.c, whose decoder it tests.
 */
#ifndef MAGNET_TEST_V3SWAP_H
#define MAGNET_TEST_V3SWAP_H

#include "swap.h"

/* byte-swap every multi-byte integer of the version 3 record at @p */
static inline void swap_v3(unsigned char *p)
{
	magnet_swap_v3(p);
}

#endif /* MAGNET_TEST_V3SWAP_H */
