// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * pcapw: magnet records as pcapng or classic pcap packets (pcapw.h).
 *
 * pcapng (draft-ietf-opsawg-pcapng): a section header block, an interface
 * description block per interface before its first packet, an enhanced
 * packet block per packet, interface statistics blocks at the end; all in
 * the writer's byte order, which the section header's byte-order magic
 * tells readers.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "pcapw.h"

#define LINKTYPE_RAW 101
/* Wireshark's exported PDU: tags, then the bytes a named dissector gets */
#define LINKTYPE_WIRESHARK_UPPER_PDU 252
#define EXP_PDU_TAG_DISSECTOR_NAME 12

/* pcapng block types and options */
#define BT_SHB 0x0A0D0D0AU
#define BT_IDB 0x00000001U
#define BT_ISB 0x00000005U
#define BT_EPB 0x00000006U
#define OPT_END 0
#define OPT_COMMENT 1
#define SHB_OS 3
#define SHB_USERAPPL 4
#define IF_NAME 2
#define IF_DESCRIPTION 3
#define IF_TSRESOL 9
#define EPB_FLAGS 2
#define EPB_DROPCOUNT 4
#define ISB_STARTTIME 2
#define ISB_ENDTIME 3
#define ISB_IFRECV 4

struct pcapw_flow {
	int used;
	__u32 netns;		/* the namespace it is in (0: unknown) */
	struct magnet_record r;	/* the latest TCP-layer or app record */
	/* its rate and limit parts, if it had them */
	int has_rate, has_lim;
	struct magnet_v3_rate rate;
	struct magnet_v3_limit lim;
	/* the socket's last application call: its pid and command */
	int has_owner;
	__u32 pid;
	char comm[MAGNET_COMM_LEN];
};

/* ---- writing into the block buffer ---- */

static char *put32(char *p, __u32 v)
{
	memcpy(p, &v, 4);
	return p + 4;
}

static char *put16(char *p, __u16 v)
{
	memcpy(p, &v, 2);
	return p + 2;
}

static char *put64(char *p, __u64 v)
{
	memcpy(p, &v, 8);
	return p + 8;
}

/* a pcapng option, padded to 32 bits */
static char *put_opt(char *p, __u16 code, const void *val, size_t len)
{
	p = put16(p, code);
	p = put16(p, (__u16)len);
	if (len)
		memcpy(p, val, len);
	p += len;
	while (len++ % 4)
		*p++ = 0;
	return p;
}

static char *put_opt_str(char *p, __u16 code, const char *s)
{
	return put_opt(p, code, s, strlen(s));
}

/* the block's total length, at its start and at its end */
static int end_block(char *start, char *p)
{
	__u32 len = (__u32)(p - start) + 4;

	memcpy(start + 4, &len, 4);
	put32(p, len);
	return (int)len;
}

/* a string field of at most @n bytes as the magnet text writes one:
 * printable ASCII, blanks as '_', anything else as '?' */
static void clean(char *dst, const char *src, size_t n)
{
	size_t i;

	for (i = 0; i < n && src[i]; i++) {
		unsigned char c = (unsigned char)src[i];

		dst[i] = c > ' ' && c < 0x7f ? (char)c : c == ' ' ? '_' : '?';
	}
	dst[i] = '\0';
}

/* ---- the flow table: the latest TCP snapshot per connection end ---- */

static int same_flow(const struct magnet_record *a,
		     const struct magnet_record *b)
{
	return a->family == b->family && a->lport == b->lport &&
	       a->rport == b->rport && !memcmp(a->laddr, b->laddr, 16) &&
	       !memcmp(a->raddr, b->raddr, 16);
}

static struct pcapw_flow *flow_find(struct pcapw *w,
				    const struct magnet_record *r, __u32 netns)
{
	size_t i;

	if (!w->flow_cap)
		return NULL;
	for (i = (magnet_flow_key(r) ^ netns * 0x9e3779b1U) &
		 (w->flow_cap - 1);; i = (i + 1) & (w->flow_cap - 1)) {
		struct pcapw_flow *f = &w->flows[i];

		if (!f->used || (f->netns == netns && same_flow(&f->r, r)))
			return f;
	}
}

static int flow_grow(struct pcapw *w)
{
	size_t cap = w->flow_cap ? w->flow_cap * 2 : 256, i;
	struct pcapw_flow *old = w->flows, *f;
	size_t old_cap = w->flow_cap;

	w->flows = calloc(cap, sizeof(*w->flows));
	if (!w->flows) {
		w->flows = old;
		return -1;
	}
	w->flow_cap = cap;
	for (i = 0; i < old_cap; i++) {
		if (!old[i].used)
			continue;
		f = flow_find(w, &old[i].r, old[i].netns);
		*f = old[i];
	}
	free(old);
	return 0;
}

