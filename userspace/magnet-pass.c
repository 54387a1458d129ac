// SPDX-License-Identifier: GPL-2.0
/*
 * magnet-pass: magnet-exp analyse's pass over every record, in C (#59).
 *
 * It reads the magnet text (ttpb2ascii -f magnet's output, the stable
 * interface; a header line naming the columns, then one record per line,
 * tab-separated) from FILE or standard input, and writes on standard
 * output, as JSON, the state that python/magnet_exp/analyse.py's pass
 * (_pass()) leaves for its end (_finish()): the log's counts and gaps, the
 * flows (connection ends) and what their records added up to, the queues,
 * the one-way delays, TCP's decisions, the modulation and latency tables;
 * with --csv DIR, the flows' CSVs. python/magnet_exp/cpass.py runs it and
 * puts that state into the LogAnalysis. Its "covers" member names every
 * part, and tests/unit/test_pass.py holds each (with --full: also what
 * only the pass itself uses) against the Python pass, and magnet-exp
 * analyse's every file and line both ways, on the unit-test logs.
 *
 * Each part keeps analyse.py's order (an insertion-ordered map where a
 * Python dict's order counts) and its bounds (--bound NAME=N: cpass.py
 * passes analyse.py's own). Without --full, a sequence window is written
 * with only the ranges some flow has yet to settle (all that is read of
 * it after the pass).
 *
 * Three threads (see "reading"): one reads the text into batches of
 * lines, the pass takes them, and one writes the CSVs' rows from the
 * lines the pass took, which need nothing of its state.
 *
 * How the text ended is in the JSON's "end": 0, 2 (a line that is not a
 * record) or 3 (the last line cut short), with ttpb2ascii's messages.
 * Exit status: 0; 1 on an I/O error or no memory; 2 on a bad argument, a
 * file that is not the magnet text, or an event it does not know.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#define MAX_COLS 256
#define MAX_ONE 32		/* analyse.py's _MAX_ONE */

/* the columns the pass reads, by name; -1 where the header has none */
enum col {
	C_TIME, C_CPU, C_EVENT, C_FAMILY, C_LADDR, C_LPORT, C_RADDR, C_RPORT,
	C_NETNS, C_RET, C_LOST, C_IFINDEX, C_SEQ, C_END_SEQ, C_IP_ID,
	C_QDISC, C_QDISC_HANDLE, C_QDISC_QLEN, C_QDISC_BACKLOG, C_SOCK,
	C_STATE, C_PREV_STATE, C_CA_STATE, C_KIND, C_DROP_REASON,
	C_DROP_WHERE, C_LEN, C_RCVBUF, C_RCVBUF_BEFORE, C_WINDOW_CLAMP,
	C_WINDOW_CLAMP_BEFORE, C_RTO_RECOVERY_MS, C_TOTAL_RTO_TIME, C_REQ,
	C_ADVMSS, C_CA_NAME, C_DELIVERED,
	/* analyse.py's _TCP_INTS, in its order */
	C_CWND, C_SSTHRESH, C_SRTT_US, C_RTTVAR_US, C_RTO_US, C_MSS,
	C_PACKETS_OUT, C_RETRANS_OUT, C_TOTAL_RETRANS, C_BYTES_SENT,
	C_BYTES_RETRANS, C_BYTES_ACKED, C_BYTES_RECEIVED, C_SND_UNA,
	C_SND_NXT, C_RCV_NXT, C_MIN_RTT_US, C_RTT_US,
	C_CHRONO, C_BUSY_US, C_RWND_LIMITED_US, C_SNDBUF_LIMITED_US,
	C_REORDERING, C_REORD_SEEN, C_DSACK_DUPS, C_PACING_RATE, C_SND_WND,
	C_WRITE_SEQ,
	/* analyse.py's _RATE_COLS, in its order */
	C_DELIVERY_RATE, C_DELIVERED_CE, C_LOST_OUT, C_SACKED_OUT,
	C_APP_LIMITED, C_BBR_BW, C_BBR_MIN_RTT, C_BBR_PACING_GAIN,
	C_BBR_CWND_GAIN,
	C_NCOLS
};
static const char *const col_names[C_NCOLS] = {
	"time", "cpu", "event", "family", "laddr", "lport", "raddr", "rport",
	"netns", "ret", "lost", "ifindex", "seq", "end_seq", "ip_id",
	"qdisc", "qdisc_handle", "qdisc_qlen", "qdisc_backlog", "sock",
	"state", "prev_state", "ca_state", "kind", "drop_reason",
	"drop_where", "len", "rcvbuf", "rcvbuf_before", "window_clamp",
	"window_clamp_before", "rto_recovery_ms", "total_rto_time", "req",
	"advmss", "ca_name", "delivered",
	"cwnd", "ssthresh", "srtt_us", "rttvar_us", "rto_us", "mss",
	"packets_out", "retrans_out", "total_retrans", "bytes_sent",
	"bytes_retrans", "bytes_acked", "bytes_received", "snd_una",
	"snd_nxt", "rcv_nxt", "min_rtt_us", "rtt_us",
	"chrono", "busy_us", "rwnd_limited_us", "sndbuf_limited_us",
	"reordering", "reord_seen", "dsack_dups", "pacing_rate", "snd_wnd",
	"write_seq",
	"delivery_rate", "delivered_ce", "lost_out", "sacked_out",
	"app_limited", "bbr_bw", "bbr_min_rtt", "bbr_pacing_gain",
	"bbr_cwnd_gain",
};
#define N_TCP_INTS 18
#define TI(c) ((c) - C_CWND)	/* a _TCP_INTS column's index */
static int col[C_NCOLS];

struct field {
	const char *p;
	size_t n;
};

/* the record's line and where each of its fields ends (split()'s), as
 * each thread has it */
static __thread const char *cur;
static __thread const uint32_t *cur_ends;
static int ncols;

/* set once the reader and the CSVs' threads run: exit() would flush the
 * streams they use under them */
static int threads;

static void __attribute__((format(printf, 2, 3), noreturn))
die(int code, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "magnet-pass: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	if (threads)
		_exit(code);
	exit(code);
}

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n);
	if (!p)
		die(1, "out of memory");
	return p;
}

/* field @i of the record */
static inline __attribute__((always_inline)) struct field field_at(int i)
{
	uint32_t s = i ? cur_ends[i - 1] + 1 : 0;

	return (struct field){ cur + s, cur_ends[i] - s };
}

static inline __attribute__((always_inline)) struct field get(enum col c)
{
	struct field f = { "", 0 };

	if (col[c] >= 0)
		f = field_at(col[c]);
	return f;
}

static int is(struct field f, const char *s)
{
	size_t n = strlen(s);

	return f.n == n && !memcmp(f.p, s, n);
}

/* a decimal integer field (Python's int(): an optional sign, digits);
 * @dflt when empty */
static long long num(struct field f, long long dflt)
{
	long long v = 0;
	size_t i = 0;
	int neg = 0;

	if (!f.n)
		return dflt;
	if (f.p[0] == '-' || f.p[0] == '+')
		neg = f.p[i++] == '-';
	for (; i < f.n; i++)
		v = v * 10 + (f.p[i] - '0');
	return neg ? -v : v;
}

/* the record's time, "s.ns", in ns */
static long long time_ns(struct field f)
{
	const char *dot = memchr(f.p, '.', f.n);
	struct field s = { f.p, dot ? (size_t)(dot - f.p) : f.n };
	struct field ns = { dot ? dot + 1 : "", dot ? f.n - s.n - 1 : 0 };

	return num(s, 0) * 1000000000LL + num(ns, 0);
}

/* ---- strings kept: interned, by content ---- */

struct str {
	char *p;
	size_t n;
};

static struct str keep(struct field f)
{
	struct str s = { xrealloc(NULL, f.n + 1), f.n };

	memcpy(s.p, f.p, f.n);
	s.p[f.n] = 0;
	return s;
}

/* @v (>= 0) in decimal, at least @w digits (zeros before), ending at
 * @e; where it starts */
static char *utoa_pad(char *e, unsigned long long v, int w)
{
	do {
		*--e = '0' + v % 10;
		v /= 10;
		w--;
	} while (v || w > 0);
	return e;
}

/* @v in decimal into @b (24 bytes at least), as "%lld"; its length */
static size_t lltoa(char *b, long long v)
{
	char t[24], *e = t + sizeof(t), *p;

	p = utoa_pad(e, v < 0 ? -(unsigned long long)v : (unsigned long long)v,
		     1);
	if (v < 0)
		*--p = '-';
	memcpy(b, p, e - p);
	return e - p;
}

/* @h mixed with @n bytes at @p, 8 at a time */
static uint64_t hash(const char *p, size_t n, uint64_t h)
{
	uint64_t w;

	for (; n >= 8; n -= 8, p += 8) {
		memcpy(&w, p, 8);
		h = (h ^ w) * 0x9e3779b97f4a7c15ULL;
		h ^= h >> 29;
	}
	w = 0;
	memcpy(&w, p, n);
	h = (h ^ w ^ n) * 0x9e3779b97f4a7c15ULL;
	return h ^ (h >> 32);
}

/* ---- an insertion-ordered map of byte-string keys (a Python dict's
 * order: a key taken out and put in again goes last); a key of several
 * fields is them joined by tabs ---- */

struct onode {
	struct onode *prev, *next, *spare;
	uint64_t h;
	char *key;
	size_t klen;
	void *v;
	char kb[];		/* the key, NUL-ended */
};

/* open addressing, linear probing, each slot the node's hash beside it
 * (a probe reads no node but the one it finds); at most half full */
struct slot {
	uint64_t h;
	struct onode *e;
};

struct omap {
	struct slot *b;
	size_t nb, n;
	struct onode *first, *last;
	/* every key the same length, 8 bytes at most: hash() is then one
	 * to one, so an equal hash is an equal key, and a probe reads no
	 * node (the sequence windows' misses in cache) */
	int one_to_one;
	/* nonzero: each node's value is this many bytes of its own, zeroed
	 * when made (the pendings' queues: no pointer to follow) */
	size_t vsize;
};

static char kbuf[4096];
static size_t klen;

/* whether the columns @cs (@n) are side by side in the header, in that
 * order: their text in a line is one span, tabs between */
static int adjacent(const enum col *cs, int n)
{
	int i;

	for (i = 1; i < n && col[cs[i]] == col[cs[0]] + i; i++)
		;
	return i == n && col[cs[0]] >= 0;
}

/* the key of the fields @cs of the record, in kbuf */
static void kmake(const enum col *cs, int n)
{
	int i;

	if (adjacent(cs, n)) {
		/* adjacent in the line (5-tuples): the text between */
		struct field a = get(cs[0]), z = get(cs[n - 1]);

		klen = z.p + z.n - a.p;
		if (klen >= sizeof(kbuf))
			die(2, "a record's fields are too long");
		memcpy(kbuf, a.p, klen);
		kbuf[klen] = 0;
		return;
	}
	klen = 0;
	for (i = 0; i < n; i++) {
		struct field f = get(cs[i]);

		if (klen + f.n + 1 >= sizeof(kbuf))
			die(2, "a record's fields are too long");
		if (i)
			kbuf[klen++] = '\t';
		memcpy(kbuf + klen, f.p, f.n);
		klen += f.n;
	}
	kbuf[klen] = 0;
}

#define HSEED 0xcbf29ce484222325ULL

static struct onode *ofind_h(struct omap *m, const char *k, size_t n,
			     uint64_t h)
{
	size_t i, mask = m->nb - 1;

	if (!m->nb)
		return NULL;
	for (i = h & mask; m->b[i].e; i = (i + 1) & mask)
		if (m->b[i].h == h && (m->one_to_one ||
		    (m->b[i].e->klen == n && !memcmp(m->b[i].e->key, k, n))))
			return m->b[i].e;
	return NULL;
}

/* @m's slot for hash @h brought toward the cache, to be read soon (two
 * maps' misses at once rather than one after the other) */
static inline void oprefetch(const struct omap *m, uint64_t h)
{
	if (m->nb)
		__builtin_prefetch(&m->b[h & (m->nb - 1)]);
}

static struct onode *ofind(struct omap *m, const char *k, size_t n)
{
	return ofind_h(m, k, n, hash(k, n, HSEED));
}

static void oplace(struct slot *b, size_t nb, struct onode *e)
{
	size_t i;

	for (i = e->h & (nb - 1); b[i].e; i = (i + 1) & (nb - 1))
		;
	b[i].h = e->h;
	b[i].e = e;
}

static void ogrow(struct omap *m)
{
	size_t nb = m->nb ? m->nb * 2 : 8;
	struct slot *b = calloc(nb, sizeof(*b));
	struct onode *e;

	if (!b)
		die(1, "out of memory");
	for (e = m->first; e; e = e->next)
		oplace(b, nb, e);
	free(m->b);
	m->b = b;
	m->nb = nb;
}

/* nodes freed, by their room after the node (key and value: 16 to 128
 * bytes), for reuse */
#define SPARE_ROOMS 8
static struct onode *spare[SPARE_ROOMS];

/* a node's room after its fields, in 16s: key @n bytes and a NUL, then
 * the map's own value */
static size_t node_room(const struct omap *m, size_t n)
{
	return (n + 16) / 16 + (m->vsize + 15) / 16;
}

static struct onode *node_new(const struct omap *m, size_t n)
{
	size_t c = node_room(m, n);
	struct onode *e;

	if (c <= SPARE_ROOMS && spare[c - 1]) {
		e = spare[c - 1];
		spare[c - 1] = e->spare;
	} else {
		e = malloc(sizeof(*e) + c * 16);
		if (!e)
			die(1, "out of memory");
	}
	return e;
}

static void node_free(const struct omap *m, struct onode *e)
{
	size_t c = node_room(m, e->klen);

	if (c <= SPARE_ROOMS) {
		e->spare = spare[c - 1];
		spare[c - 1] = e;
	} else {
		free(e);
	}
}

/* the node of key @k (of hash @h), made (its value NULL) at the end if
 * new */
static struct onode *oget_h(struct omap *m, const char *k, size_t n,
			    uint64_t h)
{
	struct onode *e = ofind_h(m, k, n, h);

	if (e)
		return e;
	if ((m->n + 1) * 2 > m->nb)
		ogrow(m);
	e = node_new(m, n);
	e->h = h;
	e->key = e->kb;
	memcpy(e->kb, k, n);
	e->kb[n] = 0;
	e->klen = n;
	e->v = NULL;
	if (m->vsize) {
		e->v = e->kb + (n + 16) / 16 * 16;
		memset(e->v, 0, m->vsize);
	}
	oplace(m->b, m->nb, e);
	e->prev = m->last;
	e->next = NULL;
	if (m->last)
		m->last->next = e;
	else
		m->first = e;
	m->last = e;
	m->n++;
	return e;
}

static struct onode *oget(struct omap *m, const char *k, size_t n)
{
	return oget_h(m, k, n, hash(k, n, HSEED));
}

/* @e put last in @m's order, as if taken out and put in again */
static void olast(struct omap *m, struct onode *e)
{
	if (!e->next)
		return;
	if (e->prev)
		e->prev->next = e->next;
	else
		m->first = e->next;
	e->next->prev = e->prev;
	e->prev = m->last;
	e->next = NULL;
	m->last->next = e;
	m->last = e;
}

/* takes @e out of @m and frees it (not its value): its slot emptied and
 * the probe sequences after it closed up (backward shift) */
static void odel(struct omap *m, struct onode *e)
{
	size_t mask = m->nb - 1, i, j, k;

	for (i = e->h & mask; m->b[i].e != e; i = (i + 1) & mask)
		;
	for (j = i;;) {
		j = (j + 1) & mask;
		if (!m->b[j].e)
			break;
		k = m->b[j].h & mask;
		/* the node at j may move to i unless its home k lies
		 * cyclically in (i, j] */
		if (i <= j ? (i < k && k <= j) : (i < k || k <= j))
			continue;
		m->b[i] = m->b[j];
		i = j;
	}
	m->b[i].e = NULL;
	if (e->prev)
		e->prev->next = e->next;
	else
		m->first = e->next;
	if (e->next)
		e->next->prev = e->prev;
	else
		m->last = e->prev;
	m->n--;
	node_free(m, e);
}

/* a counter's value: its node's, as a long long in the pointer's place */
static long long *ocount(struct omap *m, const char *k, size_t n)
{
	struct onode *e = oget(m, k, n);

	if (!e->v) {
		e->v = calloc(1, sizeof(long long));
		if (!e->v)
			die(1, "out of memory");
	}
	return e->v;
}

static void *xcalloc(size_t n)
{
	void *p = calloc(1, n);

	if (!p)
		die(1, "out of memory");
	return p;
}

/* ---- growable arrays ---- */

struct lla {
	long long *v;
	size_t n, cap;
};

static void lla_push(struct lla *a, long long x)
{
	if (a->n == a->cap) {
		a->cap = a->cap ? a->cap * 2 : 16;
		a->v = xrealloc(a->v, a->cap * sizeof(*a->v));
	}
	a->v[a->n++] = x;
}

/* the reversed 5-tuple of the record (family, raddr, rport, laddr,
 * lport: its peer's end) into kbuf */
static const enum col k5_cols[5] = {
	C_FAMILY, C_LADDR, C_LPORT, C_RADDR, C_RPORT
};
static const enum col peer5_cols[5] = {
	C_FAMILY, C_RADDR, C_RPORT, C_LADDR, C_LPORT
};

