// SPDX-License-Identifier: GPL-2.0
/*
 * Probe handlers: TCP segment transmit and receive.
 *
 * Each probe point is resolved on the running kernel from a list of candidate
 * functions and attached with ftrace at the function's entry. A handler decides every filter (port, fwmark, cwnd change) from
 * the socket before it reserves a ring slot, then fills the slot in place
 * with local interrupts off. It never sleeps, allocates or takes a lock.
 */
#include <linux/kprobes.h>
#include <linux/ftrace.h>
#include <linux/kallsyms.h>
#include <linux/siphash.h>
#include <linux/random.h>
#include <linux/if_ether.h>
#include <net/sock.h>
#include <net/tcp.h>
#include <net/inet_sock.h>
#include <net/ipv6.h>
#include "compat.h"
#include "magnet.h"
#include "ring.h"

static siphash_key_t magnet_sock_key __read_mostly;

/*
 * full=0: last cwnd (bytes) seen per socket. A slot holds a 32-bit tag of
 * the socket and the cwnd; a collision can only cause an extra line, never
 * hide a change. Written only when cwnd changed, so mostly read-shared.
 */
#define MAGNET_CWND_SLOTS_BITS 12
static u64 magnet_cwnd_seen[1 << MAGNET_CWND_SLOTS_BITS];

static bool notrace magnet_cwnd_changed(const struct sock *sk, u32 cwnd_bytes)
{
	u64 h = (u64)(unsigned long)sk * GOLDEN_RATIO_64;
	u64 *slot = &magnet_cwnd_seen[h >> (64 - MAGNET_CWND_SLOTS_BITS)];
	u64 v = (h << 32) | cwnd_bytes;

	if (READ_ONCE(*slot) == v)
		return false;
	WRITE_ONCE(*slot, v);
	return true;
}
NOKPROBE_SYMBOL(magnet_cwnd_changed);

static void notrace magnet_fill_addrs(struct magnet_record *rec, const struct sock *sk)
{
#if IS_ENABLED(CONFIG_IPV6)
	if (sk->sk_family == AF_INET6 &&
	    !ipv6_addr_v4mapped(&sk->sk_v6_daddr)) {
		rec->family = MAGNET_FAMILY_INET6;
		memcpy(rec->laddr, &sk->sk_v6_rcv_saddr, 16);
		memcpy(rec->raddr, &sk->sk_v6_daddr, 16);
		return;
	}
#endif
	/* AF_INET, or an IPv6 socket talking to an IPv4 peer */
	rec->family = MAGNET_FAMILY_INET;
	memset(rec->laddr, 0, sizeof(rec->laddr));
	memset(rec->raddr, 0, sizeof(rec->raddr));
	memcpy(rec->laddr, &sk->sk_rcv_saddr, 4);
	memcpy(rec->raddr, &sk->sk_daddr, 4);
}
NOKPROBE_SYMBOL(magnet_fill_addrs);

