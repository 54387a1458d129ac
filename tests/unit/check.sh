#!/bin/bash
# The unit checks (`make -C tests/unit check` builds the programs and runs
# this): test_main (format*.c and cmd.c), test_emit and test_format (the
# printf-free formatters against printf), then ttpb2ascii's tests, which run
# the ASan/UBSan build ttpb2ascii-asan on the fixtures that ttpb_fixture
# writes, and the sanitizer-free ttpb2ascii-rss for the memory test.
# Closes with one line: "unit: N passed, N failed".
set -u
cd "$(dirname "$0")"

T=./ttpb2ascii-asan
PLAIN=./ttpb2ascii-rss
FIX=./ttpb_fixture
RSS_LIMIT_KB=16384
BIG_RECORDS=800000	# 0.8 M records of 256 bytes: 205 MB through a pipe
FUZZ_RUNS=300

pass=0
fail=0
tmp=$(mktemp -d "${TMPDIR:-/tmp}/magnet-unit.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

ok() { pass=$((pass + 1)); }
bad() {
	fail=$((fail + 1))
	echo "FAIL: $*"
}
# check DESCRIPTION COMMAND...: one assertion, the command's success
check() {
	local desc=$1
	shift
	if "$@"; then ok; else bad "$desc"; fi
}
# fold LOG NAME [STATUS]: add the counts of a checker's "NAME: N passed,
# N failed" line; a STATUS other than 0 (the program's exit: a sanitizer,
# LeakSanitizer at exit too, reports after the summary) is a failure more
fold() {
	local line p f
	if [ "${3:-0}" != 0 ]; then
		bad "$2: exit status $3"
		grep -E -A12 'Sanitizer|runtime error' "$1" | head -n 40
	fi
	line=$(grep -E '^[a-z0-9_]+: [0-9]+ passed, [0-9]+ failed$' "$1" | tail -n1)
	if [ -z "$line" ]; then
		bad "$2: no summary line (crashed?)"
		cat "$1"
		return
	fi
	p=$(sed -E 's/.*: ([0-9]+) passed.*/\1/' <<<"$line")
	f=$(sed -E 's/.*, ([0-9]+) failed/\1/' <<<"$line")
	pass=$((pass + p))
	fail=$((fail + f))
	# each failure with what follows it (a Python test's traceback and
	# its assertion's diff), at most 80 lines
	grep -E -A25 '^(FAIL|ERROR)' "$1" | head -n 80
	echo "  $2: $p passed, $f failed"
}
# run ARGS...: ttpb2ascii into $tmp/out and $tmp/err, exit code into $rc
run() {
	"$T" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
}
# one line on stderr, starting with "ttpb2ascii: ", matching ERE $1
err_is() {
	[ "$(wc -l <"$tmp/err")" = 1 ] && grep -q '^ttpb2ascii: ' "$tmp/err" &&
		grep -Eq "$1" "$tmp/err"
}
differ() { ! cmp -s "$1" "$2"; }
no_sanitizer() { ! grep -Eq 'Sanitizer|runtime error' "$tmp/err"; }

# ---- test_main: format*.c and cmd.c ----
echo "== test_main"
./test_main >"$tmp/test_main.log" 2>&1
st=$?
sed -i 's/^unit: /test_main: /' "$tmp/test_main.log"
fold "$tmp/test_main.log" test_main "$st"

# ---- test_emit: emit.h's number and address emitters against printf ----
echo "== test_emit"
./test_emit >"$tmp/test_emit.log" 2>&1
st=$?
fold "$tmp/test_emit.log" test_emit "$st"

# ---- test_format: the formatters against the printf ones they replaced ----
echo "== test_format"
./test_format >"$tmp/test_format.log" 2>&1
st=$?
grep '^test_format: widest' "$tmp/test_format.log"
fold "$tmp/test_format.log" test_format "$st"

# ---- test_filter: filter.c (the filter command) ----
echo "== test_filter"
./test_filter >"$tmp/test_filter.log" 2>&1
st=$?
fold "$tmp/test_filter.log" test_filter "$st"

# ---- test_web10g: format_web10g.c's lines, text column counts ----
echo "== test_web10g"
./test_web10g >"$tmp/test_web10g.log" 2>&1
st=$?
fold "$tmp/test_web10g.log" test_web10g "$st"

# ---- test_pkt: pktparse.h (the IP and device probes' header parser) ----
echo "== test_pkt"
./test_pkt >"$tmp/test_pkt.log" 2>&1
st=$?
fold "$tmp/test_pkt.log" test_pkt "$st"

# ---- test_v3: format version 3's encoder and decoder (module/shared/v3.c) ----
echo "== test_v3"
./test_v3 >"$tmp/test_v3.log" 2>&1
st=$?
fold "$tmp/test_v3.log" test_v3 "$st"

# ---- test_backlog: blcount.h (segs_in as TCP processed it) ----
echo "== test_backlog"
./test_backlog >"$tmp/test_backlog.log" 2>&1
st=$?
fold "$tmp/test_backlog.log" test_backlog "$st"

# ---- the record schema (module/uapi/schema.h), as its readers have it ----
# schema_dump prints its tables as the compiler lays them out; the Python
# checks' reading of them (tests/vm/schema.py) and docs/binary-format.md's
# field tables must be the same, offset, type and name
echo "== schema"
./schema_dump >"$tmp/schema.txt"
st=$?
check "schema_dump: exit 0" [ "$st" = 0 ]
/usr/bin/python3 ./schemacheck.py "$tmp/schema.txt" ../../docs/binary-format.md \
	>"$tmp/schemacheck.log" 2>&1
st=$?
sed 's/^/  /' "$tmp/schemacheck.log"
check "schema.h, schema.py and docs/binary-format.md agree" [ "$st" = 0 ]

# ---- ttpb2ascii: command line ----
echo "== ttpb2ascii: command line"
run --help
check "--help exits 0" [ "$rc" = 0 ]
for w in ttprobe magnet web10g legacy -i --input auto -c --compat tcp_current_ssthresh 'reads format versions 2 and 3' 'Exit status' '^  0 ' '^  1 ' '^  2 ' '^  3 '; do
	check "--help mentions '$w'" grep -q -- "$w" "$tmp/out"
done
run -h
check "-h exits 0 with usage" [ "$rc" = 0 -a -s "$tmp/out" ]
run --version
check "--version prints scripts/version.sh's version" \
	[ "$rc" = 0 -a "$(cat "$tmp/out")" = "ttpb2ascii (magnet) $(../../scripts/version.sh)" ]
for args in "-x" "--bogus" "-f" "-f bogus" "a b" "--format" "-i bogus" "-i" "-c bogus" "-c ttprobe -f magnet" "-c magnet -f legacy"; do
	# shellcheck disable=SC2086
	run $args
	check "'$args' is a usage error (1)" [ "$rc" = 1 ]
	check "'$args' explains itself" err_is 'try --help'
done
run /nonexistent/file
check "missing input exits 2" [ "$rc" = 2 ]
check "missing input message" err_is 'No such file'
run .
check "a directory as input exits 2" [ "$rc" = 2 ]
check "a directory as input: read error" err_is 'read error'

# ---- fixtures ----
echo "== ttpb2ascii: fixtures"
if ! $FIX write "$tmp" >"$tmp/fix.log" 2>&1; then
	bad "ttpb_fixture write failed"
	cat "$tmp/fix.log"
	echo "unit: $pass passed, $((fail + 1)) failed"
	exit 1
fi
ok

# the swapped fixture really is swapped: magic bytes reversed, sizes differ
magic_n=$(od -An -tx1 -N4 "$tmp/native.bin" | xargs)
magic_s=$(od -An -tx1 -N4 "$tmp/swapped.bin" | xargs -n1 | tac | xargs)
check "swapped fixture: magic bytes reversed ($magic_n)" [ "$magic_n" = "$magic_s" ]
check "swapped fixture: differs from native" differ "$tmp/native.bin" "$tmp/swapped.bin"
check "swapped fixture: same length" \
	[ "$(stat -c %s "$tmp/native.bin")" = "$(stat -c %s "$tmp/swapped.bin")" ]

# ---- round trip through -f magnet ----
echo "== ttpb2ascii: -f magnet round trip"
run -f magnet "$tmp/native.bin"
check "native: exit 0" [ "$rc" = 0 ]
check "native: nothing on stderr" [ ! -s "$tmp/err" ]
cp "$tmp/out" "$tmp/native.txt"
$FIX check-magnet "$tmp/native.txt" >"$tmp/check.log" 2>&1
st=$?
fold "$tmp/check.log" "fields of every record (native)" "$st"
for f in swapped.bin native.bin.gz; do
	run -f magnet "$tmp/$f"
	check "$f: exit 0" [ "$rc" = 0 -a ! -s "$tmp/err" ]
	check "$f: output byte-identical to native" cmp -s "$tmp/out" "$tmp/native.txt"
done
$FIX check-magnet "$tmp/out" >"$tmp/check.log" 2>&1
st=$?
fold "$tmp/check.log" "fields of every record (gzip)" "$st"
"$T" -f magnet <"$tmp/native.bin" >"$tmp/out" 2>"$tmp/err"
check "stdin: identical" cmp -s "$tmp/out" "$tmp/native.txt"
cat "$tmp/swapped.bin" | "$T" -f magnet - >"$tmp/out" 2>"$tmp/err"
check "'-' from a pipe, swapped: identical" cmp -s "$tmp/out" "$tmp/native.txt"
cat "$tmp/native.bin.gz" | "$T" -f magnet >"$tmp/out" 2>"$tmp/err"
check "gzip from a pipe: identical" cmp -s "$tmp/out" "$tmp/native.txt"
run -f magnet -o "$tmp/o.txt" "$tmp/native.bin"
check "-o OUT: exit 0, stdout empty" [ "$rc" = 0 -a ! -s "$tmp/out" ]
check "-o OUT: identical" cmp -s "$tmp/o.txt" "$tmp/native.txt"
cp "$tmp/native.bin" "$tmp/same.bin"
run -o "$tmp/same.bin" "$tmp/same.bin"
check "-o OUT = FILE: usage error (1)" [ "$rc" = 1 ]
check "-o OUT = FILE: input intact" cmp -s "$tmp/same.bin" "$tmp/native.bin"
check "-o OUT = FILE: message" err_is 'output is the input'
run -o "$tmp/no/such/dir" "$tmp/native.bin"
check "-o into a missing directory: exit 2" [ "$rc" = 2 ]
check "-o into a missing directory: message" err_is 'No such file'
run -f magnet "$tmp/header-only.bin"
check "header only: exit 0, the header line alone" \
	[ "$rc" = 0 -a "$(cat "$tmp/out")" = "$(head -n1 "$tmp/native.txt")" ]

# ---- -f ttprobe: the kernel formatter's bytes ----
echo "== ttpb2ascii: -f ttprobe"
check "expect-ttprobe.txt has the 6 TCP records" \
	[ "$(wc -l <"$tmp/expect-ttprobe.txt")" = 6 ]
run -f ttprobe "$tmp/native.bin"
check "ttprobe: exit 0" [ "$rc" = 0 -a ! -s "$tmp/err" ]
check "ttprobe: byte-identical to magnet_format_ttprobe()" \
	cmp "$tmp/out" "$tmp/expect-ttprobe.txt"
run "$tmp/swapped.bin"
check "ttprobe is the default; swapped input identical" \
	cmp -s "$tmp/out" "$tmp/expect-ttprobe.txt"
run -f ttprobe "$tmp/native.bin.gz"
check "ttprobe from gzip identical" cmp -s "$tmp/out" "$tmp/expect-ttprobe.txt"
run -f ttprobe "$tmp/header-only.bin"
check "header only: no ttprobe lines, exit 0" [ "$rc" = 0 -a ! -s "$tmp/out" ]

# ---- -f web10g: header + format_web10g.c's lines, cid per connection ----
echo "== ttpb2ascii: -f web10g"
check "expect-web10g.txt: header and the 6 TCP records, 4 connections (the last a socket connected again, to another peer)" \
	[ "$(wc -l <"$tmp/expect-web10g.txt")" = 7 -a \
	"$(cut -d, -f2 "$tmp/expect-web10g.txt" | tr '\n' ' ')" = "CID 1 2 3 1 1 4 " ]
for f in native.bin swapped.bin native.bin.gz; do
	run -f web10g "$tmp/$f"
	check "web10g, $f: exit 0" [ "$rc" = 0 -a ! -s "$tmp/err" ]
	check "web10g, $f: byte-identical to magnet_format_web10g()" \
		cmp "$tmp/out" "$tmp/expect-web10g.txt"
done
run -f web10g "$tmp/header-only.bin"
check "web10g, header only: the header line alone" \
	[ "$rc" = 0 -a "$(cat "$tmp/out")" = "$(head -n1 "$tmp/expect-web10g.txt")" ]
run -f web10g "$tmp/cut.bin"
check "web10g, cut: exit 3" [ "$rc" = 3 ]
check "web10g, cut: every complete record printed" \
	cmp -s "$tmp/out" <(head -n -1 "$tmp/expect-web10g.txt")

# ---- -f legacy ----
echo "== ttpb2ascii: -f legacy"
run -f legacy -o "$tmp/legacy.bin" "$tmp/native.bin"
check "legacy: exit 0" [ "$rc" = 0 -a ! -s "$tmp/err" ]
$FIX check-legacy "$tmp/legacy.bin" >"$tmp/check.log" 2>&1
st=$?
fold "$tmp/check.log" "legacy records at their offsets" "$st"
run -f legacy "$tmp/swapped.bin"
check "legacy from swapped input identical" cmp -s "$tmp/out" "$tmp/legacy.bin"

# ---- -c ttprobe: ttprobe v0.1.2's fields 7, 10 and 11 ----
echo "== ttpb2ascii: -c ttprobe"
run -c ttprobe "$tmp/native.bin"
check "-c ttprobe: exit 0" [ "$rc" = 0 -a ! -s "$tmp/err" ]
cp "$tmp/out" "$tmp/compat.txt"
$FIX check-ttcompat "$tmp/compat.txt" >"$tmp/check.log" 2>&1
st=$?
fold "$tmp/check.log" "ttprobe's field 7, 10 and 11 rules" "$st"
# the other 14 fields are magnet's
check "-c ttprobe: fields 1-6, 8, 9, 12-17 as in magnet's lines" \
	cmp -s <(cut -d, -f1-6,8,9,12-17 "$tmp/compat.txt") \
	<(cut -d, -f1-6,8,9,12-17 "$tmp/expect-ttprobe.txt")
check "-c ttprobe: fields 10 and 11 differ from magnet's somewhere" \
	differ <(cut -d, -f10,11 "$tmp/compat.txt") <(cut -d, -f10,11 "$tmp/expect-ttprobe.txt")
run -c magnet "$tmp/native.bin"
check "-c magnet is magnet's lines" cmp -s "$tmp/out" "$tmp/expect-ttprobe.txt"

# ---- ttprobe's 96-byte records as input ----
echo "== ttpb2ascii: 96-byte records as input"
# the same records through the legacy file give the same lines, except
# field 17 of the record whose length (0x123456) saturates at 65535
for args in "" "-i legacy" "-i legacy -f ttprobe" "-c ttprobe"; do
	# shellcheck disable=SC2086
	run $args "$tmp/legacy.bin"
	check "legacy in ($args): exit 0" [ "$rc" = 0 -a ! -s "$tmp/err" ]
	check "legacy in ($args): fields 1-16 as -c ttprobe of the magnet log" \
		cmp -s <(cut -d, -f1-16 "$tmp/out") <(cut -d, -f1-16 "$tmp/compat.txt")
done
check "legacy in: field 17 saturated for the long segment, the rest equal" \
	[ "$(cut -d, -f17 "$tmp/out" | tr '\n' ' ')" = \
	"$(cut -d, -f17 "$tmp/compat.txt" | awk '{ print ($1 > 65535 ? 65535 : $1) }' | tr '\n' ' ')" ]
run -f legacy "$tmp/legacy.bin"
check "legacy in, legacy out: byte-identical round trip" cmp -s "$tmp/out" "$tmp/legacy.bin"
gzip -c "$tmp/legacy.bin" > "$tmp/legacy.bin.gz"
run -f legacy "$tmp/legacy.bin.gz"
check "legacy in from gzip: detected, byte-identical" cmp -s "$tmp/out" "$tmp/legacy.bin"
"$T" -f legacy < "$tmp/legacy.bin" > "$tmp/out" 2> "$tmp/err"
check "legacy in from a pipe: detected, byte-identical" cmp -s "$tmp/out" "$tmp/legacy.bin"
for args in "-f magnet" "-f web10g" "-c magnet"; do
	# shellcheck disable=SC2086
	run $args "$tmp/legacy.bin"
	check "legacy in, $args: usage error (1)" [ "$rc" = 1 ]
	check "legacy in, $args: message" err_is "ttprobe's 96-byte records"
done
run -i magnet "$tmp/legacy.bin"
check "-i magnet on ttprobe records: exit 2" [ "$rc" = 2 ]
check "-i magnet on ttprobe records: bad magic" err_is 'bad magic'
run -i legacy "$tmp/native.bin"
check "-i legacy on a magnet log: exit 2" [ "$rc" = 2 ]
check "-i legacy on a magnet log: names record 0" \
	err_is 'record index 0 at byte offset 0: not a ttprobe record'
: > "$tmp/empty.leg"
run -i legacy "$tmp/empty.leg"
check "-i legacy, empty: exit 2" [ "$rc" = 2 ]
check "-i legacy, empty: message" err_is 'empty'
# corrupt and truncated ttprobe files
head -c 480 "$tmp/legacy.bin" > "$tmp/leg-cut.bin"
head -c 50 "$tmp/legacy.bin" >> "$tmp/leg-cut.bin"
run "$tmp/leg-cut.bin"
check "legacy cut: exit 3" [ "$rc" = 3 ]
check "legacy cut: warns with the byte count" err_is 'warning: .*truncated: 50 of 96 bytes at byte offset 480'
check "legacy cut: 5 records printed" [ "$(wc -l < "$tmp/out")" = 5 ]
check "legacy cut: every complete record printed" \
	cmp -s <(cut -d, -f1-16 "$tmp/out") <(head -n 5 "$tmp/compat.txt" | cut -d, -f1-16)
# PATCH OFFSET BYTE-IN-OCTAL MESSAGE: one byte of record 2 (offset 192) changed
while read -r off byte re; do
	cp "$tmp/legacy.bin" "$tmp/leg-bad.bin"
	printf "\\$byte" | dd of="$tmp/leg-bad.bin" bs=1 seek=$((192 + off)) conv=notrunc status=none
	run -i legacy "$tmp/leg-bad.bin"
	check "legacy, byte $off of record 2 = \\$byte: exit 2" [ "$rc" = 2 ]
	check "legacy, byte $off of record 2: message /$re/" \
		err_is "record index 2 at byte offset 192: not a ttprobe record: $re"
	check "legacy, byte $off of record 2: records 0 and 1 printed" \
		cmp -s <(cut -d, -f1-16 "$tmp/out") <(head -n 2 "$tmp/compat.txt" | cut -d, -f1-16)
done <<'EOF2'
90 007 address family 7
89 001 direction 1
15 200 tv_usec -
EOF2

# ---- bad input ----
echo "== ttpb2ascii: bad input"
# FILE RC STDERR-ERE
while read -r f want re; do
	run -f magnet "$tmp/$f"
	check "$f: exit $want (got $rc)" [ "$rc" = "$want" ]
	check "$f: one-line message /$re/ (got: $(head -c 200 "$tmp/err"))" err_is "$re"
	check "$f: no output" [ ! -s "$tmp/out" ]
done <<'EOF'
empty.bin 2 empty
short10.bin 2 only 10 bytes
badmagic.bin 2 bad magic 0xdeadbeef
version1.bin 2 unsupported version 1 \(this ttpb2ascii reads versions 2 and 3\)
version3.bin 2 bad record_size 256 \(version 3 records vary: 0\)
version4.bin 2 unsupported version 4 \(this ttpb2ascii reads versions 2 and 3\)
recsize100.bin 2 bad record_size 100
sysinfo300.bin 2 bad sysinfo_size 300
garbage.bin 2 bad magic
EOF
for f in event77.bin event77-swapped.bin; do
	run -f magnet "$tmp/$f"
	check "$f: exit 2" [ "$rc" = 2 ]
	check "$f: names the record and its offset" \
		err_is 'record index 2 at byte offset 768: unknown event code 77'
	check "$f: the two records before it are printed" \
		cmp -s "$tmp/out" <(head -n 3 "$tmp/native.txt")
done
run -f magnet "$tmp/cut.bin"
check "cut: exit 3" [ "$rc" = 3 ]
check "cut: warns with the byte count" err_is 'warning: .*truncated: 50 of 256 bytes'
check "cut: every complete record printed" \
	cmp -s "$tmp/out" <(head -n -1 "$tmp/native.txt")
run -f ttprobe "$tmp/cut.bin"
check "cut, ttprobe: exit 3" [ "$rc" = 3 ]
check "cut, ttprobe: every complete record printed" \
	cmp -s "$tmp/out" <(head -n -1 "$tmp/expect-ttprobe.txt")
run -f magnet "$tmp/trunc.bin.gz"
check "truncated gzip: exit 2 or 3 (got $rc)" [ "$rc" = 2 -o "$rc" = 3 ]
check "truncated gzip: message" err_is 'truncated|unexpected end'
check "truncated gzip: no sanitizer report" no_sanitizer
check "truncated gzip: what was printed is a prefix of the full output" \
	cmp -s "$tmp/out" <(head -c "$(stat -c %s "$tmp/out")" "$tmp/native.txt")

# ---- write errors ----
echo "== ttpb2ascii: write errors"
"$T" -f magnet "$tmp/native.bin" >/dev/full 2>"$tmp/err"
rc=$?
check "ENOSPC: exit 2" [ "$rc" = 2 ]
check "ENOSPC: message" err_is 'write error: No space left'
(
	trap '' PIPE
	$FIX stream 200000 2>/dev/null | "$T" -f magnet 2>"$tmp/err" | head -c 100 >/dev/null
	echo "${PIPESTATUS[1]}" >"$tmp/rc"
)
rc=$(cat "$tmp/rc")
check "EPIPE (SIGPIPE ignored): exit 2 (got $rc)" [ "$rc" = 2 ]
check "EPIPE: message" err_is 'write error: Broken pipe'

# ---- memory stays flat ----
echo "== ttpb2ascii: memory on a $((BIG_RECORDS * 256 / 1000000)) MB stream"
start=$SECONDS
lines=$($FIX stream $BIG_RECORDS | ./maxrss "$tmp/rss" "$PLAIN" -f ttprobe 2>"$tmp/err" | wc -l)
rss=$(cat "$tmp/rss" 2>/dev/null || echo 999999999)
echo "  $lines lines, max RSS $rss KiB, $((SECONDS - start)) s"
check "big stream: every record decoded ($lines lines)" [ "$lines" = $BIG_RECORDS ]
check "big stream: nothing on stderr" [ ! -s "$tmp/err" ]
check "big stream: max RSS $rss KiB < $RSS_LIMIT_KB KiB" [ "$rss" -lt $RSS_LIMIT_KB ]

# a regular file is mapped, not read: the same lines, memory as flat
$FIX stream $BIG_RECORDS >"$tmp/big.bin"
# through a pipe (cat: a redirected regular file would be mapped too);
# the lines counted after the output is written (a `tee >(wc -l)` ends
# when it ends: under load, after the check read its count)
cat "$tmp/big.bin" | "$PLAIN" -f ttprobe >"$tmp/big.pipe.txt"
md5sum <"$tmp/big.pipe.txt" >"$tmp/big.pipe.md5"
check "big file through a pipe: every record decoded" \
	[ "$(wc -l <"$tmp/big.pipe.txt")" = $BIG_RECORDS ]
rm -f "$tmp/big.pipe.txt"
start=$SECONDS
./maxrss "$tmp/rss" "$PLAIN" -f ttprobe "$tmp/big.bin" 2>"$tmp/err" | md5sum >"$tmp/big.file.md5"
rss=$(cat "$tmp/rss" 2>/dev/null || echo 999999999)
echo "  mapped file: max RSS $rss KiB, $((SECONDS - start)) s"
check "big file (mapped): the same output as through a pipe" cmp -s "$tmp/big.pipe.md5" "$tmp/big.file.md5"
check "big file (mapped): nothing on stderr" [ ! -s "$tmp/err" ]
check "big file (mapped): max RSS $rss KiB < $RSS_LIMIT_KB KiB" [ "$rss" -lt $RSS_LIMIT_KB ]
# -f parquet holds a row group (65,536 rows) and the footer's few bytes
# per group: as much memory for the big stream's 13 groups as for 3
for n in 140000 $BIG_RECORDS; do
	$FIX stream $n | ./maxrss "$tmp/rss-$n" "$PLAIN" -f parquet -o "$tmp/big.parquet" 2>"$tmp/err"
	rc=$?
	check "big stream, $n records -f parquet: exit 0 (got $rc)" [ "$rc" = 0 ]
	check "big stream, $n records -f parquet: nothing on stderr" [ ! -s "$tmp/err" ]
done
rss=$(cat "$tmp/rss-140000" 2>/dev/null || echo 0)
rss2=$(cat "$tmp/rss-$BIG_RECORDS" 2>/dev/null || echo 999999999)
echo "  -f parquet: max RSS $rss KiB at 140000 records, $rss2 KiB at $BIG_RECORDS"
check "big stream -f parquet: max RSS flat ($rss2 KiB at $BIG_RECORDS records, $rss KiB at 140000)" \
	[ "$rss2" -lt $((rss + 2048)) ]
rm -f "$tmp/big.parquet"
# a file truncated while it is read (a new capture into the same name):
# SIGBUS past the new end ends the run with a message, not a crash. The
# reader blocks on a full pipe while the file is cut to 1 MiB.
("$PLAIN" -f magnet "$tmp/big.bin" 2>"$tmp/err"; echo $? >"$tmp/rc") |
	(sleep 1; truncate -s 1048576 "$tmp/big.bin"; cat >"$tmp/out")
rc=$(cat "$tmp/rc")
check "file shrinking under the reader: exit 2 (got $rc)" [ "$rc" = 2 ]
check "file shrinking under the reader: message" \
	err_is 'read error: the file shrank while it was read \(at byte offset 1048576\)'
check "file shrinking under the reader: every record before the cut printed" \
	[ "$(wc -l <"$tmp/out")" = $(((1048576 - 256) / 256 + 1)) ]
rm -f "$tmp/big.bin"

# ---- pcapng and pcap (-f pcapng, pcap, pcap-ns) ----
echo "== ttpb2ascii: pcapng and pcap"
PCAP=./pcap_fixture
$PCAP write "$tmp" || bad "pcap_fixture write failed"
# every layer/direction choice, each format: parsed back and compared
# with the records byte by byte; the swapped log gives the same bytes
# (a classic pcap file holds one interface: the IP layer, or one device)
for sel in "pcapng dev both" "pcapng ip,dev both" "pcapng dev out" \
	"pcapng ip in" "pcap dev both 2" "pcap-ns ip out" "pcapng dev both 3" \
	"pcap-ns ip,dev out 2"; do
	set -- $sel
	ifx=${4:+-I $4} ifn=${4:-}
	# pcapng of several interfaces: asked for (--all-interfaces)
	[ "$1" = pcapng ] && [ -z "$ifn" ] && ifx=--all-interfaces
	# shellcheck disable=SC2086
	run -f "$1" -L "$2" -d "$3" $ifx -o "$tmp/p.out" "$tmp/pcap.bin"
	check "-f $1 -L $2 -d $3 $ifx: exit 0 (got $rc)" [ "$rc" = 0 ]
	check "-f $1 -L $2 -d $3 $ifx: warns of the gaps" \
		err_is 'warning: .*: 8 records lost, 2 probe misses, 7 records discarded by reset'
	$PCAP check "$1" "$2" "$3" "$tmp/p.out" $ifn >"$tmp/pcheck" 2>&1
	st=$?
	fold "$tmp/pcheck" "pcap_fixture check $1 $2 $3 $ifn" "$st"
	# shellcheck disable=SC2086
	run -f "$1" -L "$2" -d "$3" $ifx -o "$tmp/p.swapped" "$tmp/pcap-swapped.bin"
	check "-f $1 -L $2 -d $3 $ifx: the swapped log gives the same file" \
		cmp -s "$tmp/p.out" "$tmp/p.swapped"
	no_sanitizer || bad "-f $1 -L $2 -d $3 $ifx: sanitizer report"
done
# a classic pcap file of two interfaces: refused at the second one's
# first packet, with what to select; the file it created removed
rm -f "$tmp/p.out"
run -f pcap -o "$tmp/p.out" "$tmp/pcap.bin"
check "-f pcap of ifindex 2 and 3: exit 1 (got $rc)" [ "$rc" = 1 ]
check "-f pcap of ifindex 2 and 3: message" \
	err_is 'record index 5 at byte offset 1536: a packet of ifindex 3 after those of ifindex 2: a pcap file holds one interface; write one file per interface \(--split DIR\) or select one \(--netns, --ifindex, -L\)'
check "-f pcap of ifindex 2 and 3: no file left" [ ! -e "$tmp/p.out" ]
# pcapng too, unless asked for: Wireshark merges a file's interfaces
run -f pcapng -o "$tmp/p.out" "$tmp/pcap.bin"
check "-f pcapng of ifindex 2 and 3: exit 1 (got $rc)" [ "$rc" = 1 ]
check "-f pcapng of ifindex 2 and 3: message" \
	err_is 'record index 5 at byte offset 1536: a packet of ifindex 3 after those of ifindex 2: Wireshark would take a packet.s copy on another interface for a retransmission; write one file per interface \(--split DIR\), select one \(--netns, --ifindex, -L\), or all in one \(--all-interfaces\)$'
check "-f pcapng of ifindex 2 and 3: no file left" [ ! -e "$tmp/p.out" ]
# only a file the run created is removed: a regular file that was there is
# left empty, anything else (a FIFO here; the fuzzer's -o /dev/null, which
# a refusal once unlinked on the machine) is left alone
echo "an older file" > "$tmp/p.old-out"
run -f pcapng -o "$tmp/p.old-out" "$tmp/pcap.bin"
check "refused into an existing file: exit 1 (got $rc)" [ "$rc" = 1 ]
kept_empty() { [ -f "$1" ] && [ ! -s "$1" ]; }
check "refused into an existing file: kept, empty" kept_empty "$tmp/p.old-out"
mkfifo "$tmp/p.fifo"
cat "$tmp/p.fifo" > "$tmp/p.fifo-got" &
run -f pcapng -o "$tmp/p.fifo" "$tmp/pcap.bin"
wait $!
check "refused into a FIFO: exit 1 (got $rc)" [ "$rc" = 1 ]
check "refused into a FIFO: the FIFO left" [ -p "$tmp/p.fifo" ]
check "refused into a FIFO: it got the header" [ -s "$tmp/p.fifo-got" ]
# --split DIR: a file per interface, each what -I gives of its interface
# (the same packets, gaps and times) with the TCP state comments too; a
# line each on the output
for sel in "pcapng dev both" "pcap dev out" "pcap-ns dev in"; do
	set -- $sel
	rm -rf "$tmp/split"
	run -f "$1" -L "$2" -d "$3" --split "$tmp/split" "$tmp/pcap.bin"
	check "--split -f $1 -d $3: exit 0 (got $rc)" [ "$rc" = 0 ]
	ext=pcap
	[ "$1" = pcapng ] && ext=pcapng
	check "--split -f $1 -d $3: two files listed" \
		[ "$(cut -f1,3 "$tmp/out" | tr '\n\t' ';,')" = "$tmp/split/if2.$ext,ifindex 2;$tmp/split/if3.$ext,ifindex 3;" ]
	check "--split -f $1 -d $3: two files" \
		[ "$(ls "$tmp/split" | tr '\n' ' ')" = "if2.$ext if3.$ext " ]
	for i in 2 3; do
		$PCAP check "$1" "$2" "$3" "$tmp/split/if$i.$ext" $i >"$tmp/pcheck" 2>&1
		st=$?
		fold "$tmp/pcheck" "pcap_fixture check --split $1 $2 $3 if$i" "$st"
	done
	no_sanitizer || bad "--split -f $1: sanitizer report"
done
run -f pcapng --split "$tmp/split" -o "$tmp/p.list" "$tmp/pcap.bin"
check "--split with -o: the list in OUT" \
	[ "$rc.$(cut -f1,2 "$tmp/p.list" | tr '\n\t' ';,')" = "0.$tmp/split/if2.pcapng,6 packets;$tmp/split/if3.pcapng,2 packets;" ]
run -f pcapng --split "$tmp/split" --all-interfaces "$tmp/pcap.bin"
check "--split with --all-interfaces: exit 1 (got $rc)" [ "$rc" = 1 ]
run -f magnet --split "$tmp/split" "$tmp/pcap.bin"
check "--split with -f magnet: exit 1 (got $rc)" [ "$rc" = 1 ]
for a in --all-interfaces --drops --events; do
	run -f pcap $a "$tmp/pcap.bin"
	check "$a with -f pcap: exit 1 (got $rc)" [ "$rc" = 1 ]
	check "$a with -f pcap: message" err_is 'apply to -f pcapng only'
done
run -f pcap-ns -L ip,dev -d out -o "$tmp/p.out" "$tmp/pcap.bin"
check "-f pcap-ns -L ip,dev: exit 1 (got $rc)" [ "$rc" = 1 ]
check "-f pcap-ns -L ip,dev: message" \
	err_is 'a packet of IP layer after those of ifindex 2'
run -f ttprobe -I 2 "$tmp/pcap.bin"
check "-f ttprobe -I 2: exit 1 (got $rc)" [ "$rc" = 1 ]
run -f pcapng -L ip -I 2 "$tmp/pcap.bin"
check "-L ip -I 2: exit 1 (got $rc)" [ "$rc" = 1 ]
for a in "-n 0" "-n x1" "-I 4294967296" "-I ''"; do
	eval run -f magnet "$a" "$tmp/pcap.bin"
	check "$a: exit 1 (got $rc)" [ "$rc" = 1 ]
	check "$a: message" err_is 'not a number from 1 to 4294967295'
done
run -f magnet -n 4026531840 "$tmp/pcap.bin"
check "-n of a version 2 log: exit 1 (got $rc)" [ "$rc" = 1 ]
check "-n of a version 2 log: message" \
	err_is 'no record is of netns 4026531840; the log.s events by namespace \(their count\): 11 events that say no namespace'
run -f magnet -I 7 "$tmp/pcap.bin"
check "-I 7 (no such device): exit 1 (got $rc)" [ "$rc" = 1 ]
# tshark (Debian's, make deps) reads what we write: every header field
if command -v tshark >/dev/null; then
	run -f pcapng --all-interfaces -o "$tmp/t.pcapng" "$tmp/pcap.bin"
	tshark -r "$tmp/t.pcapng" -T fields -e frame.len -e ip.src -e ip.dst \
		-e ipv6.src -e ipv6.dst -e tcp.srcport -e tcp.dstport \
		-e tcp.seq_raw -e tcp.ack_raw -e tcp.flags \
		-e tcp.window_size_value -e udp.srcport -e udp.dstport \
		>"$tmp/tshark.txt" 2>"$tmp/tshark.err"
	check "tshark reads the pcapng file (exit $?)" [ $? = 0 ]
	$PCAP tshark >"$tmp/tshark.want"
	check "tshark: every packet's fields as recorded" \
		diff "$tmp/tshark.want" "$tmp/tshark.txt"
	check "tshark: the TCP state comment" \
		grep -q "magnet tcp_out .* cwnd 10 ssthresh 2147483647 srtt_us 1234" \
		<(tshark -r "$tmp/t.pcapng" -T fields -e frame.comment 2>/dev/null)
	# ifindex 2's: records 1, 3, 7, 8, 10 and 11 of the fixture
	for f in pcap pcap-ns; do
		run -f $f -I 2 -o "$tmp/t.$f" "$tmp/pcap.bin"
		check "tshark reads -f $f -I 2: 6 packets" \
			[ "$(tshark -r "$tmp/t.$f" 2>/dev/null | wc -l)" = 6 ]
	done
else
	bad "tshark not installed (make deps installs it)"
fi
# a log from before the header fields: packets with a note
run -f pcapng --all-interfaces -o "$tmp/p.old" "$tmp/pcap-old.bin"
check "old log: exit 0 (got $rc)" [ "$rc" = 0 ]
# every one of its 8 device packets, each packet's comment as tshark reads it
check "old log: each of the 8 packets says its header fields were not recorded" \
	[ "$(tshark -r "$tmp/p.old" -T fields -e frame.comment 2>/dev/null |
		grep -c 'header fields not in this log')" = 8 ]
# bad input: a clear message and exit 2; bad options: exit 1
python3 - "$tmp/pcap.bin" "$tmp/p.bad" <<'PY'
import sys
b = bytearray(open(sys.argv[1], "rb").read())
o = 256 + 256           # record 1, a device event
b[o + 23] |= 0x01       # RF_TCP beside RF_HDR
open(sys.argv[2], "wb").write(b)
PY
run -f pcapng -o /dev/null "$tmp/p.bad"
check "RF_TCP and RF_HDR together: exit 2 (got $rc)" [ "$rc" = 2 ]
check "RF_TCP and RF_HDR together: message" \
	err_is 'record index 1 at byte offset 512: flags 0x.. claim both a TCP snapshot and a packet header'
python3 - "$tmp/pcap.bin" "$tmp/p.bad" <<'PY'
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
struct.pack_into("<H", b, 256 + 256 + 120, 3)   # ip_hlen 3
open(sys.argv[2], "wb").write(b)
PY
run -f pcapng -o /dev/null "$tmp/p.bad"
check "ip_hlen 3: exit 2 (got $rc)" [ "$rc" = 2 ]
check "ip_hlen 3: message" \
	err_is 'record index 1 at byte offset 512: an IPv4 header length out of range'
run -f magnet -L dev "$tmp/pcap.bin"
check "-L without a pcap format: exit 1 (got $rc)" [ "$rc" = 1 ]
run -f pcapng -d sideways "$tmp/pcap.bin"
check "-d sideways: exit 1 (got $rc)" [ "$rc" = 1 ]
check "-d sideways: message" err_is "unknown direction 'sideways'"
run -f pcapng -L tcp "$tmp/pcap.bin"
check "-L tcp: exit 1 (got $rc)" [ "$rc" = 1 ]

# ---- format version 3 ----
# The fixtures as version 3, through module/shared/v3.c's encoder (the one the
# module uses), in both byte orders: every output format byte-identical
# to the version 2 log's.
echo "== ttpb2ascii: format version 3"
for f in native pcap; do
	$FIX to-v3 "$tmp/$f.bin" "$tmp/$f-v3.bin" >>"$tmp/fix.log" 2>&1 &&
		$FIX to-v3 "$tmp/$f.bin" "$tmp/$f-v3s.bin" swap >>"$tmp/fix.log" 2>&1
	check "to-v3 $f.bin" [ $? = 0 ]
	check "$f-v3.bin: version 3 is smaller" \
		[ "$(stat -c %s "$tmp/$f-v3.bin")" -lt "$(stat -c %s "$tmp/$f.bin")" ]
done
for args in "-f ttprobe" "-f magnet" "-f web10g" "-f legacy" "-c ttprobe" \
	"-f pcapng --all-interfaces" "-f pcap -L ip" "-f pcap-ns -L dev -d out -I 2"; do
	for f in native pcap; do
		# shellcheck disable=SC2086
		run $args "$tmp/$f.bin"
		cp "$tmp/out" "$tmp/v2.out"
		cp "$tmp/err" "$tmp/v2.err"
		v2rc=$rc
		for v in v3 v3s; do
			# shellcheck disable=SC2086
			run $args "$tmp/$f-$v.bin"
			check "$args $f-$v.bin: exit $v2rc as version 2 (got $rc)" [ "$rc" = "$v2rc" ]
			check "$args $f-$v.bin: output byte-identical to version 2's" \
				cmp -s "$tmp/out" "$tmp/v2.out"
			check "$args $f-$v.bin: the same messages" \
				cmp -s <(sed "s/-$v.bin/.bin/" "$tmp/err") "$tmp/v2.err"
		done
	done
done
gzip -c "$tmp/native-v3.bin" >"$tmp/native-v3.bin.gz"
run -f magnet "$tmp/native-v3.bin.gz"
check "version 3 through gzip" cmp -s "$tmp/out" "$tmp/native.txt"
# truncated and corrupt: a clear message, every complete record printed
len3=$(stat -c %s "$tmp/native-v3.bin")
head -c $((len3 - 100)) "$tmp/native-v3.bin" >"$tmp/v3cut.bin"
run -f magnet "$tmp/v3cut.bin"
check "version 3 cut in a record: exit 3 (got $rc)" [ "$rc" = 3 ]
check "version 3 cut in a record: message" \
	err_is 'warning: .*last record truncated: 60 of 160 bytes at byte offset'
check "version 3 cut in a record: every complete record printed" \
	cmp -s "$tmp/out" <(head -n -1 "$tmp/native.txt")
head -c $((len3 - 160 + 9)) "$tmp/native-v3.bin" >"$tmp/v3cut.bin"
run -f magnet "$tmp/v3cut.bin"
check "version 3 cut in a header: exit 3 (got $rc)" [ "$rc" = 3 ]
check "version 3 cut in a header: message" \
	err_is 'warning: .*last record truncated: 9 of its 16-byte header'
# the first record after the header is a FLOW record of 80 bytes: drop it
{ head -c 256 "$tmp/native-v3.bin"; tail -c +$((256 + 80 + 1)) "$tmp/native-v3.bin"; } >"$tmp/v3bad.bin"
run -f magnet "$tmp/v3bad.bin"
check "version 3 without its FLOW record: exit 2 (got $rc)" [ "$rc" = 2 ]
check "version 3 without its FLOW record: message" \
	err_is 'record index 0 at byte offset 256: refers to flow [0-9]+ of cpu 258, which no FLOW record defined'
python3 - "$tmp/native-v3.bin" "$tmp/v3bad.bin" <<'PY'
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
struct.pack_into("<H", b, 256 + 14, 70)     # the FLOW record's length
open(sys.argv[2], "wb").write(b)
PY
run -f magnet "$tmp/v3bad.bin"
check "version 3 length 70: exit 2 (got $rc)" [ "$rc" = 2 ]
check "version 3 length 70: message" \
	err_is 'record index 0 at byte offset 256: record length 70 \(version 3 records are 32 to 256 bytes, a multiple of 8\)'
no_sanitizer || bad "version 3: sanitizer report"
# the VM tests' own decoder (tests/vm/magnetlog.py, written from the
# document, not from v3.c) rebuilds the same version 2 records
for f in native pcap; do
	check "magnetlog.py: $f-v3.bin gives $f.bin's records" \
		/usr/bin/python3 -c '
import sys
sys.path.insert(0, "../vm")
from magnetlog import v2_records
a = v2_records(open(sys.argv[1], "rb").read())[1]
b = v2_records(open(sys.argv[2], "rb").read())[1]
sys.exit(not (a and a == b))' "$tmp/$f.bin" "$tmp/$f-v3.bin"
done
# a second decoder of the text (docdecode.py, written from
# docs/binary-format.md alone): the same magnet text, byte for byte, from
# either version, byte order and gzip, and the same exit code for a log
# cut inside a record
gzip -c "$tmp/swapped.bin" >"$tmp/swapped.bin.gz"
for f in native.bin swapped.bin.gz native-v3.bin native-v3s.bin pcap.bin \
	pcap-v3.bin pcap-v3s.bin v3cut.bin; do
	run -f magnet "$tmp/$f"
	/usr/bin/python3 ./docdecode.py "$tmp/$f" >"$tmp/doc.out" 2>"$tmp/doc.err"
	drc=$?
	check "docdecode.py $f: exit $rc as ttpb2ascii's (got $drc)" [ "$drc" = "$rc" ]
	check "docdecode.py $f: the magnet text byte for byte" \
		cmp -s "$tmp/doc.out" "$tmp/out"
done
# and real logs of 7.2, each decoded by docdecode.py to the same text:
# drops-7.2.bin (case_drops: its FLOW records, four drops each way and four
# TCP events), tcpev-7.2.bin (the first 37632 bytes of case_tcpev's
# transfer, events=retrans,state), qdisc-7.2.bin (the first 50872 bytes of
# case_qdisc's log, events=dev,drop,qdisc: enqueues, dequeues and tbf's
# first drop); then each one's own columns,
# found by the header's names
for f in drops-7.2.bin tcpev-7.2.bin qdisc-7.2.bin; do
	run -f magnet $f
	/usr/bin/python3 ./docdecode.py $f >"$tmp/doc.out" 2>"$tmp/doc.err"
	drc=$?
	check "docdecode.py $f: exit 0 as ttpb2ascii's ($rc, $drc)" [ "$drc$rc" = 00 ]
	check "docdecode.py $f: the magnet text byte for byte" \
		cmp -s "$tmp/doc.out" "$tmp/out"
	cp "$tmp/out" "$tmp/$f.txt"
done
# count COLUMNS... TEXT: the lines' values of those columns, counted
count() {
	awk -F '\t' -v want="$1" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i
		n = split(want, w, " "); next }
		{ k = ""; for (i = 1; i <= n; i++) k = k (i > 1 ? " " : "") $c[w[i]]; m[k]++ }
		END { for (k in m) print m[k] "\t" k }' "$2" | LC_ALL=C sort -k2
}
check "drops-7.2.bin: 4 drop_out lines of QDISC_DROP, 4 drop_in of NETFILTER_DROP" \
	[ "$(count "event drop_reason drop_where" "$tmp/drops-7.2.bin.txt" | grep drop_ | tr '\n\t' '; ')" = \
	  "4 drop_in NETFILTER_DROP nft_do_chain_[nf_tables];4 drop_out QDISC_DROP __tcf_kfree_skb_list;" ]
