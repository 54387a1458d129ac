#!/bin/bash
# SC2170: -eq against a word: an error, not a comparison.
n=${1:-0}
[ "$n" -eq lost ] # expect: SC2170
