#!/bin/bash
# SC2077: [ a=b ] without spaces is one non-empty word: always true.
rc=${1:-1}
[ "$rc"=0 ] # expect: SC2077
