// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The `filter` command of /proc/net/magnet (grammar in filter.h), shared
 * with the userspace unit tests and fuzzer. Plain C: no allocation, no
 * floating point, no recursion, no library number parsing.
 */
#include "filter.h"
#include "cmd.h"
#include "record.h"

/* blanks around the whole command, as cmd.c */
static int flt_is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* separators between terms */
static int flt_is_sep(char c)
{
	return c == ' ' || c == '\t';
}

static int flt_is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* value of a hex digit, or -1 */
static int flt_hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static int flt_eq(const char *s, size_t n, const char *word)
{
	size_t wl = strlen(word);

	return n == wl && !memcmp(s, word, wl);
}

#define FLT_NUM_OK	0
#define FLT_NUM_SYNTAX	(-1)	/* empty, or not digits */
#define FLT_NUM_RANGE	(-2)	/* more than 10 digits, or outside lo..hi */

/*
 * Decimal number of 1..10 digits (leading zeros allowed, no sign) in lo..hi.
 * With @hex, a "0x"/"0X" prefix and 1..8 hex digits are accepted too.
 */
static int flt_number(const char *s, size_t n, int hex, __u32 lo, __u32 hi,
		      __u32 *out)
{
	__u64 v = 0;
	size_t i;

	if (!n)
		return FLT_NUM_SYNTAX;
	if (hex && n >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		if (n == 2)
			return FLT_NUM_SYNTAX;
		for (i = 2; i < n; i++)
			if (flt_hexval(s[i]) < 0)
				return FLT_NUM_SYNTAX;
		if (n - 2 > 8)
			return FLT_NUM_RANGE;
		for (i = 2; i < n; i++)
			v = (v << 4) | (__u64)flt_hexval(s[i]);
	} else {
		for (i = 0; i < n; i++)
			if (!flt_is_digit(s[i]))
				return FLT_NUM_SYNTAX;
		if (n > 10)
			return FLT_NUM_RANGE;
		for (i = 0; i < n; i++)
			v = v * 10 + (__u64)(s[i] - '0');
	}
	if (v < lo || v > hi)
		return FLT_NUM_RANGE;
	*out = (__u32)v;
	return FLT_NUM_OK;
}

/* dotted quad, exactly @n bytes: 4 octets 0..255, 1..3 digits, no leading 0 */
static int flt_ipv4(const char *s, size_t n, __u8 out[4])
{
	size_t i = 0;
	int k;

	for (k = 0; k < 4; k++) {
		unsigned int v = 0;
		size_t d = 0;

		if (k) {
			if (i >= n || s[i] != '.')
				return -1;
			i++;
		}
		while (i < n && flt_is_digit(s[i]) && d < 4) {
			v = v * 10 + (unsigned int)(s[i] - '0');
			i++;
			d++;
		}
		if (!d || d > 3 || v > 255)
			return -1;
		if (d > 1 && s[i - d] == '0')
			return -1;
		out[k] = (__u8)v;
	}
	return i == n ? 0 : -1;
}

/*
 * IPv6 text (RFC 4291 2.2), exactly @n bytes: up to 8 groups of 1..4 hex
 * digits, at most one "::" standing for one or more zero groups, and
 * optionally a dotted-quad tail for the last 32 bits.
 */
static int flt_ipv6(const char *s, size_t n, __u8 out[16])
{
	__u16 w[8];
	int cnt = 0, gap = -1, k;
	size_t i = 0;

	if (n >= 2 && s[0] == ':' && s[1] == ':') {
		gap = 0;
		i = 2;
	} else if (n && s[0] == ':') {
		return -1;
	}
	while (i < n) {
		size_t j = i;
		unsigned int v = 0;

		while (j < n && flt_hexval(s[j]) >= 0 && j - i < 5)
			v = (v << 4) | (unsigned int)flt_hexval(s[j++]);
		if (j < n && s[j] == '.') {
			__u8 q[4];

			if (cnt > 6 || flt_ipv4(s + i, n - i, q))
				return -1;
			w[cnt++] = (__u16)(q[0] << 8 | q[1]);
			w[cnt++] = (__u16)(q[2] << 8 | q[3]);
			i = n;
			break;
		}
		if (j == i || j - i > 4 || cnt == 8)
			return -1;
		w[cnt++] = (__u16)v;
		i = j;
		if (i == n)
			break;
		if (s[i] != ':')
			return -1;
		i++;
		if (i < n && s[i] == ':') {
			if (gap >= 0)
				return -1;	/* a second "::" */
			gap = cnt;
			i++;
		} else if (i == n) {
			return -1;		/* a single trailing ':' */
		}
	}
	if (gap >= 0) {
		int fill = 8 - cnt;

		if (fill < 1)
			return -1;
		for (k = cnt - 1; k >= gap; k--)
			w[k + fill] = w[k];
		for (k = gap; k < gap + fill; k++)
			w[k] = 0;
	} else if (cnt != 8) {
		return -1;
	}
	for (k = 0; k < 8; k++) {
		out[2 * k] = (__u8)(w[k] >> 8);
		out[2 * k + 1] = (__u8)w[k];
	}
	return 0;
}

