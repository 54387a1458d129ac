/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Socket ids. A record's sock_id, as a handler stores it, is the socket's
 * address: it never leaves the kernel. The reader turns it into a keyed
 * hash (siphash, a key drawn at load) as it takes the record from the ring,
 * so the hash costs the reader, not the traffic, and an address maps to
 * the same id for the whole load.
 */
#ifndef MAGNET_SOCKID_H
#define MAGNET_SOCKID_H

#include <linux/types.h>

void magnet_sockid_init(void);
u64 magnet_sock_id(u64 sk);

#endif /* MAGNET_SOCKID_H */