check "tcpev-7.2.bin: 146 fast, 1 rto and 1 tlp retransmissions, 1 RTO, 5 probes of new data and 1 of the last segment, 9 state changes" \
	[ "$(count "event kind" "$tmp/tcpev-7.2.bin.txt" | tr '\n\t' '; ')" = \
	  "146 retrans fast;1 retrans rto;1 retrans tlp;1 rto ;9 state ;5 tlp new;1 tlp retrans;" ]
check "qdisc-7.2.bin: 59 qdisc lines and 80 qdisc_enq lines, each of tbf 1:0" \
	[ "$(count "event qdisc qdisc_handle" "$tmp/qdisc-7.2.bin.txt" | grep qdisc | tr '\n\t' '; ')" = \
	  "59 qdisc tbf 1:0;80 qdisc_enq tbf 1:0;" ]
# drops are no wire packets: left out of pcapng unless --drops asks, then
# one packet each, on its interface, with its reason in a comment
if command -v tshark >/dev/null; then
	for a in "" --drops; do
		# shellcheck disable=SC2086
		run -f pcapng -L ip,dev --all-interfaces $a -o "$tmp/d.pcapng" drops-7.2.bin
		check "drops-7.2.bin -f pcapng $a: exit 0 (got $rc)" [ "$rc" = 0 ]
		tshark -r "$tmp/d.pcapng" -T fields -e frame.comment \
			>"$tmp/tshark.txt" 2>/dev/null
		n=$(grep -c 'magnet drop: ' "$tmp/tshark.txt")
		want=0
		[ -n "$a" ] && want=$(awk -F '\t' '$3 ~ /^drop_(in|out)$/' "$tmp/drops-7.2.bin.txt" | wc -l)
		check "drops-7.2.bin -f pcapng $a: $want drop packets (got $n)" \
			[ "$n" = "$want" ]
		[ -n "$a" ] && check "drops-7.2.bin: its drop events counted (8)" \
			[ "$want" = 8 ]
	done