/* zero the bits of @a (@bytes long) beyond the first @prefix */
static void flt_mask(__u8 *a, unsigned int bytes, unsigned int prefix)
{
	unsigned int i;

	for (i = 0; i < bytes; i++) {
		if (i * 8 >= prefix)
			a[i] = 0;
		else if (i * 8 + 8 > prefix)
			a[i] &= (__u8)(0xff << (8 - (prefix - i * 8)));
	}
}

/* first @prefix bits of @a and @b equal? */
static int flt_prefix_eq(const __u8 *a, const __u8 *b, unsigned int prefix)
{
	unsigned int full = prefix / 8, rest = prefix % 8;

	if (full && memcmp(a, b, full))
		return 0;
	if (rest && ((a[full] ^ b[full]) & (__u8)(0xff << (8 - rest))))
		return 0;
	return 1;
}

static const __u8 flt_v4mapped[12] = {
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff
};

static int flt_is_v4mapped(const __u8 *a)
{
	return !memcmp(a, flt_v4mapped, sizeof(flt_v4mapped));
}

static int flt_addr(const char *v, size_t n, struct magnet_filter *f,
		    const char **err)
{
	size_t alen = n, i;
	int v6 = 0, dot = 0;
	unsigned int max;
	__u32 prefix;

	for (i = 0; i < n; i++) {
		if (v[i] == '/') {
			alen = i;
			break;
		}
		if (v[i] == ':')
			v6 = 1;
		else if (v[i] == '.')
			dot = 1;
	}
	if (!alen) {
		*err = "addr: missing address before the prefix";
		return -1;
	}
	if (v6) {
		if (flt_ipv6(v, alen, f->addr)) {
			*err = "addr: bad IPv6 address";
			return -1;
		}
		f->addr_family = MAGNET_FAMILY_INET6;
		max = 128;
	} else if (dot) {
		if (flt_ipv4(v, alen, f->addr)) {
			*err = "addr: bad IPv4 address (4 octets 0..255, no leading zeros)";
			return -1;
		}
		f->addr_family = MAGNET_FAMILY_INET;
		max = 32;
	} else {
		*err = "addr: not an IPv4 or IPv6 address";
		return -1;
	}
	prefix = max;
	if (alen < n) {
		int r = flt_number(v + alen + 1, n - alen - 1, 0, 0, max, &prefix);

		if (r == FLT_NUM_SYNTAX) {
			*err = "addr: bad prefix length after '/'";
			return -1;
		}
		if (r != FLT_NUM_OK) {
			*err = max == 32 ? "addr: prefix length out of range 0..32 for IPv4" :
					   "addr: prefix length out of range 0..128 for IPv6";
			return -1;
		}
	}
	f->addr_prefix = (__u8)prefix;
	flt_mask(f->addr, 16, prefix);
	return 0;
}

static const struct {
	const char *name;
	__u32 flag;
	const char *dup;
	const char *noeq;
	const char *empty;
} flt_keys[] = {
#define FLT_KEY(n, f) { n, f, "duplicate term " n, n ": missing '=' and value", n ": empty value" }
	FLT_KEY("port", MAGNET_FT_PORT),
	FLT_KEY("sport", MAGNET_FT_SPORT),
	FLT_KEY("dport", MAGNET_FT_DPORT),
	FLT_KEY("addr", MAGNET_FT_ADDR),
	FLT_KEY("dir", MAGNET_FT_DIR),
	FLT_KEY("events", MAGNET_FT_EVENTS),
	FLT_KEY("full", MAGNET_FT_FULL),
	FLT_KEY("fwmark", MAGNET_FT_FWMARK),
	FLT_KEY("netns", MAGNET_FT_NETNS),
	FLT_KEY("comm", MAGNET_FT_COMM),
	FLT_KEY("pid", MAGNET_FT_PID),
#undef FLT_KEY
};

