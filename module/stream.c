// SPDX-License-Identifier: GPL-2.0
/*
 * The stream a reader's open gets (stream.h): the records taken from the
 * rings through ring.h's consumer API, merged across CPUs in timestamp
 * order, written by the open's output (out_*.c) into its buffer, with the
 * marks the reader writes itself (LOST, RESET), the FLOW records written
 * again where a format 3 stream starts or resumes, reset, and the count of
 * what was discarded unread.
 *
 * Every record leaves the rings through here or direct.c, read or
 * discarded, under magnet_consume_mutex, and passes through
 * magnet_flows_seen: the flows the records taken so far define (FLOW
 * records; a LOST record ends its CPU's). With it the reader decodes the
 * writers' version 3 records for the other outputs, and a version 3 stream
 * that starts after records were taken (a later open, a reset, a LOST
 * record the reader writes) begins with the FLOW records the records still
 * to come refer to.
 */
#include <linux/mutex.h>
#include <linux/ktime.h>
#include <linux/timekeeping.h>
#include <linux/bitmap.h>
#include <linux/sched.h>
#include <linux/indirect_call_wrapper.h>
#include "magnet.h"
#include "stream.h"

/* held while rings are consumed: by the reader's fill, and by reset */
DEFINE_MUTEX(magnet_consume_mutex);
unsigned long magnet_reset_pending;	/* under the mutex above */
static u64 magnet_reset_ts;		/* when the last reset ran */
static unsigned long magnet_reset_gen;	/* resets that discarded */
/*
 * records discarded unread: at a compat=ttprobe open, by reset, and taken
 * from the rings by a reader that closed before reading them (staged in
 * its rd->buf: `head -c`, a killed reader)
 */
static unsigned long magnet_discarded_open, magnet_discarded_reset;
static atomic_long_t magnet_discarded_closed;
/* ttprobe's field 7 (compat=ttprobe): lines formatted since load */
struct magnet_ttcount magnet_ttcount;	/* under the mutex above */
static struct magnet_v3_dec magnet_flows_seen;	/* under the mutex above */
static struct magnet_record magnet_scratch;	/* under the mutex above */

/* magnet_pass_aux() of a FLOW or LOST record: what it says of the flows */
bool magnet_pass_aux_record(const union magnet_slot *s)
{
	magnet_v3_decode(&magnet_flows_seen, s, s->hdr.len, 0, &magnet_scratch);
	return true;
}

/* magnet_pass_aux() for magnet_rings_discard(), which takes a function */
static bool magnet_pass_aux_fn(const union magnet_slot *s)
{
	return magnet_pass_aux(s);
}

/*
 * Append @rec to rd->buf in this open's output mode (not version 3);
 * @rate: its rate part, or NULL (only the magnet text format shows it).
 */
static void magnet_stream_emit(struct magnet_reader *rd,
			       const struct magnet_record *rec,
			       const struct magnet_v3_rate *rate)
{
	int n;

	/*
	 * Losses are counted in the statistics and the kernel log whatever the
	 * format; where the stream cannot say so, the log says it here too.
	 */
	if (unlikely(rec->event == MAGNET_EV_LOST) && !rd->out->marks)
		pr_warn_ratelimited("cpu %u: %llu records lost (ring full), %lld probe misses before this point; %s%s has no LOST record (see /proc/net/%s_stats)\n",
				    rec->cpu, rec->req, rec->ret, rd->out->name,
				    magnet_cfg.compat == MAGNET_COMPAT_TTPROBE ?
				    " compat=ttprobe" : "",
				    magnet_cfg.procname);
	n = rd->out->emit(rd, rd->buf + rd->len, rec, rate);
	if (n > 0) {
		rd->len += n;
		if (rec->event != MAGNET_EV_LOST && rec->event != MAGNET_EV_RESET)
			__set_bit(rd->len - 1, rd->ends);
	}
}

/*
 * A ring's record @s decoded into @r: 1 for an event or a LOST record, 0 for
 * a FLOW record, -1 for one that does not decode (never: every record the
 * module writes decodes).
 */
