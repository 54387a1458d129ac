#!/bin/bash
# SC2055: != ... || != ... is always true.
x=${1:-}
[[ $x != a || $x != b ]] # expect: SC2055
