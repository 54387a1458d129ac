#!/usr/bin/env python3
"""case_drop_unwritten's sender: an IP_HDRINCL send whose copy from user
memory faults part-way, which the kernel frees as dropped
(raw_send_hdrinc's error path) with the rest of its bytes never written.

  rawfault.py DST

Sends, from a raw socket (IPPROTO_RAW: the IP header is the caller's), a
100-byte IPv4 UDP datagram to DST port 9 whose first 28 bytes (its IP and
UDP headers) end a readable page and whose other 72 are on a page that
cannot be read. The send must fail with EFAULT: prints "EFAULT", else
exits 1.
"""
import ctypes
import errno
import socket
import struct
import sys

PROT_NONE, PROT_READ, PROT_WRITE = 0, 1, 2
MAP_PRIVATE, MAP_ANONYMOUS = 0x02, 0x20
PAGE = 4096
HEAD = 28
LEN = 100


def main(dst):
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mmap.restype = ctypes.c_void_p
    libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int,
                          ctypes.c_int, ctypes.c_int, ctypes.c_long]
    libc.mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    libc.sendto.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_size_t,
                            ctypes.c_int, ctypes.c_void_p, ctypes.c_uint]
    base = libc.mmap(None, 2 * PAGE, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
    if base in (None, ctypes.c_void_p(-1).value):
        sys.exit("rawfault: mmap failed")
    if libc.mprotect(base + PAGE, PAGE, PROT_NONE):
        sys.exit("rawfault: mprotect failed")
    d = socket.inet_aton(dst)
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, LEN, 0x1234, 0, 64, 17, 0,
                     b"\0\0\0\0", d)
    udp = struct.pack("!HHHH", 40000, 9, LEN - 20, 0)
    ctypes.memmove(base + PAGE - HEAD, ip + udp, HEAD)
    s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_RAW)
    sa = struct.pack("=HH4s8s", socket.AF_INET, 0, d, b"\0" * 8)
    r = libc.sendto(s.fileno(), base + PAGE - HEAD, LEN, 0, sa, len(sa))
    e = ctypes.get_errno()
    if r >= 0 or e != errno.EFAULT:
        sys.exit("rawfault: sendto returned %d (%s), not EFAULT" % (
            r, errno.errorcode.get(e, e)))
    print("EFAULT")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
