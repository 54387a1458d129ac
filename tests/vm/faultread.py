#!/usr/bin/python3
"""A reader of magnet's binary stream whose buffers fault, for the reader
fault suite (stress_reader_faults, tests/vm/cases/92-stress.sh).

  faultread.py OUT GO

Reads the 256-byte header (format 2 or 3), creates OUT.ready and waits for the file GO
(records are buffered by then), then, with raw read(2) calls into memory
it maps and unmaps itself:
  1. a whole-record read into an unmapped buffer: must fail with EFAULT;
  2. an 8 KiB read into a buffer whose second page is unmapped: must
     return whole records that fit the first page (a short read), or
     EFAULT; never more than the mapped page;
  3. a 100-byte read (the staging path) into an unmapped buffer: EFAULT;
then reads until end of file with reads of 1, 7, 255 and 4097 bytes in
turn. Everything returned goes to OUT in order, so OUT is the stream as
a reader that survived the faults saw it; the suite checks that it
accounts for every hit (nothing lost that was not copied).
"""
import ctypes
import errno
import mmap
import os
import sys
import time

from procfile import read_to_eof, whole_records

PROC = os.environ.get("MAGNET_PROC", "/proc/net/magnet")
PAGE = mmap.PAGESIZE
SIZES = (1, 7, 255, 4097)

libc = ctypes.CDLL(None, use_errno=True)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int,
                      ctypes.c_int, ctypes.c_int, ctypes.c_long)
libc.munmap.argtypes = (ctypes.c_void_p, ctypes.c_size_t)
libc.read.restype = ctypes.c_ssize_t
libc.read.argtypes = (ctypes.c_int, ctypes.c_void_p, ctypes.c_size_t)


def fail(msg):
    print("faultread: FAIL: " + msg)
    sys.exit(1)


def pages(n):
    """n pages of fresh memory; the caller unmaps what it wants to fault"""
    addr = libc.mmap(None, n * PAGE, mmap.PROT_READ | mmap.PROT_WRITE,
                     mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS, -1, 0)
    if addr in (None, ctypes.c_void_p(-1).value):
        fail("mmap failed")
    return addr


def raw_read(fd, addr, n):
    ret = libc.read(fd, addr, n)
    return ret, (ctypes.get_errno() if ret < 0 else 0)


def main(out, go):
    fd = os.open(PROC, os.O_RDONLY)
    f = open(out, "wb")
    hdr = b""
    while len(hdr) < 256:
        hdr += os.read(fd, 256 - len(hdr))
    f.write(hdr)
    f.flush()
    open(out + ".ready", "w").close()
    for _ in range(600):
        if os.path.exists(go):
            break
        time.sleep(0.1)
    else:
        fail("no %s within 60 s" % go)

    # 1. nothing mapped at all
    a = pages(1)
    libc.munmap(a, PAGE)
    ret, err = raw_read(fd, a, 4096)
    if ret != -1 or err != errno.EFAULT:
        fail("read into an unmapped buffer: %d (%s), want EFAULT"
             % (ret, errno.errorcode.get(err, err)))
    print("unmapped: EFAULT")

    # 2. the first page mapped, the second not
    a = pages(2)
    libc.munmap(a + PAGE, PAGE)
    ret, err = raw_read(fd, a, 2 * PAGE)
    if ret < 0 and err != errno.EFAULT:
        fail("half-mapped read: %s" % errno.errorcode.get(err, err))
    version = int.from_bytes(hdr[4:6], "little")
    if ret > PAGE or (ret > 0 and not whole_records(ctypes.string_at(a, ret), version)):
        fail("half-mapped read returned %d bytes (page %d)" % (ret, PAGE))
    if ret > 0:
        f.write(ctypes.string_at(a, ret))
    print("half-mapped: %s" % ("EFAULT" if ret < 0 else "%d bytes" % ret))
    libc.munmap(a, PAGE)

    # 3. the staging path
    a = pages(1)
    libc.munmap(a, PAGE)
    ret, err = raw_read(fd, a, 100)
    if ret != -1 or err != errno.EFAULT:
        fail("100-byte read into an unmapped buffer: %d, want EFAULT" % ret)
    print("staging: EFAULT")

    reads, total = read_to_eof(fd, f, SIZES)
    f.close()
    os.close(fd)
    print("faultread ok: then %d reads, %d bytes" % (reads, total))


if __name__ == "__main__":
    if len(sys.argv) != 3:
        fail(__doc__)
    main(sys.argv[1], sys.argv[2])
