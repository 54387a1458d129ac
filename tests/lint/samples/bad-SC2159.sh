#!/bin/bash
# SC2159: [ 0 ] is true.
[ 0 ] # expect: SC2159