static int flow_update(struct pcapw *w, const struct magnet_record *r,
		       const struct pcapw_parts *parts, __u32 netns)
{
	struct pcapw_flow *f;

	if ((w->flow_used + 1) * 2 > w->flow_cap && flow_grow(w))
		return -1;
	f = flow_find(w, r, netns);
	if (!f->used) {
		f->used = 1;
		f->netns = netns;
		w->flow_used++;
	}
	f->r = *r;
	f->has_rate = parts && parts->rate;
	if (f->has_rate)
		f->rate = *parts->rate;
	f->has_lim = parts && parts->lim;
	if (f->has_lim)
		f->lim = *parts->lim;
	if (r->flags & MAGNET_RF_APP) {
		f->has_owner = 1;
		f->pid = r->pid;
		memcpy(f->comm, r->comm, sizeof(f->comm));
	}
	return 0;
}

/* ---- the blocks ---- */

static void extra_index(int *ix);

int pcapw_begin(struct pcapw *w, enum pcapw_format fmt, unsigned int layers,
		unsigned int dirs, const struct magnet_sysinfo *si,
		const char *appname, char *buf)
{
	char *p = buf, tmp[160], rel[sizeof(si->release)];

	memset(w, 0, sizeof(*w));
	extra_index(w->extra_ix);
	w->last_if = -1;
	w->fmt = fmt;
	w->layers = layers;
	w->dirs = dirs;
	w->rt_off = si->realtime_offset_ns;
	/* a device's packets going out: where it hands them to its driver
	 * (WIRE_OUT, events=wire), if the log has them, else where it takes
	 * them in, before its qdisc (DEV_OUT) */
	w->wire = si->version == MAGNET_FORMAT_VERSION_V3 &&
		  (si->events & MAGNET_LAYER_WIRE);
	if (fmt != PCAPW_NG) {
		p = put32(p, fmt == PCAPW_NS ? 0xa1b23c4dU : 0xa1b2c3d4U);
		p = put16(p, 2);
		p = put16(p, 4);
		p = put32(p, 0);	/* thiszone */
		p = put32(p, 0);	/* sigfigs */
		p = put32(p, PCAPW_SNAPLEN);
		p = put32(p, LINKTYPE_RAW);
		return (int)(p - buf);
	}
	p = put32(p, BT_SHB);
	p = put32(p, 0);
	p = put32(p, 0x1A2B3C4DU);
	p = put16(p, 1);
	p = put16(p, 0);
	p = put64(p, ~0ULL);		/* section length: not given */
	clean(rel, si->release, sizeof(si->release) - 1);
	snprintf(tmp, sizeof(tmp), "Linux %s", rel);
	p = put_opt_str(p, SHB_OS, tmp);
	p = put_opt_str(p, SHB_USERAPPL, appname);
	clean(rel, si->procname, sizeof(si->procname) - 1);
	clean(tmp + 100, si->version_string, sizeof(si->version_string) - 1);
	snprintf(tmp, 100, "magnet %.40s, /proc/net/%.30s", tmp + 100, rel);
	p = put_opt_str(p, OPT_COMMENT, tmp);
	if (layers & MAGNET_LAYER_DEV)
		p = put_opt_str(p, OPT_COMMENT, w->wire ?
			"a device's outgoing packets: as it hands them to its driver, after its qdisc (wire_out), where a capture on it sees them" :
			"a device's outgoing packets: as it takes them in, before its qdisc (dev_out; this log has no wire_out events: events=wire), not where a capture on it sees them");
	p = put_opt(p, OPT_END, NULL, 0);
	return end_block(buf, p);
}

/* "netns N ifindex I", "netns N IP layer", or without the namespace */
static void if_words(char *b, size_t n, unsigned int layer, __u32 netns,
		     __u32 ifindex)
{
	char ns[32] = "";

	if (netns)
		snprintf(ns, sizeof(ns), "netns %u ", netns);
	if (layer == PCAPW_LAYER_EVENTS)
		snprintf(b, n, "%sevents", ns);
	else if (layer == MAGNET_LAYER_IP)
		snprintf(b, n, "%sIP layer", ns);
	else
		snprintf(b, n, "%sifindex %u", ns, ifindex);
}

/*
 * The interface of (@netns, @layer, @ifindex): in pcapng its number, its
 * block into @p if new; in classic pcap 0, or -1 if it is not the file's
 * one interface
 */
