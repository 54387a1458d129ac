// SPDX-License-Identifier: GPL-2.0
/*
 * A QEMU TCG plugin for make bench-insn (bench/insn.sh): counts the guest
 * kernel's executed instructions per translation block, exactly, whether
 * interrupts are on or off (perf's samples in the guest cannot see into a
 * section that runs with interrupts off, such as magnet's record fill).
 *
 * Arguments: out=PREFIX, and trigger=ADDR (hex; default 5a5a00000000,
 * where insn-mark.c puts the one instruction it runs: the guest script
 * runs insn-mark between configurations). Each time the guest executes
 * ADDR, the counts so far are written to
 * PREFIX.<n> (n = 0, 1, ...) as "vaddr insns executions" lines, one per
 * block executed since the last dump, and set to zero; at exit once more.
 * A block's instructions belong to the function at its start (a block
 * ends at every jump and call). Under -icount a `rep` string instruction
 * counts once per iteration, as the guest's clock does.
 *
 * callers=START:END+START:END+... (hex, at most 16 ranges; make
 * bench-insn's INSN_CALLERS, with the guest booted nokaslr so the
 * addresses are System.map's): the instructions executed in those
 * functions, also by call site, written to PREFIX.<n>.callers as
 * "site start insns" lines. The call site is the last `call` executed
 * before the function's entry (its first address); a tail jump into it
 * takes the call that entered the function jumping, and an interrupt
 * that calls one of them in the middle of another moves the rest of the
 * outer one to its own site (rare: the counts say where, not exactly).
 * Each site also names the three calls before it on a shadow stack
 * (pushed at every call, popped at every ret): the call into the function
 * that made the call, and so on up, which a context switch or an exception
 * can make wrong (the stack is the last 64 calls, not the task's).
 *
 * Built against the plugin interface of QEMU 7.2 (version 1), declared in
 * qemu-plugin-api.h, the subset used here.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "qemu-plugin-api.h"

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

struct blk {
	uint64_t vaddr;
	uint64_t insns;
	uint64_t count;		/* added to inline by the translated code */
	struct blk *next;
};

#define NBUCKETS (1u << 20)
static struct blk **tab;
static uint64_t trigger = 0x5a5a00000000ULL;
static const char *prefix = "insn";
static unsigned int dumps;

/* callers=: the functions counted by call site */
#define MAX_RANGES 16
static struct { uint64_t start, end; } ranges[MAX_RANGES];
static unsigned int nranges;
#define SHADOW 64
static uint64_t shadow[SHADOW];	/* the calls executed, not returned */
static unsigned int top;	/* (one vCPU) */
#define UP 3
static uint64_t cur_site, cur_up[UP], cur_start;	/* what entered one */

struct site {
	uint64_t site, up[UP], start, insns;
	struct site *next;
};
#define NSITES (1u << 12)
static struct site *sites[NSITES];

static struct blk *blk_get(uint64_t vaddr, uint64_t insns)
{
	unsigned int h = (unsigned int)((vaddr * 0x9e3779b97f4a7c15ULL) >> 44) &
			 (NBUCKETS - 1);
	struct blk *b;

	for (b = tab[h]; b; b = b->next)
		if (b->vaddr == vaddr && b->insns == insns)
			return b;
	b = calloc(1, sizeof(*b));
	if (!b)
		abort();
	b->vaddr = vaddr;
	b->insns = insns;
	b->next = tab[h];
	tab[h] = b;
	return b;
}

static void dump_sites(const char *path)
{
	struct site *c;
	unsigned int i;
	FILE *f = fopen(path, "w");

	if (!f) {
		qemu_plugin_outs("insn: cannot write the callers\n");
		return;
	}
	for (i = 0; i < NSITES; i++)
		for (c = sites[i]; c; c = c->next)
			if (c->insns) {
				fprintf(f, "%" PRIx64 " %" PRIx64 " %" PRIu64
					" %" PRIx64 " %" PRIx64 " %" PRIx64 "\n",
					c->site, c->start, c->insns, c->up[0],
					c->up[1], c->up[2]);
				c->insns = 0;
			}
	fclose(f);
}

static void dump(void)
{
	char path[4096];
	unsigned int i;
	struct blk *b;
	FILE *f;

	if (nranges) {
		snprintf(path, sizeof(path), "%s.%u.callers", prefix, dumps);
		dump_sites(path);
	}
	snprintf(path, sizeof(path), "%s.%u", prefix, dumps++);
	f = fopen(path, "w");
	if (!f) {
		qemu_plugin_outs("insn: cannot write the counts\n");
		return;
	}
	for (i = 0; i < NBUCKETS; i++)
		for (b = tab[i]; b; b = b->next)
			if (b->count) {
				fprintf(f, "%" PRIx64 " %" PRIu64 " %" PRIu64 "\n",
					b->vaddr, b->insns, b->count);
				b->count = 0;
			}
	fclose(f);
}

static void on_trigger(unsigned int vcpu, void *udata)
{
	(void)vcpu;
	(void)udata;
	dump();
}

