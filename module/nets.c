// SPDX-License-Identifier: GPL-2.0
/*
 * The set of network namespaces (nets.h), kept by pernet operations: a
 * namespace is added when it is set up (and, at load, every one that
 * exists), removed when it is torn down. A probe tests an address against
 * it in one bucket of a hash table, under RCU, where walking the kernel's
 * list of namespaces (for_each_net_rcu) cost a step per namespace: on a
 * host with many containers, for every dropped packet that has no socket.
 *
 * Lifetime: the kernel frees a namespace only after its pernet exits
 * have run, and the exit here waits a grace period after taking it out of
 * the set, so a probe that found it in the set (an RCU read-side section)
 * may use it to its section's end.
 */
#include <linux/hash.h>
#include <linux/hashtable.h>
#include <linux/kprobes.h>
#include <linux/rculist.h>
#include <linux/slab.h>
#include <net/net_namespace.h>
#include "nets.h"

struct magnet_net_ent {
	struct hlist_node node;
	const struct net *net;
	struct rcu_head rcu;
};

/* 1024 buckets: a thousand namespaces are one each, on average */
#define MAGNET_NETS_BITS 10
static DEFINE_HASHTABLE(magnet_nets, MAGNET_NETS_BITS);
/* writers: pernet init and exit, which the kernel may run concurrently
 * for different namespaces */
static DEFINE_SPINLOCK(magnet_nets_lock);
static bool magnet_nets_registered;
/* a namespace could not be added (no memory): the set is not all of them,
 * and a test walks the kernel's list instead, as it had to before */
static bool magnet_nets_incomplete;

bool notrace magnet_net_known(const struct net *net)
{
	const struct magnet_net_ent *e;
	struct net *n;

	if (unlikely(READ_ONCE(magnet_nets_incomplete))) {
		for_each_net_rcu(n)
			if (n == net)
				return true;
		return false;
	}
	hlist_for_each_entry_rcu(e, &magnet_nets[hash_ptr(net,
							  MAGNET_NETS_BITS)],
				 node)
		if (e->net == net)
			return true;
	return false;
}
NOKPROBE_SYMBOL(magnet_net_known);

/* never fails: a namespace is not refused for magnet's sake */
static int __net_init magnet_net_init(struct net *net)
{
	struct magnet_net_ent *e = kmalloc(sizeof(*e), GFP_KERNEL);

	if (!e) {
		WRITE_ONCE(magnet_nets_incomplete, true);
		return 0;
	}
	e->net = net;
	spin_lock_bh(&magnet_nets_lock);
	hash_add_rcu(magnet_nets, &e->node, (unsigned long)net);
	spin_unlock_bh(&magnet_nets_lock);
	return 0;
}

/* take @net out; the caller waits a grace period before it is freed */
static void magnet_net_remove(const struct net *net)
{
	struct magnet_net_ent *e;
	struct hlist_node *tmp;

	spin_lock_bh(&magnet_nets_lock);
	hlist_for_each_entry_safe(e, tmp,
				  &magnet_nets[hash_ptr(net, MAGNET_NETS_BITS)],
				  node) {
		if (e->net == net) {
			hash_del_rcu(&e->node);
			kfree_rcu(e, rcu);
			break;
		}
	}
	spin_unlock_bh(&magnet_nets_lock);
}

static void __net_exit magnet_net_exit_batch(struct list_head *net_list)
{
	struct net *net;

	list_for_each_entry(net, net_list, exit_list)
		magnet_net_remove(net);
	/* no probe still uses one of them when the kernel frees it */
	synchronize_rcu();
}

static struct pernet_operations magnet_net_ops = {
	.init = magnet_net_init,
	.exit_batch = magnet_net_exit_batch,
};

int magnet_nets_init(void)
{
	int ret = register_pernet_subsys(&magnet_net_ops);

	if (ret) {
		pr_err("cannot follow the network namespaces (%d)\n", ret);
		return ret;
	}
	magnet_nets_registered = true;
	return 0;
}

/* every namespace's exit runs: the set is empty, its entries freed */
void magnet_nets_exit(void)
{
	if (!magnet_nets_registered)
		return;
	unregister_pernet_subsys(&magnet_net_ops);
	magnet_nets_registered = false;
	rcu_barrier();		/* the entries' kfree_rcu() */
}
