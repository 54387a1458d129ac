/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The unit tests' assertion: counts passes and failures, and prints each
 * failure with its place. Each test program prints the two counts.
 */
#ifndef MAGNET_TEST_CHECK_H
#define MAGNET_TEST_CHECK_H

#include <stdio.h>

static int passed, failed;

#define CHECK(cond, ...)                                              \
	do {                                                          \
		if (cond) {                                           \
			passed++;                                     \
		} else {                                              \
			failed++;                                     \
			printf("FAIL %s:%d: ", __FILE__, __LINE__);   \
			printf(__VA_ARGS__);                          \
			printf("\n");                                 \
		}                                                     \
	} while (0)

#endif /* MAGNET_TEST_CHECK_H */
