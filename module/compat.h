/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every kernel-version difference magnet cares about lives here; the other
 * files contain no LINUX_VERSION_CODE tests. It accepts 5.10 and 6.1 or
 * newer: the lines built and tested (README "Kernels") are Debian 11's
 * 5.10, Debian 12's 6.1 (and its PREEMPT_RT build) and 6.12, and Debian
 * unstable's 7.2. 5.11 to 6.0 changed the ftrace and kprobe interfaces
 * one piece at a time (and 6.1 before its stable updates does not export
 * ftrace_free_filter); no distribution magnet is tested on ships them, so
 * they are refused rather than guessed at.
 */
#ifndef MAGNET_COMPAT_H
#define MAGNET_COMPAT_H

#include <linux/version.h>
#include <linux/timer.h>
#include <linux/ptrace.h>

#if LINUX_VERSION_CODE < KERNEL_VERSION(5, 10, 0)
#error "magnet needs Linux 5.10, or 6.1 or newer"
#elif LINUX_VERSION_CODE >= KERNEL_VERSION(5, 11, 0) && \
	LINUX_VERSION_CODE < KERNEL_VERSION(6, 1, 0)
#error "magnet is built for Linux 5.10 and for 6.1 or newer; 5.11 to 6.0 are not supported"
#endif

/* tcp_snd_cwnd() arrived in 5.19 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(5, 19, 0)
#include <linux/tcp.h>
#define tcp_snd_cwnd(tp) ((tp)->snd_cwnd)
#endif

/*
 * tcp_sock's chrono_type: a 2-bit bit field on older kernels (no
 * READ_ONCE, no address), a u8 on newer; a plain read suits both, and
 * the enum tcp_chrono is the same
 */
#define magnet_chrono_type(tp) ((unsigned int)(tp)->chrono_type)

/*
 * The socket's RTO totals, tcp_sock's total_rto and total_rto_recoveries
 * (Linux 6.7 on, what tcp_info's tcpi_total_rto* report): *@n and *@rec,
 * and true; false where the kernel keeps none (both left 0)
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 7, 0)
#define magnet_rto_totals(tp, n, rec)					\
	(*(n) = READ_ONCE((tp)->total_rto),				\
	 *(rec) = READ_ONCE((tp)->total_rto_recoveries), true)
#else
#define magnet_rto_totals(tp, n, rec) (*(n) = 0, *(rec) = 0, false)
#endif

/*
 * The end of an RTO recovery (Linux 6.7 on), at a change of the congestion
 * state out of Loss into @to: tp->rto_stamp is the recovery's first
 * timeout's ms (tcp_mstamp's clock), non-zero while one is timed. True
 * with *@ms, this recovery's ms (tcp_mstamp's ms less rto_stamp), and
 * *@total, total_rto_time as the kernel holds it after the change; false
 * where none is timed or the kernel times none. The kernel adds the
 * recovery to total_rto_time (tcp_update_rto_time(), from the same
 * tcp_mstamp: not refreshed in between) only where it leaves Loss for
 * Open, in tcp_fastretrans_alert() after tcp_process_loss() (and in a Fast
 * Open server's handshake, which changes no state). Into Recovery (a
 * retransmission lost again, or RACK's reordering timer: tcp_enter_recovery)
 * it adds nothing and leaves rto_stamp set, so *@total is then the total
 * before, and tcpi_total_rto_time goes on counting from rto_stamp until
 * the next RTO restarts it.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 7, 0)
#define magnet_rto_end(tp, to, total, ms) ({				\
	u32 stamp_ = READ_ONCE((tp)->rto_stamp);			\
									\
	if (stamp_) {							\
		*(ms) = (u32)div_u64(READ_ONCE((tp)->tcp_mstamp),	\
				     USEC_PER_MSEC) - stamp_;		\
		*(total) = READ_ONCE((tp)->total_rto_time) +		\
			   ((to) == TCP_CA_Open ? *(ms) : 0);		\
	}								\
	stamp_ != 0; })
#else
#define magnet_rto_end(tp, to, total, ms) false
#endif

/*
 * The device transmit function probed first takes the skb first:
 * __dev_queue_xmit(skb, sb_dev), declared since 5.19; static before, when
 * dev_queue_xmit(skb) was its public face. The build checks the signature.
 */
