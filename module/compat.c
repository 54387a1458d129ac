// SPDX-License-Identifier: GPL-2.0
/* What compat.h's fallbacks for older kernels need defined once. */
#include "compat.h"

#if LINUX_VERSION_CODE < KERNEL_VERSION(5, 11, 0)
DEFINE_PER_CPU(unsigned int, magnet_ftrace_recursion);
#endif
