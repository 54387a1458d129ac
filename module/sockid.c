// SPDX-License-Identifier: GPL-2.0
/*
 * Socket ids: the keyed hash that stands for a socket's address in
 * everything the module writes (sockid.h).
 */
#include <linux/cache.h>
#include <linux/siphash.h>
#include <linux/random.h>
#include <linux/kprobes.h>
#include "sockid.h"

static siphash_key_t magnet_sock_key __read_mostly;

/* at load, before any probe can store a socket address */
void magnet_sockid_init(void)
{
	get_random_bytes(&magnet_sock_key, sizeof(magnet_sock_key));
}

u64 notrace magnet_sock_id(u64 sk)
{
	return siphash_1u64(sk, &magnet_sock_key);
}
NOKPROBE_SYMBOL(magnet_sock_id);
