#!/usr/bin/python3 -S
"""One TCP transfer with a chosen limit, and the kernel's own account of it
(case_limits, tests/vm/cases/48-limits.sh).

    limitflow.py recv PORT READY OUT [RCVBUF]
        listen on PORT (SO_RCVBUF RCVBUF, set before listen, when given),
        touch READY, take one connection, read it to its end as fast as
        it comes; write to OUT, as JSON, the socket's cookie, its
        SO_RCVBUF right after the accept (rcvbuf_start) and at the end
        (rcvbuf), its TCP_WINDOW_CLAMP and TCP_INFO's tcpi_rcv_space,
        tcpi_rcv_ssthresh at the end, and the bytes read
    limitflow.py send ADDR PORT OUT bulk BYTES [SNDBUF]
    limitflow.py send ADDR PORT OUT paced CHUNK INTERVAL_MS COUNT
        connect (SO_SNDBUF SNDBUF first, when given), write BYTES at once
        (bulk) or CHUNK bytes every INTERVAL_MS COUNT times (paced), wait
        until the peer has acknowledged every byte (SIOCOUTQ 0), then read
        the socket's TCP_INFO and write to OUT, as JSON, its cookie
        (SO_COOKIE: magnet's sock_id), tcpi_busy_time, tcpi_rwnd_limited,
        tcpi_sndbuf_limited (µs), tcpi_reordering, tcpi_reord_seen,
        tcpi_dsack_dups, where the kernel has them (Linux 6.7 on: a
        TCP_INFO of 248 bytes or more) tcpi_total_rto,
        tcpi_total_rto_recoveries and tcpi_total_rto_time (ms), and the
        wall clock (ns) just before and after the read; then close.
"""
import fcntl
import json
import socket
import struct
import sys
import time

SO_COOKIE = 57
SIOCOUTQ = 0x5411
TCP_INFO = 11
TCP_WINDOW_CLAMP = 10


def recv(port, ready, out, rcvbuf=None):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if rcvbuf:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, int(rcvbuf))
    s.bind(("0.0.0.0", int(port)))
    s.listen(1)
    open(ready, "w").close()
    c, _ = s.accept()
    start = c.getsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF)
    n = 0
    while True:
        d = c.recv(1 << 16)
        if not d:
            break
        n += len(d)
    # the receive buffer autotuning left: read after the last recv (the
    # kernel tunes it as the application reads)
    info = c.getsockopt(socket.IPPROTO_TCP, TCP_INFO, 232)
    cookie = struct.unpack("Q", c.getsockopt(socket.SOL_SOCKET, SO_COOKIE,
                                             8))[0]
    with open(out, "w") as f:
        json.dump({"sock": "%016x" % cookie, "rcvbuf_start": start,
                   "rcvbuf": c.getsockopt(socket.SOL_SOCKET,
                                          socket.SO_RCVBUF),
                   "window_clamp": c.getsockopt(socket.IPPROTO_TCP,
                                                TCP_WINDOW_CLAMP),
                   "rcv_space": struct.unpack_from("I", info, 96)[0],
                   "rcv_ssthresh": struct.unpack_from("I", info, 64)[0],
                   "bytes": n}, f)
        f.write("\n")
    c.close()
    s.close()
    print(n)


def send(addr, port, out, mode, *args):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    if mode == "bulk" and len(args) > 1:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, int(args[1]))
    s.connect((addr, int(port)))
    if mode == "bulk":
        left = int(args[0])
        buf = b"x" * (1 << 16)
        while left > 0:
            left -= s.send(buf[:min(left, len(buf))])
    elif mode == "paced":
        chunk, gap, count = int(args[0]), int(args[1]) / 1000.0, int(args[2])
        buf = b"y" * chunk
        t = time.monotonic()
        for _ in range(count):
            s.sendall(buf)
            t += gap
            time.sleep(max(0.0, t - time.monotonic()))
    else:
        raise SystemExit("limitflow.py: mode %s: bulk or paced" % mode)
    # every byte acknowledged: the busy chronograph has stopped
    end = time.monotonic() + 120
    while struct.unpack("i", fcntl.ioctl(s.fileno(), SIOCOUTQ,
                                         b"\0" * 4))[0] > 0:
        if time.monotonic() > end:
            raise SystemExit("limitflow.py: not acknowledged in 120 s")
        time.sleep(0.005)
    t0 = time.time_ns()
    info = s.getsockopt(socket.IPPROTO_TCP, TCP_INFO, 256)
    t1 = time.time_ns()
    cookie = struct.unpack("Q", s.getsockopt(socket.SOL_SOCKET, SO_COOKIE,
                                             8))[0]
    busy, rwnd, sndbuf = struct.unpack_from("QQQ", info, 168)
    dsack, reord_seen = struct.unpack_from("II", info, 216)
    s.close()
    res = {"sock": "%016x" % cookie, "busy_us": busy,
           "rwnd_limited_us": rwnd, "sndbuf_limited_us": sndbuf,
           "reordering": struct.unpack_from("I", info, 88)[0],
           "reord_seen": reord_seen, "dsack_dups": dsack,
           "t0_ns": t0, "t1_ns": t1}
    # the RTO totals (struct tcp_info's tcpi_total_rto at 240,
    # tcpi_total_rto_recoveries at 242, tcpi_total_rto_time at 244: after
    # tcpi_snd_wnd 228, tcpi_rcv_wnd 232, tcpi_rehash 236; 248 bytes in all)
    if len(info) >= 248:
        res.update(zip(("total_rto", "total_rto_recoveries",
                        "total_rto_time"), struct.unpack_from("HHI", info,
                                                              240)))
    with open(out, "w") as f:
        json.dump(res, f)
        f.write("\n")


if __name__ == "__main__":
    if len(sys.argv) >= 5 and sys.argv[1] == "recv":
        recv(*sys.argv[2:])
    elif len(sys.argv) >= 7 and sys.argv[1] == "send":
        send(*sys.argv[2:])
    else:
        sys.stderr.write(__doc__)
        sys.exit(2)
