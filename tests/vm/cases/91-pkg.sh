#!/bin/bash -e
# VM cases: installed modules (tests/pkg/run.sh boots a guest for them).
#
# Sourced by tests/vm/guest.sh, after lib.sh, never run by itself (the
# -e above: its cases run under set -e, which tells shellcheck); a case's
# "# suite:" line: tests/vm/suite.sh.

# TEACUP's logger steps through the real module tree: modprobe MODULE with
# TEACUP's parameters, cat $PROC in the background, IPv4 and IPv6 traffic,
# flush, sleep 0.5, finish, rmmod. $PROC names the file.
teacup_modprobe() {
	local mod=$1 log=$2 t0 t1 j
	rmmod "$mod" 2> /dev/null || true
	modprobe "$mod" port=0 full=1 bufsize=16384 omode=0 direction=2
	[ -e "$PROC" ]
	t0=$(date +%s.%N)
	start_reader "$log"
	xfer mg-srv mg-cli 10.200.1.2 5201 "$log.v4.json" -n "$XFER"
	xfer mg-srv mg-cli fd00:200::2 5201 "$log.v6.json" -n "$XFER"
	teacup_stop
	t1=$(date +%s.%N)
	rmmod "$mod"
	[ ! -e "$PROC" ]
	# the ttprobe build counts field 7 as ttprobe did: from 0 since load
	$CHECK format "$log" "$t0" "$t1" "$([ "$mod" = ttprobe ] && echo 0 || echo 1)"
	for j in "$log.v4.json" "$log.v6.json"; do
		$CHECK flow "$log" "$j" --role sender --bytes
		$CHECK flow "$log" "$j" --role receiver --bytes
	done
}

# magnet installed by DKMS (tests/pkg/run.sh does dkms install on the host)
# suite: pkg
case_dkms_modprobe() {
	modinfo -n magnet | grep -E '/updates/dkms/magnet\.ko'
	teacup_modprobe magnet "$L/dkms.log"
	keep_for_later dkms.log		# case_ttprobe_compat's
}

# after `make install-ttprobe-compat`: TEACUP's sanity check, modprobe
# ttprobe, /proc/net/ttprobe; the log has the same shape as magnet's
# suite: pkg
case_ttprobe_compat() {
	[ -e "/lib/modules/$(uname -r)/extra/ttprobe.ko" ]
	PROC=/proc/net/ttprobe
	export MAGNET_PROC=$PROC
	teacup_modprobe ttprobe "$L/ttprobe.log"
	[ ! -e /proc/net/magnet ]
	$CHECK same-shape "$L/dkms.log" "$L/ttprobe.log"
}
