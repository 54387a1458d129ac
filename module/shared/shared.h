/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Portability shim for the pure-C files (format*.c, cmd.c) that compile both
 * into the kernel module and into the userspace tools and unit tests.
 */
#ifndef MAGNET_SHARED_H
#define MAGNET_SHARED_H

#ifdef __KERNEL__
#include <linux/kernel.h>
#include <linux/string.h>
#include <linux/math64.h>
#include <linux/types.h>
static inline __u64 magnet_div_u64_rem(__u64 n, __u32 d, __u32 *rem)
{
	return div_u64_rem(n, d, rem);
}
#else
#include <stdio.h>
#include <string.h>
#include <stddef.h>
#include <linux/types.h>
#ifndef __always_inline
#define __always_inline inline __attribute__((__always_inline__))
#endif
static inline __u64 magnet_div_u64_rem(__u64 n, __u32 d, __u32 *rem)
{
	*rem = (__u32)(n % d);
	return n / d;
}
#endif

/*
 * A stack variable whose fields are each written before they are read:
 * not zeroed on entry under CONFIG_INIT_STACK_ALL_ZERO (Debian's kernels
 * zero every one, a `rep stosq` of 8 bytes an instruction on hot paths).
 * The kernel's compiler_attributes.h defines it where the compiler has it.
 */
#ifndef __uninitialized
#define __uninitialized
#endif

#endif /* MAGNET_SHARED_H */
