// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Command parsing for /proc/net/magnet, shared with userspace unit tests.
 */
#include "cmd.h"
#include "record.h"

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
	{ "reset", MAGNET_CMD_RESET },
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
	if (end - start >= 6 && !memcmp(buf + start, "filter", 6) &&
	    (end - start == 6 || is_blank(buf[start + 6]))) {
		cmd->op = MAGNET_CMD_FILTER;
		return 0;
	}
	for (i = 0; i < sizeof(magnet_cmds) / sizeof(magnet_cmds[0]); i++) {
		size_t wl = strlen(magnet_cmds[i].word);

		if (end - start == wl &&
		    !memcmp(buf + start, magnet_cmds[i].word, wl)) {
			cmd->op = magnet_cmds[i].op;
			return 0;
		}
	}
	*err = "unknown command (expected flush, finish, reset or filter)";
	return -1;
}

static const struct {
	const char *word;
	unsigned int mask;
} magnet_layers[] = {
	{ "app", MAGNET_LAYER_APP },
	{ "tcp", MAGNET_LAYER_TCP },
	{ "ip", MAGNET_LAYER_IP },
	{ "dev", MAGNET_LAYER_DEV },
	{ "drop", MAGNET_LAYER_DROP },
	{ "retrans", MAGNET_LAYER_RETRANS },
	{ "state", MAGNET_LAYER_STATE },
	{ "qdisc", MAGNET_LAYER_QDISC },
	{ "wire", MAGNET_LAYER_WIRE },
	{ "cong", MAGNET_LAYER_CONG },
	{ "rcvbuf", MAGNET_LAYER_RCVBUF },
	{ "all", MAGNET_LAYER_ALL },
};

int magnet_parse_events(const char *buf, size_t len, unsigned int *mask,
			const char **err)
{
	unsigned int m = 0;
	size_t pos = 0;

	while (len && is_blank(buf[len - 1]))
		len--;
	if (!len) {
		*err = "empty layer list (use app, tcp, ip, dev, drop, retrans, state, qdisc, wire, cong, rcvbuf or all)";
		return -1;
	}
	while (pos <= len) {
		size_t end = pos, i;
		int found = 0;

		while (end < len && buf[end] != ',')
			end++;
		for (i = 0; i < sizeof(magnet_layers) / sizeof(magnet_layers[0]); i++) {
			size_t wl = strlen(magnet_layers[i].word);

			if (end - pos == wl &&
			    !memcmp(buf + pos, magnet_layers[i].word, wl)) {
				m |= magnet_layers[i].mask;
				found = 1;
			}
		}
		if (!found) {
			*err = "unknown layer (use app, tcp, ip, dev, drop, retrans, state, qdisc, wire, cong, rcvbuf or all, comma-separated)";
			return -1;
		}
		pos = end + 1;
	}
	*mask = m;
	return 0;
}

int magnet_format_events(char *buf, size_t size, unsigned int mask)
{
	size_t i, n = 0;

	buf[0] = '\0';
	/* every name but the last, all */
	for (i = 0; i + 1 < sizeof(magnet_layers) / sizeof(magnet_layers[0]);
	     i++) {
		if (!(mask & magnet_layers[i].mask))
			continue;
		n += snprintf(buf + n, size > n ? size - n : 0, "%s%s",
			      n ? "," : "", magnet_layers[i].word);
	}
	return (int)n;
}