static __always_inline int magnet_decode(struct magnet_reader *rd,
					 const union magnet_slot *s, int cpu,
					 struct magnet_record *r)
{
	int k = magnet_v3_decode(&magnet_flows_seen, s, s->hdr.len, 0, r);

	if (likely(k == 1))
		rd->netns = magnet_flows_seen.netns;
	else if (k < 0)
		WARN_ONCE(1, "magnet: a ring record of cpu %d does not decode: %s\n",
			  cpu, magnet_flows_seen.err);
	return k;
}

/*
 * A ring's record @s, decoded for an output that is not version 3, into
 * rd->buf (struct magnet_output's take): whether it was a LOST or FLOW
 * record rather than an event.
 */
bool magnet_take_decoded(struct magnet_reader *rd, const union magnet_slot *s,
			 int cpu)
{
	struct magnet_v3_rate x __uninitialized;	/* read only if filled */
	bool rate;
	int k = magnet_decode(rd, s, cpu, &rd->rec);

	if (k <= 0)
		return k == 0;
	/* the rate part only for an output that shows it; a drop's part and
	 * a TCP event's for the same outputs (the others refuse those
	 * events) */
	rate = rd->out->rate && magnet_v3_rate(&magnet_flows_seen, &x);
	rd->drop = unlikely(rd->rec.event == MAGNET_EV_DROP_OUT ||
			    rd->rec.event == MAGNET_EV_DROP_IN) &&
		   magnet_v3_drop(&magnet_flows_seen, &rd->drop_part) ?
		   &rd->drop_part : NULL;
	rd->tcpev = unlikely(rd->rec.event >= MAGNET_EV_RETRANS) &&
		    magnet_v3_tcpev(&magnet_flows_seen, &rd->tcpev_part) ?
		    &rd->tcpev_part : NULL;
	rd->qdisc = unlikely(rd->rec.event == MAGNET_EV_QDISC ||
			     rd->rec.event == MAGNET_EV_QDISC_ENQ) &&
		    magnet_v3_qdisc(&magnet_flows_seen, &rd->qdisc_part) ?
		    &rd->qdisc_part : NULL;
	rd->lim = magnet_cfg.limit &&
		    magnet_v3_limit(&magnet_flows_seen, &rd->limit_part) ?
		    &rd->limit_part : NULL;
	rd->rcvbuf = unlikely(rd->rec.event == MAGNET_EV_RCVBUF) &&
		     magnet_v3_rcvbuf(&magnet_flows_seen, &rd->rcvbuf_part) ?
		     &rd->rcvbuf_part : NULL;
	rd->rtoend = unlikely(rd->rec.event == MAGNET_EV_RTO_END) &&
		     magnet_v3_rtoend(&magnet_flows_seen, &rd->rtoend_part) ?
		     &rd->rtoend_part : NULL;
	magnet_stream_emit(rd, &rd->rec, rate ? &x : NULL);
	return rd->rec.event == MAGNET_EV_LOST;
}

/*
 * Format 2 (omode=1 format=2): its record is the decoded record as it is,
 * decoded straight into rd->buf, not into rd->rec and copied (bench-insn,
 * tcp-binary: decode, copy and the emit pointer cost 17 instructions an
 * event more than 1d3bc69's). rd->len is a multiple of 8 here: the stream is
 * a 256-byte SYSINFO header and 256-byte records, and each fill starts at 0.
 */
bool magnet_take_binary(struct magnet_reader *rd, const union magnet_slot *s,
			int cpu)
{
	struct magnet_record *r = (struct magnet_record *)(rd->buf + rd->len);
	int k;

	BUILD_BUG_ON(sizeof(struct magnet_record) % 8 ||
		     sizeof(struct magnet_sysinfo) % 8);
	k = magnet_decode(rd, s, cpu, r);
	if (k <= 0)
		return k == 0;
	rd->len += sizeof(*r);
	/* a LOST record of the ring is a mark, not an event (stream_emit) */
	if (r->event == MAGNET_EV_LOST)
		return true;
	__set_bit(rd->len - 1, rd->ends);
	return false;
}

