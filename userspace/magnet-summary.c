// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * magnet-summary: summarise a ttprobe-format log (omode=0) per flow.
 *
 * Reads the log from a file or stdin, checks that every line has the 17
 * ttprobe fields, and prints one row per flow (fields 3-6): lines sent and
 * received, the sum of the 'o' segment lengths, and the time span.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LINE 512

struct flow {
	char *key;		/* "laddr,lport,raddr,rport" */
	unsigned long long out_lines, in_lines, out_bytes;
	double first, last;
	size_t order;
};

static struct flow *flows;
static size_t nflows, cap;	/* open addressing, cap a power of two */

static void usage(FILE *f)
{
	fprintf(f,
		"usage: magnet-summary [FILE]\n"
		"\n"
		"Summarise a magnet/ttprobe ASCII log (read from FILE or stdin).\n"
		"Prints one row per flow: local and remote address and port, the\n"
		"lines for segments sent (o) and received (i), the bytes of the\n"
		"sent segments (sum of field 17 over 'o' lines) and the time span.\n"
		"A row whose remote address is unspecified and remote port 0 is a\n"
		"listening socket's (the SYNs it took), marked so and not counted\n"
		"as a connection.\n"
		"Exits 1 on a malformed line, naming it, and 2 on a usage or I/O\n"
		"error.\n");
}

static unsigned long hash_str(const char *s)
{
	unsigned long h = 5381;

	while (*s)
		h = h * 33 + (unsigned char)*s++;
	return h;
}

static struct flow *lookup(const char *key)
{
	size_t i;

	if (2 * (nflows + 1) > cap) {
		struct flow *old = flows;
		size_t oldcap = cap, j;

		cap = cap ? 2 * cap : 64;
		flows = calloc(cap, sizeof(*flows));
		if (!flows) {
			perror("magnet-summary");
			exit(2);
		}
		for (j = 0; j < oldcap; j++) {
			if (!old[j].key)
				continue;
			for (i = hash_str(old[j].key) & (cap - 1); flows[i].key;
			     i = (i + 1) & (cap - 1))
				;
			flows[i] = old[j];
		}
		free(old);
	}
	for (i = hash_str(key) & (cap - 1); flows[i].key; i = (i + 1) & (cap - 1))
		if (!strcmp(flows[i].key, key))
			return &flows[i];
	flows[i].key = strdup(key);
	if (!flows[i].key) {
		perror("magnet-summary");
		exit(2);
	}
	flows[i].order = nflows++;
	return &flows[i];
}

/* a listening socket's row: the remote address unspecified (0.0.0.0,
 * or IPv6's all-zero, as magnet writes it) and the remote port 0 */
static int listener(const char *key)
{
	const char *rport = strrchr(key, ','), *raddr;

	if (!rport || strcmp(rport + 1, "0"))
		return 0;
	for (raddr = rport; raddr > key && raddr[-1] != ','; raddr--)
		;
	return raddr < rport && strspn(raddr, "0:.") == (size_t)(rport - raddr);
}

static int by_order(const void *a, const void *b)
{
	const struct flow *x = a, *y = b;

	if (!x->key || !y->key)
		return !x->key - !y->key;
	return x->order < y->order ? -1 : x->order > y->order;
}

int main(int argc, char **argv)
{
	char line[MAX_LINE], key[MAX_LINE];
	unsigned long long lineno = 0, total = 0;
	FILE *in = stdin;
	size_t i, listeners = 0;

	if (argc > 2 || (argc == 2 && (!strcmp(argv[1], "-h") ||
				       !strcmp(argv[1], "--help")))) {
		usage(argc > 2 ? stderr : stdout);
		return argc > 2 ? 2 : 0;
	}
	if (argc == 2 && strcmp(argv[1], "-")) {
		in = fopen(argv[1], "r");
		if (!in) {
			fprintf(stderr, "magnet-summary: %s: %s\n", argv[1],
				strerror(errno));
			return 2;
		}
	}

	while (fgets(line, sizeof(line), in)) {
		char *f[17], *p = line, *end;
		struct flow *fl;
		double ts;
		int n = 0;

		lineno++;
		end = strchr(line, '\n');
		if (!end) {
			fprintf(stderr, "magnet-summary: line %llu: %s\n", lineno,
				feof(in) ? "incomplete last line" : "line too long");
			return 1;
		}
		*end = '\0';
		while (n < 17) {
			f[n++] = p;
			p = strchr(p, ',');
			if (!p)
				break;
			*p++ = '\0';
		}
		if (n != 17 || p || (strcmp(f[0], "o") && strcmp(f[0], "i"))) {
			fprintf(stderr,
				"magnet-summary: line %llu: not a ttprobe line (17 fields, 'i' or 'o' first)\n",
				lineno);
			return 1;
		}
		ts = strtod(f[1], NULL);
		snprintf(key, sizeof(key), "%s,%s,%s,%s", f[2], f[3], f[4], f[5]);
		fl = lookup(key);
		if (!fl->out_lines && !fl->in_lines)
			fl->first = ts;
		fl->last = ts;
		if (f[0][0] == 'o') {
			fl->out_lines++;
			fl->out_bytes += strtoull(f[16], NULL, 10);
		} else {
			fl->in_lines++;
		}
		total++;
	}
	if (ferror(in)) {
		fprintf(stderr, "magnet-summary: read error: %s\n", strerror(errno));
		return 2;
	}

	qsort(flows, cap, sizeof(*flows), by_order);
	printf("%-60s %10s %10s %14s %10s\n", "flow (local,port,remote,port)",
	       "o lines", "i lines", "o bytes", "seconds");
	for (i = 0; i < nflows; i++) {
		int l = listener(flows[i].key);

		listeners += l;
		printf("%-60s %10llu %10llu %14llu %10.3f%s\n", flows[i].key,
		       flows[i].out_lines, flows[i].in_lines,
		       flows[i].out_bytes, flows[i].last - flows[i].first,
		       l ? "  (listening socket)" : "");
	}
	printf("%llu lines, %zu connections, %zu listening sockets\n", total,
	       nflows - listeners, listeners);
	return 0;
}
