// SPDX-License-Identifier: GPL-2.0
/*
 * /proc/net/magnet (or /proc/net/<procname>): the reader side and the
 * command interface.
 *
 * One reader at a time (a second gets -EBUSY); any number of writers send
 * commands. A read blocks until records are buffered and returns them
 * merged across CPUs in timestamp order, as ttprobe lines (omode=0), binary
 * records after a SYSINFO header (omode=1; with format=3 whole records are
 * copied straight from the rings, for format 2 they are decoded) or magnet
 * text lines after a header line (omode=3). With compat=ttprobe (the
 * ttprobe build's default) omode=0 and 1 follow ttprobe v0.1.2: field 7 counts from 0 since load, fields 10 and
 * 11 are 32-bit with tcp_current_ssthresh(), omode=1 writes its 96-byte
 * records with no header, and an open discards (and counts) what was
 * buffered before it. The reader is woken in
 * batches: when a ring reaches half full (irq_work from the writer), by a
 * timer every MAGNET_WAKE_INTERVAL while records wait, and by flush, finish
 * and unload. See procfs-commands.md.
 */
#include <linux/proc_fs.h>
#include <linux/delay.h>
#include <linux/poll.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/uaccess.h>
#include <linux/wait.h>
#include <linux/mutex.h>
#include <linux/timekeeping.h>
#include <net/net_namespace.h>
#include <linux/utsname.h>
#include <linux/hash.h>
#include <linux/mm.h>
#include "compat.h"
#include "magnet.h"
#include "ring.h"
#include "format.h"
#include "v3.h"
#include "cmd.h"
#include "filter.h"
#include "mapio.h"

#define MAGNET_KBUF_SIZE (64 * 1024)
/* the most a direct copy (version 3) takes per hold of the consume mutex */
#define MAGNET_DIRECT_CHUNK (1024 * 1024)
#define MAGNET_WAKE_INTERVAL (HZ / 10)
/* the most pieces one MAGNET_IOC_TAKE returns (a writev's IOV_MAX) */
#define MAGNET_TAKE_SEGS_MAX 1024

/*
 * The readers' wait queue: allocated, not the module's own memory. A
 * poll() or select() that waits on the proc file, and an epoll set that
 * holds it, have an entry on it that proc_remove() does not wait for (an
 * epoll set keeps its entry until it is closed, after an unload too):
 * magnet_waitq_exit() frees it last, once no entry is left.
 */
static struct wait_queue_head *magnet_wq;
static unsigned long magnet_reader_busy;	/* bit 0: a reader is open */
static atomic_t magnet_finish_gen = ATOMIC_INIT(0);
static bool magnet_shutdown;			/* module is unloading */
static bool magnet_timer_armed;
static struct timer_list magnet_wake_timer;
static struct proc_dir_entry *magnet_proc;
/* held while rings are consumed: by the reader's fill, and by reset */
static DEFINE_MUTEX(magnet_consume_mutex);
static unsigned long magnet_reset_pending;	/* under the mutex above */
static u64 magnet_reset_ts;			/* when the last reset ran */
static unsigned long magnet_reset_gen;		/* resets that discarded */
/*
 * records discarded unread: at a compat=ttprobe open, by reset, and taken
 * from the rings by a reader that closed before reading them (staged in
 * its rd->buf: `head -c`, a killed reader)
 */
static unsigned long magnet_discarded_open, magnet_discarded_reset;
static atomic_long_t magnet_discarded_closed;
/* ttprobe's field 7 (compat=ttprobe): lines formatted since load */
static struct magnet_ttcount magnet_ttcount;	/* under the mutex above */
/*
 * The flows that the records taken from the rings so far define (FLOW
 * records; a LOST record ends its CPU's): every record leaves the rings
 * through it, read or discarded, under the mutex above. With it the
 * reader decodes the writers' version 3 records for the other outputs,
 * and a version 3 stream that starts after records were taken (a later
 * open, a reset, a LOST record the reader writes) begins with the FLOW
 * records the records still to come refer to.
 */
static struct magnet_v3_dec magnet_flows_seen;

/*
 * web10g connection ids: sock_id -> small integer, per open. The table
 * starts at 2^12 slots and doubles when half full, as ttpb2ascii's does,
 * so the two number connections alike. It is never more than half full:
 * at 2^20 slots (524,288 connections in one open), or when memory runs
 * out, later connections get CID 0, which the kernel log reports.
 */
#define MAGNET_CID_BITS_MIN 12
#define MAGNET_CID_BITS_MAX 20
struct magnet_cid {
	u64 sock_id;
	u32 cid;
	u32 flow;	/* magnet_flow_key() of the connection with this cid */
};

struct magnet_reader {
	struct mutex lock;
	unsigned int omode;	/* MAGNET_OMODE_* of this open */
	bool compat;		/* compat=ttprobe: ttprobe's omode=0 and 1 */
	char *buf;		/* output not yet read: [off, len) */
	size_t off, len;
	/* a bit per byte of buf: set at the last byte of an event's output,
	 * so the events staged but not read are counted at release */
	unsigned long *ends;
	struct magnet_ttstream tt;	/* omode=0: field 7 and its rules */
	s64 rt_offset_ns;	/* CLOCK_REALTIME - CLOCK_MONOTONIC at open */
	int finish_gen;		/* finish commands seen at open */
	size_t line_max;	/* longest output of one record */
	struct magnet_cid *cids;	/* omode=2: 2^cid_bits slots */
	u32 cid_bits;
	u32 next_cid;
	bool draining;		/* finish seen: read up to ->limit, then EOF */
	bool lost_flushed;	/* draining: pending losses were reported */
	bool eof;
	unsigned long *pos;	/* per CPU: next record to read */
	unsigned long *end;	/* per CPU: end of this read's snapshot */
	unsigned long *limit;	/* per CPU: head when finish was seen */
	unsigned long *aux;	/* per CPU: LOST and FLOW records this fill took */
	int *active;		/* the CPUs this fill merges, see fill_begin */
	unsigned int nactive;
	bool v3;		/* format=3: the rings' records as they are */
	/* v3: the FLOW records of magnet_flows_seen still to write, from
	 * (resync_cpu, resync_id), before any other record */
	bool resync;
	unsigned int resync_cpu, resync_id;
	u64 resync_ts;
	struct magnet_record rec;	/* a record decoded for the output */
	/* mapped reading (mapio.h) */
	bool mapped;		/* the rings are mapped: TAKE may be used */
	/* the last TAKE's records, up to ->pos, are still in the rings */
	bool holding;
	unsigned long *held_aux;	/* per CPU: LOST and FLOW among them */
	unsigned long reset_gen;	/* v3: the reset its FLOW records
					 * were last written again for */
};

