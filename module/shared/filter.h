/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The `filter` command written to /proc/net/magnet: parser, canonical
 * formatter and address matcher. Shared by the kernel module and the
 * userspace unit tests and fuzzer.
 *
 *   filter clear
 *   filter TERM [TERM ...]        terms separated by spaces or tabs
 *
 * TERM is key=value; each key at most once per command:
 *   port=N     either end            1..65535
 *   sport=N    the socket's local port, dport=N the remote port: 1..65535
 *   addr=A[/P] IPv4 dotted quad (/0..32) or IPv6 (RFC 4291 text, /0..128),
 *              either end. No prefix = a single host. Host bits beyond the
 *              prefix are accepted and masked off.
 *   dir=i|o|io (or oi)
 *   events=L   app,tcp,ip,dev,drop or all (as the events= module parameter)
 *   full=0|1
 *   fwmark=N   0..4294967295, decimal or 0x hex (at most 8 hex digits)
 *   netns=N    network namespace inode number, 1..4294967295
 *   comm=NAME  1..15 bytes of printable ASCII except blank and '='
 *   pid=N      1..4194304
 *
 * Decimal numbers are at most 10 digits; leading zeros are accepted and do
 * not mean octal (port=080 is port 80). IPv4 octets (also in an IPv6 tail)
 * are 1..3 digits WITHOUT leading zeros (010 is refused, since other tools
 * read it as octal 8). Surrounding blanks (space, tab, CR, LF) are ignored,
 * as for the other commands; a line is at most MAGNET_CMD_MAX_LEN bytes.
 */
#ifndef MAGNET_FILTER_H
#define MAGNET_FILTER_H

#include "shared.h"

#define MAGNET_FT_PORT   0x001
#define MAGNET_FT_SPORT  0x002
#define MAGNET_FT_DPORT  0x004
#define MAGNET_FT_ADDR   0x008
#define MAGNET_FT_DIR    0x010
#define MAGNET_FT_EVENTS 0x020
#define MAGNET_FT_FULL   0x040
#define MAGNET_FT_FWMARK 0x080
#define MAGNET_FT_NETNS  0x100
#define MAGNET_FT_COMM   0x200
#define MAGNET_FT_PID    0x400

#define MAGNET_FDIR_IN  0x1
#define MAGNET_FDIR_OUT 0x2

/* Longest text magnet_filter_format() writes, NUL included (fits easily). */
#define MAGNET_FILTER_TEXT_MAX 256

struct magnet_filter {
	__u32 set;		/* MAGNET_FT_* terms given */
	__u16 port, sport, dport;
	__u8 dir;		/* MAGNET_FDIR_* mask */
	__u8 full;
	__u32 events;		/* MAGNET_LAYER_* */
	__u32 fwmark;
	__u32 netns;
	__u32 pid;
	char comm[16];		/* NUL-terminated */
	__u8 addr_family;	/* MAGNET_FAMILY_INET or MAGNET_FAMILY_INET6 */
	__u8 addr_prefix;
	__u8 addr[16];		/* network byte order, host bits zeroed; IPv4 in addr[0..3] */
};

enum magnet_filter_op { MAGNET_FILTER_SET = 1, MAGNET_FILTER_CLEAR };

/*
 * Parse "filter ..." (the whole command line, len bytes, not NUL-terminated).
 * Returns 0 and sets *op (and *f for SET), or -1 with *err set; *f untouched
 * on error. On success every byte of *f is written: fields of terms not
 * given, the unused part of comm and addr, and padding are zero, so two
 * parses of equivalent lines compare equal with memcmp().
 */
int magnet_filter_parse(const char *buf, size_t len, enum magnet_filter_op *op,
			struct magnet_filter *f, const char **err);

/*
 * Canonical text of the terms in f (only those in f->set), e.g.
 * "port=5201 addr=10.0.0.0/8 dir=o events=app,tcp full=0 fwmark=0x10 netns=4026531840 comm=iperf3 pid=42";
 * "" if none. The output must parse back (with "filter " prepended) to an
 * identical struct (round trip). Returns the length (like snprintf: the
 * length the whole text needs; it is cut, NUL-terminated, if size is too
 * small; MAGNET_FILTER_TEXT_MAX always suffices).
 */
int magnet_filter_format(char *buf, size_t size, const struct magnet_filter *f);

/*
 * Does an address (family, 16 bytes as in struct magnet_record laddr/raddr)
 * fall in f's CIDR? 1 if f has no addr term. A family mismatch is no match,
 * except for v4-mapped addresses (::ffff:a.b.c.d): an IPv6 filter inside
 * ::ffff:0:0/96 (prefix >= 96) also matches the IPv4 addresses it maps, as
 * magnet records v4-mapped sockets as IPv4, and an IPv4 filter also matches
 * a v4-mapped IPv6 address. Any other family (or 0) never matches.
 */
int magnet_filter_addr_match(const struct magnet_filter *f, __u8 family, const __u8 addr[16]);

#endif /* MAGNET_FILTER_H */
