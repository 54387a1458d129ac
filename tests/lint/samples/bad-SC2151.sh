#!/bin/bash
# SC2151: return takes one status.
f() {
	return 1 2 # expect: SC2151
}
f