/*
 * omode=0: ttprobe lines are TCP events only; a TCP event's line straight
 * from the ring's record, the others need no decode (struct magnet_output's
 * take of the ttprobe outputs).
 */
static __always_inline bool
magnet_take_ttprobe_inline(struct magnet_reader *rd,
			   const union magnet_slot *s, int cpu)
{
	const struct magnet_v3_slot *flow;
	int n;

	if (s->hdr.event != MAGNET_EV_TCP_OUT &&
	    s->hdr.event != MAGNET_EV_TCP_IN &&
	    s->hdr.event != MAGNET_V3_FLOW &&
	    s->hdr.event != MAGNET_EV_LOST)
		return false;
	flow = magnet_v3_tcp_flow(&magnet_flows_seen, s, s->hdr.len);
	if (likely(flow)) {
		n = magnet_ttstream_format_v3(&rd->tt, rd->buf + rd->len, s,
					      flow, magnet_flows_seen.gen,
					      rd->rt_offset_ns);
		rd->len += n;
		__set_bit(rd->len - 1, rd->ends);
		return false;
	}
	return magnet_take_decoded(rd, s, cpu);
}

bool magnet_take_ttprobe(struct magnet_reader *rd, const union magnet_slot *s,
			 int cpu)
{
	return magnet_take_ttprobe_inline(rd, s, cpu);
}

/* Version 3: write every FLOW record in force (stamped @ts) first. */
void magnet_resync_from(struct magnet_reader *rd, u64 ts)
{
	rd->resync = true;
	rd->resync_cpu = 0;
	rd->resync_id = 1;
	rd->resync_ts = ts;
}

/*
 * A LOST or RESET mark the reader writes itself (not a ring's record): the
 * version 3 stream then writes the FLOW records again, since the mark ends
 * the scope of ids the writers still use.
 */
static void magnet_emit_mark(struct magnet_reader *rd, u16 event, u16 cpu,
			     u64 ts, u64 req, s64 ret)
{
	if (rd->out->v3) {
		rd->len += magnet_v3_put_count(rd->buf + rd->len, ts, cpu, event,
					       req, ret);
		magnet_resync_from(rd, ts);
		return;
	}
	memset(&rd->rec, 0, sizeof(rd->rec));
	rd->rec.ts_ns = ts;
	rd->rec.event = event;
	rd->rec.cpu = cpu;
	rd->rec.req = req;
	rd->rec.ret = ret;
	magnet_stream_emit(rd, &rd->rec, NULL);
}

/*
 * Version 3: the FLOW records of magnet_flows_seen, as many as rd->buf
 * holds; true when all are written. Process context, under the consume
 * mutex: it looks at 1024 ids of every possible CPU, and offers to
 * reschedule after each CPU's.
 */
static bool magnet_emit_resync(struct magnet_reader *rd)
{
	const struct magnet_v3_dec *d = &magnet_flows_seen;

	for (; rd->resync_cpu < d->ncpus; rd->resync_cpu++, rd->resync_id = 1) {
		cond_resched();
		for (; rd->resync_id <= MAGNET_V3_FLOW_IDS; rd->resync_id++) {
			if (rd->len + MAGNET_V3_FLOW_SIZE > MAGNET_KBUF_SIZE)
				return false;
			rd->len += magnet_v3_dec_flow(d, rd->resync_cpu,
						      rd->resync_id,
						      rd->resync_ts,
						      rd->buf + rd->len);
		}
	}
	rd->resync = false;
	return true;
}

/* An open's stream begins: its header, and a v3 stream's FLOW records. */
void magnet_stream_start(struct magnet_reader *rd)
{
	rd->off = 0;
	rd->len = rd->out->header ? rd->out->header(rd, rd->buf) : 0;
	if (rd->out->v3)
		magnet_resync_from(rd, ktime_get_mono_fast_ns());
}

/*
 * At the end of a drain, report losses that no LOST record has carried yet
 * (a writer reports them only when it next finds room), so the stream
 * accounts for every event up to here. Only for a CPU whose ring is empty
 * now, so the LOST record comes after everything that CPU wrote. False when
 * rd->buf filled first: the read after this one goes on with the rest.
 */