#include <linux/netdevice.h>
#if LINUX_VERSION_CODE < KERNEL_VERSION(5, 19, 0)
#define MAGNET_DEV_XMIT_SIGNATURE_OK \
	__same_type(&dev_queue_xmit, int (*)(struct sk_buff *))
#else
#define MAGNET_DEV_XMIT_SIGNATURE_OK \
	__same_type(&__dev_queue_xmit, int (*)(struct sk_buff *, struct net_device *))
#endif

/*
 * tcp_add_backlog(sk, skb), the handler's two arguments: with a drop
 * reason's pointer third from 5.19 to 6.x, returning the reason in 7.x
 * (enum skb_drop_reason itself exists from 5.17)
 */
#include <net/tcp.h>
#if LINUX_VERSION_CODE < KERNEL_VERSION(5, 17, 0)
#define MAGNET_ADD_BACKLOG_SIGNATURE_OK \
	__same_type(&tcp_add_backlog, bool (*)(struct sock *, struct sk_buff *))
#else
#define MAGNET_ADD_BACKLOG_SIGNATURE_OK \
	(__same_type(&tcp_add_backlog, \
		     bool (*)(struct sock *, struct sk_buff *)) || \
	 __same_type(&tcp_add_backlog, \
		     bool (*)(struct sock *, struct sk_buff *, \
			      enum skb_drop_reason *)) || \
	 __same_type(&tcp_add_backlog, \
		     enum skb_drop_reason (*)(struct sock *, struct sk_buff *)))
#endif

/* get_kretprobe() arrived in 5.11; before, the instance pointed at it */
#if LINUX_VERSION_CODE < KERNEL_VERSION(5, 11, 0)
#define get_kretprobe(ri) ((ri)->rp)
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
 * ftrace callbacks. Since 5.11 a callback gets struct ftrace_regs, whose
 * argument registers even a plain ftrace_caller saves, and guards itself
 * against recursion (ftrace_test_recursion_trylock, which also disables
 * preemption) unless its ops ask ftrace to. 5.10 passes a struct pt_regs
 * that only FTRACE_OPS_FL_SAVE_REGS fills (DYNAMIC_FTRACE_WITH_REGS), and
 * wraps a callback in its own silent recursion guard unless the ops say
 * FTRACE_OPS_FL_RECURSION_SAFE: magnet says so and brings the guard below,
 * so a miss is counted as on newer kernels.
 *   magnet_fregs_t              the callback's last argument
 *   MAGNET_FTRACE_OPS_FLAGS     the flags its ftrace_ops need
 *   magnet_ftrace_arg(fregs, n) the n-th (0-based) integer or pointer argument
 *   magnet_ftrace_trylock(ip, parent_ip), magnet_ftrace_unlock(bit)
 */
#include <linux/ftrace.h>
#if LINUX_VERSION_CODE < KERNEL_VERSION(5, 11, 0)
#include <linux/percpu.h>
#include <linux/preempt.h>
typedef struct pt_regs magnet_fregs_t;
#define MAGNET_FTRACE_OPS_FLAGS \
	(FTRACE_OPS_FL_SAVE_REGS | FTRACE_OPS_FL_RECURSION_SAFE)
#define magnet_ftrace_arg(regs, n) regs_get_kernel_argument(regs, n)

/* one bit per context (NMI, hard irq, softirq, task) and CPU; compat.c */
DECLARE_PER_CPU(unsigned int, magnet_ftrace_recursion);