static struct omap live;	/* 5-tuple -> struct lla of flow indexes */

/* ---- the flows: a connection end's key is family, local address and
 * port, remote address and port, netns (analyse.py's _key()) ---- */

enum layer { L_APP, L_TCP, L_IP, L_DEV, L_OTHER };
static const char *const layer_names[] = { "app", "tcp", "ip", "dev" };

/* what is looked up by the record's flow key (its 6 fields), in a
 * struct ktab: a struct keyed first in it */
struct keyed {
	struct str key[6];
	uint64_t h;
};

struct flow {
	struct keyed id;
	long long first_ns, last_ns;
	unsigned seen_layers;		/* 1 << enum layer */
	long long app_events, app_written, app_read;
	long long app_one_sent[MAX_ONE], app_one_read[MAX_ONE];
	int n_one_sent, n_one_read;
	/* the congestion state of its last record with one (ca_prev, a
	 * number's text, "" for none yet), the states entered, the changes
	 * kept (their times: ns, a double when a decision's) */
	char ca_prev[16];
	int have_ca_prev;
	struct omap ca_entered;
	struct ca_change *ca_changes;
	size_t n_ca_changes, cap_ca_changes;
	/* the TCP records' (analyse.py's _tcp) */
	long long tcp_records, state, advmss;
	long long last_tcp[N_TCP_INTS];
	int have_last_tcp, sent_tcp;
	struct omap ca_names;		/* ca_name -> (none) */
	struct omap ca_bytes;		/* ca_name -> bytes */
	long long inflight_max, arrived;
	long long syn_out, tcp_in_first, data_out_first;	/* -1: none */
	long long data_in_first, data_in_last;			/* -1: none */
	struct omap rtt_samples;	/* us -> count */
	long long min_rtt_us;		/* -1: none */
	long long srtt_sum, srtt_n, srtt_max, cwnd_max;
	double ca_first;
	int have_ca_first;
	struct lla acked_b;
	double *acked_t;
	size_t cap_acked_t;
	struct series *series, *detail;
	/* the sequence windows (analyse.py's _Window) and what they feed:
	 * the loss places (_settle_retx) and the ranges between layers */
	struct window *sent, *got_dev, *got_tcp;
	struct omap retx;		/* seq, end (8 bytes) -> sends */
	long long loss[5], retx_unplaced;
	struct omap out_ranges;		/* seq, end -> count (may be < 0) */
	struct omap in_pending;		/* seq, end -> count */
	struct omap in_starts;		/* seq (4 bytes) -> omap end -> n */
	uint32_t in_high;		/* the highest end of in_pending's */
	int have_in_high;
	long long in_tcp_only;
	/* the peer's IP IDs per layer (0 dev, 1 ip) */
	long long peer_id[2];
	int have_peer_id[2], have_holes[2];
	struct omap id_holes[2];	/* id (8 bytes) -> time */
	long long id_lost[2][2];	/* holes never filled, the first's t */
	int have_id_lost[2];
	long long id_late[2];
	int have_id_late[2];
	struct limits *limits;		/* limits.py's Limits, or NULL */
	size_t idx;			/* its place in flows[] */
	struct modk *mod[2][4];		/* modulation.py's, by dir, layer */
	long long (*reads)[2];		/* Latency.reads: (end_seq, t), */
	size_t r_head, n_reads, cap_reads;	/* from reads[r_head] */
};

struct ca_change {
	double t;
	long long t_ns;
	int is_double;
	const char *name;
};

static long long max_ca_changes = 10000;	/* _MAX_CA_CHANGES */

static const enum col key_cols[6] = {
	C_FAMILY, C_LADDR, C_LPORT, C_RADDR, C_RPORT, C_NETNS
};

static uint64_t key_hash(void)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	int i;

	if (adjacent(key_cols, 5)) {
		/* the text from family to rport */
		struct field a = get(C_FAMILY), z = get(C_RPORT);

		h = hash(a.p, z.p + z.n - a.p, h);
		a = get(C_NETNS);
		return hash(a.p, a.n, h);
	}

	for (i = 0; i < 6; i++) {
		struct field f = get(key_cols[i]);

		h = hash(f.p, f.n, h);
		h = hash("\t", 1, h);
	}
	return h;
}

static int key_is(const struct keyed *k)
{
	int i;

	for (i = 0; i < 6; i++) {
		struct field f = get(key_cols[i]);

		if (f.n != k->key[i].n || memcmp(f.p, k->key[i].p, f.n))
			return 0;
	}
	return 1;
}

/* open addressing, a power of 2, at most half full; and all, in the
 * order found */
struct ktab {
	struct keyed **t, **all;
	size_t size, n, cap_all;
};

static void ktab_grow(struct ktab *k)
{
	size_t i, n = k->size ? k->size * 2 : 1024;
	struct keyed **t = calloc(n, sizeof(*t));

	if (!t)
		die(1, "out of memory");
	for (i = 0; i < k->size; i++) {
		size_t j;

		if (!k->t[i])
			continue;
		for (j = k->t[i]->h & (n - 1); t[j]; j = (j + 1) & (n - 1))
			;
		t[j] = k->t[i];
	}
	free(k->t);
	k->t = t;
	k->size = n;
}

/* the record's in @k (its key's hash @h), NULL if none; @slot: where it
 * goes (ktab_get) */
static struct keyed *ktab_find(struct ktab *k, uint64_t h, size_t *slot)
{
	size_t j;

	if ((k->n + 1) * 2 > k->size)
		ktab_grow(k);
	for (j = h & (k->size - 1); k->t[j]; j = (j + 1) & (k->size - 1))
		if (k->t[j]->h == h && key_is(k->t[j]))
			return k->t[j];
	*slot = j;
	return NULL;
}

/* the record's in @k: found, or made (@size bytes, zeroed, a struct
 * keyed first) and keyed by the record (*@made set) */
static void *ktab_get(struct ktab *k, size_t size, int *made)
{
	uint64_t h = key_hash();
	struct keyed *x;
	size_t slot;
	int i;

	x = ktab_find(k, h, &slot);
	*made = !x;
	if (x)
		return x;
	x = xcalloc(size);
	for (i = 0; i < 6; i++)
		x->key[i] = keep(get(key_cols[i]));
	x->h = h;
	k->t[slot] = x;
	if (k->n == k->cap_all) {
		k->cap_all = k->cap_all ? k->cap_all * 2 : 64;
		k->all = xrealloc(k->all, k->cap_all * sizeof(*k->all));
	}
	k->all[k->n++] = x;
	return x;
}

static struct ktab ftab;	/* the flows */
#define nflows (ftab.n)
#define flows ((struct flow **)ftab.all)

/* the record's flow, made at @t_ns if new */
static struct flow *flow_of(long long t_ns)
{
	int made;
	struct flow *fl = ktab_get(&ftab, sizeof(*fl), &made);

	if (!made)
		return fl;
	fl->idx = nflows - 1;
	fl->first_ns = fl->last_ns = t_ns;
	fl->syn_out = fl->tcp_in_first = fl->data_out_first = -1;
	fl->data_in_first = fl->data_in_last = -1;
	fl->min_rtt_us = -1;
	{
		struct onode *e;

		kmake(k5_cols, 5);
		e = oget(&live, kbuf, klen);
		if (!e->v)
			e->v = xcalloc(sizeof(struct lla));
		lla_push(e->v, fl->idx);
	}
	return fl;
}

/* the record's flow, NULL if none yet */
static struct flow *flow_find(void)
{
	size_t j;

	return (struct flow *)ktab_find(&ftab, key_hash(), &j);
}

/* ---- small maps: a netns's events, a CPU's last record ---- */

struct count {
	struct str k;
	long long v;
};

struct counts {
	struct count *e;
	size_t n, cap;
};

static struct count *count_of(struct counts *c, struct field k)
{
	size_t i;

	for (i = 0; i < c->n; i++)
		if (c->e[i].k.n == k.n && !memcmp(c->e[i].k.p, k.p, k.n))
			return &c->e[i];
	if (c->n == c->cap) {
		c->cap = c->cap ? c->cap * 2 : 16;
		c->e = xrealloc(c->e, c->cap * sizeof(*c->e));
	}
	c->e[c->n].k = keep(k);
	c->e[c->n].v = 0;
	return &c->e[c->n++];
}

static struct count *count_find(struct counts *c, struct field k)
{
	size_t i;

	for (i = 0; i < c->n; i++)
		if (c->e[i].k.n == k.n && !memcmp(c->e[i].k.p, k.p, k.n))
			return &c->e[i];
	return NULL;
}

/* ---- modulation.py's Stat: count, sum, min, max, bins 1% wide ---- */

struct stat {
	long long n, sum, lo, hi;
	long long *bins;	/* bin + 1 (bin -1: values <= 0) -> count */
	size_t nbins;
};

static double stat_base;	/* log(1.01) */

static void stat_add(struct stat *st, long long v)
{
	long long bin = v <= 0 ? -1 : (long long)(log((double)v) / stat_base);
	size_t i = bin + 1;

	if (!st->n || v < st->lo)
		st->lo = v;
	if (!st->n || v > st->hi)
		st->hi = v;
	st->n++;
	st->sum += v;
	if (i >= st->nbins) {
		size_t n = i + 64;

		st->bins = xrealloc(st->bins, n * sizeof(*st->bins));
		memset(st->bins + st->nbins, 0,
		       (n - st->nbins) * sizeof(*st->bins));
		st->nbins = n;
	}
	st->bins[i]++;
}

/* ---- view.py's Envelope: (t, min, max, last) points, at most cap, then
 * buckets of a width doubled as needed ---- */

static long long max_buckets = 20000;	/* view.py's MAX_BUCKETS */

struct pt {
	double t, lo, hi, last;
};

struct envelope {
	struct pt *p;
	size_t n, cap;
	double width, t0;
	long long count;
};

static void env_coarser(struct envelope *e, double t)
{
	double span = t - e->t0 > 1e-9 ? t - e->t0 : 1e-9;
	double w = e->width ? e->width * 2 : span / (max_buckets / 2.0);
	size_t i, o = 0;

	for (i = 0; i < e->n; i++) {
		struct pt q = e->p[i];
		double k = e->t0 + (double)(long long)((q.t - e->t0) / w) * w;

		if (o && e->p[o - 1].t == k) {
			struct pt *r = &e->p[o - 1];

			if (q.lo < r->lo)
				r->lo = q.lo;
			if (q.hi > r->hi)
				r->hi = q.hi;
			r->last = q.last;
		} else {
			e->p[o] = q;
			e->p[o++].t = k;
		}
	}
	e->n = o;
	e->width = w;
}

static void env_add(struct envelope *e, double t, double v)
{
	double b = t;

	if (!e->count++)
		e->t0 = t;
	if (e->width) {
		b = e->t0 + (double)(long long)((t - e->t0) / e->width) *
			e->width;
		if (e->n && e->p[e->n - 1].t == b) {
			struct pt *q = &e->p[e->n - 1];

			if (v < q->lo)
				q->lo = v;
			if (v > q->hi)
				q->hi = v;
			q->last = v;
			return;
		}
	}
	if (e->n == e->cap) {
		e->cap = e->cap ? e->cap * 2 : 64;
		e->p = xrealloc(e->p, e->cap * sizeof(*e->p));
	}
	e->p[e->n++] = (struct pt){ b, v, v, v };
	if ((long long)e->n > max_buckets)
		env_coarser(e, t);
}

/* ---- analyse.py's _Pending: per packet, the times (and a number) of
 * its earlier events, oldest first, at most LIMIT in all ---- */

static long long pending_limit = 65536;	/* _Pending.LIMIT */

struct pval {
	long long t, x;		/* x: a qdisc's qlen, -1 for none */
};

struct pq {
	struct pval *v;		/* one: in one (the usual), else heap */
	size_t head, n, cap;
	struct pval one;
};

struct pending {
	struct omap d;
	long long n;
};

/* a queue's values beyond its first freed (the queue itself is its
 * node's value) */
static void pq_free(struct pq *q)
{
	if (q->v != &q->one)
		free(q->v);
}

static void pending_add(struct pending *p, const char *k, size_t kn,
			uint64_t h, long long t, long long x)
{
	struct onode *e = oget_h(&p->d, k, kn, h);
	struct pq *q = e->v;

	if (!q->v) {
		q->v = &q->one;
		q->cap = 1;
	}
	if (q->head + q->n == q->cap) {
		if (q->head) {
			memmove(q->v, q->v + q->head, q->n * sizeof(*q->v));
			q->head = 0;
		}
		if (q->n == q->cap) {
			struct pval *v = xrealloc(q->v == &q->one ? NULL :
						  q->v, q->cap * 2 *
						  sizeof(*q->v));

			if (q->v == &q->one)
				v[0] = q->one;
			q->v = v;
			q->cap *= 2;
		}
	}
	q->v[q->head + q->n++] = (struct pval){ t, x };
	if (++p->n > pending_limit) {
		int i;

		for (i = 0; i < 4096 && p->d.first; i++) {
			struct onode *old = p->d.first;
			struct pq *oq = old->v;

			p->n -= oq->n;
			pq_free(oq);
			odel(&p->d, old);
		}
	}
}

/* the oldest of key @k's, taken; 0 if none */
static int pending_take(struct pending *p, const char *k, size_t kn,
			uint64_t h, struct pval *out)
{
	struct onode *e = ofind_h(&p->d, k, kn, h);
	struct pq *q;

	if (!e)
		return 0;
	q = e->v;
	*out = q->v[q->head++];
	q->n--;
	p->n--;
	if (!q->n) {
		pq_free(q);
		odel(&p->d, e);
	}
	return 1;
}

/* ---- the log's state (analyse.py's LogAnalysis and _pass()'s) ---- */

struct gap {
	long long start, t;
	long long lost, misses;	/* misses < 0: a reset's discard */
	struct str cpu;
};

static long long records, events, lost, misses, discarded;
static long long t0 = -1, t_end;
static unsigned layers;
static struct counts ns_events, cpu_last;
static struct gap *gaps;
static size_t ngaps, cap_gaps;
/* --devices: the ifindexes whose device records count (none: all) */
static struct counts devices;
static int have_devices;

static void add_gap(long long start, long long t, long long n, long long m,
		    struct field cpu)
{
	if (ngaps == cap_gaps) {
		cap_gaps = cap_gaps ? cap_gaps * 2 : 16;
		gaps = xrealloc(gaps, cap_gaps * sizeof(*gaps));
	}
	gaps[ngaps].start = start;
	gaps[ngaps].t = t;
	gaps[ngaps].lost = n;
	gaps[ngaps].misses = m;
	gaps[ngaps].cpu = keep(cpu);
	ngaps++;
}

static enum layer layer_of(struct field ev)
{
	const char *u = memchr(ev.p, '_', ev.n);
	struct field l = { ev.p, u ? (size_t)(u - ev.p) : ev.n };

	if (is(l, "app"))
		return L_APP;
	if (is(l, "tcp"))
		return L_TCP;
	if (is(l, "ip"))
		return L_IP;
	if (is(l, "dev"))
		return L_DEV;
	return L_OTHER;
}

/* ---- analyse.py's Queues: a packet's wait in its device's qdisc, and
 * its way through the device (dev_out to wire_out) ---- */

static struct {
	struct pending devout, enq, toward;
	struct omap stats;	/* netns, ifindex, "qdisc handle", basis */
	struct omap ahead;	/* the same -> omap: packets ahead -> count */
	struct omap handed, left;	/* netns, ifindex -> count */
	struct omap through;	/* the same -> struct stat */
	struct omap fill;	/* the same -> struct fill */
	struct omap first;	/* the same -> "qdisc handle" (a char *) */
	struct omap longest;	/* netns, ifindex, "qdisc handle" -> qlen */
	int enq_seen;
	struct omap sojourns;	/* netns, ifindex -> struct envelope */
} qu;

struct fill {
	long long qlen, backlog;
	char *name;
};

static const enum col packet_cols[9] = {
	C_NETNS, C_IFINDEX, C_LADDR, C_LPORT, C_RADDR, C_RPORT, C_SEQ,
	C_END_SEQ, C_IP_ID
};

/* fields @a and @b joined by @sep into @out (@cap bytes); its length */
static size_t join2(char *out, size_t cap, enum col a, char sep, enum col b)
{
	struct field x = get(a), y = get(b);

	if (x.n + y.n + 2 > cap)
		die(2, "a record's fields are too long");
	memcpy(out, x.p, x.n);
	out[x.n] = sep;
	memcpy(out + x.n + 1, y.p, y.n);
	out[x.n + 1 + y.n] = 0;
	return x.n + 1 + y.n;
}

/* the device's key (netns, ifindex) into @b; its length */
static size_t dev_key(char *b, size_t cap)
{
	return join2(b, cap, C_NETNS, '\t', C_IFINDEX);
}

static void q_dev_out(long long t)
{
	char dk[512];
	size_t n = dev_key(dk, sizeof(dk));
	uint64_t h;

	kmake(packet_cols, 9);
	h = hash(kbuf, klen, HSEED);
	oprefetch(&qu.devout.d, h);
	oprefetch(&qu.toward.d, h);
	pending_add(&qu.devout, kbuf, klen, h, t, -1);
	pending_add(&qu.toward, kbuf, klen, h, t, -1);
	(*ocount(&qu.handed, dk, n))++;
}

