#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# scripts/rev-tree.sh REV DIR: git revision REV's tree of this repository
# written into DIR (created; must not exist or be empty), as git archive
# gives it: what bench/run.sh's BENCH_BASE, bench/analysis.py's BASE and
# scripts/same-output.sh build the older magnet from. Prints REV's commit.
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: $0 REV DIR" >&2; exit 2; }
top=$(cd "$(dirname "$0")/.." && pwd)
commit=$(git -C "$top" rev-parse --verify --quiet "$1^{commit}") ||
	{ echo "rev-tree: $1 is not a commit" >&2; exit 1; }
mkdir -p "$2"
[ -z "$(ls -A "$2")" ] || { echo "rev-tree: $2 is not empty" >&2; exit 1; }
git -C "$top" archive "$commit" | tar -x -C "$2"
echo "$commit"
