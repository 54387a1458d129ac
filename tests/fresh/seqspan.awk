# seqspan.awk: per TCP flow in a ttprobe ASCII log (the demo's), what its
# 'o' lines say of the data it sent, from its SYN on:
#
#   laddr,lport,raddr,rport BYTES SPAN GAPS [FIRST-GAP]
#
# BYTES: field 17 summed over the 'o' lines; SPAN: the sequence space the
# lines cover, from the SYN's snd_nxt + 1 to the highest end (snd_nxt +
# length); GAPS: lines that start beyond that end (a segment TCP sent that
# has no line: TCP sends every byte in order, a retransmission starts
# below it). A flow whose first 'o' line is not its SYN gets SPAN -1.
# Usage: awk -F, -v port=5201 -f seqspan.awk LOG
function fwd(a, b) {	# b - a in sequence space, -2^31 .. 2^31 - 1
	d = (b - a) % 4294967296
	if (d < 0) d += 4294967296
	return d >= 2147483648 ? d - 4294967296 : d
}
$1 == "o" && $6 == port {
	k = $3 "," $4 "," $5 "," $6
	if (!(k in isn)) {
		order[n++] = k
		isn[k] = $14 == 2 ? $16 : -1
		end[k] = ($16 + 1) % 4294967296
	}
	bytes[k] += $17
	if ($17 == 0 || isn[k] < 0)
		next
	if (fwd(end[k], $16) > 0) {
		gaps[k]++
		if (!(k in first))
			first[k] = sprintf("line %d: snd_nxt %s, the data so far ended at %.0f", NR, $16, end[k])
	}
	e = ($16 + $17) % 4294967296
	if (fwd(end[k], e) > 0)
		end[k] = e
}
END {
	for (i = 0; i < n; i++) {
		k = order[i]
		span = isn[k] < 0 ? -1 : fwd(isn[k], end[k]) - 1
		printf "%s %d %d %d%s\n", k, bytes[k], span, gaps[k] + 0, k in first ? " " first[k] : ""
	}
}
