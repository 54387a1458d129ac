// SPDX-License-Identifier: GPL-2.0
/*
 * The tracepoints magnet probes that are not exported to modules, found
 * by name among the kernel's (for_each_kernel_tracepoint()) and
 * registered for the layers asked for:
 *
 *   tracepoint                   handler (file)                  events=
 *   tcp:tcp_retransmit_skb       magnet_retransmit (tcpev.c)      retrans
 *   sock:inet_sock_set_state     magnet_set_state (tcpev.c)       state
 *   qdisc:qdisc_dequeue          magnet_qdisc_dequeue (qdisc.c)   qdisc
 *   qdisc:qdisc_enqueue (6.1+)   magnet_qdisc_enqueue (qdisc.c)   qdisc
 *   net:net_dev_start_xmit       magnet_wire_out (qdisc.c)        wire
 *   tcp:tcp_cong_state_set       magnet_cong_state (tcpev.c)      cong
 *     (5.15+: not found on 5.10, which refuses events=cong)
 *
 * The drop tracepoint (skb:kfree_skb) is exported and drops.c registers
 * it itself. A handler's arguments are checked against the kernel's
 * tracepoint at build time (compat.h).
 */
#include <linux/tracepoint.h>
#include <linux/seq_file.h>
#include "compat.h"
#include "rec.h"

struct magnet_tracepoint {
	const char *name;
	const char *what;		/* in the statistics */
	void *probe;
	unsigned int layer;		/* MAGNET_LAYER_* */
	struct tracepoint *tp;		/* found at registration */
	bool registered;
};

static struct magnet_tracepoint magnet_tracepoints[] = {
	{ "tcp_retransmit_skb", "TCP retransmission",
	  (void *)magnet_retransmit, MAGNET_LAYER_RETRANS },
	{ "inet_sock_set_state", "TCP state", (void *)magnet_set_state,
	  MAGNET_LAYER_STATE },
	/* queueing's (qdisc.c) */
	{ "qdisc_dequeue", "qdisc dequeue", (void *)magnet_qdisc_dequeue,
	  MAGNET_LAYER_QDISC },
#if MAGNET_HAVE_QDISC_ENQUEUE
	{ "qdisc_enqueue", "qdisc enqueue", (void *)magnet_qdisc_enqueue,
	  MAGNET_LAYER_QDISC },
#endif
	{ "net_dev_start_xmit", "device to the wire", (void *)magnet_wire_out,
	  MAGNET_LAYER_WIRE },
	{ "tcp_cong_state_set", "TCP congestion state",
	  (void *)magnet_cong_state, MAGNET_LAYER_CONG },
};

static void magnet_tracepoint_find(struct tracepoint *tp, void *priv)
{
	struct magnet_tracepoint *t = priv;

	if (!t->tp && !strcmp(tp->name, t->name))
		t->tp = tp;
}

/*
 * Register the tracepoints of @layers not registered yet (process
 * context, serialised by the caller). On failure, those registered stay.
 */
int magnet_tracepoints_register(unsigned int layers)
{
	size_t i;
	int ret;

	/* fail the build if a tracepoint's arguments change */
	BUILD_BUG_ON(!MAGNET_RETRANSMIT_SIGNATURE_OK);
	BUILD_BUG_ON(!MAGNET_SET_STATE_SIGNATURE_OK);
	BUILD_BUG_ON(!MAGNET_QDISC_DEQUEUE_SIGNATURE_OK);
	BUILD_BUG_ON(!MAGNET_QDISC_ENQUEUE_SIGNATURE_OK);
	BUILD_BUG_ON(!MAGNET_WIRE_OUT_SIGNATURE_OK);
	BUILD_BUG_ON(!MAGNET_CONG_STATE_SIGNATURE_OK);
	for (i = 0; i < ARRAY_SIZE(magnet_tracepoints); i++) {
		struct magnet_tracepoint *t = &magnet_tracepoints[i];

		if (t->registered || !(layers & t->layer))
			continue;
		if (!t->tp)
			for_each_kernel_tracepoint(magnet_tracepoint_find, t);
		if (!t->tp) {
			pr_err("the %s tracepoint is not in this kernel\n",
			       t->name);
			return -ENOENT;
		}
		ret = tracepoint_probe_register(t->tp, t->probe, NULL);
		if (ret) {
			pr_err("the %s tracepoint cannot be probed (error %d)\n",
			       t->name, ret);
			return ret;
		}
		t->registered = true;
	}
	return 0;
}

/* Returns once no probe of ours runs on any CPU. */
void magnet_tracepoints_unregister(void)
{
	bool any = false;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(magnet_tracepoints); i++) {
		struct magnet_tracepoint *t = &magnet_tracepoints[i];

		if (!t->registered)
			continue;
		tracepoint_probe_unregister(t->tp, t->probe, NULL);
		t->registered = false;
		any = true;
	}
	if (any)
		tracepoint_synchronize_unregister();
}

void magnet_tracepoints_show(struct seq_file *m)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(magnet_tracepoints); i++)
		if (magnet_tracepoints[i].registered)
			seq_printf(m, "probe\t%s\ttracepoint\t%s\n",
				   magnet_tracepoints[i].what,
				   magnet_tracepoints[i].name);
}
