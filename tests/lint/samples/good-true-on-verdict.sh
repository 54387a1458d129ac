#!/bin/bash
# `|| true` that hides no verdict.
set -eu
pid=$$
kill "$pid" 2> /dev/null || true
wait "$pid" || :
n=$(grep -c lost a.txt || true)
rest=$(grep -v -- '-rt-' list || true)
changes=$(diff a b || true)
diff -u a b > a.diff || true
diff a b | head || true
read -r -t 1 word < /dev/null || true
echo "$n $rest $changes ${word:-}"