#define FLT_NKEYS (sizeof(flt_keys) / sizeof(flt_keys[0]))

static const char flt_unknown[] =
	"unknown term (expected port, sport, dport, addr, dir, events, full, fwmark, netns, comm or pid)";

/* a decimal port term */
static int flt_port(const char *v, size_t n, __u16 *out, const char *syntax,
		    const char *range, const char **err)
{
	__u32 x;
	int r = flt_number(v, n, 0, 1, 65535, &x);

	if (r) {
		*err = r == FLT_NUM_SYNTAX ? syntax : range;
		return -1;
	}
	*out = (__u16)x;
	return 0;
}

/* one term's value @v (@n bytes, non-empty, printable) into @f */
static int flt_value(__u32 flag, const char *v, size_t n,
		     struct magnet_filter *f, const char **err)
{
	unsigned int mask;
	int r;

	switch (flag) {
	case MAGNET_FT_PORT:
		return flt_port(v, n, &f->port, "port: not a decimal number",
				"port: out of range 1..65535", err);
	case MAGNET_FT_SPORT:
		return flt_port(v, n, &f->sport, "sport: not a decimal number",
				"sport: out of range 1..65535", err);
	case MAGNET_FT_DPORT:
		return flt_port(v, n, &f->dport, "dport: not a decimal number",
				"dport: out of range 1..65535", err);
	case MAGNET_FT_ADDR:
		return flt_addr(v, n, f, err);
	case MAGNET_FT_DIR:
		if (flt_eq(v, n, "i")) {
			f->dir = MAGNET_FDIR_IN;
		} else if (flt_eq(v, n, "o")) {
			f->dir = MAGNET_FDIR_OUT;
		} else if (flt_eq(v, n, "io") || flt_eq(v, n, "oi")) {
			f->dir = MAGNET_FDIR_IN | MAGNET_FDIR_OUT;
		} else {
			*err = "dir: expected i, o or io";
			return -1;
		}
		return 0;
	case MAGNET_FT_EVENTS:
		if (magnet_parse_events(v, n, &mask, err)) {
			*err = "events: unknown layer (use app, tcp, ip, dev, drop, retrans, state, qdisc, wire, cong, rcvbuf or all, comma-separated)";
			return -1;
		}
		f->events = mask;
		return 0;
	case MAGNET_FT_FULL:
		if (n != 1 || (v[0] != '0' && v[0] != '1')) {
			*err = "full: expected 0 or 1";
			return -1;
		}
		f->full = (__u8)(v[0] - '0');
		return 0;
	case MAGNET_FT_FWMARK:
		r = flt_number(v, n, 1, 0, 0xffffffffU, &f->fwmark);
		if (r) {
			*err = r == FLT_NUM_SYNTAX ?
				"fwmark: not a decimal or 0x hex number" :
				"fwmark: out of range 0..4294967295 (0xffffffff)";
			return -1;
		}
		return 0;
	case MAGNET_FT_NETNS:
		r = flt_number(v, n, 0, 1, 0xffffffffU, &f->netns);
		if (r) {
			*err = r == FLT_NUM_SYNTAX ? "netns: not a decimal number" :
				"netns: out of range 1..4294967295";
			return -1;
		}
		return 0;
	case MAGNET_FT_COMM:
		if (n > sizeof(f->comm) - 1) {
			*err = "comm: longer than 15 bytes";
			return -1;
		}
		for (r = 0; r < (int)n; r++) {
			if (v[r] == '=') {
				*err = "comm: '=' not allowed";
				return -1;
			}
		}
		memcpy(f->comm, v, n);
		return 0;
	case MAGNET_FT_PID:
		r = flt_number(v, n, 0, 1, 4194304, &f->pid);
		if (r) {
			*err = r == FLT_NUM_SYNTAX ? "pid: not a decimal number" :
				"pid: out of range 1..4194304";
			return -1;
		}
		return 0;
	}
	*err = flt_unknown;
	return -1;
}

