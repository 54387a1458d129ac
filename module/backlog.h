/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Segments counted in segs_in that wait in a socket's backlog (backlog.c):
 * segs_in as TCP has processed it.
 */
#ifndef MAGNET_BACKLOG_H
#define MAGNET_BACKLOG_H

#include <linux/types.h>

struct sock;

/* set while the tcp_add_backlog probe is registered */
extern bool magnet_bl_on;

void magnet_backlog_add(const struct sock *sk, u32 segs, u32 dsegs,
			bool fresh);
void magnet_backlog_consume(const struct sock *sk, u32 segs, u32 dsegs);
void magnet_backlog_release(const struct sock *sk);
void magnet_backlog_segs_in(const struct sock *sk, u32 *segs, u32 *dsegs);
unsigned long magnet_backlog_queued(void);
unsigned long magnet_backlog_untracked(void);
unsigned long magnet_backlog_unsettled(void);
unsigned int magnet_backlog_pending_sockets(void);
void magnet_backlog_clear(void);

#endif /* MAGNET_BACKLOG_H */
