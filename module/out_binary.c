// SPDX-License-Identifier: GPL-2.0
/*
 * magnet's binary stream (omode=1, not compat=ttprobe; stream.h's struct
 * magnet_output, docs/binary-format.md): a SYSINFO header, then format 3's
 * records as the rings hold them (format=3, the default) or format 2's
 * 256-byte records decoded from them, LOST and RESET marks included.
 */
#include <linux/utsname.h>
#include <linux/timekeeping.h>
#include "magnet.h"
#include "stream.h"

static size_t magnet_sysinfo(struct magnet_reader *rd, char *buf, bool v3)
{
	struct magnet_sysinfo *si = (struct magnet_sysinfo *)buf;
	const struct magnet_config *c = &magnet_cfg;

	memset(si, 0, sizeof(*si));
	si->magic = MAGNET_MAGIC;
	si->version = v3 ? MAGNET_FORMAT_VERSION_V3 : MAGNET_FORMAT_VERSION;
	/* version 3's records vary */
	si->record_size = v3 ? 0 : sizeof(struct magnet_record);
	si->sysinfo_size = sizeof(*si);
	/* the additions to version 3 its records may use (record.h) */
	si->features = v3 ? MAGNET_V3_FEATURES : 0;
	si->ncpus = nr_cpu_ids;
	si->realtime_offset_ns = rd->rt_offset_ns;
	si->start_ns = ktime_get_mono_fast_ns();
	strscpy(si->release, init_utsname()->release, sizeof(si->release));
	si->port = c->port;
	si->full = c->full;
	si->bufsize = c->bufsize;
	si->omode = c->omode;
	si->direction = c->direction;
	si->fwmark = c->fwmark;
	si->events = c->events;
	strscpy(si->procname, c->procname, sizeof(si->procname));
	strscpy(si->version_string, MAGNET_VERSION, sizeof(si->version_string));
	return sizeof(*si);
}

static size_t magnet_binary_header(struct magnet_reader *rd, char *buf)
{
	return magnet_sysinfo(rd, buf, false);
}

static int magnet_binary_emit(struct magnet_reader *rd, char *dst,
			      const struct magnet_record *rec,
			      const struct magnet_v3_rate *rate)
{
	memcpy(dst, rec, sizeof(*rec));
	return sizeof(*rec);
}

const struct magnet_output magnet_out_binary = {
	.name = "omode=1 format=2",
	.line_max = MAGNET_TEXT_LINE_MAX,
	.marks = true,
	.header = magnet_binary_header,
	.take = magnet_take_binary,
	.emit = magnet_binary_emit,
};

static size_t magnet_v3_header(struct magnet_reader *rd, char *buf)
{
	return magnet_sysinfo(rd, buf, true);
}

/* the record as it is, after taking the flows it defines or ends (for a
 * stream after this one) */
static bool magnet_v3_take(struct magnet_reader *rd, const union magnet_slot *s,
			   int cpu)
{
	unsigned int len = s->hdr.len;
	bool aux = magnet_pass_aux(s);

	memcpy(rd->buf + rd->len, s, len);
	rd->len += len;
	if (!aux)
		__set_bit(rd->len - 1, rd->ends);
	return aux;
}

const struct magnet_output magnet_out_v3 = {
	.name = "omode=1 format=3",
	/* records are 8-byte aligned; the flows come first */
	.line_max = MAGNET_V3_MAX_SIZE,
	.marks = true,
	.v3 = true,
	.header = magnet_v3_header,
	.take = magnet_v3_take,
	/* the marks are written as version 3 records (stream.c) */
};
