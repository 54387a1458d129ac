/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The network namespaces that exist, as a set of their addresses that a
 * probe can test in constant time (nets.c): a dropped packet's dev field
 * is not always a device, and its namespace is taken only if it is one.
 */
#ifndef MAGNET_NETS_H
#define MAGNET_NETS_H

#include <linux/types.h>

struct net;

int magnet_nets_init(void);
void magnet_nets_exit(void);
/* under rcu_read_lock(): @net is a namespace that exists now */
bool magnet_net_known(const struct net *net);

#endif /* MAGNET_NETS_H */