static __always_inline int magnet_ftrace_trylock(unsigned long ip,
						 unsigned long parent_ip)
{
	unsigned int bit;

	preempt_disable_notrace();
	bit = in_nmi() ? 0 : in_irq() ? 1 : in_serving_softirq() ? 2 : 3;
	if (unlikely(this_cpu_read(magnet_ftrace_recursion) & (1U << bit))) {
		preempt_enable_notrace();
		return -1;
	}
	this_cpu_or(magnet_ftrace_recursion, 1U << bit);
	barrier();
	return bit;
}

static __always_inline void magnet_ftrace_unlock(int bit)
{
	barrier();
	this_cpu_and(magnet_ftrace_recursion, ~(1U << bit));
	preempt_enable_notrace();
}
/*
 * Drop an ops' filter once it is unregistered: ftrace_free_filter() is not
 * exported before 6.2 (and 6.1's stable updates); resetting the filter to
 * nothing frees its hash the same way.
 */
#define magnet_ftrace_free_filter(ops) ftrace_set_filter(ops, NULL, 0, 1)
#else
typedef struct ftrace_regs magnet_fregs_t;
#define magnet_ftrace_free_filter(ops) ftrace_free_filter(ops)
#define MAGNET_FTRACE_OPS_FLAGS 0
#define magnet_ftrace_trylock(ip, parent_ip) \
	ftrace_test_recursion_trylock(ip, parent_ip)
#define magnet_ftrace_unlock(bit) ftrace_test_recursion_unlock(bit)
#ifdef ftrace_regs_get_argument
/* since 6.12 */
#define magnet_ftrace_arg(fregs, n) ftrace_regs_get_argument(fregs, n)
#elif defined(CONFIG_X86_64)
/* before, x86's struct ftrace_regs wraps a pt_regs */
#define magnet_ftrace_arg(fregs, n) regs_get_kernel_argument(&(fregs)->regs, n)
#else
#error "magnet: no ftrace argument accessor for this architecture and kernel"
#endif
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
 * fault_in_writeable() since 5.16; before, fault_in_pages_writeable(),
 * which returned 0 or -EFAULT for the whole range.
 */
#include <linux/pagemap.h>
#if LINUX_VERSION_CODE < KERNEL_VERSION(5, 16, 0)
static inline size_t magnet_fault_in_writeable(char __user *uaddr, size_t size)
{
	return fault_in_pages_writeable(uaddr, min_t(size_t, size, INT_MAX)) ?
	       size : 0;
}
#else
#define magnet_fault_in_writeable(uaddr, size) fault_in_writeable(uaddr, size)
#endif

/* vm_flags became read-only outside these helpers in 6.3 */
#include <linux/mm.h>
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 3, 0)
static inline void magnet_vm_flags_mod(struct vm_area_struct *vma,
				       unsigned long set, unsigned long clear)
{
	vma->vm_flags = (vma->vm_flags | set) & ~clear;
}
#else
#define magnet_vm_flags_mod(vma, set, clear) vm_flags_mod(vma, set, clear)
#endif

/*
 * The skb:kfree_skb tracepoint (a packet freed as dropped), whose probe
 * takes (data, MAGNET_KFREE_SKB_ARGS): (skb, location) up to 5.16; with
 * the drop reason from 5.17; and the receiving socket from 6.11 (const
 * from 6.13: the same call either way; MAGNET_KFREE_SKB_RX_SK, NULL
 * before). The reason's name: drop_reasons[]
 * up to 6.4, then a table per subsystem (the reason's high 16 bits), read
 * under RCU (the probe holds rcu_read_lock(): drops.c); none before 5.17.
 */
#include <trace/events/skb.h>
#if LINUX_VERSION_CODE < KERNEL_VERSION(5, 17, 0)
#define MAGNET_KFREE_SKB_ARGS struct sk_buff *skb, void *location
#define MAGNET_KFREE_SKB_REASON 0U
#define MAGNET_KFREE_SKB_RX_SK NULL
#define MAGNET_KFREE_SKB_SIGNATURE_OK \
	__same_type(&trace_kfree_skb, void (*)(struct sk_buff *, void *))
