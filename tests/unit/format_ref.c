// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The reference: module/shared/format.c's printf formatters as they stood at
 * a7a0cd0, before emit.h replaced printf there, renamed ref_*. Frozen on
 * purpose: test_format.c holds today's formatters to these bytes. Do not
 * "fix" this file; a change of output is a change of format.
 */
#include <stdio.h>
#include "format.h"
#include "format_ref.h"

static int ref_format_addr(char *buf, size_t size, __u8 family,
		       const __u8 addr[16])
{
	static const char hex[] = "0123456789ABCDEF";
	size_t pos = 0;
	int i;

	if (family == MAGNET_FAMILY_INET)
		return snprintf(buf, size, "%u.%u.%u.%u",
				addr[0], addr[1], addr[2], addr[3]);

	/* 8 groups of 4 uppercase hex digits joined by ':', no compression */
	if (size < 40)
		return snprintf(buf, size, "%s", "");
	for (i = 0; i < 16; i++) {
		buf[pos++] = hex[addr[i] >> 4];
		buf[pos++] = hex[addr[i] & 0xf];
		if ((i & 1) && i != 15)
			buf[pos++] = ':';
	}
	buf[pos] = '\0';
	return (int)pos;
}

static const char *const magnet_event_names[MAGNET_EV_MAX + 1] = {
	[MAGNET_EV_TCP_OUT] = "tcp_out",
	[MAGNET_EV_TCP_IN] = "tcp_in",
	[MAGNET_EV_APP_SEND] = "app_send",
	[MAGNET_EV_APP_RECV] = "app_recv",
	[MAGNET_EV_IP_OUT] = "ip_out",
	[MAGNET_EV_IP_IN] = "ip_in",
	[MAGNET_EV_DEV_OUT] = "dev_out",
	[MAGNET_EV_DEV_IN] = "dev_in",
	[MAGNET_EV_LOST] = "lost",
	[MAGNET_EV_RESET] = "reset",
	[MAGNET_EV_DROP_OUT] = "drop_out",
	[MAGNET_EV_DROP_IN] = "drop_in",
	[MAGNET_EV_RETRANS] = "retrans",
	[MAGNET_EV_RTO] = "rto",
	[MAGNET_EV_TLP] = "tlp",
	[MAGNET_EV_STATE] = "state",
	[MAGNET_EV_QDISC] = "qdisc",
	[MAGNET_EV_QDISC_ENQ] = "qdisc_enq",
	[MAGNET_EV_WIRE_OUT] = "wire_out",
	[MAGNET_EV_CA_STATE] = "cong_state",
	[MAGNET_EV_RCVBUF] = "rcvbuf",
	[MAGNET_EV_RTO_END] = "rto_end",
};

static const char *ref_event_name(unsigned int event)
{
	if (event == 0 || event > MAGNET_EV_MAX)
		return NULL;
	return magnet_event_names[event];
}

static __u64 magnet_wall(const struct magnet_record *r, __s64 offset,
			 __u32 *rem_ns)
{
	return magnet_div_u64_rem(r->ts_ns + (__u64)offset, 1000000000U,
				  rem_ns);
}

int ref_format_ttprobe_with(char *buf, const struct magnet_record *r,
			       __u64 counter, __s64 realtime_offset_ns,
			       __u64 cwnd_bytes, __u64 ssthresh_bytes)
{
	char laddr[40], raddr[40];
	__u32 rem_ns;
	__u64 sec = magnet_wall(r, realtime_offset_ns, &rem_ns);
	char dir;

	switch (r->event) {
	case MAGNET_EV_TCP_OUT:
		dir = 'o';
		break;
	case MAGNET_EV_TCP_IN:
		dir = 'i';
		break;
	default:
		return 0;
	}

	ref_format_addr(laddr, sizeof(laddr), r->family, r->laddr);
	ref_format_addr(raddr, sizeof(raddr), r->family, r->raddr);

	return snprintf(buf, MAGNET_TTPROBE_LINE_MAX,
			"%c,%llu.%06u,%s,%u,%s,%u,%llu,%u,%u,%llu,%llu,%u,%u,%u,%u,%u,%u\n",
			dir, sec, rem_ns / 1000U,
			laddr, r->lport, raddr, r->rport,
			counter, r->mss, r->srtt_us,
			cwnd_bytes, ssthresh_bytes,
			r->snd_wnd, r->rcv_wnd, r->state,
			r->snd_una, r->snd_nxt, r->len);
}

