// SPDX-License-Identifier: GPL-2.0
/*
 * magnet-pass: magnet-exp analyse's per-record pass, in C (work in
 * progress, issue #59: the analysis at 1M records a second).
 *
 * It reads the magnet text (ttpb2ascii -f magnet's output, the stable
 * interface; a header line naming the columns, then one record per line,
 * tab-separated) from FILE or standard input, and writes on standard
 * output, as JSON, the state that python/magnet_exp/analyse.py's pass
 * (_pass()) leaves for its end (_finish()): the log's counts and gaps, and
 * per connection end (Flow) what its records added up to.
 *
 * This first part covers the log-level state and the flows' table with
 * their layers and application records; its "covers" member names what it
 * computes, and tests/unit/test_pass.py holds each of those against the
 * Python pass on every fixture log. analyse.py does not use it yet.
 *
 * Exit codes as ttpb2ascii's: 0, 2 (a line that is not a record, a file
 * that is not the magnet text), 3 (the last line cut short).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#define MAX_COLS 256
#define MAX_ONE 32		/* analyse.py's _MAX_ONE */

/* the columns the pass reads, by name; -1 where the header has none */
enum col {
	C_TIME, C_CPU, C_EVENT, C_FAMILY, C_LADDR, C_LPORT, C_RADDR, C_RPORT,
	C_NETNS, C_RET, C_LOST, C_IFINDEX, C_NCOLS
};
static const char *const col_names[C_NCOLS] = {
	"time", "cpu", "event", "family", "laddr", "lport", "raddr", "rport",
	"netns", "ret", "lost", "ifindex",
};
static int col[C_NCOLS];

struct field {
	const char *p;
	size_t n;
};

static struct field fv[MAX_COLS];
static int ncols;

static void __attribute__((format(printf, 2, 3), noreturn))
die(int code, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "magnet-pass: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(code);
}

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n);
	if (!p)
		die(1, "out of memory");
	return p;
}

static struct field get(enum col c)
{
	struct field f = { "", 0 };

	if (col[c] >= 0)
		f = fv[col[c]];
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

static uint64_t hash(const char *p, size_t n, uint64_t h)
{
	while (n--)
		h = (h ^ (unsigned char)*p++) * 0x100000001b3ULL;
	return h;
}

/* ---- the flows: a connection end's key is family, local address and
 * port, remote address and port, netns (analyse.py's _key()) ---- */

enum layer { L_APP, L_TCP, L_IP, L_DEV, L_OTHER };
static const char *const layer_names[] = { "app", "tcp", "ip", "dev" };

struct flow {
	struct str key[6];
	uint64_t h;
	long long first_ns, last_ns;
	unsigned seen_layers;		/* 1 << enum layer */
	long long app_events, app_written, app_read;
	long long app_one_sent[MAX_ONE], app_one_read[MAX_ONE];
	int n_one_sent, n_one_read;
};

static struct flow **flows;	/* in the order found */
static size_t nflows, cap_flows;
static struct flow **tab;	/* open addressing, a power of 2 */
static size_t tab_size;

static const enum col key_cols[6] = {
	C_FAMILY, C_LADDR, C_LPORT, C_RADDR, C_RPORT, C_NETNS
};

static uint64_t key_hash(void)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	int i;

	for (i = 0; i < 6; i++) {
		struct field f = get(key_cols[i]);

		h = hash(f.p, f.n, h);
		h = hash("\t", 1, h);
	}
	return h;
}

static int key_is(const struct flow *fl)
{
	int i;

	for (i = 0; i < 6; i++) {
		struct field f = get(key_cols[i]);

		if (f.n != fl->key[i].n || memcmp(f.p, fl->key[i].p, f.n))
			return 0;
	}
	return 1;
}

static void tab_grow(void)
{
	size_t i, n = tab_size ? tab_size * 2 : 1024;
	struct flow **t = calloc(n, sizeof(*t));

	if (!t)
		die(1, "out of memory");
	for (i = 0; i < nflows; i++) {
		size_t j = flows[i]->h & (n - 1);

		while (t[j])
			j = (j + 1) & (n - 1);
		t[j] = flows[i];
	}
	free(tab);
	tab = t;
	tab_size = n;
}

/* the record's flow, made at @t_ns if new */
static struct flow *flow_of(long long t_ns)
{
	uint64_t h = key_hash();
	struct flow *fl;
	size_t j;
	int i;

