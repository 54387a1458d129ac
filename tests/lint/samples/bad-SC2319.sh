#!/bin/bash
# SC2319: the second $? is the first [ ]'s status, not the command's.
cmp -s a b
[ $? = 0 ] || [ $? = 1 ] # expect: SC2319
