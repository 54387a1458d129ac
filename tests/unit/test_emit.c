// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * emit.h, the printf-free emitters of format*.c: each against the C
 * library's printf conversion it replaces, on every edge (powers of ten and
 * their neighbours, the type limits) and on a million random values of
 * every magnitude, and the addresses against their printf spelling.
 */
#include <stdlib.h>
#include <string.h>
#include "emit.h"
#include "check.h"

static char got[64], want[64];

static void check_u64(__u64 v)
{
	*magnet_put_u64(got, v) = '\0';
	snprintf(want, sizeof(want), "%llu", (unsigned long long)v);
	CHECK(!strcmp(got, want), "put_u64(%llu) = '%s'", (unsigned long long)v, got);
	if (v <= 0xffffffffULL) {
		*magnet_put_u32(got, (__u32)v) = '\0';
		CHECK(!strcmp(got, want), "put_u32(%llu) = '%s'",
		      (unsigned long long)v, got);
		CHECK(magnet_u32_digits((__u32)v) == (int)strlen(want),
		      "digits(%llu) = %d", (unsigned long long)v,
		      magnet_u32_digits((__u32)v));
	}
}

static void check_signed_hex(__u64 u)
{
	__s64 v = (__s64)u;

	*magnet_put_s64(got, v) = '\0';
	snprintf(want, sizeof(want), "%lld", (long long)v);
	CHECK(!strcmp(got, want), "put_s64(%lld) = '%s'", (long long)v, got);
	v = (__s64)(0 - u);	/* -v, without the overflow at S64_MIN */
	*magnet_put_s64(got, v) = '\0';
	snprintf(want, sizeof(want), "%lld", (long long)v);
	CHECK(!strcmp(got, want), "put_s64(%lld) = '%s'", (long long)v, got);
	*magnet_put_hex64(got, u) = '\0';
	snprintf(want, sizeof(want), "%016llx", (unsigned long long)u);
	CHECK(!strcmp(got, want), "put_hex64(%llx) = '%s'",
	      (unsigned long long)u, got);
}

static void check_pad(__u32 v, int width)
{
	*magnet_put_u32_pad(got, v, width) = '\0';
	snprintf(want, sizeof(want), "%0*u", width, v);
	CHECK(!strcmp(got, want), "put_u32_pad(%u, %d) = '%s'", v, width, got);
}

/* random value of random magnitude: every digit count gets its share */
static __u64 rnd64(void)
{
	__u64 v = ((__u64)random() << 42) ^ ((__u64)random() << 21) ^
		  (__u64)random();

	return v >> (random() % 64);
}

int main(void)
{
	__u64 p10 = 1;
	long i;
	int w;

	srandom(20261122);
	/* edges: 0, 10^k - 1, 10^k, 10^k + 1, and the type limits */
	check_u64(0);
	for (i = 0; i < 20; i++) {
		check_u64(p10 - 1);
		check_u64(p10);
		check_u64(p10 + 1);
		if (p10 > 0xffffffffffffffffULL / 10)
			break;
		p10 *= 10;
	}
	check_u64(0xffffffffULL);
	check_u64(0x100000000ULL);
	check_u64(0xffffffffffffffffULL);
	check_u64(0x7fffffffULL * 1448);	/* the infinite ssthresh in bytes */
	for (i = 0; i < 1000000; i++)
		check_u64(rnd64());

	/* %lld (both signs, S64_MIN whose negation overflows) and %016llx */
	check_signed_hex(0);
	check_signed_hex(1);
	check_signed_hex(0x8000000000000000ULL);
	check_signed_hex(0x7fffffffffffffffULL);
	check_signed_hex(0xffffffffffffffffULL);
	for (i = 0; i < 200000; i++)
		check_signed_hex(rnd64());

	/* zero-padded: microseconds (6), nanoseconds (9), every width */
	for (w = 1; w <= 10; w++) {
		__u32 max = w == 10 ? 0xffffffffU : 1;
		int k;

		for (k = 0; k < w && w < 10; k++)
			max *= 10;
		if (w < 10)
			max -= 1;
		check_pad(0, w);
		check_pad(max, w);
		for (i = 0; i < 20000; i++)
			check_pad((__u32)random() % (max ? max : 1), w);
	}

	/* addresses, as format.c printed them with printf */
	for (i = 0; i < 100000; i++) {
		__u8 a[16];
		int k;

		for (k = 0; k < 16; k++)
			a[k] = (__u8)random();
		if (i < 256)	/* every byte value in every position */
			a[0] = a[1] = a[2] = a[3] = (__u8)i;
		*magnet_put_ipv4(got, a) = '\0';
		snprintf(want, sizeof(want), "%u.%u.%u.%u", a[0], a[1], a[2], a[3]);
		CHECK(!strcmp(got, want), "ipv4 '%s' != '%s'", got, want);
		*magnet_put_ipv6(got, a) = '\0';
		snprintf(want, sizeof(want),
			 "%02X%02X:%02X%02X:%02X%02X:%02X%02X:%02X%02X:%02X%02X:%02X%02X:%02X%02X",
			 a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8],
			 a[9], a[10], a[11], a[12], a[13], a[14], a[15]);
		CHECK(!strcmp(got, want), "ipv6 '%s' != '%s'", got, want);
	}

	printf("test_emit: %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
