// SPDX-License-Identifier: GPL-2.0
/*
 * magnet-monarch-proxy: the per-packet part of Monarch (Haeberlen et al.,
 * IMC'06, section 3.1 and Figure 2), run by `magnet-exp monarch`, which sets
 * up what it needs (docs/monarch.md).
 *
 * The packets the local TCP sender sends to the remote address reach this
 * process through an NFQUEUE queue (the netlink protocol of
 * <linux/netfilter/nfnetlink_queue.h>, no library), headers only: the kernel
 * keeps each packet. For each, the proxy sends the remote a probe of the
 * same IP size (a TCP ACK to a closed port, a UDP datagram to a closed port,
 * an ICMP echo request, or an ICMP timestamp request, which has one size)
 * from a raw socket, and when the probe's response comes back it gives the
 * kernel the packet's verdict, accept: the nftables rules after the queue
 * swap its addresses and route it to the local receiver. A packet whose
 * probe or response is lost is never accepted; after --hold seconds it is
 * dropped (a batch verdict, which also drops anything older still queued).
 * The receiver's ACKs do not pass here.
 *
 * Probes and responses are matched as the paper says: a TCP probe's
 * acknowledgment number comes back as its RST's sequence number; a UDP
 * probe's IP ID comes back quoted in the ICMP port unreachable; an ICMP
 * request's sequence number comes back in its reply. The remote may be
 * hostile, and anyone may send packets with its address: the keys start
 * at a random number, the probes' source port and ICMP id are random
 * (getrandom()), and an answer releases its packet only if everything it
 * echoes or quotes is what the probe carried (addresses, protocol, ports,
 * ICMP id, key, sizes); anything else from the remote is counted as
 * rejected and releases nothing.
 *
 * A queue message the netlink socket had no room for (ENOBUFS) is seen as
 * a gap in the packet ids: the kernel dropped that packet at once (it
 * queues a packet only once its message is delivered); each is a "lost"
 * line in the trace, and a sweep (a batch verdict, drop, of the ids older
 * than the oldest packet held) would drop any the kernel still held.
 *
 * After its setup (the queue bound, the raw sockets and the files open) the
 * proxy runs as nobody with CAP_NET_ADMIN alone, which nfnetlink checks on
 * each verdict, and no_new_privs.
 *
 * Output: a text trace (--trace FILE, one line per probe, response and
 * expiry, the header line names the columns; docs/monarch.md), and a summary
 * on stderr at the end, including the delay the proxy added (its own
 * timestamps: from a packet's arrival to its probe's send, and from a
 * response's arrival to the verdict's send). It stops on SIGINT or SIGTERM,
 * or when stdin reaches its end with --stdin-stop; the queue is unbound by
 * the kernel when the process exits, which drops what is still queued.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <grp.h>
#include <linux/capability.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter/nfnetlink_queue.h>
#include <linux/netlink.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define TABLE 65536		/* keys are 16 bits (UDP's IP ID, ICMP's seq) */
#define COPY_RANGE 128		/* IP and TCP headers with options */
#define MAX_PKT 65535

enum probe { P_TCP, P_UDP, P_ECHO, P_TSTAMP };
static const char *const probe_names[] = { "tcp", "udp", "echo", "tstamp" };

struct pending {
	uint32_t id;		/* NFQUEUE packet id; 0: free */
	uint32_t len;		/* the packet's IP length */
	uint32_t tcp_seq;	/* its TCP sequence number */
	uint32_t data;		/* its TCP payload bytes */
	uint32_t key;		/* the last key sent with this slot; 0: none */
	uint32_t wire;		/* its probe's IP length */
	uint64_t t_in, t_probe;	/* ns, CLOCK_MONOTONIC */
};

static struct pending tab[TABLE];
static volatile sig_atomic_t stop;
static enum probe ptype = P_TCP;
static struct in_addr remote, local;
static unsigned int queue_num, hold_ms = 5000, port = 33434;
static uint16_t sport, icmp_id;	/* random, per run */
static int nl, rawtx, rawrx;
static uint32_t first_key, next_key;	/* random start, never 0 */
static int nl_rcvbuf = 16 << 20;
static FILE *trace, *pcap;
static int64_t rt_off;		/* CLOCK_REALTIME - CLOCK_MONOTONIC, ns */
#define SNAP 128		/* bytes of a probe or answer in the pcapng */
static uint32_t oldest_unanswered;
static int check_only;	/* -c: does the remote answer this probe? */

/* counts for the summary */
static uint64_t n_packets, n_probes, n_answered, n_expired, n_unmatched,
	n_send_err, n_nl_lost, n_gone, n_held, n_rejected, n_enobufs,
	n_sweeps, n_swept;
/* queue packet ids: the last seen (the kernel's count starts at 1 for a
 * queue bound anew), the last missing one, and the last a sweep covered */
