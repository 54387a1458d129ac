// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * parquetw: magnet text lines as a Parquet file (parquetw.h). Written from
 * the Apache Parquet format specification (parquet.thrift, version 2.9,
 * and its Encodings.md): the footer's metadata in Thrift's compact
 * protocol, a data page (version 1) per column chunk, PLAIN values,
 * definition levels in the RLE/bit-packing hybrid (bit-packed runs, bit
 * width 1), no compression.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parquetw.h"

/* a column's type: how its text is parsed, how its values are stored */
enum pqw_kind {
	PQW_U32,	/* decimal, < 2^32: INT32, logical INTEGER(32, false) */
	PQW_U64,	/* decimal, < 2^64: INT64, INTEGER(64, false) */
	PQW_S64,	/* decimal with an optional '-': INT64, INTEGER(64, true) */
	PQW_HEX64,	/* 16 hex digits (sock): INT64, INTEGER(64, false) */
	PQW_TIME,	/* SEC.NNNNNNNNN: INT64, TIMESTAMP(NANOS), UTC but not
			 * marked so (DuckDB then keeps the ns) */
	PQW_STR,	/* BYTE_ARRAY, STRING */
};

/*
 * Every column's kind: a record field's column by its schema.h type, any
 * other column PQW_U32 unless pqw_named below says otherwise (test_parquet
 * checks each kind against what the text holds).
 */
#define PQW_KIND_ PQW_U32
#define PQW_KIND___u8 PQW_U32
#define PQW_KIND___u16 PQW_U32
#define PQW_KIND___u32 PQW_U32
#define PQW_KIND___u64 PQW_U64
#define PQW_COL(type, name, dims, kind) { #name, PQW_KIND_##type },
static const struct pqw_coldef {
	const char *name;
	enum pqw_kind kind;
} pqw_cols[MAGNET_TEXT_NCOLS] = { MAGNET_TEXT_COLUMNS(PQW_COL) };

static const struct pqw_coldef pqw_named[] = {
	{ "time", PQW_TIME }, { "event", PQW_STR }, { "sock", PQW_HEX64 },
	{ "laddr", PQW_STR }, { "raddr", PQW_STR }, { "comm", PQW_STR },
	{ "req", PQW_U64 }, { "ret", PQW_S64 }, { "ca_name", PQW_STR },
	{ "pacing_rate", PQW_U64 }, { "delivery_rate", PQW_U64 },
	{ "bbr_bw", PQW_U64 }, { "drop_reason", PQW_STR },
	{ "drop_where", PQW_STR }, { "kind", PQW_STR }, { "qdisc", PQW_STR },
	{ "qdisc_handle", PQW_STR }, { "chrono", PQW_STR },
	{ "chrono_us", PQW_U64 }, { "busy_us", PQW_U64 },
	{ "rwnd_limited_us", PQW_U64 }, { "sndbuf_limited_us", PQW_U64 },
	{ "lost", PQW_U64 },
};

static enum pqw_kind pqw_kind(unsigned int i)
{
	size_t k;

	for (k = 0; k < sizeof(pqw_named) / sizeof(pqw_named[0]); k++)
		if (!strcmp(pqw_named[k].name, pqw_cols[i].name))
			return pqw_named[k].kind;
	return pqw_cols[i].kind;
}

/* resolved once: pqw_kind() per column */
static enum pqw_kind pqw_kinds[MAGNET_TEXT_NCOLS];
static int pqw_kinds_set;

/* Parquet's enums (parquet.thrift) */
enum { PQ_INT32 = 1, PQ_INT64 = 2, PQ_BYTE_ARRAY = 6 };
enum { PQ_OPTIONAL = 1 };
enum { PQ_UTF8 = 0, PQ_UINT_32 = 13, PQ_UINT_64 = 14, PQ_INT_64 = 18 };
enum { PQ_PLAIN = 0, PQ_RLE = 3 };
enum { PQ_DATA_PAGE = 0 };
enum { PQ_UNCOMPRESSED = 0 };

