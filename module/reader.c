// SPDX-License-Identifier: GPL-2.0
/*
 * /proc/net/magnet (or /proc/net/<procname>): the reader's file operations
 * (stream.h says what serves them); commands written to it go to control.c.
 *
 * One reader at a time (a second gets -EBUSY); any number of writers send
 * commands. A read blocks until records are buffered and returns the
 * stream of its open's output mode (out_*.c, chosen at open; stream.c
 * takes the records from the rings, merged across CPUs in timestamp
 * order). The reader is woken in batches: when a ring reaches half full
 * (irq_work from the writer), by a timer every MAGNET_WAKE_INTERVAL while
 * records wait, and by flush, finish and unload. See procfs-commands.md.
 */
#include <linux/proc_fs.h>
#include <linux/delay.h>
#include <linux/poll.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/uaccess.h>
#include <linux/wait.h>
#include <linux/mutex.h>
#include <linux/timekeeping.h>
#include <net/net_namespace.h>
#include <linux/mm.h>
#include "compat.h"
#include "magnet.h"
#include "stream.h"
#include "direct.h"

#define MAGNET_WAKE_INTERVAL (HZ / 10)
/* the most pieces one MAGNET_IOC_TAKE returns (a writev's IOV_MAX) */
#define MAGNET_TAKE_SEGS_MAX 1024
/* web10g's connection-id table: 2^12 slots at open, at most 2^20 (524,288
 * sockets in one open; later ones get CID 0, which the kernel log says) */
#define MAGNET_CID_BITS_MIN 12
#define MAGNET_CID_BITS_MAX 20

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

/* `finish`: the reader drains what is buffered now, then gets end of file */
void magnet_reader_finish(void)
{
	atomic_inc(&magnet_finish_gen);
}

static bool magnet_finish_requested(const struct magnet_reader *rd)
{
	return atomic_read(&magnet_finish_gen) != rd->finish_gen;
}

/* records wait that this open has not taken (a TAKE's held ones have) */
static bool magnet_reader_ready(const struct magnet_reader *rd)
{
	return READ_ONCE(rd->off) < READ_ONCE(rd->len) || READ_ONCE(rd->eof) ||
	       READ_ONCE(magnet_shutdown) || magnet_finish_requested(rd) ||
	       magnet_stream_marks_waiting(rd) ||
	       magnet_ring_iter_waiting(&rd->it);
}

bool magnet_reader_is_open(void)
{
	return test_bit(0, &magnet_reader_busy);
}

/* a MAGNET_IOC_TAKE call: its arguments, and where its results go */
struct magnet_take_to {
	struct magnet_take t;
	struct magnet_take __user *ut;
};

/*
 * Bytes the reader wrote itself (rd->buf), as one piece in the TAKE's buf,
 * and the count of pieces: they leave rd->buf only once all is written.
 */
static long magnet_take_staged(struct magnet_reader *rd, void *arg)
{
	const struct magnet_take_to *to = arg;
	const struct magnet_take *t = &to->t;
	struct magnet_seg seg = {
		.len = min_t(size_t, t->buf_size, rd->len - rd->off),
		.flags = MAGNET_SEG_BUF,
	};

	if (copy_to_user(u64_to_user_ptr(t->segs), &seg, sizeof(seg)) ||
	    copy_to_user(u64_to_user_ptr(t->buf), rd->buf + rd->off, seg.len) ||
	    put_user(1, &to->ut->nsegs) || put_user(0, &to->ut->flags))
		return -EFAULT;
	rd->off += seg.len;
	return 1;
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
				magnet_stream_drain(rd);
			ret = sink->direct(rd, sink->arg);
			if (ret)
				break;
			magnet_stream_stage(rd, sink->want);
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
	const struct magnet_take_to *to = arg;

	if (rd->resync)
		return 0;
	return magnet_fill_map(rd, to->ut, u64_to_user_ptr(to->t.segs),
			       to->t.max_segs);
}

/*
 * MAGNET_IOC_TAKE: the stream's next pieces, as read() would give its
 * bytes (blocking, or -EAGAIN with O_NONBLOCK or MAGNET_TAKE_NOWAIT);
 * nsegs 0 and MAGNET_TAKE_EOF at its end. The pieces' count is written by
 * the call that takes them, before they leave rd->buf or are held in the
 * rings (magnet_take_staged, magnet_fill_map): what a caller was not told
 * of is the next call's, never released undelivered.
 */
static long magnet_ioctl_take(struct file *file, struct magnet_reader *rd,
			      struct magnet_take __user *ut)
{
	struct magnet_take_to to = { .ut = ut };
	long ret;

