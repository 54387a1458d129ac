#!/usr/bin/env python3
"""usage: stallmeter.py OUT

Until killed, sleep 5 ms at a time and append to OUT one line for each
wake-up that came more than 2 ms late: the wall-clock time (CLOCK_REALTIME,
s, as ttpb2ascii's time column) the sleep began, then how late it woke (s).
What it measures is the guest's own slowness, independent of magnet: a
vCPU the emulator or the host did not run (QEMU TCG on a busy two-core
host), or a guest too busy to run a task. A packet or a timer in the guest
waits as long, so a checker of delays (checkexp.py sweep) widens its upper
bound by the stalls within a run. Each line is flushed as written; the
first line is the meter's start, "start TIME", and a line "alive TIME"
follows each second, so a reader can tell the meter ran past a time."""
import sys
import time

NAP = 0.005
LATE = 0.002


def main():
    with open(sys.argv[1], "a") as out:
        out.write("start %.6f\n" % time.time())
        out.flush()
        beat = time.monotonic()
        while True:
            t0, m0 = time.time(), time.monotonic()
            if m0 - beat >= 1:
                out.write("alive %.6f\n" % t0)
                out.flush()
                beat = m0
            time.sleep(NAP)
            late = time.monotonic() - m0 - NAP
            if late > LATE:
                out.write("%.6f %.6f\n" % (t0, late))
                out.flush()


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        pass