fi
# the corner cases docs/binary-format.md states a rule for, each a log
# NAME-EXIT.bin: ttpb2ascii exits EXIT as the document says, and
# docdecode.py prints the same text with the same exit code. The rate
# columns need RF_TCP; a LOST record's ret prints unsigned, an app event's
# signed; a family other than 4 prints as IPv6; "Reading a stream" decides
# cut (3) or invalid (2) in its order, with a version 3 length of 32 to
# 256, a multiple of 8; tcp_hlen 1 to 19 is no options, above 60 invalid;
# RF_TCP with RF_HDR is invalid in version 2 (a LOST record too), a
# version 3 FLOW, LOST or RESET record's flags are not checked, a FLOW
# id is 1 to 1024; a flag naming a field its version 3 layout lacks shows
# 0; gzip members in a row, bytes after the last ignored; ttprobe's
# records are a usage error (1) in this host's byte order, bad magic (2)
# in the other
mkdir "$tmp/corner"
/usr/bin/python3 - "$tmp/corner" <<'PY'
import gzip, struct, sys
d = sys.argv[1]
def si(v=3, e="<", feat=0):
    b = bytearray(256)
    struct.pack_into(e + "IHHHHIqQ", b, 0, 0x01234567, v, 256 if v == 2 else 0,
                     256, 2, feat, 1700000000 * 10**9, 5)
    return bytes(b)
