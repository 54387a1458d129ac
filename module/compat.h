/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every kernel-version difference magnet cares about lives here; the other
 * files contain no LINUX_VERSION_CODE tests. It accepts 5.19 and newer;
 * Debian 12's 6.1 and 6.12 lines are built and tested by `make check`,
 * and 7.2 (Debian unstable) has been built and loaded.
 */
#ifndef MAGNET_COMPAT_H
#define MAGNET_COMPAT_H

#include <linux/version.h>
#include <linux/timer.h>
#include <linux/ptrace.h>

#if LINUX_VERSION_CODE < KERNEL_VERSION(5, 19, 0)
#error "magnet needs Linux 5.19 or newer (tcp_snd_cwnd, proc_ops)"
#endif

/* timer_delete_sync() arrived in 6.2 and was backported to 6.1.84. */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 1, 84)
#define timer_delete_sync(t) del_timer_sync(t)
#endif

/* from_timer() became timer_container_of() in 6.16. */
#ifndef from_timer
#define from_timer(var, t, field) timer_container_of(var, t, field)
#endif

/*
 * The n-th (0-based) integer or pointer argument of a function, in an ftrace
 * callback. Since 6.12 an accessor exists; before, x86's struct ftrace_regs
 * wraps a pt_regs whose argument registers ftrace_caller saved.
 */
#include <linux/ftrace.h>
#ifdef ftrace_regs_get_argument
#define magnet_ftrace_arg(fregs, n) ftrace_regs_get_argument(fregs, n)
#elif defined(CONFIG_X86_64)
#define magnet_ftrace_arg(fregs, n) regs_get_kernel_argument(&(fregs)->regs, n)
#else
#error "magnet: no ftrace argument accessor for this architecture and kernel"
#endif

/*
 * "ECN in use" on a socket: TCP_ECN_OK until 6.x; 7.x has RFC 3168 and
 * AccECN modes (TCP_ECN_MODE_RFC3168, TCP_ECN_MODE_ACCECN) and
 * tcp_ecn_mode_any() for either.
 */
#include <net/tcp.h>
#ifdef TCP_ECN_OK
#define magnet_tcp_ecn(tp) (((tp)->ecn_flags & TCP_ECN_OK) != 0)
#else
#define magnet_tcp_ecn(tp) tcp_ecn_mode_any(tp)
#endif

/*
 * Fault a user buffer in for writing; returns the bytes that could not be.
 * fault_in_writeable() since 5.16 (before: fault_in_pages_writeable(),
 * which returned 0 or -EFAULT).
 */
#include <linux/pagemap.h>
#define magnet_fault_in_writeable(uaddr, size) fault_in_writeable(uaddr, size)

#if !defined(CONFIG_DYNAMIC_FTRACE_WITH_ARGS) && !defined(CONFIG_DYNAMIC_FTRACE_WITH_REGS)
#error "magnet needs CONFIG_DYNAMIC_FTRACE_WITH_ARGS (or _WITH_REGS)"
#endif

#endif /* MAGNET_COMPAT_H */
