// SPDX-License-Identifier: GPL-2.0
/*
 * Module parameters (ttprobe's names and meanings) and their validation.
 * A bad value refuses the load with a log line naming the parameter.
 */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/log2.h>
#include <linux/ctype.h>
#include "magnet.h"
#include "record.h"
#include "cmd.h"

/* Largest ring: 2^20 records of 256 bytes = 256 MiB per CPU. */
#define MAGNET_BUFSIZE_MAX (1U << 20)
#define MAGNET_BUFSIZE_MIN 16U
#define MAGNET_MAXACTIVE_MAX 16384U

struct magnet_config magnet_cfg __read_mostly = {
	.port = 0,
	.full = 1,
	.bufsize = 8192,
	.omode = 0,
	.direction = MAGNET_DIR_BOTH,
	.fwmark = 0,
	.procname = KBUILD_MODNAME,
	.events_str = "tcp",
	.nontcp = 0,
	.compat_str = "",	/* "": the build's default, see below */
	.maxactive = 512,
	.format = MAGNET_FORMAT_VERSION_V3,
};

module_param_named(port, magnet_cfg.port, uint, 0444);
MODULE_PARM_DESC(port, "TCP port to match at either end, 0 = all ports (default: 0)");
module_param_named(full, magnet_cfg.full, uint, 0444);
MODULE_PARM_DESC(full, "1 = log every segment, 0 = only when cwnd changes (default: 1)");
module_param_named(bufsize, magnet_cfg.bufsize, uint, 0444);
MODULE_PARM_DESC(bufsize, "Records per CPU ring, rounded up to a power of two, 16..1048576 (default: 8192)");
module_param_named(omode, magnet_cfg.omode, uint, 0444);
MODULE_PARM_DESC(omode, "Output mode: 0 = ttprobe ASCII, 1 = binary, 2 = web10g, 3 = magnet text (default: 0)");
module_param_named(format, magnet_cfg.format, uint, 0444);
MODULE_PARM_DESC(format, "omode=1's binary format version: 2 = 256-byte records, 3 = records sized by what they carry, with a FLOW record per connection (default: 3)");
module_param_named(direction, magnet_cfg.direction, uint, 0444);
MODULE_PARM_DESC(direction, "0 = outgoing segments, 1 = incoming, 2 = both (default: 2)");
module_param_named(fwmark, magnet_cfg.fwmark, uint, 0444);
MODULE_PARM_DESC(fwmark, "Only segments with this fwmark, 0 = any (default: 0)");
module_param_string(events, magnet_cfg.events_str, sizeof(magnet_cfg.events_str), 0444);
MODULE_PARM_DESC(events, "Layers to record, comma-separated: app, tcp, ip, dev, drop (packets the kernel dropped), retrans (TCP retransmissions, RTO and TLP fires), state (TCP state changes), qdisc (packets a qdisc took in and let go), wire (packets a device hands its driver, after the qdisc: where tcpdump sees them leave), cong (TCP congestion-state changes, Linux 5.15+, and the end of each RTO recovery with its time, 6.7+), rcvbuf (receive-buffer autotuning), or all (the four layers, not the last seven, which need omode=3, or omode=1 format=3) (default: tcp)");
module_param_named(nontcp, magnet_cfg.nontcp, uint, 0444);
MODULE_PARM_DESC(nontcp, "1 = IP and device events for non-TCP packets too (default: 0)");
module_param_string(compat, magnet_cfg.compat_str, sizeof(magnet_cfg.compat_str), 0444);
MODULE_PARM_DESC(compat, "Semantics of omode=0 and 1: magnet, or ttprobe (v0.1.2's field 7 and 11, 96-byte binary records; in every omode, buffer emptied at open) (default: ttprobe for the ttprobe build, else magnet)");
module_param_named(maxactive, magnet_cfg.maxactive, uint, 0444);
MODULE_PARM_DESC(maxactive, "events=app: tcp_sendmsg/tcp_recvmsg calls in flight at once that can be recorded, blocked receivers included; more are counted as probe misses, 1..16384 (default: 512)");
module_param_string(procname, magnet_cfg.procname, sizeof(magnet_cfg.procname), 0444);
MODULE_PARM_DESC(procname, "Name of the file in /proc/net, letters, digits, '_' and '-' (default: the module name, " KBUILD_MODNAME ")");

