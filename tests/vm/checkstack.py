#!/usr/bin/python3
"""Assertions on magnet's binary stream (omode=1), run inside the test guests.

The stream is parsed here with Python's struct module, independently of
ttpb2ascii, with the layout of module/uapi/schema.h (schema.py).

  checkstack.py stack BIN JSON PID WSIZE    full-stack consistency of the
        iperf3 data flow in JSON, whose client (pid PID) wrote WSIZE-byte
        blocks: application events, TCP bytes, every TCP-out segment's IP-out
        and device-out events, every TCP-in segment's device-in and IP-in
        events, application receive bytes
  checkstack.py lost BIN DMESG              per CPU: events in the stream plus
        the LOST counts equal the hits the module logged on unload; LOST
        records are present, one written where recording resumed
  checkstack.py noaddr PTRS RANGES FILE...  no kernel socket address listed in
        PTRS (hex, one per line) appears in any FILE, as text or as a u64;
        nor any value inside a range of RANGES ("LO HI NAME" lines, hex):
        16-hex-digit and 20-digit decimal words in text, u64s at every
        8-byte-aligned offset in binary (where the record's u64s are;
        unaligned, a negative number next to other bytes looks like one)
  checkstack.py count BIN                   print "event count" per type
"""
import collections
import ipaddress
import json
import os
import re
import struct
import sys

import schema
from magnetlog import Bad, v2_records

SYSINFO = schema.PARTS["sysinfo"]
RECORD = schema.V2
assert SYSINFO.size == 256 and RECORD.size == 256

EV = {1: "tcp_out", 2: "tcp_in", 3: "app_send", 4: "app_recv", 5: "ip_out",
      6: "ip_in", 7: "dev_out", 8: "dev_in", 9: "lost", 10: "reset"}


def fail(msg):
    print("checkstack: FAIL: " + msg)
    sys.exit(1)


def addr(family, raw):
    if family == 4:
        return str(ipaddress.ip_address(raw[:4]))
    return str(ipaddress.ip_address(raw))


