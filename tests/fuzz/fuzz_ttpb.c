// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libFuzzer target for ttpb2ascii's decoder, the whole program: its main()
 * (userspace/ttpb2ascii.c, built with main renamed) runs on each input as
 * a file, in every output format, reading magnet logs and ttprobe's legacy
 * records, mapped or through zlib.
 *
 * The first byte picks the variant, the rest is the log:
 *   bits 0-2: the options, see variants[] below;
 *   bit 3:    gzip the log first (the zlib path, with a valid gzip stream
 *             around fuzzed content; a log that starts with the gzip magic
 *             takes that path too, with a fuzzed stream);
 *   bits 4-5: if not 0, a pcap format instead of bits 0-2, see
 *             pcap_variants[] (userspace/pcapw.c);
 *   bit 6:    -f parquet instead of any of those (userspace/parquetw.c).
 *
 * Properties: no crash, leak or undefined behaviour (ASan, UBSan), and
 * the documented exit codes only: 0 (decoded), 2 (bad input), 3 (the log
 * ends inside a record), and 1 (usage) only where the man page allows it:
 * a log detected as ttprobe's 96-byte records asked for as magnet text,
 * web10g, Parquet or pcap. Anything else is a bug.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <dirent.h>
#include <sys/mman.h>
#include <zlib.h>

int ttpb2ascii_main(int argc, char **argv);
FILE *fuzz_msg_file;	/* ttpb2ascii's messages (TTPB_MSG_FILE) */

static const char *const variants[8][5] = {
	{ "-f", "ttprobe" },
	{ "-f", "ttprobe", "-c", "ttprobe" },
	{ "-f", "magnet" },
	{ "-f", "web10g" },
	{ "-f", "legacy" },
	{ "-i", "legacy", "-f", "ttprobe" },
	{ "-i", "legacy", "-f", "legacy" },
	{ "-i", "magnet", "-f", "web10g" },
};

/* bit 0x40 of the first byte: -f parquet (parquetw.c) */
static const char *const parquet_variant[3] = { "-f", "parquet" };

/* --split's directory, made at start; its files are rewritten each run */
static char split_dir[] = "/tmp/magnet-fuzz-split.XXXXXX";

static const char *const pcap_variants[4][7] = {
	{ NULL },
	{ "-f", "pcapng", "--all-interfaces", "--drops" },
	{ "-f", "pcap", "-L", "ip,dev", "--split", split_dir },
	{ "-f", "pcap-ns", "-L", "ip", "-d", "out" },
};

/* at exit: --split's directory and its files gone */
static void split_clean(void)
{
	DIR *d = opendir(split_dir);
	struct dirent *e;
	char path[sizeof(split_dir) + 300];

	if (!d)
		return;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.') {
			snprintf(path, sizeof(path), "%s/%s", split_dir,
				 e->d_name);
			unlink(path);
		}
	closedir(d);
	rmdir(split_dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_msg_file = fopen("/dev/null", "w");
	if (!fuzz_msg_file || !mkdtemp(split_dir))
		abort();
	atexit(split_clean);
	return 0;
}

/* @data as a gzip stream into @fd; false if zlib fails */
static int write_gzip(int fd, const uint8_t *data, size_t size)
{
	static unsigned char out[1 << 16];
	z_stream z;
	int ret;

	memset(&z, 0, sizeof(z));
	if (deflateInit2(&z, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return 0;
	z.next_in = (Bytef *)data;
	z.avail_in = (uInt)size;
	do {
		z.next_out = out;
		z.avail_out = sizeof(out);
		ret = deflate(&z, Z_FINISH);
		if (write(fd, out, sizeof(out) - z.avail_out) < 0)
			ret = Z_ERRNO;
	} while (ret == Z_OK);
	deflateEnd(&z);
	return ret == Z_STREAM_END;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64], *argv[12];
	const char *const *v;
	int fd, argc = 0, i, ret;

	if (size < 1)
		return 0;
	v = data[0] & 0x40 ? parquet_variant :
	    data[0] & 0x30 ? pcap_variants[(data[0] >> 4) & 3] :
			     variants[data[0] & 7];
	fd = memfd_create("ttpb-log", MFD_CLOEXEC);
	if (fd < 0)
		abort();
	if (data[0] & 8) {
		if (!write_gzip(fd, data + 1, size - 1))
			abort();
	} else if (size > 1 && write(fd, data + 1, size - 1) != (ssize_t)(size - 1)) {
		abort();
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);

	argv[argc++] = (char *)"ttpb2ascii";
	for (i = 0; i < 6 && v[i]; i++)
		argv[argc++] = (char *)v[i];
	argv[argc++] = (char *)"-o";
	argv[argc++] = (char *)"/dev/null";
	argv[argc++] = path;
	argv[argc] = NULL;
	ret = ttpb2ascii_main(argc, argv);
	close(fd);
	if (ret == 1 && (data[0] & 0x70 ||
			 (data[0] & 7) == 2 || (data[0] & 7) == 3))
		return 0;	/* -f magnet, web10g, parquet or pcap of a legacy
				 * log */
	if (ret != 0 && ret != 2 && ret != 3) {
		fprintf(stderr, "fuzz_ttpb: exit code %d (variant %u)\n", ret,
			data[0] & 15);
		abort();
	}
	return 0;
}