static uint32_t last_pkt_id, lost_upto, swept_upto;
static int nfq_proc = -1;	/* /proc/net/netfilter/nfnetlink_queue */
static long long k_user_dropped = -1;	/* its queue_user_dropped at the end */
#define SWEEP_SEQ 0x5357		/* a sweep's nlmsg_seq, which its ack echoes */
/* the proxy's own added delay: per packet and per response, ns */
static uint32_t *d_out, *d_back;
static size_t n_out, n_back, cap_out, cap_back;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void die(const char *what)
{
	fprintf(stderr, "magnet-monarch-proxy: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void push(uint32_t **v, size_t *n, size_t *cap, uint64_t d)
{
	if (*n == *cap) {
		size_t c = *cap ? *cap * 2 : 65536;
		uint32_t *p = realloc(*v, c * sizeof(**v));

		if (!p)
			return;		/* the summary says how many */
		*v = p;
		*cap = c;
	}
	(*v)[(*n)++] = d > UINT32_MAX ? UINT32_MAX : (uint32_t)d;
}

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

/* ---- netlink: NFQUEUE ---- */

static size_t nla_put(char *buf, size_t off, uint16_t type, const void *data,
		      uint16_t len)
{
	struct nlattr *a = (struct nlattr *)(buf + off);

	a->nla_type = type;
	a->nla_len = (uint16_t)(NLA_HDRLEN + len);
	memcpy(buf + off + NLA_HDRLEN, data, len);
	return off + NLA_ALIGN(a->nla_len);
}

static size_t nfq_hdr(char *buf, uint8_t msg, uint16_t flags)
{
	struct nlmsghdr *h = (struct nlmsghdr *)buf;
	struct nfgenmsg *g = (struct nfgenmsg *)(buf + NLMSG_HDRLEN);

	memset(buf, 0, NLMSG_HDRLEN + sizeof(*g));
	h->nlmsg_type = (NFNL_SUBSYS_QUEUE << 8) | msg;
	h->nlmsg_flags = NLM_F_REQUEST | flags;
	g->nfgen_family = AF_UNSPEC;
	g->version = NFNETLINK_V0;
	g->res_id = htons((uint16_t)queue_num);
	return NLMSG_HDRLEN + NLMSG_ALIGN(sizeof(*g));
}

static void nl_send(char *buf, size_t len)
{
	struct sockaddr_nl to = { .nl_family = AF_NETLINK };

	((struct nlmsghdr *)buf)->nlmsg_len = (uint32_t)len;
	if (sendto(nl, buf, len, 0, (struct sockaddr *)&to, sizeof(to)) < 0)
		die("netlink send");
}

/* a config message, and its answer: 0 or the kernel's error */
static int nfq_config(const void *attr, uint16_t type, uint16_t alen)
{
	char buf[256], ans[4096];
	size_t off = nfq_hdr(buf, NFQNL_MSG_CONFIG, NLM_F_ACK);
	struct nlmsghdr *h;
	ssize_t n;
	int rem;

	off = nla_put(buf, off, type, attr, alen);
	nl_send(buf, off);
	for (;;) {
		n = recv(nl, ans, sizeof(ans), 0);
		if (n < 0)
			die("netlink answer");
		rem = (int)n;
		for (h = (struct nlmsghdr *)ans; NLMSG_OK(h, rem);
		     h = NLMSG_NEXT(h, rem))
			if (h->nlmsg_type == NLMSG_ERROR)
				return ((struct nlmsgerr *)NLMSG_DATA(h))->error;
	}
}

static void nfq_setup(void)
{
	struct sockaddr_nl me = { .nl_family = AF_NETLINK };
	struct nfqnl_msg_config_cmd cmd = { .command = NFQNL_CFG_CMD_BIND,
					    .pf = htons(AF_INET) };
	struct nfqnl_msg_config_params par = {
		.copy_range = htonl(COPY_RANGE), .copy_mode = NFQNL_COPY_PACKET };
	uint32_t maxlen = htonl(TABLE / 2);
	int sz = nl_rcvbuf, err;

	nl = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_NETFILTER);
	if (nl < 0)
		die("netlink socket (NETLINK_NETFILTER)");
	if (bind(nl, (struct sockaddr *)&me, sizeof(me)) < 0)
		die("netlink bind");
	if (setsockopt(nl, SOL_SOCKET, SO_RCVBUFFORCE, &sz, sizeof(sz)) < 0)
		setsockopt(nl, SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
	/* a lost message is reported (ENOBUFS) and counted */
	err = nfq_config(&cmd, NFQA_CFG_CMD, sizeof(cmd));
	if (err) {
		errno = -err;
		if (err == -EBUSY)
			fprintf(stderr, "magnet-monarch-proxy: queue %u is bound by another process\n",
				queue_num);
		die("NFQUEUE bind (is nfnetlink_queue available?)");
	}
	err = nfq_config(&par, NFQA_CFG_PARAMS, sizeof(par));
	if (err) {
		errno = -err;
		die("NFQUEUE copy mode");
	}
	err = nfq_config(&maxlen, NFQA_CFG_QUEUE_MAXLEN, sizeof(maxlen));
	if (err) {
		errno = -err;
		die("NFQUEUE queue length");
	}
}

static void nfq_verdict(uint32_t id, uint32_t verdict, int batch)
{
	char buf[128];
	struct nfqnl_msg_verdict_hdr v = { .verdict = htonl(verdict),
					   .id = htonl(id) };
	size_t off = nfq_hdr(buf, batch ? NFQNL_MSG_VERDICT_BATCH :
					  NFQNL_MSG_VERDICT, 0);

	off = nla_put(buf, off, NFQA_VERDICT_HDR, &v, sizeof(v));
	nl_send(buf, off);
}

/*
 * The packets the kernel may hold whose queue messages were lost: a batch
 * verdict, drop, of every id up to the last missing one but not up to the
 * oldest packet held (the batch verdict takes every queued id up to the
 * one it names). On the kernels tested none is ever there: a packet whose
 * message cannot be delivered is dropped at once (nfnetlink_queue's
 * __nfqnl_enqueue_packet), and the kernel answers ENOENT; the ack (seq
 * SWEEP_SEQ) says which.
 */
static void sweep(uint32_t oldest_held)
{
	char buf[128];
	uint32_t upto = lost_upto;
	struct nfqnl_msg_verdict_hdr v = { .verdict = htonl(NF_DROP) };
	size_t off;

	if (oldest_held && (int32_t)(upto - (oldest_held - 1)) > 0)
		upto = oldest_held - 1;
	if ((int32_t)(upto - swept_upto) <= 0)
		return;
	v.id = htonl(upto);
	off = nfq_hdr(buf, NFQNL_MSG_VERDICT_BATCH, NLM_F_ACK);
	((struct nlmsghdr *)buf)->nlmsg_seq = SWEEP_SEQ;
	off = nla_put(buf, off, NFQA_VERDICT_HDR, &v, sizeof(v));
	nl_send(buf, off);
	swept_upto = upto;
	n_sweeps++;
}

/* ---- probes ---- */

static uint16_t csum(const void *data, size_t len, uint32_t sum)
{
	const uint8_t *p = data;

	while (len > 1) {
		sum += (uint32_t)p[0] << 8 | p[1];
		p += 2;
		len -= 2;
	}
	if (len)
		sum += (uint32_t)p[0] << 8;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

static uint32_t pseudo_sum(uint8_t proto, size_t len)
{
	const uint8_t *s = (const uint8_t *)&local.s_addr;
	const uint8_t *d = (const uint8_t *)&remote.s_addr;

	return (uint32_t)(s[0] << 8 | s[1]) + (uint32_t)(s[2] << 8 | s[3]) +
	       (uint32_t)(d[0] << 8 | d[1]) + (uint32_t)(d[2] << 8 | d[3]) +
	       proto + (uint32_t)len;
}

static const char probe_text[] =
	"magnet-monarch probe: a TCP emulation measuring this path; see Monarch (IMC'06). ";

/* ---- text: numbers and strings written by hand (printf parses its format
 * every time; these run a few times a packet) ---- */

static char *put_u(char *b, unsigned long long v)
{
	char d[20];
	int n = 0;

	do
		d[n++] = (char)('0' + v % 10);
	while (v /= 10);
	while (n)
		*b++ = d[--n];
	return b;
}

static char *put_s(char *b, const char *s)
{
	size_t n = strlen(s);

	memcpy(b, s, n);
	return b + n;
}

/* ---- the pcapng trace: probes out, answers in, LINKTYPE_RAW ---- */

static size_t pn_opt(uint8_t *b, size_t off, uint16_t code, const void *v,
		     size_t len)
{
	uint16_t h[2] = { code, (uint16_t)len };

	memcpy(b + off, h, 4);
	memcpy(b + off + 4, v, len);
	memset(b + off + 4 + len, 0, (4 - len % 4) % 4);
	return off + 4 + ((len + 3) & ~(size_t)3);
}

/* a block: @body of @len bytes (a multiple of 4), the end-of-options
 * option added */
static void pn_block(uint32_t type, uint8_t *body, size_t len)
{
	uint32_t tot = (uint32_t)(len + 4 + 12);

	memset(body + len, 0, 4);
	fwrite(&type, 4, 1, pcap);
	fwrite(&tot, 4, 1, pcap);
	fwrite(body, len + 4, 1, pcap);
	fwrite(&tot, 4, 1, pcap);
}

static void pn_begin(void)
{
	uint8_t b[256];
	uint32_t magic = 0x1A2B3C4D;
	uint16_t ver[2] = { 1, 0 }, lt[2] = { 101, 0 };
	int64_t seclen = -1;
	uint32_t snap = SNAP;
	uint8_t tsres = 9;
	size_t off;
	char name[64];

	memcpy(b, &magic, 4);
	memcpy(b + 4, ver, 4);
	memcpy(b + 8, &seclen, 8);
	off = pn_opt(b, 16, 4, "magnet-monarch-proxy", 20);
	pn_block(0x0A0D0D0A, b, off);
	memcpy(b, lt, 4);
	memcpy(b + 4, &snap, 4);
	snprintf(name, sizeof(name), "monarch %s probes to %s",
		 probe_names[ptype], inet_ntoa(remote));
	off = pn_opt(b, 8, 2, name, strlen(name));
	off = pn_opt(b, off, 9, &tsres, 1);
	pn_block(1, b, off);
}

/* a packet: @out (a probe) or not (an answer), at @t (CLOCK_MONOTONIC) */
static void pn_packet(const uint8_t *pkt, size_t len, int out, uint64_t t,
		      const char *comment)
{
	static uint8_t b[SNAP + 512];
	uint64_t ts = (uint64_t)((int64_t)t + rt_off);
	uint32_t w[5] = { 0, (uint32_t)(ts >> 32), (uint32_t)ts,
			  (uint32_t)(len < SNAP ? len : SNAP), (uint32_t)len };
	uint32_t flags = out ? 2 : 1;
	size_t off;

	memcpy(b, w, sizeof(w));
	memcpy(b + 20, pkt, w[3]);
	off = 20 + ((w[3] + 3) & ~3u);
	memset(b + 20 + w[3], 0, off - 20 - w[3]);
	off = pn_opt(b, off, 1, comment, strlen(comment));
	off = pn_opt(b, off, 2, &flags, 4);
	pn_block(6, b, off);
}

/* probe_text repeated, from a probe's transport header on: main() writes
 * it once, before the first packet, and the sums of its 16-bit words
 * from the payload's start (after a header of probe_hl bytes, an even
 * number): pat_sum[k], the first k words' */
static uint8_t probe_pat[MAX_PKT];
static uint32_t pat_sum[MAX_PKT / 2 + 1];
static size_t probe_hl;

static void probe_pattern_init(void)
{
	size_t i;

	for (i = 0; i < sizeof(probe_pat); i++)
		probe_pat[i] = (uint8_t)probe_text[i % (sizeof(probe_text) - 1)];
	probe_hl = ptype == P_TCP ? 20 : 8;
	for (i = 0; probe_hl + 2 * i + 1 < sizeof(probe_pat) &&
		    i + 1 < sizeof(pat_sum) / sizeof(pat_sum[0]); i++)
		pat_sum[i + 1] = pat_sum[i] +
				 (uint32_t)(probe_pat[probe_hl + 2 * i] << 8 |
					    probe_pat[probe_hl + 2 * i + 1]);
}

/* the sum of a probe's first @n payload bytes, as csum() adds them (at most
 * 32767 words of at most 0xffff: below 2^31) */
static uint32_t payload_sum(size_t n)
{
	uint32_t s = pat_sum[n / 2];

	if (n & 1)
		s += (uint32_t)probe_pat[probe_hl + n - 1] << 8;
	return s;
}

/* the IP length of the probe of a packet of @len bytes of IP */
static uint32_t probe_len(uint32_t len)
{
	if (ptype == P_TSTAMP)
		return 20 + 20;
	if (len < 20 + 20)
		return 20 + (ptype == P_TCP ? 20 : 8);
	return len;
}

/* the probe of @key, @len bytes of IP (its header included): the bytes
 * sent, or -1 */
static int send_probe(uint32_t key, uint32_t len)
{
	static uint8_t pkt[MAX_PKT];
	struct iphdr *ip = (struct iphdr *)pkt;
	uint8_t *l4 = pkt + sizeof(*ip);
	struct sockaddr_in to = { .sin_family = AF_INET, .sin_addr = remote };
	size_t l4len, hl;
	uint16_t c;

	len = probe_len(len);
	l4len = len - sizeof(*ip);
	hl = probe_hl;
	memset(pkt, 0, sizeof(*ip) + hl);
	ip->version = 4;
	ip->ihl = 5;
	ip->tot_len = htons((uint16_t)len);
	ip->frag_off = htons(IP_DF);
	ip->ttl = 64;
	ip->saddr = local.s_addr;
	ip->daddr = remote.s_addr;
	/* UDP's is the key (not 0), which the answer quotes */
	ip->id = htons((uint16_t)(key & 0xffff ? key : 1));
	/*
	 * a payload that says what this is, copied from the pattern written
	 * once (a byte at a time here, with a division each, it was 29% of
	 * the proxy's instructions in make bench-monarch's profile)
	 */
	memcpy(l4 + hl, probe_pat + hl, l4len - hl);
	switch (ptype) {
	case P_TCP:
		ip->protocol = IPPROTO_TCP;
		l4[0] = sport >> 8; l4[1] = sport & 0xff;
		l4[2] = port >> 8; l4[3] = port & 0xff;
		/* seq 0; ack = the key, which the RST's seq echoes */
		l4[8] = key >> 24; l4[9] = key >> 16; l4[10] = key >> 8;
		l4[11] = key;
		l4[12] = 5 << 4;
		l4[13] = 0x10;		/* ACK */
		l4[14] = 0xff; l4[15] = 0xff;
		c = csum(l4, hl, pseudo_sum(IPPROTO_TCP, l4len) +
				 payload_sum(l4len - hl));
		l4[16] = c >> 8; l4[17] = c & 0xff;
		break;
	case P_UDP:
		ip->protocol = IPPROTO_UDP;
		l4[0] = sport >> 8; l4[1] = sport & 0xff;
		l4[2] = port >> 8; l4[3] = port & 0xff;
		l4[4] = (uint8_t)(l4len >> 8); l4[5] = (uint8_t)l4len;
		c = csum(l4, hl, pseudo_sum(IPPROTO_UDP, l4len) +
				 payload_sum(l4len - hl));
		if (!c)
			c = 0xffff;
		l4[6] = c >> 8; l4[7] = c & 0xff;
		break;
	case P_ECHO:
	case P_TSTAMP:
		ip->protocol = IPPROTO_ICMP;
		l4[0] = ptype == P_ECHO ? 8 : 13;
		l4[4] = icmp_id >> 8; l4[5] = icmp_id & 0xff;
		l4[6] = (uint8_t)(key >> 8); l4[7] = (uint8_t)key;
		/* a timestamp request's 12 bytes of timestamps are 0 */
		if (ptype == P_TSTAMP)
			memset(l4 + 8, 0, 12);
		c = csum(l4, hl, ptype == P_TSTAMP ? 0 :
				 payload_sum(l4len - hl));
		l4[2] = c >> 8; l4[3] = c & 0xff;
		break;
	}
	c = csum(pkt, sizeof(*ip), 0);	/* what the kernel fills in too */
	ip->check = htons(c);
	if (sendto(rawtx, pkt, len, 0, (struct sockaddr *)&to, sizeof(to)) < 0)
		return -1;
	if (pcap) {
		char com[128];
		const struct pending *p = &tab[key & (TABLE - 1)];

		if (check_only) {
			snprintf(com, sizeof(com), "check probe %u", key);
		} else {
			char *b = put_s(com, "probe ");

			b = put_u(b, key);
			b = put_s(b, " for the held packet of TCP seq ");
			b = put_u(b, p->tcp_seq);
			b = put_s(b, ", IP length ");
			*put_u(b, p->len) = 0;
		}
		pn_packet(pkt, len, 1, now_ns(), com);
	}
	return (int)len;
}

/*
 * A trace line: time (ns, CLOCK_MONOTONIC), what, the key, the kept
 * packet's TCP sequence number, IP length and TCP payload bytes, the
 * probe's or response's IP length, the response's IP ID (empty where it has
 * none).
 */
static void trace_line(uint64_t t, const char *what, uint32_t key,
		       const struct pending *p, unsigned int wire, int ipid)
{
	/* written by hand, not by fprintf: two lines a packet, and vfprintf
	 * and its helpers had a tenth of the proxy's perf samples */
	char line[160], *b = line;

	if (!trace)
		return;
	b = put_u(b, t);
	*b++ = '\t';
	b = put_s(b, what);
	*b++ = '\t';
	b = put_u(b, key);
	*b++ = '\t';
	if (p) {
		b = put_u(b, p->tcp_seq);
		*b++ = '\t';
		b = put_u(b, p->len);
		*b++ = '\t';
		b = put_u(b, p->data);
	} else {
		*b++ = '\t';
		*b++ = '\t';
	}
	*b++ = '\t';
	if (wire)
		b = put_u(b, wire);
	*b++ = '\t';
	if (ipid >= 0)
		b = put_u(b, (unsigned int)ipid);
	*b++ = '\n';
	fwrite(line, 1, (size_t)(b - line), trace);
}

/* the key after @k: 32 bits for TCP probes (the RST's seq), 16 for the
 * others (UDP's IP ID, ICMP's seq); never 0 (no key yet) */
static uint32_t key_after(uint32_t k)
{
	k = ptype == P_TCP ? k + 1 : (k + 1) & 0xffff;
	return k ? k : 1;
}

static void on_queued(const uint8_t *pl, size_t plen, uint32_t id,
		      uint64_t t)
{
	const struct iphdr *ip = (const struct iphdr *)pl;
	struct pending *p;
	uint32_t key, len;
	int sent;

	n_packets++;
	if (plen < sizeof(*ip) || ip->version != 4) {
		/* not what the rules queue: let it go as it came */
		nfq_verdict(id, NF_ACCEPT, 0);
		return;
	}
	len = ntohs(ip->tot_len);
	key = next_key;
	next_key = key_after(next_key);
	p = &tab[key & (TABLE - 1)];
	if (p->id) {
		/* 65535 probes unanswered: the oldest is given up */
		trace_line(t, "expired", p->key, p, 0, -1);
		n_expired++;
		nfq_verdict(p->id, NF_DROP, 0);
	}
	p->id = id;
	p->len = len;
	p->key = key;
	p->t_in = t;
	p->tcp_seq = 0;
	p->data = 0;
	if (ip->protocol == IPPROTO_TCP && plen >= ip->ihl * 4u + 13) {
		const uint8_t *th = pl + ip->ihl * 4;
		uint32_t hl = ip->ihl * 4u + (th[12] >> 4) * 4u;

		p->tcp_seq = (uint32_t)th[4] << 24 | th[5] << 16 | th[6] << 8 |
			     th[7];
		p->data = len > hl ? len - hl : 0;
	}
	if (!oldest_unanswered)
		oldest_unanswered = key;
	p->wire = probe_len(len);
	sent = send_probe(key, len);
	/* not sent: as if lost on the way, the sender's TCP sees a loss */
	if (sent < 0)
		n_send_err++;
	p->t_probe = now_ns();
	n_probes++;
	push(&d_out, &n_out, &cap_out, p->t_probe - t);
	trace_line(p->t_probe, "probe", key, p, sent < 0 ? 0 : (unsigned int)sent,
		   -1);
}

/* the ids before @id since the last seen: packets queued whose messages
 * the netlink socket had no room for (ENOBUFS); the kernel dropped each
 * (__nfqnl_enqueue_packet queues a packet only once its message is
 * delivered), no probe went out, the sender's TCP sees a loss. A "lost"
 * line each, its key, TCP and wire fields empty */
static void lost_msgs(uint32_t id, uint64_t t)
{
	char line[64], *b;
	uint32_t k;

	for (k = last_pkt_id + 1; k != id; k++) {
		n_nl_lost++;
		if (!trace)
			continue;
		b = put_u(line, t);
		b = put_s(b, "\tlost\t\t\t\t\t\t\n");
		fwrite(line, 1, (size_t)(b - line), trace);
	}
	lost_upto = id - 1;
}

/*
 * At the end: the messages lost after the last one that came (no later id
 * shows them), from the kernel's own count of the queue's ids
 * (/proc/net/netfilter/nfnetlink_queue, opened before the privileges went:
 * id_sequence), and its count of the packets it dropped for want of room
 * in the socket (queue_user_dropped)
 */
static void lost_at_end(uint64_t t)
{
	char buf[8192];
	unsigned int q, portid, total, mode, range, dropped, udropped, seq;
	ssize_t n;
	char *l;

	if (nfq_proc < 0)
		return;
	n = pread(nfq_proc, buf, sizeof(buf) - 1, 0);
	if (n <= 0)
		return;
	buf[n] = 0;
	for (l = buf; l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		if (sscanf(l, "%u %u %u %u %u %u %u %u", &q, &portid, &total,
			   &mode, &range, &dropped, &udropped, &seq) == 8 &&
		    q == queue_num) {
			k_user_dropped = udropped;
			if ((int32_t)(seq - last_pkt_id) > 0) {
				lost_msgs(seq + 1, t);
				last_pkt_id = seq;
			}
		}
}

static void on_nl(void)
{
	static char buf[1 << 17];
	ssize_t n;
	struct nlmsghdr *h;
	uint64_t t;
	int rem;

	for (;;) {
		n = recv(nl, buf, sizeof(buf), MSG_DONTWAIT);
		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				return;
			if (errno == ENOBUFS) {
				/* messages lost: the next packet id that
				 * comes shows how many (lost_msgs()) */
				n_enobufs++;
				continue;
			}
			die("netlink receive");
		}
		t = now_ns();
		/* a signed length: NLMSG_NEXT may take it below 0 */
		rem = (int)n;
		for (h = (struct nlmsghdr *)buf; NLMSG_OK(h, rem);
		     h = NLMSG_NEXT(h, rem)) {
			struct nlattr *a;
			int alen;
			const uint8_t *pl = NULL;
			size_t plen = 0;
			uint32_t id = 0;
			int have_id = 0;

			if (h->nlmsg_type == NLMSG_ERROR) {
				struct nlmsgerr *e = NLMSG_DATA(h);

				/* a sweep's answer: none held (ENOENT), or
				 * some dropped (0) */
				if (e->msg.nlmsg_seq == SWEEP_SEQ) {
					if (!e->error)
						n_swept++;
					else if (e->error != -ENOENT) {
						errno = -e->error;
						die("NFQUEUE sweep");
					}
					continue;
				}
				/* a packet the kernel let go itself (its
				 * device went away): counted */
				if (e->error == -ENOENT)
					n_gone++;
				else if (e->error) {
					errno = -e->error;
					die("NFQUEUE verdict");
				}
				continue;
			}
			if ((h->nlmsg_type & 0xff) != NFQNL_MSG_PACKET)
				continue;
			a = (struct nlattr *)((char *)NLMSG_DATA(h) +
					      NLMSG_ALIGN(sizeof(struct nfgenmsg)));
			alen = (int)h->nlmsg_len - (int)NLMSG_HDRLEN -
			       (int)NLMSG_ALIGN(sizeof(struct nfgenmsg));
			while (alen >= (int)sizeof(*a) && a->nla_len >= sizeof(*a) &&
			       a->nla_len <= alen) {
				void *d = (char *)a + NLA_HDRLEN;
				uint16_t type = a->nla_type & NLA_TYPE_MASK;

				if (type == NFQA_PACKET_HDR) {
					id = ntohl(((struct nfqnl_msg_packet_hdr *)d)->packet_id);
					have_id = 1;
				} else if (type == NFQA_PAYLOAD) {
					pl = d;
					plen = a->nla_len - NLA_HDRLEN;
				}
				alen -= NLA_ALIGN(a->nla_len);
				a = (struct nlattr *)((char *)a + NLA_ALIGN(a->nla_len));
			}
			if (!have_id)
				continue;
			if ((int32_t)(id - last_pkt_id) > 1)
				lost_msgs(id, t);
			if ((int32_t)(id - last_pkt_id) > 0)
				last_pkt_id = id;
			if (pl)
				on_queued(pl, plen, id, t);
		}
	}
}

/* ---- responses ---- */

/* the answer being handled, for the pcapng */
static const uint8_t *ans_pkt;
static size_t ans_len;

/*
 * An answer from the remote, its key @key, the IP ID @ipid, @rlen bytes;
 * @qlen: the IP length of the probe it quotes or echoes (0: none to
 * check). It releases its packet only if a probe of that key was sent
 * (its slot holds the key: keys start at random and a key never sent is
 * not taken for one), of that size, and the packet is still held;
 * returns 0 if it is no answer to a probe sent (rejected).
 */
static int answered(uint32_t key, unsigned int rlen, unsigned int qlen,
		    unsigned int ipid, uint64_t t)
{
	struct pending *p = &tab[key & (TABLE - 1)];
	uint64_t tv;

	if (!key || p->key != key || !p->t_probe || (qlen && qlen != p->wire))
		return 0;
	if (check_only) {
		if (!p->id) {
			p->id = 1;	/* answered */
			n_answered++;
			if (pcap)
				pn_packet(ans_pkt, ans_len, 0, t, "answer to a check probe");
		}
		return 1;
	}
	if (!p->id) {
		/* a second answer, or one given up already */
		n_unmatched++;
		trace_line(t, "unmatched", key, NULL, rlen, (int)ipid);
		if (pcap) {
			char com[128];

			snprintf(com, sizeof(com),
				 "answer to probe %u: unmatched (its packet expired, or a second answer)",
				 key);
			pn_packet(ans_pkt, ans_len, 0, t, com);
		}
		return 1;
	}
	nfq_verdict(p->id, NF_ACCEPT, 0);
	tv = now_ns();
	push(&d_back, &n_back, &cap_back, tv - t);
	n_answered++;
	trace_line(t, "response", key, p, rlen, (int)ipid);
	if (pcap) {
		char com[128];

		char *b = put_s(com, "answer to probe ");

		b = put_u(b, key);
		b = put_s(b, ": the held packet of TCP seq ");
		b = put_u(b, p->tcp_seq);
		put_s(b, " delivered")[0] = 0;
		pn_packet(ans_pkt, ans_len, 0, t, com);
	}
	p->id = 0;
	return 1;
}

static unsigned int be16(const uint8_t *b)
{
	return (unsigned int)(b[0] << 8 | b[1]);
}

/*
 * A packet from the remote's address, @n bytes: an answer to a probe
 * sent, checked against everything the probe carried, or rejected
 * (counted, nothing released). Sent to our address, not a fragment; then
 *  tcp: a RST from the closed port to our (random) source port, its
 *      sequence number a key;
 *  udp: ICMP port unreachable quoting an IPv4 header of UDP from our
 *      address to the remote's, the IP ID a key, the IP length its
 *      probe's, then the UDP header: our source port, the closed port, the
 *      probe's UDP length;
 *  echo, tstamp: the reply (code 0) of our (random) ICMP id, its sequence
 *      number a key, an echo reply as long as its request, a timestamp
 *      reply of 20 bytes.
 */
static int on_answer(const uint8_t *buf, size_t n, uint64_t t)
{
	const struct iphdr *ip = (const struct iphdr *)buf;
	const uint8_t *l4;
	size_t hl, tot;
	unsigned int ipid = ntohs(ip->id);

	hl = ip->ihl * 4u;
	tot = ntohs(ip->tot_len);
	if (ip->version != 4 || hl < sizeof(*ip) || tot < hl + 8 || tot > n ||
	    ip->daddr != local.s_addr || (ntohs(ip->frag_off) & 0x3fff) ||
	    ip->protocol != (ptype == P_TCP ? IPPROTO_TCP : IPPROTO_ICMP))
		return 0;
	l4 = buf + hl;
	switch (ptype) {
	case P_TCP:
		if (tot < hl + 20 || !(l4[13] & 0x04) || be16(l4) != port ||
		    be16(l4 + 2) != sport)
			return 0;
		return answered((uint32_t)l4[4] << 24 | l4[5] << 16 |
				l4[6] << 8 | l4[7], (unsigned int)tot, 0, ipid, t);
	case P_UDP: {
		const struct iphdr *q = (const struct iphdr *)(l4 + 8);
		const uint8_t *qu = l4 + 8 + sizeof(*q);

		if (l4[0] != 3 || l4[1] != 3 || tot < hl + 8 + sizeof(*q) + 8 ||
		    q->version != 4 || q->ihl != 5 || q->protocol != IPPROTO_UDP ||
		    q->saddr != local.s_addr || q->daddr != remote.s_addr ||
		    be16(qu) != sport || be16(qu + 2) != port ||
		    be16(qu + 4) + sizeof(*q) != ntohs(q->tot_len))
			return 0;
		return answered(ntohs(q->id), (unsigned int)tot,
				ntohs(q->tot_len), ipid, t);
	}
	case P_ECHO:
	case P_TSTAMP:
		if (l4[0] != (ptype == P_ECHO ? 0 : 14) || l4[1] ||
		    be16(l4 + 4) != icmp_id ||
		    (ptype == P_TSTAMP && tot < hl + 20))
			return 0;
		return answered(be16(l4 + 6), (unsigned int)tot,
				ptype == P_ECHO ? (unsigned int)(tot - hl + 20) : 0,
				ipid, t);
	}
	return 0;
}

static void on_raw(void)
{
	static uint8_t buf[MAX_PKT];
	ssize_t n;

	for (;;) {
		n = recv(rawrx, buf, sizeof(buf), MSG_DONTWAIT);
		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				return;
			die("raw receive");
		}
		if ((size_t)n < sizeof(struct iphdr) ||
		    ((const struct iphdr *)buf)->saddr != remote.s_addr)
			continue;
		ans_pkt = buf;
		ans_len = (size_t)n;
		if (!on_answer(buf, (size_t)n, now_ns()))
			n_rejected++;
	}
}

/* the packets whose probe went out more than hold_ms ago: dropped */
static void expire(uint64_t t)
{
	uint32_t last = 0;
	struct pending *p;

	while (oldest_unanswered && oldest_unanswered != next_key) {
		p = &tab[oldest_unanswered & (TABLE - 1)];
		if (p->id && p->key == oldest_unanswered) {
			if (t - p->t_probe < (uint64_t)hold_ms * 1000000ull)
				break;
			n_expired++;
			trace_line(t, "expired", p->key, p, 0, -1);
			last = p->id;
			p->id = 0;
		}
		oldest_unanswered = key_after(oldest_unanswered);
	}
	/* one verdict for them all, and for anything older still queued */
	if (last)
		nfq_verdict(last, NF_DROP, 1);
}

/* how long a run's end waits for the answers on the way */
#define DRAIN_MS 1000

static uint64_t drain_ns(void)
{
	return (uint64_t)(hold_ms < DRAIN_MS ? hold_ms : DRAIN_MS) * 1000000ull;
}

/* a held packet whose probe went out less than the drain time ago */
static int young_pending(uint64_t t)
{
	uint32_t k = oldest_unanswered;
	const struct pending *p;

	while (k && k != next_key) {
		p = &tab[k & (TABLE - 1)];
		if (p->id && p->key == k && t - p->t_probe < drain_ns())
			return 1;
		k = key_after(k);
	}
	return 0;
}

/* at the end, after the drain: the packets still held, their probes not
 * answered, not yet expired (lost, or an answer slower than the drain);
 * each a "held" line in the trace; returns their count */
static uint64_t held_at_end(uint64_t t)
{
	uint32_t k = oldest_unanswered;
	uint64_t n = 0;
	struct pending *p;

	while (k && k != next_key) {
		p = &tab[k & (TABLE - 1)];
		if (p->id && p->key == k) {
			trace_line(t, "held", p->key, p, 0, -1);
			n++;
		}
		k = key_after(k);
	}
	return n;
}

/*
 * -c: three probes of 100 bytes 300 ms apart, and up to 3 s for their
 * answers; exit 0 if any came, 3 if none did.
 */
static int check(void)
{
	struct pollfd pfd = { .fd = rawrx, .events = POLLIN };
	uint64_t t0 = now_ns(), t;
	uint32_t k = first_key, i;

	for (i = 0;;) {
		t = now_ns();
		if (i < 3 && t - t0 >= i * 300000000ull) {
			struct pending *p = &tab[k & (TABLE - 1)];

			p->key = k;
			p->wire = probe_len(100);
			p->t_probe = t;
			if (send_probe(k, 100) < 0)
				die("sending a probe");
			k = key_after(k);
			i++;
		}
		if (n_answered == 3 || t - t0 > 3000000000ull)
			break;
		if (poll(&pfd, 1, 50) > 0)
			on_raw();
	}
	printf("%s probes to %s: %llu of 3 answered\n", probe_names[ptype],
	       inet_ntoa(remote), (unsigned long long)n_answered);
	return n_answered ? 0 : 3;
}

static int cmp32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static void delay_stats(const char *name, uint32_t *v, size_t n)
{
	if (!n) {
		fprintf(stderr, "%s: none\n", name);
		return;
	}
	qsort(v, n, sizeof(*v), cmp32);
	fprintf(stderr, "%s: %zu, median %.1f us, p99 %.1f us, max %.1f us\n",
		name, n, v[n / 2] / 1e3, v[(n * 99) / 100] / 1e3,
		v[n - 1] / 1e3);
}

static void usage(FILE *f)
{
	fprintf(f,
"usage: magnet-monarch-proxy -q QUEUE -r REMOTE [-p tcp|udp|echo|tstamp]\n"
"       [-P PORT] [-H HOLD_MS] [-t TRACE] [-w PCAPNG] [-s] [-b BYTES]\n"
"       magnet-monarch-proxy -c -r REMOTE [-p PROBE] [-P PORT]\n"
"The per-packet part of Monarch, run by `magnet-exp monarch`\n"
"(docs/monarch.md): each packet of NFQUEUE queue QUEUE is accepted once the\n"
"probe of its size sent to REMOTE is answered, dropped if no answer comes\n"
"within HOLD_MS (5000).\n"
"  -p  the probe: tcp (an ACK to closed port PORT, answered by a RST; the\n"
"      default), udp (to closed port PORT, answered by ICMP port\n"
"      unreachable), echo (ICMP echo), tstamp (ICMP timestamp, 40 bytes)\n"
"  -P  the closed port (33434; 1-65535); the probes' source port is random\n"
"  -t  the trace: a line per probe, response, expiry, unmatched response\n"
"      and queue message lost\n"
"  -w  the probes and answers as pcapng (128 bytes of each), a comment on\n"
"      each: its key, the held packet's TCP sequence number\n"
"      (-t and -w create their files: an existing file or a symbolic link\n"
"      is refused)\n"
"  -b  the queue's netlink receive buffer in bytes (16777216; a small one\n"
"      loses queue messages: for tests)\n"
"  -s  stop when stdin reaches its end (as on SIGINT or SIGTERM)\n"
"  -c  only check that REMOTE answers: three probes; exit 3 if no answer\n"
"      comes in 3 s\n"
"Keys, the source port and the ICMP id are random; an answer releases its\n"
"packet only if all it quotes or echoes is what its probe carried. After\n"
"its setup the proxy runs as nobody with CAP_NET_ADMIN only (verdicts).\n");
}

/* a number option's value: decimal digits only, lo..hi; else says what
 * the option takes and returns -1 */
static int num_opt(int opt, const char *arg, unsigned long lo,
		   unsigned long hi, const char *what, unsigned int *out)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(arg, &end, 10);
	if (*arg < '0' || *arg > '9' || *end || errno || v < lo || v > hi) {
		fprintf(stderr, "magnet-monarch-proxy: -%c %s: %s\n", opt, arg,
			what);
		return -1;
	}
	*out = (unsigned int)v;
	return 0;
}

static void random_bytes(void *p, size_t n)
{
	if (getrandom(p, n, 0) != (ssize_t)n)
		die("getrandom");
}

/*
 * An output file (-t, -w), created: never through a symbolic link, never
 * over an existing file (root writes it, maybe in a directory others can
 * write). Exit 2 with a one-line reason if it is refused.
 */
static FILE *create_out(int opt, const char *path)
{
	struct stat st;
	FILE *f;
	int fd;

	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		  0644);
	if (fd < 0) {
		if (errno == EEXIST || errno == ELOOP) {
			int link = lstat(path, &st) == 0 && S_ISLNK(st.st_mode);

			fprintf(stderr, "magnet-monarch-proxy: -%c %s: %s: refused (the proxy creates its files)\n",
				opt, path, link ? "a symbolic link" : "exists");
			exit(2);
		}
		die(path);
	}
	f = fdopen(fd, "w");
	if (!f)
		die(path);
	return f;
}