static bool magnet_emit_pending_lost(struct magnet_reader *rd)
{
	bool done = false;
	int cpu;

	magnet_probes_sweep_missed();
	/* the FLOW records it writes again read magnet_flows_seen, which a
	 * reset changes */
	mutex_lock(&magnet_consume_mutex);
	for_each_possible_cpu(cpu) {
		unsigned long n, m;

		if (!magnet_ring_has_pending(cpu))
			continue;
		/* one record per CPU: with many CPUs the rest waits for the
		 * next read, its count still pending */
		if (rd->len + rd->out->line_max > MAGNET_KBUF_SIZE ||
		    (rd->resync && !magnet_emit_resync(rd)))
			goto out;
		if (!magnet_ring_take_pending(cpu, &n, &m))
			continue;
		magnet_emit_mark(rd, MAGNET_EV_LOST, cpu,
				 ktime_get_mono_fast_ns(), n, m);
		/* the stream ends with these marks: no event follows that
		 * would need the FLOW records again (a next open writes them
		 * all first), so not one copy of them per CPU */
		rd->resync = false;
	}
	done = true;
out:
	mutex_unlock(&magnet_consume_mutex);
	return done;
}

/*
 * Format what the rings hold now into rd->buf, merged across CPUs by
 * timestamp, until about @want bytes are ready. Returns records consumed.
 */
static unsigned long magnet_fill(struct magnet_reader *rd, size_t want)
{
	const struct magnet_output *out = rd->out;
	unsigned long consumed = 0;
	union magnet_slot *rec;
	bool aux;
	int cpu;

	mutex_lock(&magnet_consume_mutex);
	/* everything staged was read: its marks go */
	bitmap_clear(rd->ends, 0, rd->len);
	rd->off = 0;
	rd->len = 0;
	magnet_ring_iter_begin(&rd->it, rd->draining ? rd->limit : NULL);
	while (rd->len < want && rd->len + out->line_max <= MAGNET_KBUF_SIZE) {
		/*
		 * The FLOW records written again can fill rd->buf to its last
		 * 72 bytes: room for the next record is checked after them
		 */
		if (rd->resync && (!magnet_emit_resync(rd) ||
				   rd->len + out->line_max > MAGNET_KBUF_SIZE))
			break;
		rec = magnet_ring_iter_next(&rd->it, &cpu);
		/*
		 * Such a record (below) may be of a flow whose FLOW record the
		 * reset discarded (an application event is stamped at the
		 * call, committed at its return): version 3 writes the FLOW
		 * records in force first, once per reset.
		 */
		if (out->v3 && magnet_reset_pending && rec &&
		    rec->hdr.ts_ns < magnet_reset_ts &&
		    rd->reset_gen != magnet_reset_gen) {
			rd->reset_gen = magnet_reset_gen;
			magnet_resync_from(rd, rec->hdr.ts_ns);
			continue;
		}
		/*
		 * The RESET mark, stamped when the reset ran, goes in its
		 * place in time: after records stamped before it that were
		 * committed only after the discard.
		 */
		if (magnet_reset_pending &&
		    (!rec || rec->hdr.ts_ns >= magnet_reset_ts)) {
			magnet_emit_mark(rd, MAGNET_EV_RESET, 0, magnet_reset_ts,
					 magnet_reset_pending, 0);
			magnet_reset_pending = 0;
			continue;
		}
		if (!rec)
			break;
		/*
		 * The slot is the reader's until the pass is released.
		 * ttprobe's lines, TEACUP's every record, are formatted here
		 * inline (bench-insn, tcp-ascii: through the pointer it cost
		 * 16 instructions an event more than 1d3bc69's switch); the
		 * decoded outputs' take is called directly
		 */
		if (likely(out->take == magnet_take_ttprobe))
			aux = magnet_take_ttprobe_inline(rd, rec, cpu);
		else
			aux = INDIRECT_CALL_2(out->take, magnet_take_decoded,
					      magnet_take_binary, rd, rec, cpu);
		magnet_ring_iter_take(&rd->it, cpu, aux);
		consumed++;
	}
	magnet_ring_iter_release(&rd->it);
	mutex_unlock(&magnet_consume_mutex);
	return consumed;
}

