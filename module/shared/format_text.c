// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The magnet text (omode=3, ttpb2ascii -f magnet): a tab-separated line per
 * record, its columns format.h's MAGNET_TEXT_COLUMNS. Kernel rules apply:
 * no allocation, no floating point, small stack frames.
 */
#include "format_common.h"
#include "v3.h"

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

/* struct magnet_v3_tcpev's kind: of a RETRANS event, of a TLP event */
static const char *const magnet_kinds[2][4] = {
	{ [MAGNET_RETRANS_RTO] = "rto", [MAGNET_RETRANS_FAST] = "fast",
	  [MAGNET_RETRANS_TLP] = "tlp" },
	{ [MAGNET_TLP_NONE] = "none", [MAGNET_TLP_NEW] = "new",
	  [MAGNET_TLP_RETRANS] = "retrans" },
};

const char *magnet_event_name(unsigned int event)
{
	if (event == 0 || event > MAGNET_EV_MAX)
		return NULL;
	return magnet_event_names[event];
}

/* a column's name in the header, after a tab */
#define MAGNET_TEXT_NAME(type, name, dims, kind) "\t" #name

/* "\ttime\tcpu...\tlost\n": the header follows its first tab */
static const char magnet_text_columns[] =
	MAGNET_TEXT_COLUMNS(MAGNET_TEXT_NAME) "\n";

int magnet_format_text_header(char *buf)
{
	return snprintf(buf, MAGNET_TEXT_LINE_MAX, "%s",
			magnet_text_columns + 1);
}

/* a kernel string field of at most @n bytes: printable ASCII, blanks as
 * '_', anything else as '?' */
static char *magnet_put_clean(char *p, const char *src, size_t n)
{
	size_t i;

	for (i = 0; i < n && src[i]; i++) {
		unsigned char c = (unsigned char)src[i];

		*p++ = (c > ' ' && c < 0x7f) ? (char)c : (c == ' ' ? '_' : '?');
	}
	return p;
}

/* @n tabs: the empty columns of what a record does not carry */
static char *magnet_put_tabs(char *p, int n)
{
	while (n-- > 0)
		*p++ = '\t';
	return p;
}

/* "\t" and @v: one column */
#define MAGNET_COL_U32(p, v) (*(p)++ = '\t', (p) = magnet_put_u32((p), (v)))
#define MAGNET_COL_U64(p, v) (*(p)++ = '\t', (p) = magnet_put_u64((p), (v)))

/*
 * The column of record field @name, a schema.h entry (MAGNET_V2_SNAP,
 * MAGNET_V2_CONN), in decimal by its type: an entry of another type has
 * no column macro, and does not compile.
 */
#define MAGNET_TEXT_COL___u16(p, v) MAGNET_COL_U32(p, v)
#define MAGNET_TEXT_COL___u32(p, v) MAGNET_COL_U32(p, v)
#define MAGNET_TEXT_COL___u64(p, v) MAGNET_COL_U64(p, v)
#define MAGNET_TEXT_FIELD_COL(type, name, dims, kind)			\
	MAGNET_TEXT_COL_##type(p, r->name);

/*
 * tcp_info's tcpi_delivery_rate from a rate part, the kernel's arithmetic
 * (tcp_compute_delivery_rate(): u64, wrapping alike): bytes/s
 */
__u64 magnet_delivery_rate(const struct magnet_v3_rate *x, __u32 mss)
{
	__u32 rem;

	if (!x->rate_delivered || !x->rate_interval_us)
		return 0;
	return magnet_div_u64_rem((__u64)x->rate_delivered * mss * 1000000U,
				  x->rate_interval_us, &rem);
}

/* the limit part's chrono, by the kernel's enum tcp_chrono */
static const char *const magnet_chronos[4] = {
	"none", "busy", "rwnd", "sndbuf"
};

/* a TCP event: one whose record has the TCP event part */
static int magnet_is_tcpev(unsigned int event)
{
	return event == MAGNET_EV_RETRANS || event == MAGNET_EV_RTO ||
	       event == MAGNET_EV_TLP || event == MAGNET_EV_STATE ||
	       event == MAGNET_EV_CA_STATE;
}