static void q_wire(long long t)
{
	char dk[512];
	size_t n = dev_key(dk, sizeof(dk));
	struct pval v;

	kmake(packet_cols, 9);
	(*ocount(&qu.left, dk, n))++;
	if (pending_take(&qu.toward, kbuf, klen,
			 hash(kbuf, klen, HSEED), &v)) {
		struct onode *e = oget(&qu.through, dk, n);

		if (!e->v)
			e->v = xcalloc(sizeof(struct stat));
		stat_add(e->v, t - v.t);
	}
}

/* the qdisc's name, "kind handle", into @b */
static size_t qdisc_name(char *b, size_t cap)
{
	return join2(b, cap, C_QDISC, ' ', C_QDISC_HANDLE);
}

static void q_enqueued(long long t)
{
	struct field ql = get(C_QDISC_QLEN);

	kmake(packet_cols, 9);
	pending_add(&qu.enq, kbuf, klen, hash(kbuf, klen, HSEED), t,
		    ql.n ? num(ql, 0) : -1);
	if (ql.n) {
		char dk[1024], name[512];
		size_t n = dev_key(dk, 512), nn = qdisc_name(name, sizeof(name));
		long long qlen = num(ql, 0), *longest;
		struct onode *e = oget(&qu.fill, dk, n);
		struct fill *f = e->v;

		if (!f)
			f = e->v = xcalloc(sizeof(*f));
		free(f->name);
		f->qlen = qlen;
		f->backlog = num(get(C_QDISC_BACKLOG), 0);
		f->name = keep((struct field){ name, nn }).p;
		e = oget(&qu.first, dk, n);
		if (!e->v)
			e->v = keep((struct field){ name, nn }).p;
		dk[n] = '\t';
		memcpy(dk + n + 1, name, nn + 1);
		e = ofind(&qu.longest, dk, n + 1 + nn);
		if (qlen > (e ? *(long long *)e->v : 0)) {
			longest = ocount(&qu.longest, dk, n + 1 + nn);
			*longest = qlen;
		}
	}
	qu.enq_seen = 1;
}

static void q_dequeued(long long t)
{
	struct pval dv, ev;
	int have_dev, have_enq;
	long long from, qlen;
	const char *basis;
	char key[1200], name[512];
	size_t n;
	struct onode *e;
	struct envelope *env;
	uint64_t h;

	kmake(packet_cols, 9);
	h = hash(kbuf, klen, HSEED);
	have_dev = pending_take(&qu.devout, kbuf, klen, h, &dv);
	have_enq = pending_take(&qu.enq, kbuf, klen, h, &ev);
	if (have_enq) {
		from = ev.t;
		qlen = ev.x;
		basis = "enqueue";
	} else if (have_dev) {
		from = dv.t;
		qlen = -1;
		basis = "dev_out";
	} else {
		return;
	}
	n = dev_key(key, 512);
	qdisc_name(name, sizeof(name));
	n += snprintf(key + n, sizeof(key) - n, "\t%s\t%s", name, basis);
	e = oget(&qu.stats, key, n);
	if (!e->v)
		e->v = xcalloc(sizeof(struct stat));
	stat_add(e->v, t - from);
	if (qlen > 0) {
		char b[32];

		e = oget(&qu.ahead, key, n);
		if (!e->v)
			e->v = xcalloc(sizeof(struct omap));
		(*ocount(e->v, b, lltoa(b, qlen - 1)))++;
	}
	n = dev_key(key, 512);
	e = oget(&qu.sojourns, key, n);
	if (!e->v)
		e->v = xcalloc(sizeof(struct envelope));
	env = e->v;
	env_add(env, (t - t0) / 1e9, (t - from) / 1e6);
}

/* the first index whose value is above @x (bisect_right) */
static size_t bisect_right(const long long *v, size_t n, long long x)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (x < v[mid])
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/* kbuf += "\t" the field's text */
static void kappend(const char *p, size_t n)
{
	if (klen + n + 2 >= sizeof(kbuf))
		die(2, "a record's fields are too long");
	kbuf[klen++] = '\t';
	memcpy(kbuf + klen, p, n);
	klen += n;
	kbuf[klen] = 0;
}

/* ---- analyse.py's Received: per receiving end (its 5-tuple and
 * namespace), the sequence ranges its host got, merged, as offsets
 * counted on past 4 GiB; per segment a sender sends, whether the peer
 * had got it all by then ---- */

static long long recv_sent = 4096;	/* Received.SENT */

struct rend {
	long long base, hi;	/* the first start; the highest start's offset */
	long long (*iv)[2];	/* sorted disjoint [start, end) offsets */
	size_t n, cap;
};

static struct {
	struct omap d;		/* 5-tuple, netns -> struct rend */
	struct omap end_ns;	/* 5-tuple -> netns (a char *) */
	struct omap at_send;	/* 5-tuple, seq, end -> 0, 1 or 2 (None) */
} rc;

static long long r_off(uint32_t seq, const struct rend *e)
{
	uint32_t o = (uint32_t)(seq - (uint32_t)e->base - (uint32_t)e->hi);

	return e->hi + (o >= 0x80000000u ? (long long)o - 0x100000000LL :
			(long long)o);
}

static void r_add(struct rend *e, long long seq, long long end)
{
	long long s = r_off(seq, e), t;
	size_t i, j, n = e->n;

	if (s > e->hi)
		e->hi = s;
	t = s + (uint32_t)(end - seq);
	if (n && e->iv[n - 1][0] <= s && s <= e->iv[n - 1][1]) {
		if (t > e->iv[n - 1][1])
			e->iv[n - 1][1] = t;
		return;
	}
	/* bisect_left(iv, [s, s]): the first range starting at s or above */
	{
		size_t lo = 0, hi = n;

		while (lo < hi) {
			size_t mid = (lo + hi) / 2;

			if (e->iv[mid][0] < s)
				lo = mid + 1;
			else
				hi = mid;
		}
		i = lo;
	}
	if (i > 0 && e->iv[i - 1][1] >= s)
		i--;
	j = i;
	while (j < n && e->iv[j][0] <= t) {
		if (e->iv[j][0] < s)
			s = e->iv[j][0];
		if (e->iv[j][1] > t)
			t = e->iv[j][1];
		j++;
	}
	/* iv[i:j] = [[s, t]] */
	if (j == i) {
		if (n == e->cap) {
			e->cap = e->cap ? e->cap * 2 : 8;
			e->iv = xrealloc(e->iv, e->cap * sizeof(*e->iv));
		}
		memmove(e->iv + i + 1, e->iv + i, (n - i) * sizeof(*e->iv));
		e->n++;
	} else if (j > i + 1) {
		memmove(e->iv + i + 1, e->iv + j, (n - j) * sizeof(*e->iv));
		e->n -= j - i - 1;
	}
	e->iv[i][0] = s;
	e->iv[i][1] = t;
}

/* 1 if the end's host got all of [seq, end), 0 if not, 2 if nothing */
static int r_covers(const char *k, size_t kn, long long seq, long long end)
{
	struct onode *n = ofind(&rc.d, k, kn);
	struct rend *e;
	long long s, t;
	size_t lo = 0, hi;

	if (!n)
		return 2;
	e = n->v;
	s = r_off(seq, e);
	t = s + (uint32_t)(end - seq);
	/* bisect_right(iv, [s, inf]) - 1: the last range starting at s or
	 * below */
	hi = e->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (s < e->iv[mid][0])
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo > 0 && e->iv[lo - 1][0] <= s && t <= e->iv[lo - 1][1];
}

static void r_event(int tcp_out, int tcp_in, long long seq, long long end)
{
	struct field ns = get(C_NETNS);
	struct onode *n;

	if (tcp_out) {
		char peer[1024];
		size_t pn;

		kmake(peer5_cols, 5);
		n = ofind(&rc.end_ns, kbuf, klen);
		if (!n)
			return;
		kappend(n->v, strlen(n->v));
		memcpy(peer, kbuf, klen + 1);
		pn = klen;
		kmake(k5_cols, 5);
		{
			char b[64];
			int c = r_covers(peer, pn, seq, end);

			kappend(b, lltoa(b, seq));
			kappend(b, lltoa(b, end));
			n = ofind(&rc.at_send, kbuf, klen);
			if (n)
				odel(&rc.at_send, n);
			n = oget(&rc.at_send, kbuf, klen);
			n->v = (void *)(intptr_t)(c + 1);
			if ((long long)rc.at_send.n > recv_sent)
				odel(&rc.at_send, rc.at_send.first);
		}
		return;
	}
	kmake(k5_cols, 5);
	if (tcp_in) {
		n = oget(&rc.end_ns, kbuf, klen);
		free(n->v);
		n->v = keep(ns).p;
	}
	kappend(ns.p, ns.n);
	n = oget(&rc.d, kbuf, klen);
	if (!n->v) {
		struct rend *e = n->v = xcalloc(sizeof(*e));

		e->base = seq;
	}
	r_add(n->v, seq, end);
}

/* a state change of the record's end: it exists, in its namespace */
static void r_end(void)
{
	struct onode *n;

	kmake(k5_cols, 5);
	n = oget(&rc.end_ns, kbuf, klen);
	free(n->v);
	n->v = keep(get(C_NETNS)).p;
}

/* ---- analyse.py's OneWay: each data segment's delay from the sender's
 * host to the receiver's, per layer ---- */

static long long oneway_sends = 65536;	/* OneWay.SENDS */

struct sends {
	long long ref, ref_off;
	struct lla starts, ends, ts, again;
};

static struct {
	struct omap sender_ns;	/* 5-tuple -> netns (a char *) */
	struct omap sends;	/* 5-tuple, layer -> struct sends */
	struct omap delays;	/* 5-tuple, layer, netns -> omap of us */
	struct omap again;	/* 5-tuple, layer -> count */
} ow;

static long long ow_off(long long base, long long seq)
{
	uint32_t o = (uint32_t)(seq - base);

	return o >= 0x80000000u ? (long long)o - 0x100000000LL : (long long)o;
}

static void ow_event(struct field ev, long long seq, long long end,
		     long long t)
{
	struct field ns = get(C_NETNS);
	const char *u = memchr(ev.p, '_', ev.n);
	size_t ln = u - ev.p;
	struct onode *n;
	struct sends *s;
	long long a, b;
	size_t i;

	if (is((struct field){ u, ev.n - ln }, "_out")) {
		kmake(k5_cols, 5);
		if (is(ev, "tcp_out")) {
			n = oget(&ow.sender_ns, kbuf, klen);
			if (!n->v)
				n->v = keep(ns).p;
		} else {
			n = ofind(&ow.sender_ns, kbuf, klen);
		}
		if (!n || strlen(n->v) != ns.n || memcmp(n->v, ns.p, ns.n))
			return;
		kappend(ev.p, ln);
		n = oget(&ow.sends, kbuf, klen);
		if (!n->v) {
			s = n->v = xcalloc(sizeof(*s));
			s->ref = seq;
		}
		s = n->v;
		a = s->ref_off + ow_off(s->ref, seq);
		b = a + (uint32_t)(end - seq);
		if (!s->starts.n || a >= s->ends.v[s->ends.n - 1]) {
			s->ref = seq;
			s->ref_off = a;
			lla_push(&s->starts, a);
			lla_push(&s->ends, b);
			lla_push(&s->ts, t);
			lla_push(&s->again, 0);
			if ((long long)s->starts.n > 2 * oneway_sends) {
				struct lla *x[4] = { &s->starts, &s->ends,
						     &s->ts, &s->again };
				int k;

				for (k = 0; k < 4; k++) {
					memmove(x[k]->v, x[k]->v + oneway_sends,
						(x[k]->n - oneway_sends) *
						sizeof(long long));
					x[k]->n -= oneway_sends;
				}
			}
			return;
		}
		i = bisect_right(s->starts.v, s->starts.n, a);
		i = i ? i - 1 : 0;
		for (; i < s->starts.n && s->starts.v[i] < b; i++)
			if (s->ends.v[i] > a)
				s->again.v[i] = 1;
		return;
	}
	kmake(peer5_cols, 5);
	n = ofind(&ow.sender_ns, kbuf, klen);
	if (n && strlen(n->v) == ns.n && !memcmp(n->v, ns.p, ns.n))
		return;
	kappend(ev.p, ln);
	n = ofind(&ow.sends, kbuf, klen);
	if (!n)
		return;
	s = n->v;
	a = s->ref_off + ow_off(s->ref, seq);
	i = bisect_right(s->starts.v, s->starts.n, a);
	if (!i)
		return;
	i--;
	if (a >= s->ends.v[i] || s->ts.v[i] > t)
		return;
	if (s->again.v[i]) {
		(*ocount(&ow.again, kbuf, klen))++;
		return;
	}
	kappend(ns.p, ns.n);
	n = oget(&ow.delays, kbuf, klen);
	if (!n->v)
		n->v = xcalloc(sizeof(struct omap));
	{
		char d[32];
		long long us = t - s->ts.v[i] + 500;

		us = us >= 0 ? us / 1000 : -((-us + 999) / 1000);
		(*ocount(n->v, d, lltoa(d, us)))++;
	}
}

/* ---- analyse.py's _decision(): drops, and TCP's decisions by socket;
 * the interactive view's markers ---- */

static long long max_marks = 20000;	/* view.MAX_MARKS */

static const char *const tcp_states[] = {
	NULL, "ESTABLISHED", "SYN_SENT", "SYN_RECV", "FIN_WAIT1",
	"FIN_WAIT2", "TIME_WAIT", "CLOSE", "CLOSE_WAIT", "LAST_ACK", "LISTEN",
	"CLOSING", "NEW_SYN_RECV"
};
static const char *const ca_states[] = {
	"Open", "Disorder", "CWR", "Recovery", "Loss"
};

/* _STATES.get(int(f) or 0, f) / _CA_STATES's: the name, else the field */
static struct field state_name(struct field f, int ca)
{
	long long v = num(f, 0);
	const char *name = NULL;

	if (ca && v >= 0 && v <= 4)
		name = ca_states[v];
	else if (!ca && v >= 1 && v <= 12)
		name = tcp_states[v];
	if (name)
		return (struct field){ name, strlen(name) };
	return f;
}

struct mark {
	double t;
	const char *kind;
	char *text;
};

static struct {
	struct mark *m;
	size_t n, cap;
	long long left_out;
} marks;

static struct {
	struct omap drops;	/* key (see jdrops) -> count */
	struct omap sock_keys;	/* sock -> flow key (a char *) */
	struct omap state_paths;	/* sock -> struct lla */
	struct omap decisions;	/* sock -> omap: what -> count */
	struct omap rcvbufs;	/* sock -> count: the last rcvbuf */
	struct omap rto_times;	/* sock -> count */
	struct omap cong_socks;	/* sock -> (none) */
} dc;

/* --host NETNS=NAME: the hosts' names (magnet-exp run's topology) */
static struct omap hosts;

