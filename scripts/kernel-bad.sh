# shellcheck shell=bash
# Sourced by tests/vm/run.sh, bench/common.sh and tests/fresh/run.sh: what
# in a guest's kernel log fails a run (grep -E), one pattern for all.
KERNEL_BAD='BUG:|WARNING:|UBSAN:|Oops|general protection|RCU stall|rcu_sched detected|detected stalls|self-detected stall|page allocation failure|invoked oom-killer|Out of memory|blocked for more than|soft lockup|hard LOCKUP|hung_task|Kernel panic|Call Trace|kprobe.*(fail|error)|Failed to register'
