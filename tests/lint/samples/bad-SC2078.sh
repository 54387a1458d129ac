#!/bin/bash
# SC2078: a constant expression (a $ forgotten): always true.
[ rc ] # expect: SC2078