static void add_mark(double t, const char *kind, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void add_mark(double t, const char *kind, const char *fmt, ...)
{
	va_list ap;
	char *text;

	if ((long long)marks.n >= max_marks) {
		marks.left_out++;
		return;
	}
	va_start(ap, fmt);
	if (vasprintf(&text, fmt, ap) < 0)
		die(1, "out of memory");
	va_end(ap);
	if (marks.n == marks.cap) {
		marks.cap = marks.cap ? marks.cap * 2 : 64;
		marks.m = xrealloc(marks.m, marks.cap * sizeof(*marks.m));
	}
	marks.m[marks.n++] = (struct mark){ t, kind, text };
}

#define F(c) (int)get(c).n, get(c).p
#define FS(f) (int)(f).n, (f).p

static int prefix(struct field f, const char *s)
{
	size_t n = strlen(s);

	return f.n >= n && !memcmp(f.p, s, n);
}

static int qdisc_drop(void)
{
	struct field why = get(C_DROP_REASON);

	return prefix(why, "QDISC") || (is(why, "unknown") &&
					prefix(get(C_DROP_WHERE),
					       "kfree_skb_list"));
}

/* analyse.py's _ca_seen(): a record of @f's socket with a TCP part
 * showed congestion state @ca at @t (a double if @is_double, else @t_ns):
 * a change from its last such record is an entry into it */
static void ca_seen(struct flow *f, double t, long long t_ns, int is_double,
		    struct field ca)
{
	if (!ca.n || ca.n >= sizeof(f->ca_prev) ||
	    (f->have_ca_prev && is(ca, f->ca_prev)))
		return;
	if (f->have_ca_prev) {
		struct field name = state_name(ca, 1);
		char b[64];

		snprintf(b, sizeof(b), "%.*s", FS(name));
		(*ocount(&f->ca_entered, b, strlen(b)))++;
		if ((long long)f->n_ca_changes < max_ca_changes) {
			struct onode *n = ofind(&f->ca_entered, b, strlen(b));

			if (f->n_ca_changes == f->cap_ca_changes) {
				f->cap_ca_changes = f->cap_ca_changes ?
					f->cap_ca_changes * 2 : 16;
				f->ca_changes = xrealloc(f->ca_changes,
					f->cap_ca_changes *
					sizeof(*f->ca_changes));
			}
			f->ca_changes[f->n_ca_changes++] = (struct ca_change){
				t, t_ns, is_double, n->key };
		}
	}
	memcpy(f->ca_prev, ca.p, ca.n);
	f->ca_prev[ca.n] = 0;
	f->have_ca_prev = 1;
}

/* the socket's key in @b: "s\t" its cookie, else "k\t" its flow key */
static size_t sock_key(char *b, size_t cap)
{
	struct field sk = get(C_SOCK);

	if (sk.n) {
		if (sk.n + 3 > cap)
			die(2, "a record's fields are too long");
		b[0] = 's';
		b[1] = '\t';
		memcpy(b + 2, sk.p, sk.n);
		b[sk.n + 2] = 0;
		return sk.n + 2;
	}
	kmake(key_cols, 6);
	if (klen + 3 > cap)
		die(2, "a record's fields are too long");
	b[0] = 'k';
	b[1] = '\t';
	memcpy(b + 2, kbuf, klen + 1);
	return klen + 2;
}

static void decision(struct field ev, double t)
{
	struct field ns = get(C_NETNS), lport = get(C_LPORT);
	const char *host = "host";
	char hb[600], sk[1200];
	size_t skn;
	struct onode *n;
	struct omap *c;
	struct flow *f;

	if (ns.n) {
		snprintf(hb, sizeof(hb), "%.*s", FS(ns));
		n = ofind(&hosts, hb, ns.n);
		if (n && *(char *)n->v)
			host = n->v;
		else
			snprintf(hb, sizeof(hb), "netns %.*s", FS(ns)),
			host = hb;
	}
	if (is(ev, "drop_out"))
		add_mark(t, "drop", "drop_out, a packet %.*s:%.*s -> %.*s:%.*s, "
			 "%.*s at %.*s, in %s", F(C_LADDR), F(C_LPORT),
			 F(C_RADDR), F(C_RPORT), F(C_DROP_REASON),
			 F(C_DROP_WHERE), host);
	else if (is(ev, "drop_in"))
		add_mark(t, "drop", "drop_in, a packet %.*s:%.*s -> %.*s:%.*s, "
			 "%.*s at %.*s, in %s", F(C_RADDR), F(C_RPORT),
			 F(C_LADDR), F(C_LPORT), F(C_DROP_REASON),
			 F(C_DROP_WHERE), host);
	else if (is(ev, "state"))
		add_mark(t, "state", "%.*s:%.*s -> %.*s:%.*s %.*s -> %.*s",
			 F(C_LADDR), F(C_LPORT), F(C_RADDR), F(C_RPORT),
			 FS(state_name(get(C_PREV_STATE), 0)),
			 FS(state_name(get(C_STATE), 0)));
	else if (is(ev, "cong_state"))
		add_mark(t, "cong_state", "%.*s:%.*s -> %.*s:%.*s %.*s -> %.*s",
			 F(C_LADDR), F(C_LPORT), F(C_RADDR), F(C_RPORT),
			 FS(state_name(get(C_PREV_STATE), 1)),
			 FS(state_name(get(C_CA_STATE), 1)));
	else if (is(ev, "rcvbuf"))
		add_mark(t, "rcvbuf", "%.*s:%.*s -> %.*s:%.*s receive buffer "
			 "%.*s -> %.*s bytes, window clamp %.*s -> %.*s",
			 F(C_LADDR), F(C_LPORT), F(C_RADDR), F(C_RPORT),
			 F(C_RCVBUF_BEFORE), F(C_RCVBUF),
			 F(C_WINDOW_CLAMP_BEFORE), F(C_WINDOW_CLAMP));
	else if (is(ev, "rto_end"))
		add_mark(t, "rto_end", "%.*s:%.*s -> %.*s:%.*s RTO recovery "
			 "ended after %.*s ms (the kernel's sum: %.*s ms in RTO "
			 "recoveries)", F(C_LADDR), F(C_LPORT), F(C_RADDR),
			 F(C_RPORT), F(C_RTO_RECOVERY_MS),
			 F(C_TOTAL_RTO_TIME));
	else
		add_mark(t, is(ev, "retrans") ? "retrans" : is(ev, "rto") ?
			 "rto" : "tlp", "%.*s:%.*s -> %.*s:%.*s%s%.*s",
			 F(C_LADDR), F(C_LPORT), F(C_RADDR), F(C_RPORT),
			 get(C_KIND).n ? " " : "", F(C_KIND));
	if (is(ev, "drop_out") || is(ev, "drop_in")) {
		int out = is(ev, "drop_out"), qd = out && qdisc_drop();
		char b[2048];
		size_t bn;
		struct fill *fl = NULL;

		if (qd) {
			char dk[1024];
			size_t dn = dev_key(dk, sizeof(dk));

			n = ofind(&qu.fill, dk, dn);
			fl = n ? n->v : NULL;
		}
		struct field la = get(out ? C_LADDR : C_RADDR);
		struct field lp = get(out ? C_LPORT : C_RPORT);
		struct field ra = get(out ? C_RADDR : C_LADDR);
		struct field rp = get(out ? C_RPORT : C_LPORT);
		struct field dev = get(C_IFINDEX);

		bn = snprintf(b, sizeof(b), "%.*s\t%.*s\t%.*s\t%.*s\t%.*s\t"
			      "%.*s\t%s\t%.*s\t%.*s\t%.*s\t",
			      F(C_FAMILY), FS(la), FS(lp), FS(ra), FS(rp),
			      FS(ns), dev.n ? "dev" : "ip",
			      F(C_DROP_REASON), F(C_DROP_WHERE),
			      qd ? (int)dev.n : 0, dev.p);
		if (fl)
			bn += snprintf(b + bn, sizeof(b) - bn, "%lld\x01%lld\x01%s\x01%lld",
				       fl->qlen, fl->backlog, fl->name,
				       num(get(C_LEN), 0));
		else
			bn += snprintf(b + bn, sizeof(b) - bn, "-");
		if (bn >= sizeof(b))
			die(2, "a record's fields are too long");
		(*ocount(&dc.drops, b, bn))++;
		return;
	}
	f = flow_find();
	if (f && get(C_CA_STATE).n)
		ca_seen(f, t * 1e9 + (double)t0, 0, 1, get(C_CA_STATE));
	skn = sock_key(sk, sizeof(sk));
	if (!is(lport, "0") || !ofind(&dc.sock_keys, sk, skn)) {
		n = oget(&dc.sock_keys, sk, skn);
		free(n->v);
		kmake(key_cols, 6);
		n->v = keep((struct field){ kbuf, klen }).p;
	}
	if (is(ev, "state")) {
		struct lla *path;

		n = oget(&dc.state_paths, sk, skn);
		if (!n->v)
			n->v = xcalloc(sizeof(struct lla));
		path = n->v;
		if (!path->n)
			lla_push(path, num(get(C_PREV_STATE), 0));
		lla_push(path, num(get(C_STATE), 0));
		return;
	}
	n = oget(&dc.decisions, sk, skn);
	if (!n->v)
		n->v = xcalloc(sizeof(struct omap));
	c = n->v;
	if (is(ev, "rcvbuf")) {
		(*ocount(c, "rcvbuf", 6))++;
		*ocount(&dc.rcvbufs, sk, skn) = num(get(C_RCVBUF), 0);
		return;
	}
	if (is(ev, "rto_end")) {
		*ocount(&dc.rto_times, sk, skn) = num(get(C_TOTAL_RTO_TIME), 0);
		return;
	}
	if (is(ev, "cong_state")) {
		char b[600];
		struct field ca = state_name(get(C_CA_STATE), 1);

		(*ocount(c, b, snprintf(b, sizeof(b), "cong %.*s",
					FS(ca))))++;
		oget(&dc.cong_socks, sk, skn);
		return;
	}
	{
		char b[600];
		struct field kind = get(C_KIND);

		(*ocount(c, b, snprintf(b, sizeof(b), "%.*s%s%.*s", FS(ev),
					kind.n ? " " : "", FS(kind))))++;
	}
	if (is(ev, "retrans") && get(C_SEQ).n) {
		char b[64];

		kmake(k5_cols, 5);
		kappend(b, snprintf(b, sizeof(b), "%lld", num(get(C_SEQ), 0)));
		kappend(b, snprintf(b, sizeof(b), "%lld",
				    num(get(C_END_SEQ), 0)));
		n = ofind(&rc.at_send, kbuf, klen);
		if (n) {
			intptr_t got = (intptr_t)n->v - 1;

			odel(&rc.at_send, n);
			if (got == 1)
				(*ocount(c, "retrans reached", 15))++;
			else if (got == 0)
				(*ocount(c, "retrans not reached", 19))++;
		}
	}
}

/* ---- modulation.py's Modulation (per connection end, direction and
 * layer: the size of each event with data, the time between them) and
 * Latency (a segment's time from one layer to the next) ---- */

struct modk {
	struct stat size, gap, asked;
	long long last;
	int have_last, have_asked;
};

/* 0 out, 1 in (modulation.py's _dir) */
static int dir_of(struct field ev)
{
	return !(is(ev, "app_send") || is(ev, "tcp_out") || is(ev, "ip_out") ||
		 is(ev, "dev_out"));
}

static void mod_add(struct flow *f, struct field ev, enum layer l,
		    long long t)
{
	long long size;
	struct modk *m;
	int d;

	if (l == L_APP) {
		size = num(get(C_RET), 0);
		if (size < 0)
			size = 0;
	} else if (get(C_SEQ).n) {
		size = (uint32_t)(num(get(C_END_SEQ), 0) - num(get(C_SEQ), 0));
	} else {
		size = 0;
	}
	if (!size)
		return;
	d = dir_of(ev);
	m = f->mod[d][l];
	if (!m)
		m = f->mod[d][l] = xcalloc(sizeof(*m));
	stat_add(&m->size, size);
	if (l == L_APP) {
		m->have_asked = 1;
		stat_add(&m->asked, num(get(C_REQ), 0));
	}
	if (m->have_last)
		stat_add(&m->gap, t - m->last);
	m->last = t;
	m->have_last = 1;
}

static long long lat_limit = 65536;	/* Latency.PENDING */

struct latp {
	int i;
	long long t;
	struct latp *spare;
};

static struct latp *spare_latp;

static struct latp *latp_new(int i, long long t)
{
	struct latp *p = spare_latp;

	if (p)
		spare_latp = p->spare;
	else
		p = xcalloc(sizeof(*p));
	p->i = i;
	p->t = t;
	return p;
}

static void latp_free(struct latp *p)
{
	p->spare = spare_latp;
	spare_latp = p;
}

static struct {
	struct omap pending;	/* flow idx, dir, seq, end -> struct latp */
	struct omap stats;	/* netns, dir, from, to -> struct stat */
} lat;

static const char *const lat_path[2][3] = {
	{ "tcp_out", "ip_out", "dev_out" }, { "dev_in", "ip_in", "tcp_in" }
};

static void lat_stat(struct flow *f, int d, const char *from,
		     const char *to, long long v)
{
	char b[700];
	size_t n = snprintf(b, sizeof(b), "%s\t%s\t%s\t%s", f->id.key[5].p,
			    d ? "in" : "out", from, to);
	struct onode *e = oget(&lat.stats, b, n);

	if (!e->v)
		e->v = xcalloc(sizeof(struct stat));
	stat_add(e->v, v);
}

static void lat_add(struct flow *f, struct field ev, long long t)
{
	long long key[4], seq, end;
	struct onode *e;
	int d, i;

	if (is(ev, "app_recv")) {
		size_t j, k = 0;

		end = num(get(C_END_SEQ), 0);
		f->reads += f->r_head;		/* (back below) */
		f->cap_reads -= f->r_head;
		for (j = 0; j < f->n_reads; j++) {
			if ((uint32_t)(end - f->reads[j][0]) < 0x80000000u)
				lat_stat(f, 1, "tcp_in", "app_recv",
					 t - f->reads[j][1]);
			else
				memmove(f->reads[k++], f->reads[j],
					sizeof(f->reads[0]));
		}
		f->n_reads = k;
		f->reads -= f->r_head;
		f->cap_reads += f->r_head;
		return;
	}
	d = dir_of(ev);
	for (i = 0; i < 3 && !is(ev, lat_path[d][i]); i++)
		;
	if (i == 3 || !get(C_SEQ).n)
		return;
	seq = num(get(C_SEQ), 0);
	end = num(get(C_END_SEQ), 0);
	if (seq == end)
		return;
	key[0] = f->idx;
	key[1] = d;
	key[2] = seq;
	key[3] = end;
	e = ofind(&lat.pending, (char *)key, sizeof(key));
	if (e) {
		struct latp *p = e->v;

		if (p->i == i - 1)
			lat_stat(f, d, lat_path[d][i - 1], lat_path[d][i],
				 t - p->t);
		latp_free(p);
		odel(&lat.pending, e);
	}
	if (i < 2) {
		oget(&lat.pending, (char *)key, sizeof(key))->v =
			latp_new(i, t);
	} else if (d == 1) {
		if (f->r_head + f->n_reads == f->cap_reads) {
			if (f->r_head) {
				memmove(f->reads, f->reads + f->r_head,
					f->n_reads * sizeof(*f->reads));
				f->r_head = 0;
			}
			if (f->n_reads * 2 >= f->cap_reads) {
				f->cap_reads = f->cap_reads ? f->cap_reads * 2 :
					16;
				f->reads = xrealloc(f->reads, f->cap_reads *
						    sizeof(*f->reads));
			}
		}
		f->reads[f->r_head + f->n_reads][0] = end;
		f->reads[f->r_head + f->n_reads++][1] = t;
		if (f->n_reads > 4096) {
			f->r_head++;
			f->n_reads--;
		}
	}
	if ((long long)lat.pending.n > lat_limit) {
		int k;

		for (k = 0; k < 4096 && lat.pending.first; k++) {
			latp_free(lat.pending.first->v);
			odel(&lat.pending, lat.pending.first);
		}
	}
}

/* ---- plots.py's Series: points decimated to at most max_points ---- */

static long long max_points = 4000;	/* plots.MAX_POINTS */

#define SERIES_W 6
#define NONE LLONG_MIN

struct spt {
	double t;
	long long v[SERIES_W];	/* NONE: None */
};

struct series {
	struct spt *p;
	size_t n, cap;
	long long stride, skip;
	int width;
};

static void series_add(struct series **sp, int width, double t,
		       const long long *v)
{
	struct series *s = *sp;

	if (!s) {
		s = *sp = xcalloc(sizeof(*s));
		s->stride = 1;
		s->width = width;
	}
	if (s->skip) {
		s->skip--;
		return;
	}
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 64;
		s->p = xrealloc(s->p, s->cap * sizeof(*s->p));
	}
	s->p[s->n].t = t;
	memcpy(s->p[s->n].v, v, width * sizeof(*v));
	s->n++;
	s->skip = s->stride - 1;
	if ((long long)s->n >= max_points) {
		size_t i, o = 0;

		for (i = 0; i < s->n; i += 2)
			s->p[o++] = s->p[i];
		s->n = o;
		s->stride *= 2;
	}
}

/* ---- analyse.py's _Window: counts per sequence range, the ranges
 * within window bytes of the highest end seen, at most window_keys ---- */

static long long win_bytes = 1LL << 26;		/* _WINDOW */
static long long win_keys = 1LL << 18;		/* _WINDOW_KEYS */

struct window {
	struct omap m;		/* seq, end (2 x uint32) -> count */
	uint32_t high;
	int have_high, overflowed;
};

/* @end, if past *@high (or none yet), the new *@high (analyse.py's
 * _raised) */
static void raise_high(uint32_t *high, int *have, uint32_t end)
{
	if (!*have || (end - *high != 0 && end - *high < 0x80000000u)) {
		*high = end;
		*have = 1;
	}
}

static uint32_t behind(uint32_t high, uint32_t end)
{
	uint32_t d = high - end;

	return d < 0x80000000u ? d : 0;
}

static void rkey(char *k, uint32_t seq, uint32_t end)
{
	memcpy(k, &seq, 4);
	memcpy(k + 4, &end, 4);
}

static long long win_get(struct window *w, uint32_t seq, uint32_t end)
{
	char k[8];
	struct onode *e;

	if (!w)
		return 0;
	rkey(k, seq, end);
	e = ofind(&w->m, k, 8);
	return e ? (long long)(intptr_t)e->v : 0;
}

static long long win_bump(struct window **wp, uint32_t seq, uint32_t end)
{
	struct window *w = *wp;
	struct onode *e;
	char k[8];
	long long n = 1;
	uint64_t h;

	if (!w) {
		w = *wp = xcalloc(sizeof(*w));
		w->m.one_to_one = 1;
	}
	rkey(k, seq, end);
	h = hash(k, 8, HSEED);
	if (w->m.first) {
		oprefetch(&w->m, w->m.first->h);
		__builtin_prefetch(w->m.first->next);
	}
	e = ofind_h(&w->m, k, 8, h);
	if (e) {
		n = (intptr_t)e->v + 1;
		olast(&w->m, e);
	} else {
		e = oget_h(&w->m, k, 8, h);
	}
	e->v = (void *)(intptr_t)n;
	raise_high(&w->high, &w->have_high, end);
	for (;;) {
		struct onode *first = w->m.first;
		uint32_t fend;

		memcpy(&fend, first->key + 4, 4);
		if ((long long)behind(w->high, fend) > win_bytes) {
			odel(&w->m, first);
		} else if ((long long)w->m.n > win_keys) {
			odel(&w->m, first);
			w->overflowed = 1;
		} else {
			return n;
		}
	}
}

/* ---- the flows by 5-tuple (res.live), and a flow's peer ---- */


static int has_socket(const struct flow *f)
{
	return f->tcp_records || f->app_events;
}

/* analyse.py's LogAnalysis.peer() */
static struct flow *peer_of(const struct flow *f)
{
	char k[1200];
	size_t n = 0, i;
	int j;
	static const int rev[5] = { 0, 3, 4, 1, 2 };
	struct onode *e;
	struct lla *l;
	struct flow *cand = NULL;

