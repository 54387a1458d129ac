/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Socket ids. A socket's id is its cookie (sk_cookie): the number the
 * kernel gives a socket the first time one is asked for, from a counter,
 * so never the same for two sockets while the kernel runs, also when a
 * new socket takes a freed one's memory (sk_alloc() and sk_clone_lock()
 * start it at 0). `ss -e` shows it as sk:<hex>, getsockopt(SO_COOKIE) and
 * BPF's bpf_get_socket_cookie() return it. Not a kernel address. A socket
 * magnet records with no cookie yet gets one here (the kernel's own
 * generator, sock_diag_save_cookie()), once.
 */
#ifndef MAGNET_SOCKID_H
#define MAGNET_SOCKID_H

#include <linux/types.h>
#include <linux/atomic.h>
#include <net/sock.h>

u64 magnet_sock_cookie_new(const struct sock *sk);

/* @sk's id: its cookie, a load (given now if it has none) */
static __always_inline u64 magnet_sock_id(const struct sock *sk)
{
	u64 c = atomic64_read(&sk->sk_cookie);

	if (unlikely(!c))
		c = magnet_sock_cookie_new(sk);
	return c;
}

#endif /* MAGNET_SOCKID_H */