static int iface(struct pcapw *w, unsigned int layer, __u32 netns,
		 __u32 ifindex, char **pp)
{
	__u64 key = (__u64)layer << 32 | ifindex;
	char *p = *pp, name[96], a[40], b[40], pre[16] = "", ns[24] = "";
	unsigned int i;
	__u8 tsresol = 9;

	for (i = 0; i < w->nifs; i++)
		if (w->ifs[i] == key && w->if_ns[i] == netns)
			return (int)i;
	if ((w->fmt != PCAPW_NG || !w->all_ifs) && w->nifs) {
		if_words(a, sizeof(a), (unsigned int)(w->ifs[0] >> 32),
			 w->if_ns[0], (__u32)w->ifs[0]);
		if_words(b, sizeof(b), layer, netns, ifindex);
		snprintf(w->errbuf, sizeof(w->errbuf),
			 w->fmt != PCAPW_NG ?
			 "a packet of %s after those of %s: a pcap file holds one interface; write one file per interface (--split DIR) or select one (--netns, --ifindex, -L)" :
			 "a packet of %s after those of %s: Wireshark would take a packet's copy on another interface for a retransmission; write one file per interface (--split DIR), select one (--netns, --ifindex, -L), or all in one (--all-interfaces)",
			 b, a);
		w->err = w->errbuf;
		w->usage = 1;
		return -1;
	}
	if (w->nifs == PCAPW_MAX_IFS) {
		w->err = "more than 4096 devices";
		return -1;
	}
	w->ifs[w->nifs] = key;
	w->if_ns[w->nifs] = netns;
	if (w->fmt != PCAPW_NG)
		return (int)w->nifs++;
	p = put32(p, BT_IDB);
	p = put32(p, 0);
	p = put16(p, layer == PCAPW_LAYER_EVENTS ?
		     LINKTYPE_WIRESHARK_UPPER_PDU : LINKTYPE_RAW);
	p = put16(p, 0);
	p = put32(p, PCAPW_SNAPLEN);
	/* names as before namespaces when the log does not say them */
	if (netns) {
		snprintf(pre, sizeof(pre), "ns%u:", netns);
		snprintf(ns, sizeof(ns), ", netns %u", netns);
	}
	if (layer == PCAPW_LAYER_EVENTS) {
		snprintf(name, sizeof(name), "%sevents", pre);
		p = put_opt_str(p, IF_NAME, name);
		snprintf(name, sizeof(name),
			 "magnet events that are no packet on the wire%s", ns);
	} else if (layer == MAGNET_LAYER_IP) {
		snprintf(name, sizeof(name), "%sip", pre);
		p = put_opt_str(p, IF_NAME, name);
		snprintf(name, sizeof(name), "magnet IP layer (ip_out, ip_in)%s",
			 ns);
	} else {
		snprintf(name, sizeof(name), "%sif%u", pre, ifindex);
		p = put_opt_str(p, IF_NAME, name);
		snprintf(name, sizeof(name),
			 "magnet device layer (dev_out, dev_in)%s, ifindex %u",
			 ns, ifindex);
	}
	p = put_opt_str(p, IF_DESCRIPTION, name);
	p = put_opt(p, IF_TSRESOL, &tsresol, 1);
	p = put_opt(p, OPT_END, NULL, 0);
	*pp += end_block(*pp, p);
	return (int)w->nifs++;
}

static __u16 ip_csum(const __u8 *h, unsigned int n)
{
	__u32 s = 0;
	unsigned int i;

	for (i = 0; i + 1 < n; i += 2)
		s += (__u32)h[i] << 8 | h[i + 1];
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (__u16)~s;
}

static __u8 *be16(__u8 *p, unsigned int v)
{
	p[0] = (__u8)(v >> 8);
	p[1] = (__u8)v;
	return p + 2;
}

static __u8 *be32(__u8 *p, __u32 v)
{
	p[0] = (__u8)(v >> 24);
	p[1] = (__u8)(v >> 16);
	p[2] = (__u8)(v >> 8);
	p[3] = (__u8)v;
	return p + 4;
}

/*
 * The packet's headers into @pkt (PCAPW_SNAPLEN bytes); returns their
 * length and sets *@orig to the packet's length, or -1 (w->err set).
 * *@note says what could not be rebuilt as it was.
 */
