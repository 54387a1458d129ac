#!/usr/bin/env python3
"""A reader whose buffer faults slowly: does a reset wait for it?

  uffdread.py PROC

Reads PROC (magnet's proc file, binary mode in format 2 or 3, records
waiting) into a
buffer whose pages are missing and registered with userfaultfd, so the
kernel's copy to it waits until this program supplies the page. While
the read waits in that fault, `reset` is written to PROC from another
thread: it must finish within 5 s, because magnet faults buffers in
without holding the lock a reset takes (review finding 9). Then the page
is supplied and the read must complete with whole records.

Prints "read waited in a fault; reset took N ms; then read N bytes".
Exits 1 with a reason if the reset waited behind the fault.
"""
import ctypes
import mmap
import os
import select
import struct
import sys
import threading
import time

from procfile import whole_records

SYS_USERFAULTFD = 323   # x86_64
UFFD_API = 0xAA
UFFDIO_API = 0xC018AA3F
UFFDIO_REGISTER = 0xC020AA00
UFFDIO_ZEROPAGE = 0xC020AA04
UFFDIO_REGISTER_MODE_MISSING = 1
UFFD_EVENT_PAGEFAULT = 0x12
REC = 256

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
libc.ioctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_void_p]
libc.read.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_size_t]
libc.read.restype = ctypes.c_ssize_t


def ioctl(fd, req, buf):
    if libc.ioctl(fd, req, ctypes.addressof(buf)) < 0:
        e = ctypes.get_errno()
        sys.exit("uffdread: ioctl %#x: %s" % (req, os.strerror(e)))


def main(proc):
    page = mmap.PAGESIZE
    uffd = libc.syscall(SYS_USERFAULTFD, os.O_CLOEXEC | os.O_NONBLOCK)
    if uffd < 0:
        sys.exit("uffdread: userfaultfd: %s" % os.strerror(ctypes.get_errno()))
    api = ctypes.create_string_buffer(struct.pack("QQQ", UFFD_API, 0, 0), 24)
    ioctl(uffd, UFFDIO_API, api)

    size = 16 * page
    buf = mmap.mmap(-1, size, mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    addr = ctypes.addressof(ctypes.c_char.from_buffer(buf))
    reg = ctypes.create_string_buffer(
        struct.pack("QQQQ", addr, size, UFFDIO_REGISTER_MODE_MISSING, 0), 32)
    ioctl(uffd, UFFDIO_REGISTER, reg)

    fd = os.open(proc, os.O_RDONLY)
    # the stream's header comes from a staging buffer; the records after
    # it are copied straight from the rings, under the consume lock
    head = os.read(fd, REC)
    if len(head) != REC:
        sys.exit("uffdread: no stream header")
    version = struct.unpack_from("<H", head, 4)[0]
    got = {}

    def reader():
        got["n"] = libc.read(fd, addr, size)
        got["errno"] = ctypes.get_errno()

    t = threading.Thread(target=reader)
    t.start()
    # the read is in the fault when userfaultfd reports it
    r, _, _ = select.select([uffd], [], [], 30)
    if not r:
        sys.exit("uffdread: the read did not fault on its buffer in 30 s")
    msg = os.read(uffd, 32)
    event, fault_addr = msg[0], struct.unpack_from("Q", msg, 16)[0]
    if event != UFFD_EVENT_PAGEFAULT:
        sys.exit("uffdread: userfaultfd event %#x, not a page fault" % event)

    done = {}

    def reset():
        t0 = time.monotonic()
        wfd = os.open(proc, os.O_WRONLY)
        os.write(wfd, b"reset")
        os.close(wfd)
        done["ms"] = (time.monotonic() - t0) * 1000

    w = threading.Thread(target=reset, daemon=True)
    w.start()
    w.join(5)
    waited = w.is_alive()

    # supply every page the read asks for, until it returns
    while t.is_alive():
        zp = ctypes.create_string_buffer(
            struct.pack("QQQq", fault_addr & ~(page - 1), page, 0, 0), 32)
        if libc.ioctl(uffd, UFFDIO_ZEROPAGE, ctypes.addressof(zp)) < 0 and \
                ctypes.get_errno() != 17:   # EEXIST: already there
            sys.exit("uffdread: UFFDIO_ZEROPAGE: %s"
                     % os.strerror(ctypes.get_errno()))
        r, _, _ = select.select([uffd], [], [], 0.2)
        if r:
            try:
                msg = os.read(uffd, 32)
                fault_addr = struct.unpack_from("Q", msg, 16)[0]
            except BlockingIOError:
                pass
    t.join()
    w.join(10)
    if waited:
        sys.exit("uffdread: the reset waited more than 5 s behind a reader's "
                 "page fault (took %s)" % ("%.0f ms" % done["ms"] if "ms" in done
                                          else "more than 15 s"))
    n = got["n"]
    if n < 0:
        sys.exit("uffdread: read: %s" % os.strerror(got["errno"]))
    if n == 0 or not whole_records(buf[:n], version):
        sys.exit("uffdread: read %d bytes, not whole records" % n)
    print("read waited in a fault; reset took %.0f ms; then read %d bytes"
          % (done["ms"], n))


if __name__ == "__main__":
    main(sys.argv[1])
