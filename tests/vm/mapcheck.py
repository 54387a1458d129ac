#!/usr/bin/env python3
"""The mapped reading interface's edges (module/uapi/mapio.h, procfs-commands.md
"Mapped reading"), from a program other than magnet-record.

  mapcheck.py refused     the module is loaded in a mode with no mapping
                          (not format 3 binary): MAP_INFO and mmap fail with
                          EINVAL, TAKE too
  mapcheck.py edges FILE  format 3 binary: a mapping of the wrong size or
                          offset fails with EINVAL, a writable one with
                          EPERM (the file open for reading and writing),
                          mprotect cannot make it writable, a forked
                          child has no map (SIGSEGV) but has it after
                          MADV_DOFORK (or that fails with EINVAL), a map
                          whose pages were dropped (MADV_DONTNEED) raises
                          SIGBUS (no fault handler), TAKE
                          before mmap and TAKE with a buffer too small fail
                          with EINVAL; once what the open writes first is
                          taken it writes "ready" to FILE and waits for
                          records (the caller makes traffic): a TAKE with
                          its pieces at an unmapped address fails with
                          EFAULT and takes nothing, the next returns them
                          as pieces of the map; after FILE.done appears
                          (the traffic is over), taken a piece at a time,
                          the file polls readable after each piece but the
                          last (held records are not waiting ones)
  mapcheck.py unload FILE maps the rings, TAKEs once (the SYSINFO header),
                          writes "mapped" to FILE, waits until the module is
                          gone, then reads every byte of the map: its pages
                          outlive the module
  mapcheck.py faults OUT  format 3 binary, bufsize large enough for the
                          traffic: maps the rings, TAKEs what the open
                          writes first, writes "ready" to OUT.ready and
                          waits for OUT.go (the caller makes traffic), then:
                          a TAKE whose struct is read-only fails with
                          EFAULT and takes nothing (the count it could not
                          return would lose the records); a read() of
                          128 MiB of untouched memory commits no more than
                          16 MiB of it (the reader faults in a chunk, not
                          the whole buffer); then TAKEs to the end of the
                          stream (OUT.checked once the checks are done).
                          Every piece and byte goes to OUT in
                          order: the caller checks that it accounts for
                          every hit
"""
import ctypes
import errno
import fcntl
import mmap
import os
import select
import signal as signals
import struct
import sys
import time

PROC = "/proc/net/magnet"
INFO = struct.Struct("<IIQQII")
TAKE = struct.Struct("<QQIIII")
SEG = struct.Struct("<QII")
MAGIC = 0xb6
MADV_DONTNEED = 4
MADV_DONTFORK = 10
MADV_DOFORK = 11


def ioc(direction, nr, size):
    return (direction << 30) | (size << 16) | (MAGIC << 8) | nr


MAP_INFO = ioc(2, 1, INFO.size)         # _IOR
TAKE_IOC = ioc(3, 2, TAKE.size)         # _IOWR
libc = ctypes.CDLL(None, use_errno=True)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int,
                      ctypes.c_int, ctypes.c_int, ctypes.c_long]
libc.mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
libc.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
libc.ioctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_void_p]
libc.read.restype = ctypes.c_ssize_t
libc.read.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_size_t]
MAP_FAILED = ctypes.c_void_p(-1).value
MAP_NORESERVE = getattr(mmap, "MAP_NORESERVE", 0x4000)   # Python < 3.13


def fail(msg):
    print("mapcheck: FAIL: " + msg)
    sys.exit(1)


def expect_errno(what, want, fn):
    try:
        fn()
    except OSError as e:
        if e.errno != want:
            fail("%s: %s, not %s" % (what, errno.errorcode.get(e.errno),
                                     errno.errorcode[want]))
        print("%s: %s, as it should" % (what, errno.errorcode[want]))
        return
    fail("%s: succeeded" % what)


def signal(path, word):
    """tell the caller: @word in the file @path"""
    with open(path, "w") as f:
        f.write(word + "\n")


def wait_until(cond, what, seconds=60):
    """poll @cond every 0.1 s; fail naming @what after @seconds"""
    for _ in range(seconds * 10):
        if cond():
            return
        time.sleep(0.1)
    fail("%s within %d s" % (what, seconds))


def c_mmap(fd, size, prot, off=0):
    addr = libc.mmap(None, size, prot, mmap.MAP_SHARED, fd, off)
    if addr == MAP_FAILED or addr is None:
        e = ctypes.get_errno()
        raise OSError(e, os.strerror(e))
    return addr


