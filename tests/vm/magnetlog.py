"""magnet's binary stream (omode=1), version 2 or 3, as version 2 records.

Each version 3 record is rebuilt as the 256-byte version 2 record it
stands for, field by field by name, with the layout of module/uapi/schema.h
(schema.py), not module/shared/v3.c's decoder; so the checks that read version 2
(checkstack.py) read both. (tests/unit/docdecode.py is the reader written
from the documentation alone.) Native byte order (the guests are
little-endian) only.

    from magnetlog import v2_records
    header, records = v2_records(data)   # header: 256 bytes, version as read

    from magnetlog import v3_headers
    heads, end = v3_headers(buf)         # the version 3 records' headers
"""
import struct

import schema

P = schema.PARTS
HDR = P["v3_hdr"].struct                 # ts_ns cpu flow event flags len
FLOW = P["v3_flow"].struct
COUNT = P["v3_count"].struct             # req ret
TCP = P["v3_tcp"].struct
APP = P["v3_app"].struct
PKT = P["v3_pkt"].struct
V2 = schema.V2

RF_SOCK, RF_TCP, RF_HDR, RF_RATE = 0x20, 0x01, 0x40, 0x80
LOST, RESET, FLOW_EV = 9, 10, 11
HDR_SIZE = schema.HDR_SIZE
RATE_SIZE = P["v3_rate"].size           # the rate part, after the TCP part (and the call)
# the limit part, last in TCP_OUT and TCP_IN records of a log whose
# header's features have FEAT_LIMIT
LIMIT_SIZE = P["v3_limit"].size
FEAT_LIMIT = 0x80
TCP_SIZE = HDR_SIZE + P["v3_tcp"].size
APP_SIZE = TCP_SIZE + P["v3_app"].size
PKT_SIZE = HDR_SIZE + P["v3_pkt"].size
COUNT_SIZE = HDR_SIZE + P["v3_count"].size


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
        if n < COUNT_SIZE or n % 8:
            raise Bad("record at %d: length %d" % (base + off, n))
        if off + n > len(buf):
            break
        heads.append((off,) + h)
        off += n
    return heads, off


def _put(r, part, vals):
    """The fields of @part (its values @vals) that version 2 has, into
    the version 2 record @r, by name."""
    for f in part.fields:
        if f.kind == "F":
            V2.put(r, 0, f.name, vals[f.name])


def _v2(ts, cpu, event, flags, f):
    """A version 2 record of zeros, as a bytearray, with the header's and
    the flow's fields."""
    r = bytearray(V2.size)
    for name, v in (("ts_ns", ts), ("cpu", cpu), ("event", event),
                    ("flags", flags), ("family", f["family"]),
                    ("lport", f["lport"]), ("rport", f["rport"]),
                    ("laddr", f["laddr"]), ("raddr", f["raddr"])):
        V2.put(r, 0, name, v)
    if flags & RF_SOCK:
        V2.put(r, 0, "sock_id", f["sock_id"])
    if flags & RF_TCP:
        V2.put(r, 0, "ca_name", f["ca_name"])
    return r


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
    limit = struct.unpack_from("<I", data, 12)[0] & FEAT_LIMIT
    heads, end = v3_headers(body)
    if end != len(body):
        raise Bad("a record cut at %d (%d bytes left)" % (end, len(body) - end))
    for off, ts, cpu, fid, event, flags, n in heads:
        p = off + HDR_SIZE
        if event == FLOW_EV:
            flows[(cpu, fid)] = P["v3_flow"].unpack(body, p)
        elif event in (LOST, RESET):
            r = bytearray(V2.size)
            for name, v in (("ts_ns", ts), ("event", event), ("cpu", cpu)):
                V2.put(r, 0, name, v)
            _put(r, P["v3_count"], P["v3_count"].unpack(body, p))
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
                if n != (APP_SIZE if event >= 3 else TCP_SIZE) + \
                        (RATE_SIZE if rate else 0) + \
                        (LIMIT_SIZE if limit and event <= 2 else 0):
                    raise Bad("record at %d: event %d length %d" % (off, event, n))
                _put(r, P["v3_tcp"], P["v3_tcp"].unpack(body, p))
                if event >= 3:
                    _put(r, P["v3_app"], P["v3_app"].unpack(body, off + TCP_SIZE))
            else:                # IP and device events: the packet part
                if rate:
                    raise Bad("record at %d: a packet record with a rate part" % off)
                k = P["v3_pkt"].unpack(body, p)
                opt = max(k["tcp_hlen"] - 20, 0)
                if n != PKT_SIZE + (opt + 7) // 8 * 8:
                    raise Bad("record at %d: packet length %d, tcp_hlen %d"
                              % (off, n, k["tcp_hlen"]))
                _put(r, P["v3_pkt"], k)
                at = V2.offset("tcp_opts")
                r[at:at + opt] = body[off + PKT_SIZE:off + PKT_SIZE + opt]
            recs.append(bytes(r))
    return header, recs
