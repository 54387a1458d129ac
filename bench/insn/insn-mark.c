// SPDX-License-Identifier: GPL-2.0
/*
 * Runs one instruction at a fixed address (0x5a5a00000000), which the insn
 * plugin (insn.c) takes as its signal to write the counts so far: the
 * guest script of bench/insn.sh runs it between configurations.
 */
#include <stdio.h>
#include <sys/mman.h>

int main(void)
{
	void *at = (void *)0x5a5a00000000UL;
	unsigned char *p = mmap(at, 4096, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE,
				-1, 0);

	if (p != at) {
		perror("insn-mark: mmap");
		return 1;
	}
	p[0] = 0xc3;	/* ret */
	if (mprotect(p, 4096, PROT_READ | PROT_EXEC)) {
		perror("insn-mark: mprotect");
		return 1;
	}
	((void (*)(void))p)();
	return 0;
}