static void notrace magnet_record_tcp(struct sock *sk, const struct sk_buff *skb,
			      u16 event)
{
	const struct magnet_config *cfg = &magnet_cfg;
	const struct tcp_sock *tp;
	struct magnet_record *rec;
	struct magnet_ring *ring;
	unsigned long flags;
	u16 lport, rport;
	u32 mark;

	if (unlikely(!sk || !skb || !sk_fullsock(sk)))
		return;

	/* filters first: nothing is copied for a segment we do not keep */
	lport = ntohs(inet_sk(sk)->inet_sport);
	rport = ntohs(sk->sk_dport);
	if (cfg->port && lport != cfg->port && rport != cfg->port)
		return;
	mark = event == MAGNET_EV_TCP_OUT ? READ_ONCE(sk->sk_mark) : skb->mark;
	if (cfg->fwmark && mark != cfg->fwmark)
		return;
	tp = tcp_sk(sk);
	if (!cfg->full &&
	    !magnet_cwnd_changed(sk, tcp_snd_cwnd(tp) * tp->mss_cache))
		return;

	local_irq_save(flags);
	ring = this_cpu_ptr(magnet_rings);
	rec = magnet_ring_reserve(ring);
	if (likely(rec)) {
		rec->ts_ns = ktime_get_mono_fast_ns();
		rec->sock_id = siphash_1u64((u64)(unsigned long)sk,
					    &magnet_sock_key);
		rec->event = event;
		rec->cpu = smp_processor_id();
		rec->state = READ_ONCE(sk->sk_state);
		rec->reserved0 = 0;
		rec->lport = lport;
		rec->rport = rport;
		rec->len = skb->len;
		magnet_fill_addrs(rec, sk);
		rec->mss = tp->mss_cache;
		rec->srtt_us = tp->srtt_us >> 3;
		rec->rttvar_us = tp->mdev_us >> 2;
		rec->cwnd = tcp_snd_cwnd(tp);
		rec->ssthresh = tp->snd_ssthresh;
		rec->snd_wnd = tp->snd_wnd;
		rec->rcv_wnd = tp->rcv_wnd;
		rec->snd_una = tp->snd_una;
		rec->snd_nxt = tp->snd_nxt;
		rec->seq = TCP_SKB_CB(skb)->seq;
		rec->end_seq = TCP_SKB_CB(skb)->end_seq;
		rec->mark = mark;
		rec->packets_out = tp->packets_out;
		rec->retrans_out = tp->retrans_out;
		rec->total_retrans = tp->total_retrans;
		rec->reserved1 = 0;
		magnet_ring_commit(ring);
	}
	local_irq_restore(flags);
}
NOKPROBE_SYMBOL(magnet_record_tcp);

/*
 * The handlers are ftrace callbacks on the probed functions' entry. Unlike a
 * kprobe, which is dropped (nmissed) whenever any kprobe is already running
 * on the CPU, ftrace's recursion guard is per context: a softirq that
 * interrupts a handler in task context records its own event. A miss is
 * left only for true same-context recursion, and is counted.
 */
#define MAGNET_HANDLER(name, event, skip)                                    \
static void notrace name(unsigned long ip, unsigned long parent_ip,          \
			 struct ftrace_ops *op, struct ftrace_regs *fregs)   \
{                                                                            \
	struct sock *sk = (struct sock *)magnet_ftrace_arg(fregs, 0);        \
	struct sk_buff *skb = (struct sk_buff *)magnet_ftrace_arg(fregs, 1); \
	int bit = ftrace_test_recursion_trylock(ip, parent_ip);              \
									     \
	if (unlikely(bit < 0)) {                                             \
		magnet_probe_missed(op);                                     \
		return;                                                      \
	}                                                                    \
	if (!(skip))                                                         \
		magnet_record_tcp(sk, skb, event);                           \
	ftrace_test_recursion_unlock(bit);                                   \
}                                                                            \
NOKPROBE_SYMBOL(name)

struct magnet_probe {
	const char *what;
	const char *const *candidates;
	ftrace_func_t handler;
	unsigned int direction;		/* MAGNET_DIR_OUT or MAGNET_DIR_IN */
	bool optional;			/* IPv6 may be absent */
	bool registered;
	const char *chosen;		/* the candidate in use */
	atomic_long_t missed;
	struct ftrace_ops ops;
};

static void notrace magnet_probe_missed(struct ftrace_ops *op)
{
	atomic_long_inc(&container_of(op, struct magnet_probe, ops)->missed);
}
NOKPROBE_SYMBOL(magnet_probe_missed);

