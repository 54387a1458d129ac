"""magnet's binary stream (omode=1), version 2 or 3, as version 2 records.

An independent reading of docs/binary-format.md's "Version 3" (not of
module/v3.c): each version 3 record is rebuilt as the 256-byte version 2
record it stands for, so the checks that read version 2 (checkstack.py)
read both. Native byte order (the guests are little-endian) only.

    from magnetlog import v2_records
    header, records = v2_records(data)   # header: 256 bytes, version as read

    from magnetlog import v3_headers
    heads, end = v3_headers(buf)         # the version 3 records' headers
"""
import struct

HDR = struct.Struct("<QHHBBH")           # ts_ns cpu flow event flags len
FLOW = struct.Struct("<QHHB11s16s16s")   # sock_id lport rport family ca laddr raddr
COUNT = struct.Struct("<Qq")             # req ret
TCP = struct.Struct("<IIIIBBBBHH15I7I4Q")
APP = struct.Struct("<IIQq16s")
PKT = struct.Struct("<IIIIIIHHHHBBBBBB2x")
REC = struct.Struct("<QQHHBBBBHHI16s16sIIIIqQ16s")   # offsets 0-111
assert (HDR.size, FLOW.size, TCP.size, APP.size, PKT.size, REC.size) == \
    (16, 56, 144, 40, 40, 112)

RF_SOCK, RF_TCP, RF_HDR, RF_RATE = 0x20, 0x01, 0x40, 0x80
RATE_SIZE = 56          # the rate part, after the TCP part (and the call)
LOST, RESET, FLOW_EV = 9, 10, 11


class Bad(Exception):
    pass


def v3_headers(buf, base=0):
    """The headers of the whole version 3 records at the start of @buf:
    ([(off, ts, cpu, flow, event, flags, length)], end), @end the offset
    after the last whole one; a record cut at the end of @buf (a chunk of a
    stream) is left out. Raises Bad for a length no record has (its
    message gives the offset plus @base, where @buf is in the stream)."""
    heads = []
    off = 0
    while off + 16 <= len(buf):
        h = HDR.unpack_from(buf, off)
        n = h[5]
        if n < 32 or n % 8:
            raise Bad("record at %d: length %d" % (base + off, n))
        if off + n > len(buf):
            break
        heads.append((off,) + h)
        off += n
    return heads, off


def _v2(ts, cpu, event, flags, f):
    """The first 112 bytes of a version 2 record, and a 144-byte tail
    (offsets 112-255) of zeros, as a bytearray."""
    sock = f["sock"] if flags & RF_SOCK else 0
    head = REC.pack(ts, sock, event, cpu, f["family"], 0, 0, flags,
                    f["lport"], f["rport"], 0, f["laddr"], f["raddr"],
                    0, 0, 0, 0, 0, 0, b"")
    return bytearray(head) + bytearray(144)


def v2_records(data):
    """(header, [256-byte records]) of the stream in @data."""
    if len(data) < 256:
        raise Bad("%d bytes, shorter than the header" % len(data))
    magic, version, record_size, sysinfo_size = struct.unpack_from("<IHHH", data, 0)
    if magic != 0x01234567 or sysinfo_size != 256:
        raise Bad("magic %#x sysinfo_size %d" % (magic, sysinfo_size))
    header = data[:256]
    body = memoryview(data)[256:]
    if version == 2:
        if record_size != 256 or len(body) % 256:
            raise Bad("version 2: record_size %d, %d trailing bytes"
                      % (record_size, len(body) % 256))
        return header, [bytes(body[o:o + 256]) for o in range(0, len(body), 256)]
    if version != 3 or record_size != 0:
        raise Bad("version %d record_size %d" % (version, record_size))
    flows = {}          # (cpu, id) -> flow
    recs = []
    heads, end = v3_headers(body)
    if end != len(body):
        raise Bad("a record cut at %d (%d bytes left)" % (end, len(body) - end))
    for off, ts, cpu, fid, event, flags, n in heads:
        p = off + 16
        if event == FLOW_EV:
            sock, lport, rport, family, ca, la, ra = FLOW.unpack_from(body, p)
            flows[(cpu, fid)] = dict(sock=sock, lport=lport, rport=rport,
                                     family=family, ca=ca, laddr=la, raddr=ra)
        elif event in (LOST, RESET):
            req, ret = COUNT.unpack_from(body, p)
            r = bytearray(256)
            struct.pack_into("<QQHH", r, 0, ts, 0, event, cpu)
            struct.pack_into("<qQ", r, 80, ret, req)
            recs.append(bytes(r))
            for k in [k for k in flows if event == RESET or k[0] == cpu]:
                del flows[k]
        else:
            f = flows.get((cpu, fid))
            if f is None:
                raise Bad("record at %d: flow %d of cpu %d undefined" % (off, fid, cpu))
            # version 2 has no rate part: its flags never have RF_RATE
            rate = flags & RF_RATE
            flags &= ~RF_RATE
            r = _v2(ts, cpu, event, flags, f)
            if event <= 4:       # TCP and app events: the TCP part
                if n != (200 if event >= 3 else 160) + (RATE_SIZE if rate else 0):
                    raise Bad("record at %d: event %d length %d" % (off, event, n))
                t = TCP.unpack_from(body, p)
                length, mark, seq, end_seq, state, ca_state, wscale, opts, advmss = t[:9]
                struct.pack_into("<BB", r, 21, state, ca_state)
                struct.pack_into("<I", r, 28, length)
                struct.pack_into("<III", r, 64, seq, end_seq, mark)
                struct.pack_into("<15I", r, 112, *t[10:25])
                segs_out, dsegs_out, segs_in, dsegs_in, rcv_nxt, min_rtt, rtt = t[25:32]
                struct.pack_into("<4I4Q3IHBB", r, 192, segs_out, dsegs_out,
                                 segs_in, dsegs_in, *t[32:36], rcv_nxt,
                                 min_rtt, rtt, advmss, wscale, opts)
                if flags & RF_TCP:
                    r[180:191] = f["ca"]
                if event >= 3:
                    pid, _, req, ret, comm = APP.unpack_from(body, p + TCP.size)
                    struct.pack_into("<IqQ16s", r, 76, pid, ret, req, comm)
            else:                # IP and device events: the packet part
                if rate:
                    raise Bad("record at %d: a packet record with a rate part" % off)
                k = PKT.unpack_from(body, p)
                (length, mark, seq, end_seq, ifindex, ack, ip_id, win, ip_hlen,
                 ip_frag, state, tos, ttl, proto, tflags, thlen) = k
                opt = max(thlen - 20, 0)
                if n != 56 + (opt + 7) // 8 * 8:
                    raise Bad("record at %d: packet length %d, tcp_hlen %d" % (off, n, thlen))
                r[21] = state
                struct.pack_into("<I", r, 28, length)
                struct.pack_into("<III", r, 64, seq, end_seq, mark)
                struct.pack_into("<IHBB", r, 112, ack, win, tflags, thlen)
                struct.pack_into("<HH", r, 120, ip_hlen, ip_frag)
                r[124:124 + opt] = body[p + 40:p + 40 + opt]
                struct.pack_into("<IHBB", r, 172, ifindex, ip_id, tos, ttl)
                r[191] = proto
            recs.append(bytes(r))
    return header, recs
