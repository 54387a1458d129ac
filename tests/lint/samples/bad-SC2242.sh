#!/bin/bash
# SC2242: exit 256 is exit 0.
exit 256 # expect: SC2242