/* Thrift's compact protocol's types */
enum {
	TC_TRUE = 1, TC_FALSE = 2, TC_BYTE = 3, TC_I16 = 4, TC_I32 = 5,
	TC_I64 = 6, TC_BINARY = 8, TC_LIST = 9, TC_STRUCT = 12,
};

/* a growing byte buffer */
struct pqw_buf {
	unsigned char *p;
	size_t len, cap;
	int oom;
};

static void buf_room(struct pqw_buf *b, size_t n)
{
	size_t cap;
	unsigned char *p;

	if (b->oom || b->len + n <= b->cap)
		return;
	cap = b->cap ? b->cap : 256;
	while (cap < b->len + n)
		cap *= 2;
	p = realloc(b->p, cap);
	if (!p) {
		b->oom = 1;
		return;
	}
	b->p = p;
	b->cap = cap;
}

static void buf_put(struct pqw_buf *b, const void *v, size_t n)
{
	buf_room(b, n);
	if (b->oom)
		return;
	memcpy(b->p + b->len, v, n);
	b->len += n;
}

static void buf_byte(struct pqw_buf *b, unsigned int c)
{
	unsigned char x = (unsigned char)c;

	buf_put(b, &x, 1);
}

static void buf_varint(struct pqw_buf *b, unsigned long long v)
{
	while (v >= 0x80) {
		buf_byte(b, (unsigned int)(v & 0x7f) | 0x80);
		v >>= 7;
	}
	buf_byte(b, (unsigned int)v);
}

/*
 * Thrift compact: a struct's fields, each after a header that gives the
 * field id as a delta from the last one (1..15) and the type; @last the
 * enclosing struct's last field id
 */
static void tc_field(struct pqw_buf *b, int *last, int id, int type)
{
	if (id > *last && id - *last <= 15) {
		buf_byte(b, (unsigned int)((id - *last) << 4 | type));
	} else {
		buf_byte(b, (unsigned int)type);
		buf_varint(b, (unsigned long long)((id << 1) ^ (id >> 15)));
	}
	*last = id;
}

static void tc_i64(struct pqw_buf *b, int *last, int id, long long v)
{
	tc_field(b, last, id, TC_I64);
	buf_varint(b, ((unsigned long long)v << 1) ^
		      (unsigned long long)(v >> 63));
}

static void tc_i32(struct pqw_buf *b, int *last, int id, int v)
{
	tc_field(b, last, id, TC_I32);
	buf_varint(b, (unsigned long long)(unsigned int)((v << 1) ^ (v >> 31)));
}

static void tc_bin(struct pqw_buf *b, const char *s)
{
	size_t n = strlen(s);

	buf_varint(b, n);
	buf_put(b, s, n);
}

static void tc_str(struct pqw_buf *b, int *last, int id, const char *s)
{
	tc_field(b, last, id, TC_BINARY);
	tc_bin(b, s);
}

static void tc_list(struct pqw_buf *b, int type, size_t n)
{
	if (n < 15) {
		buf_byte(b, (unsigned int)(n << 4 | (size_t)type));
	} else {
		buf_byte(b, 0xf0U | (unsigned int)type);
		buf_varint(b, n);
	}
}

static void tc_end(struct pqw_buf *b)
{
	buf_byte(b, 0);
}

static void pqw_fail(struct pqw *w, const char *what, unsigned int col)
{
	if (col < MAGNET_TEXT_NCOLS)
		snprintf(w->err, sizeof(w->err), "%s (column %u, %s)", what,
			 col + 1, pqw_cols[col].name);
	else
		snprintf(w->err, sizeof(w->err), "%s", what);
}

static int pqw_write(struct pqw *w, const void *p, size_t n)
{
	if (!w->put(w->ctx, p, n)) {
		pqw_fail(w, "write error", MAGNET_TEXT_NCOLS);
		return -1;
	}
	w->off += n;
	return 0;
}

