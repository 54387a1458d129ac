// SPDX-License-Identifier: GPL-2.0
/*
 * take32 PROCFILE OUT: a 32-bit x86 program (the compat ioctl path of a
 * 64-bit kernel) that reads a format 3 stream as magnet-record does:
 * MAGNET_IOC_MAP_INFO, mmap of the rings, MAGNET_IOC_TAKE until the end
 * of the stream, every piece written to OUT in order. Exit 0 at the end of
 * the stream, 1 with a message on any error.
 *
 * Built by tests/vm/run.sh with gcc -m32 -ffreestanding -nostdlib, so it
 * needs no 32-bit C library: its system calls are int $0x80 ones.
 */
#include "../../module/uapi/mapio.h"

#define NR_EXIT 1
#define NR_WRITE 4
#define NR_OPEN 5
#define NR_IOCTL 54
#define NR_MMAP2 192

static long sys3(long nr, long a, long b, long c)
{
	long ret;

	__asm__ volatile("int $0x80" : "=a"(ret)
			 : "a"(nr), "b"(a), "c"(b), "d"(c) : "memory");
	return ret;
}

/* mmap2 with offset 0 (ebp, the frame pointer: saved around the call) */
static long sys_mmap2(long addr, long size, long prot, long flags, long fd)
{
	long ret;

	__asm__ volatile("push %%ebp\n\txor %%ebp, %%ebp\n\tint $0x80\n\tpop %%ebp"
			 : "=a"(ret)
			 : "a"(NR_MMAP2), "b"(addr), "c"(size), "d"(prot),
			   "S"(flags), "D"(fd) : "memory");
	return ret;
}

/* gcc may call these for struct copies and initialisers */
void *memset(void *d, int c, unsigned long n)
{
	unsigned char *p = d;

	while (n--)
		*p++ = c;
	return d;
}

void *memcpy(void *d, const void *s, unsigned long n)
{
	unsigned char *p = d;
	const unsigned char *q = s;

	while (n--)
		*p++ = *q++;
	return d;
}

static unsigned long len(const char *s)
{
	unsigned long n = 0;

	while (s[n])
		n++;
	return n;
}

static void die(const char *what, long err)
{
	char num[12];
	int i = sizeof(num);

	num[--i] = '\n';
	err = -err;
	do {
		num[--i] = '0' + err % 10;
		err /= 10;
	} while (err && i);
	sys3(NR_WRITE, 2, (long)"take32: ", 8);
	sys3(NR_WRITE, 2, (long)what, len(what));
	sys3(NR_WRITE, 2, (long)": errno ", 8);
	sys3(NR_WRITE, 2, (long)(num + i), sizeof(num) - i);
	sys3(NR_EXIT, 1, 0, 0);
	for (;;)
		;
}

static void write_all(int fd, const char *p, unsigned long n)
{
	long w;

	while (n) {
		w = sys3(NR_WRITE, fd, (long)p, n);
		if (w <= 0)
			die("write", w ? w : -5);
		p += w;
		n -= w;
	}
}

static char buf[65536];
static struct magnet_seg segs[1024];

__attribute__((used)) static void take32(long *sp)
{
	char **argv = (char **)(sp + 1);
	struct magnet_map_info info;
	struct magnet_take t;
	const char *map;
	long fd, out, r;
	unsigned int i;

	if (sp[0] != 3)
		die("usage: take32 PROCFILE OUT", -22);
	fd = sys3(NR_OPEN, (long)argv[1], 0 /* O_RDONLY */, 0);
	if (fd < 0)
		die(argv[1], fd);
	out = sys3(NR_OPEN, (long)argv[2], 01 | 0100 | 01000 /* WRONLY|CREAT|TRUNC */,
		   0644);
	if (out < 0)
		die(argv[2], out);
	r = sys3(NR_IOCTL, fd, MAGNET_IOC_MAP_INFO, (long)&info);
	if (r < 0)
		die("MAGNET_IOC_MAP_INFO", r);
	if (info.map_size >> 31)
		die("map larger than 2 GiB", -12);
	r = sys_mmap2(0, (long)info.map_size, 1 /* PROT_READ */,
		      1 /* MAP_SHARED */, fd);
	if ((unsigned long)r >= -4095UL)
		die("mmap", r);
	map = (const char *)r;
	for (;;) {
		t = (struct magnet_take){
			.buf = (unsigned long)buf,
			.segs = (unsigned long)segs,
			.buf_size = sizeof(buf),
			.max_segs = sizeof(segs) / sizeof(segs[0]),
		};
		r = sys3(NR_IOCTL, fd, MAGNET_IOC_TAKE, (long)&t);
		if (r == -4) /* EINTR */
			continue;
		if (r < 0)
			die("MAGNET_IOC_TAKE", r);
		if (t.flags & MAGNET_TAKE_EOF)
			break;
		for (i = 0; i < t.nsegs; i++) {
			const struct magnet_seg *s = &segs[i];
			const char *base = s->flags & MAGNET_SEG_BUF ? buf : map;
			unsigned long long end = s->off + s->len;

			if (end > (s->flags & MAGNET_SEG_BUF ?
				   sizeof(buf) : info.map_size))
				die("a piece outside its buffer", -34);
			write_all(out, base + (unsigned long)s->off, s->len);
		}
	}
	sys3(NR_EXIT, 0, 0, 0);
}

/* the kernel starts us with argc, then argv, at the stack pointer */
__asm__(".globl _start\n_start:\n\tpush %esp\n\tcall take32\n\thlt\n");
