/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * printf-free text emitters for the formatters in format*.c (kernel and
 * userspace alike). Each writes at @p, without a NUL, and returns the end of
 * what it wrote; the caller guarantees the room (at most 20 bytes for a
 * number, 39 for an address). They produce exactly what the printf
 * conversions named beside them would, which tests/unit/test_emit.c checks
 * against the C library on every edge and many random values.
 */
#ifndef MAGNET_EMIT_H
#define MAGNET_EMIT_H

#include "shared.h"

/* "00" "01" ... "99": two digits per division by 100 */
static const char magnet_digits2[200] = {
#define MAGNET_D10(t) t, '0', t, '1', t, '2', t, '3', t, '4', \
		      t, '5', t, '6', t, '7', t, '8', t, '9'
	MAGNET_D10('0'), MAGNET_D10('1'), MAGNET_D10('2'), MAGNET_D10('3'),
	MAGNET_D10('4'), MAGNET_D10('5'), MAGNET_D10('6'), MAGNET_D10('7'),
	MAGNET_D10('8'), MAGNET_D10('9'),
#undef MAGNET_D10
};

/* exactly 2 digits of @v < 100: one 2-byte copy */
static __always_inline char *magnet_put2(char *p, __u32 v)
{
	memcpy(p, &magnet_digits2[v * 2], 2);
	return p + 2;
}

/* exactly 4 digits of @v < 10^4 */
static __always_inline char *magnet_put4(char *p, __u32 v)
{
	__u32 hi = v / 100;

	magnet_put2(p, hi);
	return magnet_put2(p + 2, v - hi * 100);
}

/* exactly 8 digits of @v < 10^8 */
static __always_inline char *magnet_put8(char *p, __u32 v)
{
	__u32 hi = v / 10000;

	magnet_put4(p, hi);
	return magnet_put4(p + 4, v - hi * 10000);
}

/* 1 or 2 digits of @v < 100, no leading zero */
static __always_inline char *magnet_put_upto2(char *p, __u32 v)
{
	if (v < 10) {
		*p = (char)('0' + v);
		return p + 1;
	}
	return magnet_put2(p, v);
}

/* 1 to 4 digits of @v < 10^4, no leading zero */
static __always_inline char *magnet_put_upto4(char *p, __u32 v)
{
	__u32 hi;

	if (v < 100)
		return magnet_put_upto2(p, v);
	hi = v / 100;
	p = magnet_put_upto2(p, hi);
	return magnet_put2(p, v - hi * 100);
}

/*
 * %0<width>u of @v < 10^width, width <= 10. The fractions of a second
 * (6 and 9 digits) take the straight path; the formatters spend most of
 * their instructions on numbers (make bench-profile).
 */
static __always_inline char *magnet_put_u32_pad(char *p, __u32 v, int width)
{
	char *end = p + width, *t = end;

	if (width == 9) {
		__u32 hi = v / 100000000;

		*p = (char)('0' + hi);
		return magnet_put8(p + 1, v - hi * 100000000);
	}
	if (width == 6) {
		__u32 hi = v / 10000;

		p = magnet_put2(p, hi);
		return magnet_put4(p, v - hi * 10000);
	}
	while (t - p >= 2) {
		__u32 q = v / 100;
		unsigned int r = (v - q * 100) * 2;

		*--t = magnet_digits2[r + 1];
		*--t = magnet_digits2[r];
		v = q;
	}
	if (t > p)
		*--t = (char)('0' + v);
	return end;
}

/* decimal digits of @v: 1 to 10 */
static inline int magnet_u32_digits(__u32 v)
{
	int n = 1;

	if (v >= 100000) {	/* then v / 100000 <= 42949 */
		v /= 100000;
		n += 5;
	}
	if (v >= 1000) {
		v /= 1000;
		n += 3;
	}
	return n + (v >= 100) + (v >= 10);
}

