/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Mapped reading: the interface between the reader file and magnet-record
 * (procfs-commands.md, "Mapped reading"). Shared by the module and the tool.
 *
 * A reader open of a format=3 binary stream (omode=1, format=3, not
 * compat=ttprobe) may map the rings read-only: MAGNET_IOC_MAP_INFO gives
 * the size, and CPU c's ring is the map_size / ncpus bytes at c * ring_size,
 * of ring_size / slot_size slots, each holding one record at its start.
 * MAGNET_IOC_TAKE then returns, instead of bytes, the stream's next pieces
 * in order: records in the map (their offset and length), or bytes the
 * reader writes itself (the SYSINFO header, FLOW records written again,
 * RESET and LOST marks), copied to @buf. Writing the pieces in order gives
 * the stream read() would have given. The records of one TAKE stay in the
 * rings until the next TAKE, read() or the file's release: the writers do
 * not reuse their slots before then, so the caller writes them from the
 * map first. The map holds the file open, so a close() with the map kept
 * releases nothing (and a new reader gets EBUSY) until munmap() or exit.
 * A fork's child has no map (VM_DONTCOPY) unless MADV_DOFORK asked for
 * it (7.2 refuses that, EINVAL); pages dropped with MADV_DONTNEED are gone
 * for good (a read of them raises SIGBUS: the map has no fault handler, so
 * that it can outlive the module).
 */
#ifndef MAGNET_MAPIO_H
#define MAGNET_MAPIO_H

#include <linux/types.h>
#include <linux/ioctl.h>

struct magnet_map_info {
	__u32 ncpus;		/* rings in the map: CPU ids 0 .. ncpus - 1 */
	__u32 slot_size;	/* bytes per slot */
	__u64 ring_size;	/* bytes per CPU's ring, a multiple of pages */
	__u64 map_size;		/* ncpus * ring_size: what mmap() must map */
	__u32 max_segs;		/* most pieces one TAKE returns */
	__u32 reserved;
};

/* a piece of the stream */
struct magnet_seg {
	__u64 off;	/* into the map, or into take.buf (MAGNET_SEG_BUF) */
	__u32 len;
	__u32 flags;
};
#define MAGNET_SEG_BUF 1	/* the bytes are in take.buf */

struct magnet_take {
	__u64 buf;		/* in: room for bytes the reader writes */
	__u64 segs;		/* in: an array of max_segs struct magnet_seg */
	__u32 buf_size;		/* in: at least MAGNET_TAKE_BUF_MIN */
	__u32 max_segs;		/* in: at least 1 */
	__u32 nsegs;		/* out: pieces returned */
	__u32 flags;		/* in: MAGNET_TAKE_NOWAIT; out: MAGNET_TAKE_EOF */
};
#define MAGNET_TAKE_BUF_MIN 4096
#define MAGNET_TAKE_EOF 1	/* out: the stream ended (finish, unload) */
#define MAGNET_TAKE_NOWAIT 2	/* in: EAGAIN rather than wait, as with
				 * O_NONBLOCK (but for this call only) */

/*
 * One layout for 32- and 64-bit tasks, so a 32-bit tool on a 64-bit kernel
 * needs no translation: every __u64 at a multiple of 8 bytes, every size a
 * multiple of 8 (i386 aligns __u64 to 4 only).
 */
_Static_assert(sizeof(struct magnet_map_info) == 32 &&
	       __builtin_offsetof(struct magnet_map_info, ring_size) == 8 &&
	       __builtin_offsetof(struct magnet_map_info, map_size) == 16,
	       "struct magnet_map_info: one layout for 32- and 64-bit tasks");
_Static_assert(sizeof(struct magnet_seg) == 16,
	       "struct magnet_seg: one layout for 32- and 64-bit tasks");
_Static_assert(sizeof(struct magnet_take) == 32 &&
	       __builtin_offsetof(struct magnet_take, segs) == 8,
	       "struct magnet_take: one layout for 32- and 64-bit tasks");

#define MAGNET_IOC_MAGIC 0xb6
#define MAGNET_IOC_MAP_INFO _IOR(MAGNET_IOC_MAGIC, 1, struct magnet_map_info)
#define MAGNET_IOC_TAKE _IOWR(MAGNET_IOC_MAGIC, 2, struct magnet_take)

#endif /* MAGNET_MAPIO_H */
