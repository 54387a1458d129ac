#!/bin/bash
# usage: scripts/wireshark-screenshot.sh [OUT.png]   (make wireshark-screenshot)
# Wireshark's window with the plugin (wireshark/magnet.lua) on make demo's
# 7.2 log (tests/unit/demo-7.2.bin.gz, exported by ttpb2ascii -f pcapng
# --split --events: the sender's device file), under a virtual X server
# (Xvfb), as a PNG (default docs/wireshark.png): the display filter
# magnet.cwnd > 50, the magnet fields as columns beside Wireshark's own
# bytes in flight, and packet 1000's "magnet: the kernel's state" tree
# opened in the packet details (xdotool: a click in the details, End,
# Shift+Right). Fails unless the window appears, tshark with the plugin
# finds the same packets the filter shows, the shot is not blank, and
# Wireshark printed no Lua error. Installs wireshark-qt, xvfb, xdotool and
# x11-apps (xwd) with scripts/deps.sh; the dump becomes a PNG with
# scripts/xwd2png.py. Wireshark runs as the user nobody when run as root
# (Wireshark 4.4 loads no Lua plugin for root). make userspace first.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$top/docs/wireshark.png}
[ -x "$top/userspace/ttpb2ascii" ] || { echo "wireshark-screenshot: make userspace first" >&2; exit 2; }
"$top/scripts/deps.sh" wireshark-qt xvfb xdotool x11-apps >&2
for c in wireshark Xvfb xdotool xwd; do
	command -v $c > /dev/null || { echo "wireshark-screenshot: no $c" >&2; exit 2; }
done
work=$(mktemp -d /tmp/magnet-wsshot.XXXXXX)
disp=:$((90 + RANDOM % 100))
xpid=
cleanup() {
	[ -n "$xpid" ] && kill "$xpid" 2> /dev/null
	pkill -f "wireshark .*$work" 2> /dev/null || :
	rm -rf "$work"
}
trap cleanup EXIT
mkdir -p "$work/home/.config/wireshark"
cp "$top/wireshark/magnet.lua" "$work/"
"$top/userspace/ttpb2ascii" -f pcapng --split "$work/sp" --events \
	<(zcat "$top/tests/unit/demo-7.2.bin.gz") > /dev/null
file=$work/sp/ns4026532389-if7101.pcapng
filter='magnet.cwnd > 50'
# the window's size and panes, as Wireshark's own recent file keeps them
cat > "$work/home/.config/wireshark/recent" <<EOF
gui.geometry_main_x: 0
gui.geometry_main_y: 0
gui.geometry_main_width: 1400
gui.geometry_main_height: 1000
gui.geometry_main_maximized: FALSE
gui.byte_view_show: FALSE
gui.geometry_main_upper_pane: 330
EOF
chmod -R a+rwX "$work"
user=
[ "$(id -u)" = 0 ] && user="runuser -u nobody --"
# tshark with the plugin: the packets the display filter must show
want=$($user env HOME="$work/home" tshark -X lua_script:"$work/magnet.lua" \
	-r "$file" -Y "$filter" | wc -l)
[ "$want" -gt 0 ] || { echo "wireshark-screenshot: tshark with the plugin shows no packet for $filter" >&2; exit 1; }
Xvfb "$disp" -screen 0 1400x1000x24 -nolisten tcp -ac > "$work/xvfb.log" 2>&1 &
xpid=$!
for _ in $(seq 50); do
	DISPLAY=$disp xdotool getmouselocation > /dev/null 2>&1 && break
	sleep 0.2
done
cols='"No.","%m","Time","%t","Info","%i","cwnd","%Cus:magnet.cwnd:0:R",'
cols=$cols'"srtt_us","%Cus:magnet.srtt_us:0:R","ca_state","%Cus:magnet.ca_state:0:R",'
cols=$cols'"in_flight (packets)","%Cus:magnet.in_flight:0:R",'
cols=$cols'"bytes in flight (Wireshark)","%Cus:tcp.analysis.bytes_in_flight:0:R"'
$user env HOME="$work/home" DISPLAY="$disp" timeout 120 wireshark \
	-X lua_script:"$work/magnet.lua" -r "$file" -Y "$filter" -g 1000 \
	-o "gui.column.format:$cols" > "$work/wireshark.log" 2>&1 &
export DISPLAY=$disp
win=
for _ in $(seq 60); do
	win=$(xdotool search --onlyvisible --name "ns4026532389-if7101" 2> /dev/null | head -n 1) || :
	[ -n "$win" ] && break
	sleep 1
done
[ -n "$win" ] || { cat "$work/wireshark.log" >&2; echo "wireshark-screenshot: no Wireshark window" >&2; exit 1; }
sleep 5
# the packet details: focus, its last tree (the plugin's), opened whole
xdotool mousemove 700 700 click 1
sleep 0.5
xdotool key End
sleep 0.5
xdotool key shift+Right
sleep 2
xwd -root -silent > "$work/shot.xwd"
# (xwd2png.py prints the colours in a sample of the pixels)
colours=$(python3 "$top/scripts/xwd2png.py" "$work/shot.xwd" "$work/shot.png")
if grep -i "lua.*error\|error.*lua" "$work/wireshark.log" >&2; then
	echo "wireshark-screenshot: Wireshark reported a Lua error" >&2
	exit 1
fi
# not blank: more than a few colours in the dump's pixels
[ "$colours" -gt 20 ] || { echo "wireshark-screenshot: the shot is blank ($colours colours)" >&2; exit 1; }
cp "$work/shot.png" "$out"
echo "wireshark-screenshot: $(wireshark --version | head -n 1); $want packets with $filter (tshark); $colours colours; $out"