	for (j = 0; j < 5; j++) {
		const struct str *x = &f->id.key[rev[j]];

		if (n + x->n + 1 >= sizeof(k))
			return NULL;
		if (j)
			k[n++] = '\t';
		memcpy(k + n, x->p, x->n);
		n += x->n;
	}
	e = ofind(&live, k, n);
	if (!e)
		return NULL;
	l = e->v;
	for (i = 0; i < l->n; i++) {
		struct flow *g = flows[l->v[i]];

		if (g == f)
			continue;
		if (has_socket(g))
			return g;
		if (!cand)
			cand = g;
	}
	return cand;
}

/* analyse.py's _settle_retx() */
static void settle_retx(struct flow *f, int final)
{
	struct flow *p = NULL;
	int looked = 0;

	while (f->retx.first) {
		struct onode *e = f->retx.first;
		uint32_t seq, end;
		long long sends, dev, tcp;

		memcpy(&seq, e->key, 4);
		memcpy(&end, e->key + 4, 4);
		if (!final && (long long)behind(f->sent->high, end) <=
		    win_bytes / 2)
			return;
		sends = (intptr_t)e->v;
		odel(&f->retx, e);
		if (!looked) {
			p = peer_of(f);
			looked = 1;
		}
		if (!p || !p->tcp_records) {
			f->retx_unplaced++;
			continue;
		}
		dev = win_get(p->got_dev, seq, end);
		tcp = win_get(p->got_tcp, seq, end);
		f->loss[0]++;
		f->loss[1] += sends;
		if (p->seen_layers & (1u << L_DEV)) {
			f->loss[2] += sends > dev ? sends - dev : 0;
			f->loss[3] += dev > tcp ? dev - tcp : 0;
		} else {
			f->loss[2] += sends > tcp ? sends - tcp : 0;
		}
		f->loss[4] += tcp > 1 ? tcp - 1 : 0;
	}
}

/* a Counter of ranges += @d, the range gone at 0 */
static void range_add(struct omap *m, uint32_t seq, uint32_t end, long long d)
{
	char k[8];
	struct onode *e;

	rkey(k, seq, end);
	m->one_to_one = 1;
	e = oget(m, k, 8);
	e->v = (void *)((intptr_t)e->v + d);
	if (!e->v)
		odel(m, e);
}

/* the ranges the device got that are _WINDOW behind the highest (@end
 * the newest) forgotten: TCP never took them (_pkt's end) */
static void in_forget(struct flow *f, uint32_t end)
{
	struct onode *e;

	raise_high(&f->in_high, &f->have_in_high, end);
	while ((e = f->in_pending.first)) {
		uint32_t seq, en;
		struct onode *x, *y;
		struct omap *ends;
		char k[8];

		memcpy(&seq, e->key, 4);
		memcpy(&en, e->key + 4, 4);
		if ((long long)behind(f->in_high, en) <= win_bytes)
			return;
		odel(&f->in_pending, e);
		x = ofind(&f->in_starts, (char *)&seq, 4);
		ends = x->v;
		rkey(k, en, 0);
		y = ofind(ends, k, 8);
		odel(ends, y);
		if (!ends->n) {
			free(ends->b);
			free(ends);
			odel(&f->in_starts, x);
		}
	}
}

/* analyse.py's _in_take() */
static void in_take(struct flow *f, uint32_t seq, uint32_t end)
{
	struct onode *e;
	struct omap *ends;

	range_add(&f->in_pending, seq, end, -1);
	e = ofind(&f->in_starts, (char *)&seq, 4);
	ends = e->v;
	range_add(ends, end, 0, -1);
	if (!ends->n) {
		free(ends->b);
		free(ends);
		odel(&f->in_starts, e);
	}
}

/* analyse.py's _tcp_in_range() */
static void tcp_in_range(struct flow *f, uint32_t seq, uint32_t end)
{
	uint32_t chain[256][2], cur = seq, span = end - seq;
	int n = 0, i;
	char k[8];
	struct onode *e;

	rkey(k, seq, end);
	e = ofind(&f->in_pending, k, 8);
	if (e && (intptr_t)e->v > 0) {
		in_take(f, seq, end);
		if (end != seq)
			win_bump(&f->got_tcp, seq, end);
		return;
	}
	while (cur != end && n < 256) {
		struct onode *s = ofind(&f->in_starts, (char *)&cur, 4);
		struct onode *x;
		uint32_t step = 0;
		int found = 0;

		for (x = s ? ((struct omap *)s->v)->first : NULL; x;
		     x = x->next) {
			uint32_t ee;

			memcpy(&ee, x->key, 4);
			if (ee - cur != 0 && ee - cur <= end - cur) {
				step = ee;
				found = 1;
				break;
			}
		}
		if (!found)
			break;
		chain[n][0] = cur;
		chain[n++][1] = step;
		cur = step;
	}
	if (span && cur == end) {
		for (i = 0; i < n; i++) {
			in_take(f, chain[i][0], chain[i][1]);
			win_bump(&f->got_tcp, chain[i][0], chain[i][1]);
		}
	} else {
		f->in_tcp_only++;
		if (span)
			win_bump(&f->got_tcp, seq, end);
	}
}

/* ---- analyse.py's _pkt(): an IP or device record of flow @f ---- */

static void pkt_record(struct flow *f, struct field ev, enum layer l,
		       long long t)
{
	struct field sq = get(C_SEQ);
	long long ip_id, want, payload, segs, ahead;
	int li = l == L_DEV ? 0 : 1;
	struct omap *holes;

	if (sq.n && l == L_DEV) {
		uint32_t seq = num(sq, 0), end = num(get(C_END_SEQ), 0);

		if (is(ev, "dev_out")) {
			if (f->sent_tcp)
				range_add(&f->out_ranges, seq, end, -1);
		} else {
			struct onode *e;

			if (end != seq)
				win_bump(&f->got_dev, seq, end);
			range_add(&f->in_pending, seq, end, 1);
			f->in_starts.one_to_one = 1;
			e = oget(&f->in_starts, (char *)&seq, 4);
			if (!e->v)
				e->v = xcalloc(sizeof(struct omap));
			range_add(e->v, end, 0, 1);
			in_forget(f, end);
		}
	}
	if (!(is(ev, "dev_in") || is(ev, "ip_in")) || !is(get(C_FAMILY), "4"))
		return;
	ip_id = num(get(C_IP_ID), 0);
	want = f->peer_id[li];
	payload = sq.n ? (uint32_t)(num(get(C_END_SEQ), 0) - num(sq, 0)) : 0;
	if (!ip_id && (!f->have_peer_id[li] ||
		       (!payload && ((-want) % 65536 + 65536) % 65536 >= 256)))
		return;
	segs = f->advmss ? (payload + f->advmss - 1) / f->advmss : 1;
	if (segs < 1)
		segs = 1;
	holes = &f->id_holes[li];
	f->have_holes[li] = 1;
	if (!f->have_peer_id[li]) {
		f->peer_id[li] = ip_id + segs;
		f->have_peer_id[li] = 1;
		return;
	}
	ahead = ((ip_id - want) % 65536 + 65536) % 65536;
	if (ahead < 256) {
		long long k;

		for (k = 0; k < ahead; k++) {
			long long id = want + k;

			oget(holes, (char *)&id, 8)->v = (void *)(intptr_t)t;
		}
		want = f->peer_id[li] = want + ahead + segs;
		while (holes->first) {
			long long first, t1;

			memcpy(&first, holes->first->key, 8);
			if (first >= want - 256)
				break;
			t1 = (intptr_t)holes->first->v;
			odel(holes, holes->first);
			if (!f->have_id_lost[li]) {
				f->have_id_lost[li] = 1;
				f->id_lost[li][0] = 0;
				f->id_lost[li][1] = t1;
			}
			f->id_lost[li][0]++;
			if (t1 < f->id_lost[li][1])
				f->id_lost[li][1] = t1;
		}
	} else if (ahead >= 65536 - 256) {
		long long late = want - (65536 - ahead), k;
		int filled = 0;

		for (k = 0; k < segs; k++) {
			long long id = late + k;
			struct onode *e = ofind(holes, (char *)&id, 8);

			if (e) {
				odel(holes, e);
				filled++;
			}
		}
		if (filled) {
			f->id_late[li]++;
			f->have_id_late[li] = 1;
		}
	} else {
		f->peer_id[li] = want + ahead + segs;
	}
}

/* ---- limits.py's Limits: what held a sender back, from the kernel's
 * chronographs in the records' limit parts ---- */

#define SAMPLE_NS 10000000LL	/* limits.SAMPLE_NS */

struct limits {
	long long first_ns, last_ns, busy, rwnd, sndbuf, changes, pacing;
	char chrono[16];
	int have_chrono, paced;
	long long reordering, reord_seen, dsack_dups, win_sum, win_n;
	long long queued_max, cwnd_sum, srtt_sum, busy_n, pace_n, bytes_sent;
	unsigned long long pace_sum;
	struct lla st, sb, sr, ss;
};

static unsigned long long unum(struct field f)
{
	unsigned long long v = 0;
	size_t i;

	for (i = 0; i < f.n; i++)
		v = v * 10 + (f.p[i] - '0');
	return v;
}

static void limits_record(struct flow *f, long long t, const long long *v)
{
	struct limits *L = f->limits;
	long long total = num(get(C_BUSY_US), 0);
	long long rwnd = num(get(C_RWND_LIMITED_US), 0);
	long long sndbuf = num(get(C_SNDBUF_LIMITED_US), 0);
	long long busy = total - rwnd - sndbuf;
	long long mss = v[TI(C_MSS)], srtt = v[TI(C_SRTT_US)];
	long long cwnd = v[TI(C_CWND)];
	struct field ch = get(C_CHRONO);
	unsigned long long rate = unum(get(C_PACING_RATE));

	if (!L) {
		L = f->limits = xcalloc(sizeof(*L));
		L->first_ns = L->last_ns = f->first_ns;
	}
	if (L->have_chrono && L->paced && busy > L->busy)
		L->pacing += busy - L->busy;
	L->busy = busy;
	L->rwnd = rwnd;
	L->sndbuf = sndbuf;
	if (!L->st.n || t - L->st.v[L->st.n - 1] >= SAMPLE_NS) {
		lla_push(&L->st, t);
		lla_push(&L->sb, busy);
		lla_push(&L->sr, rwnd);
		lla_push(&L->ss, sndbuf);
	}
	if (ch.n >= sizeof(L->chrono))
		die(2, "chrono %.*s: not one the pass knows", FS(ch));
	if (!L->have_chrono || !is(ch, L->chrono)) {
		if (L->have_chrono)
			L->changes++;
		memcpy(L->chrono, ch.p, ch.n);
		L->chrono[ch.n] = 0;
		L->have_chrono = 1;
	}
	L->last_ns = t;
	L->reordering = num(get(C_REORDERING), 0);
	L->reord_seen = num(get(C_REORD_SEEN), 0);
	L->dsack_dups = num(get(C_DSACK_DUPS), 0);
	L->bytes_sent = v[TI(C_BYTES_SENT)];
	if (is(ch, "rwnd")) {
		L->win_sum += num(get(C_SND_WND), 0);
		L->win_n++;
	} else if (is(ch, "sndbuf")) {
		long long q = (uint32_t)(num(get(C_WRITE_SEQ), 0) -
					 v[TI(C_SND_UNA)]);

		if (q > L->queued_max)
			L->queued_max = q;
	} else if (is(ch, "busy")) {
		L->cwnd_sum += cwnd;
		L->srtt_sum += srtt;
		L->busy_n++;
		if (rate && rate != ~0ULL) {
			L->pace_sum += rate;
			L->pace_n++;
		}
	}
	L->paced = is(ch, "busy") && rate && rate != ~0ULL && srtt && mss &&
		(unsigned __int128)rate * (unsigned long long)srtt <
		(unsigned __int128)((__int128)cwnd * mss * 1000000);
}

/* ---- analyse.py's _CsvFiles: a CSV of its TCP records per flow, at
 * most MAX_OPEN_CSV open at once. A thread of its own writes them (see
 * "reading" below): it reads each line after the pass did, and all a row
 * holds is in its record but the first record's time, so it keeps
 * nothing of the pass's; it finds the flows by their keys itself ---- */

#define MAX_OPEN_CSV 64

static const char *csv_dir;	/* --csv DIR; NULL: none written */
/* --full: also what only the pass itself uses (the packets awaiting a
 * match, the ranges awaiting TCP, the sends awaiting their arrival), for
 * tests/unit/test_pass.py; without it those are written empty */
static int full;

/* a flow as the CSVs' thread has it */
struct cflow {
	struct keyed id;
	FILE *csv;		/* its CSV, while open */
	long long used;		/* when it was last written */
	int started;
};

static struct ktab ctab;
#define ncflows (ctab.n)
#define cflows ((struct cflow **)ctab.all)
static int csv_open;
static long long csv_clock, csv_t0 = -1;

static struct cflow *cflow_of(void)
{
	int made;

	return ktab_get(&ctab, sizeof(struct cflow), &made);
}

static void csv_name(const struct keyed *f, char *b, size_t cap)
{
	size_t n = 0;
	int k;

	for (k = 0; k < 5; k++) {
		const struct str *x = &f->key[k];
		size_t i;

		if (k && n < cap - 1)
			b[n++] = '_';
		for (i = 0; i < x->n && n < cap - 1; i++)
			b[n++] = (k == 1 || k == 3) && x->p[i] == ':' ? '.' :
				x->p[i];
	}
	b[n] = 0;
	if (f->key[5].n)
		snprintf(b + n, cap - n, "_ns%s", f->key[5].p);
}

static FILE *csv_of(struct cflow *f)
{
	char name[1200], path[4096];
	size_t i;

	f->used = ++csv_clock;
	if (f->csv)
		return f->csv;
	if (csv_open >= MAX_OPEN_CSV) {
		struct cflow *lru = NULL;

		for (i = 0; i < ncflows; i++)
			if (cflows[i]->csv && (!lru ||
			    cflows[i]->used < lru->used))
				lru = cflows[i];
		if (fclose(lru->csv))
			die(1, "%s: %s", csv_dir, strerror(errno));
		lru->csv = NULL;
		csv_open--;
	}
	csv_name(&f->id, name, sizeof(name));
	snprintf(path, sizeof(path), "%s/%s.csv", csv_dir, name);
	f->csv = fopen(path, f->started ? "a" : "w");
	if (!f->csv)
		die(1, "%s: %s", path, strerror(errno));
	csv_open++;
	if (!f->started) {
		fputs("time,epoch,event,state,ca_state,cwnd,ssthresh,srtt_us,"
		      "rttvar_us,rto_us,mss,packets_out,retrans_out,"
		      "total_retrans,bytes_sent,bytes_retrans,bytes_acked,"
		      "bytes_received,snd_una,snd_nxt,rcv_nxt,min_rtt_us,rtt_us,"
		      "ca_name,pacing_rate,delivery_rate,delivered,delivered_ce,"
		      "lost_out,sacked_out,app_limited,bbr_bw,bbr_min_rtt,"
		      "bbr_pacing_gain,bbr_cwnd_gain\r\n", f->csv);
		f->started = 1;
	}
	return f->csv;
}

static void csv_close(void)
{
	size_t i;

	for (i = 0; i < ncflows; i++)
		if (cflows[i]->csv) {
			if (fclose(cflows[i]->csv))
				die(1, "%s: %s", csv_dir, strerror(errno));
			cflows[i]->csv = NULL;
		}
	csv_open = 0;
}

/* a CSV row being made */
struct row {
	char b[8192];
	size_t n;
};

static void rput(struct row *r, const char *p, size_t n)
{
	if (r->n + n > sizeof(r->b))
		die(2, "a record's fields are too long");
	memcpy(r->b + r->n, p, n);
	r->n += n;
}

static void rnum(struct row *r, long long v)
{
	char b[24], *e = b + sizeof(b);

	if (v < 0) {
		e = utoa_pad(e, -(unsigned long long)v, 1);
		*--e = '-';
	} else {
		e = utoa_pad(e, v, 1);
	}
	rput(r, e, b + sizeof(b) - e);
}

/* a field as Python's csv writer writes it (quoted if it must be) */
static void csv_field(struct row *r, const char *p, size_t n)
{
	size_t i;

	if (!memchr(p, ',', n) && !memchr(p, '"', n) && !memchr(p, '\r', n) &&
	    !memchr(p, '\n', n)) {
		rput(r, p, n);
		return;
	}
	rput(r, "\"", 1);
	for (i = 0; i < n; i++) {
		if (p[i] == '"')
			rput(r, "\"", 1);
		rput(r, p + i, 1);
	}
	rput(r, "\"", 1);
}