/* __tcp_transmit_skb(struct sock *sk, struct sk_buff *skb, ...) */
MAGNET_HANDLER(magnet_tcp_out, MAGNET_EV_TCP_OUT, false);
/* tcp_v4_do_rcv(struct sock *sk, struct sk_buff *skb) */
MAGNET_HANDLER(magnet_tcp_v4_in, MAGNET_EV_TCP_IN, false);
/*
 * tcp_v6_do_rcv(struct sock *sk, struct sk_buff *skb). An IPv4 segment on an
 * IPv6 socket is handed on to tcp_v4_do_rcv, whose handler records it.
 */
MAGNET_HANDLER(magnet_tcp_v6_in, MAGNET_EV_TCP_IN,
	       skb && skb->protocol == htons(ETH_P_IP));

static const char *const magnet_tcp_out_syms[] = {
	"__tcp_transmit_skb", "tcp_transmit_skb", NULL
};
static const char *const magnet_tcp_v4_in_syms[] = { "tcp_v4_do_rcv", NULL };
static const char *const magnet_tcp_v6_in_syms[] = { "tcp_v6_do_rcv", NULL };

static struct magnet_probe magnet_probes[] = {
	{ "TCP transmit", magnet_tcp_out_syms, magnet_tcp_out,
	  MAGNET_DIR_OUT, false },
	{ "TCP/IPv4 receive", magnet_tcp_v4_in_syms, magnet_tcp_v4_in,
	  MAGNET_DIR_IN, false },
	{ "TCP/IPv6 receive", magnet_tcp_v6_in_syms, magnet_tcp_v6_in,
	  MAGNET_DIR_IN, true },
};

static int magnet_probe_attach(struct magnet_probe *p, const char *sym)
{
	char name[KSYM_NAME_LEN];
	int ret;

	strscpy(name, sym, sizeof(name));
	memset(&p->ops, 0, sizeof(p->ops));
	p->ops.func = p->handler;
	ret = ftrace_set_filter(&p->ops, name, strlen(name), 1);
	if (!ret)
		ret = register_ftrace_function(&p->ops);
	if (ret)
		ftrace_free_filter(&p->ops);
	return ret;
}

static int magnet_probe_register(struct magnet_probe *p)
{
	const char *const *sym;
	int ret = -ENOENT;

	for (sym = p->candidates; *sym; sym++) {
		ret = magnet_probe_attach(p, *sym);
		if (!ret) {
			p->registered = true;
			p->chosen = *sym;
			pr_debug("%s: probing %s\n", p->what, *sym);
			return 0;
		}
	}
	if (p->optional) {
		pr_warn("%s: no probe point (last error %d); not recorded\n",
			p->what, ret);
		return 0;
	}
	pr_err("%s: none of the candidate functions can be probed on this kernel (first tried %s, last error %d)\n",
	       p->what, p->candidates[0], ret);
	return ret;
}

int magnet_probes_register(void)
{
	size_t i;
	int ret;

	/* fail the build if a probed function's signature changes */
	BUILD_BUG_ON(!__same_type(&tcp_v4_do_rcv,
				  int (*)(struct sock *, struct sk_buff *)));

	get_random_bytes(&magnet_sock_key, sizeof(magnet_sock_key));

	for (i = 0; i < ARRAY_SIZE(magnet_probes); i++) {
		struct magnet_probe *p = &magnet_probes[i];

		if (magnet_cfg.direction != MAGNET_DIR_BOTH &&
		    magnet_cfg.direction != p->direction)
			continue;
		ret = magnet_probe_register(p);
		if (ret) {
			magnet_probes_unregister();
			return ret;
		}
	}
	return 0;
}

/* Returns once no handler runs any more on any CPU. */
void magnet_probes_unregister(void)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(magnet_probes); i++) {
		struct magnet_probe *p = &magnet_probes[i];

		if (!p->registered)
			continue;
		unregister_ftrace_function(&p->ops);
		ftrace_free_filter(&p->ops);
		p->registered = false;
	}
}

unsigned long magnet_probes_nmissed(void)
{
	unsigned long n = 0;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(magnet_probes); i++)
		n += atomic_long_read(&magnet_probes[i].missed);
	return n;
}
