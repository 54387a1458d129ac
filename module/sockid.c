// SPDX-License-Identifier: GPL-2.0
/*
 * Socket ids: the socket's cookie, given on first use (sockid.h).
 */
#include <linux/sock_diag.h>
#include <linux/kprobes.h>
#include "sockid.h"

/*
 * The kernel's own cookie for @sk, made now: sock_diag_save_cookie(), the
 * exported way to __sock_gen_cookie(), which sets sk_cookie once (a
 * compare-and-swap: a concurrent caller gets the same value) from a
 * counter that interrupts may use too (BPF asks for cookies from any
 * context); no lock, no allocation.
 */
u64 notrace magnet_sock_cookie_new(const struct sock *sk)
{
	u32 c[2];

	sock_diag_save_cookie((struct sock *)sk, c);
	return (u64)c[1] << 32 | c[0];
}
NOKPROBE_SYMBOL(magnet_sock_cookie_new);
