/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Parser for the commands written to /proc/net/magnet (procfs-commands.md).
 * Shared by the kernel module and the userspace unit tests.
 */
#ifndef MAGNET_CMD_H
#define MAGNET_CMD_H

#include "shared.h"

/* Longest accepted command in bytes, trailing newline included. */
#define MAGNET_CMD_MAX_LEN 255

enum magnet_cmd_op {
	MAGNET_CMD_FLUSH = 1,
	MAGNET_CMD_FINISH,
	MAGNET_CMD_RESET,
	MAGNET_CMD_FILTER,	/* "filter ...": parse the line with filter.h */
};

struct magnet_cmd {
	enum magnet_cmd_op op;
};

/*
 * Parse one command of @len bytes (not NUL-terminated). Surrounding blanks
 * (space, tab, CR, LF) are ignored, so `echo` and `echo -n` both work.
 * A line whose first word is "filter" is MAGNET_CMD_FILTER; its terms are
 * for magnet_filter_parse(). Returns 0 and fills @cmd, or
 * -1 and points @err at a one-line reason.
 */
int magnet_cmd_parse(const char *buf, size_t len, struct magnet_cmd *cmd,
		     const char **err);

/*
 * Parse a layer list such as "tcp" or "app,tcp,ip,dev,drop" (or "all") of @len
 * bytes into a MAGNET_LAYER_* mask. Returns 0, or -1 with @err set.
 */
int magnet_parse_events(const char *buf, size_t len, unsigned int *mask,
			const char **err);

/* The layer list of @mask, e.g. "app,tcp", into @buf (32 bytes suffice). */
int magnet_format_events(char *buf, size_t size, unsigned int mask);

#endif /* MAGNET_CMD_H */
