// SPDX-License-Identifier: GPL-2.0
/*
 * Format 3's records straight from the rings to the reader (direct.h):
 * read() copies them whole into the caller's buffer, one copy per record
 * and not two, and a mapped reader's MAGNET_IOC_TAKE gets them as pieces
 * of the map (mapio.h), held in the rings until its next call.
 */
#include <linux/uaccess.h>
#include <linux/sched/signal.h>
#include <linux/mm.h>
#include "compat.h"
#include "direct.h"

/* the most a direct copy (version 3) takes per hold of the consume mutex */
#define MAGNET_DIRECT_CHUNK (1024 * 1024)

/*
 * Version 3 records go from the rings straight to the reader's buffer,
 * whole records only, merged by timestamp: one copy per record, not two.
 * Only when nothing is staged in rd->buf and no FLOW records are to be
 * written again first. The slot is not changed, so a record whose copy
 * faults is read again next time.
 */
bool magnet_direct(const struct magnet_reader *rd, size_t count)
{
	return rd->out->v3 && !rd->resync && count >= MAGNET_V3_MAX_SIZE;
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
ssize_t magnet_fill_user(struct magnet_reader *rd, char __user *ubuf,
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
		magnet_ring_iter_begin(&rd->it, rd->draining ? rd->limit : NULL);
		pagefault_disable();
		while ((rec = magnet_ring_iter_next(&rd->it, &cpu))) {
			unsigned int len = rec->hdr.len;

			if (done + len > stop) {
				more = stop < count;
				break;
			}
			if (!magnet_copy_record(ubuf + done, rec, len)) {
				faulted = true;
				break;
			}
			magnet_ring_iter_take(&rd->it, cpu, magnet_pass_aux(rec));
			done += len;
		}
		pagefault_enable();
		magnet_ring_iter_release(&rd->it);
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
 * (passed through the flows seen, counted) but the rings' tails stay
 * until the next TAKE, read() or close, so the writers leave their slots
 * alone while the reader writes them from the map.
 */

/* The records the last TAKE returned are the writers' again. */
void magnet_release_held(struct magnet_reader *rd)
{
	if (!rd->it.held)
		return;
	mutex_lock(&magnet_consume_mutex);
	magnet_ring_iter_release(&rd->it);
	mutex_unlock(&magnet_consume_mutex);
}

/*
 * The records the rings hold now, merged by timestamp, as pieces of the
 * map written to @usegs (at most @max), and their number to @ut->nsegs;
 * they stay in the rings, held. Returns the pieces, 0 if no record waits
 * or a reset mark does (which the stream puts first), or -EFAULT if not
 * one piece could be written. As in magnet_fill_user, the pieces are
 * written with page faults disabled: a piece that would fault ends the
 * TAKE, its record not taken. The count is written last, and the records
 * are held only once it is: a TAKE whose count cannot be written (its
 * page unmapped meanwhile by another thread) takes nothing, and its
 * records are the next call's. Passing their FLOW and LOST records through
 * the flows seen again then changes nothing: each CPU's table ends as the
 * same records leave it.
 */
long magnet_fill_map(struct magnet_reader *rd, struct magnet_take __user *ut,
		     struct magnet_seg __user *usegs, unsigned int max)
{
	union magnet_slot *rec;
	u32 n = 0;
	const u32 zero = 0;
	long ret = 0;
	int cpu;

	if (!access_ok(usegs, array_size(max, sizeof(*usegs))) ||
	    magnet_fault_in_writeable((char __user *)usegs,
				      sizeof(*usegs)) != 0)
		return -EFAULT;
	mutex_lock(&magnet_consume_mutex);
	if (magnet_reset_pending)
		goto out;
	magnet_ring_iter_begin(&rd->it, rd->draining ? rd->limit : NULL);
	pagefault_disable();
	while (n < max && (rec = magnet_ring_iter_next(&rd->it, &cpu))) {
		struct magnet_seg seg = {
			.off = magnet_ring_iter_offset(&rd->it, cpu),
			.len = rec->hdr.len,
		};

		if (__copy_to_user_inatomic(&usegs[n], &seg, sizeof(seg)))
			break;
		magnet_ring_iter_take(&rd->it, cpu, magnet_pass_aux(rec));
		n++;
	}
	if (n) {
		ret = n;
		if (__copy_to_user_inatomic(&ut->nsegs, &n, sizeof(n)) ||
		    __copy_to_user_inatomic(&ut->flags, &zero, sizeof(zero)))
			ret = -EFAULT;
	}
	pagefault_enable();
	if (ret > 0)
		magnet_ring_iter_hold(&rd->it);
out:
	mutex_unlock(&magnet_consume_mutex);
	return ret;
}