static bool magnet_procname_valid(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isalnum(*s) && *s != '_' && *s != '-')
			return false;
	return true;
}

int magnet_params_validate(void)
{
	struct magnet_config *c = &magnet_cfg;
	const char *err;

	if (c->port > 65535) {
		pr_err("port=%u is invalid: must be 0..65535\n", c->port);
		return -EINVAL;
	}
	if (c->maxactive < 1 || c->maxactive > MAGNET_MAXACTIVE_MAX) {
		pr_err("maxactive=%u is invalid: must be 1..%u calls\n",
		       c->maxactive, MAGNET_MAXACTIVE_MAX);
		return -EINVAL;
	}
	if (c->full > 1) {
		pr_err("full=%u is invalid: must be 0 or 1\n", c->full);
		return -EINVAL;
	}
	if (c->bufsize == 0 || c->bufsize > MAGNET_BUFSIZE_MAX) {
		pr_err("bufsize=%u is invalid: must be 1..%u records per CPU\n",
		       c->bufsize, MAGNET_BUFSIZE_MAX);
		return -EINVAL;
	}
	c->bufsize = roundup_pow_of_two(max(c->bufsize, MAGNET_BUFSIZE_MIN));
	if (c->format != MAGNET_FORMAT_VERSION &&
	    c->format != MAGNET_FORMAT_VERSION_V3) {
		pr_err("format=%u is invalid: must be 2 (256-byte records) or 3 (records sized by what they carry)\n",
		       c->format);
		return -EINVAL;
	}
	if (c->omode > MAGNET_OMODE_TEXT) {
		pr_err("omode=%u is invalid: must be 0 (ttprobe ASCII), 1 (binary), 2 (web10g) or 3 (magnet text)\n",
		       c->omode);
		return -EINVAL;
	}
	if (magnet_parse_events(c->events_str, strlen(c->events_str),
				&c->events, &err)) {
		pr_err("events=%s is invalid: %s\n", c->events_str, err);
		return -EINVAL;
	}
	if (c->nontcp > 1) {
		pr_err("nontcp=%u is invalid: must be 0 or 1\n", c->nontcp);
		return -EINVAL;
	}
	/* the ttprobe build is the TEACUP drop-in: ttprobe's semantics */
	if (!c->compat_str[0])
		strscpy(c->compat_str,
			strcmp(KBUILD_MODNAME, "ttprobe") ? "magnet" : "ttprobe",
			sizeof(c->compat_str));
	if (!strcmp(c->compat_str, "magnet")) {
		c->compat = MAGNET_COMPAT_MAGNET;
	} else if (!strcmp(c->compat_str, "ttprobe")) {
		c->compat = MAGNET_COMPAT_TTPROBE;
	} else {
		pr_err("compat=%s is invalid: must be magnet or ttprobe\n",
		       c->compat_str);
		return -EINVAL;
	}
	if (!magnet_procname_valid(c->procname)) {
		pr_err("procname=%s is invalid: use 1-%d letters, digits, '_' or '-'\n",
		       c->procname, MAGNET_PROCNAME_MAX - 1);
		return -EINVAL;
	}
	if (c->direction > MAGNET_DIR_BOTH) {
		pr_err("direction=%u is invalid: must be 0 (out), 1 (in) or 2 (both)\n",
		       c->direction);
		return -EINVAL;
	}
	c->rate = c->omode == MAGNET_OMODE_TEXT ||
		  (c->omode == MAGNET_OMODE_BINARY &&
		   c->compat == MAGNET_COMPAT_MAGNET &&
		   c->format == MAGNET_FORMAT_VERSION_V3);
	c->limit = c->rate || c->omode == MAGNET_OMODE_WEB10G;
	/* the outputs with the rate part are those that carry a drop and the
	 * TCP events */
	if ((c->events & MAGNET_LAYER_V3_ONLY) && !c->rate) {
		pr_err("events=%s is invalid here: %s\n", c->events_str,
		       MAGNET_V3_ONLY_OUTPUTS);
		return -EINVAL;
	}
	return 0;
}