static int rebuild(struct pcapw *w, const struct magnet_record *r, int out,
		   __u8 *pkt, __u32 *orig, const char **note)
{
	const __u8 *src = out ? r->laddr : r->raddr;
	const __u8 *dst = out ? r->raddr : r->laddr;
	unsigned int sport = out ? r->lport : r->rport;
	unsigned int dport = out ? r->rport : r->lport;
	unsigned int nh = r->ip_hlen, th = 0;
	__u32 len = r->len;
	__u8 *p = pkt;

	*note = NULL;
	if (r->family == MAGNET_FAMILY_INET) {
		if (nh < 20 || nh > 60 || nh % 4 || len < nh) {
			w->err = "an IPv4 header length out of range";
			return -1;
		}
		memset(p, 0, nh);
		p[0] = (__u8)(0x40 | nh / 4);
		p[1] = r->ip_tos;
		/* a GSO packet above 64 KiB (BIG TCP) has total length 0 */
		be16(p + 2, len > 0xffff ? 0 : len);
		be16(p + 4, r->ip_id);
		be16(p + 6, r->ip_frag);
		p[8] = r->ip_ttl;
		p[9] = r->ip_proto;
		memcpy(p + 12, src, 4);
		memcpy(p + 16, dst, 4);
		memset(p + 20, 1, nh - 20);	/* options: NOPs */
		if (nh > 20)
			*note = "IPv4 options not recorded (written as NOPs)";
		be16(p + 10, ip_csum(p, nh));
		p += nh;
	} else if (r->family == MAGNET_FAMILY_INET6) {
		unsigned int ext;

		if (nh < 40 || len < nh) {
			w->err = "an IPv6 header length out of range";
			return -1;
		}
		ext = nh - 40;
		if (ext % 8 || ext > 40) {
			/* extension headers dropped: the packet shrinks */
			*note = "IPv6 extension headers not recorded (left out)";
			len -= ext;
			ext = 0;
		} else if (ext) {
			*note = "IPv6 extension headers not recorded (written as destination options)";
		}
		p[0] = (__u8)(0x60 | r->ip_tos >> 4);
		p[1] = (__u8)(r->ip_tos << 4);
		p[2] = p[3] = 0;
		be16(p + 4, len - 40 > 0xffff ? 0 : len - 40);
		p[6] = ext ? 60 : r->ip_proto;
		p[7] = r->ip_ttl;
		memcpy(p + 8, src, 16);
		memcpy(p + 24, dst, 16);
		p += 40;
		if (ext) {
			/* destination options with one PadN option */
			p[0] = r->ip_proto;
			p[1] = (__u8)(ext / 8 - 1);
			p[2] = 1;
			p[3] = (__u8)(ext - 4);
			memset(p + 4, 0, ext - 4);
			p += ext;
		}
		nh = 40 + ext;
	} else {
		w->err = "an IP or device event of an unknown family";
		return -1;
	}
	*orig = len;
	if (r->ip_proto == 6 && r->tcp_hlen) {
		th = r->tcp_hlen;
		if (th < 20 || th > 60 || th % 4 || nh + th > len ||
		    (size_t)(p - pkt) + th > PCAPW_SNAPLEN) {
			w->err = "a TCP header length out of range";
			return -1;
		}
		p = be16(p, sport);
		p = be16(p, dport);
		p = be32(p, r->seq);
		p = be32(p, r->tcp_ack);
		*p++ = (__u8)(th / 4 << 4);
		*p++ = r->tcp_flags;
		p = be16(p, r->tcp_win);
		p = be16(p, 0);		/* checksum: not recorded */
		p = be16(p, 0);		/* urgent pointer */
		memcpy(p, r->tcp_opts, th - 20);
		p += th - 20;
	} else if (r->ip_proto == 17 && (sport || dport) && nh + 8 <= len) {
		p = be16(p, sport);
		p = be16(p, dport);
		p = be16(p, len - nh > 0xffff ? 0 : len - nh);
		p = be16(p, 0);		/* checksum: not recorded */
	}
	return (int)(p - pkt);
}

static const char *const state_names[] = {
	"0", "ESTABLISHED", "SYN_SENT", "SYN_RECV", "FIN_WAIT1", "FIN_WAIT2",
	"TIME_WAIT", "CLOSE", "CLOSE_WAIT", "LAST_ACK", "LISTEN", "CLOSING",
	"NEW_SYN_RECV",
};

static const char *const ca_state_names[] = {
	"Open", "Disorder", "CWR", "Recovery", "Loss",
};

/*
 * The columns of the magnet text (magnet_format_text) a packet's state
 * comment carries after its first part, each as "NAME VALUE" when the
 * flow's latest TCP-layer record has it (its rate and limit parts' where
 * it had them); wireshark/magnet.lua reads them as fields of these names.
 */
static const char *const extra_cols[] = {
	"write_seq", "copied_seq", "rcv_nxt", "segs_out", "data_segs_out",
	"segs_in", "data_segs_in", "bytes_sent", "bytes_received",
	"bytes_acked", "bytes_retrans", "min_rtt_us", "rtt_us", "advmss",
	"snd_wscale", "rcv_wscale", "opts", "pacing_rate", "delivery_rate",
	"delivered", "delivered_ce", "lost_out", "sacked_out", "app_limited",
	"bbr_bw", "bbr_min_rtt", "bbr_pacing_gain", "bbr_cwnd_gain", "chrono",
	"chrono_us", "busy_us", "rwnd_limited_us", "sndbuf_limited_us",
	"reordering", "reord_seen", "dsack_dups",
};
#define NEXTRA (sizeof(extra_cols) / sizeof(extra_cols[0]))
_Static_assert(NEXTRA <= PCAPW_EXTRA_MAX, "PCAPW_EXTRA_MAX");