/* the reader whose TAKE holds records in the rings (under the mutex) */
static struct magnet_reader *magnet_holder;

void magnet_wake_reader(void)
{
	wake_up_interruptible(magnet_wq);
}

static void magnet_wake_timer_fn(struct timer_list *t)
{
	if (!magnet_rings_empty())
		magnet_wake_reader();
	if (READ_ONCE(magnet_timer_armed))
		mod_timer(&magnet_wake_timer, jiffies + MAGNET_WAKE_INTERVAL);
}

static bool magnet_finish_requested(const struct magnet_reader *rd)
{
	return atomic_read(&magnet_finish_gen) != rd->finish_gen;
}

/*
 * Does this open's stream carry LOST and RESET marks? magnet's binary and
 * text do; ttprobe lines, web10g lines and ttprobe's 96-byte records have
 * no such record.
 */
static bool magnet_stream_marks(const struct magnet_reader *rd)
{
	return rd->omode == MAGNET_OMODE_TEXT ||
	       (rd->omode == MAGNET_OMODE_BINARY && !rd->compat);
}

/* records wait that this open has not taken (a TAKE's held ones have) */
static bool magnet_records_waiting(const struct magnet_reader *rd)
{
	int cpu;

	if (!READ_ONCE(rd->holding))
		return !magnet_rings_empty();
	for_each_possible_cpu(cpu)
		if (smp_load_acquire(&per_cpu_ptr(magnet_rings, cpu)->head) !=
		    READ_ONCE(rd->pos[cpu]))
			return true;
	return false;
}

static bool magnet_reader_ready(const struct magnet_reader *rd)
{
	return READ_ONCE(rd->off) < READ_ONCE(rd->len) || READ_ONCE(rd->eof) ||
	       READ_ONCE(magnet_shutdown) || magnet_finish_requested(rd) ||
	       (magnet_stream_marks(rd) && READ_ONCE(magnet_reset_pending)) ||
	       magnet_records_waiting(rd);
}

bool magnet_reader_is_open(void)
{
	return test_bit(0, &magnet_reader_busy);
}

/* @sock_id's slot, or the free one where it goes: the table is never
 * more than half full, so there is one */
static struct magnet_cid *magnet_cid_slot(struct magnet_cid *t, u32 bits,
					   u64 sock_id)
{
	u32 mask = (1U << bits) - 1, i = (u32)hash_64(sock_id, bits);

	while (t[i].cid && t[i].sock_id != sock_id)
		i = (i + 1) & mask;
	return &t[i];
}

/* Twice the slots; false (the table stays as it is) at the limit or
 * without memory. Process context: the reader, under its mutexes. */
static bool magnet_cid_grow(struct magnet_reader *rd)
{
	u32 bits = rd->cid_bits + 1, i;
	struct magnet_cid *t;

	if (bits > MAGNET_CID_BITS_MAX)
		return false;
	t = kvcalloc(1U << bits, sizeof(*t), GFP_KERNEL | __GFP_NOWARN);
	if (!t)
		return false;
	for (i = 0; i < (1U << rd->cid_bits); i++)
		if (rd->cids[i].cid)
			*magnet_cid_slot(t, bits, rd->cids[i].sock_id) =
				rd->cids[i];
	kvfree(rd->cids);
	rd->cids = t;
	rd->cid_bits = bits;
	return true;
}

/*
 * The web10g connection id of @rec's connection: 1, 2, ... in order of
 * appearance. A socket's id is never another socket's (its cookie,
 * sockid.h); one seen with another flow than before was connected again
 * (a connect() that failed, then one to another peer): a new connection,
 * a new id in the same slot.
 */
static u32 magnet_cid(struct magnet_reader *rd, const struct magnet_record *rec)
{
	u64 sock_id = rec->sock_id;
	struct magnet_cid *c = magnet_cid_slot(rd->cids, rd->cid_bits, sock_id);
	u32 flow = magnet_flow_key(rec);

	if (c->cid) {
		if (c->flow != flow) {
			c->flow = flow;
			c->cid = ++rd->next_cid;
		}
		return c->cid;
	}
	if ((u64)(rd->next_cid + 1) * 2 > (1U << rd->cid_bits)) {
		if (!magnet_cid_grow(rd)) {
			pr_warn_ratelimited("web10g: no room for more than %u connections in one open; later ones get CID 0\n",
					    rd->next_cid);
			return 0;
		}
		c = magnet_cid_slot(rd->cids, rd->cid_bits, sock_id);
	}
	c->sock_id = sock_id;
	c->flow = flow;
	c->cid = ++rd->next_cid;
	return c->cid;
}

/*
 * Append @rec to rd->buf in this open's output mode (not version 3);
 * @rate: its rate part, or NULL (only the magnet text format shows it).
 */
static void magnet_emit(struct magnet_reader *rd,
			const struct magnet_record *rec,
			const struct magnet_v3_rate *rate)
{
	char *dst = rd->buf + rd->len;
	int n = 0;

	/*
	 * Losses are counted in the statistics and the kernel log whatever the
	 * format; where the stream cannot say so, the log says it here too.
	 */
	if (unlikely(rec->event == MAGNET_EV_LOST) && !magnet_stream_marks(rd))
		pr_warn_ratelimited("cpu %u: %llu records lost (ring full), %lld probe misses before this point; omode=%u%s has no LOST record (see /proc/net/%s_stats)\n",
				    rec->cpu, rec->req, rec->ret, rd->omode,
				    rd->compat ? " compat=ttprobe" : "",
				    magnet_cfg.procname);

	switch (rd->omode) {
	case MAGNET_OMODE_TTPROBE:
		n = magnet_ttstream_format(&rd->tt, dst, rec, rd->rt_offset_ns);
		break;
	case MAGNET_OMODE_BINARY:
		if (rd->compat) {
			struct magnet_legacy_record l;

			n = magnet_format_legacy(&l, rec, rd->rt_offset_ns);
			if (n > 0)
				memcpy(dst, &l, n);
			break;
		}
		memcpy(dst, rec, sizeof(*rec));
		n = sizeof(*rec);
		break;
	case MAGNET_OMODE_TEXT:
		n = magnet_format_text(dst, rec, rate, rd->rt_offset_ns);
		break;
	case MAGNET_OMODE_WEB10G:
		if (magnet_web10g_has_line(rec))
			n = magnet_format_web10g(dst, rec, rd->rt_offset_ns,
						 magnet_cid(rd, rec));
		break;
	}
	if (n > 0) {
		rd->len += n;
		if (rec->event != MAGNET_EV_LOST && rec->event != MAGNET_EV_RESET)
			__set_bit(rd->len - 1, rd->ends);
	}
}

