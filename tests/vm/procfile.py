#!/usr/bin/python3
"""Checks of /proc/net/magnet's file semantics, run inside the test guests.

  procfile.py busy                 opening a second reader fails with EBUSY
  procfile.py write ERRNO CMD...   each CMD written in one write() gets ERRNO
                                   (0 = accepted; CMD is a Python literal, so
                                   "'flush\\n'" and "'x' * 300" work)
  procfile.py nonblock             with nothing buffered: O_NONBLOCK read gets
                                   EAGAIN and poll() says not readable; after
                                   TCP traffic on loopback poll() says readable
                                   within 5 s and read() returns ttprobe lines
  procfile.py ordered OUT          read until end of file with 1 MiB reads,
                                   writing the data to OUT; within each read
                                   the complete lines have non-decreasing
                                   timestamps (the per-read merge of the CPUs)
  procfile.py chunks OUT           read until end of file with read sizes
                                   that split records (1, 100, 255, 256, 300,
                                   4103, 65536 bytes, in turn), writing the
                                   data to OUT
  procfile.py partial OUT N GO     binary stream, written to OUT: read the
                                   header, create OUT.ready1, wait for the
                                   file GO1; read N records, create
                                   OUT.ready2, wait for GO2; read the rest
                                   until end of file
"""
import errno
import os
import select
import socket
import sys
import time

from magnetlog import Bad, v3_headers

PROC = os.environ.get("MAGNET_PROC", "/proc/net/magnet")


def fail(msg):
    print("procfile: FAIL: " + msg)
    sys.exit(1)


def cmd_busy():
    try:
        fd = os.open(PROC, os.O_RDONLY)
    except OSError as e:
        if e.errno == errno.EBUSY:
            print("busy ok: second reader got EBUSY")
            return
        fail("second reader got %s, expected EBUSY" % errno.errorcode[e.errno])
    os.close(fd)
    fail("second reader was allowed to open")


def cmd_write(want, cmds):
    want = int(want)
    for c in cmds:
        data = eval(c, {})  # test-controlled literals only
        if isinstance(data, str):
            data = data.encode()
        fd = os.open(PROC, os.O_WRONLY)
        try:
            n = os.write(fd, data)
            got = 0
            if n != len(data):
                fail("short write of %r: %d" % (data, n))
        except OSError as e:
            got = e.errno
        finally:
            os.close(fd)
        if got != want:
            fail("write %r: got %s, expected %s"
                 % (data[:40], errno.errorcode.get(got, got),
                    errno.errorcode.get(want, want)))
    print("write ok: %d commands, each %s"
          % (len(cmds), errno.errorcode.get(want, "accepted")))


def traffic():
    srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    srv.bind(("127.0.0.1", 0))
    srv.listen(1)
    cli = socket.create_connection(srv.getsockname())
    conn, _ = srv.accept()
    cli.sendall(b"x" * 100000)
    got = 0
    while got < 100000:
        got += len(conn.recv(65536))
    for s in (cli, conn, srv):
        s.close()


def cmd_nonblock():
    fd = os.open(PROC, os.O_RDONLY | os.O_NONBLOCK)
    try:
        try:
            os.read(fd, 65536)
            fail("read with nothing buffered did not fail")
        except OSError as e:
            if e.errno != errno.EAGAIN:
                fail("empty O_NONBLOCK read got %s" % errno.errorcode[e.errno])
        p = select.poll()
        p.register(fd, select.POLLIN)
        if p.poll(0):
            fail("poll() says readable with nothing buffered")
        t0 = time.monotonic()
        traffic()
        ev = p.poll(5000)
        if not ev or not ev[0][1] & select.POLLIN:
            fail("poll() not readable 5 s after traffic")
        waited = time.monotonic() - t0
        data = os.read(fd, 65536)
        if not data or data[:1] not in (b"i", b"o"):
            fail("read after poll returned %r" % data[:40])
        print("nonblock ok: EAGAIN when empty, readable %.2f s after traffic, %d bytes"
              % (waited, len(data)))
    finally:
        os.close(fd)