int pqw_begin(struct pqw *w, pqw_put_fn put, void *ctx,
	      const char *created_by)
{
	unsigned int i;

	if (!pqw_kinds_set) {
		for (i = 0; i < MAGNET_TEXT_NCOLS; i++)
			pqw_kinds[i] = pqw_kind(i);
		pqw_kinds_set = 1;
	}
	memset(w, 0, sizeof(*w));
	w->put = put;
	w->ctx = ctx;
	w->created_by = created_by;
	for (i = 0; i < MAGNET_TEXT_NCOLS; i++) {
		w->col[i].def = calloc(PQW_GROUP_ROWS / 8, 1);
		if (!w->col[i].def) {
			pqw_free(w);
			pqw_fail(w, "out of memory", MAGNET_TEXT_NCOLS);
			return -1;
		}
	}
	return pqw_write(w, "PAR1", 4);
}

void pqw_free(struct pqw *w)
{
	unsigned int i;

	for (i = 0; i < MAGNET_TEXT_NCOLS; i++) {
		free(w->col[i].val);
		free(w->col[i].def);
		w->col[i].val = NULL;
		w->col[i].def = NULL;
	}
	free(w->groups);
	w->groups = NULL;
}

static int col_room(struct pqw_col *c, size_t n)
{
	size_t cap;
	unsigned char *p;

	if (c->len + n <= c->cap)
		return 0;
	cap = c->cap ? c->cap : 4096;
	while (cap < c->len + n)
		cap *= 2;
	p = realloc(c->val, cap);
	if (!p)
		return -1;
	c->val = p;
	c->cap = cap;
	return 0;
}

/* decimal digits [s, e) into *v; false if none, another byte, or > max */
static int parse_dec(const char *s, const char *e, unsigned long long max,
		     unsigned long long *v)
{
	unsigned long long x = 0;

	if (s == e)
		return 0;
	for (; s < e; s++) {
		unsigned int d = (unsigned int)(*s - '0');

		if (d > 9 || x > (max - d) / 10)
			return 0;
		x = x * 10 + d;
	}
	*v = x;
	return 1;
}

/* one non-empty field [s, e) of column @i, appended to its values */
static int pqw_value(struct pqw *w, unsigned int i, const char *s,
		     const char *e)
{
	struct pqw_col *c = &w->col[i];
	unsigned long long v = 0, ns;
	unsigned char b[8];
	size_t n = (size_t)(e - s);
	const char *dot;
	unsigned int k;
	int neg = 0;

	switch (pqw_kinds[i]) {
	case PQW_U32:
		if (!parse_dec(s, e, UINT32_MAX, &v))
			goto bad;
		n = 4;
		break;
	case PQW_U64:
		if (!parse_dec(s, e, UINT64_MAX, &v))
			goto bad;
		n = 8;
		break;
	case PQW_S64:
		if (*s == '-') {
			neg = 1;
			s++;
		}
		/* a lost line's misses are unsigned in the text: above
		 * 2^63 - 1 (no count gets there), their two's complement */
		if (!parse_dec(s, e, neg ? (1ULL << 63) : UINT64_MAX, &v))
			goto bad;
		v = neg ? ~v + 1 : v;
		n = 8;
		break;
	case PQW_HEX64:
		if (n != 16)
			goto bad;
		for (; s < e; s++) {
			unsigned int d = (unsigned char)*s;

			if (d >= '0' && d <= '9')
				d -= '0';
			else if (d >= 'a' && d <= 'f')
				d -= 'a' - 10;
			else
				goto bad;
			v = v << 4 | d;
		}
		n = 8;
		break;
	case PQW_TIME:
		/* SEC.NNNNNNNNN: ns since the epoch, below 2^63 */
		dot = memchr(s, '.', n);
		if (!dot || e - dot != 10 ||
		    !parse_dec(s, dot, INT64_MAX / 1000000000ULL - 1, &v) ||
		    !parse_dec(dot + 1, e, 999999999, &ns))
			goto bad;
		v = v * 1000000000ULL + ns;
		n = 8;
		break;
	case PQW_STR:
		if (col_room(c, 4 + n))
			goto oom;
		for (k = 0; k < 4; k++)
			c->val[c->len + k] = (unsigned char)(n >> (8 * k));
		memcpy(c->val + c->len + 4, s, n);
		c->len += 4 + n;
		return 0;
	}
	/* INT32 and INT64: little-endian, two's complement */
	for (k = 0; k < n; k++)
		b[k] = (unsigned char)(v >> (8 * k));
	if (col_room(c, n))
		goto oom;
	memcpy(c->val + c->len, b, n);
	c->len += n;
	return 0;
bad:
	pqw_fail(w, "not a value of its type", i);
	return -1;
oom:
	pqw_fail(w, "out of memory", MAGNET_TEXT_NCOLS);
	return -1;
}

