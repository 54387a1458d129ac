#!/bin/bash
# usage: tests/vm/suite.sh TAG...
# The VM suite's cases with one of these tags, one a line, in the order of
# tests/vm/cases/*.sh. A case is a function defined there whose name
# starts a line with case_ or stress_; its tag is the word of the
# "# suite: TAG" line right above its definition, "-" if there is none:
#   -             make check's suite, on the first kernel (tests/vm/guest.sh)
#   every-kernel  make check's suite, on every kernel: cases whose outcome
#                 depends on the kernel (guest.sh says which)
#   check-exp     make check's suite, on the last kernel: one case of each
#                 area of magnet-exp and Monarch (MAGNET_ONE_CASES=1)
#   exp           magnet-exp's further cases, there too with
#                 MAGNET_EXP_CASES=1 (tests/vm/run.sh: make check-all,
#                 MAGNET_VM_EXP=1)
#   single        a boot of their own with single-threaded TCG (run.sh)
#   single-first  that boot, on make check's first kernel (run.sh): the
#                 short form of each stress case
#   pkg           the installed modules' (tests/pkg/run.sh)
#   stress        make check-stress, 2 vCPUs (the Makefile's STRESS_CASES)
#   stress-4cpus  make check-stress, a boot with 4 vCPUs
# An unknown tag, a "# suite:" line that is not right above a case, a
# case defined twice, or one defined in a way this cannot list (indented,
# "function case_x", capitals in its name) is an error (exit 1, nothing
# printed), so no case drops out of every suite unseen.
set -u
export LC_ALL=C
cases=$(cd "$(dirname "$0")" && pwd)/cases
awk -v want=" $* " '
function err(msg) { print "tests/vm/suite.sh: " msg > "/dev/stderr"; bad = 1 }
BEGIN {
	n = split("- every-kernel check-exp exp single single-first pkg stress stress-4cpus", t)
	for (i = 1; i <= n; i++) known[t[i]] = 1
	n = split(want, t)
	for (i = 1; i <= n; i++) if (!(t[i] in known)) err("no tag " t[i])
}
FNR == 1 { tag = "" }
/^(case|stress)_[a-z0-9_]+ *\(\)/ {
	name = $0
	sub(/ *\(.*/, "", name)
	if (seen[name]++) err(FILENAME ":" FNR ": " name " defined twice")
	if (index(want, " " (tag == "" ? "-" : tag) " ")) out = out name "\n"
	tag = ""
	next
}
# a definition this cannot list (indented, with the function keyword, or
# a name with other characters) would still be sourced by the guest and run
# in no suite
/^[ \t]*function[ \t]+(case|stress)_/ || /^[ \t]*(case|stress)_[A-Za-z0-9_]*[ \t]*\(\)/ {
	err(FILENAME ":" FNR ": a case defined as it cannot be listed (write \"case_name() {\" at the start of a line): " $0)
	next
}
tag != "" { err(FILENAME ":" FNR - 1 ": not right above a case: # suite: " tag) }
{ tag = "" }
/^# suite:/ {
	tag = $3
	if (NF != 3 || !(tag in known)) err(FILENAME ":" FNR ": no such tag: " $0)
}
END {
	if (bad) exit 1
	printf "%s", out
}' "$cases"/*.sh
