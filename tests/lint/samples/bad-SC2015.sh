#!/bin/bash
# SC2015: A && B || C is not if-then-else: C runs when A or B fails, and
# its status replaces theirs, so a failing check can end in status 0.
log() { echo "[test] $*"; }
rc=${1:-0}
[ "$rc" = 0 ] && cmp -s want got || diff want got # expect: SC2015
[ "$rc" = 0 ] && cmp -s want got || log "the files differ" # expect: SC2015
