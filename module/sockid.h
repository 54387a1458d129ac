/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Socket ids. A socket's id is a keyed hash (siphash, a key drawn at load)
 * of its address, which never leaves the kernel: a writer computes it when
 * it writes a FLOW record (once per flow and CPU, rec.c), so the rings hold
 * no kernel address, and an address maps to the same id for the whole
 * load.
 */
#ifndef MAGNET_SOCKID_H
#define MAGNET_SOCKID_H

#include <linux/types.h>

void magnet_sockid_init(void);
u64 magnet_sock_id(u64 sk);

#endif /* MAGNET_SOCKID_H */