/* the TCP record's CSV row (analyse.py's _tcp, its last part) */
static void csv_row(struct cflow *f, struct field ev, long long t)
{
	static struct row r;
	struct field ca = get(C_CA_STATE), s;
	long long d = t - csv_t0, v[N_TCP_INTS], state = num(get(C_STATE), 0);
	int i;

	if (is((struct field){ f->id.key[4].p, f->id.key[4].n }, "0"))
		return;		/* a listening socket: no peer, no CSV */
	for (i = 0; i < N_TCP_INTS; i++)
		v[i] = num(get(C_CWND + i), 0);
	r.n = 0;
	/* "%.6f" of the seconds: by hand where they are whole microseconds
	 * (exact either way), else printf; the epoch "%d.%09d" */
	if (d >= 0 && d % 1000 == 0) {
		char b[48], *e = b + sizeof(b);

		e = utoa_pad(e, d / 1000 % 1000000, 6);
		*--e = '.';
		e = utoa_pad(e, d / 1000000000, 1);
		rput(&r, e, b + sizeof(b) - e);
	} else {
		char b[48];

		rput(&r, b, snprintf(b, sizeof(b), "%.6f", d / 1e9));
	}
	rput(&r, ",", 1);
	rnum(&r, t / 1000000000);
	{
		char b[16], *e = b + sizeof(b);

		*--e = ',';
		e = utoa_pad(e, t % 1000000000, 9);
		*--e = '.';
		rput(&r, e, b + sizeof(b) - e);
	}
	csv_field(&r, ev.p, ev.n);
	rput(&r, ",", 1);
	if (state >= 1 && state <= 12)
		rput(&r, tcp_states[state], strlen(tcp_states[state]));
	else
		rnum(&r, state);
	rput(&r, ",", 1);
	if (ca.n) {
		s = state_name(ca, 1);
		csv_field(&r, s.p, s.n);
	}
	for (i = 0; i < N_TCP_INTS; i++) {
		rput(&r, ",", 1);
		if (!get(C_CWND + i).n ||
		    (C_CWND + i == C_SSTHRESH && v[i] == 0x7fffffff) ||
		    (C_CWND + i == C_MIN_RTT_US && v[i] == 0xffffffffLL))
			continue;
		rnum(&r, v[i]);
	}
	rput(&r, ",", 1);
	s = get(C_CA_NAME);
	csv_field(&r, s.p, s.n);
	{
		static const enum col rate[11] = {
			C_PACING_RATE, C_DELIVERY_RATE, C_DELIVERED,
			C_DELIVERED_CE, C_LOST_OUT, C_SACKED_OUT, C_APP_LIMITED,
			C_BBR_BW, C_BBR_MIN_RTT, C_BBR_PACING_GAIN,
			C_BBR_CWND_GAIN
		};

		for (i = 0; i < 11; i++) {
			s = get(rate[i]);
			rput(&r, ",", 1);
			if (rate[i] == C_PACING_RATE &&
			    is(s, "18446744073709551615"))
				continue;
			csv_field(&r, s.p, s.n);
		}
	}
	rput(&r, "\r\n", 2);
	fwrite_unlocked(r.b, 1, r.n, csv_of(f));
}

/* the CSVs' thread's part of a record the pass took (cur, cur_ends): a
 * TCP record's row */
static void csv_line(void)
{
	struct field ev = get(C_EVENT);

	if (csv_t0 < 0)
		csv_t0 = time_ns(get(C_TIME));
	if (layer_of(ev) != L_TCP || !get(C_LPORT).n)
		return;
	csv_row(cflow_of(), ev, time_ns(get(C_TIME)));
}

/* ---- analyse.py's _tcp(): a TCP record of flow @f ---- */

static void acked(struct flow *f, double ts, long long a)
{
	if (!a || (f->acked_b.n && a <= f->acked_b.v[f->acked_b.n - 1]))
		return;
	if (f->acked_b.n == f->cap_acked_t) {
		f->cap_acked_t = f->cap_acked_t ? f->cap_acked_t * 2 : 64;
		f->acked_t = xrealloc(f->acked_t,
				      f->cap_acked_t * sizeof(*f->acked_t));
	}
	f->acked_t[f->acked_b.n] = ts;
	lla_push(&f->acked_b, a);
}

static void tcp_record(struct flow *f, struct field ev, long long t)
{
	long long *v = f->last_tcp, seq, end, adv;
	struct field ca = get(C_CA_NAME), dl;
	int out = is(ev, "tcp_out"), in = !out && is(ev, "tcp_in");
	double ts;
	int i;

	f->tcp_records++;
	f->state = num(get(C_STATE), 0);
	adv = num(get(C_ADVMSS), 0);
	if (adv)
		f->advmss = adv;
	for (i = 0; i < N_TCP_INTS; i++)
		v[i] = num(get(C_CWND + i), 0);
	f->have_last_tcp = 1;
	oget(&f->ca_names, ca.p, ca.n);
	seq = num(get(C_SEQ), 0);
	end = num(get(C_END_SEQ), 0);
	if (out) {
		f->sent_tcp = 1;
		if (f->data_out_first < 0) {
			if (f->tcp_records == 1 && f->state == 2)
				f->syn_out = t;
			if (num(get(C_LEN), 0))
				f->data_out_first = t;
		}
		if (end != seq) {
			long long b = (uint32_t)(end - seq);
			uint32_t d = (uint32_t)(v[TI(C_SND_NXT)] -
						v[TI(C_SND_UNA)]);

			long long n;

			*ocount(&f->ca_bytes, ca.p, ca.n) += b;
			n = win_bump(&f->sent, seq, end);
			if (n > 1) {
				char k[8];
				struct onode *e;

				rkey(k, seq, end);
				e = ofind(&f->retx, k, 8);
				if (e)
					odel(&f->retx, e);
				oget(&f->retx, k, 8)->v = (void *)(intptr_t)
					win_get(f->sent, seq, end);
			}
			if (d < 0x80000000u && (long long)d > f->inflight_max)
				f->inflight_max = d;
			if (f->retx.n)
				settle_retx(f, 0);
		}
		range_add(&f->out_ranges, seq, end, 1);
	} else {
		tcp_in_range(f, seq, end);
		if (f->tcp_in_first < 0)
			f->tcp_in_first = t;
	}
	if (in && end != seq)
		f->arrived += (uint32_t)(end - seq);
	if (get(C_CHRONO).n)
		limits_record(f, t, v);
	ca_seen(f, 0, t, 0, get(C_CA_STATE));
	ts = (t - t0) / 1e9;
	acked(f, ts, v[TI(C_BYTES_ACKED)]);
	if (in && v[TI(C_RTT_US)] > 0) {
		char b[32];

		(*ocount(&f->rtt_samples, b, lltoa(b, v[TI(C_RTT_US)])))++;
	}
	dl = get(C_DELIVERED);
	{
		long long p[6] = {
			v[TI(C_CWND)], v[TI(C_SRTT_US)], v[TI(C_BYTES_ACKED)],
			v[TI(C_BYTES_RECEIVED)], f->arrived,
			dl.n ? num(dl, 0) * v[TI(C_MSS)] : NONE
		};

		series_add(&f->series, 6, ts, p);
	}
	{
		long long ss = v[TI(C_SSTHRESH)], rtt = v[TI(C_RTT_US)];
		long long p[4] = {
			ss == 0x7fffffff ? NONE : ss,
			in && rtt ? rtt : NONE,
			v[TI(C_SND_NXT)], v[TI(C_SND_UNA)]
		};

		if (!f->have_ca_first && ss != 0x7fffffff && ss &&
		    v[TI(C_CWND)] >= ss && is(get(C_CA_STATE), "0")) {
			f->ca_first = ts;
			f->have_ca_first = 1;
		}
		series_add(&f->detail, 4, ts, p);
	}
	{
		long long m = v[TI(C_MIN_RTT_US)], sr = v[TI(C_SRTT_US)];

		if (m && m != 0xffffffffLL &&
		    (f->min_rtt_us < 0 || m < f->min_rtt_us))
			f->min_rtt_us = m;
		if (sr) {
			f->srtt_sum += sr;
			f->srtt_n++;
			if (sr > f->srtt_max)
				f->srtt_max = sr;
		}
		if (v[TI(C_CWND)] > f->cwnd_max)
			f->cwnd_max = v[TI(C_CWND)];
	}
	if (in && end != seq) {
		if (f->data_in_first < 0)
			f->data_in_first = t;
		f->data_in_last = t;
	}
}

/* one record (cur, cur_ends) */
static void record(void)
{
	struct field ev = get(C_EVENT), cpu = get(C_CPU);
	long long t = time_ns(get(C_TIME));
	struct flow *fl;
	enum layer l;

	records++;
	if (t0 < 0)
		t0 = t;
	t_end = t;
	if (is(ev, "lost")) {
		long long n = num(get(C_LOST), 0), m = num(get(C_RET), 0);
		struct count *c = count_of(&cpu_last, cpu);

		lost += n;
		misses += m;
		add_gap(c->v ? c->v : t0, t, n, m, cpu);
		c->v = t;
		return;
	}
	if (is(ev, "reset")) {
		long long n = num(get(C_LOST), 0);

		discarded += n;
		add_gap(t0, t, n, -1, cpu);
		return;
	}
	count_of(&cpu_last, cpu)->v = t;
	events++;
	count_of(&ns_events, get(C_NETNS))->v++;
	if (is(ev, "dev_out")) {
		q_dev_out(t);
	} else if (is(ev, "qdisc")) {
		q_dequeued(t);
		return;
	} else if (is(ev, "qdisc_enq")) {
		q_enqueued(t);
		return;
	} else if (is(ev, "wire_out")) {
		q_wire(t);
		return;
	}
	if (is(ev, "tcp_out") || is(ev, "dev_out") || is(ev, "tcp_in") ||
	    is(ev, "dev_in") || is(ev, "ip_in")) {
		struct field sq = get(C_SEQ), eq = get(C_END_SEQ);

		if (sq.n && !(sq.n == eq.n && !memcmp(sq.p, eq.p, sq.n))) {
			long long a = num(sq, 0), b = num(eq, 0);

			if (!is(ev, "ip_in"))
				ow_event(ev, a, b, t);
			if (!is(ev, "dev_out"))
				r_event(is(ev, "tcp_out"), is(ev, "tcp_in"), a, b);
		}
	}
	if (is(ev, "state") && get(C_LPORT).n) {
		struct flow *f;

		r_end();
		f = flow_find();
		if (f)
			acked(f, (t - t0) / 1e9, num(get(C_BYTES_ACKED), 0));
	}
	if (is(ev, "drop_out") || is(ev, "drop_in") || is(ev, "retrans") ||
	    is(ev, "rto") || is(ev, "tlp") || is(ev, "state") ||
	    is(ev, "cong_state") || is(ev, "rcvbuf") || is(ev, "rto_end")) {
		decision(ev, (t - t0) / 1e9);
		return;
	}
	l = layer_of(ev);
	if (have_devices && l == L_DEV && !count_find(&devices, get(C_IFINDEX)))
		return;
	if (l == L_OTHER)
		die(2, "event %.*s: not one the pass knows", (int)ev.n, ev.p);
	layers |= 1u << l;
	if (!get(C_LPORT).n)
		return;
	fl = flow_of(t);
	fl->last_ns = t;
	fl->seen_layers |= 1u << l;
	mod_add(fl, ev, l, t);
	lat_add(fl, ev, t);
	if (l == L_TCP)
		tcp_record(fl, ev, t);
	else if (l != L_APP)
		pkt_record(fl, ev, l, t);
	if (l == L_APP) {
		long long ret = num(get(C_RET), 0);

		fl->app_events++;
		if (ret > 0) {
			int send = is(ev, "app_send");

			if (send)
				fl->app_written += ret;
			else
				fl->app_read += ret;
			if (ret == 1) {
				long long *one = send ? fl->app_one_sent :
					fl->app_one_read;
				int *n = send ? &fl->n_one_sent : &fl->n_one_read;

				if (*n < MAX_ONE)
					one[(*n)++] = t;
			}
		}
	}
}

/* ---- JSON out ---- */

static void jstr(const char *p, size_t n)
{
	putchar('"');
	for (; n--; p++) {
		unsigned char c = *p;

		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c < 0x20)
			printf("\\u%04x", c);
		else
			putchar(c);
	}
	putchar('"');
}

static void jlayers(unsigned m)
{
	int i, first = 1;

	putchar('[');
	for (i = 0; i < 4; i++)
		if (m & (1u << i)) {
			printf("%s\"%s\"", first ? "" : ", ", layer_names[i]);
			first = 0;
		}
	putchar(']');
}

static void jtimes(const long long *v, int n)
{
	int i;

	putchar('[');
	for (i = 0; i < n; i++)
		printf("%s%lld", i ? ", " : "", v[i]);
	putchar(']');
}

/* a key of tab-joined fields, as a JSON list of strings */
static void jkey(const char *k, size_t n)
{
	const char *end = k + n;

	putchar('[');
	for (;;) {
		const char *t = memchr(k, '\t', end - k);

		jstr(k, (t ? t : end) - k);
		if (!t)
			break;
		fputs(", ", stdout);
		k = t + 1;
	}
	putchar(']');
}

/* a double, read back exactly, and as a float (a decimal point or an
 * exponent: 0.0, not 0) */
static void jdouble(double d)
{
	char b[40];

	snprintf(b, sizeof(b), "%.17g", d);
	fputs(b, stdout);
	if (!strpbrk(b, ".eEni"))
		fputs(".0", stdout);
}

/* a counter: [[key, count], ...] in its order; @list_keys: its keys are
 * tab-joined fields, else a number's decimal (written as the number) */
static void jcounts(struct omap *m, int list_keys)
{
	struct onode *e;

	putchar('[');
	for (e = m->first; e; e = e->next) {
		putchar('[');
		if (list_keys)
			jkey(e->key, e->klen);
		else
			fputs(e->key, stdout);
		printf(", %lld]%s", *(long long *)e->v, e->next ? ", " : "");
	}
	putchar(']');
}

static void jstat(struct stat *st)
{
	printf("{\"n\": %lld, \"sum\": %lld, ", st->n, st->sum);
	if (st->n)
		printf("\"lo\": %lld, \"hi\": %lld, ", st->lo, st->hi);
	else
		printf("\"lo\": null, \"hi\": null, ");
	printf("\"bins\": [");
	{
		size_t i;
		int first = 1;

		for (i = 0; i < st->nbins; i++)
			if (st->bins[i]) {
				printf("%s[%lld, %lld]", first ? "" : ", ",
				       (long long)i - 1, st->bins[i]);
				first = 0;
			}
	}
	printf("]}");
}

static void jenvelope(struct envelope *e)
{
	size_t i;

	printf("{\"n\": %lld, \"width\": ", e->count);
	jdouble(e->width);
	printf(", \"t0\": ");
	if (e->count)
		jdouble(e->t0);
	else
		printf("null");
	printf(", \"pts\": [");
	for (i = 0; i < e->n; i++) {
		printf("%s[", i ? ", " : "");
		jdouble(e->p[i].t);
		putchar(',');
		jdouble(e->p[i].lo);
		putchar(',');
		jdouble(e->p[i].hi);
		putchar(',');
		jdouble(e->p[i].last);
		putchar(']');
	}
	printf("]}");
}

static void jpending(struct pending *p)
{
	struct onode *e;
	size_t i;

	printf("{\"n\": %lld, \"d\": [", full ? p->n : 0);
	for (e = full ? p->d.first : NULL; e; e = e->next) {
		struct pq *q = e->v;

		putchar('[');
		jkey(e->key, e->klen);
		printf(", [");
		for (i = 0; i < q->n; i++) {
			struct pval v = q->v[q->head + i];

			if (p == &qu.enq && v.x < 0)
				printf("%s[%lld, null]", i ? ", " : "", v.t);
			else if (p == &qu.enq)
				printf("%s[%lld, %lld]", i ? ", " : "", v.t, v.x);
			else
				printf("%s%lld", i ? ", " : "", v.t);
		}
		printf("]]%s", e->next ? ", " : "");
	}
	printf("]}");
}

/* a map of keys (tab-joined) to what @each writes */
static void jmap(struct omap *m, void (*each)(void *))
{
	struct onode *e;

	putchar('[');
	for (e = m->first; e; e = e->next) {
		putchar('[');
		jkey(e->key, e->klen);
		printf(", ");
		each(e->v);
		printf("]%s", e->next ? ", " : "");
	}
	putchar(']');
}

static void jahead(void *v)
{
	jcounts(v, 0);
}

static void jstatv(void *v)
{
	jstat(v);
}

static void jfill(void *v)
{
	struct fill *f = v;

	printf("[%lld, %lld, ", f->qlen, f->backlog);
	jstr(f->name, strlen(f->name));
	putchar(']');
}

static void jname(void *v)
{
	jstr(v, strlen(v));
}

static void jenv(void *v)
{
	jenvelope(v);
}

static void jqueues(void)
{
	printf(",\n \"queues\": {\"devout\": ");
	jpending(&qu.devout);
	printf(",\n  \"enq\": ");
	jpending(&qu.enq);
	printf(",\n  \"toward\": ");
	jpending(&qu.toward);
	printf(",\n  \"stats\": ");
	jmap(&qu.stats, jstatv);
	printf(",\n  \"ahead\": ");
	jmap(&qu.ahead, jahead);
	printf(",\n  \"handed\": ");
	jcounts(&qu.handed, 1);
	printf(",\n  \"left\": ");
	jcounts(&qu.left, 1);
	printf(",\n  \"through\": ");
	jmap(&qu.through, jstatv);
	printf(",\n  \"fill\": ");
	jmap(&qu.fill, jfill);
	printf(",\n  \"first\": ");
	jmap(&qu.first, jname);
	printf(",\n  \"longest\": ");
	jcounts(&qu.longest, 1);
	printf(",\n  \"enq_seen\": %s", qu.enq_seen ? "true" : "false");
	printf(",\n  \"sojourns\": ");
	jmap(&qu.sojourns, jenv);
	printf("}");
}