/* finish: read what the rings hold now, then the end of the stream */
void magnet_stream_drain(struct magnet_reader *rd)
{
	magnet_rings_heads(rd->limit);
	rd->draining = true;
}

/* rd->buf gets the stream's next bytes; a drain's end, its LOST records and
 * then the end of the stream */
void magnet_stream_stage(struct magnet_reader *rd, size_t want)
{
	if (!magnet_fill(rd, want) && rd->draining && rd->off == rd->len) {
		if (!rd->lost_flushed)
			rd->lost_flushed = magnet_emit_pending_lost(rd);
		if (rd->off == rd->len)
			rd->eof = true;
	}
}

/* a RESET mark waits to be written in this open's stream */
bool magnet_stream_marks_waiting(const struct magnet_reader *rd)
{
	return rd->out->marks && READ_ONCE(magnet_reset_pending);
}

/* `reset`: discard what the rings hold; the stream says how much. */
void magnet_stream_reset(void)
{
	unsigned long n;

	mutex_lock(&magnet_consume_mutex);
	n = magnet_rings_discard(magnet_pass_aux_fn);
	magnet_reset_pending += n;
	magnet_reset_ts = ktime_get_mono_fast_ns();
	if (n)
		magnet_reset_gen++;
	WRITE_ONCE(magnet_discarded_reset, magnet_discarded_reset + n);
	mutex_unlock(&magnet_consume_mutex);
	pr_info("reset: %lu buffered records discarded\n", n);
}

/*
 * compat=ttprobe: like ttprobe, an open empties what was buffered before
 * it, so a log holds only events from its open on. Nothing vanishes
 * silently: the records are counted in the statistics (`discarded open`)
 * and the kernel log. Losses that happened before the open are in the
 * `lost` counters already and are not reported again.
 */
void magnet_stream_discard_at_open(void)
{
	unsigned long n;

	mutex_lock(&magnet_consume_mutex);
	n = magnet_rings_discard(magnet_pass_aux_fn);
	magnet_reset_pending = 0;
	magnet_rings_drop_pending();
	WRITE_ONCE(magnet_discarded_open, magnet_discarded_open + n);
	mutex_unlock(&magnet_consume_mutex);
	if (n)
		pr_info("open: %lu records buffered before the open discarded (compat=ttprobe: a log starts at its open)\n",
			n);
}

/*
 * Events the reader took from the rings into rd->buf and closed without
 * reading, whole or in part: counted (`discarded closed`) and logged, not
 * lost without a trace.
 */
void magnet_stream_count_unread(const struct magnet_reader *rd)
{
	unsigned long n;

	if (rd->off >= rd->len)
		return;
	n = bitmap_weight(rd->ends, rd->len) - bitmap_weight(rd->ends, rd->off);
	if (!n)
		return;
	atomic_long_add(n, &magnet_discarded_closed);
	pr_info("close: %lu records taken from the rings were not read (the reader closed first)\n",
		n);
}

void magnet_discard_counts(unsigned long *at_open, unsigned long *by_reset,
			   unsigned long *at_close)
{
	*at_open = READ_ONCE(magnet_discarded_open);
	*by_reset = READ_ONCE(magnet_discarded_reset);
	*at_close = atomic_long_read(&magnet_discarded_closed);
}

int magnet_stream_init(void)
{
	if (magnet_v3_dec_init(&magnet_flows_seen, nr_cpu_ids)) {
		pr_err("cannot allocate the reader's flow tables (%u KiB)\n",
		       nr_cpu_ids * 64);
		return -ENOMEM;
	}
	/* what the handlers write: the limit part where magnet_cfg says */
	magnet_v3_dec_features(&magnet_flows_seen, magnet_cfg.limit ?
			       MAGNET_V3_FEATURES :
			       MAGNET_V3_FEATURES & ~MAGNET_V3_FEAT_LIMIT);
	return 0;
}

void magnet_stream_exit(void)
{
	magnet_v3_dec_free(&magnet_flows_seen);
}
