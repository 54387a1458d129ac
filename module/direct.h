/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Format 3's records straight from the rings to the reader (direct.c),
 * for reader.c's read(), TAKE and release.
 */
#ifndef MAGNET_DIRECT_H
#define MAGNET_DIRECT_H

#include "stream.h"

bool magnet_direct(const struct magnet_reader *rd, size_t count);
ssize_t magnet_fill_user(struct magnet_reader *rd, char __user *ubuf,
			 size_t count);
long magnet_fill_map(struct magnet_reader *rd, struct magnet_take __user *ut,
		     struct magnet_seg __user *usegs, unsigned int max);
void magnet_release_held(struct magnet_reader *rd);

#endif /* MAGNET_DIRECT_H */