/*
 * After the setup: nobody (uid and gid, no supplementary groups) when run
 * as root, no capability but CAP_NET_ADMIN (@keep_admin: nfnetlink checks
 * it on every message, the verdicts too; the raw sockets, open, need
 * nothing), none in the bounding set either, no_new_privs.
 */
static void drop_privileges(int keep_admin)
{
	struct __user_cap_header_struct h = {
		.version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3];
	const struct passwd *pw = getpwnam("nobody");
	uid_t uid = pw ? pw->pw_uid : 65534;
	gid_t gid = pw ? pw->pw_gid : 65534;
	int root = geteuid() == 0, c;

	memset(d, 0, sizeof(d));
	if (prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) < 0)
		die("prctl(PR_SET_KEEPCAPS)");
	for (c = 0; prctl(PR_CAPBSET_READ, c, 0, 0, 0) >= 0; c++)
		if (!(keep_admin && c == CAP_NET_ADMIN) &&
		    prctl(PR_CAPBSET_DROP, c, 0, 0, 0) < 0 && root)
			die("dropping the capability bounding set");
	/* ambient capabilities: none (EINVAL before 4.3) */
	prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
	if (root && (setgroups(0, NULL) < 0 || setgid(gid) < 0 ||
		     setuid(uid) < 0))
		die("dropping root (setgroups, setgid, setuid to nobody)");
	if (keep_admin)
		d[CAP_TO_INDEX(CAP_NET_ADMIN)].permitted =
		d[CAP_TO_INDEX(CAP_NET_ADMIN)].effective = CAP_TO_MASK(CAP_NET_ADMIN);
	if (syscall(SYS_capset, &h, d) < 0)
		die("capset");
	if (prctl(PR_SET_KEEPCAPS, 0, 0, 0, 0) < 0 ||
	    prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		die("prctl(PR_SET_NO_NEW_PRIVS)");
	if (root && setuid(0) == 0) {
		fprintf(stderr, "magnet-monarch-proxy: could take root back after dropping it\n");
		exit(1);
	}
}