/* one term @t of @n bytes (no separators in it) into @f */
static int flt_term(const char *t, size_t n, struct magnet_filter *f,
		    const char **err)
{
	size_t eq = n, i;

	for (i = 0; i < n; i++) {
		if (t[i] < 0x21 || t[i] > 0x7e) {
			*err = "term contains a control or non-ASCII byte";
			return -1;
		}
		if (t[i] == '=' && eq == n)
			eq = i;
	}
	if (flt_eq(t, n, "clear")) {
		*err = "clear must be the only word after filter";
		return -1;
	}
	for (i = 0; i < FLT_NKEYS; i++) {
		if (!flt_eq(t, eq, flt_keys[i].name))
			continue;
		if (eq == n) {
			*err = flt_keys[i].noeq;
			return -1;
		}
		if (eq + 1 == n) {
			*err = flt_keys[i].empty;
			return -1;
		}
		if (f->set & flt_keys[i].flag) {
			*err = flt_keys[i].dup;
			return -1;
		}
		if (flt_value(flt_keys[i].flag, t + eq + 1, n - eq - 1, f, err))
			return -1;
		f->set |= flt_keys[i].flag;
		return 0;
	}
	*err = flt_unknown;
	return -1;
}

int magnet_filter_parse(const char *buf, size_t len, enum magnet_filter_op *op,
			struct magnet_filter *f, const char **err)
{
	struct magnet_filter nf;
	size_t start = 0, end = len, pos, i;

	if (len > MAGNET_CMD_MAX_LEN) {
		*err = "command too long";
		return -1;
	}
	for (i = 0; i < len; i++) {
		if (buf[i] == '\0') {
			*err = "command contains a NUL byte";
			return -1;
		}
	}
	while (start < end && flt_is_blank(buf[start]))
		start++;
	while (end > start && flt_is_blank(buf[end - 1]))
		end--;
	pos = start;
	while (pos < end && !flt_is_blank(buf[pos]))
		pos++;
	if (!flt_eq(buf + start, pos - start, "filter")) {
		*err = "not a filter command";
		return -1;
	}
	while (pos < end && flt_is_sep(buf[pos]))
		pos++;
	if (pos == end) {
		*err = "filter needs at least one term, or clear";
		return -1;
	}

	memset(&nf, 0, sizeof(nf));
	i = pos;
	while (i < end && !flt_is_sep(buf[i]))
		i++;
	if (flt_eq(buf + pos, i - pos, "clear")) {
		if (i != end) {
			*err = "filter clear takes no terms";
			return -1;
		}
		*op = MAGNET_FILTER_CLEAR;
		return 0;
	}
	while (pos < end) {
		i = pos;
		while (i < end && !flt_is_sep(buf[i]))
			i++;
		if (flt_term(buf + pos, i - pos, &nf, err))
			return -1;
		pos = i;
		while (pos < end && flt_is_sep(buf[pos]))
			pos++;
	}
	memcpy(f, &nf, sizeof(nf));	/* padding included: memcmp-able */
	*op = MAGNET_FILTER_SET;
	return 0;
}

/* @a as RFC 5952 text (lowercase, longest zero run of 2+ groups as "::") */
static int flt_format_ipv6(char *buf, size_t size, const __u8 a[16])
{
	int best = -1, bestlen = 1, run = 0, k, n = 0;

	if (flt_is_v4mapped(a))
		return snprintf(buf, size, "::ffff:%u.%u.%u.%u",
				a[12], a[13], a[14], a[15]);
	for (k = 0; k < 8; k++) {
		if (a[2 * k] || a[2 * k + 1]) {
			run = 0;
			continue;
		}
		run++;
		if (run > bestlen) {
			bestlen = run;
			best = k - run + 1;
		}
	}
	buf[0] = '\0';
	for (k = 0; k < 8; k++) {
		if (k == best) {
			n += snprintf((size_t)n < size ? buf + n : NULL,
				      (size_t)n < size ? size - n : 0, "::");
			k += bestlen - 1;
			continue;
		}
		n += snprintf((size_t)n < size ? buf + n : NULL,
			      (size_t)n < size ? size - n : 0, "%s%x",
			      (k && k != best + bestlen) ? ":" : "",
			      (unsigned int)(a[2 * k] << 8 | a[2 * k + 1]));
	}
	return n;
}