/* the page header of a data page of @c's @rows rows, @len bytes */
static void page_header(struct pqw_buf *b, size_t rows, size_t len)
{
	int last = 0, in = 0;

	tc_i32(b, &last, 1, PQ_DATA_PAGE);
	tc_i32(b, &last, 2, (int)len);
	tc_i32(b, &last, 3, (int)len);
	tc_field(b, &last, 5, TC_STRUCT);	/* data_page_header */
	tc_i32(b, &in, 1, (int)rows);		/* num_values, nulls too */
	tc_i32(b, &in, 2, PQ_PLAIN);
	tc_i32(b, &in, 3, PQ_RLE);		/* definition levels */
	tc_i32(b, &in, 4, PQ_RLE);		/* repetition levels: none */
	tc_end(b);
	tc_end(b);
}

/* write out the current row group: a chunk per column, one page each */
static int pqw_group(struct pqw *w)
{
	struct pqw_buf h = { 0 };
	struct pqw_group *g;
	unsigned int i;
	size_t groups = (w->rows + 7) / 8;
	unsigned long long start = w->off;

	if (!w->rows)
		return 0;
	if (w->ngroups == w->groups_cap) {
		size_t cap = w->groups_cap ? 2 * w->groups_cap : 16;
		struct pqw_group *p = realloc(w->groups, cap * sizeof(*p));

		if (!p) {
			pqw_fail(w, "out of memory", MAGNET_TEXT_NCOLS);
			return -1;
		}
		w->groups = p;
		w->groups_cap = cap;
	}
	g = &w->groups[w->ngroups];
	for (i = 0; i < MAGNET_TEXT_NCOLS; i++) {
		struct pqw_col *c = &w->col[i];
		unsigned char lev[4 + 10];
		size_t page, k;
		unsigned long long x;

		/* definition levels: a 4-byte length, then one bit-packed
		 * run of @groups groups of 8 levels (header: groups << 1 | 1) */
		x = (unsigned long long)groups << 1 | 1;
		for (k = 4; x >= 0x80; x >>= 7)
			lev[k++] = (unsigned char)(x & 0x7f) | 0x80;
		lev[k++] = (unsigned char)x;
		x = k - 4 + groups;
		lev[0] = (unsigned char)x;
		lev[1] = (unsigned char)(x >> 8);
		lev[2] = (unsigned char)(x >> 16);
		lev[3] = (unsigned char)(x >> 24);
		page = k + groups + c->len;
		h.len = 0;
		page_header(&h, w->rows, page);
		if (h.oom) {
			free(h.p);
			pqw_fail(w, "out of memory", MAGNET_TEXT_NCOLS);
			return -1;
		}
		g->off[i] = w->off;
		g->len[i] = h.len + page;
		if (pqw_write(w, h.p, h.len) || pqw_write(w, lev, k) ||
		    pqw_write(w, c->def, groups) ||
		    (c->len && pqw_write(w, c->val, c->len))) {
			free(h.p);
			return -1;
		}
		memset(c->def, 0, groups);
		c->len = 0;
	}
	free(h.p);
	g->rows = w->rows;
	g->bytes = w->off - start;
	w->ngroups++;
	w->total_rows += w->rows;
	w->rows = 0;
	return 0;
}