/* the most columns a magnet text line has */
#define TEXT_COLS_MAX 128

/* a magnet text line @s (its newline dropped) cut at its tabs, in place:
 * its first @max columns into @col; returns their count */
static unsigned int split_tabs(char *s, char **col, unsigned int max)
{
	unsigned int n = 0;

	s[strcspn(s, "\n")] = 0;
	while (n < max) {
		col[n++] = s;
		s = strchr(s, '\t');
		if (!s)
			break;
		*s++ = 0;
	}
	return n;
}

/* the magnet text line of @r with the parts @pt (NULL: none) into @line,
 * cut into its columns (@col); returns their count, 0 if it has none */
static unsigned int text_cols(char *line, char **col,
			      const struct magnet_record *r,
			      const struct pcapw_parts *pt, __u32 netns,
			      __s64 rt_off)
{
	if (magnet_format_text(line, r, pt ? pt->rate : NULL,
			       pt ? pt->drop : NULL, pt ? pt->tcpev : NULL,
			       pt ? pt->qdisc : NULL, pt ? pt->lim : NULL,
			       pt ? pt->rcvbuf : NULL, pt ? pt->rtoend : NULL,
			       netns, rt_off) <= 0)
		return 0;
	return split_tabs(line, col, TEXT_COLS_MAX);
}

/* the magnet text's header into @hdr, cut into its column names (@col) */
static unsigned int header_cols(char *hdr, char **col)
{
	magnet_format_text_header(hdr);
	return split_tabs(hdr, col, TEXT_COLS_MAX);
}

/* each extra column's index in the magnet text's header (-1: none) */
static void extra_index(int *ix)
{
	char hdr[MAGNET_TEXT_LINE_MAX], *col[TEXT_COLS_MAX];
	unsigned int i, c, n = header_cols(hdr, col);

	for (i = 0; i < NEXTRA; i++)
		for (ix[i] = -1, c = 0; c < n; c++)
			if (!strcmp(col[c], extra_cols[i]))
				ix[i] = (int)c;
}

/*
 * The comment with the flow @f's TCP state as of its latest TCP-layer
 * record, at @ts: the record's event, how long before the packet, the
 * TCP snapshot's main fields (state and ca_state by name, the congestion
 * control as "ca"), then the extra columns it has as the magnet text
 * writes them, and "pid P comm C" of the socket's last application call
 * if one was recorded. @ix: extra_index()'s.
 */
static void state_comment(char *c, size_t n, const struct pcapw_flow *fl,
			  __u64 ts, __s64 rt_off, const int *ix)
{
	const struct magnet_record *f = &fl->r;
	char ca[MAGNET_CA_NAME_LEN + 1], st[8], cs[8];
	char line[MAGNET_TEXT_LINE_MAX], *col[TEXT_COLS_MAX];
	const struct pcapw_parts pt = {
		.rate = fl->has_rate ? &fl->rate : NULL,
		.lim = fl->has_lim ? &fl->lim : NULL,
	};
	const char *state = st, *ca_state = cs;
	__s64 ago = (__s64)(ts - f->ts_ns);
	unsigned int i, ncol;
	size_t used;

	clean(ca, f->ca_name, MAGNET_CA_NAME_LEN);
	if (f->state < sizeof(state_names) / sizeof(state_names[0]))
		state = state_names[f->state];
	else
		snprintf(st, sizeof(st), "%u", f->state);
	if (f->ca_state < sizeof(ca_state_names) / sizeof(ca_state_names[0]))
		ca_state = ca_state_names[f->ca_state];
	else
		snprintf(cs, sizeof(cs), "%u", f->ca_state);
	used = (size_t)snprintf(c, n,
		 "magnet %s %lld ns before: state %s ca_state %s ca %s cwnd %u ssthresh %u srtt_us %u rttvar_us %u rto_us %u mss %u snd_una %u snd_nxt %u snd_wnd %u rcv_wnd %u packets_out %u retrans_out %u total_retrans %u",
		 magnet_event_name(f->event), (long long)ago, state, ca_state,
		 ca, f->cwnd, f->ssthresh, f->srtt_us, f->rttvar_us, f->rto_us,
		 f->mss, f->snd_una, f->snd_nxt, f->snd_wnd, f->rcv_wnd,
		 f->packets_out, f->retrans_out, f->total_retrans);
	if (used >= n)
		return;
	/* the extra columns, as the magnet text has them */
	ncol = text_cols(line, col, f, &pt, fl->netns, rt_off);
	for (i = 0; i < NEXTRA && used < n; i++)
		if (ix[i] >= 0 && (unsigned int)ix[i] < ncol && col[ix[i]][0])
			used += (size_t)snprintf(c + used, n - used, " %s %s",
						 extra_cols[i], col[ix[i]]);
	if (fl->has_owner && used < n) {
		char comm[MAGNET_COMM_LEN + 1];

		clean(comm, fl->comm, MAGNET_COMM_LEN);
		snprintf(c + used, n - used,
			 comm[0] ? " pid %u comm %s" : " pid %u", fl->pid, comm);
	}
}

