#!/usr/bin/env python3
"""UDP datagrams for the qdisc cases (tests/vm/cases/47-qdisc.sh), from a
connected socket, so that the kernel numbers their IP ids in sequence.

  udpsend.py ADDR PORT COUNT SIZE [GSO]

COUNT sends of SIZE bytes each to ADDR:PORT, a millisecond apart (a send
refused by an earlier port unreachable is made again); with GSO,
each send is one packet of SIZE bytes that the stack cuts into GSO-byte
datagrams (UDP_SEGMENT, Linux 4.18 on) only where it must: the qdisc that
splits it, or the device. Prints the sends that succeeded; exits 1 if any
failed.
"""
import socket
import sys
import time

SOL_UDP = 17
UDP_SEGMENT = 103


def main(addr, port, count, size, gso=None):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    if gso:
        s.setsockopt(SOL_UDP, UDP_SEGMENT, int(gso))
    s.connect((addr, int(port)))
    data = bytes(int(size))
    sent = 0
    for _ in range(int(count)):
        # a port unreachable from the other end (nothing listens there)
        # fails the next send of a connected socket, which sent nothing:
        # sent once more
        for _ in range(3):
            try:
                if s.send(data) == len(data):
                    sent += 1
                break
            except ConnectionRefusedError:
                continue
            except OSError as e:
                print("send: %s" % e, file=sys.stderr)
                break
        time.sleep(0.001)
    print(sent)
    return 0 if sent == int(count) else 1


if __name__ == "__main__":
    if len(sys.argv) not in (5, 6):
        sys.exit(__doc__)
    sys.exit(main(*sys.argv[1:]))