int pqw_line(struct pqw *w, const char *line, size_t len)
{
	const char *s = line, *e = line + len, *t;
	unsigned int i;
	size_t row = w->rows;

	if (len && e[-1] == '\n')
		e--;
	for (i = 0; i < MAGNET_TEXT_NCOLS; i++) {
		t = memchr(s, '\t', (size_t)(e - s));
		if (!t) {
			if (i != MAGNET_TEXT_NCOLS - 1) {
				pqw_fail(w, "a line of too few columns", i);
				goto undo;
			}
			t = e;
		} else if (i == MAGNET_TEXT_NCOLS - 1) {
			pqw_fail(w, "a line of too many columns", i);
			goto undo;
		}
		if (t > s) {
			if (pqw_value(w, i, s, t))
				goto undo;
			w->col[i].def[row / 8] |= (unsigned char)(1U << (row % 8));
		}
		s = t + 1;
	}
	if (++w->rows == PQW_GROUP_ROWS)
		return pqw_group(w);
	return 0;
undo:
	/* the columns before @i took this row's values: take them back */
	while (i--) {
		struct pqw_col *c = &w->col[i];

		if (!(c->def[row / 8] & (1U << (row % 8))))
			continue;
		c->def[row / 8] &= (unsigned char)~(1U << (row % 8));
		/* a value's size: 4, 8, or a string's 4 + its length */
		if (pqw_kinds[i] == PQW_U32) {
			c->len -= 4;
		} else if (pqw_kinds[i] != PQW_STR) {
			c->len -= 8;
		} else {
			/* strings are walked from the group's start */
			size_t o = 0, last = 0;

			while (o < c->len) {
				last = o;
				o += 4 + ((size_t)c->val[o] |
					  (size_t)c->val[o + 1] << 8 |
					  (size_t)c->val[o + 2] << 16 |
					  (size_t)c->val[o + 3] << 24);
			}
			c->len = last;
		}
	}
	return -1;
}

/* a column's SchemaElement */
static void schema_col(struct pqw_buf *b, unsigned int i)
{
	int last = 0, lt = 0, in = 0, unit = 0;
	enum pqw_kind k = pqw_kinds[i];

	tc_i32(b, &last, 1, k == PQW_U32 ? PQ_INT32 :
		  k == PQW_STR ? PQ_BYTE_ARRAY : PQ_INT64);
	tc_i32(b, &last, 3, PQ_OPTIONAL);
	tc_str(b, &last, 4, pqw_cols[i].name);
	if (k != PQW_TIME)
		tc_i32(b, &last, 6, k == PQW_STR ? PQ_UTF8 :
			  k == PQW_U32 ? PQ_UINT_32 :
			  k == PQW_S64 ? PQ_INT_64 : PQ_UINT_64);
	/* logicalType, a union: STRING (1), TIMESTAMP (8), INTEGER (10) */
	tc_field(b, &last, 10, TC_STRUCT);
	if (k == PQW_STR) {
		tc_field(b, &lt, 1, TC_STRUCT);
		tc_end(b);
	} else if (k == PQW_TIME) {
		tc_field(b, &lt, 8, TC_STRUCT);
		tc_field(b, &in, 1, TC_FALSE);		/* isAdjustedToUTC */
		tc_field(b, &in, 2, TC_STRUCT);		/* unit: NANOS (3) */
		tc_field(b, &unit, 3, TC_STRUCT);
		tc_end(b);
		tc_end(b);
		tc_end(b);
	} else {
		tc_field(b, &lt, 10, TC_STRUCT);
		tc_field(b, &in, 1, TC_BYTE);		/* bitWidth */
		buf_byte(b, k == PQW_U32 ? 32 : 64);
		tc_field(b, &in, 2, k == PQW_S64 ? TC_TRUE : TC_FALSE);
		tc_end(b);
	}
	tc_end(b);
	tc_end(b);
}

