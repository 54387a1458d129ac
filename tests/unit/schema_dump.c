// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Prints every table of module/uapi/schema.h as the C compiler lays it out, for
 * check.sh's comparison with tests/vm/schema.py and
 * docs/binary-format.md (tests/unit/schemacheck.py):
 *   part NAME SIZE
 *   OFFSET TYPE NAME KIND      TYPE: u32, s64, char[11], u32[5] ...
 * offsets from the start of the part's struct.
 */
#include <stdio.h>
#include <string.h>
#include "record.h"

static const char *tname(const char *c)
{
	return strncmp(c, "__", 2) ? c : c + 2;
}

#define DUMP(type, name, dims, kind)					\
	if (sizeof("" #dims) > 1)					\
		printf("%zu %s[%zu] %s %s\n", offsetof(T, name), tname(#type), \
		       sizeof(((T *)0)->name) / sizeof(type), #name, #kind); \
	else								\
		printf("%zu %s %s %s\n", offsetof(T, name), tname(#type),	\
		       #name, #kind);

#define PART(label, TABLE)						\
	printf("part %s %zu\n", label, 0 TABLE(MAGNET_SCHEMA_SIZE));	\
	TABLE(DUMP)

int main(void)
{
#define T struct magnet_v3_hdr
	PART("v3_hdr", MAGNET_V3_HDR_FIELDS)
#undef T
#define T struct magnet_v3_count
	PART("v3_count", MAGNET_V3_COUNT_PART)
#undef T
#define T struct magnet_v3_flow
	PART("v3_flow", MAGNET_V3_FLOW_PART)
#undef T
#define T struct magnet_v3_tcp
	PART("v3_tcp", MAGNET_V3_TCP_PART)
#undef T
#define T struct magnet_v3_app
	PART("v3_app", MAGNET_V3_APP_PART)
#undef T
#define T struct magnet_v3_pkt
	PART("v3_pkt", MAGNET_V3_PKT_PART)
#undef T
#define T struct magnet_v3_rate
	PART("v3_rate", MAGNET_V3_RATE_PART)
#undef T
#define T struct magnet_v3_drop
	PART("v3_drop", MAGNET_V3_DROP_PART)
#undef T
#define T struct magnet_v3_tcpev
	PART("v3_tcpev", MAGNET_V3_TCPEV_PART)
#undef T
#define T struct magnet_v3_qdisc
	PART("v3_qdisc", MAGNET_V3_QDISC_PART)
#undef T
#define T struct magnet_v3_limit
	PART("v3_limit", MAGNET_V3_LIMIT_PART)
#undef T
#define T struct magnet_v3_rcvbuf
	PART("v3_rcvbuf", MAGNET_V3_RCVBUF_PART)
#undef T
#define T struct magnet_v3_rtoend
	PART("v3_rtoend", MAGNET_V3_RTOEND_PART)
#undef T
	/* version 2: offsets in the record */
#define T struct magnet_record
	PART("v2_head", MAGNET_V2_HEAD)
	PART("v2_snap", MAGNET_V2_SNAP)
	PART("v2_hdr", MAGNET_V2_HDR)
	PART("v2_tail", MAGNET_V2_TAIL)
#undef T
#define T struct magnet_sysinfo
	PART("sysinfo", MAGNET_SYSINFO_FIELDS)
#undef T
	return 0;
}
