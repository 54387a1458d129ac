#!/usr/bin/env python3
"""Many short TCP connections, one after another.

  churn.py ADDR PORT N

Listens on ADDR:PORT; N times: connect, send one byte, the server side
reads it, both close. Prints "N connections".
"""
import socket
import sys


def main(argv):
    addr, port, n = argv[1], int(argv[2]), int(argv[3])
    fam = socket.AF_INET6 if ":" in addr else socket.AF_INET
    lsn = socket.socket(fam, socket.SOCK_STREAM)
    lsn.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    lsn.bind((addr, port))
    lsn.listen(64)
    for _ in range(n):
        c = socket.socket(fam, socket.SOCK_STREAM)
        c.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\1\0\0\0\0\0\0\0")
        c.connect((addr, port))
        s = lsn.accept()[0]
        c.sendall(b"x")
        if s.recv(1) != b"x":
            sys.exit("churn: no byte")
        c.close()
        s.close()
    lsn.close()
    print("%d connections" % n)


if __name__ == "__main__":
    main(sys.argv)
