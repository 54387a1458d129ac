// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * magnet-record: write magnet's stream to a file, as `cat /proc/net/magnet
 * > FILE` does, until the stream ends (`finish`, an unload) or a signal.
 *
 * With a format=3 binary stream (omode=1 format=3) it maps the rings
 * read-only and takes each record from its ring slot: the kernel hands it
 * the stream's pieces in order (mapio.h, MAGNET_IOC_TAKE) and copies no
 * record to it. Any other stream it reads with read(), as cat does.
 * Either way the file is the stream, byte for byte, and ttpb2ascii reads
 * it. See magnet-record(1).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#ifndef IOV_MAX
#define IOV_MAX 1024
#endif
#include <stdbool.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>
#include "mapio.h"

#define READ_SIZE (1024 * 1024)
#define STAGE_SIZE (64 * 1024)
#define OUT_SIZE (1024 * 1024)	/* > STAGE_SIZE: any piece fits */

static const char *prog = "magnet-record";
static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: %s [-o FILE] [-p PROCFILE] [-v] | -h\n"
		"Write magnet's stream (default /proc/net/magnet) to FILE (default: standard\n"
		"output) until it ends (echo finish > /proc/net/magnet, an unload) or SIGINT\n"
		"or SIGTERM. A format=3 binary stream (omode=1 format=3) is written straight\n"
		"from the mapped rings, with no copy of a record to this tool; any other\n"
		"stream is read as cat reads it. The file is the stream, byte for byte.\n"
		"  -o FILE      write here (created or truncated)\n"
		"  -p PROCFILE  the reader file (procname=): /proc/net/NAME\n"
		"  -v           say on standard error how the stream was read and how many\n"
		"               bytes were written\n"
		"  -h, --help   print this help and exit\n",
		prog);
}

/* all of @iov[0..n) to @fd, whatever a short write leaves */
static int write_all(int fd, struct iovec *iov, int n)
{
	while (n > 0) {
		ssize_t w = writev(fd, iov, n > IOV_MAX ? IOV_MAX : n);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		while (n > 0 && (size_t)w >= iov->iov_len) {
			w -= (ssize_t)iov->iov_len;
			iov++;
			n--;
		}
		if (n > 0) {
			iov->iov_base = (char *)iov->iov_base + w;
			iov->iov_len -= (size_t)w;
		}
	}
	return 0;
}

/* @len bytes of @buf to @fd, whatever a short write leaves */
static int write_buf(int fd, char *buf, size_t len)
{
	struct iovec iov = { buf, len };

	if (write_all(fd, &iov, 1)) {
		fprintf(stderr, "%s: writing: %s\n", prog, strerror(errno));
		return -1;
	}
	return 0;
}

/* the module was unloaded between two calls: say so, the stream ends */
static void unloaded(void)
{
	fprintf(stderr, "%s: the module was unloaded: the stream ends here\n",
		prog);
}

/*
 * The mapped path; returns 0 at the stream's end or on a signal. The
 * pieces are gathered into one buffer, written when it fills or when the
 * stream has nothing more for now: one write of many records. A writev()
 * of one vector per record, straight from the map, costs more: the
 * kernel's work per vector (fault-in, iterator) exceeds this copy. In one
 * make bench boot (6.1, every layer, format 3) it kept 0.657 of the
 * throughput, cat 0.678, and this 0.694.
 */
static int record_mapped(int in, int out, const struct magnet_map_info *mi,
			 unsigned long long *bytes, unsigned long long *pieces)
{
	unsigned int max = mi->max_segs ? mi->max_segs : 1;
	struct magnet_seg *segs;
	char *map, *stage, *obuf;
	size_t olen = 0;
	bool wait = false;

	map = mmap(NULL, mi->map_size, PROT_READ, MAP_SHARED, in, 0);
	if (map == MAP_FAILED) {
		fprintf(stderr, "%s: cannot map the rings: %s\n", prog,
			strerror(errno));
		return -1;
	}
	segs = calloc(max, sizeof(*segs));
	stage = malloc(STAGE_SIZE);
	obuf = malloc(OUT_SIZE);
	if (!segs || !stage || !obuf) {
		fprintf(stderr, "%s: out of memory\n", prog);
		return -1;
	}
	while (!stop) {
		struct magnet_take t = {
			.buf = (uintptr_t)stage,
			.segs = (uintptr_t)segs,
			.buf_size = STAGE_SIZE,
			.max_segs = max,
			/* a TAKE that would wait says so: the buffer is
			 * written first, then one that waits */
			.flags = wait ? 0 : MAGNET_TAKE_NOWAIT,
		};
		unsigned int i;

		wait = false;
		if (ioctl(in, MAGNET_IOC_TAKE, &t) < 0) {
			if (errno == EAGAIN) {
				if (olen && write_buf(out, obuf, olen))
					return -1;
				olen = 0;
				wait = true;
				continue;
			}
			if (errno == EINTR)
				continue;
			/*
			 * An unload that found this reader between two TAKEs
			 * removed the file: procfs answers ENOTTY from then
			 * on. The stream ends there, as it does with the end
			 * the unload gives a reader inside a TAKE.
			 */
			if (errno == ENOTTY) {
				unloaded();
				break;
			}
			fprintf(stderr, "%s: taking records: %s\n", prog,
				strerror(errno));
			return -1;
		}
		if (t.flags & MAGNET_TAKE_EOF)
			break;
		for (i = 0; i < t.nsegs; i++) {
			const struct magnet_seg *s = &segs[i];
			const char *base = s->flags & MAGNET_SEG_BUF ? stage : map;
			uint64_t size = s->flags & MAGNET_SEG_BUF ?
					STAGE_SIZE : mi->map_size;

			if (s->off > size || s->len > size - s->off) {
				fprintf(stderr, "%s: the kernel gave a piece outside its buffer (offset %llu, %u bytes)\n",
					prog, (unsigned long long)s->off, s->len);
				return -1;
			}
			if (olen + s->len > OUT_SIZE) {
				if (write_buf(out, obuf, olen))
					return -1;
				olen = 0;
			}
			/* the record stays in its slot until the next TAKE */
			memcpy(obuf + olen, base + s->off, s->len);
			olen += s->len;
			*bytes += s->len;
		}
		*pieces += t.nsegs;
	}
	return olen ? write_buf(out, obuf, olen) : 0;
}

/* the copying path, for every other stream: cat's loop */
static int record_copied(int in, int out, unsigned long long *bytes)
{
	char *buf = malloc(READ_SIZE);

	if (!buf) {
		fprintf(stderr, "%s: out of memory\n", prog);
		return -1;
	}
	while (!stop) {
		ssize_t n = read(in, buf, READ_SIZE);
		struct iovec iov = { buf, 0 };

		if (n < 0) {
			if (errno == EINTR)
				continue;
			/* the same for read(): EIO once the file is removed */
			if (errno == EIO) {
				unloaded();
				break;
			}
			fprintf(stderr, "%s: reading: %s\n", prog,
				strerror(errno));
			return -1;
		}
		if (n == 0)
			break;
		iov.iov_len = (size_t)n;
		if (write_all(out, &iov, 1)) {
			fprintf(stderr, "%s: writing: %s\n", prog,
				strerror(errno));
			return -1;
		}
		*bytes += (unsigned long long)n;
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *procfile = "/proc/net/magnet", *outfile = NULL;
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned long long bytes = 0, pieces = 0;
	struct magnet_map_info mi;
	struct sigaction sa;
	int in, out = STDOUT_FILENO, verbose = 0, c, ret;

	while ((c = getopt_long(argc, argv, "o:p:vh", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			outfile = optarg;
			break;
		case 'p':
			procfile = optarg;
			break;
		case 'v':
			verbose = 1;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "%s: unexpected argument '%s'\n", prog,
			argv[optind]);
		usage(stderr);
		return 2;
	}
	in = open(procfile, O_RDONLY);
	if (in < 0) {
		fprintf(stderr, "%s: %s: %s%s\n", prog, procfile,
			strerror(errno),
			errno == EBUSY ? " (another reader has it open)" : "");
		return 1;
	}
	if (outfile) {
		out = open(outfile, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (out < 0) {
			fprintf(stderr, "%s: %s: %s\n", prog, outfile,
				strerror(errno));
			return 1;
		}
	}
	/* a signal ends the loop after the pieces in hand are written */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	if (ioctl(in, MAGNET_IOC_MAP_INFO, &mi) == 0) {
		ret = record_mapped(in, out, &mi, &bytes, &pieces);
		if (verbose)
			fprintf(stderr, "%s: mapped rings (%u CPUs, %llu bytes each): %llu bytes in %llu pieces\n",
				prog, mi.ncpus, (unsigned long long)mi.ring_size,
				bytes, pieces);
	} else {
		if (errno != EINVAL && errno != ENOTTY) {
			fprintf(stderr, "%s: %s: %s\n", prog, procfile,
				strerror(errno));
			return 1;
		}
		ret = record_copied(in, out, &bytes);
		if (verbose)
			fprintf(stderr, "%s: read as cat reads (the stream is not format 3 binary): %llu bytes\n",
				prog, bytes);
	}
	if (ret == 0 && outfile && close(out) < 0) {
		fprintf(stderr, "%s: %s: %s\n", prog, outfile, strerror(errno));
		ret = -1;
	}
	return ret ? 1 : 0;
}