	if ((nflows + 1) * 2 > tab_size)
		tab_grow();
	for (j = h & (tab_size - 1); tab[j]; j = (j + 1) & (tab_size - 1))
		if (tab[j]->h == h && key_is(tab[j]))
			return tab[j];
	fl = calloc(1, sizeof(*fl));
	if (!fl)
		die(1, "out of memory");
	for (i = 0; i < 6; i++)
		fl->key[i] = keep(get(key_cols[i]));
	fl->h = h;
	fl->first_ns = fl->last_ns = t_ns;
	tab[j] = fl;
	if (nflows == cap_flows) {
		cap_flows = cap_flows ? cap_flows * 2 : 64;
		flows = xrealloc(flows, cap_flows * sizeof(*flows));
	}
	flows[nflows++] = fl;
	return fl;
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

/* one record (fv[0..ncols)) */
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
	if (is(ev, "qdisc") || is(ev, "qdisc_enq") || is(ev, "wire_out"))
		return;
	if (is(ev, "drop_out") || is(ev, "drop_in") || is(ev, "retrans") ||
	    is(ev, "rto") || is(ev, "tlp") || is(ev, "state") ||
	    is(ev, "cong_state") || is(ev, "rcvbuf") || is(ev, "rto_end"))
		return;
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

static void out(int code, const char *message)
{
	size_t i;
	int k;

	printf("{\"covers\": {\"log\": [\"records\", \"events\", \"lost\", "
	       "\"misses\", \"discarded\", \"t0\", \"t_end\", \"layers\", "
	       "\"ns_events\", \"gaps\"], \"flow\": [\"key\", \"first_ns\", "
	       "\"last_ns\", \"seen_layers\", \"app_events\", \"app_written\", "
	       "\"app_read\", \"app_one_sent\", \"app_one_read\"]},\n");
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
		struct flow *f = flows[i];

		printf("%s\n  {\"key\": [", i ? "," : "");
		for (k = 0; k < 6; k++) {
			printf("%s", k ? ", " : "");
			jstr(f->key[k].p, f->key[k].n);
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
		putchar('}');
	}
	printf("]}\n");
}

/* ---- reading ---- */

/* the line @p (@n bytes, no newline) into fv[]: its fields' count, or
 * MAX_COLS + 1 if more. The fields are short (most under 8 bytes): a
 * scan of 16 bytes at a time for the tabs (SSE2), not a memchr per field */
static int split(char *p, size_t n)
{
	const char *s = p, *end = p + n;
	int i = 0;

#ifdef __SSE2__
	const __m128i tabs = _mm_set1_epi8('\t');

	while (end - p >= 16) {
		unsigned m = _mm_movemask_epi8(_mm_cmpeq_epi8(
			_mm_loadu_si128((const __m128i *)p), tabs));

		while (m) {
			const char *t = p + __builtin_ctz(m);

			if (i == MAX_COLS)
				return MAX_COLS + 1;
			fv[i].p = s;
			fv[i].n = t - s;
			i++;
			s = t + 1;
			m &= m - 1;
		}
		p += 16;
	}
#endif
	for (; p < end; p++)
		if (*p == '\t') {
			if (i == MAX_COLS)
				return MAX_COLS + 1;
			fv[i].p = s;
			fv[i].n = p - s;
			i++;
			s = p + 1;
		}
	if (i == MAX_COLS)
		return MAX_COLS + 1;
	fv[i].p = s;
	fv[i].n = end - s;
	return i + 1;
}

static void usage(void)
{
	fprintf(stderr, "usage: magnet-pass [--devices IFINDEX,...] [FILE]\n"
		"  the per-record pass of magnet-exp analyse over the magnet "
		"text\n  (ttpb2ascii -f magnet), its state as JSON on standard "
		"output\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *path = NULL, *name;
	char *line = NULL, msg[512] = "";
	size_t cap = 0;
	ssize_t n;
	long lineno = 1;
	FILE *in = stdin;
	int i, c, code = 0;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--devices") && i + 1 < argc) {
			char *s = argv[++i], *tok;

			have_devices = 1;
			for (tok = strtok(s, ","); tok; tok = strtok(NULL, ",")) {
				struct field f = { tok, strlen(tok) };

				count_of(&devices, f);
			}
		} else if (argv[i][0] == '-' && argv[i][1]) {
			usage();
		} else if (!path) {
			path = argv[i];
		} else {
			usage();
		}
	}
	name = path ? path : "-";
	if (path && strcmp(path, "-")) {
		in = fopen(path, "r");
		if (!in)
			die(1, "%s: %s", path, strerror(errno));
	}
	n = getline(&line, &cap, in);
	if (n <= 0 || strncmp(line, "time\tcpu\tevent\t", 15))
		die(2, "%s: not the magnet text (no header line)", name);
	if (line[n - 1] == '\n')
		line[--n] = 0;
	ncols = split(line, n);
	if (ncols > MAX_COLS)
		die(2, "%s: more columns than %d", name, MAX_COLS);
	for (c = 0; c < C_NCOLS; c++) {
		col[c] = -1;
		for (i = 0; i < ncols; i++)
			if (is(fv[i], col_names[c]))
				col[c] = i;
	}
	/* the columns' names are fv's until the first record: keep none */
	while ((n = getline(&line, &cap, in)) > 0) {
		lineno++;
		if (line[n - 1] != '\n') {
			code = 3;
			snprintf(msg, sizeof(msg), "%s: last line cut short (%zd "
				 "bytes, line %ld): ignored", name, n, lineno);
			break;
		}
		line[--n] = 0;
		i = split(line, n);
		if (i != ncols) {
			code = 2;
			snprintf(msg, sizeof(msg), "%s: line %ld has %d fields, "
				 "the header %d: not a record", name, lineno, i,
				 ncols);
			break;
		}
		record();
	}
	out(code, msg);
	return 0;
}