def v2(ev=1, fl=0x23, fam=4, ret=0, req=0):
    b = bytearray(256)
    struct.pack_into("<QQHHBBBBHHI", b, 0, 10, 0xABCDEF0123, ev, 1, fam, 1, 0,
                     fl, 80, 443, 100)
    b[32:36], b[48:52] = bytes([10, 0, 0, 1]), bytes([10, 0, 0, 2])
    struct.pack_into("<qQ", b, 80, ret, req)
    return bytes(b)
def hdr(ev, fl, ln, flow=1, e="<"):
    return struct.pack(e + "QHHBBH", 20, 1, flow, ev, fl, ln)
def flow(fid=1, fam=4, fl=0, e="<", ns=None, ln=None):
    # 72 bytes as written before netns; with @ns, 80 with it
    b = (struct.pack(e + "QHHB", 0xABC, 80, 443, fam) +
         b"cubic".ljust(11, b"\0") + bytes([10, 0, 0, 1] + [0] * 12) +
         bytes([10, 0, 0, 2] + [0] * 12))
    if ns is not None:
        b += struct.pack(e + "II", ns, 0)
    return hdr(11, fl, ln or 16 + len(b), fid, e) + b
def count(ev=9, ret=-5, fl=0, fid=0):
    return hdr(ev, fl, 32, fid) + struct.pack("<Qq", 7, ret)
