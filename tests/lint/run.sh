#!/bin/bash
# Static lint of the repository's bash scripts for the patterns that make a
# test's check unfailable: shellcheck, restricted to the checks below, and
# tests/lint/shpatterns.py for what shellcheck does not catch (a check
# helper followed by && or ||, set -e in a subshell that is a condition,
# an assertion in the middle of an && list under set -e, `|| true` after a
# verdict; its docstring has the rules).
#
# usage: tests/lint/run.sh             the self-test, then every tracked
#                                      bash script (make check)
#        tests/lint/run.sh --selftest  the self-test alone
#        tests/lint/run.sh FILE...     these files alone
#
# The bash scripts: `git ls-files` entries ending in .sh and extensionless
# ones with a bash shebang (.ci/run), less tests/lint/samples/ (the
# self-test's examples, bad on purpose). Prints each finding as
# "file:line: pattern: explanation", then "lint: N findings"; exits 1 if
# N > 0. A reviewed exception is a `# shellcheck disable=SCnnnn` with its
# reason on the line before; shpatterns.py's patterns have none: rewrite.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
cd "$top" || exit 2

# The shellcheck (0.9.0) checks, each a way a check can pass unseen. Any
# other report is left out, but for shellcheck's parse errors (SC1xxx
# errors: the file was not checked). shpatterns.py narrows some (its
# docstring says how).
sc_codes=(
	# a function invoked in an if / while / && / || / ! condition runs with
	# set -e off, a check in it fails unseen (optional check
	# check-set-e-suppressed; kept only for calls made under set -e to
	# functions with a check before their last command: not for
	# `if pred; then` on a one-command predicate)
	SC2310
	# the same for a function invoked inside $( ) (no inherit_errexit)
	SC2311
	# A && B || C: when B fails C runs too and its status replaces B's
	# (kept only where B can fail and C is no test, `|| true`, exit 1...)
	SC2015
	# local/export/declare x=$(cmd): the status is local's, a failing cmd
	# goes unseen by set -e and by $? (kept only under set -e)
	SC2155
	# `! cmd` as a statement never triggers set -e: the assertion always
	# passes (kept only under set -e)
	SC2251
	# $? after a [ ] is the test's: the check judges the wrong status
	SC2319
	# $? after echo/printf is theirs, 0: the check always passes
	SC2320
	# [ x != a -o x != b ], [[ x != a || x != b ]]: always true
	SC2055
	# [ x != a ] || [ x != b ]: always true
	SC2252
	# [ -n "$x " ], [ "$x " ]: a literal in the string, always true
	SC2157
	# [ false ] is true
	SC2158
	# [ 0 ] is true
	SC2159
	# [ word ] without a $: a constant, always true
	SC2078
	# [ word = 0 ] without a $: a constant comparison
	SC2050
	# [ "$x"=0 ] without spaces: one non-empty word, always true
	SC2077
	# [ "$n" > 5 ]: a redirection to a file named 5, always true
	SC2071
	# [ "$n" -gt 1.5 ]: an error, not a comparison
	SC2072
	# [ "$n" -eq word ]: an error, not a comparison
	SC2170
	# arguments that can never be equal: a constant test
	SC2193
	# return 1 2: one status only
	SC2151
	# return 256 is return 0
	SC2152
	# exit 256 is exit 0
	SC2242
	# a counter bumped in a subshell (a `... | while read` loop) is lost
	# when the subshell ends: fail=$((fail + 1)) counts nothing (SC2030
	# where it is bumped, SC2031 where it is read)
	SC2030
	SC2031
)
# Considered and left out: SC2164 (cd without || exit: a failed cd makes
# what follows fail, not pass; shellcheck skips it in set -e files anyway),
# SC2069 (2>&1 before >file: where output goes, not a status), SC2312
# (every status masked in a command's arguments: about 300 reports on this
# tree, nearly all on purpose), SC2317 (unreachable code: it also reports
# functions called by name through a variable, as tests/vm/guest.sh calls
# its cases).

