#!/bin/bash
# Syntax the parser must get through without a finding: here-documents
# (bodies skipped), quotes, continuations, substitutions, [[ ]], (( )),
# arrays, case, coproc, redirections.
set -eu
shopt -s extglob
f() {
	local a=(one # a comment with a quote: don't
		"two && three" 'four || true')
	local re='^(a|b)$' n=0
	cat <<-EOF
	check "x" [ 1 = 1 ] && cmp -s a b
	$(echo "a substitution in a here-document")
	EOF
	cat <<'PY' > /dev/null; echo "after a here-document"
import sys
if sys.argv and True: print("[ a ] && [ b ] || true")
PY
	[[ ${a[0]} =~ $re ]] || [[ ${a[1]} =~ ^(x|y)+$ ]]
	(( n += 1, n > 0 ))
	echo "$(( n << 2 )) ${#a[@]} ${a[*]:-x} $# $? \$ \" \` end" \
		"continued && not an operator"
	x=$(case $n in
		1) echo one ;;
		*) echo other ;;
		esac)
	y=`echo back \`echo ticks\``
	exec {fd}> /dev/null
	echo "$x $y" >&"$fd" 2>&1
	cmp -s <(echo a) <(echo a)
	coproc CO { cat; }
	echo hi >&"${CO[1]}"
	case $x in
	one | two) echo "one: ${x%%e*}" ;&
	@(other|x)) echo "fell through" ;;&
	*) echo "any" ;;
	esac
	for ((n = 0; n < 2; n++)); do :; done
	if [ -e /dev/null ]; then :; elif [ -e /dev/zero ]; then :; else :; fi
	until true; do :; done
	function g { echo "keyword function"; }
	g
	time -p true
	echo done # a comment with check x && y
}
f
