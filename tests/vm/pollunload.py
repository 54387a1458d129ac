#!/usr/bin/env python3
"""Pollers of the proc file across an unload of the module.

  pollunload.py PROC

Opens PROC and registers it with epoll, and a second thread waits in
poll() on it with no timeout, so that both have an entry on the module's
wait queue. Prints "waiting" once the poll() has begun. The module is
unloaded meanwhile (the caller's rmmod): the poll() must return. On a
line "close" on stdin, closes the epoll descriptor and then PROC (epoll
takes its entry off the wait queue then, after the module is gone) and
prints "closed polled N" (N: what the poll() returned, as a mask).
"""
import os
import select
import sys
import threading
import time


def main(proc):
    fd = os.open(proc, os.O_RDONLY | os.O_NONBLOCK)
    ep = select.epoll()
    ep.register(fd, select.EPOLLIN)
    ep.poll(0)
    got = []
    p = select.poll()
    p.register(fd, select.POLLIN)

    def wait():
        got.append(p.poll())
    t = threading.Thread(target=wait, daemon=True)
    t.start()
    # the thread is in poll() well before the caller's rmmod; one whose
    # poll() returned already (the file ready at once) would make the
    # unload's wake-up untested: that fails here
    time.sleep(0.5)
    if not t.is_alive():
        sys.exit("pollunload: poll() returned before the unload: %r" % got)
    sys.stdout.write("waiting\n")
    sys.stdout.flush()
    for line in sys.stdin:
        if line.strip() == "close":
            t.join(10)
            if t.is_alive():
                sys.exit("pollunload: poll() did not return after the unload")
            mask = 0
            for _, ev in got[0]:
                mask |= ev
            ep.close()
            os.close(fd)
            sys.stdout.write("closed polled %#x\n" % mask)
            sys.stdout.flush()
            return
    sys.exit("pollunload: stdin ended before close")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