/* %u: up to 4 digits, 8, or 10, each a few divisions by constants */
static __always_inline char *magnet_put_u32(char *p, __u32 v)
{
	__u32 hi;

	if (v < 10000)
		return magnet_put_upto4(p, v);
	if (v < 100000000) {
		hi = v / 10000;
		p = magnet_put_upto4(p, hi);
		return magnet_put4(p, v - hi * 10000);
	}
	hi = v / 100000000;
	p = magnet_put_upto2(p, hi);
	return magnet_put8(p, v - hi * 100000000);
}

/* %llu: 2^64 - 1 is 18 446744073 709551615 */
static __always_inline char *magnet_put_u64(char *p, __u64 v)
{
	__u32 lo, mid;

	if (v <= 0xffffffffULL)
		return magnet_put_u32(p, (__u32)v);
	v = magnet_div_u64_rem(v, 1000000000U, &lo);
	if (v <= 0xffffffffULL) {
		p = magnet_put_u32(p, (__u32)v);
	} else {
		v = magnet_div_u64_rem(v, 1000000000U, &mid);
		p = magnet_put_upto2(p, (__u32)v);
		p = magnet_put_u32_pad(p, mid, 9);
	}
	return magnet_put_u32_pad(p, lo, 9);
}

/* %lld */
static inline char *magnet_put_s64(char *p, __s64 v)
{
	if (v >= 0)
		return magnet_put_u64(p, (__u64)v);
	*p++ = '-';
	return magnet_put_u64(p, 0 - (__u64)v);	/* no overflow at S64_MIN */
}

/* %x of a 16-bit value */
static inline char *magnet_put_hex(char *p, __u32 v)
{
	static const char hex[] = "0123456789abcdef";
	int n = v >= 0x1000 ? 4 : v >= 0x100 ? 3 : v >= 0x10 ? 2 : 1, i;

	for (i = n - 1; i >= 0; i--, v >>= 4)
		p[i] = hex[v & 0xf];
	return p + n;
}

/* %016llx */
static inline char *magnet_put_hex64(char *p, __u64 v)
{
	static const char hex[] = "0123456789abcdef";
	int i;

	for (i = 15; i >= 0; i--, v >>= 4)
		p[i] = hex[v & 0xf];
	return p + 16;
}

/* %s of a NUL-terminated string */
static inline char *magnet_put_str(char *p, const char *s)
{
	while (*s)
		*p++ = *s++;
	return p;
}

/* %u of a byte */
static inline char *magnet_put_u8(char *p, __u8 v)
{
	if (v >= 100) {
		unsigned int r = (v - (v >= 200 ? 200U : 100U)) * 2;

		*p++ = v >= 200 ? '2' : '1';
		*p++ = magnet_digits2[r];
		*p++ = magnet_digits2[r + 1];
	} else if (v >= 10) {
		*p++ = magnet_digits2[v * 2];
		*p++ = magnet_digits2[v * 2 + 1];
	} else {
		*p++ = (char)('0' + v);
	}
	return p;
}

/* "%u.%u.%u.%u" of the first 4 bytes */
static inline char *magnet_put_ipv4(char *p, const __u8 a[4])
{
	p = magnet_put_u8(p, a[0]);
	*p++ = '.';
	p = magnet_put_u8(p, a[1]);
	*p++ = '.';
	p = magnet_put_u8(p, a[2]);
	*p++ = '.';
	return magnet_put_u8(p, a[3]);
}

/* 8 groups of 4 uppercase hex digits joined by ':', no compression */
static inline char *magnet_put_ipv6(char *p, const __u8 a[16])
{
	static const char hex[] = "0123456789ABCDEF";
	int i;

	for (i = 0; i < 16; i++) {
		*p++ = hex[a[i] >> 4];
		*p++ = hex[a[i] & 0xf];
		if ((i & 1) && i != 15)
			*p++ = ':';
	}
	return p;
}

#endif /* MAGNET_EMIT_H */