/* Version 3: write every FLOW record in force (stamped @ts) first. */
static void magnet_resync_from(struct magnet_reader *rd, u64 ts)
{
	rd->resync = true;
	rd->resync_cpu = 0;
	rd->resync_id = 1;
	rd->resync_ts = ts;
}

static struct magnet_record magnet_scratch;	/* under the mutex */

/*
 * Under magnet_consume_mutex: @s leaves the rings without being decoded
 * for an output. Returns whether it is a LOST or FLOW record rather than
 * an event, after taking what it says of the flows into magnet_flows_seen.
 */
static bool magnet_pass_aux(const union magnet_slot *s)
{
	if (s->hdr.event != MAGNET_V3_FLOW && s->hdr.event != MAGNET_EV_LOST)
		return false;
	magnet_v3_decode(&magnet_flows_seen, s, s->hdr.len, 0, &magnet_scratch);
	return true;
}

/*
 * A LOST or RESET mark the reader writes itself (not a ring's record): the
 * version 3 stream then writes the FLOW records again, since the mark ends
 * the scope of ids the writers still use.
 */
static void magnet_emit_mark(struct magnet_reader *rd, u16 event, u16 cpu,
			     u64 ts, u64 req, s64 ret)
{
	if (rd->v3) {
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
	magnet_emit(rd, &rd->rec, NULL);
}

/*
 * Version 3: the FLOW records of magnet_flows_seen, as many as rd->buf
 * holds; true when all are written.
 */
static bool magnet_emit_resync(struct magnet_reader *rd)
{
	const struct magnet_v3_dec *d = &magnet_flows_seen;

	for (; rd->resync_cpu < d->ncpus; rd->resync_cpu++, rd->resync_id = 1) {
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

/*
 * Under magnet_consume_mutex: the ring's record @s leaves the ring into
 * this open's output.
 */
static void magnet_take(struct magnet_reader *rd, const union magnet_slot *s,
			int cpu)
{
	unsigned int len = s->hdr.len;
	struct magnet_v3_rate x __uninitialized;	/* read only if filled */
	bool rate;

	if (rd->v3) {
		/* the flows it defines or ends, for a stream after this one */
		bool aux = magnet_pass_aux(s);

		memcpy(rd->buf + rd->len, s, len);
		rd->len += len;
		if (aux)
			rd->aux[cpu]++;
		else
			__set_bit(rd->len - 1, rd->ends);
		return;
	}
	if (rd->omode == MAGNET_OMODE_TTPROBE) {
		const struct magnet_v3_slot *flow;
		int n;

		/* ttprobe lines are TCP events only: the others need no decode */
		if (s->hdr.event != MAGNET_EV_TCP_OUT &&
		    s->hdr.event != MAGNET_EV_TCP_IN &&
		    s->hdr.event != MAGNET_V3_FLOW &&
		    s->hdr.event != MAGNET_EV_LOST)
			return;
		/* a TCP event's line straight from the ring's record */
		flow = magnet_v3_tcp_flow(&magnet_flows_seen, s, len);
		if (likely(flow)) {
			n = magnet_ttstream_format_v3(&rd->tt, rd->buf + rd->len,
						      s, flow,
						      magnet_flows_seen.gen,
						      rd->rt_offset_ns);
			rd->len += n;
			__set_bit(rd->len - 1, rd->ends);
			return;
		}
	}
	/* every record the module writes decodes */
	switch (magnet_v3_decode(&magnet_flows_seen, s, len, 0, &rd->rec)) {
	case 1:
		if (rd->rec.event == MAGNET_EV_LOST)
			rd->aux[cpu]++;
		/* the rate part only for the text that shows it */
		rate = rd->omode == MAGNET_OMODE_TEXT &&
		       magnet_v3_rate(&magnet_flows_seen, &x);
		magnet_emit(rd, &rd->rec, rate ? &x : NULL);
		break;
	case 0:		/* a FLOW record */
		rd->aux[cpu]++;
		break;
	default:
		WARN_ONCE(1, "magnet: a ring record of cpu %d does not decode: %s\n",
			  cpu, magnet_flows_seen.err);
	}
}

/* The stream's first bytes: SYSINFO (binary) or the column names (text). */
static void magnet_emit_header(struct magnet_reader *rd)
{
	struct magnet_sysinfo *si = (struct magnet_sysinfo *)rd->buf;
	const struct magnet_config *c = &magnet_cfg;

	rd->off = 0;
	rd->len = 0;
	if (rd->omode == MAGNET_OMODE_TEXT) {
		rd->len = magnet_format_text_header(rd->buf);
	} else if (rd->omode == MAGNET_OMODE_WEB10G) {
		rd->len = magnet_format_web10g_header(rd->buf);
	} else if (rd->omode == MAGNET_OMODE_BINARY && !rd->compat) {
		/* ttprobe's binary stream has no header */
		memset(si, 0, sizeof(*si));
		si->magic = MAGNET_MAGIC;
		si->version = rd->v3 ? MAGNET_FORMAT_VERSION_V3 :
				       MAGNET_FORMAT_VERSION;
		/* version 3's records vary */
		si->record_size = rd->v3 ? 0 : sizeof(struct magnet_record);
		si->sysinfo_size = sizeof(*si);
		si->ncpus = nr_cpu_ids;
		si->realtime_offset_ns = rd->rt_offset_ns;
		si->start_ns = ktime_get_mono_fast_ns();
		strscpy(si->release, init_utsname()->release,
			sizeof(si->release));
		si->port = c->port;
		si->full = c->full;
		si->bufsize = c->bufsize;
		si->omode = c->omode;
		si->direction = c->direction;
		si->fwmark = c->fwmark;
		si->events = c->events;
		strscpy(si->procname, c->procname, sizeof(si->procname));
		strscpy(si->version_string, MAGNET_VERSION,
			sizeof(si->version_string));
		rd->len = sizeof(*si);
	}
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
		struct magnet_ring *r = per_cpu_ptr(magnet_rings, cpu);
		unsigned long n, m;

		if (magnet_ring_count(r) ||
		    !(atomic_long_read(&r->lost_pending) |
		      atomic_long_read(&r->missed_pending)))
			continue;
		/* one record per CPU: with many CPUs the rest waits for the
		 * next read, its count still pending */
		if (rd->len + rd->line_max > MAGNET_KBUF_SIZE ||
		    (rd->resync && !magnet_emit_resync(rd)))
			goto out;
		n = atomic_long_xchg(&r->lost_pending, 0);
		m = atomic_long_xchg(&r->missed_pending, 0);
		if (!(n | m))
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
 * Under magnet_consume_mutex: this fill reads each ring up to its head now.
 * Only the CPUs with records to read take part in the merge, so a record
 * costs the reader the same on a machine with hundreds of possible CPUs.
 */
static void magnet_fill_begin(struct magnet_reader *rd)
{
	int cpu;

	rd->nactive = 0;
	for_each_possible_cpu(cpu) {
		struct magnet_ring *r = per_cpu_ptr(magnet_rings, cpu);
		unsigned long end = smp_load_acquire(&r->head);

		if (rd->draining && (long)(end - rd->limit[cpu]) > 0)
			end = rd->limit[cpu];
		rd->pos[cpu] = r->tail;
		rd->aux[cpu] = 0;
		rd->end[cpu] = end;
		if ((long)(end - r->tail) > 0)
			rd->active[rd->nactive++] = cpu;
	}
}

/*
 * The oldest record not yet taken in this fill, across CPUs (on equal
 * times, the lowest CPU's), or NULL. A CPU whose records are all taken
 * leaves the merge. Inlined in its three callers' loops: as a call it
 * cost 46 instructions a record, 11 to 23 more than inlined (bench-insn).
 */
static __always_inline union magnet_slot *
magnet_fill_next(struct magnet_reader *rd, int *cpup)
{
	union magnet_slot *rec, *best = NULL;
	unsigned int i = 0;

	while (i < rd->nactive) {
		int cpu = rd->active[i];
		struct magnet_ring *r = per_cpu_ptr(magnet_rings, cpu);

		if ((long)(rd->end[cpu] - rd->pos[cpu]) <= 0) {
			rd->active[i] = rd->active[--rd->nactive];
			continue;
		}
		rec = magnet_ring_slot(r, rd->pos[cpu]);
		if (!best || rec->hdr.ts_ns < best->hdr.ts_ns ||
		    (rec->hdr.ts_ns == best->hdr.ts_ns && cpu < *cpup)) {
			best = rec;
			*cpup = cpu;
		}
		i++;
	}
	return best;
}

/* The records taken are the writers' again. */
static void magnet_fill_end(struct magnet_reader *rd)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct magnet_ring *r = per_cpu_ptr(magnet_rings, cpu);

		if (rd->aux[cpu])
			WRITE_ONCE(r->aux_taken, r->aux_taken + rd->aux[cpu]);
		smp_store_release(&r->tail, rd->pos[cpu]);
	}
}

/*
 * Format what the rings hold now into rd->buf, merged across CPUs by
 * timestamp, until about @want bytes are ready. Returns records consumed.
 */
static unsigned long magnet_fill(struct magnet_reader *rd, size_t want)
{
	unsigned long consumed = 0;
	union magnet_slot *rec;
	int cpu;

	mutex_lock(&magnet_consume_mutex);
	/* everything staged was read: its marks go */
	bitmap_clear(rd->ends, 0, rd->len);
	rd->off = 0;
	rd->len = 0;
	magnet_fill_begin(rd);
	while (rd->len < want && rd->len + rd->line_max <= MAGNET_KBUF_SIZE) {
		/*
		 * The FLOW records written again can fill rd->buf to its last
		 * 72 bytes: room for the next record is checked after them
		 */
		if (rd->resync && (!magnet_emit_resync(rd) ||
				   rd->len + rd->line_max > MAGNET_KBUF_SIZE))
			break;
		rec = magnet_fill_next(rd, &cpu);
		/*
		 * Such a record (below) may be of a flow whose FLOW record the
		 * reset discarded (an application event is stamped at the
		 * call, committed at its return): version 3 writes the FLOW
		 * records in force first, once per reset.
		 */
		if (rd->v3 && magnet_reset_pending && rec &&
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
		/* the slot is the reader's until tail moves past it */
		magnet_take(rd, rec, cpu);
		rd->pos[cpu]++;
		consumed++;
	}
	magnet_fill_end(rd);
	mutex_unlock(&magnet_consume_mutex);
	return consumed;
}

/*
 * Version 3 records go from the rings straight to the reader's buffer,
 * whole records only, merged by timestamp: one copy per record, not two.
 * Only when nothing is staged in rd->buf and no FLOW records are to be
 * written again first. The slot is not changed, so a record whose copy
 * faults is read again next time.
 */
static bool magnet_direct(const struct magnet_reader *rd, size_t count)
{
	return rd->v3 && !rd->resync && count >= MAGNET_V3_MAX_SIZE;
}

/*
 * One record to the reader's buffer, with page faults disabled: false if
 * it would fault. Not copy_to_user(): per record, its hardened-usercopy
 * check of the source (about 90 instructions, bench-insn) and the byte
 * loop of `rep movsb` cost more than the copy of a 56- to 200-byte record
 * in 8-byte stores, inside one user access window. The source is a ring
 * slot, whose bounds the caller knows (len <= MAGNET_SLOT_SIZE).
 */
static __always_inline bool magnet_copy_record(char __user *dst,
					       const union magnet_slot *rec,
					       unsigned int len)
{
	const u64 *s = (const u64 *)rec;
	u64 __user *d = (u64 __user *)dst;
	unsigned int n = len / 8;

	if (!user_access_begin(dst, len))
		return false;
	/*
	 * Four words a turn: unsafe_copy_to_user()'s loop spends 7
	 * instructions on each word (bench-insn: 185 of a TCP event's 229)
	 */
	for (; n >= 4; n -= 4, s += 4, d += 4) {
		unsafe_put_user(s[0], d, fault);
		unsafe_put_user(s[1], d + 1, fault);
		unsafe_put_user(s[2], d + 2, fault);
		unsafe_put_user(s[3], d + 3, fault);
	}
	switch (n) {
	case 3:
		unsafe_put_user(s[2], d + 2, fault);
		fallthrough;
	case 2:
		unsafe_put_user(s[1], d + 1, fault);
		fallthrough;
	case 1:
		unsafe_put_user(s[0], d, fault);
	}
	/* a record is whole words (magnet_v3_record_len()): none left */
	if (unlikely(len % 8))
		unsafe_copy_to_user((char __user *)dst + (len & ~7U),
				    (const char *)rec + (len & ~7U), len % 8,
				    fault);
	user_access_end();
	return true;
fault:
	user_access_end();
	return false;
}

/*
 * Returns the bytes copied, or -EFAULT; 0 if no record waits or a reset
 * mark does (magnet_fill puts it first in the stream).
 *
 * The copies run with page faults disabled, so a fault never waits under
 * magnet_consume_mutex (a reset or an unload would wait behind a reader
 * whose buffer is slow to fault in: swap, userfaultfd, FUSE). A copy that
 * would fault stops; the rest of the buffer is faulted in without the
 * mutex, and the copying goes on from the same record.
 */
static ssize_t magnet_fill_user(struct magnet_reader *rd, char __user *ubuf,
				size_t count)
{
	union magnet_slot *rec;
	ssize_t done = 0;
	bool faulted, more;
	size_t left, stop;
	int cpu;

	do {
		/* at most MAGNET_DIRECT_CHUNK bytes per hold of the mutex: a
		 * large read() of full rings neither holds off a reset or an
		 * unload nor runs long without a chance to reschedule */
		stop = min_t(size_t, count, done + MAGNET_DIRECT_CHUNK);
		faulted = false;
		more = false;
		mutex_lock(&magnet_consume_mutex);
		if (magnet_reset_pending) {
			mutex_unlock(&magnet_consume_mutex);
			break;
		}
		magnet_fill_begin(rd);
		pagefault_disable();
		while ((rec = magnet_fill_next(rd, &cpu))) {
			unsigned int len = rec->hdr.len;

			if (done + len > stop) {
				more = stop < count;
				break;
			}
			if (!magnet_copy_record(ubuf + done, rec, len)) {
				faulted = true;
				break;
			}
			if (magnet_pass_aux(rec))
				rd->aux[cpu]++;
			rd->pos[cpu]++;
			done += len;
		}
		pagefault_enable();
		magnet_fill_end(rd);
		mutex_unlock(&magnet_consume_mutex);
		if (more) {
			cond_resched();
			continue;
		}
		if (!faulted)
			break;
		/*
		 * go on only if at least the largest record's room faults in;
		 * a chunk's worth, not the whole rest of a buffer that may be
		 * far larger than the records waiting (read(fd, buf, 1 GiB)
		 * would commit every page of it)
		 */
		left = min_t(size_t, count - done, MAGNET_DIRECT_CHUNK);
		left -= magnet_fault_in_writeable(ubuf + done, left);
		if (left < MAGNET_V3_MAX_SIZE)
			return done ? done : -EFAULT;
		cond_resched();
	} while (!fatal_signal_pending(current));
	return done;
}

/*
 * Mapped reading (mapio.h). The records of a TAKE are taken like read()'s
 * (passed through magnet_flows_seen, counted) but the rings' tails stay
 * until the next TAKE, read() or close, so the writers leave their slots
 * alone while the reader writes them from the map.
 */

/* The records the last TAKE returned are the writers' again. */
static void magnet_release_held(struct magnet_reader *rd)
{
	int cpu;

	if (!rd->holding)
		return;
	mutex_lock(&magnet_consume_mutex);
	for_each_possible_cpu(cpu) {
		struct magnet_ring *r = per_cpu_ptr(magnet_rings, cpu);

		if (rd->held_aux[cpu])
			WRITE_ONCE(r->aux_taken, r->aux_taken + rd->held_aux[cpu]);
		rd->held_aux[cpu] = 0;
		smp_store_release(&r->tail, rd->pos[cpu]);
	}
	rd->holding = false;
	magnet_holder = NULL;
	mutex_unlock(&magnet_consume_mutex);
}

/*
 * The records the rings hold now, merged by timestamp, as pieces of the
 * map written to @usegs (at most @max); they stay in the rings, held.
 * Returns the pieces, 0 if no record waits or a reset mark does (which
 * magnet_fill puts first), or -EFAULT if not one piece could be written.
 * As in magnet_fill_user, the pieces are written with page faults
 * disabled: a piece that would fault ends the TAKE, its record not taken.
 */
static long magnet_fill_map(struct magnet_reader *rd,
			    struct magnet_seg __user *usegs, unsigned int max)
{
	u64 ring = magnet_ring_size();
	union magnet_slot *rec;
	unsigned int n = 0;
	int cpu;

	if (!access_ok(usegs, array_size(max, sizeof(*usegs))) ||
	    magnet_fault_in_writeable((char __user *)usegs,
				      sizeof(*usegs)) != 0)
		return -EFAULT;
	mutex_lock(&magnet_consume_mutex);
	if (magnet_reset_pending)
		goto out;
	magnet_fill_begin(rd);
	pagefault_disable();
	while (n < max && (rec = magnet_fill_next(rd, &cpu))) {
		struct magnet_ring *r = per_cpu_ptr(magnet_rings, cpu);
		struct magnet_seg seg = {
			.off = cpu * ring +
			       (u64)(rd->pos[cpu] & r->mask) * MAGNET_SLOT_SIZE,
			.len = rec->hdr.len,
		};

		if (__copy_to_user_inatomic(&usegs[n], &seg, sizeof(seg)))
			break;
		if (magnet_pass_aux(rec))
			rd->aux[cpu]++;
		rd->pos[cpu]++;
		n++;
	}
	pagefault_enable();
	if (n) {
		for_each_possible_cpu(cpu)
			rd->held_aux[cpu] = rd->aux[cpu];
		rd->holding = true;
		magnet_holder = rd;
	}
out:
	mutex_unlock(&magnet_consume_mutex);
	return n;
}

/* Bytes the reader wrote itself (rd->buf), as one piece in the TAKE's buf. */
static long magnet_take_staged(struct magnet_reader *rd, void *arg)
{
	const struct magnet_take *t = arg;
	struct magnet_seg seg = {
		.len = min_t(size_t, t->buf_size, rd->len - rd->off),
		.flags = MAGNET_SEG_BUF,
	};

	if (copy_to_user(u64_to_user_ptr(t->segs), &seg, sizeof(seg)) ||
	    copy_to_user(u64_to_user_ptr(t->buf), rd->buf + rd->off, seg.len))
		return -EFAULT;
	rd->off += seg.len;
	return 1;
}

static void magnet_start_drain(struct magnet_reader *rd)
{
	int cpu;

	for_each_possible_cpu(cpu)
		rd->limit[cpu] =
			smp_load_acquire(&per_cpu_ptr(magnet_rings, cpu)->head);
	rd->draining = true;
}

/* rd->buf gets the stream's next bytes; a drain's end, its LOST records and
 * then the end of the stream */
static void magnet_stage(struct magnet_reader *rd, size_t want)
{
	if (!magnet_fill(rd, want) && rd->draining && rd->off == rd->len) {
		if (!rd->lost_flushed)
			rd->lost_flushed = magnet_emit_pending_lost(rd);
		if (rd->off == rd->len)
			rd->eof = true;
	}
}

/*
 * How read() and MAGNET_IOC_TAKE give the stream to their caller: @direct
 * the records straight from the rings if it can (> 0: what it gave; 0:
 * nothing, as when a reset mark or FLOW records go first; < 0: an error),
 * @staged what rd->buf holds (> 0, or < 0); @want bytes staged at a time.
 */
struct magnet_sink {
	long (*direct)(struct magnet_reader *rd, void *arg);
	long (*staged)(struct magnet_reader *rd, void *arg);
	void *arg;
	size_t want;
	bool nowait;
};

/*
 * The stream's next bytes, to @sink, waiting for them unless @sink->nowait.
 * Returns what the sink's call returned, 0 at the end of the stream (a
 * drained finish, or an unload), -EAGAIN or -ERESTARTSYS. Inlined in its
 * two callers, so the sink's calls are direct ones.
 */
static __always_inline long magnet_next(struct magnet_reader *rd,
					const struct magnet_sink *sink)
{
	long ret;

	if (mutex_lock_interruptible(&rd->lock))
		return -ERESTARTSYS;
	magnet_release_held(rd);
	for (;;) {
		/* unloading: end of file now, even with text pending */
		if (READ_ONCE(magnet_shutdown)) {
			ret = 0;
			break;
		}
		if (rd->off == rd->len && !rd->eof) {
			if (!rd->draining && magnet_finish_requested(rd))
				magnet_start_drain(rd);
			ret = sink->direct(rd, sink->arg);
			if (ret)
				break;
			magnet_stage(rd, sink->want);
		}
		if (rd->off < rd->len) {
			ret = sink->staged(rd, sink->arg);
			break;
		}
		if (rd->eof) {
			ret = 0;
			break;
		}
		if (sink->nowait) {
			ret = -EAGAIN;
			break;
		}
		mutex_unlock(&rd->lock);
		if (wait_event_interruptible(*magnet_wq, magnet_reader_ready(rd)))
			return -ERESTARTSYS;
		if (mutex_lock_interruptible(&rd->lock))
			return -ERESTARTSYS;
	}
	mutex_unlock(&rd->lock);
	return ret;
}

/* TAKE's records: pieces of the map, unless FLOW records go again first */
static long magnet_take_direct(struct magnet_reader *rd, void *arg)
{
	const struct magnet_take *t = arg;

	if (rd->resync)
		return 0;
	return magnet_fill_map(rd, u64_to_user_ptr(t->segs), t->max_segs);
}

/*
 * MAGNET_IOC_TAKE: the stream's next pieces, as read() would give its
 * bytes (blocking, or -EAGAIN with O_NONBLOCK or MAGNET_TAKE_NOWAIT);
 * nsegs 0 and MAGNET_TAKE_EOF at its end.
 */
static long magnet_ioctl_take(struct file *file, struct magnet_reader *rd,
			      struct magnet_take __user *ut)
{
	struct magnet_take t;
	long ret;

	if (copy_from_user(&t, ut, sizeof(t)))
		return -EFAULT;
	if (!READ_ONCE(rd->mapped) || t.buf_size < MAGNET_TAKE_BUF_MIN ||
	    !t.max_segs)
		return -EINVAL;
	t.max_segs = min_t(u32, t.max_segs, MAGNET_TAKE_SEGS_MAX);
	/*
	 * the results' room, writable before any record is taken: taken
	 * records whose count could not be returned would be released
	 * undelivered by the next TAKE or read()
	 */
	if (put_user(0, &ut->nsegs) || put_user(t.flags, &ut->flags))
		return -EFAULT;
	ret = magnet_next(rd, &(const struct magnet_sink){
		.direct = magnet_take_direct,
		.staged = magnet_take_staged,
		.arg = &t,
		.want = t.buf_size,
		.nowait = (file->f_flags & O_NONBLOCK) ||
			  (t.flags & MAGNET_TAKE_NOWAIT),
	});
	if (ret < 0)
		return ret;
	t.nsegs = ret;
	t.flags = ret ? 0 : MAGNET_TAKE_EOF;
	if (put_user(t.nsegs, &ut->nsegs) || put_user(t.flags, &ut->flags))
		return -EFAULT;
	return 0;
}

/* a format=3 binary open (its stream is the records), rings of whole pages */
static bool magnet_mappable(const struct magnet_reader *rd)
{
	return rd && rd->v3 && !(magnet_ring_size() % PAGE_SIZE);
}

static long magnet_ioctl(struct file *file, unsigned int cmd,
			 unsigned long arg)
{
	struct magnet_reader *rd = file->private_data;
	struct magnet_map_info info = {};

	switch (cmd) {
	case MAGNET_IOC_MAP_INFO:
		if (!magnet_mappable(rd))
			return -EINVAL;
		info.ncpus = nr_cpu_ids;
		info.slot_size = MAGNET_SLOT_SIZE;
		info.ring_size = magnet_ring_size();
		info.map_size = magnet_rings_map_size();
		info.max_segs = MAGNET_TAKE_SEGS_MAX;
		return copy_to_user((void __user *)arg, &info, sizeof(info)) ?
		       -EFAULT : 0;
	case MAGNET_IOC_TAKE:
		if (!rd)
			return -EINVAL;
		return magnet_ioctl_take(file, rd, (void __user *)arg);
	}
	return -ENOTTY;
}

/* the rings, read-only, for MAGNET_IOC_TAKE's pieces (mapio.h) */
static int magnet_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct magnet_reader *rd = file->private_data;
	unsigned long size = magnet_rings_map_size();
	int ret;

	if (!magnet_mappable(rd) || vma->vm_pgoff ||
	    vma->vm_end - vma->vm_start != size)
		return -EINVAL;
	if (vma->vm_flags & VM_WRITE)
		return -EPERM;
	magnet_vm_flags_mod(vma, VM_DONTEXPAND | VM_DONTDUMP | VM_DONTCOPY,
			    VM_MAYWRITE);
	ret = magnet_rings_map(vma);
	if (!ret)
		WRITE_ONCE(rd->mapped, true);
	return ret;
}

/*
 * Under magnet_consume_mutex: empty every ring; returns the event records
 * discarded. A LOST record among them is not an event: the losses it
 * carried go back to its CPU's pending count, so a later LOST record still
 * reports them and no gap leaves the stream with a reset.
 */
static unsigned long magnet_discard_locked(void)
{
	unsigned long n = 0;
	int cpu;

	for_each_possible_cpu(cpu) {
		struct magnet_ring *r = per_cpu_ptr(magnet_rings, cpu);
		unsigned long head = smp_load_acquire(&r->head);
		struct magnet_reader *h = magnet_holder;
		unsigned long i;

		/* records a TAKE holds are the reader's already: the discard
		 * starts after them, and they leave when it releases them */
		for (i = h ? h->pos[cpu] : r->tail; i != head; i++) {
			const union magnet_slot *rec = magnet_ring_slot(r, i);
			const struct magnet_v3_count *c = (void *)(&rec->hdr + 1);

			if (!magnet_pass_aux(rec)) {
				n++;
				continue;
			}
			if (h)
				h->held_aux[cpu]++;
			else
				r->aux_taken++;
			if (rec->hdr.event == MAGNET_EV_LOST) {
				atomic_long_add(c->req, &r->lost_pending);
				atomic_long_add(c->ret, &r->missed_pending);
			}
		}
		if (h)
			h->pos[cpu] = head;
		else
			smp_store_release(&r->tail, head);
	}
	return n;
}

/* `reset`: discard what the rings hold; the stream says how much. */
static void magnet_reset(void)
{
	unsigned long n;

	mutex_lock(&magnet_consume_mutex);
	n = magnet_discard_locked();
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
static void magnet_discard_at_open(void)
{
	unsigned long n;
	int cpu;

	mutex_lock(&magnet_consume_mutex);
	n = magnet_discard_locked();
	magnet_reset_pending = 0;
	for_each_possible_cpu(cpu) {
		atomic_long_xchg(&per_cpu_ptr(magnet_rings, cpu)->lost_pending, 0);
		atomic_long_xchg(&per_cpu_ptr(magnet_rings, cpu)->missed_pending, 0);
	}
	WRITE_ONCE(magnet_discarded_open, magnet_discarded_open + n);
	mutex_unlock(&magnet_consume_mutex);
	if (n)
		pr_info("open: %lu records buffered before the open discarded (compat=ttprobe: a log starts at its open)\n",
			n);
}

void magnet_discard_counts(unsigned long *at_open, unsigned long *by_reset,
			   unsigned long *at_close)
{
	*at_open = READ_ONCE(magnet_discarded_open);
	*by_reset = READ_ONCE(magnet_discarded_reset);
	*at_close = atomic_long_read(&magnet_discarded_closed);
}

struct magnet_read_to {
	char __user *ubuf;
	size_t count;
};

/* read()'s records: copied whole from the rings, when magnet_direct() */
static long magnet_read_direct(struct magnet_reader *rd, void *arg)
{
	const struct magnet_read_to *to = arg;

	if (!magnet_direct(rd, to->count))
		return 0;
	return magnet_fill_user(rd, to->ubuf, to->count);
}

static long magnet_read_staged(struct magnet_reader *rd, void *arg)
{
	const struct magnet_read_to *to = arg;
	size_t n = min(to->count, rd->len - rd->off);

	if (copy_to_user(to->ubuf, rd->buf + rd->off, n))
		return -EFAULT;
	rd->off += n;
	return n;
}

static ssize_t magnet_read(struct file *file, char __user *ubuf, size_t count,
			   loff_t *ppos)
{
	struct magnet_read_to to = { .ubuf = ubuf, .count = count };

	if (!count)
		return 0;
	return magnet_next(file->private_data, &(const struct magnet_sink){
		.direct = magnet_read_direct,
		.staged = magnet_read_staged,
		.arg = &to,
		.want = count,
		.nowait = file->f_flags & O_NONBLOCK,
	});
}

static __poll_t magnet_poll(struct file *file, poll_table *wait)
{
	struct magnet_reader *rd = file->private_data;

	if (!rd)
		return EPOLLOUT | EPOLLWRNORM;
	poll_wait(file, magnet_wq, wait);
	return magnet_reader_ready(rd) ? EPOLLIN | EPOLLRDNORM : 0;
}

static ssize_t magnet_write(struct file *file, const char __user *ubuf,
			    size_t count, loff_t *ppos)
{
	char buf[MAGNET_CMD_MAX_LEN];
	char desc[MAGNET_FILTER_TEXT_MAX];
	struct magnet_filter filt;
	enum magnet_filter_op fop;
	struct magnet_cmd cmd;
	const char *err;
	size_t shown;
	int ret;

	if (count > MAGNET_CMD_MAX_LEN) {
		pr_warn_ratelimited("rejected command: longer than %d bytes\n",
				    MAGNET_CMD_MAX_LEN);
		return -EINVAL;
	}
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	shown = count;
	while (shown && (buf[shown - 1] == '\n' || buf[shown - 1] == '\r'))
		shown--;
	if (magnet_cmd_parse(buf, count, &cmd, &err))
		goto reject;

	switch (cmd.op) {
	case MAGNET_CMD_FLUSH:
		break;
	case MAGNET_CMD_FINISH:
		atomic_inc(&magnet_finish_gen);
		magnet_rings_log("finish", magnet_probes_nmissed());
		break;
	case MAGNET_CMD_RESET:
		magnet_reset();
		break;
	case MAGNET_CMD_FILTER:
		if (magnet_filter_parse(buf, count, &fop, &filt, &err))
			goto reject;
		ret = magnet_filter_set(fop == MAGNET_FILTER_CLEAR ? NULL : &filt);
		if (ret) {
			pr_warn_ratelimited("rejected command \"%*pE\": cannot apply it (%d); the filter is unchanged\n",
					    (int)shown, buf, ret);
			return -EINVAL;
		}
		magnet_filter_describe(desc, sizeof(desc));
		pr_info("filter in force: %s\n", desc);
		break;
	}
	magnet_wake_reader();
	return count;
reject:
	pr_warn_ratelimited("rejected command \"%*pE\": %s\n", (int)shown, buf,
			    err);
	return -EINVAL;
}

static void magnet_reader_free(struct magnet_reader *rd)
{
	kfree(rd->pos);
	kfree(rd->end);
	kfree(rd->limit);
	kfree(rd->aux);
	kfree(rd->active);
	kfree(rd->held_aux);
	kvfree(rd->cids);
	vfree(rd->buf);
	vfree(rd->ends);
	kfree(rd);
}

static int magnet_open(struct inode *inode, struct file *file)
{
	struct magnet_reader *rd;

	stream_open(inode, file);
	if (!(file->f_mode & FMODE_READ))
		return 0;	/* a command writer */

	if (test_and_set_bit(0, &magnet_reader_busy))
		return -EBUSY;
	rd = kzalloc(sizeof(*rd), GFP_KERNEL);
	if (!rd)
		goto err;
	mutex_init(&rd->lock);
	rd->buf = vmalloc(MAGNET_KBUF_SIZE);
	rd->ends = vzalloc(BITS_TO_LONGS(MAGNET_KBUF_SIZE) * sizeof(long));
	rd->pos = kcalloc(nr_cpu_ids, sizeof(*rd->pos), GFP_KERNEL);
	rd->end = kcalloc(nr_cpu_ids, sizeof(*rd->end), GFP_KERNEL);
	rd->limit = kcalloc(nr_cpu_ids, sizeof(*rd->limit), GFP_KERNEL);
	rd->aux = kcalloc(nr_cpu_ids, sizeof(*rd->aux), GFP_KERNEL);
	rd->active = kcalloc(nr_cpu_ids, sizeof(*rd->active), GFP_KERNEL);
	rd->held_aux = kcalloc(nr_cpu_ids, sizeof(*rd->held_aux), GFP_KERNEL);
	if (!rd->buf || !rd->ends || !rd->pos || !rd->end || !rd->limit ||
	    !rd->active || !rd->aux || !rd->held_aux) {
		magnet_reader_free(rd);
		goto err;
	}
	rd->finish_gen = atomic_read(&magnet_finish_gen);
	rd->rt_offset_ns = ktime_get_real_ns() - ktime_get_mono_fast_ns();
	rd->omode = magnet_cfg.omode;
	rd->compat = magnet_cfg.compat == MAGNET_COMPAT_TTPROBE;
	magnet_ttstream_open(&rd->tt, &magnet_ttcount, rd->compat);
	rd->line_max = MAGNET_TEXT_LINE_MAX;
	if (rd->omode == MAGNET_OMODE_WEB10G) {
		rd->line_max = MAGNET_WEB10G_LINE_MAX;
		rd->cid_bits = MAGNET_CID_BITS_MIN;
		rd->cids = kvcalloc(1U << rd->cid_bits, sizeof(*rd->cids),
				    GFP_KERNEL);
		if (!rd->cids) {
			magnet_reader_free(rd);
			goto err;
		}
	}
	if (rd->omode == MAGNET_OMODE_BINARY && !rd->compat &&
	    magnet_cfg.format == MAGNET_FORMAT_VERSION_V3) {
		/* records are 8-byte aligned; the flows come first */
		rd->line_max = MAGNET_V3_MAX_SIZE;
		rd->v3 = true;
	}
	magnet_emit_header(rd);
	if (rd->v3)
		magnet_resync_from(rd, ktime_get_mono_fast_ns());
	if (rd->compat)
		magnet_discard_at_open();
	file->private_data = rd;

	WRITE_ONCE(magnet_timer_armed, true);
	mod_timer(&magnet_wake_timer, jiffies + MAGNET_WAKE_INTERVAL);
	return 0;
err:
	clear_bit(0, &magnet_reader_busy);
	return -ENOMEM;
}

/*
 * Events the reader took from the rings into rd->buf and closed without
 * reading, whole or in part: counted (`discarded closed`) and logged, not
 * lost without a trace.
 */
static void magnet_count_unread(const struct magnet_reader *rd)
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

static int magnet_release(struct inode *inode, struct file *file)
{
	struct magnet_reader *rd = file->private_data;

	if (!rd)
		return 0;
	magnet_count_unread(rd);
	/* records a TAKE returned were the reader's: they leave the rings */
	magnet_release_held(rd);
	WRITE_ONCE(magnet_timer_armed, false);
	timer_delete_sync(&magnet_wake_timer);
	magnet_reader_free(rd);
	clear_bit(0, &magnet_reader_busy);
	return 0;
}

static const struct proc_ops magnet_proc_ops = {
	.proc_open = magnet_open,
	.proc_read = magnet_read,
	.proc_write = magnet_write,
	.proc_poll = magnet_poll,
	.proc_ioctl = magnet_ioctl,
#ifdef CONFIG_COMPAT
	/* mapio.h's structs are laid out alike for 32- and 64-bit tasks */
	.proc_compat_ioctl = compat_ptr_ioctl,
#endif
	.proc_mmap = magnet_mmap,
	.proc_release = magnet_release,
};

int magnet_waitq_init(void)
{
	magnet_wq = kmalloc(sizeof(*magnet_wq), GFP_KERNEL);
	if (!magnet_wq)
		return -ENOMEM;
	init_waitqueue_head(magnet_wq);
	return 0;
}

static bool magnet_waitq_used(struct wait_queue_head *wq)
{
	unsigned long flags;
	bool used;

	spin_lock_irqsave(&wq->lock, flags);
	used = !list_empty(&wq->head);
	spin_unlock_irqrestore(&wq->lock, flags);
	return used;
}

/*
 * Last of the unload (and of a failed load): no wake-up can come any more
 * (the probes, the rings' irq_work and the timer are done) and no entry be
 * added (the proc file is gone). What may be left on the queue: epoll sets
 * that hold the file, and poll() or select() calls, woken at the unload's
 * start, that have not returned yet. POLLFREE takes every epoll entry off
 * and wakes the poll() ones again (wake_up_pollfree(), without its warning
 * for those, which leave as their calls return). After an RCU grace period
 * (epoll reads the queue's address under RCU) the queue is freed. A poll()
 * that has not returned within a second (a stopped task) keeps it: a few
 * bytes kept, rather than a write to freed memory when it returns.
 */
void magnet_waitq_exit(void)
{
	struct wait_queue_head *wq = magnet_wq;
	int i;

	if (!wq)
		return;
	__wake_up(wq, TASK_NORMAL, 0, poll_to_key(EPOLLHUP | POLLFREE));
	for (i = 0; i < 100 && magnet_waitq_used(wq); i++)
		msleep(10);
	magnet_wq = NULL;
	if (magnet_waitq_used(wq)) {
		pr_warn("a poll() of /proc/net/%s has not returned: its wait queue (%zu bytes) is kept\n",
			magnet_cfg.procname, sizeof(*wq));
		return;
	}
	synchronize_rcu();
	kfree(wq);
}

int magnet_proc_init(void)
{
	if (magnet_v3_dec_init(&magnet_flows_seen, nr_cpu_ids)) {
		pr_err("cannot allocate the reader's flow tables (%u KiB)\n",
		       nr_cpu_ids * 64);
		return -ENOMEM;
	}
	timer_setup(&magnet_wake_timer, magnet_wake_timer_fn, 0);
	magnet_proc = proc_create(magnet_cfg.procname, 0600, init_net.proc_net,
				  &magnet_proc_ops);
	if (!magnet_proc) {
		pr_err("procname=%s: cannot create /proc/net/%s (does it exist already?)\n",
		       magnet_cfg.procname, magnet_cfg.procname);
		magnet_v3_dec_free(&magnet_flows_seen);
		return -EEXIST;
	}
	return 0;
}

/*
 * A blocked reader gets end of file; proc_remove() waits until it has left
 * magnet_read() and then releases every open file.
 */
void magnet_proc_exit(void)
{
	WRITE_ONCE(magnet_shutdown, true);
	wake_up_all(magnet_wq);
	proc_remove(magnet_proc);
	WRITE_ONCE(magnet_timer_armed, false);
	timer_delete_sync(&magnet_wake_timer);
	magnet_v3_dec_free(&magnet_flows_seen);
}