def parse(path):
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < SYSINFO.size:
        fail("%s: %d bytes, shorter than SYSINFO" % (path, len(data)))
    s = SYSINFO.unpack(data, 0)

    def text(b):
        return b.split(b"\0")[0].decode()
    si = dict(magic=s["magic"], version=s["version"],
              record_size=s["record_size"], sysinfo_size=s["sysinfo_size"],
              ncpus=s["ncpus"], offset=s["realtime_offset_ns"],
              start=s["start_ns"], release=text(s["release"]),
              port=s["port"], full=s["full"], bufsize=s["bufsize"],
              omode=s["omode"], direction=s["direction"], fwmark=s["fwmark"],
              events=s["events"], procname=text(s["procname"]))
    if si["magic"] != 0x01234567:
        fail("bad magic %#x" % si["magic"])
    if (si["version"], si["record_size"], si["sysinfo_size"]) not in \
            ((2, 256, 256), (3, 0, 256)):
        fail("unexpected version/sizes %r" % ((si["version"], si["record_size"],
                                                si["sysinfo_size"]),))
    # "Growing the format": the module's version 3 header names the
    # additions it may use (MAGNET_V3_FEAT_*), a version 2 header none
    want = 0xfff if si["version"] == 3 else 0
    if s["features"] != want:
        fail("header features %#x, want %#x" % (s["features"], want))
    # version 3 as the version 2 records it stands for (magnetlog.py)
    try:
        _, body = v2_records(data)
    except Bad as e:
        fail("%s: %s" % (path, e))
    recs = []
    for i, raw in enumerate(body):
        off = i * RECORD.size
        # every field by its name, the snapshot's (not the packet
        # header's) in the union
        r = RECORD.unpack(raw)
        fam = r["family"]
        r.update(ts=r.pop("ts_ns"), sock=r.pop("sock_id"),
                 event=EV.get(r["event"]), raw_event=r["event"],
                 laddr=addr(fam, r["laddr"]) if fam in (4, 6) else None,
                 raddr=addr(fam, r["raddr"]) if fam in (4, 6) else None,
                 comm=r["comm"].split(b"\0")[0].decode(errors="replace"),
                 ca_name=r["ca_name"].split(b"\0")[0].decode())
        if r["event"] is None:
            fail("record %d: unknown event %d" % (off // RECORD.size, r["raw_event"]))
        recs.append(r)
    return si, recs


def key(r):
    return (r["laddr"], r["lport"], r["raddr"], r["rport"])


def iperf_keys(json_path):
    with open(json_path) as f:
        j = json.load(f)
    c = j["start"]["connected"][0]

    def norm(a):
        a = ipaddress.ip_address(a)
        if a.version == 6 and a.ipv4_mapped:
            a = a.ipv4_mapped
        return str(a)
    cli = (norm(c["local_host"]), c["local_port"],
           norm(c["remote_host"]), c["remote_port"])
    srv = (cli[2], cli[3], cli[0], cli[1])
    return cli, srv, j


def match_chain(first, later, label, after=True):
    """Pair each event of `first` with an unused event of `later` with the
    same sequence range, later in time (after=True) or earlier. Returns the
    number paired; fails on the first event without a partner."""
    pool = collections.defaultdict(list)
    for r in later:
        pool[(r["seq"], r["end_seq"])].append(r)
    for lst in pool.values():
        lst.sort(key=lambda r: r["ts"])
    used = set()
    pairs = []
    for r in sorted(first, key=lambda r: r["ts"]):
        cands = pool.get((r["seq"], r["end_seq"]), [])
        pick = None
        for c in (cands if after else reversed(cands)):
            if id(c) in used:
                continue
            if (after and c["ts"] >= r["ts"]) or (not after and c["ts"] <= r["ts"]):
                pick = c
                break
        if pick is None:
            fail("%s: %s seq %d-%d at %d has no partner"
                 % (label, r["event"], r["seq"], r["end_seq"], r["ts"]))
        used.add(id(pick))
        pairs.append((r, pick))
    return pairs


def cmd_stack(path, json_path, pid, wsize):
    pid, wsize = int(pid), int(wsize)
    si, recs = parse(path)
    if si["release"] != os.uname().release:
        fail("SYSINFO release %r, kernel is %r" % (si["release"], os.uname().release))
    if si["events"] != 0xf or si["omode"] != 1:
        fail("SYSINFO events %#x omode %d" % (si["events"], si["omode"]))
    cli, srv, j = iperf_keys(json_path)
    sent = j["end"]["sum_sent"]["bytes"]
    received = j["end"]["sum_received"]["bytes"]
    retrans = j["end"]["sum_sent"].get("retransmits", 0)
    by = collections.defaultdict(list)
    for r in recs:
        if r["event"] in ("tcp_out", "app_send", "ip_out", "dev_out"):
            if key(r) == cli:
                by[r["event"]].append(r)
        elif r["event"] != "lost" and key(r) == srv:
            by[r["event"]].append(r)
    for ev in ("app_send", "tcp_out", "ip_out", "dev_out",
               "dev_in", "ip_in", "tcp_in", "app_recv"):
        if not by[ev]:
            fail("no %s events for the data flow %r" % (ev, cli))
    # stream timestamps never go backwards per CPU
    last = {}
    for r in recs:
        if r["ts"] < last.get(r["cpu"], 0):
            fail("cpu %d: timestamp goes back" % r["cpu"])
        last[r["cpu"]] = r["ts"]

    # application send: the client's writes, with sizes, pid and command.
    # After the 37-byte cookie, iperf3 writes WSIZE-byte blocks; a partial
    # write (or EAGAIN) is followed by a write of the remainder.
    sends = sorted(by["app_send"], key=lambda r: r["ts"])
    for r in sends:
        if r["pid"] != pid or r["comm"] != "iperf3":
            fail("app_send by pid %d %r, expected %d iperf3" % (r["pid"], r["comm"], pid))
        if r["ret"] > 0 and (r["end_seq"] - r["seq"]) % (1 << 32) != r["ret"]:
            fail("app_send of %d bytes advanced write_seq by %d"
                 % (r["ret"], r["end_seq"] - r["seq"]))
    if sends[0]["req"] != 37 or sends[0]["ret"] != 37:
        fail("first app_send is %d/%d bytes, not the 37-byte cookie"
             % (sends[0]["req"], sends[0]["ret"]))
    blocks = partial = 0
    remaining = wsize
    for r in sends[1:]:
        if r["req"] != remaining:
            fail("app_send asked for %d bytes, %d were left of the %d-byte block"
                 % (r["req"], remaining, wsize))
        done = max(r["ret"], 0)
        if r["ret"] < 0 and r["ret"] != -11:
            fail("app_send returned error %d" % r["ret"])
        if done < r["req"]:
            partial += 1
        remaining -= done
        if remaining == 0:
            blocks += 1
            remaining = wsize
    wrote = sum(r["ret"] for r in sends if r["ret"] > 0)
    if wrote != sent + 37:
        fail("app_send returned %d bytes in all, iperf3 sent %d + 37" % (wrote, sent))
    if blocks != sent // wsize or remaining != wsize:
        fail("%d complete %d-byte blocks (%d left over), iperf3 sent %d bytes"
             % (blocks, wsize, wsize - remaining, sent))
    print("app_send ok: %d calls by pid %d (iperf3): the cookie, %d blocks of %d bytes "
          "(%d partial writes), %d bytes in all" % (len(sends), pid, blocks, wsize, partial, wrote))

    # TCP out bytes account for the transfer
    tcp_bytes = sum(r["len"] for r in by["tcp_out"])
    if not received <= tcp_bytes <= sent + 37 + retrans * 65536:
        fail("tcp_out lengths %d; iperf3 sent %d, received %d" % (tcp_bytes, sent, received))
    print("tcp_out ok: %d segments, %d bytes (iperf3 sent %d, received %d)"
          % (len(by["tcp_out"]), tcp_bytes, sent, received))

    # every TCP-out segment goes through IP-out and device-out, in order
    ip = match_chain(by["tcp_out"], by["ip_out"], "tcp_out->ip_out")
    dev = match_chain([p for _, p in ip], by["dev_out"], "ip_out->dev_out")
    # each ip_out's own dev_out (match_chain orders its pairs by the first
    # event's time, which for ip_out need not be tcp_out's order)
    dev_of = {id(i): d for i, d in dev}
    for t, i in ip:
        d = dev_of[id(i)]
        if not t["ts"] <= i["ts"] <= d["ts"]:
            fail("out path timestamps out of order at seq %d-%d: tcp_out %d, "
                 "ip_out %d, dev_out %d" % (t["seq"], t["end_seq"], t["ts"],
                                            i["ts"], d["ts"]))
        if i["sock"] != t["sock"]:
            fail("ip_out socket id differs from tcp_out's")
    # and the other way: every ip_out and dev_out that carries data is one
    # tcp_out's (one skb through the three probes); only a segment with no
    # data (a reset the stack sends without the socket) may have no tcp_out
    for label, got, recs in (("ip_out", {id(i) for _, i in ip}, by["ip_out"]),
                             ("dev_out", {id(d) for d in dev_of.values()},
                              by["dev_out"])):
        extra = [r for r in recs if id(r) not in got and r["end_seq"] != r["seq"]]
        if extra:
            fail("%d %s records with data and no tcp_out, the first seq %d-%d "
                 "at %d" % (len(extra), label, extra[0]["seq"],
                            extra[0]["end_seq"], extra[0]["ts"]))
    print("out path ok: %d tcp_out segments each with ip_out and dev_out, same seq range;"
          " no ip_out or dev_out with data besides them" % len(ip))

    # every TCP-in segment came through device-in and IP-in
    ipin = match_chain(by["tcp_in"], by["ip_in"], "tcp_in<-ip_in", after=False)
    devin = match_chain([p for _, p in ipin], by["dev_in"], "ip_in<-dev_in", after=False)
    print("in path ok: %d tcp_in segments each with dev_in and ip_in before, same seq range"
          % len(devin))
    payload = sum((r["end_seq"] - r["seq"]) % (1 << 32) for r in by["ip_in"])
    if payload < received:
        fail("ip_in payload %d < bytes received %d" % (payload, received))

    # application receive: the server read what iperf3 says it received
    got = sum(r["ret"] for r in by["app_recv"] if r["ret"] > 0)
    if got != received + 37:
        fail("app_recv returned %d bytes, iperf3 received %d + 37" % (got, received))
    for r in by["app_recv"]:
        if r["ret"] > 0 and (r["end_seq"] - r["seq"]) % (1 << 32) != r["ret"]:
            fail("app_recv of %d bytes advanced copied_seq by %d"
                 % (r["ret"], r["end_seq"] - r["seq"]))
        if r["comm"] != "iperf3":
            fail("app_recv by %r" % r["comm"])
    print("app_recv ok: %d calls, %d bytes (iperf3 received %d + 37)"
          % (len(by["app_recv"]), got, received))

    # TCP state rides along on TCP and application events
    for r in by["tcp_out"] + by["app_send"]:
        if not r["flags"] & 0x01 or r["mss"] == 0 or r["ca_name"] == "":
            fail("%s without TCP state" % r["event"])
    for r in by["ip_out"] + by["ip_in"]:
        if r["ip_proto"] != 6 or r["ip_ttl"] == 0:
            fail("%s without IP fields" % r["event"])
    for r in by["dev_out"] + by["dev_in"]:
        if r["ifindex"] == 0:
            fail("%s without ifindex" % r["event"])
    print("fields ok: TCP state, IP ttl/proto and ifindex present")


def cmd_lost(path, dmesg):
    _, recs = parse(path)
    stats = {}
    for line in open(dmesg, errors="replace"):
        # the counters of the last load only
        if re.search(r"magnet: magnet \S+ loaded:", line):
            stats = {}
        m = re.search(r"magnet: unload: cpu (\d+): (\d+) hits, (\d+) written, (\d+) lost", line)
        if m:
            stats[int(m.group(1))] = tuple(int(x) for x in m.group(2, 3, 4))
    if not stats:
        fail("no per-CPU unload statistics in the kernel log")
    events = collections.Counter()
    lost = collections.Counter()
    resumed = 0
    seen_event_after = collections.defaultdict(bool)
    for i, r in enumerate(recs):
        if r["event"] == "lost":
            lost[r["cpu"]] += r["req"]
            # written by the CPU itself when it found room again?
            if any(x["cpu"] == r["cpu"] and x["event"] != "lost"
                   for x in recs[i + 1:]):
                resumed += 1
        else:
            events[r["cpu"]] += 1
    total_lost = sum(v[2] for v in stats.values())
    if total_lost == 0:
        fail("nothing was lost: the test needs a stalled reader and a small bufsize")
    # the kernel log names only CPUs with hits: a CPU with records in the
    # stream and no line there is a failure, not a CPU left unchecked
    for cpu in sorted(set(events) | set(lost)):
        if cpu not in stats and (events[cpu] or lost[cpu]):
            fail("cpu %d: %d events + %d lost in the stream, no statistics "
                 "line in the kernel log" % (cpu, events[cpu], lost[cpu]))
    for cpu, (hits, written, l) in sorted(stats.items()):
        if events[cpu] + lost[cpu] != hits:
            fail("cpu %d: %d events + %d lost in the stream, %d hits counted"
                 % (cpu, events[cpu], lost[cpu], hits))
        if events[cpu] != written or lost[cpu] != l:
            fail("cpu %d: stream has %d written / %d lost, kernel %d / %d"
                 % (cpu, events[cpu], lost[cpu], written, l))
        print("cpu %d ok: %d events + %d lost = %d hits" % (cpu, events[cpu], lost[cpu], hits))
    if resumed == 0:
        fail("no LOST record was written where recording resumed")
    print("lost ok: %d LOST records written where recording resumed" % resumed)


def cmd_noaddr(ptrs, ranges_path, files):
    addrs = set()
    for line in open(ptrs):
        line = line.strip()
        # x86-64 kernel addresses are in the upper canonical half (with
        # 5-level paging and KASLR the direct map starts below 0xffff8...)
        if line and int(line, 16) >= 1 << 63:
            addrs.add(int(line, 16))
    if not addrs:
        fail("no kernel socket addresses to look for")
    ranges = []
    for line in open(ranges_path):
        lo, hi, name = line.split()
        ranges.append((int(lo, 16), int(hi, 16), name))
    if not ranges:
        fail("no kernel address ranges to look for")

    def inside(v):
        for lo, hi, name in ranges:
            if lo <= v < hi:
                return name
        return None

    groups = []
    for top in sorted({a >> 32 for a in addrs}):
        members = [a for a in addrs if a >> 32 == top]
        groups.append((("%08x" % top).encode(), struct.pack("<I", top),
                       {("%016x" % a).encode() for a in members},
                       {struct.pack("<Q", a) for a in members}))

    # a number of 16 hex digits or 20 decimal ones in a range: every range
    # is above 0xff00000000000000 (18374686479671623680), so only words
    # that begin "ff" or "18" can be in one, and the search skips to those
    if min(r[0] for r in ranges) < 0xff << 56:
        fail("a kernel address range below 0xff00000000000000")
    words = re.compile(rb"(?<![0-9a-f])(ff[0-9a-f]{14}|18[0-9]{18})(?![0-9a-f])")
    for path in files:
        data = open(path, "rb").read()
        low = data.lower()
        # each address as text and as a u64 anywhere: found by a search
        # for the top half the addresses share (one or two values), each
        # hit then compared whole
        for top_text, top_u32, texts, words8 in groups:
            i = low.find(top_text)
            while i >= 0:
                if low[i:i + 16] in texts:
                    fail("%s contains socket address %s as text"
                         % (path, low[i:i + 16].decode()))
                i = low.find(top_text, i + 1)
            i = data.find(top_u32, 4)
            while i >= 0:
                if data[i - 4:i + 4] in words8:
                    fail("%s contains socket address %016x as a u64"
                         % (path, struct.unpack_from("<Q", data, i - 4)[0]))
                i = data.find(top_u32, i + 1)
        for m in words.finditer(low):
            w = m.group(1)
            v = int(w, 16) if len(w) == 16 else int(w)
            if inside(v):
                fail("%s: '%s' at byte %d is an address in the %s range"
                     % (path, w.decode(), m.start(), inside(v)))
        # the aligned u64s whose top byte is 0xff (kernel addresses all
        # are): found by a search of their top bytes, not a loop per word
        tops = data[7:len(data) - len(data) % 8:8]
        i = tops.find(b"\xff")
        while i >= 0:
            off = 8 * i
            v = struct.unpack_from("<Q", data, off)[0]
            if inside(v):
                fail("%s: the u64 at byte %d is an address in the %s range"
                     % (path, off, inside(v)))
            i = tops.find(b"\xff", i + 1)
    print("noaddr ok: none of %d socket addresses, nothing in %s, in %d files"
          % (len(addrs), ", ".join(r[2] for r in ranges), len(files)))


def cmd_count(path):
    _, recs = parse(path)
    c = collections.Counter(r["event"] for r in recs)
    for ev in EV.values():
        print(ev, c.get(ev, 0))


def main(argv):
    if len(argv) < 3:
        fail(__doc__)
    cmd, args = argv[1], argv[2:]
    if cmd == "stack":
        cmd_stack(*args)
    elif cmd == "lost":
        cmd_lost(*args)
    elif cmd == "noaddr":
        cmd_noaddr(args[0], args[1], args[2:])
    elif cmd == "count":
        cmd_count(*args)
    else:
        fail("unknown check " + cmd)


if __name__ == "__main__":
    main(sys.argv)
