/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * parquetw: magnet text lines (module/shared/format_text.c, the columns of
 * format.h's MAGNET_TEXT_COLUMNS) as an Apache Parquet file, typed, for
 * pandas, Polars, DuckDB and Spark (ttpb2ascii -f parquet).
 *
 * Each line is parsed into its columns, so the file holds exactly what the
 * magnet text says: a column's name is the text's, an empty field is a
 * null, a number its value (docs/outputs.md, "Columns for pandas, Polars
 * and DuckDB", gives each column's type). Rows go out in row groups of at most PQW_GROUP_ROWS
 * rows, so memory stays bounded whatever the log's length. The file is
 * plain Parquet 1.0: data pages of version 1, PLAIN values, definition
 * levels bit-packed, no compression, no statistics, no dictionary.
 */
#ifndef MAGNET_PARQUETW_H
#define MAGNET_PARQUETW_H

#include <stddef.h>

#include "format.h"

/* rows per row group: the bound on memory (the widest magnet text row
 * takes under 700 bytes here: 45 MB at most, a TCP record's about 300) */
#define PQW_GROUP_ROWS 65536

/* the writer's output: @n bytes of the file, in order; false on an error */
typedef int (*pqw_put_fn)(void *ctx, const void *buf, size_t n);

struct pqw_col {
	unsigned char *val;	/* the row group's values, PLAIN */
	size_t len, cap;
	unsigned char *def;	/* a bit per row: 1 = a value, 0 = null */
};

struct pqw {
	pqw_put_fn put;
	void *ctx;
	struct pqw_col col[MAGNET_TEXT_NCOLS];
	size_t rows;			/* in the current row group */
	unsigned long long off;		/* bytes written */
	unsigned long long total_rows;
	/* the footer's row groups: their rows, size and each chunk's place */
	struct pqw_group {
		unsigned long long rows, bytes;
		unsigned long long off[MAGNET_TEXT_NCOLS];
		unsigned long long len[MAGNET_TEXT_NCOLS];
	} *groups;
	size_t ngroups, groups_cap;
	const char *created_by;
	char err[160];			/* why the last call failed */
};

/* start a file: "PAR1"; 0, or -1 with w->err */
int pqw_begin(struct pqw *w, pqw_put_fn put, void *ctx,
	      const char *created_by);
/*
 * One magnet text line (its newline included or not): 0, or -1 with
 * w->err (a line whose columns are not the text's: a bug, or not magnet
 * text). A full row group is written out before this returns.
 */
int pqw_line(struct pqw *w, const char *line, size_t len);
/*
 * The last row group and the footer, whose key-value metadata says
 * magnet.end = @end ("complete", or why the log ended early); 0 or -1
 * with w->err. Frees everything; pqw_free() after an error instead.
 */
int pqw_end(struct pqw *w, const char *end);
void pqw_free(struct pqw *w);

#endif