/* FileMetaData */
static void footer(struct pqw *w, struct pqw_buf *b, const char *end)
{
	int last = 0;
	size_t g;
	unsigned int i;

	tc_i32(b, &last, 1, 1);				/* version */
	tc_field(b, &last, 2, TC_LIST);			/* schema */
	tc_list(b, TC_STRUCT, 1 + MAGNET_TEXT_NCOLS);
	{
		int r = 0;

		tc_str(b, &r, 4, "magnet");
		tc_i32(b, &r, 5, MAGNET_TEXT_NCOLS);
		tc_end(b);
	}
	for (i = 0; i < MAGNET_TEXT_NCOLS; i++)
		schema_col(b, i);
	tc_i64(b, &last, 3, (long long)w->total_rows);
	tc_field(b, &last, 4, TC_LIST);			/* row_groups */
	tc_list(b, TC_STRUCT, w->ngroups);
	for (g = 0; g < w->ngroups; g++) {
		const struct pqw_group *rg = &w->groups[g];
		int r = 0;

		tc_field(b, &r, 1, TC_LIST);		/* columns */
		tc_list(b, TC_STRUCT, MAGNET_TEXT_NCOLS);
		for (i = 0; i < MAGNET_TEXT_NCOLS; i++) {
			enum pqw_kind k = pqw_kinds[i];
			int c = 0, m = 0;

			tc_i64(b, &c, 2, (long long)rg->off[i]); /* file_offset */
			tc_field(b, &c, 3, TC_STRUCT);	/* meta_data */
			tc_i32(b, &m, 1, k == PQW_U32 ? PQ_INT32 :
				  k == PQW_STR ? PQ_BYTE_ARRAY : PQ_INT64);
			tc_field(b, &m, 2, TC_LIST);	/* encodings */
			tc_list(b, TC_I32, 2);
			buf_varint(b, PQ_PLAIN << 1);
			buf_varint(b, PQ_RLE << 1);
			tc_field(b, &m, 3, TC_LIST);	/* path_in_schema */
			tc_list(b, TC_BINARY, 1);
			tc_bin(b, pqw_cols[i].name);
			tc_i32(b, &m, 4, PQ_UNCOMPRESSED);
			tc_i64(b, &m, 5, (long long)rg->rows);	/* nulls too */
			tc_i64(b, &m, 6, (long long)rg->len[i]);
			tc_i64(b, &m, 7, (long long)rg->len[i]);
			tc_i64(b, &m, 9, (long long)rg->off[i]);
			tc_end(b);
			tc_end(b);
		}
		tc_i64(b, &r, 2, (long long)rg->bytes);	/* total_byte_size */
		tc_i64(b, &r, 3, (long long)rg->rows);
		tc_end(b);
	}
	tc_field(b, &last, 5, TC_LIST);			/* key_value_metadata */
	tc_list(b, TC_STRUCT, 2);
	{
		int r = 0;

		tc_str(b, &r, 1, "magnet.columns");
		tc_str(b, &r, 2, "the magnet text's (ttpb2ascii -f magnet), "
		       "an empty field a null");
		tc_end(b);
		r = 0;
		tc_str(b, &r, 1, "magnet.end");
		tc_str(b, &r, 2, end);
		tc_end(b);
	}
	tc_str(b, &last, 6, w->created_by);
	tc_end(b);
}

int pqw_end(struct pqw *w, const char *end)
{
	struct pqw_buf b = { 0 };
	unsigned char n[4];
	int rc = -1;

	if (pqw_group(w))
		goto out;
	footer(w, &b, end);
	if (b.oom || b.len > UINT32_MAX) {
		pqw_fail(w, "out of memory", MAGNET_TEXT_NCOLS);
		goto out;
	}
	n[0] = (unsigned char)b.len;
	n[1] = (unsigned char)(b.len >> 8);
	n[2] = (unsigned char)(b.len >> 16);
	n[3] = (unsigned char)(b.len >> 24);
	if (pqw_write(w, b.p, b.len) || pqw_write(w, n, 4) ||
	    pqw_write(w, "PAR1", 4))
		goto out;
	rc = 0;
out:
	free(b.p);
	pqw_free(w);
	return rc;
}