int main(int argc, char **argv)
{
	struct pollfd pfd[3];
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t sl = sizeof(sa);
	int c, u, one = 1, use_stdin = 0, i;
	const char *tpath = NULL, *wpath = NULL;
	uint64_t t, last_exp = 0, stop_at = 0;
	struct rusage ru;

	while ((c = getopt(argc, argv, "cq:r:p:P:H:t:w:b:sh")) != -1) {
		switch (c) {
		case 'q':
			if (num_opt('q', optarg, 0, 65535, "not a queue number (0-65535)", &queue_num))
				return 2;
			break;
		case 'r':
			if (inet_pton(AF_INET, optarg, &remote) != 1) {
				fprintf(stderr, "magnet-monarch-proxy: -r %s: not an IPv4 address\n", optarg);
				return 2;
			}
			break;
		case 'p':
			for (i = 0; i < 4; i++)
				if (!strcmp(optarg, probe_names[i]))
					break;
			if (i == 4) {
				fprintf(stderr, "magnet-monarch-proxy: -p %s: not a probe type (tcp, udp, echo, tstamp)\n", optarg);
				return 2;
			}
			ptype = (enum probe)i;
			break;
		case 'P':
			if (num_opt('P', optarg, 1, 65535, "not a port (1-65535)", &port))
				return 2;
			break;
		case 'b': {
			unsigned int b;

			if (num_opt('b', optarg, 4096, 1u << 30, "not a buffer size in bytes (4096-1073741824)", &b))
				return 2;
			nl_rcvbuf = (int)b;
			break;
		}
		case 'H':
			if (num_opt('H', optarg, 1, 600000, "not a hold time in ms (1-600000)", &hold_ms))
				return 2;
			break;
		case 't':
			tpath = optarg;
			break;
		case 'w':
			wpath = optarg;
			break;
		case 's':
			use_stdin = 1;
			break;
		case 'c':
			check_only = 1;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (!remote.s_addr || optind != argc) {
		if (!remote.s_addr)
			fprintf(stderr, "magnet-monarch-proxy: -r REMOTE is needed\n");
		usage(stderr);
		return 2;
	}
	/* our address toward the remote: the probes' source */
	u = socket(AF_INET, SOCK_DGRAM, 0);
	sa.sin_addr = remote;
	sa.sin_port = htons(9);
	if (u < 0 || connect(u, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    getsockname(u, (struct sockaddr *)&sa, &sl) < 0)
		die("no route to the remote address");
	local = sa.sin_addr;
	close(u);
	/* what an answer must echo, unknown to anyone who does not see the
	 * probes: the first key, the ICMP id, the source port (1024-65535,
	 * not the closed port) */
	random_bytes(&first_key, sizeof(first_key));
	if (ptype != P_TCP)
		first_key &= 0xffff;
	if (!first_key)
		first_key = 1;
	next_key = first_key;
	random_bytes(&icmp_id, sizeof(icmp_id));
	do {
		random_bytes(&sport, sizeof(sport));
	} while (sport < 1024 || sport == port);
	/* the output files first: a bad path is said before anything */
	if (tpath && !check_only)
		trace = create_out('t', tpath);
	if (wpath)
		pcap = create_out('w', wpath);

	probe_pattern_init();
	rawtx = socket(AF_INET, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_RAW);
	if (rawtx < 0)
		die("raw socket (needs CAP_NET_RAW)");
	setsockopt(rawtx, IPPROTO_IP, IP_HDRINCL, &one, sizeof(one));
	rawrx = socket(AF_INET, SOCK_RAW | SOCK_CLOEXEC,
		       ptype == P_TCP ? IPPROTO_TCP : IPPROTO_ICMP);
	if (rawrx < 0)
		die("raw socket (needs CAP_NET_RAW)");
	{
		int sz = 16 << 20;

		if (setsockopt(rawrx, SOL_SOCKET, SO_RCVBUFFORCE, &sz, sizeof(sz)) < 0)
			setsockopt(rawrx, SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
	}
	if (pcap) {
		struct timespec rt;

		clock_gettime(CLOCK_REALTIME, &rt);
		rt_off = (int64_t)rt.tv_sec * 1000000000ll + rt.tv_nsec -
			 (int64_t)now_ns();
		pn_begin();
	}
	if (check_only) {
		drop_privileges(0);
		return check();
	}
	nfq_setup();
	nfq_proc = open("/proc/net/netfilter/nfnetlink_queue", O_RDONLY | O_CLOEXEC);
	drop_privileges(1);
	if (trace) {
		fprintf(trace, "# magnet-monarch-proxy: probe %s, remote %s, ",
			probe_names[ptype], inet_ntoa(remote));
		fprintf(trace, "local %s, port %u, hold %u ms\n",
			inet_ntoa(local), port, hold_ms);
		fputs("time_ns\tevent\tkey\tseq\tlen\tdata\twire_len\tip_id\n",
		      trace);
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGPIPE, SIG_IGN);
	fprintf(stderr, "magnet-monarch-proxy: queue %u, %s probes from %s",
		queue_num, probe_names[ptype], inet_ntoa(local));
	fprintf(stderr, " to %s; running as uid %u, capabilities: CAP_NET_ADMIN only\n",
		inet_ntoa(remote), (unsigned int)getuid());

	pfd[0].fd = nl;
	pfd[0].events = POLLIN;
	pfd[1].fd = rawrx;
	pfd[1].events = POLLIN;
	pfd[2].fd = use_stdin ? 0 : -1;
	pfd[2].events = POLLIN;
	for (;;) {
		int r;

		/* told to stop: the answers on the way still come, for up to
		 * DRAIN_MS (or the hold time) after the last probe, so that a
		 * run's last packets are not taken for losses */
		if (stop) {
			t = now_ns();
			if (!stop_at)
				stop_at = t;
			if (!young_pending(t) || t - stop_at >= drain_ns())
				break;
		}
		r = poll(pfd, 3, stop ? 10 : 100);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			die("poll");
		}
		/* responses first: a verdict waits on them */
		if (pfd[1].revents)
			on_raw();
		if (pfd[0].revents)
			on_nl();
		if (pfd[2].revents) {
			char b[256];

			if (read(0, b, sizeof(b)) <= 0) {
				stop = 1;
				pfd[2].fd = -1;
			}
		}
		t = now_ns();
		if (t - last_exp > 50000000ull) {
			expire(t);
			last_exp = t;
			/* after a queue message lost: the ids before the
			 * oldest packet held (expire() found it) */
			if (lost_upto != swept_upto) {
				const struct pending *p =
					&tab[oldest_unanswered & (TABLE - 1)];

				sweep(oldest_unanswered && p->id &&
				      p->key == oldest_unanswered ? p->id : 0);
			}
		}
	}
	lost_at_end(now_ns());
	n_held = held_at_end(now_ns());
	if (trace)
		fclose(trace);
	if (pcap)
		fclose(pcap);
	fprintf(stderr, "magnet-monarch-proxy: %llu packets, %llu probes, %llu answered, %llu expired (no answer in %u ms), %llu answers unmatched, %llu probes not sent, %llu queue messages lost\n",
		(unsigned long long)n_packets, (unsigned long long)n_probes,
		(unsigned long long)n_answered, (unsigned long long)n_expired,
		hold_ms, (unsigned long long)n_unmatched,
		(unsigned long long)n_send_err, (unsigned long long)n_nl_lost);
	fprintf(stderr, "magnet-monarch-proxy: %llu packets from the remote rejected (no answer to a probe sent: address, protocol, port, ICMP id, key or size differ)\n",
		(unsigned long long)n_rejected);
	if (n_nl_lost || n_enobufs)
		fprintf(stderr, "magnet-monarch-proxy: %llu queue messages lost (%llu ENOBUFS; the kernel counted %lld packets dropped for want of room), their packets dropped by the kernel at once; %llu sweeps of their ids, %llu found packets held\n",
			(unsigned long long)n_nl_lost,
			(unsigned long long)n_enobufs, k_user_dropped,
			(unsigned long long)n_sweeps,
			(unsigned long long)n_swept);
	if (n_gone)
		fprintf(stderr, "magnet-monarch-proxy: %llu verdicts for packets the kernel had let go\n",
			(unsigned long long)n_gone);
	if (n_held)
		fprintf(stderr, "magnet-monarch-proxy: %llu packets still held at the end, their answers not come\n",
			(unsigned long long)n_held);
	delay_stats("added delay, packet to probe", d_out, n_out);
	delay_stats("added delay, response to verdict", d_back, n_back);
	/* what the proxy cost the machine: its CPU time per packet, and how
	 * often it waited (voluntary) or was preempted (involuntary) */
	if (getrusage(RUSAGE_SELF, &ru) == 0) {
		double us = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6,
		       sy = ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;

		fprintf(stderr, "cpu: %.3f s user, %.3f s system, %.1f us a packet; %ld voluntary, %ld involuntary context switches\n",
			us, sy, n_packets ? (us + sy) * 1e6 / (double)n_packets : 0.0,
			ru.ru_nvcsw, ru.ru_nivcsw);
	}
	return 0;
}
