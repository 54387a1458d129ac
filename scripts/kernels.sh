#!/bin/bash
# Print the kernel releases this machine can build for and boot: those with
# both /lib/modules/<kver>/build and /boot/vmlinuz-<kver>, oldest first.
set -eu
for b in /lib/modules/*/build; do
	[ -d "$b" ] || continue
	k=$(basename "$(dirname "$b")")
	[ -e "/boot/vmlinuz-$k" ] && echo "$k"
done | sort -V
