#!/bin/bash
# SC2193: arguments that can never be equal: the test is constant.
n=${1:-0}
[[ "a$n" == "b$n" ]] # expect: SC2193
