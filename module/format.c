// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ttprobe ASCII and magnet text formatting. This file compiles into the
 * kernel module and into the userspace tools, so both produce
 * byte-identical lines.
 */
#include "format.h"

int magnet_format_addr(char *buf, size_t size, __u8 family,
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

static const char *const magnet_event_names[] = {
	[MAGNET_EV_TCP_OUT] = "tcp_out",
	[MAGNET_EV_TCP_IN] = "tcp_in",
	[MAGNET_EV_APP_SEND] = "app_send",
	[MAGNET_EV_APP_RECV] = "app_recv",
	[MAGNET_EV_IP_OUT] = "ip_out",
	[MAGNET_EV_IP_IN] = "ip_in",
	[MAGNET_EV_DEV_OUT] = "dev_out",
	[MAGNET_EV_DEV_IN] = "dev_in",
	[MAGNET_EV_LOST] = "lost",
};

const char *magnet_event_name(unsigned int event)
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

int magnet_format_ttprobe(char *buf, const struct magnet_record *r,
			  __u64 counter, __s64 realtime_offset_ns)
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

	magnet_format_addr(laddr, sizeof(laddr), r->family, r->laddr);
	magnet_format_addr(raddr, sizeof(raddr), r->family, r->raddr);

	return snprintf(buf, MAGNET_TTPROBE_LINE_MAX,
			"%c,%llu.%06u,%s,%u,%s,%u,%llu,%u,%u,%llu,%llu,%u,%u,%u,%u,%u,%u\n",
			dir, sec, rem_ns / 1000U,
			laddr, r->lport, raddr, r->rport,
			counter, r->mss, r->srtt_us,
			(__u64)r->cwnd * r->mss, (__u64)r->ssthresh * r->mss,
			r->snd_wnd, r->rcv_wnd, r->state,
			r->snd_una, r->snd_nxt, r->len);
}

static const char magnet_text_columns[] =
	"time\tcpu\tevent\tsock\tfamily\tladdr\tlport\traddr\trport\tstate"
	"\tlen\tseq\tend_seq\tmark\tpid\tcomm\treq\tret"
	"\tmss\tsrtt_us\trttvar_us\trto_us\tcwnd\tssthresh\tsnd_wnd\trcv_wnd"
	"\tsnd_una\tsnd_nxt\twrite_seq\tcopied_seq\tpackets_out\tretrans_out"
	"\ttotal_retrans\tca_state\tca_name\tifindex\tip_id\tip_tos\tip_ttl"
	"\tip_proto\tlost\n";

int magnet_format_text_header(char *buf)
{
	return snprintf(buf, MAGNET_TEXT_LINE_MAX, "%s", magnet_text_columns);
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

int magnet_format_text(char *buf, const struct magnet_record *r,
		       __s64 realtime_offset_ns)
{
	const size_t size = MAGNET_TEXT_LINE_MAX;
	const char *name = magnet_event_name(r->event);
	char laddr[40] = "", raddr[40] = "";
	char comm[MAGNET_COMM_LEN + 1], ca[MAGNET_CA_NAME_LEN + 1];
	__u32 rem_ns;
	__u64 sec = magnet_wall(r, realtime_offset_ns, &rem_ns);
	int n;

	if (!name)
		return 0;
	n = snprintf(buf, size, "%llu.%09u\t%u\t%s", sec, rem_ns, r->cpu, name);
	if (r->event == MAGNET_EV_LOST)
		return n + snprintf(buf + n, size - n, "%s\t%llu\n",
				    "\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t"
				    "\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t",
				    r->req);

	if (r->flags & MAGNET_RF_SOCK)
		n += snprintf(buf + n, size - n, "\t%016llx", r->sock_id);
	else
		n += snprintf(buf + n, size - n, "\t");
	magnet_format_addr(laddr, sizeof(laddr), r->family, r->laddr);
	magnet_format_addr(raddr, sizeof(raddr), r->family, r->raddr);
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
	if (r->flags & MAGNET_RF_IP)
		n += snprintf(buf + n, size - n, "\t%u\t%u\t%u\t%u",
			      r->ip_id, r->ip_tos, r->ip_ttl, r->ip_proto);
	else
		n += snprintf(buf + n, size - n, "\t\t\t\t");
	n += snprintf(buf + n, size - n, "\t\n");
	return n;
}
