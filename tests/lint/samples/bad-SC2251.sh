#!/bin/bash
# SC2251: `! cmd` as a statement never triggers set -e: it always passes.
set -eu
! grep -q 'BUG:' dmesg.txt # expect: SC2251
echo done