/* the comment on the gap @where ("before this packet") */
static void gap_comment(const struct pcapw *w, char *c, size_t n,
			const char *where)
{
	char cpus[128] = "";
	size_t used = 0;
	unsigned int i;

	for (i = 0; i < 32 && used < sizeof(cpus) - 8; i++)
		if (w->gap_cpus & (1U << i))
			used += (size_t)snprintf(cpus + used,
						 sizeof(cpus) - used, "%s%u%s",
						 used ? "," : "", i,
						 i == 31 ? "+" : "");
	snprintf(c, n,
		 "magnet gap %s: %llu records lost (CPU %s), %llu probe misses, %llu records discarded by reset; records of every layer",
		 where, (unsigned long long)w->gap_lost, used ? cpus : "-",
		 (unsigned long long)w->gap_misses,
		 (unsigned long long)w->gap_reset);
}

/* whether @event is one the events interface takes (w->events) */
static int is_event(unsigned int event)
{
	switch (event) {
	case MAGNET_EV_RETRANS:
	case MAGNET_EV_RTO:
	case MAGNET_EV_TLP:
	case MAGNET_EV_STATE:
	case MAGNET_EV_CA_STATE:
	case MAGNET_EV_RCVBUF:
	case MAGNET_EV_RTO_END:
	case MAGNET_EV_QDISC:
	case MAGNET_EV_QDISC_ENQ:
	case MAGNET_EV_DROP_OUT:
	case MAGNET_EV_DROP_IN:
		return 1;
	}
	return 0;
}

/*
 * An enhanced packet block's head into @p, for @caplen bytes of a packet
 * of @orig on interface @id at @wall, counted for its statistics block
 */
static char *epb_begin(struct pcapw *w, char *p, int id, __u64 wall,
		       __u32 caplen, __u32 orig)
{
	if (!w->if_packets[id])
		w->if_first[id] = wall;
	w->if_packets[id]++;
	w->if_last[id] = wall;
	p = put32(p, BT_EPB);
	p = put32(p, 0);
	p = put32(p, (__u32)id);
	p = put32(p, (__u32)(wall >> 32));
	p = put32(p, (__u32)wall);
	p = put32(p, caplen);
	return put32(p, orig);
}

/* the gap's epb_dropcount and comment into @p, and the gap cleared */
static char *put_gap(struct pcapw *w, char *p, char *comment, size_t n)
{
	__u64 cnt = w->gap_records;

	p = put_opt(p, EPB_DROPCOUNT, &cnt, 8);
	gap_comment(w, comment, n, "before this packet");
	p = put_opt_str(p, OPT_COMMENT, comment);
	w->gap_lost = w->gap_misses = w->gap_reset = 0;
	w->gap_records = 0;
	w->gap_cpus = 0;
	return p;
}

/*
 * The event @r (w->events) as a record of its namespace's events
 * interface: an exported PDU for the dissector "magnet_event"
 * (wireshark/magnet.lua), nothing else, and the comment "magnet event
 * EVENT:" with every column of the event's magnet text line that it
 * fills (but time, event and netns, which the interface names) as
 * "NAME VALUE". Returns the bytes written,
 * 0 if not asked, -1 on error.
 */