tmp=$(mktemp -d "${TMPDIR:-/tmp}/magnet-lint.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
findings=0

# Usage: shellcheck_runs FILE...: shellcheck's json1 reports on the files
# into $tmp/sc/, the files spread over one run per core, biggest first, each to
# the least loaded run. Every check runs; shpatterns.py keeps sc_codes
# and shellcheck's parse errors.
# Returns non-zero if shellcheck failed.
shellcheck_runs() {
	local n g best size f rc=0 pids=()
	local -a load
	n=$(nproc 2> /dev/null || echo 1)
	rm -rf "$tmp/sc"
	mkdir -p "$tmp/sc"
	for ((g = 0; g < n; g++)); do
		load[g]=0
		: > "$tmp/sc/files.$g"
	done
	while read -r size f; do
		best=0
		for ((g = 1; g < n; g++)); do
			if [ "${load[g]}" -lt "${load[best]}" ]; then best=$g; fi
		done
		load[best]=$((load[best] + size))
		echo "$f" >> "$tmp/sc/files.$best"
	done < <(wc -c "$@" | grep -v ' total$' | sort -rn)
	for ((g = 0; g < n; g++)); do
		[ -s "$tmp/sc/files.$g" ] || continue
		mapfile -t files < "$tmp/sc/files.$g"
		shellcheck --norc --shell=bash --format=json1 --severity=style \
			--enable=check-set-e-suppressed "${files[@]}" \
			> "$tmp/sc/$g.json" 2> "$tmp/sc/$g.err" &
		pids+=($!)
	done
	for g in "${!pids[@]}"; do
		wait "${pids[g]}"
		f=$?
		# 0: nothing to report, 1: reports; anything else is a failure
		if [ "$f" -gt 1 ]; then
			echo "tests/lint/run.sh:1: lint-error: shellcheck exited with status $f: $(head -n 3 "$tmp/sc/$g.err" | tr '\n' ' ')"
			rc=1
		fi
	done
	return $rc
}

# lint FILE...: print the findings of shellcheck and shpatterns.py on the
# files and add their count to $findings
lint() {
	local codes rc n
	codes=$(IFS=,; echo "${sc_codes[*]}")
	if ! command -v shellcheck > /dev/null; then
		echo "tests/lint/run.sh:1: lint-error: shellcheck is not installed (Debian's shellcheck package; scripts/deps.sh installs it)"
		findings=$((findings + 1))
		rm -rf "$tmp/sc"
		mkdir -p "$tmp/sc"
	elif ! shellcheck_runs "$@"; then
		findings=$((findings + 1))
	fi
	python3 "$here/shpatterns.py" --shellcheck "$tmp/sc" --codes "$codes" "$@" > "$tmp/found" 2>&1
	rc=$?
	cat "$tmp/found"
	n=$(grep -cE '^[^ :]+:[0-9]+: [A-Za-z0-9-]+: ' "$tmp/found")
	# 1 is "findings", but a Python traceback exits 1 too: 1 with none
	# printed is a crash, where nothing was checked
	if [ "$rc" -gt 1 ] || { [ "$rc" = 1 ] && [ "$n" = 0 ]; }; then
		echo "tests/lint/shpatterns.py:1: lint-error: shpatterns.py exited with status $rc"
		findings=$((findings + 1))
	fi
	findings=$((findings + n))
}

# the self-test: its mismatches count as findings
selftest() {
	"$here/selftest.sh" > "$tmp/self" 2>&1
	local rc=$? n
	cat "$tmp/self"
	n=$(grep -cE '^[^ :]+:[0-9]+: [A-Za-z0-9-]+: ' "$tmp/self")
	if [ "$rc" != 0 ] && [ "$n" = 0 ]; then
		n=1
	fi
	findings=$((findings + n))
}

# every tracked bash script but the self-test's samples
tree_scripts() {
	local f
	git ls-files | grep -v '^tests/lint/samples/' | while read -r f; do
		[ -f "$f" ] || continue
		case ${f##*/} in
		*.sh) echo "$f" ;;
		*.*) ;;
		*) if head -n 1 "$f" | grep -qE '^#!.*[/ ]bash( |$)'; then echo "$f"; fi ;;
		esac
	done
}

case ${1:-} in
--selftest)
	selftest
	;;
"")
	selftest
	mapfile -t files < <(tree_scripts)
	if [ "${#files[@]}" = 0 ]; then
		echo "tests/lint/run.sh:1: lint-error: no bash scripts found (git ls-files)"
		findings=$((findings + 1))
	else
		lint "${files[@]}"
	fi
	;;
-*)
	echo "usage: tests/lint/run.sh [--selftest | FILE...]" >&2
	exit 2
	;;
*)
	lint "$@"
	;;
esac
echo "lint: $findings findings"
[ "$findings" = 0 ]