def cmd_ordered(out):
    fd = os.open(PROC, os.O_RDONLY)
    reads = lines = multi = 0
    carry = b""
    with open(out, "wb") as f:
        while True:
            data = os.read(fd, 1 << 20)
            if not data:
                break
            f.write(data)
            reads += 1
            text = carry + data
            cut = text.rfind(b"\n") + 1
            carry = text[cut:]
            # the first line may have begun in the previous read: skip it
            # unless this read started on a line boundary
            chunk = text[:cut].split(b"\n")[:-1]
            if len(text) != len(data):
                chunk = chunk[1:]
            ts = [float(l.split(b",")[1]) for l in chunk]
            for a, b in zip(ts, ts[1:]):
                if b < a:
                    fail("read %d: timestamp %.6f after %.6f" % (reads, b, a))
            lines += len(ts)
            multi += len(ts) > 1
    os.close(fd)
    if carry:
        fail("log ends with an incomplete line")
    if multi == 0:
        fail("no read returned more than one line")
    print("ordered ok: %d reads, %d lines, each read in timestamp order"
          % (reads, lines))


CHUNKS = (1, 100, 255, 256, 300, 4103, 65536)


def read_to_eof(fd, f, sizes):
    """read fd until end of file with read sizes taken from SIZES in turn,
    writing the data to the file object F; returns (reads, bytes)"""
    reads = total = 0
    while True:
        data = os.read(fd, sizes[reads % len(sizes)])
        if not data:
            return reads, total
        f.write(data)
        reads += 1
        total += len(data)


def cmd_chunks(out):
    fd = os.open(PROC, os.O_RDONLY)
    with open(out, "wb") as f:
        reads, total = read_to_eof(fd, f, CHUNKS)
    os.close(fd)
    print("chunks ok: %d reads, %d bytes" % (reads, total))


def wait_for(path):
    for _ in range(600):
        if os.path.exists(path):
            return
        time.sleep(0.1)
    fail("no %s within 60 s" % path)


def whole_records(data, version):
    """@data is whole records of format @version: 256 bytes each in
    version 2, each version 3 record as long as its header says"""
    if version == 2:
        return len(data) % 256 == 0
    try:
        return v3_headers(data)[1] == len(data)
    except Bad:
        return False


def read_exactly(fd, f, want):
    got = 0
    while got < want:
        data = os.read(fd, min(256, want - got))
        if not data:
            fail("end of file after %d of %d bytes" % (got, want))
        f.write(data)
        got += len(data)
    f.flush()


def cmd_partial(out, n, go):
    fd = os.open(PROC, os.O_RDONLY)
    with open(out, "wb") as f:
        read_exactly(fd, f, 256)
        open(out + ".ready1", "w").close()
        wait_for(go + "1")
        read_exactly(fd, f, 256 * int(n))
        open(out + ".ready2", "w").close()
        wait_for(go + "2")
        while True:
            data = os.read(fd, 65536)
            if not data:
                break
            f.write(data)
    os.close(fd)
    print("partial ok: the header, %d records, then the rest" % int(n))


def main(argv):
    if len(argv) < 2:
        fail(__doc__)
    if argv[1] == "busy":
        cmd_busy()
    elif argv[1] == "write":
        cmd_write(argv[2], argv[3:])
    elif argv[1] == "nonblock":
        cmd_nonblock()
    elif argv[1] == "ordered":
        cmd_ordered(argv[2])
    elif argv[1] == "chunks":
        cmd_chunks(argv[2])
    elif argv[1] == "partial":
        cmd_partial(argv[2], argv[3], argv[4])
    else:
        fail("unknown check " + argv[1])


if __name__ == "__main__":
    main(sys.argv)
