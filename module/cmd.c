// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Command parsing for /proc/net/magnet, shared with userspace unit tests.
 */
#include "cmd.h"

static int is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static const struct {
	const char *word;
	enum magnet_cmd_op op;
} magnet_cmds[] = {
	{ "flush", MAGNET_CMD_FLUSH },
	{ "finish", MAGNET_CMD_FINISH },
};

int magnet_cmd_parse(const char *buf, size_t len, struct magnet_cmd *cmd,
		     const char **err)
{
	size_t start = 0, end = len, i;

	if (len > MAGNET_CMD_MAX_LEN) {
		*err = "command too long";
		return -1;
	}
	for (i = 0; i < len; i++) {
		if (buf[i] == '\0') {
			*err = "command contains a NUL byte";
			return -1;
		}
	}
	while (start < end && is_blank(buf[start]))
		start++;
	while (end > start && is_blank(buf[end - 1]))
		end--;
	if (start == end) {
		*err = "empty command";
		return -1;
	}
	for (i = 0; i < sizeof(magnet_cmds) / sizeof(magnet_cmds[0]); i++) {
		size_t wl = strlen(magnet_cmds[i].word);

		if (end - start == wl &&
		    !memcmp(buf + start, magnet_cmds[i].word, wl)) {
			cmd->op = magnet_cmds[i].op;
			return 0;
		}
	}
	*err = "unknown command (expected flush or finish)";
	return -1;
}