def info(fd):
    buf = bytearray(INFO.size)
    fcntl.ioctl(fd, MAP_INFO, buf)
    ncpus, slot, ring, size, maxsegs, _ = INFO.unpack(buf)
    if slot != 256 or ring % mmap.PAGESIZE or size != ring * ncpus or not maxsegs:
        fail("MAP_INFO: %d CPUs, slot %d, ring %d, map %d, %d pieces"
             % (ncpus, slot, ring, size, maxsegs))
    return ncpus, ring, size


def take(fd, buf, segs, nsegs, buf_size=None):
    arg = bytearray(TAKE.pack(ctypes.addressof(buf), segs,
                              len(buf) if buf_size is None else buf_size,
                              nsegs, 0, 0))
    fcntl.ioctl(fd, TAKE_IOC, arg)
    return TAKE.unpack(arg)[4:]


def cmd_refused():
    fd = os.open(PROC, os.O_RDONLY)
    expect_errno("MAP_INFO", errno.EINVAL, lambda: info(fd))
    expect_errno("mmap", errno.EINVAL,
                 lambda: c_mmap(fd, mmap.PAGESIZE, mmap.PROT_READ))
    buf = ctypes.create_string_buffer(65536)
    segs = ctypes.create_string_buffer(SEG.size * 16)
    expect_errno("TAKE", errno.EINVAL,
                 lambda: take(fd, buf, ctypes.addressof(segs), 16))
    os.close(fd)


def child_reads(who, fd, addr, size, dontneed, want):
    """a forked child reads the first byte of the map at @addr, or if
    @dontneed of one it makes of @fd itself, after a first read and
    MADV_DONTNEED: it must exit, or die of signal @want"""
    pid = os.fork()
    if pid == 0:
        try:
            if dontneed:
                addr = c_mmap(fd, size, mmap.PROT_READ)
                ctypes.string_at(addr, 1)
                if libc.madvise(addr, size, MADV_DONTNEED):
                    os._exit(3)
            ctypes.string_at(addr, 1)
            os._exit(0)
        finally:
            os._exit(4)
    _, status = os.waitpid(pid, 0)
    got = (signals.Signals(os.WTERMSIG(status)) if os.WIFSIGNALED(status)
           else None)
    if got != want or (not got and os.WEXITSTATUS(status)):
        fail("%s reading the map: status %#x, not %s"
             % (who, status, want.name if want else "a clean exit"))
    print("%s reading the map: %s" % (who, got.name if got else "read it"))