static void on_call(unsigned int vcpu, void *udata)
{
	(void)vcpu;
	shadow[++top % SHADOW] = (uint64_t)(uintptr_t)udata;
}

static void on_ret(unsigned int vcpu, void *udata)
{
	(void)vcpu;
	(void)udata;
	top--;
}

/* a block of a callers= function, counted for the call that entered it */
static void on_range(unsigned int vcpu, void *udata)
{
	struct blk *b = udata;
	unsigned int h;
	struct site *c;

	(void)vcpu;
	h = (unsigned int)(((cur_site ^ cur_start ^ cur_up[0] ^ cur_up[1]) *
			    0x9e3779b97f4a7c15ULL) >> 52) &
	    (NSITES - 1);
	for (c = sites[h]; c; c = c->next)
		if (c->site == cur_site && c->start == cur_start &&
		    !memcmp(c->up, cur_up, sizeof(cur_up)))
			break;
	if (!c) {
		c = calloc(1, sizeof(*c));
		if (!c)
			abort();
		c->site = cur_site;
		memcpy(c->up, cur_up, sizeof(cur_up));
		c->start = cur_start;
		c->next = sites[h];
		sites[h] = c;
	}
	c->insns += b->insns;
}

/* a callers= function's entry block (known at translation): the call site */
static void on_range_entry(unsigned int vcpu, void *udata)
{
	struct blk *b = udata;
	unsigned int i;

	cur_site = shadow[top % SHADOW];
	for (i = 0; i < UP; i++)
		cur_up[i] = shadow[(top - 1 - i) % SHADOW];
	cur_start = b->vaddr;
	on_range(vcpu, udata);
}

static void on_trans_callers(struct qemu_plugin_tb *tb, struct blk *b)
{
	size_t n = qemu_plugin_tb_n_insns(tb);
	struct qemu_plugin_insn *last;
	unsigned int i;
	char *dis;

	for (i = 0; i < nranges; i++)
		if (b->vaddr >= ranges[i].start && b->vaddr < ranges[i].end) {
			qemu_plugin_register_vcpu_tb_exec_cb(tb,
				b->vaddr == ranges[i].start ? on_range_entry :
							      on_range,
				QEMU_PLUGIN_CB_NO_REGS, b);
			break;
		}
	/* then the block's own call or ret (a counted function's too) */
	if (!n)
		return;
	last = qemu_plugin_tb_get_insn(tb, n - 1);
	dis = qemu_plugin_insn_disas(last);
	if (dis && !strncmp(dis, "call", 4))
		qemu_plugin_register_vcpu_tb_exec_cb(tb, on_call,
						     QEMU_PLUGIN_CB_NO_REGS,
						     (void *)(uintptr_t)qemu_plugin_insn_vaddr(last));
	else if (dis && !strncmp(dis, "ret", 3))
		qemu_plugin_register_vcpu_tb_exec_cb(tb, on_ret,
						     QEMU_PLUGIN_CB_NO_REGS,
						     NULL);
	free(dis);
}

static void on_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	uint64_t vaddr = qemu_plugin_tb_vaddr(tb);
	struct blk *b;

	(void)id;
	if (vaddr == trigger)
		qemu_plugin_register_vcpu_tb_exec_cb(tb, on_trigger,
						     QEMU_PLUGIN_CB_NO_REGS,
						     NULL);
	if (vaddr < 0xffff800000000000ULL)	/* the kernel's only */
		return;
	b = blk_get(vaddr, qemu_plugin_tb_n_insns(tb));
	qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64,
						 &b->count, 1);
	if (nranges)
		on_trans_callers(tb, b);
}

static void at_exit_dump(qemu_plugin_id_t id, void *udata)
{
	(void)id;
	(void)udata;
	dump();
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id,
					   const qemu_info_t *info, int argc,
					   char **argv)
{
	int i;

	if (!info->system_emulation) {
		qemu_plugin_outs("insn: system emulation only\n");
		return -1;
	}
	for (i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "trigger=", 8))
			trigger = strtoull(argv[i] + 8, NULL, 16);
		else if (!strncmp(argv[i], "out=", 4))
			prefix = strdup(argv[i] + 4);
		else if (!strncmp(argv[i], "callers=", 8)) {
			char *p = argv[i] + 8;

			while (*p && nranges < MAX_RANGES) {
				ranges[nranges].start = strtoull(p, &p, 16);
				if (*p++ != ':')
					return -1;
				ranges[nranges++].end = strtoull(p, &p, 16);
				if (*p == '+')
					p++;
				else if (*p)
					return -1;
			}
		}
	}
	if (nranges && info->system.smp_vcpus > 1) {
		qemu_plugin_outs("insn: callers= counts one vCPU only\n");
		return -1;
	}
	tab = calloc(NBUCKETS, sizeof(*tab));
	if (!tab)
		return -1;
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_trans);
	qemu_plugin_register_atexit_cb(id, at_exit_dump, NULL);
	return 0;
}
