#!/bin/bash
# SC2152: return 256 is return 0.
f() {
	return 256 # expect: SC2152
}
f
