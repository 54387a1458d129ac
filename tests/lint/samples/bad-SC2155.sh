#!/bin/bash
# SC2155: local x=$(cmd) has local's status: cmd's failure goes unseen.
set -eu
f() {
	local n=$(grep -c lost a.txt) # expect: SC2155
	echo "$n"
}
f
