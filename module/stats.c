// SPDX-License-Identifier: GPL-2.0
/*
 * /proc/net/<procname>_stats: a read-only view of the counters, the filter
 * in force and the probes in use (procfs-commands.md).
 *
 * Per CPU: hits (events that passed the filter) = written + lost; filtered
 * (events the filter rejected); missed (probe misses noticed on this CPU:
 * a handler re-entered in the same context, app calls beyond maxactive);
 * fill (event records in the ring now, of its size); other (the LOST and
 * FLOW records in it now, which take slots too).
 * unparsed: IP and device events whose headers could not be read.
 */
#include <linux/proc_fs.h>
#include <linux/seq_file.h>
#include <net/net_namespace.h>
#include "magnet.h"
#include "ring.h"
#include "backlog.h"

static struct proc_dir_entry *magnet_stats_proc;
static char magnet_stats_name[MAGNET_PROCNAME_MAX + 8];

static int magnet_stats_show(struct seq_file *m, void *v)
{
	unsigned long t_hits = 0, t_lost = 0, t_filt = 0, t_miss = 0, t_fill = 0;
	unsigned long t_unparsed = 0, t_other = 0;
	char desc[MAGNET_FILTER_TEXT_MAX];
	unsigned long at_open, by_reset, at_close;
	int cpu;

	magnet_filter_describe(desc, sizeof(desc));
	seq_printf(m, "version\t%s\n", MAGNET_VERSION);
	seq_printf(m, "procname\t%s\n", magnet_cfg.procname);
	seq_printf(m, "omode\t%u\n", magnet_cfg.omode);
	seq_printf(m, "compat\t%s\n", magnet_cfg.compat_str);
	seq_printf(m, "format\t%u\n", magnet_cfg.format);
	seq_printf(m, "bufsize\t%u\n", magnet_cfg.bufsize);
	seq_printf(m, "reader\t%s\n", magnet_reader_is_open() ? "open" : "closed");
	seq_printf(m, "filter\t%s\n", desc);
	magnet_probes_show(m);
	seq_puts(m, "cpu\thits\twritten\tlost\tfiltered\tmissed\tfill\tother\n");
	for_each_possible_cpu(cpu) {
		struct magnet_ring_stats st;

		magnet_ring_stats(cpu, &st);
		seq_printf(m, "%d\t%lu\t%lu\t%lu\t%lu\t%lu\t%lu/%lu\t%lu\n",
			   cpu, st.hits, st.hits - st.lost, st.lost,
			   st.filtered, st.missed, st.fill, st.size, st.other);
		t_hits += st.hits;
		t_lost += st.lost;
		t_filt += st.filtered;
		t_miss += st.missed;
		t_fill += st.fill;
		t_unparsed += st.unparsed;
		t_other += st.other;
	}
	seq_printf(m, "total\t%lu\t%lu\t%lu\t%lu\t%lu\t%lu\t%lu\n", t_hits,
		   t_hits - t_lost, t_lost, t_filt, t_miss, t_fill, t_other);
	seq_printf(m, "probe_misses\t%lu\n", magnet_probes_nmissed());
	seq_printf(m, "unparsed\t%lu\n", t_unparsed);
	magnet_discard_counts(&at_open, &by_reset, &at_close);
	seq_printf(m, "discarded\topen %lu\treset %lu\tclosed %lu\n", at_open,
		   by_reset, at_close);
	seq_printf(m, "backlog\tqueued %lu\tpending %u\tuntracked %lu\tunsettled %lu\n",
		   magnet_backlog_queued(), magnet_backlog_pending_sockets(),
		   magnet_backlog_untracked(), magnet_backlog_unsettled());
	return 0;
}

int magnet_stats_init(void)
{
	snprintf(magnet_stats_name, sizeof(magnet_stats_name), "%s_stats",
		 magnet_cfg.procname);
	magnet_stats_proc = proc_create_single(magnet_stats_name, 0400,
					       init_net.proc_net,
					       magnet_stats_show);
	if (!magnet_stats_proc) {
		pr_err("cannot create /proc/net/%s\n", magnet_stats_name);
		return -EEXIST;
	}
	return 0;
}

void magnet_stats_exit(void)
{
	proc_remove(magnet_stats_proc);
}
