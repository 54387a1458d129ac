#!/bin/bash
# SC2072: [ ] compares integers: a decimal is an error (status 2).
n=${1:-0}
[ "$n" -gt 1.5 ] # expect: SC2072
