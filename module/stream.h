/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One open of /proc/net/<procname> (struct magnet_reader), its output
 * (struct magnet_output), and the stream that serves it (stream.c). The
 * reader's parts, from the top down:
 *   reader.c   the proc file's operations: open, read, poll, the mapped
 *              TAKE ioctl and mmap, release; the wait queue and its timer
 *   out_*.c    one output per mode (struct magnet_output), chosen at open
 *   direct.c   format 3's records straight from the rings to the reader:
 *              copied into its buffer (read), or as pieces of the map (TAKE)
 *              (direct.h)
 *   stream.c   the stream an open gets: the records taken from the rings
 *              (ring.h's consumer API), merged by time, through the output
 *              of the open, with the marks (LOST, RESET), the FLOW records
 *              written again, reset and the discard accounting
 * Each calls only those below it: reader.c the three others, out_*.c and
 * direct.c stream.c, stream.c the outputs only through struct
 * magnet_output's pointers.
 */
#ifndef MAGNET_STREAM_H
#define MAGNET_STREAM_H

#include <linux/mutex.h>
#include "record.h"
#include "format.h"
#include "ring.h"
#include "v3.h"
#include "cid.h"
#include "mapio.h"

/* the reader's staging buffer: output it wrote and the caller has not read */
#define MAGNET_KBUF_SIZE (64 * 1024)

struct magnet_reader;

/*
 * An output mode: how an open's stream begins and how a ring's record
 * becomes its bytes (procfs-commands.md, "Reading").
 */
struct magnet_output {
	/* as the kernel log names the mode, e.g. "omode=2" (with
	 * " compat=ttprobe" after it when that is in force) */
	const char *name;
	/* the longest output of one record */
	size_t line_max;
	/* the stream carries LOST and RESET records (else the log says them) */
	bool marks;
	/* format 3: the rings' records as they are, FLOW records written
	 * again where the stream starts or resumes; read() may copy them
	 * straight from the rings, and the rings may be mapped */
	bool v3;
	/* web10g's connection ids */
	bool cids;
	/* emit is given the rate part of a TCP record that has one */
	bool rate;
	/* the stream's first bytes, into @buf (MAGNET_KBUF_SIZE); NULL: none */
	size_t (*header)(struct magnet_reader *rd, char *buf);
	/*
	 * Under the consume mutex: the ring's record @s (of @cpu) leaves the
	 * ring into rd->buf; returns whether it was a LOST or FLOW record
	 * rather than an event. NULL: magnet_take_decoded().
	 */
	bool (*take)(struct magnet_reader *rd, const union magnet_slot *s,
		     int cpu);
	/* a decoded record @rec into @dst; returns its bytes (0: none) */
	int (*emit)(struct magnet_reader *rd, char *dst,
		    const struct magnet_record *rec,
		    const struct magnet_v3_rate *rate);
};

extern const struct magnet_output magnet_out_ttprobe, magnet_out_legacy, magnet_out_binary, magnet_out_v3, magnet_out_text,
	magnet_out_web10g;

struct magnet_reader {
	struct mutex lock;
	const struct magnet_output *out;	/* this open's mode */
	char *buf;		/* output not yet read: [off, len) */
	size_t off, len;
	/* a bit per byte of buf: set at the last byte of an event's output,
	 * so the events staged but not read are counted at release */
	unsigned long *ends;
	struct magnet_ttstream tt;	/* omode=0: field 7 and its rules */
	s64 rt_offset_ns;	/* CLOCK_REALTIME - CLOCK_MONOTONIC at open */
	int finish_gen;		/* finish commands seen at open */
	struct magnet_cids cids;	/* web10g */
	bool draining;		/* finish seen: read up to ->limit, then EOF */
	bool lost_flushed;	/* draining: pending losses were reported */
	bool eof;
	unsigned long *limit;	/* per CPU: head when finish was seen */
	struct magnet_ring_iter it;	/* this open's passes over the rings */
	/* v3: the FLOW records of the flows seen still to write, from
	 * (resync_cpu, resync_id), before any other record */
	bool resync;
	unsigned int resync_cpu, resync_id;
	u64 resync_ts;
	struct magnet_record rec;	/* a record decoded for the output */
	u32 netns;	/* rec's network namespace, 0 if unknown (v3.h) */
	/* rec's drop part, if rec is a DROP event (for the text output) */
	const struct magnet_v3_drop *drop;
	struct magnet_v3_drop drop_part;
	/* rec's TCP event part, if rec is a RETRANS, RTO, TLP or STATE */
	const struct magnet_v3_tcpev *tcpev;
	struct magnet_v3_tcpev tcpev_part;
	/* rec's qdisc part, if rec is a QDISC event */
	const struct magnet_v3_qdisc *qdisc;
	struct magnet_v3_qdisc qdisc_part;
	/* rec's limit part, if it has one (text and web10g) */
	const struct magnet_v3_limit *lim;
	struct magnet_v3_limit limit_part;
	/* the RCVBUF event's rcvbuf part, or NULL */
	const struct magnet_v3_rcvbuf *rcvbuf;
	struct magnet_v3_rcvbuf rcvbuf_part;
	/* the RTO_END event's rtoend part, or NULL */
	const struct magnet_v3_rtoend *rtoend;
	struct magnet_v3_rtoend rtoend_part;
	bool mapped;		/* the rings are mapped: TAKE may be used */
	unsigned long reset_gen;	/* v3: the reset its FLOW records
					 * were last written again for */
};

/* stream.c */
extern struct mutex magnet_consume_mutex;
extern unsigned long magnet_reset_pending;	/* under the mutex */
extern struct magnet_ttcount magnet_ttcount;	/* under the mutex */
int magnet_stream_init(void);
void magnet_stream_exit(void);
bool magnet_pass_aux_record(const union magnet_slot *s);
/*
 * Under magnet_consume_mutex: @s leaves the rings without being decoded
 * for an output. Returns whether it is a LOST or FLOW record rather than
 * an event, after taking what it says of the flows into the reader's flow
 * table. Inline: the direct read and a mapped TAKE call it per record,
 * and only a FLOW or LOST record needs more than its type.
 */
static __always_inline bool magnet_pass_aux(const union magnet_slot *s)
{
	if (likely(s->hdr.event != MAGNET_V3_FLOW &&
		   s->hdr.event != MAGNET_EV_LOST))
		return false;
	return magnet_pass_aux_record(s);
}
bool magnet_take_binary(struct magnet_reader *rd, const union magnet_slot *s,
			int cpu);
bool magnet_take_decoded(struct magnet_reader *rd, const union magnet_slot *s,
			 int cpu);
bool magnet_take_ttprobe(struct magnet_reader *rd, const union magnet_slot *s,
			 int cpu);
void magnet_resync_from(struct magnet_reader *rd, u64 ts);
void magnet_stream_start(struct magnet_reader *rd);
void magnet_stream_stage(struct magnet_reader *rd, size_t want);
void magnet_stream_drain(struct magnet_reader *rd);
bool magnet_stream_marks_waiting(const struct magnet_reader *rd);
void magnet_stream_reset(void);
void magnet_stream_discard_at_open(void);
void magnet_stream_count_unread(const struct magnet_reader *rd);

#endif /* MAGNET_STREAM_H */
