#!/bin/bash
# setsubshell-in-if: ( set -e; ... ) where set -e is ignored. Every
# command in it but the last may fail unseen.
set -u
f() {
	false
	echo "went on"
}
log=$(mktemp)
if (set -e; f); then # expect: setsubshell-in-if
	echo ok
fi
while (set -e; f); do # expect: setsubshell-in-if
	break
done
(set -e; f) && echo ok # expect: setsubshell-in-if
(set -e # expect: setsubshell-in-if
 f) || echo failed
! (set -e; f) # expect: setsubshell-in-if SC2251
# tests/pkg/run.sh's step: the pipeline is in the if's condition
if (set -e; "$@") 2>&1 | tee "$log"; [ "${PIPESTATUS[0]}" = 0 ]; then # expect: setsubshell-in-if
	echo ok
fi
rm -f "$log"