static void jlla(const struct lla *a)
{
	size_t i;

	putchar('[');
	for (i = 0; i < a->n; i++)
		printf("%s%lld", i ? ", " : "", a->v[i]);
	putchar(']');
}

static void jrend(void *v)
{
	struct rend *e = v;
	size_t i;

	printf("[%lld, [", e->base);
	for (i = 0; i < e->n; i++)
		printf("%s[%lld, %lld]", i ? ", " : "", e->iv[i][0],
		       e->iv[i][1]);
	printf("], %lld]", e->hi);
}

static void jbool3(void *v)
{
	static const char *const b[] = { "false", "true", "null" };

	fputs(b[(intptr_t)v - 1], stdout);
}

static void jsends(void *v)
{
	struct sends *s = v;

	printf("[%lld, %lld, ", s->ref, s->ref_off);
	jlla(&s->starts);
	printf(", ");
	jlla(&s->ends);
	printf(", ");
	jlla(&s->ts);
	printf(", ");
	jlla(&s->again);
	putchar(']');
}

static void jdelays(void *v)
{
	jcounts(v, 0);
}

static void jreceived(void)
{
	static struct omap none;

	printf(",\n \"received\": {\"d\": ");
	jmap(full ? &rc.d : &none, jrend);
	printf(",\n  \"end_ns\": ");
	jmap(full ? &rc.end_ns : &none, jname);
	printf(",\n  \"at_send\": ");
	jmap(full ? &rc.at_send : &none, jbool3);
	printf("},\n \"oneway\": {\"sender_ns\": ");
	jmap(full ? &ow.sender_ns : &none, jname);
	printf(",\n  \"sends\": ");
	jmap(full ? &ow.sends : &none, jsends);
	printf(",\n  \"delays\": ");
	jmap(&ow.delays, jdelays);
	printf(",\n  \"again\": ");
	jcounts(&ow.again, 1);
	printf("}");
}

/* a socket's key: its cookie (a string) or its flow key (a list) */
static void jsock(const char *k, size_t n)
{
	if (k[0] == 's')
		jstr(k + 2, n - 2);
	else
		jkey(k + 2, n - 2);
}

static void jsockmap(struct omap *m, void (*each)(void *))
{
	struct onode *e;

	putchar('[');
	for (e = m->first; e; e = e->next) {
		putchar('[');
		jsock(e->key, e->klen);
		if (each) {
			printf(", ");
			each(e->v);
		}
		printf("]%s", e->next ? ", " : "");
	}
	putchar(']');
}

static void jflowkey(void *v)
{
	jkey(v, strlen(v));
}

static void jllav(void *v)
{
	jlla(v);
}

static void jstrcounts(void *v)
{
	struct omap *m = v;
	struct onode *e;

	putchar('[');
	for (e = m->first; e; e = e->next) {
		putchar('[');
		jstr(e->key, e->klen);
		printf(", %lld]%s", *(long long *)e->v, e->next ? ", " : "");
	}
	putchar(']');
}

static void jnum(void *v)
{
	printf("%lld", *(long long *)v);
}

static void jdecisions(void)
{
	struct onode *e;
	size_t i;

	printf(",\n \"decided\": {\"marks\": [");
	for (i = 0; i < marks.n; i++) {
		printf("%s[", i ? ", " : "");
		jdouble(marks.m[i].t);
		printf(", \"%s\", ", marks.m[i].kind);
		jstr(marks.m[i].text, strlen(marks.m[i].text));
		putchar(']');
	}
	printf("],\n \"marks_left_out\": %lld", marks.left_out);
	printf(",\n \"drops\": [");
	for (e = dc.drops.first; e; e = e->next) {
		/* family .. ifindex, then the fill or "-" */
		char *last = strrchr(e->key, '\t') + 1;

		putchar('[');
		jkey(e->key, last - 1 - e->key);
		if (!strcmp(last, "-")) {
			printf(", null");
		} else {
			char *a = strchr(last, 1), *b = strchr(a + 1, 1);
			char *c = strrchr(last, 1);

			printf(", [%.*s, %.*s, ", (int)(a - last), last,
			       (int)(b - a - 1), a + 1);
			jstr(b + 1, c - b - 1);
			printf(", %s]", c + 1);
		}
		printf(", %lld]%s", *(long long *)e->v, e->next ? ", " : "");
	}
	printf("],\n \"sock_keys\": ");
	jsockmap(&dc.sock_keys, jflowkey);
	printf(",\n \"state_paths\": ");
	jsockmap(&dc.state_paths, jllav);
	printf(",\n \"decisions\": ");
	jsockmap(&dc.decisions, jstrcounts);
	printf(",\n \"rcvbufs\": ");
	jsockmap(&dc.rcvbufs, jnum);
	printf(",\n \"rto_times\": ");
	jsockmap(&dc.rto_times, jnum);
	printf(",\n \"cong_socks\": ");
	jsockmap(&dc.cong_socks, NULL);
	putchar('}');
}

static void jflow_ca(const struct flow *f)
{
	size_t i;

	printf(", \"ca_prev\": ");
	if (f->have_ca_prev)
		jstr(f->ca_prev, strlen(f->ca_prev));
	else
		printf("null");
	printf(", \"ca_entered\": ");
	jstrcounts((void *)&f->ca_entered);
	printf(", \"ca_changes\": [");
	for (i = 0; i < f->n_ca_changes; i++) {
		const struct ca_change *c = &f->ca_changes[i];

		printf("%s[", i ? ", " : "");
		if (c->is_double)
			jdouble(c->t);
		else
			printf("%lld", c->t_ns);
		printf(", \"%s\"]", c->name);
	}
	putchar(']');
}

static void jflowkey6(const struct flow *f)
{
	int k;

	putchar('[');
	for (k = 0; k < 6; k++) {
		printf("%s", k ? ", " : "");
		jstr(f->id.key[k].p, f->id.key[k].n);
	}
	putchar(']');
}

static void jmodulation(void)
{
	static const char *const what[4] = { "size", "gap", "asked", "last" };
	size_t i;
	int w, d, l, first;

	printf(",\n \"modulation\": {");
	for (w = 0; w < 4; w++) {
		printf("%s\"%s\": [", w ? ",\n  " : "", what[w]);
		first = 1;
		for (i = 0; i < nflows; i++)
			for (d = 0; d < 2; d++)
				for (l = 0; l < 4; l++) {
					struct modk *m = flows[i]->mod[d][l];

					if (!m || (w == 2 && !m->have_asked) ||
					    (w == 3 && !full))
						continue;
					printf("%s[[", first ? "" : ", ");
					first = 0;
					jflowkey6(flows[i]);
					printf(", \"%s\", \"%s\"], ",
					       d ? "in" : "out", layer_names[l]);
					if (w == 3)
						printf("%lld", m->last);
					else
						jstat(w == 0 ? &m->size :
						      w == 1 ? &m->gap : &m->asked);
					putchar(']');
				}
		putchar(']');
	}
	printf("},\n \"latency\": {\"pending\": [");
	{
		struct onode *e;

		for (e = full ? lat.pending.first : NULL; e; e = e->next) {
			long long *k = (long long *)e->key;
			struct latp *p = e->v;

			putchar('[');
			jflowkey6(flows[k[0]]);
			printf(", \"%s\", %lld, %lld, %d, %lld]%s",
			       k[1] ? "in" : "out", k[2], k[3], p->i, p->t,
			       e->next ? ", " : "");
		}
	}
	printf("],\n  \"stats\": ");
	jmap(&lat.stats, jstatv);
	printf(",\n  \"reads\": [");
	first = 1;
	for (i = 0; i < nflows; i++) {
		size_t j;

		if (!flows[i]->n_reads || !full)
			continue;
		printf("%s[", first ? "" : ", ");
		first = 0;
		jflowkey6(flows[i]);
		printf(", [");
		for (j = 0; j < flows[i]->n_reads; j++)
			printf("%s[%lld, %lld]", j ? ", " : "",
			       flows[i]->reads[flows[i]->r_head + j][0],
			       flows[i]->reads[flows[i]->r_head + j][1]);
		printf("]]");
	}
	printf("]}");
}

static void jopt(long long v)
{
	if (v < 0)
		printf("null");
	else
		printf("%lld", v);
}

static void jseries(const struct series *s, int width)
{
	size_t i;
	int k;

	if (!s) {
		printf("{\"pts\": [], \"stride\": 1, \"skip\": 0}");
		return;
	}
	printf("{\"pts\": [");
	for (i = 0; i < s->n; i++) {
		printf("%s[", i ? ", " : "");
		jdouble(s->p[i].t);
		for (k = 0; k < width; k++)
			if (s->p[i].v[k] == NONE)
				printf(", null");
			else
				printf(", %lld", s->p[i].v[k]);
		putchar(']');
	}
	printf("], \"stride\": %lld, \"skip\": %lld}", s->stride, s->skip);
}

/* a map of ranges (seq, end as 2 x uint32) to counts */
/* @m's ranges and counts; with @only, those of its keys alone */
static void jranges(const struct omap *m, struct omap *only)
{
	struct onode *e;
	int first = 1;

	putchar('[');
	for (e = m->first; e; e = e->next) {
		uint32_t a, b;

		if (only && !ofind(only, e->key, 8))
			continue;
		memcpy(&a, e->key, 4);
		memcpy(&b, e->key + 4, 4);
		printf("%s[%u, %u, %lld]", first ? "" : ", ", a, b,
		       (long long)(intptr_t)e->v);
		first = 0;
	}
	putchar(']');
}

/* the ranges some flow has yet to settle (its retx): after the pass,
 * _settle_retx's last lookups are all that reads a window's ranges */
static struct omap unsettled;

static void jwindow(const struct window *w)
{
	if (!w) {
		printf("{\"d\": [], \"high\": null, \"overflowed\": false}");
		return;
	}
	printf("{\"d\": ");
	/* (without --full only those ranges: the window's tens of
	 * thousands took a tenth of the Python side's time) */
	jranges(&w->m, full ? NULL : &unsettled);
	if (w->have_high)
		printf(", \"high\": %u", w->high);
	else
		printf(", \"high\": null");
	printf(", \"overflowed\": %s}", w->overflowed ? "true" : "false");
}

static void jflow_seq(const struct flow *f)
{
	static const char *const ln[2] = { "dev", "ip" };
	struct onode *e;
	int li, first;

	printf(",\n   \"sent\": ");
	jwindow(f->sent);
	printf(",\n   \"got_dev\": ");
	jwindow(f->got_dev);
	printf(",\n   \"got_tcp\": ");
	jwindow(f->got_tcp);
	printf(",\n   \"retx\": ");
	jranges(&f->retx, NULL);
	printf(", \"loss\": [%lld, %lld, %lld, %lld, %lld], "
	       "\"retx_unplaced\": %lld, \"out_ranges\": ", f->loss[0],
	       f->loss[1], f->loss[2], f->loss[3], f->loss[4],
	       f->retx_unplaced);
	jranges(&f->out_ranges, NULL);
	printf(", \"in_pending\": ");
	jranges(full ? &f->in_pending : &(struct omap){ 0 }, NULL);
	printf(", \"in_starts\": [");
	for (e = full ? f->in_starts.first : NULL; e; e = e->next) {
		struct onode *x;
		uint32_t seq;

		memcpy(&seq, e->key, 4);
		printf("[%u, [", seq);
		for (x = ((struct omap *)e->v)->first; x; x = x->next) {
			uint32_t end;

			memcpy(&end, x->key, 4);
			printf("[%u, %lld]%s", end, (long long)(intptr_t)x->v,
			       x->next ? ", " : "");
		}
		printf("]]%s", e->next ? ", " : "");
	}
	printf("], \"in_tcp_only\": %lld", f->in_tcp_only);
	printf(",\n   \"peer_id\": {");
	for (li = 0, first = 1; li < 2; li++)
		if (f->have_peer_id[li]) {
			printf("%s\"%s\": %lld", first ? "" : ", ", ln[li],
			       f->peer_id[li]);
			first = 0;
		}
	printf("}, \"id_holes\": {");
	for (li = 0, first = 1; li < 2; li++) {
		if (!f->have_holes[li])
			continue;
		printf("%s\"%s\": [", first ? "" : ", ", ln[li]);
		first = 0;
		for (e = f->id_holes[li].first; e; e = e->next) {
			long long id;

			memcpy(&id, e->key, 8);
			printf("[%lld, %lld]%s", id, (long long)(intptr_t)e->v,
			       e->next ? ", " : "");
		}
		putchar(']');
	}
	printf("}, \"id_lost\": {");
	for (li = 0, first = 1; li < 2; li++)
		if (f->have_id_lost[li]) {
			printf("%s\"%s\": [%lld, %lld]", first ? "" : ", ",
			       ln[li], f->id_lost[li][0], f->id_lost[li][1]);
			first = 0;
		}
	printf("}, \"id_late\": {");
	for (li = 0, first = 1; li < 2; li++)
		if (f->have_id_late[li]) {
			printf("%s\"%s\": %lld", first ? "" : ", ", ln[li],
			       f->id_late[li]);
			first = 0;
		}
	putchar('}');
}

static void jlimits(const struct limits *L)
{
	if (!L) {
		printf("null");
		return;
	}
	printf("{\"first_ns\": %lld, \"last_ns\": %lld, \"busy\": %lld, "
	       "\"rwnd\": %lld, \"sndbuf\": %lld, \"chrono\": ", L->first_ns,
	       L->last_ns, L->busy, L->rwnd, L->sndbuf);
	jstr(L->chrono, strlen(L->chrono));
	printf(", \"changes\": %lld, \"pacing\": %lld, \"paced\": %s, "
	       "\"reordering\": %lld, \"reord_seen\": %lld, \"dsack_dups\": "
	       "%lld, \"win_sum\": %lld, \"win_n\": %lld, \"queued_max\": %lld, "
	       "\"cwnd_sum\": %lld, \"srtt_sum\": %lld, \"busy_n\": %lld, "
	       "\"pace_sum\": %llu, \"pace_n\": %lld, \"bytes_sent\": %lld, "
	       "\"st\": ", L->changes, L->pacing, L->paced ? "true" : "false",
	       L->reordering, L->reord_seen, L->dsack_dups, L->win_sum,
	       L->win_n, L->queued_max, L->cwnd_sum, L->srtt_sum, L->busy_n,
	       L->pace_sum, L->pace_n, L->bytes_sent);
	jlla(&L->st);
	printf(", \"sb\": ");
	jlla(&L->sb);
	printf(", \"sr\": ");
	jlla(&L->sr);
	printf(", \"ss\": ");
	jlla(&L->ss);
	putchar('}');
}

static void jflow_tcp(const struct flow *f)
{
	static const char *const ints[N_TCP_INTS] = {
		"cwnd", "ssthresh", "srtt_us", "rttvar_us", "rto_us", "mss",
		"packets_out", "retrans_out", "total_retrans", "bytes_sent",
		"bytes_retrans", "bytes_acked", "bytes_received", "snd_una",
		"snd_nxt", "rcv_nxt", "min_rtt_us", "rtt_us"
	};
	struct onode *e;
	size_t i;

	printf(",\n   \"tcp_records\": %lld, \"state\": %lld, \"advmss\": %lld, "
	       "\"last_tcp\": ", f->tcp_records, f->state, f->advmss);
	if (f->have_last_tcp) {
		putchar('{');
		for (i = 0; i < N_TCP_INTS; i++)
			printf("%s\"%s\": %lld", i ? ", " : "", ints[i],
			       f->last_tcp[i]);
		putchar('}');
	} else {
		printf("null");
	}
	printf(", \"ca_names\": [");
	for (e = f->ca_names.first; e; e = e->next) {
		jstr(e->key, e->klen);
		printf("%s", e->next ? ", " : "");
	}
	printf("], \"sent_tcp\": %s, \"ca_bytes\": ",
	       f->sent_tcp ? "true" : "false");
	jstrcounts((void *)&f->ca_bytes);
	printf(", \"inflight_max\": %lld, \"arrived\": %lld, \"syn_out\": ",
	       f->inflight_max, f->arrived);
	jopt(f->syn_out);
	printf(", \"tcp_in_first\": ");
	jopt(f->tcp_in_first);
	printf(", \"data_out_first\": ");
	jopt(f->data_out_first);
	printf(", \"data_in_first\": ");
	jopt(f->data_in_first);
	printf(", \"data_in_last\": ");
	jopt(f->data_in_last);
	printf(", \"rtt_samples\": ");
	jcounts((struct omap *)&f->rtt_samples, 0);
	printf(", \"min_rtt_us\": ");
	jopt(f->min_rtt_us);
	printf(", \"srtt_sum\": %lld, \"srtt_n\": %lld, \"srtt_max\": %lld, "
	       "\"cwnd_max\": %lld, \"ca_first\": ", f->srtt_sum, f->srtt_n,
	       f->srtt_max, f->cwnd_max);
	if (f->have_ca_first)
		jdouble(f->ca_first);
	else
		printf("null");
	printf(", \"acked_t\": [");
	for (i = 0; i < f->acked_b.n; i++) {
		printf("%s", i ? ", " : "");
		jdouble(f->acked_t[i]);
	}
	printf("], \"acked_b\": ");
	jlla(&f->acked_b);
	printf(",\n   \"series\": ");
	jseries(f->series, 6);
	printf(",\n   \"detail\": ");
	jseries(f->detail, 4);
}

