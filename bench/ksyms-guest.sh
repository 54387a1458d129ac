#!/bin/bash
# Runs inside a boot of bench/insn.sh with INSN_CALLERS: the kernel's
# symbols, which with nokaslr are where the measured boot has them.
# usage: ksyms-guest.sh MAGNET_KO OUTDIR
set -eu
cat /proc/kallsyms > "$2/kallsyms"
dmesg > "$2/dmesg.txt"
touch "$2/done"