/* bytes of a kernel string field, printable ASCII only, blanks as '_' */
static void magnet_clean_str(char *dst, const char *src, size_t n)
{
	size_t i;

	for (i = 0; i < n && src[i]; i++) {
		unsigned char c = (unsigned char)src[i];

		dst[i] = (c > ' ' && c < 0x7f) ? (char)c : (c == ' ' ? '_' : '?');
	}
	dst[i] = '\0';
}

int ref_format_text(char *buf, const struct magnet_record *r,
		    const struct magnet_v3_rate *x,
		    const struct magnet_v3_drop *drop,
		    const struct magnet_v3_tcpev *ev,
		    const struct magnet_v3_qdisc *qd,
		    const struct magnet_v3_limit *lim,
		    const struct magnet_v3_rcvbuf *rb,
		    const struct magnet_v3_rtoend *re, __u32 netns,
		    __s64 realtime_offset_ns)
{
	const size_t size = MAGNET_TEXT_LINE_MAX;
	const char *name = ref_event_name(r->event);
	char laddr[40] = "", raddr[40] = "";
	char comm[MAGNET_COMM_LEN + 1], ca[MAGNET_CA_NAME_LEN + 1];
	__u32 rem_ns;
	__u64 sec = magnet_wall(r, realtime_offset_ns, &rem_ns);
	int n;

	if (!name)
		return 0;
	n = snprintf(buf, size, "%llu.%09u\t%u\t%s", sec, rem_ns, r->cpu, name);
	if (r->event == MAGNET_EV_LOST || r->event == MAGNET_EV_RESET) {
		int c;

		/* every column empty up to the last, `lost`: the count */
		for (c = 3; c < MAGNET_TEXT_NCOLS - 1; c++)
			buf[n++] = '\t';
		return n + snprintf(buf + n, size - n, "\t%llu\n", r->req);
	}

	if (r->flags & MAGNET_RF_SOCK)
		n += snprintf(buf + n, size - n, "\t%016llx", r->sock_id);
	else
		n += snprintf(buf + n, size - n, "\t");
	ref_format_addr(laddr, sizeof(laddr), r->family, r->laddr);
	ref_format_addr(raddr, sizeof(raddr), r->family, r->raddr);
	n += snprintf(buf + n, size - n, "\t%u\t%s\t%u\t%s\t%u",
		      r->family, laddr, r->lport, raddr, r->rport);
	if (r->flags & MAGNET_RF_SOCK)
		n += snprintf(buf + n, size - n, "\t%u", r->state);
	else
		n += snprintf(buf + n, size - n, "\t");
	n += snprintf(buf + n, size - n, "\t%u", r->len);
	if (r->flags & MAGNET_RF_SEQ)
		n += snprintf(buf + n, size - n, "\t%u\t%u", r->seq, r->end_seq);
	else
		n += snprintf(buf + n, size - n, "\t\t");
	n += snprintf(buf + n, size - n, "\t%u", r->mark);
	if (r->flags & MAGNET_RF_APP) {
		magnet_clean_str(comm, r->comm, MAGNET_COMM_LEN);
		n += snprintf(buf + n, size - n, "\t%u\t%s\t%llu\t%lld",
			      r->pid, comm, r->req, r->ret);
	} else {
		n += snprintf(buf + n, size - n, "\t\t\t\t");
	}
	if (r->flags & MAGNET_RF_TCP) {
		magnet_clean_str(ca, r->ca_name, MAGNET_CA_NAME_LEN);
		n += snprintf(buf + n, size - n,
			      "\t%u\t%u\t%u\t%u\t%u\t%u\t%u\t%u\t%u\t%u\t%u\t%u\t%u\t%u\t%u\t%u\t%s",
			      r->mss, r->srtt_us, r->rttvar_us, r->rto_us,
			      r->cwnd, r->ssthresh, r->snd_wnd, r->rcv_wnd,
			      r->snd_una, r->snd_nxt, r->write_seq,
			      r->copied_seq, r->packets_out, r->retrans_out,
			      r->total_retrans, r->ca_state, ca);
	} else {
		n += snprintf(buf + n, size - n,
			      "\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t");
	}
	if (r->flags & MAGNET_RF_DEV)
		n += snprintf(buf + n, size - n, "\t%u", r->ifindex);
	else
		n += snprintf(buf + n, size - n, "\t");
	if (netns)
		n += snprintf(buf + n, size - n, "\t%u", netns);
	else
		n += snprintf(buf + n, size - n, "\t");
	if (r->flags & MAGNET_RF_IP)
		n += snprintf(buf + n, size - n, "\t%u\t%u\t%u\t%u",
			      r->ip_id, r->ip_tos, r->ip_ttl, r->ip_proto);
	else
		n += snprintf(buf + n, size - n, "\t\t\t\t");
	if (r->flags & MAGNET_RF_TCP)
		n += snprintf(buf + n, size - n,
			      "\t%u\t%u\t%u\t%u\t%llu\t%llu\t%llu\t%llu\t%u\t%u\t%u\t%u\t%u\t%u\t%u",
			      r->segs_out, r->data_segs_out, r->segs_in,
			      r->data_segs_in, r->bytes_sent, r->bytes_received,
			      r->bytes_acked, r->bytes_retrans, r->rcv_nxt,
			      r->min_rtt_us, r->rtt_us, r->advmss,
			      (unsigned int)r->wscale >> 4,
			      (unsigned int)r->wscale & 0xfU, r->opts);
	else
		n += snprintf(buf + n, size - n,
			      "\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t");
	if (x && (r->flags & MAGNET_RF_TCP)) {
		/* tcp_compute_delivery_rate(): u64 arithmetic, wrapping */
		unsigned long long rate = 0;

		if (x->rate_delivered && x->rate_interval_us)
			rate = (unsigned long long)x->rate_delivered * r->mss *
			       1000000ULL / x->rate_interval_us;
		n += snprintf(buf + n, size - n, "\t%llu\t%llu\t%u\t%u\t%u\t%u\t%u",
			      (unsigned long long)x->pacing_rate, rate,
			      x->delivered, x->delivered_ce, x->lost_out,
			      x->sacked_out, x->app_limited);
		if (x->cc_attr == 16)	/* INET_DIAG_BBRINFO */
			n += snprintf(buf + n, size - n, "\t%llu\t%u\t%u\t%u",
				      (unsigned long long)x->cc_info[1] << 32 |
				      x->cc_info[0], x->cc_info[2],
				      x->cc_info[3], x->cc_info[4]);
		else
			n += snprintf(buf + n, size - n, "\t\t\t\t");
	} else {
		n += snprintf(buf + n, size - n, "\t\t\t\t\t\t\t\t\t\t\t");
	}
	if (drop) {
		char reason[33], where[33];

		magnet_clean_str(reason, drop->reason_name, 32);
		magnet_clean_str(where, drop->where, 32);
		if (!reason[0]) {
			if (drop->reason)
				snprintf(reason, sizeof(reason), "%u",
					 drop->reason);
			else
				strcpy(reason, "unknown");
		}
		n += snprintf(buf + n, size - n, "\t%s\t%s", reason, where);
	} else {
		n += snprintf(buf + n, size - n, "\t\t");
	}
	/* prev_state, kind, timeouts */
	if (ev && (r->event == MAGNET_EV_STATE ||
		   r->event == MAGNET_EV_CA_STATE))
		n += snprintf(buf + n, size - n, "\t%u\t\t", ev->prev_state);
	else if (ev && r->event == MAGNET_EV_RETRANS && ev->kind >= 1 &&
		 ev->kind <= 3)
		n += snprintf(buf + n, size - n, "\t\t%s\t",
			      ev->kind == MAGNET_RETRANS_RTO ? "rto" :
			      ev->kind == MAGNET_RETRANS_FAST ? "fast" : "tlp");
	else if (ev && r->event == MAGNET_EV_TLP && ev->kind >= 1 &&
		 ev->kind <= 3)
		n += snprintf(buf + n, size - n, "\t\t%s\t",
			      ev->kind == MAGNET_TLP_NONE ? "none" :
			      ev->kind == MAGNET_TLP_NEW ? "new" : "retrans");
	else if (ev && (r->event == MAGNET_EV_RETRANS ||
			r->event == MAGNET_EV_TLP))
		n += snprintf(buf + n, size - n, "\t\t%u\t", ev->kind);
	else if (ev && r->event == MAGNET_EV_RTO)
		n += snprintf(buf + n, size - n, "\t\t\t%u", ev->timeouts);
	else
		n += snprintf(buf + n, size - n, "\t\t\t");
	/* qdisc, qdisc_handle, qdisc_qlen, qdisc_backlog */
	if (qd && (r->event == MAGNET_EV_QDISC ||
		   r->event == MAGNET_EV_QDISC_ENQ)) {
		char kind[17];

		magnet_clean_str(kind, qd->kind, 16);
		n += snprintf(buf + n, size - n, "\t%s\t%x:%x", kind,
			      qd->handle >> 16, qd->handle & 0xffffU);
		if (qd->qlen != ~0U)
			n += snprintf(buf + n, size - n, "\t%u", qd->qlen);
		else
			n += snprintf(buf + n, size - n, "\t");
		if (qd->backlog != ~0U)
			n += snprintf(buf + n, size - n, "\t%u", qd->backlog);
		else
			n += snprintf(buf + n, size - n, "\t");
	} else {
		n += snprintf(buf + n, size - n, "\t\t\t\t");
	}
	/* chrono .. dsack_dups: tcp_info's µs, as the kernel multiplies */
	if (lim) {
		static const char *const chronos[] = {
			"none", "busy", "rwnd", "sndbuf"
		};
		unsigned long long us = lim->jiffy_us;

		n += snprintf(buf + n, size - n,
			      "\t%s\t%llu\t%llu\t%llu\t%llu\t%u\t%u\t%u",
			      lim->chrono < 4 ? chronos[lim->chrono] : "?",
			      lim->chrono_time * us,
			      ((unsigned long long)lim->busy + lim->rwnd_limited +
			       lim->sndbuf_limited) * us,
			      lim->rwnd_limited * us, lim->sndbuf_limited * us,
			      lim->reordering, lim->reord_seen, lim->dsack_dups);
	} else {
		n += snprintf(buf + n, size - n, "\t\t\t\t\t\t\t\t");
	}
	/* rcvbuf .. rcv_rtt_us: an RCVBUF event's */
	if (rb && r->event == MAGNET_EV_RCVBUF)
		n += snprintf(buf + n, size - n, "\t%u\t%u\t%u\t%u\t%u\t%u\t%u",
			      rb->rcvbuf, rb->rcvbuf_before, rb->window_clamp,
			      rb->window_clamp_before, rb->rcv_ssthresh,
			      rb->space, rb->rcv_rtt_us);
	else
		n += snprintf(buf + n, size - n, "\t\t\t\t\t\t\t");
	/* total_rto, total_rto_recoveries: a TCP event's, where its part
	 * says the kernel keeps them */
	if (ev && ev->rto_totals &&
	    (r->event == MAGNET_EV_RETRANS || r->event == MAGNET_EV_RTO ||
	     r->event == MAGNET_EV_TLP || r->event == MAGNET_EV_STATE ||
	     r->event == MAGNET_EV_CA_STATE))
		n += snprintf(buf + n, size - n, "\t%u\t%u", ev->total_rto,
			      ev->total_rto_recoveries);
	/* an RTO_END event's, from its rtoend part */
	else if (re && r->event == MAGNET_EV_RTO_END)
		n += snprintf(buf + n, size - n, "\t%u\t%u", re->total_rto,
			      re->total_rto_recoveries);
	else
		n += snprintf(buf + n, size - n, "\t\t");
	/* total_rto_time, rto_recovery_ms: an RTO_END event's */
	if (re && r->event == MAGNET_EV_RTO_END)
		n += snprintf(buf + n, size - n, "\t%u\t%u",
			      re->total_rto_time, re->rto_recovery_ms);
	else
		n += snprintf(buf + n, size - n, "\t\t");
	n += snprintf(buf + n, size - n, "\t\n");
	return n;
}

/* the first six web10g columns, as magnet_format_web10g printed them */
int ref_format_web10g_prefix(char *buf, const struct magnet_record *r,
			     __s64 realtime_offset_ns, __u32 cid)
{
	char laddr[40], raddr[40];
	__u32 rem_ns;
	__u64 sec = magnet_wall(r, realtime_offset_ns, &rem_ns);

	ref_format_addr(laddr, sizeof(laddr), r->family, r->laddr);
	ref_format_addr(raddr, sizeof(raddr), r->family, r->raddr);
	return snprintf(buf, MAGNET_WEB10G_LINE_MAX, "%llu.%06u,%u,%s,%u,%s,%u",
			sec, rem_ns / 1000U, cid, laddr, r->lport, raddr,
			r->rport);
}