/* tcp_bbr_info's attribute (INET_DIAG_BBRINFO) */
#define MAGNET_CC_BBR 16

/*
 * One line of magnet's own text format: MAGNET_TEXT_NCOLS tab-separated
 * columns, as format.h's MAGNET_TEXT_COLUMNS lists them. The widest line
 * (every field at its widest, IPv6, 16-byte comm and ca_name, a BBR rate
 * part, a netns, a drop part with 31-byte names, a TCP event part, a
 * qdisc part, a limit part, an rcvbuf part; an rtoend part's columns,
 * empty there) is 1062 bytes (test_format checks);
 * MAGNET_TEXT_LINE_MAX is 1152.
 */
int magnet_format_text(char *buf, const struct magnet_record *r,
		       const struct magnet_v3_rate *rate,
		       const struct magnet_v3_drop *drop,
		       const struct magnet_v3_tcpev *ev,
		       const struct magnet_v3_qdisc *qd,
		       const struct magnet_v3_limit *lim,
		       const struct magnet_v3_rcvbuf *rb,
		       const struct magnet_v3_rtoend *re, __u32 netns,
		       __s64 realtime_offset_ns)
{
	const char *name = magnet_event_name(r->event);
	__u32 rem_ns;
	__u64 sec;
	char *p = buf;

	if (!name)
		return 0;
	sec = magnet_wall(r->ts_ns, realtime_offset_ns, &rem_ns);
	p = magnet_put_u64(p, sec);
	*p++ = '.';
	p = magnet_put_u32_pad(p, rem_ns, 9);
	MAGNET_COL_U32(p, r->cpu);
	*p++ = '\t';
	p = magnet_put_str(p, name);
	if (r->event == MAGNET_EV_LOST || r->event == MAGNET_EV_RESET) {
		/*
		 * every column empty but the last, `lost`: the count; and a
		 * LOST record's probe misses, if any, in `ret`
		 */
		if (r->event == MAGNET_EV_LOST && r->ret) {
			p = magnet_put_tabs(p, MAGNET_TEXT_COL_RET - 4);
			MAGNET_COL_U64(p, (__u64)r->ret);
			p = magnet_put_tabs(p, MAGNET_TEXT_NCOLS -
					     MAGNET_TEXT_COL_RET - 1);
		} else {
			p = magnet_put_tabs(p, MAGNET_TEXT_NCOLS - 4);
		}
		MAGNET_COL_U64(p, r->req);
		goto out;
	}

	*p++ = '\t';
	if (r->flags & MAGNET_RF_SOCK)
		p = magnet_put_hex64(p, r->sock_id);
	MAGNET_COL_U32(p, r->family);
	*p++ = '\t';
	p = magnet_put_addr(p, r->family, r->laddr);
	MAGNET_COL_U32(p, r->lport);
	*p++ = '\t';
	p = magnet_put_addr(p, r->family, r->raddr);
	MAGNET_COL_U32(p, r->rport);
	if (r->flags & MAGNET_RF_SOCK)
		MAGNET_COL_U32(p, r->state);
	else
		*p++ = '\t';
	MAGNET_COL_U32(p, r->len);
	if (r->flags & MAGNET_RF_SEQ) {
		MAGNET_COL_U32(p, r->seq);
		MAGNET_COL_U32(p, r->end_seq);
	} else {
		p = magnet_put_tabs(p, MAGNET_TEXT_N(MAGNET_TEXT_COLS_SEQ));
	}
	MAGNET_COL_U32(p, r->mark);
	if (r->flags & MAGNET_RF_APP) {
		MAGNET_COL_U32(p, r->pid);
		*p++ = '\t';
		p = magnet_put_clean(p, r->comm, MAGNET_COMM_LEN);
		MAGNET_COL_U64(p, r->req);
		*p++ = '\t';
		p = magnet_put_s64(p, r->ret);
	} else {
		p = magnet_put_tabs(p, MAGNET_TEXT_N(MAGNET_TEXT_COLS_APP));
	}
	if (r->flags & MAGNET_RF_TCP) {
		MAGNET_V2_SNAP(MAGNET_TEXT_FIELD_COL)
		MAGNET_COL_U32(p, r->ca_state);
		*p++ = '\t';
		p = magnet_put_clean(p, r->ca_name, MAGNET_CA_NAME_LEN);
	} else {
		p = magnet_put_tabs(p, MAGNET_TEXT_N(MAGNET_V2_SNAP) +
				     MAGNET_TEXT_N(MAGNET_TEXT_COLS_CA));
	}
	if (r->flags & MAGNET_RF_DEV)
		MAGNET_COL_U32(p, r->ifindex);
	else
		*p++ = '\t';
	if (netns)
		MAGNET_COL_U32(p, netns);
	else
		*p++ = '\t';
	if (r->flags & MAGNET_RF_IP) {
		MAGNET_COL_U32(p, r->ip_id);
		MAGNET_COL_U32(p, r->ip_tos);
		MAGNET_COL_U32(p, r->ip_ttl);
		MAGNET_COL_U32(p, r->ip_proto);
	} else {
		p = magnet_put_tabs(p, MAGNET_TEXT_N(MAGNET_TEXT_COLS_IP));
	}
	if (r->flags & MAGNET_RF_TCP) {
		MAGNET_V2_CONN(MAGNET_TEXT_FIELD_COL)
		MAGNET_COL_U32(p, (unsigned int)r->wscale >> 4);
		MAGNET_COL_U32(p, (unsigned int)r->wscale & 0xfU);
		MAGNET_COL_U32(p, r->opts);
	} else {
		p = magnet_put_tabs(p, MAGNET_TEXT_N(MAGNET_TEXT_COLS_TCP));
	}
	if (rate && (r->flags & MAGNET_RF_TCP)) {
		MAGNET_COL_U64(p, rate->pacing_rate);
		MAGNET_COL_U64(p, magnet_delivery_rate(rate, r->mss));
		MAGNET_COL_U32(p, rate->delivered);
		MAGNET_COL_U32(p, rate->delivered_ce);
		MAGNET_COL_U32(p, rate->lost_out);
		MAGNET_COL_U32(p, rate->sacked_out);
		MAGNET_COL_U32(p, rate->app_limited);
		if (rate->cc_attr == MAGNET_CC_BBR) {
			/* schema.h's MAGNET_V3_BBR_BW as one number, then
			 * MAGNET_V3_BBR_WORDS a column each (record.h
			 * asserts they are cc_info's five words) */
			MAGNET_COL_U64(p, (__u64)rate->cc_info[1] << 32 |
					  rate->cc_info[0]);
			MAGNET_COL_U32(p, rate->cc_info[2]);
			MAGNET_COL_U32(p, rate->cc_info[3]);
			MAGNET_COL_U32(p, rate->cc_info[4]);
		} else {
			p = magnet_put_tabs(p,
					     MAGNET_TEXT_N(MAGNET_TEXT_COLS_BBR));
		}
	} else {
		p = magnet_put_tabs(p, MAGNET_TEXT_N(MAGNET_TEXT_COLS_RATE) +
				     MAGNET_TEXT_N(MAGNET_TEXT_COLS_BBR));
	}
	if (drop) {
		*p++ = '\t';
		if (drop->reason_name[0])
			p = magnet_put_clean(p, drop->reason_name,
					     sizeof(drop->reason_name));
		else if (drop->reason)
			p = magnet_put_u32(p, drop->reason);
		else
			p = magnet_put_str(p, "unknown");
		*p++ = '\t';
		p = magnet_put_clean(p, drop->where, sizeof(drop->where));
	} else {
		p = magnet_put_tabs(p, MAGNET_TEXT_N(MAGNET_TEXT_COLS_DROP));
	}
	if (ev && (r->event == MAGNET_EV_STATE ||
		   r->event == MAGNET_EV_CA_STATE))
		MAGNET_COL_U32(p, ev->prev_state);
	else
		*p++ = '\t';
	*p++ = '\t';
	if (ev && (r->event == MAGNET_EV_RETRANS ||
		   r->event == MAGNET_EV_TLP)) {
		const char *k = ev->kind < 4 ?
			magnet_kinds[r->event == MAGNET_EV_TLP][ev->kind] : NULL;

		if (k)
			p = magnet_put_str(p, k);
		else
			p = magnet_put_u32(p, ev->kind);
	}
	if (ev && r->event == MAGNET_EV_RTO)
		MAGNET_COL_U32(p, ev->timeouts);
	else
		*p++ = '\t';
	if (qd && (r->event == MAGNET_EV_QDISC ||
		   r->event == MAGNET_EV_QDISC_ENQ)) {
		*p++ = '\t';
		p = magnet_put_clean(p, qd->kind, sizeof(qd->kind));
		*p++ = '\t';
		p = magnet_put_hex(p, qd->handle >> 16);
		*p++ = ':';
		p = magnet_put_hex(p, qd->handle & 0xffffU);
		if (qd->qlen != ~0U)
			MAGNET_COL_U32(p, qd->qlen);
		else
			*p++ = '\t';
		if (qd->backlog != ~0U)
			MAGNET_COL_U32(p, qd->backlog);
		else
			*p++ = '\t';
	} else {
		p = magnet_put_tabs(p, MAGNET_TEXT_N(MAGNET_TEXT_COLS_QDISC));
	}
	if (lim) {
		*p++ = '\t';
		p = magnet_put_str(p, lim->chrono < 4 ?
				   magnet_chronos[lim->chrono] : "?");
		MAGNET_COL_U64(p, (__u64)lim->chrono_time * lim->jiffy_us);
		MAGNET_COL_U64(p, ((__u64)lim->busy + lim->rwnd_limited +
				   lim->sndbuf_limited) * lim->jiffy_us);
		MAGNET_COL_U64(p, (__u64)lim->rwnd_limited * lim->jiffy_us);
		MAGNET_COL_U64(p, (__u64)lim->sndbuf_limited * lim->jiffy_us);
		MAGNET_COL_U32(p, lim->reordering);
		MAGNET_COL_U32(p, lim->reord_seen);
		MAGNET_COL_U32(p, lim->dsack_dups);
	} else {
		p = magnet_put_tabs(p, MAGNET_TEXT_N(MAGNET_TEXT_COLS_LIMIT));
	}
	if (rb && r->event == MAGNET_EV_RCVBUF) {
		MAGNET_COL_U32(p, rb->rcvbuf);
		MAGNET_COL_U32(p, rb->rcvbuf_before);
		MAGNET_COL_U32(p, rb->window_clamp);
		MAGNET_COL_U32(p, rb->window_clamp_before);
		MAGNET_COL_U32(p, rb->rcv_ssthresh);
		MAGNET_COL_U32(p, rb->space);
		MAGNET_COL_U32(p, rb->rcv_rtt_us);
	} else {
		p = magnet_put_tabs(p, MAGNET_TEXT_N(MAGNET_TEXT_COLS_RCVBUF));
	}
	/* an RTO_END event's rtoend part: the RTO totals and its times */
	if (r->event != MAGNET_EV_RTO_END)
		re = NULL;
	if (ev && ev->rto_totals && magnet_is_tcpev(r->event)) {
		MAGNET_COL_U32(p, ev->total_rto);
		MAGNET_COL_U32(p, ev->total_rto_recoveries);
	} else if (re) {
		MAGNET_COL_U32(p, re->total_rto);
		MAGNET_COL_U32(p, re->total_rto_recoveries);
	} else {
		p = magnet_put_tabs(p, MAGNET_TEXT_N(MAGNET_TEXT_COLS_RTO));
	}
	if (re) {
		MAGNET_COL_U32(p, re->total_rto_time);
		MAGNET_COL_U32(p, re->rto_recovery_ms);
	} else {
		p = magnet_put_tabs(p, MAGNET_TEXT_N(MAGNET_TEXT_COLS_RTOEND));
	}
	*p++ = '\t';
out:
	*p++ = '\n';
	*p = '\0';
	return (int)(p - buf);
}
