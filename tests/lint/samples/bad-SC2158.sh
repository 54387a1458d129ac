#!/bin/bash
# SC2158: [ false ] is true.
[ false ] # expect: SC2158