static inline const char *magnet_drop_reason_name(unsigned int reason)
{
	return NULL;
}
#else
#include <net/dropreason.h>
#define MAGNET_KFREE_SKB_REASON ((unsigned int)reason)
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 11, 0)
#define MAGNET_KFREE_SKB_ARGS struct sk_buff *skb, void *location, \
	enum skb_drop_reason reason
#define MAGNET_KFREE_SKB_RX_SK NULL
#define MAGNET_KFREE_SKB_SIGNATURE_OK \
	__same_type(&trace_kfree_skb, void (*)(struct sk_buff *, void *, \
					       enum skb_drop_reason))
#elif LINUX_VERSION_CODE < KERNEL_VERSION(6, 13, 0)
/* the probe's type is the tracepoint's exactly: a kCFI kernel (clang's
 * CONFIG_CFI_CLANG) checks it at the indirect call */
#define MAGNET_KFREE_SKB_ARGS struct sk_buff *skb, void *location, \
	enum skb_drop_reason reason, struct sock *rx_sk
#define MAGNET_KFREE_SKB_RX_SK rx_sk
#define MAGNET_KFREE_SKB_SIGNATURE_OK \
	__same_type(&trace_kfree_skb, void (*)(struct sk_buff *, void *, \
					       enum skb_drop_reason, \
					       struct sock *))
#else
#define MAGNET_KFREE_SKB_ARGS struct sk_buff *skb, void *location, \
	enum skb_drop_reason reason, const struct sock *rx_sk
#define MAGNET_KFREE_SKB_RX_SK rx_sk
#define MAGNET_KFREE_SKB_SIGNATURE_OK \
	__same_type(&trace_kfree_skb, void (*)(struct sk_buff *, void *, \
					       enum skb_drop_reason, \
					       const struct sock *))
#endif
#ifdef SKB_DROP_REASON_SUBSYS_SHIFT
static inline const char *magnet_drop_reason_name(unsigned int reason)
{
	unsigned int subsys = reason >> SKB_DROP_REASON_SUBSYS_SHIFT;
	unsigned int n = reason & ~SKB_DROP_REASON_SUBSYS_MASK;
	const struct drop_reason_list *l;

	if (subsys >= SKB_DROP_REASON_SUBSYS_NUM)
		return NULL;
	l = rcu_dereference(drop_reasons_by_subsys[subsys]);
	return l && n < l->n_reasons ? l->reasons[n] : NULL;
}
#else
static inline const char *magnet_drop_reason_name(unsigned int reason)
{
	return reason < SKB_DROP_REASON_MAX ? drop_reasons[reason] : NULL;
}
#endif
#endif

/*
 * The tcp:tcp_retransmit_skb tracepoint, whose probe takes (data,
 * MAGNET_RETRANSMIT_ARGS): (sk, skb) for a segment sent again; from 6.17
 * also err, as it fires for an attempt that failed too (the retransmission
 * was sent only if err is 0). Neither it nor sock:inet_sock_set_state is
 * exported to modules: tcpev.c finds them by name.
 */
#include <trace/events/tcp.h>
#include <trace/events/sock.h>
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 17, 0)
#define MAGNET_RETRANSMIT_ARGS const struct sock *sk, const struct sk_buff *skb
#define MAGNET_RETRANSMIT_SENT 1
#define MAGNET_RETRANSMIT_SIGNATURE_OK \
	__same_type(&trace_tcp_retransmit_skb, \
		    void (*)(const struct sock *, const struct sk_buff *))
#else
#define MAGNET_RETRANSMIT_ARGS const struct sock *sk, \
	const struct sk_buff *skb, int err
