-- SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
--
-- magnet.lua: the kernel's state that `ttpb2ascii -f pcapng` writes into
-- each packet's comments, as typed Wireshark fields (magnet.*), so that
-- `tshark -Y 'magnet.cwnd > 50'`, columns and the IO graph
-- (`AVG(magnet.srtt_us)`) use them. A postdissector: it reads the
-- packet's comments (frame.comment) and the interface's name
-- (frame.interface_name), nothing else, and adds nothing to a packet
-- without them. docs/wireshark.md says what each field holds; the
-- comments' form is userspace/pcapw.c's (state_comment, gap_comment and
-- the drop comment): "NAME VALUE" pairs named as the magnet text's columns.
--
-- Installed by `make install` into Wireshark's global plugin folder
-- (Makefile: WIRESHARK_PLUGIN_DIR); for one user, copy it to
-- ~/.local/lib/wireshark/plugins/. Tried with Wireshark 4.0 (Debian 12).

local magnet = Proto("magnet", "magnet: the kernel's state")

local STATES = {
    [1] = "ESTABLISHED", [2] = "SYN_SENT", [3] = "SYN_RECV",
    [4] = "FIN_WAIT1", [5] = "FIN_WAIT2", [6] = "TIME_WAIT", [7] = "CLOSE",
    [8] = "CLOSE_WAIT", [9] = "LAST_ACK", [10] = "LISTEN", [11] = "CLOSING",
    [12] = "NEW_SYN_RECV",
}
local CA_STATES = {
    [0] = "Open", [1] = "Disorder", [2] = "CWR", [3] = "Recovery",
    [4] = "Loss",
}

-- name -> number, for the comment's words
local function inverse(t)
    local r = {}
    for k, v in pairs(t) do r[v] = k end
    return r
end
local STATE_NUM, CA_STATE_NUM = inverse(STATES), inverse(CA_STATES)

local F = {}
local order = {}

