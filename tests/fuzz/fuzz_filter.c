// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libFuzzer target for the command parsers shared with the kernel module:
 * magnet_filter_parse() (module/shared/filter.c), magnet_cmd_parse() and
 * magnet_parse_events() (module/shared/cmd.c). Built with ASan and UBSan by
 * `make -C tests/fuzz run`.
 *
 * Beyond "no crash", it checks properties and traps on a violation:
 *   - on success, magnet_filter_format() + re-parse gives the identical
 *     struct (memcmp), and formatting into every shorter buffer is a
 *     NUL-terminated prefix with the same return value;
 *   - on error, the output struct and op are untouched and the reason is
 *     a non-empty line;
 *   - an addr= value is accepted exactly when inet_pton() accepts it, with
 *     the same bytes (no prefix), and matches itself;
 *   - a line magnet_filter_parse() accepts is MAGNET_CMD_FILTER for
 *     magnet_cmd_parse(), which dispatches it;
 *   - magnet_format_events() output of a parsed mask parses back the same.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <arpa/inet.h>
#include "filter.h"
#include "cmd.h"
#include "record.h"

#define CHECK(c)                  \
	do {                      \
		if (!(c))         \
			__builtin_trap(); \
	} while (0)

static void check_err(int r, const char *err)
{
	if (r)
		CHECK(err && *err && !strchr(err, '\n'));
}

static void flip(__u8 *a, unsigned int bit)
{
	a[bit / 8] ^= (__u8)(0x80 >> (bit % 8));
}

/* the filter's own network matches, a bit flipped inside the prefix does
 * not, one flipped outside it does; v4-mapped forms cross families */
static void addr_match_props(const struct magnet_filter *f)
{
	__u8 fam = f->addr_family, other, a[16];
	unsigned int max = fam == MAGNET_FAMILY_INET ? 32 : 128, p = f->addr_prefix;

	CHECK(magnet_filter_addr_match(f, fam, f->addr) == 1);
	CHECK(magnet_filter_addr_match(f, 0, f->addr) == 0);
	memcpy(a, f->addr, 16);
	if (p) {
		flip(a, p - 1);
		CHECK(magnet_filter_addr_match(f, fam, a) == 0);
		flip(a, p - 1);
	}
	if (p < max) {
		flip(a, max - 1);
		CHECK(magnet_filter_addr_match(f, fam, a) == 1);
		flip(a, p);
		CHECK(magnet_filter_addr_match(f, fam, a) == 1);
	}
	other = fam == MAGNET_FAMILY_INET ? MAGNET_FAMILY_INET6 : MAGNET_FAMILY_INET;
	memset(a, 0, sizeof(a));
	if (fam == MAGNET_FAMILY_INET) {
		/* ::ffff:a.b.c.d matches, ::a.b.c.d does not */
		memcpy(a + 12, f->addr, 4);
		CHECK(magnet_filter_addr_match(f, other, a) == 0);
		a[10] = a[11] = 0xff;
		CHECK(magnet_filter_addr_match(f, other, a) == 1);
	} else {
		int mapped = p >= 96 && !f->addr[0] && !f->addr[9] &&
			     f->addr[10] == 0xff && f->addr[11] == 0xff &&
			     !memcmp(f->addr, f->addr + 1, 9);

		memcpy(a, f->addr + 12, 4);
		CHECK(magnet_filter_addr_match(f, other, a) == mapped);
	}
}