#define MAGNET_RETRANSMIT_SENT (err == 0)
#define MAGNET_RETRANSMIT_SIGNATURE_OK \
	__same_type(&trace_tcp_retransmit_skb, \
		    void (*)(const struct sock *, const struct sk_buff *, int))
#endif
/* qdisc:qdisc_dequeue (qdisc.c), the same on every kernel since 5.0 */
#include <trace/events/qdisc.h>
#define MAGNET_QDISC_DEQUEUE_SIGNATURE_OK \
	__same_type(&trace_qdisc_dequeue, \
		    void (*)(struct Qdisc *, const struct netdev_queue *, int, \
			     struct sk_buff *))
/*
 * The enqueue (qdisc.c): qdisc:qdisc_enqueue, fired at the end of
 * dev_qdisc_enqueue(skb, q, to_free, txq) in net/core/dev.c, whose entry
 * an ftrace probe takes (probes.c). Both arrived in 5.15; used from 6.1,
 * the first kernel the VM suite runs that has them; 5.10 has neither, and
 * neither is used there (nor on a kernel between). dev_qdisc_enqueue() is
 * static: its arguments cannot be checked at build time. They were read
 * in the source of each line from 6.1 to 7.2, and are checked at run
 * time: an event is written only when the skb, qdisc and queue the entry
 * saw are the tracepoint's (rec_pkt.c, magnet_qdisc_enq_end()).
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 1, 0)
#define MAGNET_HAVE_QDISC_ENQUEUE 1
#define MAGNET_QDISC_ENQUEUE_SIGNATURE_OK \
	__same_type(&trace_qdisc_enqueue, \
		    void (*)(struct Qdisc *, const struct netdev_queue *, \
			     struct sk_buff *))
#else
#define MAGNET_HAVE_QDISC_ENQUEUE 0
#define MAGNET_QDISC_ENQUEUE_SIGNATURE_OK 1
#endif
/*
 * net:net_dev_start_xmit (qdisc.c, events=wire), fired in xmit_one()
 * right after the taps (dev_queue_xmit_nit(): tcpdump) got the packet and
 * before the driver's ndo_start_xmit: the same on every kernel since 4.x
 */
#include <trace/events/net.h>
#define MAGNET_WIRE_OUT_SIGNATURE_OK \
	__same_type(&trace_net_dev_start_xmit, \
		    void (*)(const struct sk_buff *, const struct net_device *))
/* the RTO's and the tail loss probe's functions (probes.c, tcpev.c) */
#define MAGNET_RTO_SIGNATURE_OK \
	__same_type(&tcp_retransmit_timer, void (*)(struct sock *))
#define MAGNET_TLP_SIGNATURE_OK \
	__same_type(&tcp_send_loss_probe, void (*)(struct sock *))
#define MAGNET_SET_STATE_SIGNATURE_OK \
	__same_type(&trace_inet_sock_set_state, \
		    void (*)(const struct sock *, const int, const int))
/*
 * tcp:tcp_cong_state_set (tcpev.c, events=cong), fired in
 * tcp_set_ca_state() before icsk_ca_state changes: Linux 5.15 and later
 * (6.1 here); 5.10 has none, and events=cong is refused there (the
 * tracepoint is not found), where magnet-exp derives the changes from
 * the records' ca_state
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 1, 0)
#define MAGNET_CONG_STATE_SIGNATURE_OK \
	__same_type(&trace_tcp_cong_state_set, \
		    void (*)(struct sock *, const u8))
#else
#define MAGNET_CONG_STATE_SIGNATURE_OK 1
#endif

#if !defined(CONFIG_DYNAMIC_FTRACE_WITH_ARGS) && !defined(CONFIG_DYNAMIC_FTRACE_WITH_REGS)
#error "magnet needs CONFIG_DYNAMIC_FTRACE_WITH_ARGS (or _WITH_REGS)"
#endif

#endif /* MAGNET_COMPAT_H */