local function field(name, kind, label, desc, extra)
    local abbr = "magnet." .. name
    local f
    if kind == "u32" then
        f = ProtoField.uint32(abbr, label, base.DEC, extra, nil, desc)
    elseif kind == "u64" then
        f = ProtoField.uint64(abbr, label, base.DEC, nil, nil, desc)
    elseif kind == "i64" then
        f = ProtoField.int64(abbr, label, base.DEC, nil, nil, desc)
    elseif kind == "u8" then
        f = ProtoField.uint8(abbr, label, base.DEC, extra, nil, desc)
    else
        f = ProtoField.string(abbr, label, base.ASCII, desc)
    end
    F[name] = { f = f, kind = kind }
    order[#order + 1] = name
end

-- where the packet was seen
field("layer", "str", "Layer", "ip or dev: the interface's layer")
field("netns", "u32", "Network namespace", "the namespace's inode number")
field("ifindex", "u32", "Interface index", "the device's ifindex in its namespace")
-- the TCP state of the packet's socket, as of its latest TCP-layer record
field("event", "str", "Event",
      "on an events interface, the event; on a packet, the TCP-layer record its state is from (tcp_out, tcp_in, app_send, ...)")
field("age_ns", "i64", "State age (ns)", "how long before the packet that record was")
field("state", "u8", "TCP state", "sk_state", STATES)
field("ca_state", "u8", "Congestion state", "icsk_ca_state", CA_STATES)
field("ca_name", "str", "Congestion control", "the congestion control's name")
for _, n in ipairs({ "cwnd", "ssthresh" }) do
    field(n, "u32", n, "packets")
end
field("srtt_us", "u32", "srtt (us)", "the smoothed RTT, microseconds")
field("rttvar_us", "u32", "rttvar (us)", "the RTT's mean deviation, microseconds")
field("rto_us", "u32", "RTO (us)", "the retransmission timeout, microseconds")
field("mss", "u32", "mss", "bytes")
for _, n in ipairs({ "snd_una", "snd_nxt", "snd_wnd", "rcv_wnd",
                     "packets_out", "retrans_out", "total_retrans",
                     "write_seq", "copied_seq", "rcv_nxt", "segs_out",
                     "data_segs_out", "segs_in", "data_segs_in" }) do
    field(n, "u32", n, "as the magnet text's column " .. n)
end
for _, n in ipairs({ "bytes_sent", "bytes_received", "bytes_acked",
                     "bytes_retrans" }) do
    field(n, "u64", n, "bytes")
end
field("min_rtt_us", "u32", "min RTT (us)", "microseconds")
field("rtt_us", "u32", "last RTT sample (us)", "microseconds")
field("advmss", "u32", "advmss", "bytes")
field("snd_wscale", "u32", "snd_wscale", "the peer's window scale")
field("rcv_wscale", "u32", "rcv_wscale", "this end's window scale")
field("opts", "u32", "opts", "magnet's option bits (docs/binary-format.md)")
field("pacing_rate", "u64", "Pacing rate (bytes/s)", "sk_pacing_rate; 18446744073709551615: unlimited")
field("delivery_rate", "u64", "Delivery rate (bytes/s)", "tcp_info's tcpi_delivery_rate")
for _, n in ipairs({ "delivered", "delivered_ce", "lost_out", "sacked_out" }) do
    field(n, "u32", n, "packets")
end
field("app_limited", "u32", "app_limited", "the last rate sample was application-limited")
field("cwnd_bytes", "u64", "cwnd in bytes (derived)",
      "cwnd * mss: to compare with Wireshark's tcp.analysis.bytes_in_flight")
field("in_flight", "u32", "Packets in flight (derived)",
      "packets_out - sacked_out - lost_out + retrans_out, as the kernel's tcp_packets_in_flight(); only where the record has the rate part")
field("bbr_bw", "u64", "BBR bandwidth (bytes/s)", "BBR's bandwidth estimate")
field("bbr_min_rtt", "u32", "BBR min RTT (us)", "BBR's min RTT, microseconds")
field("bbr_pacing_gain", "u32", "BBR pacing gain", "<< 8")
field("bbr_cwnd_gain", "u32", "BBR cwnd gain", "<< 8")
field("chrono", "str", "Limited by (now)",
      "the running chronograph: none, busy, rwnd or sndbuf")
field("chrono_us", "u64", "In it for (us)", "microseconds")
field("busy_us", "u64", "Busy (us)", "tcpi_busy_time")
field("rwnd_limited_us", "u64", "Receiver-window-limited (us)", "tcpi_rwnd_limited")
field("sndbuf_limited_us", "u64", "Send-buffer-limited (us)", "tcpi_sndbuf_limited")
field("reordering", "u32", "reordering", "tp->reordering")
field("reord_seen", "u32", "reord_seen", "tp->reord_seen")
field("dsack_dups", "u32", "dsack_dups", "tp->dsack_dups")
field("pid", "u32", "Process id", "of the socket's last application call recorded")
field("comm", "str", "Command", "of the socket's last application call recorded")
-- a packet the kernel dropped (ttpb2ascii --drops)
field("drop_reason", "str", "Drop reason", "the kernel's drop reason")
field("drop_where", "str", "Dropped in", "the function that freed the packet")
-- an event that is no packet on the wire (ttpb2ascii --events), on its
-- namespace's events interface: its own columns of the magnet text
for _, n in ipairs({ "cpu", "family", "lport", "rport", "len", "seq",
                     "end_seq", "mark", "timeouts", "ip_id", "ip_tos",
                     "ip_ttl", "ip_proto", "qdisc_qlen", "qdisc_backlog",
                     "rcvbuf", "rcvbuf_before", "window_clamp",
                     "window_clamp_before", "rcv_ssthresh", "rcv_space",
                     "rcv_rtt_us", "total_rto", "total_rto_recoveries",
                     "total_rto_time", "rto_recovery_ms" }) do
    field(n, "u32", n, "the event's, as the magnet text's column " .. n)
end
for _, n in ipairs({ "sock", "laddr", "raddr", "prev_state", "kind",
                     "qdisc", "qdisc_handle" }) do
    field(n, "str", n, "the event's, as the magnet text's column " .. n)
end
-- a qdisc event's wait in the qdisc: from the qdisc_enq event of the
-- same packet on the same interface (the first one not yet matched)
field("qdisc_sojourn_ns", "u64", "Sojourn in the qdisc (ns)",
      "derived: this qdisc event's time minus that of the earliest unmatched qdisc_enq event of the same packet (connection, sequence range, IP id) and device on this interface")
-- records missing before this packet
field("gap_lost", "u64", "Records lost before", "records the rings had no room for")
field("gap_misses", "u64", "Probe misses before", "probe handlers that could not run")
field("gap_reset", "u64", "Records discarded before", "by reset")
field("gap_cpus", "str", "Lost on CPUs", "the CPUs whose records were lost")

local list = {}
for _, n in ipairs(order) do list[#list + 1] = F[n].f end
magnet.fields = list

local f_comment = Field.new("frame.comment")
local f_time = Field.new("frame.time")
local f_ifname = Field.new("frame.interface_name")

-- a decimal string as a UInt64 (Lua's numbers hold 53 bits exactly)
local function u64(s)
    local v = UInt64(0)
    for i = 1, #s do
        v = v * 10 + (s:byte(i) - 48)
    end
    return v
end

local function value(name, s)
    local k = F[name].kind
    if k == "str" then return s end
    if not s:match("^%-?%d+$") then return nil end
    if k == "u64" then return u64(s) end
    if k == "i64" then
        if s:sub(1, 1) == "-" then return Int64(0) - Int64(u64(s:sub(2))) end
        return Int64(u64(s))
    end
    return tonumber(s)
end

local function add(tree, name, s)
    local v = value(name, s)
    if v ~= nil then tree:add(F[name].f, v):set_generated() end
end

-- "NAME VALUE NAME VALUE ..." into @tree, the names magnet's fields
local function pairs_of(tree, words, got)
    local i = 1
    while i < #words do
        local n, v = words[i], words[i + 1]
        if n == "ca" then n = "ca_name" end
        if n == "state" and STATE_NUM[v] then v = tostring(STATE_NUM[v]) end
        if n == "ca_state" and CA_STATE_NUM[v] then v = tostring(CA_STATE_NUM[v]) end
        if F[n] then
            add(tree, n, v)
            got[n] = tonumber(v)
        end
        i = i + 2
    end
end

local function words_of(s)
    local w = {}
    for x in s:gmatch("%S+") do w[#w + 1] = x end
    return w
end

-- sojourns: the enqueues not yet matched, per packet ("interface
-- packet" -> FIFO of NSTime), on the first pass; each dequeue's sojourn
-- by frame number, for the passes after (Wireshark's window)
local enqueued, sojourn = {}, {}
function magnet.init()
    enqueued, sojourn = {}, {}
end

local SOJOURN_KEY = { "ifindex", "laddr", "lport", "raddr", "rport", "seq",
                      "end_seq", "ip_id" }

local function qdisc_sojourn(t, pinfo, iface, kind, words)
    if kind ~= "qdisc_enq" and kind ~= "qdisc" then return end
    if not pinfo.visited then
        local cols = {}
        for i = 1, #words - 1, 2 do cols[words[i]] = words[i + 1] end
        local k = { iface }
        for _, n in ipairs(SOJOURN_KEY) do k[#k + 1] = cols[n] or "" end
        k = table.concat(k, " ")
        local now = f_time().value
        local q = enqueued[k]
        if kind == "qdisc_enq" then
            if not q then q = {}; enqueued[k] = q end
            q[#q + 1] = now
        elseif q and #q > 0 then
            local t0 = table.remove(q, 1)
            if #q == 0 then enqueued[k] = nil end
            sojourn[pinfo.number] = (now.secs - t0.secs) * 1000000000 +
                (now.nsecs - t0.nsecs)
        end
    end
    local v = sojourn[pinfo.number]
    if v then t:add(F.qdisc_sojourn_ns.f, UInt64(v)):set_generated() end
end

function magnet.dissector(tvb, pinfo, root)
    local comments = { f_comment() }
    -- the interface's name: "nsN:ip", "nsN:ifI", "nsN:events" (or
    -- without "nsN:" in a log without namespaces)
    local ifn = f_ifname()
    local name = ifn and tostring(ifn.value) or ""
    local tree
    local function sub()
        if not tree then tree = root:add(magnet) end
        return tree
    end
    for _, c in ipairs(comments) do
        local s = tostring(c.value)
        local ev, age, rest = s:match("^magnet (%S+) (%-?%d+) ns before: (.*)$")
        if ev then
            local t = sub()
            add(t, "event", ev)
            add(t, "age_ns", age)
            local got = {}
            pairs_of(t, words_of(rest), got)
            if got.cwnd and got.mss then
                t:add(F.cwnd_bytes.f, UInt64(got.cwnd) * got.mss):set_generated()
            end
            if got.packets_out and got.sacked_out and got.lost_out and got.retrans_out then
                local f = got.packets_out - got.sacked_out - got.lost_out + got.retrans_out
                if f >= 0 then t:add(F.in_flight.f, f):set_generated() end
            end
        end
        local kind_of, cols = s:match("^magnet event (%S+):(.*)$")
        if kind_of then
            local t = sub()
            add(t, "event", kind_of)
            local w = words_of(cols)
            pairs_of(t, w, {})
            qdisc_sojourn(t, pinfo, name, kind_of, w)
        end
        local reason, where = s:match("^magnet drop: (%S+) in (%S*)$")
        if reason then
            local t = sub()
            add(t, "drop_reason", reason)
            add(t, "drop_where", where)
        end
        local lost, cpus, misses, reset = s:match(
            "^magnet gap [^:]*: (%d+) records lost %(CPU ([^)]*)%), (%d+) probe misses, (%d+) records discarded by reset")
        if lost then
            local t = sub()
            add(t, "gap_lost", lost)
            add(t, "gap_cpus", cpus)
            add(t, "gap_misses", misses)
            add(t, "gap_reset", reset)
        end
    end
    -- the place, from the interface's name (without "nsN:": only beside
    -- a magnet comment)
    if name:match("^ns%d+:") then sub() end
    if tree then
        local ns, rest = name:match("^ns(%d+):(.*)$")
        if ns then add(tree, "netns", ns) else rest = name end
        do
            if rest == "ip" then
                add(tree, "layer", "ip")
            elseif rest == "events" then
                add(tree, "layer", "events")
            else
                local ix = rest:match("^if(%d+)$")
                if ix then
                    add(tree, "layer", "dev")
                    add(tree, "ifindex", ix)
                end
            end
        end
    end
end

register_postdissector(magnet)

-- the records of an events interface: Wireshark's exported PDUs for the
-- dissector "magnet_event", which has nothing to read (the fields are in
-- the comment, above)
local magnet_event = Proto("magnet_event", "magnet event (no packet on the wire)")
function magnet_event.dissector(tvb, pinfo, tree)
    pinfo.cols.protocol = "magnet"
    local c = f_comment()
    local ev = c and tostring(c.value):match("^magnet event (%S+):")
    pinfo.cols.info = "magnet event " .. (ev or "?")
    tree:add(magnet_event, tvb())
    return tvb:len()
end
