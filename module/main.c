// SPDX-License-Identifier: GPL-2.0
/*
 * magnet: records what happens to network traffic inside the protocol stack.
 * Module init, exit and metadata only; see the other files for the parts.
 */
#include <linux/module.h>
#include "magnet.h"
#include "ring.h"
#include "sockid.h"
#include "rec.h"
#include "nets.h"

/*
 * Setup goes from the inside out: rings, then the filter and its probes,
 * and the proc files last, so no command can arrive before the filter
 * exists. Teardown is the exact reverse: the files go first (proc_remove
 * waits for a command in flight), so no write can register a probe or
 * publish a filter while the probes are being removed and it is freed.
 */
static int __init magnet_init(void)
{
	int ret;

	ret = magnet_params_validate();
	if (ret)
		return ret;

	ret = magnet_waitq_init();
	if (ret)
		goto err_waitq;
	ret = magnet_rings_init(magnet_cfg.bufsize, magnet_wake_reader);
	if (ret) {
		pr_err("bufsize=%u: cannot allocate the per-CPU rings (%d)\n",
		       magnet_cfg.bufsize, ret);
		goto err_rings;
	}
	ret = magnet_flows_init();
	if (ret) {
		pr_err("cannot allocate the per-CPU flow tables (%d)\n", ret);
		goto err_flows;
	}
	ret = magnet_nets_init();
	if (ret)
		goto err_nets;
	/* publishes the load-time filter and registers its probes */
	ret = magnet_control_init();
	if (ret)
		goto err_control;
	ret = magnet_stats_init();
	if (ret)
		goto err_control;
	ret = magnet_proc_init();
	if (ret)
		goto err_proc;

	pr_info("magnet %s loaded: port=%u full=%u bufsize=%u omode=%u direction=%u fwmark=%u procname=%s compat=%s format=%u\n",
		MAGNET_VERSION, magnet_cfg.port, magnet_cfg.full,
		magnet_cfg.bufsize, magnet_cfg.omode, magnet_cfg.direction,
		magnet_cfg.fwmark, magnet_cfg.procname, magnet_cfg.compat_str,
		magnet_cfg.format);
	return 0;

err_proc:
	magnet_stats_exit();
err_control:
	/* also undoes a magnet_control_init() that failed half way */
	magnet_control_exit();
	magnet_nets_exit();
err_nets:
	magnet_flows_exit();
err_flows:
	magnet_rings_exit();
err_rings:
	magnet_waitq_exit();
err_waitq:
	return ret;
}

static void __exit magnet_exit(void)
{
	magnet_proc_exit();
	magnet_stats_exit();
	magnet_control_exit();
	magnet_rings_log("unload", magnet_probes_nmissed());
	magnet_nets_exit();
	magnet_flows_exit();
	magnet_rings_exit();
	magnet_waitq_exit();
}

module_init(magnet_init);
module_exit(magnet_exit);

MODULE_LICENSE("GPL");
MODULE_AUTHOR("magnet developers");
MODULE_DESCRIPTION("Per-packet protocol-stack event recorder (MAGNeT / ttprobe compatible)");
MODULE_VERSION(MAGNET_VERSION);