def limit(e="<", chrono=2):
    # the limit part ("Limit part"): HZ 250, rwnd-limited now
    return struct.pack(e + "7IHBB", 1000, 250, 3, 7, 3, 5, 2, 4000, chrono, 0)
def tcp(ev=1, fl=0x23, rate=False, fid=1, e="<", lim=None):
    b = bytearray(144 if ev <= 2 else 184)
    struct.pack_into(e + "IIII", b, 0, 100, 0, 5, 105)
    struct.pack_into(e + "I", b, 24, 1448)
    if ev > 2:
        struct.pack_into(e + "IIQq", b, 144, 42, 0, 10, -11)
        b[168:171] = b"cat"
    if rate:
        r = bytearray(56)
        struct.pack_into(e + "QIIIIII", r, 0, 1000, 1, 2, 3, 4, 5, 10)
        r[33] = 16
        struct.pack_into(e + "5I", r, 36, 1, 2, 3, 4, 5)
        b += r
    if lim is not None:
        b += lim
    return hdr(ev, fl, 16 + len(b), fid, e) + bytes(b)
def tcpev(ev=17, e="<", lim=None, rto=(0, 0, 0)):
    # a TCP event: the TCP part, the rate part, the TCP event part (@rto:
    # its bytes 3-7, rto_totals, total_rto, total_rto_recoveries)
    t = tcp(1, 0xa3, rate=True, e=e)
    b = t[16:] + bytes([1, 2, 3]) + struct.pack(e + "BHH", *rto) + (lim or b"")
    return hdr(ev, 0xa3, 16 + len(b), 1, e) + b
def rcvbuf(e="<", fl=0x21, extra=b""):
    # an RCVBUF event: the TCP part, then the rcvbuf part
    t = tcp(1, 0x21, e=e)
    b = t[16:] + struct.pack(e + "8I", 131072, 65536, 98304, 49152, 64000,
                             40000, 20123, 0) + extra
    return hdr(22, fl, 16 + len(b), 1, e) + b
def rtoend(e="<", fl=0x21, extra=b""):
    # an RTO_END event: the TCP part, then the rtoend part
    t = tcp(1, 0x21, e=e)
    b = t[16:] + struct.pack(e + "IIHHI", 2935, 2921, 9, 3, 0) + extra
    return hdr(23, fl, 16 + len(b), 1, e) + b
