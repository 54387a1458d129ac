#!/bin/bash
# SC2252: [ != ] || [ != ] is always true.
x=${1:-}
[ "$x" != a ] || [ "$x" != b ] # expect: SC2252
