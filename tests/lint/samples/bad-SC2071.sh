#!/bin/bash
# SC2071: > in [ ] is a redirection to a file: always true.
n=${1:-0}
[ "$n" > 5 ] # expect: SC2071
