// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libFuzzer target for the packet-header parser of the IP and device
 * probes (module/shared/pktparse.h), with AddressSanitizer and UBSan.
 *
 * Input: one byte of flags (bit 0: nontcp), one byte giving the linear
 * part (the rest is "paged", read through the copy path, as
 * skb_header_pointer does), then the packet. The packet is copied into a
 * buffer of its exact size, so any read past it is caught.
 *
 * Beyond "no crash", it traps on a broken property:
 *   - the result and every field are the same at any linear split;
 *   - a parsed packet has family 4 or 6, a length within the buffer and at
 *     least its IP header; a later fragment has no ports and no sequence
 *     range; without nontcp only TCP is parsed;
 *   - cutting the buffer to the parsed length (dropping link padding)
 *     parses the same.
 */
#include <stdint.h>
#include <stdlib.h>

#include "../unit/pkt_src.h"

#define CHECK(c)                          \
	do {                              \
		if (!(c))                 \
			__builtin_trap(); \
	} while (0)

static int parse(const __u8 *pkt, unsigned int n, unsigned int linear,
		 int nontcp, struct magnet_pkt *p, __u8 addrs[32])
{
	__u8 *copy = malloc(n ? n : 1);
	struct src s = { copy, n, linear };
	int r;

	memcpy(copy, pkt, n);
	memset(p, 0x5a, sizeof(*p));
	r = magnet_pkt_parse(&s, n, nontcp, p);
	if (r == MAGNET_PKT_OK) {
		unsigned int al = p->family == 4 ? 4 : 16;

		memcpy(addrs, p->saddr, al);
		memcpy(addrs + 16, p->daddr, al);
		pkt_keep_opts(p);
	}
	free(copy);
	return r;
}

static int same(const struct magnet_pkt *a, const __u8 *aa,
		const struct magnet_pkt *b, const __u8 *ba)
{
	return pkt_same(a, aa, aa + 16, b, ba, ba + 16);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct magnet_pkt ref, got;
	__u8 ra[32], ga[32];
	unsigned int n, split;
	int nontcp, r, r2;

	if (size < 2 || size > 70000)
		return 0;
	nontcp = data[0] & 1;
	n = (unsigned int)size - 2;
	split = data[1] * 4u;
	data += 2;
	r = parse(data, n, n, nontcp, &ref, ra);
	CHECK(r == MAGNET_PKT_OK || r == MAGNET_PKT_SKIP || r == MAGNET_PKT_BAD);
	r2 = parse(data, n, split, nontcp, &got, ga);
	CHECK(r2 == r);
	if (r != MAGNET_PKT_OK)
		return 0;
	CHECK(same(&ref, ra, &got, ga));
	CHECK(ref.family == 4 || ref.family == 6);
	CHECK(ref.len <= n && ref.len >= (ref.family == 4 ? 20u : 40u));
	CHECK(nontcp || ref.proto == 6);
	CHECK(!ref.has_seq || ref.proto == 6);
	CHECK(!ref.fragment || (!ref.has_seq && !ref.sport && !ref.dport));
	CHECK(ref.proto == 6 || ref.proto == 17 ||
	      (!ref.sport && !ref.dport));
	if (ref.len < n) {
		r2 = parse(data, ref.len, split, nontcp, &got, ga);
		CHECK(r2 == MAGNET_PKT_OK && same(&ref, ra, &got, ga));
	}
	return 0;
}