int magnet_filter_format(char *buf, size_t size, const struct magnet_filter *f)
{
	char tmp[48];
	size_t n = 0;

#define FLT_ADD(...) \
	(n += snprintf(n < size ? buf + n : NULL, n < size ? size - n : 0, \
		       __VA_ARGS__))
#define FLT_SEP (n ? " " : "")

	if (size)
		buf[0] = '\0';
	if (f->set & MAGNET_FT_PORT)
		FLT_ADD("%sport=%u", FLT_SEP, f->port);
	if (f->set & MAGNET_FT_SPORT)
		FLT_ADD("%ssport=%u", FLT_SEP, f->sport);
	if (f->set & MAGNET_FT_DPORT)
		FLT_ADD("%sdport=%u", FLT_SEP, f->dport);
	if (f->set & MAGNET_FT_ADDR) {
		unsigned int max;

		if (f->addr_family == MAGNET_FAMILY_INET6) {
			flt_format_ipv6(tmp, sizeof(tmp), f->addr);
			max = 128;
		} else {
			snprintf(tmp, sizeof(tmp), "%u.%u.%u.%u", f->addr[0],
				 f->addr[1], f->addr[2], f->addr[3]);
			max = 32;
		}
		if (f->addr_prefix == max)
			FLT_ADD("%saddr=%s", FLT_SEP, tmp);
		else
			FLT_ADD("%saddr=%s/%u", FLT_SEP, tmp, f->addr_prefix);
	}
	if (f->set & MAGNET_FT_DIR)
		FLT_ADD("%sdir=%s%s", FLT_SEP,
			(f->dir & MAGNET_FDIR_IN) ? "i" : "",
			(f->dir & MAGNET_FDIR_OUT) ? "o" : "");
	if (f->set & MAGNET_FT_EVENTS) {
		magnet_format_events(tmp, sizeof(tmp), f->events);
		FLT_ADD("%sevents=%s", FLT_SEP, tmp);
	}
	if (f->set & MAGNET_FT_FULL)
		FLT_ADD("%sfull=%u", FLT_SEP, f->full);
	if (f->set & MAGNET_FT_FWMARK)
		FLT_ADD("%sfwmark=0x%x", FLT_SEP, f->fwmark);
	if (f->set & MAGNET_FT_NETNS)
		FLT_ADD("%snetns=%u", FLT_SEP, f->netns);
	if (f->set & MAGNET_FT_COMM)
		FLT_ADD("%scomm=%.*s", FLT_SEP, (int)(sizeof(f->comm) - 1),
			f->comm);
	if (f->set & MAGNET_FT_PID)
		FLT_ADD("%spid=%u", FLT_SEP, f->pid);
#undef FLT_SEP
#undef FLT_ADD
	return (int)n;
}

int magnet_filter_addr_match(const struct magnet_filter *f, __u8 family,
			     const __u8 addr[16])
{
	if (!(f->set & MAGNET_FT_ADDR))
		return 1;
	if (family == f->addr_family) {
		if (family == MAGNET_FAMILY_INET)
			return flt_prefix_eq(addr, f->addr,
					     f->addr_prefix > 32 ? 32 : f->addr_prefix);
		if (family == MAGNET_FAMILY_INET6)
			return flt_prefix_eq(addr, f->addr,
					     f->addr_prefix > 128 ? 128 : f->addr_prefix);
		return 0;
	}
	/* v4-mapped: ::ffff:a.b.c.d is a.b.c.d */
	if (f->addr_family == MAGNET_FAMILY_INET6 &&
	    family == MAGNET_FAMILY_INET && f->addr_prefix >= 96 &&
	    flt_is_v4mapped(f->addr))
		return flt_prefix_eq(addr, f->addr + 12,
				     f->addr_prefix > 128 ? 32 : f->addr_prefix - 96u);
	if (f->addr_family == MAGNET_FAMILY_INET &&
	    family == MAGNET_FAMILY_INET6 && flt_is_v4mapped(addr))
		return flt_prefix_eq(addr + 12, f->addr,
				     f->addr_prefix > 32 ? 32 : f->addr_prefix);
	return 0;
}
