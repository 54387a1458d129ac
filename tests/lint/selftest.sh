#!/bin/bash
# The lint's self-test (tests/lint/run.sh runs it first): lints every
# tests/lint/samples/*.sh at once and compares. A bad-*.sh sample must be
# reported with exactly the findings its "# expect: PATTERN..." comments
# name, each on the line of its comment; a good-*.sh sample with none.
# Prints each mismatch as "file:line: selftest: ...", then
# "lint selftest: N samples, N mismatches"; exits 1 on any.
set -u
export LC_ALL=C
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../.." || exit 2
samples=(tests/lint/samples/*.sh)
bad=0
tmp=$(mktemp -d "${TMPDIR:-/tmp}/magnet-lint-selftest.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT

# every sample is bad-* with what it expects, or good-*
for f in "${samples[@]}"; do
	case ${f##*/} in
	bad-*)
		if ! grep -q '# expect: ' "$f"; then
			echo "$f:1: selftest: a bad sample without an '# expect: PATTERN' comment"
			bad=$((bad + 1))
		fi
		;;
	good-*) ;;
	*)
		echo "$f:1: selftest: a sample's name must start with bad- or good-"
		bad=$((bad + 1))
		;;
	esac
done

# "file:line: pattern" for each expected finding
for f in "${samples[@]}"; do
	while IFS=: read -r n text; do
		for p in ${text#*expect: }; do
			echo "$f:$n: $p"
		done
	done < <(grep -n -o '# expect: .*' "$f")
done | sort > "$tmp/expected"

# what the lint reports, cut to "file:line: pattern"
tests/lint/run.sh "${samples[@]}" > "$tmp/out" 2>&1
sed -nE 's/^([^ :]+:[0-9]+: [A-Za-z0-9-]+): .*/\1/p' "$tmp/out" |
	sort > "$tmp/actual"
# the lint's own errors (shellcheck missing and the like) are mismatches
grep ': lint-error: ' "$tmp/out" | sed 's/: lint-error: /: selftest: /'
bad=$((bad + $(grep -c ': lint-error: ' "$tmp/out")))

while read -r miss; do
	[ -n "$miss" ] || continue
	echo "${miss%: *}: selftest: expected ${miss##*: }, not reported"
	bad=$((bad + 1))
done < <(comm -23 "$tmp/expected" "$tmp/actual")
while read -r extra; do
	[ -n "$extra" ] || continue
	case $extra in *": lint-error") continue ;; esac
	echo "${extra%: *}: selftest: ${extra##*: } reported, not expected: $(grep -F "$extra: " "$tmp/out" | head -n 1 | cut -d: -f4- | cut -c2-)"
	bad=$((bad + 1))
done < <(comm -13 "$tmp/expected" "$tmp/actual")

echo "lint selftest: ${#samples[@]} samples, $bad mismatches"
[ "$bad" = 0 ]
