#!/usr/bin/env python3
"""Many TCP connections open at once.

  churn.py ADDR PORT N

Listens on ADDR:PORT and opens N connections, all kept open until the
last: each sends one byte, which the server side reads. Then all close.
2N sockets exist at once, so none reuses a freed socket's memory (whose
id would then repeat). Prints "N connections".
"""
import resource
import socket
import sys


def main(argv):
    addr, port, n = argv[1], int(argv[2]), int(argv[3])
    fam = socket.AF_INET6 if ":" in addr else socket.AF_INET
    resource.setrlimit(resource.RLIMIT_NOFILE, (2 * n + 64, 2 * n + 64))
    lsn = socket.socket(fam, socket.SOCK_STREAM)
    lsn.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    lsn.bind((addr, port))
    lsn.listen(64)
    socks = []
    for _ in range(n):
        c = socket.create_connection((addr, port))
        s = lsn.accept()[0]
        c.sendall(b"x")
        if s.recv(1) != b"x":
            sys.exit("churn: no byte")
        socks += [c, s]
    for s in socks:
        s.close()
    lsn.close()
    print("%d connections" % n)


if __name__ == "__main__":
    main(sys.argv)