def cmd_edges(path):
    # read and write: a writable shared map of a read-only file is refused
    # before the module sees it (EACCES); this one reaches its refusal
    fd = os.open(PROC, os.O_RDWR)
    ncpus, ring, size = info(fd)
    print("MAP_INFO: %d CPUs, %d bytes each" % (ncpus, ring))
    buf = ctypes.create_string_buffer(65536)
    segs = ctypes.create_string_buffer(SEG.size * 16)
    expect_errno("TAKE before mmap", errno.EINVAL,
                 lambda: take(fd, buf, ctypes.addressof(segs), 16))
    expect_errno("mmap one page short", errno.EINVAL,
                 lambda: c_mmap(fd, size - mmap.PAGESIZE, mmap.PROT_READ))
    expect_errno("mmap at an offset", errno.EINVAL,
                 lambda: c_mmap(fd, size, mmap.PROT_READ, mmap.PAGESIZE))
    expect_errno("mmap writable", errno.EPERM,
                 lambda: c_mmap(fd, size, mmap.PROT_READ | mmap.PROT_WRITE))
    addr = c_mmap(fd, size, mmap.PROT_READ)
    if libc.mprotect(addr, size, mmap.PROT_READ | mmap.PROT_WRITE) == 0:
        fail("mprotect made the map writable")
    print("mprotect writable: %s, as it should"
          % errno.errorcode[ctypes.get_errno()])
    # a forked child has no map (VM_DONTCOPY); after MADV_DOFORK, where the
    # kernel allows it, it reads the rings too; a map whose pages were
    # dropped (MADV_DONTNEED) raises SIGBUS: it has no fault handler (it
    # outlives the module)
    child_reads("a child", fd, addr, size, False, signals.SIGSEGV)
    if libc.madvise(addr, size, MADV_DOFORK) == 0:
        child_reads("a child after MADV_DOFORK", fd, addr, size, False,
                    None)
        if libc.madvise(addr, size, MADV_DONTFORK):
            fail("MADV_DONTFORK: %s" % os.strerror(ctypes.get_errno()))
    elif ctypes.get_errno() == errno.EINVAL:
        print("MADV_DOFORK: EINVAL, refused by this kernel")
    else:
        fail("MADV_DOFORK: %s" % os.strerror(ctypes.get_errno()))
    child_reads("a child's own map after MADV_DONTNEED", fd, None, size,
                True, signals.SIGBUS)
    expect_errno("TAKE with a 1 KiB buffer", errno.EINVAL,
                 lambda: take(fd, buf, ctypes.addressof(segs), 16, 1024))
    # the first piece: the SYSINFO header, staged
    n, flags = take(fd, buf, ctypes.addressof(segs), 16)
    off, ln, fl = SEG.unpack_from(segs, 0)
    if n != 1 or fl != 1 or off != 0 or buf.raw[:4] != struct.pack("<I", 0x01234567):
        fail("first TAKE: %d pieces, flags %d, piece %d+%d flags %d"
             % (n, flags, off, ln, fl))
    print("first TAKE: the %d-byte header, staged" % ln)
    # what the open writes first (FLOW records again) and any record
    # waiting, until none is left
    fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) | os.O_NONBLOCK)
    while True:
        try:
            take(fd, buf, ctypes.addressof(segs), 16)
        except BlockingIOError:
            break
    signal(path, "ready")
    # the caller makes traffic: records wait
    p = select.poll()
    p.register(fd, select.POLLIN)
    if not p.poll(60000):
        fail("no record within 60 s")
    time.sleep(0.5)
    scratch = anon(mmap.PAGESIZE)
    libc.munmap(scratch, mmap.PAGESIZE)
    expect_errno("TAKE into an unmapped page", errno.EFAULT,
                 lambda: take(fd, buf, scratch, 16))
    # the records are still there for a good TAKE, as pieces of the map
    n, flags = take(fd, buf, ctypes.addressof(segs), 16)
    if n == 0:
        fail("no piece after the failed TAKE")
    for i in range(n):
        off, ln, fl = SEG.unpack_from(segs, i * SEG.size)
        if fl != 0 or off >= size or off % 256 or ln < 32 or ln > 256:
            fail("piece %d: %d+%d flags %d" % (i, off, ln, fl))
    print("then %d pieces of the map, the first %d bytes at %d"
          % (n, SEG.unpack_from(segs, 0)[1], SEG.unpack_from(segs, 0)[0]))
    # once the traffic is over: a piece at a time, the file is readable
    # while records wait that no TAKE returned, and not for held ones
    wait_until(lambda: os.path.exists(path + ".done"), "no %s.done" % path)
    ready, pieces = [], 0
    while True:
        try:
            n, _ = take(fd, buf, ctypes.addressof(segs), 1)
        except BlockingIOError:
            break
        pieces += n
        ready.append(bool(p.poll(0)))
    if len(ready) < 2 or not all(ready[:-1]) or ready[-1]:
        fail("of %d single pieces, the file was not readable after those at %s"
             % (pieces, [i for i, r in enumerate(ready) if not r][:10] or "none"))
    print("%d single pieces: readable after each but the last" % pieces)
    os.close(fd)


def cmd_unload(path):
    fd = os.open(PROC, os.O_RDONLY)
    _, _, size = info(fd)
    addr = c_mmap(fd, size, mmap.PROT_READ)
    buf = ctypes.create_string_buffer(65536)
    segs = ctypes.create_string_buffer(SEG.size * 16)
    take(fd, buf, ctypes.addressof(segs), 16)
    signal(path, "mapped")
    wait_until(lambda: not os.path.exists("/sys/module/magnet"),
               "the module was not unloaded")
    data = ctypes.string_at(addr, size)
    # the pages are the map's still, not freed memory read by chance: the
    # same bytes after the kernel has had to hand out 256 MiB of pages
    # (a map without its own page references would show other data, or
    # zeros, once they are reused)
    if data.count(0) == len(data):
        fail("the map reads as zeros after the unload")
    churn = anon(256 << 20)
    ctypes.memset(churn, 0x5a, 256 << 20)
    libc.munmap(churn, 256 << 20)
    with open("/proc/sys/vm/drop_caches", "w") as f:
        f.write("3\n")
    again = ctypes.string_at(addr, size)
    if again != data:
        fail("the map changed after the unload: %d of %d bytes differ"
             % (sum(1 for a, b in zip(data, again) if a != b), size))
    print("read all %d bytes of the map after the unload, %d not zero, the "
          "same after 256 MiB of other pages were handed out"
          % (len(data), len(data) - data.count(0)))
    libc.munmap(addr, size)
    os.close(fd)


