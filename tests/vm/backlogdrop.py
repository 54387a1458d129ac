#!/usr/bin/env python3
"""A backlog whose first segment tcp_add_backlog drops: is its slot freed?

  backlogdrop.py serve PORT
      accept one connection on PORT, read it to its end (or reset), close
  backlogdrop.py hold ADDR PORT
      connect to ADDR:PORT, then send() one page that is missing and
      registered with userfaultfd: the copy in tcp_sendmsg waits in the
      fault with the socket owned by this task, so what arrives meanwhile
      goes to its backlog. Prints "held SPORT" once the send waits; on a
      line "go" on stdin supplies the page and prints "sent N" when send()
      returns; on "close", closes with a reset (SO_LINGER 0: the socket
      is destroyed in close(), whatever the peer sends) and prints
      "closed".
  backlogdrop.py badsum IFACE DSTMAC SADDR DADDR SPORT DPORT
      send out of IFACE, from a packet socket, one IPv4 TCP segment with
      100 bytes of data and a wrong checksum. Longer than 76 bytes, so the
      receiver checks its checksum only in tcp_add_backlog (the socket is
      owned), where it is dropped: the backlog never starts.
"""
import ctypes
import mmap
import os
import select
import socket
import struct
import sys
import threading

# the userfaultfd interface as uffdread.py drives it, and rawframes.py's
# Internet checksum
from rawframes import csum
from uffdread import (UFFD_API, UFFD_EVENT_PAGEFAULT, UFFDIO_API,
                      UFFDIO_REGISTER, UFFDIO_REGISTER_MODE_MISSING,
                      UFFDIO_ZEROPAGE, SYS_USERFAULTFD, ioctl, libc)


def serve(port):
    ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind(("0.0.0.0", port))
    ls.listen(1)
    c, _ = ls.accept()
    try:
        while c.recv(65536):
            pass
    except ConnectionResetError:
        pass
    c.close()
    ls.close()


def say(line):
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def hold(addr, port):
    page = mmap.PAGESIZE
    uffd = libc.syscall(SYS_USERFAULTFD, os.O_CLOEXEC | os.O_NONBLOCK)
    if uffd < 0:
        sys.exit("backlogdrop: userfaultfd: %s" %
                 os.strerror(ctypes.get_errno()))
    api = ctypes.create_string_buffer(struct.pack("QQQ", UFFD_API, 0, 0), 24)
    ioctl(uffd, UFFDIO_API, api)
    buf = mmap.mmap(-1, page, mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    base = ctypes.addressof(ctypes.c_char.from_buffer(buf))
    reg = ctypes.create_string_buffer(
        struct.pack("QQQQ", base, page, UFFDIO_REGISTER_MODE_MISSING, 0), 32)
    ioctl(uffd, UFFDIO_REGISTER, reg)

    s = socket.create_connection((addr, port), timeout=10)
    s.settimeout(None)
    # before the send: getsockname() locks the socket too
    sport = s.getsockname()[1]
    sent = []
    t = threading.Thread(target=lambda: sent.append(s.send(buf)))
    t.start()
    # the send waits in the fault: the socket is owned until it is answered
    if not select.select([uffd], [], [], 10)[0]:
        sys.exit("backlogdrop: send() never faulted on its buffer")
    msg = os.read(uffd, 32)
    if msg[0] != UFFD_EVENT_PAGEFAULT:
        sys.exit("backlogdrop: unexpected userfaultfd event %d" % msg[0])
    say("held %d" % sport)
    for line in sys.stdin:
        if line.strip() == "go":
            zp = ctypes.create_string_buffer(
                struct.pack("QQQq", base, page, 0, 0), 32)
            ioctl(uffd, UFFDIO_ZEROPAGE, zp)
            t.join(10)
            if t.is_alive() or not sent:
                sys.exit("backlogdrop: send() did not return")
            say("sent %d" % sent[0])
        elif line.strip() == "close":
            s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                         struct.pack("ii", 1, 0))
            s.close()
            say("closed")
            return
    sys.exit("backlogdrop: stdin ended before close")


def badsum(iface, dstmac, saddr, daddr, sport, dport):
    src, dst = socket.inet_aton(saddr), socket.inet_aton(daddr)
    payload = bytes(range(100))
    th = struct.pack("!HHIIBBHHH", sport, dport, 0x12345678, 1, 5 << 4,
                     0x18, 65535, 0, 0)
    pseudo = src + dst + struct.pack("!BBH", 0, 6, len(th) + len(payload))
    good = csum(pseudo + th + payload)
    # any other value is wrong; never 0 (no checksum is not an IPv4 option
    # for TCP, but keep it plainly wrong)
    bad = good ^ 0x5a5a or 0x1234
    th = th[:16] + struct.pack("!H", bad) + th[18:]
    tot = 20 + len(th) + len(payload)
    ih = struct.pack("!BBHHHBBH4s4s", 0x45, 0, tot, 1, 0x4000, 64, 6, 0,
                     src, dst)
    ih = ih[:10] + struct.pack("!H", csum(ih)) + ih[12:]
    with open("/sys/class/net/%s/address" % iface) as f:
        srcmac = bytes.fromhex(f.read().strip().replace(":", ""))
    eth = bytes.fromhex(dstmac.replace(":", "")) + srcmac + b"\x08\x00"
    ps = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    ps.bind((iface, 0))
    ps.send(eth + ih + th + payload)
    ps.close()


def main(argv):
    if len(argv) == 3 and argv[1] == "serve":
        serve(int(argv[2]))
    elif len(argv) == 4 and argv[1] == "hold":
        hold(argv[2], int(argv[3]))
    elif len(argv) == 8 and argv[1] == "badsum":
        badsum(argv[2], argv[3], argv[4], argv[5], int(argv[6]),
               int(argv[7]))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