static int event_record(struct pcapw *w, const struct magnet_record *r,
			const struct pcapw_parts *pt, __u32 netns, char *buf)
{
	static const char dissector[] = "magnet_event";
	/* the dissector's name padded to 4 bytes */
	const size_t nlen = (sizeof(dissector) - 1 + 3) & ~(size_t)3;
	char *p = buf, *blk, comment[PCAPW_COMMENT_MAX];
	char line[MAGNET_TEXT_LINE_MAX], hdr[MAGNET_TEXT_LINE_MAX];
	char *col[TEXT_COLS_MAX], *name[TEXT_COLS_MAX];
	__u64 wall = r->ts_ns + (__u64)w->rt_off;
	unsigned int i, ncol, nname;
	size_t used;
	__u32 caplen;
	int id;

	if (!w->events || w->fmt != PCAPW_NG)
		return 0;
	ncol = text_cols(line, col, r, pt, netns, w->rt_off);
	if (!ncol)
		return 0;
	id = iface(w, PCAPW_LAYER_EVENTS, netns, 0, &p);
	if (id < 0)
		return -1;
	w->last_if = id;
	w->packets++;
	blk = p;
	/* tag, length (big-endian), the name padded to 4; the end tag */
	caplen = (__u32)(4 + nlen + 4);
	p = epb_begin(w, p, id, wall, caplen, caplen);
	*p++ = 0;
	*p++ = EXP_PDU_TAG_DISSECTOR_NAME;
	*p++ = 0;
	*p++ = (char)nlen;
	memset(p, 0, nlen);
	memcpy(p, dissector, sizeof(dissector) - 1);
	p += nlen;
	memset(p, 0, 4);	/* end of options */
	p += 4;
	if (w->gap_records || w->gap_misses)
		p = put_gap(w, p, comment, sizeof(comment));
	/* the comment: the text line's filled columns, by the header's names */
	nname = header_cols(hdr, name);
	used = (size_t)snprintf(comment, sizeof(comment), "magnet event %s:",
				magnet_event_name(r->event));
	for (i = 0; i < ncol && i < nname && used < sizeof(comment); i++) {
		/* (the interface names the namespace) */
		if (!*col[i] || !strcmp(name[i], "time") ||
		    !strcmp(name[i], "event") || !strcmp(name[i], "netns"))
			continue;
		used += (size_t)snprintf(comment + used, sizeof(comment) - used,
					 " %s %s", name[i], col[i]);
	}
	p = put_opt_str(p, OPT_COMMENT, comment);
	p = put_opt(p, OPT_END, NULL, 0);
	return (int)(blk - buf) + end_block(blk, p);
}

int pcapw_record(struct pcapw *w, const struct magnet_record *r,
		 const struct pcapw_parts *parts, __u32 netns, char *buf)
{
	const struct magnet_v3_drop *drop = parts ? parts->drop : NULL;
	unsigned int layer;
	int out, id = 0, caplen;
	__u8 pkt[PCAPW_SNAPLEN];
	char *p = buf, *blk, comment[PCAPW_COMMENT_MAX];
	const char *note;
	__u64 wall = r->ts_ns + (__u64)w->rt_off;
	__u32 orig;

	w->last_if = -1;
	switch (r->event) {
	case MAGNET_EV_LOST:
		w->gap_lost += r->req;
		w->gap_misses += (__u64)r->ret;
		w->lost += r->req;
		w->misses += (__u64)r->ret;
		w->gap_cpus |= 1U << (r->cpu < 31 ? r->cpu : 31);
		w->lost_cpus |= 1U << (r->cpu < 31 ? r->cpu : 31);
		w->gap_records += r->req;
		return 0;
	case MAGNET_EV_RESET:
		w->gap_reset += r->req;
		w->reset += r->req;
		w->gap_records += r->req;
		return 0;
	case MAGNET_EV_IP_OUT:
	case MAGNET_EV_IP_IN:
		layer = MAGNET_LAYER_IP;
		out = r->event == MAGNET_EV_IP_OUT;
		break;
	case MAGNET_EV_DEV_OUT:
	case MAGNET_EV_WIRE_OUT:
		/* one of the two: the log's header says which it has */
		if ((r->event == MAGNET_EV_WIRE_OUT) != w->wire)
			return 0;
		layer = MAGNET_LAYER_DEV;
		out = 1;
		break;
	case MAGNET_EV_DEV_IN:
		layer = MAGNET_LAYER_DEV;
		out = 0;
		break;
	case MAGNET_EV_DROP_OUT:
	case MAGNET_EV_DROP_IN:
		/* if asked, and only where a comment can say it was
		 * dropped */
		if (!drop || w->fmt != PCAPW_NG)
			return 0;
		if (!w->drops)
			return event_record(w, r, parts, netns, buf);
		layer = (r->flags & MAGNET_RF_DEV) ? MAGNET_LAYER_DEV :
						      MAGNET_LAYER_IP;
		out = r->event == MAGNET_EV_DROP_OUT;
		break;
	default:
		/* TCP and app events: the state for the comments */
		if ((r->flags & MAGNET_RF_TCP) &&
		    flow_update(w, r, parts, netns)) {
			w->err = "out of memory for the flow table";
			return -1;
		}
		return is_event(r->event) ?
		       event_record(w, r, parts, netns, buf) : 0;
	}
	if (!(w->layers & layer) ||
	    !(w->dirs & (out ? PCAPW_DIR_OUT : PCAPW_DIR_IN)))
		return 0;
	if (!(r->flags & MAGNET_RF_HDR)) {
		/* a log from before the header fields: the smallest headers */
		struct magnet_record h = *r;

		h.ip_hlen = r->family == MAGNET_FAMILY_INET6 ? 40 : 20;
		h.ip_frag = 0;
		h.tcp_hlen = r->ip_proto == 6 && (r->flags & MAGNET_RF_SEQ) &&
			     r->len >= h.ip_hlen + 20U ? 20 : 0;
		h.tcp_ack = 0;
		h.tcp_win = 0;
		h.tcp_flags = 0;
		caplen = rebuild(w, &h, out, pkt, &orig, &note);
		note = "header fields not in this log (an older magnet): IP and TCP options, ack, window and flags unknown, written as none and 0";
	} else {
		caplen = rebuild(w, r, out, pkt, &orig, &note);
	}
	if (caplen < 0)
		return -1;
	w->packets++;

	id = iface(w, layer, netns,
		   (r->flags & MAGNET_RF_DEV) ? r->ifindex : 0, &p);
	if (id < 0)
		return -1;
	w->last_if = id;
	if (w->fmt != PCAPW_NG) {
		__u64 sec = wall / 1000000000ULL;
		__u32 ns = (__u32)(wall % 1000000000ULL);

		p = put32(p, (__u32)sec);
		p = put32(p, w->fmt == PCAPW_NS ? ns : ns / 1000);
		p = put32(p, (__u32)caplen);
		p = put32(p, orig);
		memcpy(p, pkt, (size_t)caplen);
		return (int)(p - buf) + caplen;
	}

	blk = p;
	p = epb_begin(w, p, id, wall, (__u32)caplen, orig);
	memcpy(p, pkt, (size_t)caplen);
	p += caplen;
	while ((p - blk) % 4)
		*p++ = 0;
	{
		__u32 fl = out ? 2 : 1;	/* outbound, inbound */

		p = put_opt(p, EPB_FLAGS, &fl, 4);
	}
	if (w->gap_records || w->gap_misses)
		p = put_gap(w, p, comment, sizeof(comment));
	if (note)
		p = put_opt_str(p, OPT_COMMENT, note);
	if (drop) {
		char reason[33], where[33];

		clean(reason, drop->reason_name, sizeof(drop->reason_name));
		clean(where, drop->where, sizeof(drop->where));
		if (!reason[0] && drop->reason)
			snprintf(reason, sizeof(reason), "%u", drop->reason);
		snprintf(comment, sizeof(comment), "magnet drop: %s in %s",
			 reason[0] ? reason : "unknown", where);
		p = put_opt_str(p, OPT_COMMENT, comment);
	}
	{
		struct pcapw_flow *f = flow_find(w, r, netns);

		if (f && f->used) {
			state_comment(comment, sizeof(comment), f, r->ts_ns,
				      w->rt_off, w->extra_ix);
			p = put_opt_str(p, OPT_COMMENT, comment);
		}
	}
	p = put_opt(p, OPT_END, NULL, 0);
	return (int)(blk - buf) + end_block(blk, p);
}

