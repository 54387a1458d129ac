#!/bin/bash
# SC2157: a literal in the string makes -n always true.
x=${1:-}
[ -n "$x " ] # expect: SC2157
