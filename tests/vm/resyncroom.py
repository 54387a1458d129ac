#!/usr/bin/env python3
"""Opens of a format=3 stream that begin with nearly a buffer of FLOW records.

usage: resyncroom.py PROC PORT MAXCONNS

An open of a version 3 stream begins with every FLOW record the reader
knows (72 bytes each): the reader's 64 KiB buffer then holds up to 910 of
them, and the record after them must still fit. With 909 (65,448 bytes),
the TCP record after them once went 72 bytes past the buffer's end (a
crash in read()). Run with one CPU online and the filter sport=PORT, so
that each connection adds at most one flow (its accepted socket) and the
count of FLOW records at the start of an open passes through 909.

Connections on 127.0.0.1:PORT stay open (a socket freed and allocated again
at the same address would keep its flow id); after each, one open reads
all the stream holds, which must be whole records to its end. Fails
unless an open began with 909 FLOW records and a record after them, and
prints the last counts it saw.
"""
import errno
import os
import resource
import socket
import struct
import sys

from magnetlog import FLOW_EV, Bad, v3_headers


def flows_at_open(proc):
    """the FLOW records at the start of a new open's stream, the records
    after them, and whether the stream is whole records to its end"""
    fd = os.open(proc, os.O_RDONLY | os.O_NONBLOCK)
    try:
        head = os.read(fd, 256)         # SYSINFO
        if len(head) != 256 or struct.unpack_from("<H", head, 4)[0] != 3:
            sys.exit("resyncroom: not a version 3 stream")
        # all it holds: a ring left to fill would write a LOST record,
        # which ends the flows and starts the count again
        data = b""
        while True:
            try:
                b = os.read(fd, 65536)
            except OSError as e:
                if e.errno == errno.EAGAIN:
                    break
                raise
            if not b:
                break
            data += b
    finally:
        os.close(fd)
    # the FLOW records the reader writes at the open all carry the open's
    # time; the rings' own (a new socket's) come after them, stamped
    # before it
    try:
        heads, end = v3_headers(data)
    except Bad as e:
        sys.exit("resyncroom: %s" % e)
    n = 0                               # heads: (off, ts, cpu, flow, event, ...)
    while n < len(heads) and heads[n][4] == FLOW_EV and heads[n][1] == heads[0][1]:
        n += 1
    return n, len(heads) - n, end == len(data)


def main():
    proc, port, maxconns = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    resource.setrlimit(resource.RLIMIT_NOFILE, (65536, 65536))
    lst = socket.socket()
    lst.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    lst.bind(("127.0.0.1", port))
    lst.listen(128)
    keep = []
    seen = []
    for _ in range(maxconns):
        c = socket.create_connection(("127.0.0.1", port))
        s, _ = lst.accept()
        c.sendall(b"x")
        s.recv(1)
        keep += [c, s]
        n, after, whole = flows_at_open(proc)
        seen.append(n)
        if not whole:
            sys.exit("resyncroom: an open with %d FLOW records first: the "
                     "stream is not whole records to its end" % n)
        if n == 909:
            # the record after them is the one that once overflowed
            if after == 0:
                sys.exit("resyncroom: the open with 909 FLOW records has no "
                         "record after them")
            break
    print("resyncroom: %d connections, FLOW records at the opens: %s"
          % (len(keep) // 2, " ".join(map(str, seen[-12:]))))
    if 909 not in seen:
        sys.exit("resyncroom: no open began with 909 FLOW records "
                 "(at most %d)" % max(seen))


if __name__ == "__main__":
    main()