int pcapw_copy_state(struct pcapw *dst, const struct pcapw *src)
{
	if (src->flow_cap) {
		dst->flows = calloc(src->flow_cap, sizeof(*dst->flows));
		if (!dst->flows)
			return -1;
		memcpy(dst->flows, src->flows,
		       src->flow_cap * sizeof(*dst->flows));
		dst->flow_cap = src->flow_cap;
		dst->flow_used = src->flow_used;
	}
	dst->gap_lost = src->lost;
	dst->gap_misses = src->misses;
	dst->gap_reset = src->reset;
	dst->gap_records = src->lost + src->reset;
	dst->gap_cpus = src->lost_cpus;
	return 0;
}

void pcapw_free(struct pcapw *w)
{
	free(w->flows);
	w->flows = NULL;
	w->flow_cap = w->flow_used = 0;
}

int pcapw_end(struct pcapw *w, char *buf)
{
	char *p = buf, comment[640];
	unsigned int i;

	if (w->fmt != PCAPW_NG) {
		pcapw_free(w);
		return 0;
	}
	/* one interface statistics block per call; w->nifs counts down */
	if (!w->nifs) {
		pcapw_free(w);
		return 0;
	}
	i = --w->nifs;
	p = put32(p, BT_ISB);
	p = put32(p, 0);
	p = put32(p, i);
	p = put32(p, (__u32)(w->if_last[i] >> 32));
	p = put32(p, (__u32)w->if_last[i]);
	p = put_opt(p, ISB_STARTTIME, (__u32[]){ (__u32)(w->if_first[i] >> 32),
						 (__u32)w->if_first[i] }, 8);
	p = put_opt(p, ISB_ENDTIME, (__u32[]){ (__u32)(w->if_last[i] >> 32),
					       (__u32)w->if_last[i] }, 8);
	p = put_opt(p, ISB_IFRECV, &w->if_packets[i], 8);
	if (i == 0 && (w->gap_records || w->gap_misses)) {
		gap_comment(w, comment, sizeof(comment), "after the last packet");
		p = put_opt_str(p, OPT_COMMENT, comment);
	}
	p = put_opt(p, OPT_END, NULL, 0);
	return end_block(buf, p);
}