def pkt(th=20, fl=0x6e, ln=None, e="<", fid=1, ip=False):
    # a dev_out on ifindex 3; @ip: with an IPv4 header's length and TCP
    b = bytearray(40)
    struct.pack_into(e + "IIIIII", b, 0, 60, 0, 1, 2, 3, 4)
    if ip:
        struct.pack_into(e + "H", b, 28, 20)
        b[35] = 6
    b[37] = th
    b += bytes((max(th - 20, 0) + 7) // 8 * 8)
    return hdr(7, fl, ln or 16 + len(b), fid, e) + bytes(b)
def legacy(e):
    b = bytearray(96)
    struct.pack_into(e + "qq", b, 0, 1700000000, 5)
    b[89], b[90] = ord("o"), 2
    return bytes(b) * 2
logs = {
    "rate-without-tcp-0": si() + flow() + tcp(fl=0xa2, rate=True),
    "rate-with-tcp-0": si() + flow() + tcp(fl=0xa3, rate=True),
    "lost-ret-v3-0": si() + count(ret=-5),
    "lost-ret-v2-0": si(2) + v2(ev=9, fl=0, ret=-5, req=7),
    "app-ret-0": si() + flow() + tcp(ev=3, fl=0x33),
    "family5-v3-0": si() + flow(fam=5) + tcp(),
    "family0-v2-0": si(2) + v2(fam=0),
    "len24-cut-2": si() + hdr(1, 0x23, 24) + bytes(4),
    "len264-cut-2": si() + hdr(1, 0x23, 264) + bytes(4),
    "len200-tcp-cut-3": si() + flow() + hdr(1, 0x23, 200) + bytes(4),
    "event99-cut-3": si() + hdr(99, 0, 200) + bytes(4),
    "header15-cut-3": si() + flow() + hdr(1, 0x23, 160)[:15],
    "tcp-hlen10-0": si() + flow() + pkt(th=10),
    "tcp-hlen61-2": si() + flow() + pkt(th=61, ln=104),
    "v2-tcp-hdr-2": si(2) + v2(fl=0x61),
    "v2-lost-tcp-hdr-2": si(2) + v2(ev=9, fl=0x41),
    "v2-flag80-0": si(2) + v2(fl=0xa3),
    "flow-flags-0": si() + flow(fl=0xff) + tcp(),
    "lost-flags-flow-0": si() + count(fl=0xff, fid=77),
    "flow-id0-2": si() + flow(fid=0) + tcp(fid=0),
    "flow-id1025-2": si() + flow(fid=1025) + tcp(fid=1025),
    "tcp-app-dev-ip-0": si() + flow() + tcp(fl=0x3f),
    "pkt-app-0": si() + flow() + pkt(fl=0x7e),
    "swapped-0": si(e=">") + flow(e=">") + tcp(e=">"),
    "netns-0": si() + flow(ns=4026532001) + tcp() + pkt() + tcp(ev=3, fl=0x33),
    "netns-swapped-0": si(e=">") + flow(e=">", ns=4026532001) + tcp(e=">") +
        pkt(e=">"),
    "netns-zero-0": si() + flow(ns=0) + tcp() + pkt(),
    "flow88-2": si() + flow(ns=1, ln=88) + bytes(8) + tcp(),
    # one connection's ends seen in two namespaces (a host and a router in
    # one kernel): the same addresses and ports, ifindex 3 in both
    "twons-0": si() + flow(1, ns=4026532001) + flow(2, ns=4026532002) +
        tcp(fid=1) + pkt(fid=1, ip=True) + pkt(fid=2, ip=True) +
        tcp(ev=2, fid=1) + pkt(fid=2, ip=True),
    "flow64-2": si() + flow(ln=64)[:64] + tcp(),
    # "Limit part": last in TCP_OUT, TCP_IN and TCP events of a log with
    # 0x80 (after the rate part, if any), never in an app record
    "limit-0": si(feat=0xff) + flow() + tcp(fl=0xa3, rate=True, lim=limit()) +
        tcp(ev=2, lim=limit(chrono=0)) + tcp(ev=3, fl=0xb3, rate=True) +
        tcpev(14, lim=limit(chrono=1)) + tcpev(17, lim=limit(chrono=3)) +
        tcpev(15, lim=limit(chrono=9)),
    "limit-swapped-0": si(e=">", feat=0xff) + flow(e=">") +
        tcp(fl=0xa3, rate=True, e=">", lim=limit(">")) +
        tcpev(16, e=">", lim=limit(">", chrono=1)),
    "limit-missing-2": si(feat=0xff) + flow() + tcp(fl=0xa3, rate=True),
    "limit-tcpev-missing-2": si(feat=0xff) + flow() + tcpev(15),
    "limit-app-extra-2": si(feat=0xff) + flow() +
        tcp(ev=3, fl=0xb3, rate=True, lim=limit()),
    # "TCP event part": a CONG_STATE event, the state left in prev_state
    "cong-state-0": si(feat=0x1ff) + flow() + tcpev(21, lim=limit()),
    "cong-state-nolimit-0": si(feat=0x17f) + flow() + tcpev(21),
    # "TCP event part": the RTO totals (0x400) of any TCP event, where
    # rto_totals says the kernel keeps them; without 0x400 those bytes
    # are reserved, whatever they hold
    "rto-totals-0": si(feat=0x7ff) + flow() +
        tcpev(15, lim=limit(), rto=(1, 3, 2)) +
        tcpev(17, lim=limit(), rto=(1, 65535, 258)) +
        tcpev(14, lim=limit(), rto=(0, 0, 0)),
    "rto-totals-swapped-0": si(e=">", feat=0x7ff) + flow(e=">") +
        tcpev(21, e=">", lim=limit(">"), rto=(1, 513, 2)),
    "rto-totals-unsaid-0": si(feat=0x3ff) + flow() +
        tcpev(15, lim=limit(), rto=(1, 3, 2)),
    # "Rcvbuf part": an RCVBUF event, the TCP part and the rcvbuf part
    "rcvbuf-0": si(feat=0x3ff) + flow() + rcvbuf(),
    "rcvbuf-swapped-0": si(e=">", feat=0x3ff) + flow(e=">") + rcvbuf(">"),
    "rcvbuf-rate-2": si(feat=0x3ff) + flow() + rcvbuf(fl=0xa1),
    "rcvbuf-notcp-2": si(feat=0x3ff) + flow() + rcvbuf(fl=0x20),
    "rcvbuf-long-2": si(feat=0x3ff) + flow() + rcvbuf(extra=bytes(8)),
    "rcvbuf-unsaid-0": si(feat=0x1ff) + flow() + rcvbuf(),
    # "Rtoend part": an RTO_END event, the TCP part and the rtoend part
    "rto-end-0": si(feat=0xfff) + flow() + rtoend(),
    "rto-end-swapped-0": si(e=">", feat=0xfff) + flow(e=">") + rtoend(">"),
    "rto-end-rate-2": si(feat=0xfff) + flow() + rtoend(fl=0xa1),
    "rto-end-notcp-2": si(feat=0xfff) + flow() + rtoend(fl=0x20),
    "rto-end-long-2": si(feat=0xfff) + flow() + rtoend(extra=bytes(8)),
    "rto-end-unsaid-0": si(feat=0x7ff) + flow() + rtoend(),
    "limit-unsaid-2": si(feat=0x7f) + flow() +
        tcp(fl=0xa3, rate=True, lim=limit()),
    # "Growing the format": a header bit the reader does not know (0x1000)
    # makes a record kind it does not know skipped, a known record longer
    # than its layout read as far as it goes; nothing else changes
    "newer-kind200-0": si(feat=0x1000) + flow() + hdr(200, 0xff, 48, 999) +
        bytes(32) + tcp(),
    "kind200-2": si(feat=0x3f) + flow() + hdr(200, 0xff, 48, 999) + bytes(32) +
        tcp(),
    "kind200-unsaid-2": si() + flow() + hdr(200, 0xff, 48, 999) + bytes(32),
    "newer-event0-2": si(feat=0x1000) + hdr(0, 0, 32) + bytes(16),
    "newer-flow88-0": si(feat=0x1000) + flow(ns=7, ln=88) + bytes(8) + tcp(),
    "newer-flow64-2": si(feat=0x1000) + flow(ln=64)[:64] + tcp(),
    "newer-tcp168-0": si(feat=0x1000) + flow() + hdr(1, 0x23, 168) +
        tcp()[16:] + bytes(8),
    "newer-tcp152-2": si(feat=0x1000) + flow() + hdr(1, 0x23, 152) +
        tcp()[16:152],
    "newer-lost40-0": si(feat=0x1000) + hdr(9, 0, 40) + struct.pack("<Qq", 7, 0) +
        bytes(8),
    "newer-len264-cut-3": si(feat=0x1000) + flow() + hdr(1, 0x23, 264) + bytes(4),
    "newer-len1032-cut-2": si(feat=0x1000) + flow() + hdr(1, 0x23, 1032) +
        bytes(4),
    "newer-swapped-0": si(e=">", feat=0x1000) + flow(e=">", ns=9, ln=88) +
        bytes(8) + hdr(200, 0, 32, e=">") + bytes(16) + tcp(e=">"),
    "gzip-members-0": gzip.compress(si() + flow()) + gzip.compress(tcp()),
    "gzip-trailing-0": gzip.compress(si() + flow() + tcp()) + b"trailing",
    "ttprobe-here-1": legacy("="),
    "ttprobe-other-order-2": legacy(">" if sys.byteorder == "little" else "<"),
}
for name, b in logs.items():
    open("%s/%s.bin" % (d, name), "wb").write(b)
PY
for f in "$tmp"/corner/*.bin; do
	c=$(basename "$f" .bin)
	run -f magnet "$f"
	check "corner $c: ttpb2ascii exits ${c##*-} (got $rc)" [ "$rc" = "${c##*-}" ]
	/usr/bin/python3 ./docdecode.py "$f" >"$tmp/doc.out" 2>"$tmp/doc.err"
	drc=$?
	check "docdecode.py corner $c: exit $rc as ttpb2ascii's (got $drc)" [ "$drc" = "$rc" ]
	check "docdecode.py corner $c: the magnet text byte for byte" \
		cmp -s "$tmp/doc.out" "$tmp/out"
done
# the RTO totals: columns total_rto and total_rto_recoveries (92, 93)
run -f magnet "$tmp/corner/rto-totals-0.bin"
check "corner rto-totals: each TCP event's totals, empty where the kernel keeps none" \
	[ "$(tail -n +2 "$tmp/out" | cut -f3,92,93 | tr '\t\n' ' |')" = "rto 3 2|state 65535 258|retrans  |" ]
run -f magnet "$tmp/corner/rto-totals-swapped-0.bin"
check "corner rto-totals-swapped: the totals byte-swapped" \
	[ "$(tail -n +2 "$tmp/out" | cut -f3,92,93 | tr '\t\n' ' |')" = "cong_state 513 2|" ]
run -f magnet "$tmp/corner/rto-totals-unsaid-0.bin"
check "corner rto-totals-unsaid: without 0x400 the bytes are reserved: no totals" \
	[ "$(tail -n +2 "$tmp/out" | cut -f3,92,93 | tr '\t\n' ' |')" = "rto  |" ]
# an RTO recovery's end: total_rto and total_rto_recoveries from its own
# part, then total_rto_time and rto_recovery_ms (94, 95)
for c in rto-end rto-end-swapped rto-end-unsaid; do
	run -f magnet "$tmp/corner/$c-0.bin"
	check "corner $c: the RTO totals and times of its rtoend part" \
		[ "$(tail -n +2 "$tmp/out" | cut -f3,34,92-96 | tr '\t\n' ' |')" = "rto_end 0 9 3 2935 2921 |" ]
done
# a newer log's one warning, after what was read
run -f magnet "$tmp/corner/newer-kind200-0.bin"
check "corner newer-kind200: one warning naming the skipped kind" \
	err_is 'this log is newer than this reader: .*features 0x1000.*; 1 records of kinds it does not know were skipped \(event codes 200\), 0 records longer'
run -f magnet "$tmp/corner/newer-flow88-0.bin"
check "corner newer-flow88: its netns, and one warning: 1 record read in part" \
	[ "$(cut -f37 "$tmp/out" | tail -n1)" = 7 ]
check "corner newer-flow88: the warning" err_is '0 records of kinds it does not know were skipped, 1 records longer than it knows were read as far as it knows$'
run -f magnet "$tmp/corner/flow-flags-0.bin"
check "corner flow-flags: a log that is not newer: nothing on stderr" [ ! -s "$tmp/err" ]
# the wire's egress (events=wire): a device's outgoing packet in the
# pcapng export (-L dev) is its wire_out event, after the qdisc, when the
# header's events say wire, else its dev_out, before the qdisc: a log with
# both events of one packet, 4 us apart, each way; the magnet text names
# both, and docdecode.py reads it as ttpb2ascii does
mkdir "$tmp/wire"
/usr/bin/python3 - "$tmp/wire" <<'PY'
import struct, sys
d = sys.argv[1]
def log(events):
    si = bytearray(256)
    struct.pack_into("<IHHHHIqQ", si, 0, 0x01234567, 3, 0, 256, 2, 0x7f,
                     1700000000 * 10**9, 5)
    struct.pack_into("<I", si, 128, events)
    fl = struct.pack("<QHHB", 0xABC, 80, 443, 4) + b"cubic".ljust(11, b"\0") + \
        bytes([10, 0, 0, 1] + [0] * 12) + bytes([10, 0, 0, 2] + [0] * 12) + \
        struct.pack("<II", 7, 0)
    out = bytes(si) + struct.pack("<QHHBBH", 10, 1, 1, 11, 0, 80) + fl
    for ts, ev in ((1000, 7), (5000, 20)):
        p = bytearray(40)
        # len, mark, seq, end_seq, ifindex, ack; ip_id, win, ip_hlen
        struct.pack_into("<IIIIIIHHH", p, 0, 1500, 0, 1, 1449, 3, 9, 77,
                         512, 20)
        p[35], p[36], p[37], p[38] = 6, 64, 20, 0x10
        out += struct.pack("<QHHBBH", ts, 1, 1, ev, 0x4e, 56) + bytes(p)
    return out
open(d + "/wire.bin", "wb").write(log(0x108))
open(d + "/nowire.bin", "wb").write(log(0x8))
PY
epb_times() {
	/usr/bin/python3 -c '
import struct, sys
b = open(sys.argv[1], "rb").read()
o = 0
while o + 12 <= len(b):
    t, n = struct.unpack_from("<II", b, o)
    if t == 6:
        hi, lo = struct.unpack_from("<II", b, o + 12)
        print((hi << 32 | lo) - 1700000000 * 10**9)
    o += n' "$1"
}
for w in wire nowire; do
	run -f pcapng -o "$tmp/wire/$w.pcapng" "$tmp/wire/$w.bin"
	check "wire: -f pcapng of $w.bin exits 0 (got $rc)" [ "$rc" = 0 ]
done
check "wire: with events=wire, the packet is its wire_out (5000 ns), once" \
	[ "$(epb_times "$tmp/wire/wire.pcapng")" = 5000 ]
check "wire: without, its dev_out (1000 ns), once" \
	[ "$(epb_times "$tmp/wire/nowire.pcapng")" = 1000 ]
run -f magnet "$tmp/wire/wire.bin"
check "wire: the magnet text names dev_out, then wire_out" \
	[ "$(cut -f3 "$tmp/out" | tail -n +2 | tr '\n' ' ')" = "dev_out wire_out " ]
/usr/bin/python3 ./docdecode.py "$tmp/wire/wire.bin" >"$tmp/doc.out" 2>"$tmp/doc.err"
check "wire: docdecode.py reads it byte for byte as ttpb2ascii" cmp -s "$tmp/doc.out" "$tmp/out"
# version 3's growth contract both ways: today's reader reads the past
# layouts held in compat/, a reader of the first layout reads today's
# logs, today's reads a newer one (compat.py)
echo "== version 3's growth contract"
/usr/bin/python3 ./compat.py check "$T" ./ttpb2ascii-v3first compat "$tmp/compat" \
	>"$tmp/compat.log" 2>&1
fold "$tmp/compat.log" compat $?
# ttpb2ascii -f parquet read back by pyarrow, pandas, Polars and DuckDB
# (the venv scripts/deps.sh installs): every value of every column the
# magnet text's, typed as docs/outputs.md's table says, on the real logs of
# 7.2, the format's corner logs (cut, refused, newer, both byte orders,
# every part), the growth contract's past layouts and version 2; and a
# log of three row groups (ttpb_fixture stream)
echo "== ttpb2ascii -f parquet"
READERS_PY=/usr/local/lib/magnet-readers/bin/python3
if [ -x "$READERS_PY" ]; then
	mkdir "$tmp/parquet"
	zcat demo-7.2.bin.gz >"$tmp/parquet/demo-7.2.bin"
	$FIX stream 140000 >"$tmp/parquet/big.bin" 2>>"$tmp/fix.log"
	"$READERS_PY" ./test_parquet.py "$T" "$tmp/parquet" "$tmp/parquet/big.bin" \
		"$tmp/parquet/demo-7.2.bin" drops-7.2.bin qdisc-7.2.bin tcpev-7.2.bin \
		compat/*.bin "$tmp"/corner/*.bin "$tmp/native.bin" "$tmp/swapped.bin" \
		"$tmp/native-v3s.bin" "$tmp/pcap-v3.bin" "$tmp/v3cut.bin" \
		>"$tmp/test_parquet.log" 2>&1
	fold "$tmp/test_parquet.log" test_parquet $?
	rm -rf "$tmp/parquet"
else
	bad "the Parquet readers' venv is not installed (make deps installs it)"
fi
# the namespace a FLOW record gives is each of its events' netns column,
# in either byte order; empty when it is 0, or the FLOW record predates it
netns_col() {
	awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "netns") c = i }
		NR > 1 { printf "%s ", $c }' "$tmp/out"
}
for c in netns-0:"4026532001 4026532001 4026532001 " \
	netns-swapped-0:"4026532001 4026532001 " netns-zero-0:"  " \
	family5-v3-0:" "; do
	run -f magnet "$tmp/corner/${c%%:*}.bin"
	check "corner ${c%%:*}: netns column '${c#*:}' (got '$(netns_col)')" \
		[ "$(netns_col)" = "${c#*:}" ]
done

# --netns and --ifindex on the two-namespace log: each namespace's events
# only; an ifindex of both namespaces needs --netns; a selection that
# keeps nothing says which namespaces the log has
events_of() {
	awk -F'\t' 'NR > 1 { printf "%s/%s ", $3, $37 }' "$tmp/out"
}
A=4026532001 B=4026532002
for c in "-n $A:tcp_out/$A dev_out/$A tcp_in/$A " "-n $B:dev_out/$B dev_out/$B " \
	"-n $B -I 3:dev_out/$B dev_out/$B " "-n $A -I 3:dev_out/$A "; do
	# shellcheck disable=SC2086
	run -f magnet ${c%%:*} "$tmp/corner/twons-0.bin"
	check "twons ${c%%:*}: exit 0 (got $rc)" [ "$rc" = 0 ]
	check "twons ${c%%:*}: events '${c#*:}' (got '$(events_of)')" \
		[ "$(events_of)" = "${c#*:}" ]
done
run -f magnet -I 3 "$tmp/corner/twons-0.bin"
check "twons -I 3: exit 1 (got $rc)" [ "$rc" = 1 ]
check "twons -I 3: message" \
	err_is "ifindex 3 is in two network namespaces \($A and $B\): add --netns"
run -f magnet -n 5 "$tmp/corner/twons-0.bin"
check "twons -n 5: exit 1 (got $rc)" [ "$rc" = 1 ]
check "twons -n 5: message" \
	err_is "no record is of netns 5; the log.s events by namespace \(their count\): $A \(3\), $B \(2\)$"
run -f pcap "$tmp/corner/twons-0.bin"
check "twons -f pcap: exit 1 (got $rc)" [ "$rc" = 1 ]
check "twons -f pcap: message" \
	err_is "a packet of netns $B ifindex 3 after those of netns $A ifindex 3"
if command -v tshark >/dev/null; then
	run -f pcap -n $B -o "$tmp/t.pcap" "$tmp/corner/twons-0.bin"
	check "twons -f pcap -n B: tshark reads 2 packets" \
		[ "$(tshark -r "$tmp/t.pcap" 2>/dev/null | wc -l)" = 2 ]
	# pcapng: an interface per namespace and device, named by both; the
	# TCP state comment on the packets of the TCP records' namespace only
	run -f pcapng --all-interfaces -o "$tmp/t.pcapng" "$tmp/corner/twons-0.bin"
	tshark -r "$tmp/t.pcapng" -T fields -e frame.interface_name \
		-e frame.interface_description -e frame.comment \
		>"$tmp/tshark.txt" 2>/dev/null
	check "twons pcapng: interfaces and comments as tshark reads them" \
		/usr/bin/python3 - "$tmp/tshark.txt" $A $B <<'PY'
import sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1])]
a, b = sys.argv[2], sys.argv[3]
want = ["ns%s:if3" % a, "ns%s:if3" % b, "ns%s:if3" % b]
ok = [r[0] for r in rows] == want
ok &= all(r[1].endswith("netns %s, ifindex 3" % r[0][2:-4]) for r in rows)
ok &= "magnet tcp_out" in rows[0][2]
ok &= not any("magnet tcp_" in r[2] for r in rows[1:])
if not ok:
    print(rows)
sys.exit(not ok)
PY
fi

# ---- the Wireshark plugin (wireshark/magnet.lua) ----
# Every magnet.* field of every packet tshark reads with the plugin, held
# to the magnet text of the same log (checkwireshark.py says how): the
# pcapng fixture in both versions and byte orders (IPv4, IPv6, UDP, gaps,
# a log without namespaces), make demo's 7.2 log (every layer, app
# calls, drops, the rate part), the drops, qdisc and TCP-event logs of
# 7.2 (with --events, each event a record of its namespace's events
# interface; the qdisc log's sojourns also against magnet-exp's queues
# table), two namespaces; and tshark without the plugin reads every
# file whole.
echo "== wireshark: the plugin against the magnet text"
if command -v tshark >/dev/null; then
	zcat demo-7.2.bin.gz >"$tmp/demo-7.2.bin"
	for f in "$tmp/pcap.bin" "$tmp/pcap-swapped.bin" "$tmp/pcap-v3.bin" \
		"$tmp/pcap-v3s.bin --events" "$tmp/demo-7.2.bin --drops" \
		"$tmp/demo-7.2.bin --events --queues" "drops-7.2.bin --drops" \
		"qdisc-7.2.bin --events --queues" "tcpev-7.2.bin --events" \
		"$tmp/corner/twons-0.bin"; do
		rm -rf "$tmp/ws"
		mkdir "$tmp/ws"
		# shellcheck disable=SC2086
		/usr/bin/python3 ./checkwireshark.py "$T" ../../wireshark/magnet.lua \
			${f%% *} "$tmp/ws" ${f#"${f%% *}"} >"$tmp/ws.log" 2>&1
		rc=$?
		tail -n 5 "$tmp/ws.log"
		check "wireshark plugin on ${f##*/}: every field as the magnet text (exit $rc)" \
			[ "$rc" = 0 ]
	done