static void out(int code, const char *message)
{
	size_t i;
	int k;

	printf("{\"covers\": {\"log\": [\"records\", \"events\", \"lost\", "
	       "\"misses\", \"discarded\", \"t0\", \"t_end\", \"layers\", "
	       "\"ns_events\", \"gaps\"], \"flow\": [\"key\", \"first_ns\", "
	       "\"last_ns\", \"seen_layers\", \"app_events\", \"app_written\", "
	       "\"app_read\", \"app_one_sent\", \"app_one_read\", \"ca_prev\", "
	       "\"ca_entered\", \"ca_changes\", \"tcp_records\", \"state\", "
	       "\"advmss\", \"last_tcp\", \"ca_names\", \"sent_tcp\", "
	       "\"ca_bytes\", \"inflight_max\", \"arrived\", \"syn_out\", "
	       "\"tcp_in_first\", \"data_out_first\", \"data_in_first\", "
	       "\"data_in_last\", \"rtt_samples\", \"min_rtt_us\", "
	       "\"srtt_sum\", \"srtt_n\", \"srtt_max\", \"cwnd_max\", "
	       "\"ca_first\", \"acked_t\", \"acked_b\", \"series\", "
	       "\"detail\", \"sent\", \"got_dev\", \"got_tcp\", \"retx\", "
	       "\"loss\", \"retx_unplaced\", \"out_ranges\", \"in_pending\", "
	       "\"in_starts\", \"in_tcp_only\", \"peer_id\", \"id_holes\", "
	       "\"id_lost\", \"id_late\", \"limits\"], \"csv\": [\"files\"], "
	       "\"queues\": "
	       "[\"devout\", \"enq\", \"toward\", \"stats\", \"ahead\", "
	       "\"handed\", \"left\", \"through\", \"fill\", \"first\", "
	       "\"longest\", \"enq_seen\", \"sojourns\"], \"received\": [\"d\", "
	       "\"end_ns\", \"at_send\"], \"decided\": [\"marks\", "
	       "\"marks_left_out\", \"drops\", \"sock_keys\", "
	       "\"state_paths\", \"decisions\", \"rcvbufs\", "
	       "\"rto_times\", \"cong_socks\"], \"modulation\": [\"size\", "
	       "\"gap\", \"asked\", \"last\"], \"latency\": [\"pending\", "
	       "\"stats\", \"reads\"], \"oneway\": [\"sender_ns\", "
	       "\"sends\", \"delays\", \"again\"]},\n");
	printf(" \"end\": {\"code\": %d, \"message\": ", code);
	jstr(message, strlen(message));
	printf("},\n \"log\": {\"records\": %lld, \"events\": %lld, "
	       "\"lost\": %lld, \"misses\": %lld, \"discarded\": %lld, ",
	       records, events, lost, misses, discarded);
	if (t0 < 0)
		printf("\"t0\": null, \"t_end\": null, ");
	else
		printf("\"t0\": %lld, \"t_end\": %lld, ", t0, t_end);
	printf("\"layers\": ");
	jlayers(layers);
	printf(", \"ns_events\": [");
	for (i = 0; i < ns_events.n; i++) {
		printf("%s[", i ? ", " : "");
		jstr(ns_events.e[i].k.p, ns_events.e[i].k.n);
		printf(", %lld]", ns_events.e[i].v);
	}
	printf("], \"gaps\": [");
	for (i = 0; i < ngaps; i++) {
		struct gap *g = &gaps[i];

		printf("%s[%lld, %lld, ", i ? ", " : "", g->start, g->t);
		if (g->misses < 0)
			printf("\"%lld buffered records discarded by reset\"]",
			       g->lost);
		else if (g->misses)
			printf("\"%lld records lost and %lld probe misses on "
			       "CPU %s\"]", g->lost, g->misses, g->cpu.p);
		else
			printf("\"%lld records lost on CPU %s\"]", g->lost,
			       g->cpu.p);
	}
	printf("]},\n \"flows\": [");
	for (i = 0; i < nflows; i++) {
		struct onode *e;

		for (e = flows[i]->retx.first; e; e = e->next)
			oget(&unsettled, e->key, 8);
	}
	for (i = 0; i < nflows; i++) {
		struct flow *f = flows[i];

		printf("%s\n  {\"key\": [", i ? "," : "");
		for (k = 0; k < 6; k++) {
			printf("%s", k ? ", " : "");
			jstr(f->id.key[k].p, f->id.key[k].n);
		}
		printf("], \"first_ns\": %lld, \"last_ns\": %lld, "
		       "\"seen_layers\": ", f->first_ns, f->last_ns);
		jlayers(f->seen_layers);
		printf(", \"app_events\": %lld, \"app_written\": %lld, "
		       "\"app_read\": %lld, \"app_one_sent\": ", f->app_events,
		       f->app_written, f->app_read);
		jtimes(f->app_one_sent, f->n_one_sent);
		printf(", \"app_one_read\": ");
		jtimes(f->app_one_read, f->n_one_read);
		jflow_ca(f);
		jflow_tcp(f);
		jflow_seq(f);
		printf(",\n   \"limits\": ");
		jlimits(f->limits);
		putchar('}');
	}
	printf("]");
	jqueues();
	jreceived();
	jdecisions();
	jmodulation();
	printf("}\n");
}

/* ---- reading ---- */

/* where the fields of the line @p (@n bytes, no newline) end, into
 * @ends (room for @max): their count, or @max + 1 if more. The fields are
 * short (most under 8 bytes): a scan of 16 bytes at a time for the tabs
 * (SSE2), not a memchr per field */
static int split(const char *p, size_t n, uint32_t *ends, int max)
{
	const char *s = p, *q = p, *end = p + n;
	int i = 0;

	if (n > UINT32_MAX)
		return max + 1;		/* (no record is 4 GiB long) */

#ifdef __SSE2__
	const __m128i tabs = _mm_set1_epi8('\t');

	while (end - q >= 16) {
		unsigned m = _mm_movemask_epi8(_mm_cmpeq_epi8(
			_mm_loadu_si128((const __m128i *)q), tabs));

		while (m) {
			if (i == max)
				return max + 1;
			ends[i++] = q - s + __builtin_ctz(m);
			m &= m - 1;
		}
		q += 16;
	}
#endif
	for (; q < end; q++)
		if (*q == '\t') {
			if (i == max)
				return max + 1;
			ends[i++] = q - s;
		}
	if (i == max)
		return max + 1;
	ends[i++] = n;
	return i;
}

/* Three threads: one reads the text into batches of whole lines, the
 * pass (main) takes each batch's records, then, with --csv, the CSVs'
 * thread writes their rows; then the batch is read into again. A line
 * the pass does not take (not a record) ends the batch for the CSVs too.
 * On two cores the pass runs alone on one. */
#define NBATCH 4
#define BATCH_BYTES (1 << 20)

enum { B_FREE, B_READ, B_DONE };	/* whose a batch is: reader's, pass's,
					 * CSVs' */
struct batch {
	char *buf;
	size_t cap;
	size_t *start;		/* line i: start[i] to start[i + 1] - 1 (its
				 * newline) */
	size_t nl, cap_l;
	uint32_t *ends;		/* line i's fields' ends: ends[i * ncols..] */
	int *nf;		/* line i's fields (ncols + 1: more) */
	size_t taken;		/* the lines the pass took (the CSVs' too) */
	size_t cut;		/* at the end: a last line's bytes, no
				 * newline */
	int last, stop, err, state;
};

static struct batch batch[NBATCH];
static pthread_mutex_t batch_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t batch_cv = PTHREAD_COND_INITIALIZER;

static struct batch *batch_wait(size_t i, int state)
{
	struct batch *b = &batch[i % NBATCH];

	pthread_mutex_lock(&batch_mu);
	while (b->state != state)
		pthread_cond_wait(&batch_cv, &batch_mu);
	pthread_mutex_unlock(&batch_mu);
	return b;
}

static void batch_give(struct batch *b, int state)
{
	pthread_mutex_lock(&batch_mu);
	b->state = state;
	pthread_cond_broadcast(&batch_cv);
	pthread_mutex_unlock(&batch_mu);
}

static void lines_room(struct batch *b, size_t n)
{
	b->cap_l = n;
	b->start = xrealloc(b->start, n * sizeof(*b->start));
	b->nf = xrealloc(b->nf, n * sizeof(*b->nf));
	b->ends = xrealloc(b->ends, n * ncols * sizeof(*b->ends));
}

/* the reader: @arg's text, batch after batch, each of whole lines (a line
 * longer than a batch grows it); a line cut at the end of the text is in
 * the last batch's cut */
static void *reader(void *arg)
{
	FILE *in = arg;
	char *carry = NULL;
	size_t ncarry = 0, i;

	for (i = 0;; i++) {
		struct batch *b = batch_wait(i, B_FREE);
		size_t len, got, pos, want, ask, scan;
		int eof = 0;

		if (!b->cap) {
			b->cap = BATCH_BYTES;
			b->buf = xrealloc(NULL, b->cap);
		}
		if (ncarry > b->cap / 2) {
			b->cap = ncarry * 2;
			b->buf = xrealloc(b->buf, b->cap);
		}
		if (ncarry)
			memcpy(b->buf, carry, ncarry);
		len = ncarry;
		b->nl = b->cut = 0;
		b->last = b->stop = b->err = 0;
		pos = scan = 0;
		if (!b->cap_l)
			lines_room(b, 4096);
		for (;;) {
			char *nlp;

			ask = b->cap - len;
			got = fread(b->buf + len, 1, ask, in);
			len += got;
			if (got < ask) {
				eof = 1;
				if (ferror(in))
					b->err = errno ? errno : EIO;
			}
			while ((nlp = memchr(b->buf + scan, '\n', len - scan))) {
				if (b->nl + 1 >= b->cap_l)
					lines_room(b, b->cap_l * 2);
				b->nf[b->nl] = split(b->buf + pos,
						     nlp - b->buf - pos,
						     b->ends + b->nl * ncols,
						     ncols);
				b->start[b->nl++] = pos;
				pos = scan = nlp + 1 - b->buf;
			}
			scan = len;
			if (b->nl || eof)
				break;
			/* no newline in the whole batch: a longer one */
			b->cap *= 2;
			b->buf = xrealloc(b->buf, b->cap);
		}
		b->start[b->nl] = pos;
		want = len - pos;
		if (eof) {
			b->cut = want;
			b->last = 1;
		} else {
			if (want > ncarry)
				carry = xrealloc(carry, want);
			ncarry = want;
			memcpy(carry, b->buf + pos, want);
		}
		batch_give(b, B_READ);
		if (eof)
			return NULL;
	}
}

/* the CSVs' thread: the lines the pass took, batch after batch */
static void *csv_writer(void *arg)
{
	size_t i, l;

	(void)arg;
	for (i = 0;; i++) {
		struct batch *b = batch_wait(i, B_DONE);

		for (l = 0; l < b->taken; l++) {
			cur = b->buf + b->start[l];
			cur_ends = b->ends + l * ncols;
			csv_line();
		}
		if (b->last || b->stop) {
			csv_close();
			return NULL;
		}
		batch_give(b, B_FREE);
	}
}

/* the bounds on what the pass keeps, as analyse.py has them (magnet-exp
 * passes its own; tests make them small): --bound NAME=N */
static const struct {
	const char *name;
	long long *v;
} bounds[] = {
	{ "pending", &pending_limit },		/* _Pending.LIMIT */
	{ "buckets", &max_buckets },		/* view.MAX_BUCKETS */
	{ "sent", &recv_sent },			/* Received.SENT */
	{ "sends", &oneway_sends },		/* OneWay.SENDS */
	{ "marks", &max_marks },		/* view.MAX_MARKS */
	{ "ca_changes", &max_ca_changes },	/* _MAX_CA_CHANGES */
	{ "latency", &lat_limit },		/* Latency.PENDING */
	{ "points", &max_points },		/* plots.MAX_POINTS */
	{ "window", &win_bytes },		/* _WINDOW */
	{ "window_keys", &win_keys },		/* _WINDOW_KEYS */
};

static void bound(const char *arg)
{
	const char *eq = strchr(arg, '=');
	size_t i;
	char *end;
	long long v;

	for (i = 0; eq && i < sizeof(bounds) / sizeof(bounds[0]); i++) {
		if (strlen(bounds[i].name) != (size_t)(eq - arg) ||
		    strncmp(arg, bounds[i].name, eq - arg))
			continue;
		errno = 0;
		v = strtoll(eq + 1, &end, 10);
		if (errno || *end || end == eq + 1 || v < 1)
			die(2, "--bound %s: not a positive number", arg);
		*bounds[i].v = v;
		return;
	}
	die(2, "--bound %s: no such bound (pending, buckets, sent, sends, marks, ca_changes, latency, points, window, window_keys)", arg);
}

static void usage(void)
{
	fprintf(stderr, "usage: magnet-pass [--devices IFINDEX,...] "
		"[--host NETNS=NAME]... [--csv DIR] [--bound NAME=N]... "
		"[--name NAME] [--full] [FILE]\n"
		"  the per-record pass of magnet-exp analyse over the magnet "
		"text\n  (ttpb2ascii -f magnet), its state as JSON on standard "
		"output\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *path = NULL, *name, *given_name = NULL;
	char *line = NULL, msg[512] = "";
	size_t cap = 0;
	ssize_t n;
	long lineno = 1;
	FILE *in = stdin;
	int i, c, code = 0;
	pthread_t rt, ct;
	uint32_t hdr_ends[MAX_COLS];
	size_t j;
	int end;

	stat_base = log(1.01);
	qu.devout.d.vsize = qu.enq.d.vsize = qu.toward.d.vsize =
		sizeof(struct pq);
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--devices") && i + 1 < argc) {
			char *s = argv[++i], *tok;

			have_devices = 1;
			for (tok = strtok(s, ","); tok; tok = strtok(NULL, ",")) {
				struct field f = { tok, strlen(tok) };

				count_of(&devices, f);
			}
		} else if (!strcmp(argv[i], "--host") && i + 1 < argc) {
			char *eq = strchr(argv[++i], '=');
			struct onode *n;

			if (!eq)
				die(2, "--host %s: not NETNS=NAME", argv[i]);
			n = oget(&hosts, argv[i], eq - argv[i]);
			n->v = eq + 1;
		} else if (!strcmp(argv[i], "--name") && i + 1 < argc) {
			given_name = argv[++i];
		} else if (!strcmp(argv[i], "--full")) {
			full = 1;
		} else if (!strcmp(argv[i], "--csv") && i + 1 < argc) {
			csv_dir = argv[++i];
		} else if (!strcmp(argv[i], "--bound") && i + 1 < argc) {
			bound(argv[++i]);
		} else if (argv[i][0] == '-' && argv[i][1]) {
			usage();
		} else if (!path) {
			path = argv[i];
		} else {
			usage();
		}
	}
	name = given_name ? given_name : path ? path : "-";
	if (path && strcmp(path, "-")) {
		in = fopen(path, "r");
		if (!in)
			die(1, "%s: %s", path, strerror(errno));
	}
	n = getline(&line, &cap, in);
	if (n <= 0) {
		/* nothing (ttpb2ascii found no record): no records */
		out(0, "");
		return 0;
	}
	if (strncmp(line, "time\tcpu\tevent\t", 15))
		die(2, "%s: not the magnet text (no header line)", name);
	if (line[n - 1] == '\n')
		line[--n] = 0;
	ncols = split(line, n, hdr_ends, MAX_COLS);
	if (ncols > MAX_COLS)
		die(2, "%s: more columns than %d", name, MAX_COLS);
	cur = line;
	cur_ends = hdr_ends;
	for (c = 0; c < C_NCOLS; c++) {
		col[c] = -1;
		for (i = 0; i < ncols; i++)
			if (is(field_at(i), col_names[c]))
				col[c] = i;
	}
	if (pthread_create(&rt, NULL, reader, in) ||
	    (csv_dir && pthread_create(&ct, NULL, csv_writer, NULL)))
		die(1, "no thread: %s", strerror(errno));
	threads = 1;
	for (j = 0;; j++) {
		struct batch *b = batch_wait(j, B_READ);
		size_t l;

		if (b->err)
			die(1, "%s: %s", name, strerror(b->err));
		for (l = 0; l < b->nl; l++) {
			lineno++;
			i = b->nf[l];
			if (i != ncols) {
				code = 2;
				snprintf(msg, sizeof(msg), "%s: line %ld has %d "
					 "fields, the header %d: not a record",
					 name, lineno, i, ncols);
				b->stop = 1;
				break;
			}
			cur = b->buf + b->start[l];
			cur_ends = b->ends + l * ncols;
			record();
		}
		b->taken = l;
		if (b->last && !b->stop && b->cut) {
			code = 3;
			snprintf(msg, sizeof(msg), "%s: last line cut short (%zu "
				 "bytes, line %ld): ignored", name, b->cut,
				 lineno + 1);
		}
		/* (once given, the batch may be read into again) */
		end = b->stop ? 2 : b->last;
		batch_give(b, csv_dir ? B_DONE : B_FREE);
		if (end)
			break;
	}
	if (csv_dir)
		pthread_join(ct, NULL);
	/* the reader ended with the last batch; else (a line not a record
	 * ended the pass) it may still read, until the exit */
	if (end == 1)
		pthread_join(rt, NULL);
	else
		pthread_detach(rt);
	out(code, msg);
	/* the reader may still be reading (a line that is not a record
	 * ended the pass): no exit() flushing a stream it reads */
	if (fflush(stdout) || ferror(stdout))
		_exit(1);
	_exit(0);
}