/* returns magnet_filter_parse()'s result */
static int filter_props(const char *buf, size_t len)
{
	struct magnet_filter f, g, poison;
	enum magnet_filter_op op = 77, op2 = 0;
	const char *err = NULL;
	char text[MAGNET_FILTER_TEXT_MAX], line[MAGNET_FILTER_TEXT_MAX + 8], cut[64];
	int r, n, m;
	size_t i;

	memset(&f, 0xa5, sizeof(f));
	memcpy(&poison, &f, sizeof(f));
	r = magnet_filter_parse(buf, len, &op, &f, &err);
	check_err(r, err);
	CHECK(r == 0 || r == -1);
	if (r) {
		CHECK(!memcmp(&f, &poison, sizeof(f)) && op == 77);
		return r;
	}
	if (op == MAGNET_FILTER_CLEAR) {
		CHECK(!memcmp(&f, &poison, sizeof(f)));
		return 0;
	}
	CHECK(op == MAGNET_FILTER_SET && f.set && !(f.set & ~0x7ffu));

	n = magnet_filter_format(text, sizeof(text), &f);
	CHECK(n > 0 && (size_t)n < sizeof(text) && (size_t)n == strlen(text));
	snprintf(line, sizeof(line), "filter %s", text);
	memset(&g, 0x5a, sizeof(g));
	r = magnet_filter_parse(line, strlen(line), &op2, &g, &err);
	CHECK(r == 0 && op2 == MAGNET_FILTER_SET);
	CHECK(!memcmp(&f, &g, sizeof(f)));

	for (i = 0; i <= sizeof(cut) && i <= (size_t)n + 1; i++) {
		memset(cut, 'x', sizeof(cut));
		m = magnet_filter_format(cut, i, &f);
		CHECK(m == n);
		if (i)
			CHECK(strnlen(cut, i) == i - 1 && !memcmp(cut, text, i - 1));
	}

	if (f.set & MAGNET_FT_ADDR) {
		__u8 fam = f.addr_family;

		CHECK(fam == MAGNET_FAMILY_INET || fam == MAGNET_FAMILY_INET6);
		CHECK(f.addr_prefix <= (fam == MAGNET_FAMILY_INET ? 32 : 128));
		addr_match_props(&f);
	}
	return 0;
}

/* the input as an addr= value, compared with inet_pton() */
static void addr_differential(const char *buf, size_t len)
{
	struct magnet_filter f;
	enum magnet_filter_op op;
	const char *err;
	char s[80], line[96];
	__u8 want[16];
	int ours, r4 = 0, r6 = 0;
	size_t i;

	if (!len || len >= sizeof(s))
		return;
	for (i = 0; i < len; i++) {
		/* a value inet_pton also sees whole: one printable word, no prefix */
		if (buf[i] < 0x21 || buf[i] > 0x7e || buf[i] == '/')
			return;
	}
	memcpy(s, buf, len);
	s[len] = '\0';
	snprintf(line, sizeof(line), "filter addr=%s", s);
	ours = magnet_filter_parse(line, strlen(line), &op, &f, &err) == 0;
	memset(want, 0, sizeof(want));
	if (strchr(s, ':'))
		r6 = inet_pton(AF_INET6, s, want) == 1;
	else
		r4 = inet_pton(AF_INET, s, want) == 1;
	CHECK(ours == (r4 || r6));
	if (ours) {
		CHECK(f.addr_family == (r4 ? MAGNET_FAMILY_INET : MAGNET_FAMILY_INET6));
		CHECK(!memcmp(f.addr, want, 16));
		CHECK(f.addr_prefix == (r4 ? 32 : 128));
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *buf = (const char *)data;
	struct magnet_cmd cmd;
	const char *err = NULL;
	unsigned int mask = 0x5a5a, mask2 = 0;
	char ev[32];
	int r;

	int fr = filter_props(buf, size);

	addr_differential(buf, size);

	r = magnet_cmd_parse(buf, size, &cmd, &err);
	check_err(r, err);
	/* a line the filter parser takes is dispatched to it */
	if (!fr)
		CHECK(!r && cmd.op == MAGNET_CMD_FILTER);

	err = NULL;
	r = magnet_parse_events(buf, size, &mask, &err);
	check_err(r, err);
	if (r) {
		CHECK(mask == 0x5a5a);
	} else {
		CHECK(mask && !(mask & ~(unsigned int)(MAGNET_LAYER_ALL |
						   MAGNET_LAYER_V3_ONLY)));
		magnet_format_events(ev, sizeof(ev), mask);
		CHECK(magnet_parse_events(ev, strlen(ev), &mask2, &err) == 0 &&
		      mask2 == mask);
	}
	return 0;
}