else
	bad "tshark not installed (make deps installs it)"
fi

# ---- magnet-exp analyse (python/magnet_exp) ----
echo "== magnet-exp analyse"
mkdir "$tmp/exp"
./exp_fixture "$tmp/exp" || bad "exp_fixture failed"
/usr/bin/python3 ./test_exp.py "$tmp/exp" >"$tmp/test_exp.log" 2>&1
st=$?
fold "$tmp/test_exp.log" "test_exp" "$st"
# the per-record pass in C (userspace/magnet-pass) against analyse.py's
# on the same logs: every member it says it covers (the demo log by its
# name: test_pass also analyses it with the figures and with its hosts
# named); built with ASan and UBSan, and with ThreadSanitizer on the
# texts of several batches
mkdir "$tmp/pass"
zcat demo-7.2.bin.gz >"$tmp/pass/demo-7.2.bin"
TEST_PASS_TSAN=./magnet-pass-tsan /usr/bin/python3 ./test_pass.py "$T" ./magnet-pass-asan \
	"$tmp/pass/demo-7.2.bin" drops-7.2.bin qdisc-7.2.bin tcpev-7.2.bin \
	"$tmp"/exp/*.bin >"$tmp/test_pass.log" 2>&1
fold "$tmp/test_pass.log" "test_pass" $?
rm -rf "$tmp/pass"
# `magnet-exp ... | head`: a reader that has gone before the first line
# (the writer starts 0.5 s after `true` has exited) ends it quietly, with
# the status of a C tool killed by SIGPIPE (ttpb2ascii's), not a "Broken
# pipe" error (status 2)
{ sleep 0.5; exec ../../userspace/magnet-exp analyse --no-figures \
	-o "$tmp/exp-pipe" "$tmp/exp/clean.bin"; } 2>"$tmp/err" | true
rc=${PIPESTATUS[0]}
check "magnet-exp, its stdout's reader gone: status 141" [ "$rc" = 141 ]
check "magnet-exp, its stdout's reader gone: nothing on stderr" [ ! -s "$tmp/err" ]
# the interactive view of a real run (demo-7.2.bin.gz: make demo's log on
# 7.2) in Debian's Chromium, headless, no network (browser.py)
echo "== magnet-exp: the interactive view in a browser"
../../userspace/magnet-exp analyse -o "$tmp/view" demo-7.2.bin.gz >"$tmp/view.log" 2>&1
check "magnet-exp analyse of demo-7.2.bin.gz writes view.html" [ -s "$tmp/view/view.html" ]
/usr/bin/python3 ./browser.py "$tmp/view/view.html" "$tmp/view/view.png" >"$tmp/browser.log" 2>&1
st=$?
fold "$tmp/browser.log" "browser" "$st"
grep '^FAIL' "$tmp/browser.log" || :
# Monarch's self-diagnosis, on traces its test writes from a model
/usr/bin/python3 ./test_monarchdiag.py >"$tmp/test_monarchdiag.log" 2>&1
st=$?
fold "$tmp/test_monarchdiag.log" "test_monarchdiag" "$st"

# ---- magnet-summary: rows per flow, a listening socket's marked ----
echo "== magnet-summary"
printf '%s\n' \
	'i,1.0,0000:0000:0000:0000:0000:0000:0000:0000,5201,0000:0000:0000:0000:0000:0000:0000:0000,0,0,0,0,0,0,0,0,0,0,0,0' \
	'o,1.5,10.0.0.1,40000,10.0.0.2,5201,0,0,0,0,0,0,0,0,0,0,1448' \
	'o,2.5,10.0.0.1,40000,10.0.0.2,5201,0,0,0,0,0,0,0,0,0,0,1448' \
	'i,2.0,10.0.0.2,5201,10.0.0.1,40000,0,0,0,0,0,0,0,0,0,0,0' \
	'i,2.6,10.0.0.0,5202,10.0.0.0,0,0,0,0,0,0,0,0,0,0,0,0' >"$tmp/summ.log"
../../userspace/magnet-summary "$tmp/summ.log" >"$tmp/summ.out" 2>&1
rc=$?
check "magnet-summary: exit 0" [ "$rc" = 0 ]
check "magnet-summary: the listener's row marked (the IPv6 any address, port 0)" \
	grep -q '^0000:0000:0000:0000:0000:0000:0000:0000,5201,0000:0000:0000:0000:0000:0000:0000:0000,0 .*  (listening socket)$' "$tmp/summ.out"
check "magnet-summary: a connection's row: 2 o lines, 2896 bytes, 1 s, not marked" \
	grep -Eq '^10\.0\.0\.1,40000,10\.0\.0\.2,5201 +2 +0 +2896 +1\.000$' "$tmp/summ.out"
check "magnet-summary: a remote 10.0.0.0 port 0 is not the any address" \
	grep -Eq '^10\.0\.0\.0,5202,10\.0\.0\.0,0 +0 +1 +0 +0\.000$' "$tmp/summ.out"
check "magnet-summary: totals" grep -qx '5 lines, 3 connections, 1 listening sockets' "$tmp/summ.out"

# ---- magnet-monarch-proxy's command line (no socket opened before it) ----
echo "== magnet-monarch-proxy: command line"
PX=../../userspace/magnet-monarch-proxy
# one line on stderr: "magnet-monarch-proxy: -OPT ..."
px_err() {
	[ "$(wc -l <"$tmp/err")" = 1 ] && grep -q "^magnet-monarch-proxy: -$1 " "$tmp/err"
}
for args in "-q -1" "-q 65536" "-q +5" "-q ''" "-P 0" "-P 65536" "-P 0x50" \
	"-H 0" "-H 600001" "-H 5s" "-r 10.0.0" "-p syn"; do
	# (timeout: an option taken by mistake would start the proxy)
	eval "timeout 5 $PX $args -r 10.0.0.1" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	check "proxy '$args': exit 2" [ "$rc" = 2 ]
	check "proxy '$args': one line naming the option" px_err "${args:1:1}"
done
"$PX" -h >"$tmp/out" 2>&1
rc=$?
check "proxy -h exits 0" [ "$rc" = 0 ]
for w in -q -P -H; do
	check "proxy -h names $w" grep -q -- "$w" "$tmp/out"
done

# ---- magnet-exp as a Python package (python/pyproject.toml) ----
# pip builds it in a fresh venv from a copy, so the tree stays clean, with
# Debian's setuptools and wheel (make deps) and no network: no build
# isolation, its dependencies (matplotlib, asyncssh) Debian's too; the
# console entry point runs, and the version is magnet's
echo "== magnet-exp: pip install of python/"
cp -r ../../python "$tmp/pypkg"
if /usr/bin/python3 -m venv --system-site-packages "$tmp/venv" > "$tmp/venv.log" 2>&1 &&
	"$tmp/venv/bin/pip" install -q --no-index --no-build-isolation \
		"$tmp/pypkg" >> "$tmp/venv.log" 2>&1; then
	check "the entry point magnet-exp runs (--help)" \
		sh -c '"$1/venv/bin/magnet-exp" run --help | grep -q "^the spec (TOML)"' - "$tmp"
	check "the package's version is magnet's" \
		sh -c '[ "$("$1/venv/bin/python" -c "import importlib.metadata as m; print(m.version(\"magnet-exp\"))")" = "$(../../scripts/version.sh)" ]' - "$tmp"
else
	bad "pip install of python/ failed: $(tail -n 3 "$tmp/venv.log")"
fi

# ---- robustness: random mutations ----
echo "== ttpb2ascii: $((FUZZ_RUNS + 2 * (FUZZ_RUNS / 5))) mutated inputs"
mkdir "$tmp/mut" "$tmp/mutgz"
$FIX mutate "$tmp/native.bin" "$tmp/mut" $((FUZZ_RUNS * 4 / 5)) 1
$FIX mutate "$tmp/native.bin.gz" "$tmp/mutgz" $((FUZZ_RUNS / 5)) 2
mkdir "$tmp/mutp" "$tmp/mutv3"
$FIX mutate "$tmp/pcap.bin" "$tmp/mutp" $((FUZZ_RUNS / 5)) 3
$FIX mutate "$tmp/pcap-v3.bin" "$tmp/mutv3" $((FUZZ_RUNS / 5)) 4
formats=(ttprobe magnet web10g legacy pcapng pcap-ns)
n=0 bad_rc=0 bad_err=0 san=0
declare -A seen=()
for f in "$tmp"/mut/*.bin "$tmp"/mutgz/*.bin "$tmp"/mutp/*.bin "$tmp"/mutv3/*.bin; do
	run -f "${formats[n % 6]}" "$f"
	n=$((n + 1))
	seen[$rc]=$((${seen[$rc]:-0} + 1))
	case $rc in
	0 | 2 | 3) ;;
	# a file refuses a second interface (a usage error): classic pcap
	# always, pcapng unless --all-interfaces
	1) grep -q -E 'a pcap file holds one interface|on another interface for a retransmission' "$tmp/err" ||
		bad_rc=$((bad_rc + 1)) ;;
	*)
		bad_rc=$((bad_rc + 1))
		echo "  $f (-f ${formats[(n - 1) % 6]}): exit $rc"
		head -n 20 "$tmp/err"
		;;
	esac
	no_sanitizer || san=$((san + 1))
	if [ "$rc" != 0 ] && ! grep -q '^ttpb2ascii: ' "$tmp/err"; then
		bad_err=$((bad_err + 1))
	fi
done
dist=""
for k in "${!seen[@]}"; do dist="$dist exit $k: ${seen[$k]};"; done
echo "  $n runs:$dist"
check "fuzz: $n runs" [ "$n" = $((FUZZ_RUNS + 2 * (FUZZ_RUNS / 5))) ]
check "fuzz: every exit code is 0, 2 or 3 (or 1: a file's one interface)" [ "$bad_rc" = 0 ]
check "fuzz: no sanitizer report" [ "$san" = 0 ]
check "fuzz: every failure explained on stderr" [ "$bad_err" = 0 ]
check "fuzz: the mutations reach both success and rejection" \
	[ "${seen[0]:-0}" -gt 0 -a "${seen[2]:-0}" -gt 0 ]
# docdecode.py on the mutated logs that are not gzip (what comes out of a
# damaged gzip stream before the error is the decompressor's): the same
# magnet text and exit code as ttpb2ascii -f magnet
n=0 ndiff=0
for f in "$tmp"/mut/*.bin "$tmp"/mutp/*.bin "$tmp"/mutv3/*.bin; do
	run -f magnet "$f"
	/usr/bin/python3 ./docdecode.py "$f" >"$tmp/doc.out" 2>"$tmp/doc.err"
	drc=$?
	n=$((n + 1))
	if [ "$drc" != "$rc" ] || ! cmp -s "$tmp/doc.out" "$tmp/out"; then
		ndiff=$((ndiff + 1))
		echo "  docdecode.py $f: exit $drc, ttpb2ascii -f magnet $rc"
	fi
done
echo "  docdecode.py: $n mutated logs, $ndiff differ"
check "docdecode.py: $n mutated logs, every one as ttpb2ascii -f magnet" \
	[ "$n" -gt 0 -a "$ndiff" = 0 ]

# the documents cite only files and functions the repository has
# (doccites.py: every backquoted path exists, every function named after
# a source file is in it)
check "docs cite only what the repository has" /usr/bin/python3 ./doccites.py ../..

echo "unit: $pass passed, $fail failed"
[ "$fail" = 0 ]
