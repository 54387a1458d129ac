/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Declarations shared between the module's subsystems.
 */
#ifndef MAGNET_H
#define MAGNET_H

#include <linux/types.h>
#include <linux/cache.h>
#include <linux/rcupdate.h>
#include "filter.h"

/* The one place the version lives: dkms.conf, `make dist` and the tools take it from here. */
#define MAGNET_VERSION "0.1.0"

#define MAGNET_PROCNAME_MAX 32

/* direction= values, as ttprobe defined them */
#define MAGNET_DIR_OUT 0
#define MAGNET_DIR_IN 1
#define MAGNET_DIR_BOTH 2

/* Load-time configuration, validated by magnet_params_validate(). */
struct magnet_config {
	unsigned int port;	/* 0 = any; else either end must match */
	unsigned int full;	/* 1 = every segment, 0 = on cwnd change */
	unsigned int bufsize;	/* records per CPU ring, power of two */
	unsigned int omode;	/* 0 = ttprobe ASCII */
	unsigned int direction;	/* MAGNET_DIR_* */
	unsigned int fwmark;	/* 0 = any */
	char procname[MAGNET_PROCNAME_MAX];	/* /proc/net/<procname> */
	char events_str[64];	/* events= as given */
	unsigned int events;	/* MAGNET_LAYER_* mask parsed from it */
	unsigned int nontcp;	/* 1 = IP/device events of non-TCP packets too */
	char compat_str[16];	/* compat= as given, then the name in force */
	unsigned int compat;	/* MAGNET_COMPAT_* */
	unsigned int maxactive;	/* app calls in flight that can be recorded */
	unsigned int format;	/* omode=1 (not compat=ttprobe): 2 or 3 */
	/*
	 * Derived at load: the output shows TCP and app events' rate part
	 * (record.h, RF_RATE), so the handlers write it: magnet's version 3
	 * binary stream and the magnet text. The ttprobe lines, web10g and
	 * the 256-byte and ttprobe records have no column for it. The same
	 * outputs are the ones that carry a DROP event (events=drop) and the
	 * TCP events (events=retrans, state).
	 */
	bool rate;
	/*
	 * Derived at load: TCP_OUT, TCP_IN and TCP event records carry the
	 * limit part (record.h, FEAT_LIMIT): where the rate part is, and
	 * for web10g (SndLimTime*, RetranThresh, DSACKDups)
	 */
	bool limit;
};

/* why events=drop, retrans or state is refused with another output */
#define MAGNET_V3_ONLY_OUTPUTS \
	"drops, retransmissions, state changes and qdisc events are written only by omode=3 (magnet text) and omode=1 format=3 (compat=magnet)"

/*
 * compat= values: whose semantics omode=0 and omode=1 follow. The ttprobe
 * build (module name ttprobe) defaults to MAGNET_COMPAT_TTPROBE.
 */
#define MAGNET_COMPAT_MAGNET 0	/* magnet's own (field 7 per open, ...) */
#define MAGNET_COMPAT_TTPROBE 1	/* ttprobe v0.1.2's lines and records */

/* omode= values */
#define MAGNET_OMODE_TTPROBE 0
#define MAGNET_OMODE_BINARY 1
#define MAGNET_OMODE_WEB10G 2
#define MAGNET_OMODE_TEXT 3

extern struct magnet_config magnet_cfg __read_mostly;

/* params.c */
int magnet_params_validate(void);

/* probes.c */
struct seq_file;
int magnet_probes_register(unsigned int layers, unsigned int dirmask);
void magnet_probes_unregister(void);
unsigned long magnet_probes_nmissed(void);
void magnet_probes_sweep_missed(void);
void magnet_probes_show(struct seq_file *m);

/* control.c: the filter in force (RCU) */
struct magnet_active_filter {
	struct rcu_head rcu;
	struct magnet_filter f;
};
extern struct magnet_active_filter __rcu *magnet_active;
int magnet_control_init(void);
void magnet_control_exit(void);
int magnet_filter_set(const struct magnet_filter *terms);
void magnet_filter_describe(char *buf, size_t size);

/* stats.c: /proc/net/<procname>_stats */
int magnet_stats_init(void);
void magnet_stats_exit(void);
bool magnet_reader_is_open(void);

/* control.c: the commands */
struct file;
ssize_t magnet_control_write(struct file *file, const char __user *ubuf,
			     size_t count, loff_t *ppos);

/* reader.c: /proc/net/<procname> */
int magnet_waitq_init(void);
void magnet_waitq_exit(void);
int magnet_proc_init(void);
void magnet_proc_exit(void);
void magnet_wake_reader(void);
void magnet_reader_finish(void);

/* stream.c: what the reader's stream holds back or discards */
void magnet_stream_reset(void);
void magnet_discard_counts(unsigned long *at_open, unsigned long *by_reset,
			   unsigned long *at_close);

#endif /* MAGNET_H */
