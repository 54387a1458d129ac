#!/bin/bash
# SC2050: a constant comparison (a $ forgotten): never changes.
[ rc = 0 ] # expect: SC2050