	if (copy_from_user(&to.t, ut, sizeof(to.t)))
		return -EFAULT;
	if (!READ_ONCE(rd->mapped) || to.t.buf_size < MAGNET_TAKE_BUF_MIN ||
	    !to.t.max_segs)
		return -EINVAL;
	to.t.max_segs = min_t(u32, to.t.max_segs, MAGNET_TAKE_SEGS_MAX);
	/* the results' room: writable before any record is taken, and, for
	 * magnet_fill_map's writes with page faults disabled, faulted in */
	if (!access_ok(ut, sizeof(*ut)) || put_user(0, &ut->nsegs) ||
	    put_user(to.t.flags, &ut->flags))
		return -EFAULT;
	ret = magnet_next(rd, &(const struct magnet_sink){
		.direct = magnet_take_direct,
		.staged = magnet_take_staged,
		.arg = &to,
		.want = to.t.buf_size,
		.nowait = (file->f_flags & O_NONBLOCK) ||
			  (to.t.flags & MAGNET_TAKE_NOWAIT),
	});
	if (ret < 0)
		return ret;
	/* the end of the stream: nothing was taken */
	if (!ret && put_user(MAGNET_TAKE_EOF, &ut->flags))
		return -EFAULT;
	return 0;
}

/* a format=3 binary open (its stream is the records), rings of whole pages */
static bool magnet_mappable(const struct magnet_reader *rd)
{
	return rd && rd->out->v3 && !(magnet_ring_size() % PAGE_SIZE);
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

static void magnet_reader_free(struct magnet_reader *rd)
{
	magnet_ring_iter_free(&rd->it);
	kfree(rd->limit);
	magnet_cids_free(&rd->cids);
	vfree(rd->buf);
	vfree(rd->ends);
	kfree(rd);
}

/* the output of an open, chosen once from the parameters (magnet.h) */
static const struct magnet_output *magnet_output_of(const struct magnet_config *c)
{
	bool compat = c->compat == MAGNET_COMPAT_TTPROBE;

	switch (c->omode) {
	case MAGNET_OMODE_TTPROBE:
		return &magnet_out_ttprobe;
	case MAGNET_OMODE_BINARY:
		if (compat)
			return &magnet_out_legacy;
		return c->format == MAGNET_FORMAT_VERSION_V3 ? &magnet_out_v3 :
							       &magnet_out_binary;
	case MAGNET_OMODE_WEB10G:
		return &magnet_out_web10g;
	default:
		return &magnet_out_text;
	}
}

static int magnet_open(struct inode *inode, struct file *file)
{
	bool compat = magnet_cfg.compat == MAGNET_COMPAT_TTPROBE;
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
	rd->out = magnet_output_of(&magnet_cfg);
	rd->buf = vmalloc(MAGNET_KBUF_SIZE);
	rd->ends = vzalloc(BITS_TO_LONGS(MAGNET_KBUF_SIZE) * sizeof(long));
	rd->limit = kcalloc(nr_cpu_ids, sizeof(*rd->limit), GFP_KERNEL);
	if (!rd->buf || !rd->ends || !rd->limit ||
	    magnet_ring_iter_init(&rd->it) ||
	    (rd->out->cids && magnet_cids_init(&rd->cids, MAGNET_CID_BITS_MIN,
						MAGNET_CID_BITS_MAX))) {
		magnet_reader_free(rd);
		goto err;
	}
	rd->finish_gen = atomic_read(&magnet_finish_gen);
	rd->rt_offset_ns = ktime_get_real_ns() - ktime_get_mono_fast_ns();
	magnet_ttstream_open(&rd->tt, &magnet_ttcount, compat);
	magnet_stream_start(rd);
	if (compat)
		magnet_stream_discard_at_open();
	file->private_data = rd;

	WRITE_ONCE(magnet_timer_armed, true);
	mod_timer(&magnet_wake_timer, jiffies + MAGNET_WAKE_INTERVAL);
	return 0;
err:
	clear_bit(0, &magnet_reader_busy);
	return -ENOMEM;
}

static int magnet_release(struct inode *inode, struct file *file)
{
	struct magnet_reader *rd = file->private_data;

	if (!rd)
		return 0;
	magnet_stream_count_unread(rd);
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
	.proc_write = magnet_control_write,
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
	int ret = magnet_stream_init();

	if (ret)
		return ret;
	timer_setup(&magnet_wake_timer, magnet_wake_timer_fn, 0);
	magnet_proc = proc_create(magnet_cfg.procname, 0600, init_net.proc_net,
				  &magnet_proc_ops);
	if (!magnet_proc) {
		pr_err("procname=%s: cannot create /proc/net/%s (does it exist already?)\n",
		       magnet_cfg.procname, magnet_cfg.procname);
		magnet_stream_exit();
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
	magnet_stream_exit();
}