def rss_anon():
    for line in open("/proc/self/status"):
        if line.startswith("RssAnon:"):
            return int(line.split()[1]) * 1024
    fail("no RssAnon in /proc/self/status")


def anon(size, prot=mmap.PROT_READ | mmap.PROT_WRITE):
    addr = libc.mmap(None, size, prot,
                     mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | MAP_NORESERVE,
                     -1, 0)
    if addr == MAP_FAILED or addr is None:
        fail("mmap of %d bytes: %s" % (size, os.strerror(ctypes.get_errno())))
    return addr


def write_pieces(out, addr, buf, segs, n):
    for i in range(n):
        off, ln, fl = SEG.unpack_from(segs, i * SEG.size)
        out.write(buf.raw[off:off + ln] if fl & 1
                  else ctypes.string_at(addr + off, ln))


def cmd_faults(path):
    fd = os.open(PROC, os.O_RDONLY | os.O_NONBLOCK)
    _, _, size = info(fd)
    addr = c_mmap(fd, size, mmap.PROT_READ)
    buf = ctypes.create_string_buffer(65536)
    nsegs = 1024
    segs = ctypes.create_string_buffer(SEG.size * nsegs)
    out = open(path, "wb")

    def drain():
        while True:
            try:
                n, flags = take(fd, buf, ctypes.addressof(segs), nsegs)
            except BlockingIOError:
                return False
            write_pieces(out, addr, buf, segs, n)
            if flags & 1:
                return True

    drain()
    signal(path + ".ready", "ready")
    wait_until(lambda: os.path.exists(path + ".go"), "no %s.go" % path, 120)
    p = select.poll()
    p.register(fd, select.POLLIN)
    if not p.poll(10000):
        fail("no record waiting after the traffic")
    # the struct readable, not writable: refused before a record is taken
    ro = anon(mmap.PAGESIZE)
    ctypes.memmove(ro, TAKE.pack(ctypes.addressof(buf), ctypes.addressof(segs),
                                 len(buf), nsegs, 0, 0), TAKE.size)
    libc.mprotect(ro, mmap.PAGESIZE, mmap.PROT_READ)
    if libc.ioctl(fd, TAKE_IOC, ro) != -1:
        fail("TAKE with a read-only struct succeeded")
    e = ctypes.get_errno()
    if e != errno.EFAULT:
        fail("TAKE with a read-only struct: %s, not EFAULT" % errno.errorcode.get(e))
    print("TAKE with a read-only struct: EFAULT, as it should")
    if not p.poll(0):
        fail("no record waiting after the refused TAKE")
    # a large read() into memory never touched: the fault-in is bounded
    big = 128 << 20
    dst = anon(big)
    before = rss_anon()
    got = libc.read(fd, dst, big)
    if got <= 0:
        fail("read() of %d bytes: %d (%s)" % (big, got, os.strerror(ctypes.get_errno())))
    grew = rss_anon() - before
    out.write(ctypes.string_at(dst, got))
    print("read() of 128 MiB untouched: %d bytes, resident memory +%d KiB"
          % (got, grew >> 10))
    if grew > 16 << 20:
        fail("a read() of %d bytes committed %d KiB of its buffer" % (got, grew >> 10))
    libc.munmap(dst, big)
    signal(path + ".checked", "checked")
    # blocking now: drain() returns at the end of the stream
    fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) & ~os.O_NONBLOCK)
    drain()
    out.close()
    libc.munmap(addr, size)
    os.close(fd)


def main(argv):
    if len(argv) == 2 and argv[1] == "refused":
        cmd_refused()
    elif len(argv) == 3 and argv[1] == "edges":
        cmd_edges(argv[2])
    elif len(argv) == 3 and argv[1] == "unload":
        cmd_unload(argv[2])
    elif len(argv) == 3 and argv[1] == "faults":
        cmd_faults(argv[2])
    else:
        print(__doc__)
        sys.exit(2)


if __name__ == "__main__":
    main(sys.argv)
