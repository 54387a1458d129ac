#!/usr/bin/env python3
"""Many TCP connections: open at once, or short ones in a row.

  churn.py ADDR PORT N
      Listens on ADDR:PORT and opens N connections, all kept open until the
      last: each sends one byte, which the server side reads. Then all
      close. 2N sockets exist at once, so none reuses a freed socket's
      memory (whose id would then repeat). Prints "N connections".

  churn.py serve PORT
      A server for `short`: listens on [::]:PORT (IPv4 and IPv6), reads one
      byte from each connection and closes it (every 4th with a reset),
      until a connection sends "q". Prints what it saw.

  churn.py short ADDR4 ADDR6 PORT N [LOCAL4 LOCAL6]
      N short connections to a `serve` server, IPv4 and IPv6 in turn:
      connect, send a byte, read to the server's close, close. Of every
      ten, one closes first with a reset instead, one is refused (PORT+1,
      where nothing listens), and one goes to a listening socket the
      client opens for it on an ephemeral port of its own address (LOCAL4,
      LOCAL6; default loopback) and then closes. Ends by
      sending "q". Prints the counts.

  churn.py same ADDR PORT N
      Listens on ADDR:PORT and opens N connections in a row, all from the
      same local port (PORT+1): the same four-tuple each time. Each sends
      a byte, which the server side reads, and both sides close with a
      reset, so no TIME_WAIT socket keeps the tuple or the memory: a new
      connection's sockets mostly take the last ones' freed memory. Prints
      "N connections with one four-tuple".
"""
import resource
import socket
import struct
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


def linger0(s):
    s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))


def serve(port):
    lsn = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
    lsn.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    lsn.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
    lsn.bind(("::", port))
    lsn.listen(128)
    n = resets = 0
    while True:
        s = lsn.accept()[0]
        s.settimeout(10)
        try:
            b = s.recv(1)
        except OSError:
            b = b""
        n += 1
        if b == b"q":
            s.close()
            break
        if n % 4 == 0:
            linger0(s)
            resets += 1
        s.close()
    lsn.close()
    print("served %d connections, %d closed with a reset" % (n, resets))


def short(addr4, addr6, port, n, local4="127.0.0.1", local6="::1"):
    counts = {"served": 0, "reset": 0, "refused": 0, "local": 0}
    for i in range(n):
        addr = addr4 if i % 2 == 0 else addr6
        fam = socket.AF_INET6 if ":" in addr else socket.AF_INET
        kind = i % 10
        if kind == 7:
            try:
                socket.create_connection((addr, port + 1), timeout=10).close()
                sys.exit("churn: port %d accepted a connection" % (port + 1))
            except ConnectionRefusedError:
                counts["refused"] += 1
            continue
        if kind == 9:
            lsn = socket.socket(fam, socket.SOCK_STREAM)
            lsn.bind((local4 if fam == socket.AF_INET else local6, 0))
            lsn.listen(1)
            c = socket.create_connection(lsn.getsockname()[:2], timeout=10)
            s = lsn.accept()[0]
            c.sendall(b"x")
            if s.recv(1) != b"x":
                sys.exit("churn: no byte on the local connection")
            s.close()
            c.close()
            lsn.close()
            counts["local"] += 1
            continue
        c = socket.create_connection((addr, port), timeout=10)
        c.sendall(b"x")
        if kind == 3:
            linger0(c)
            c.close()
            counts["reset"] += 1
            continue
        try:
            while c.recv(64):
                pass
        except ConnectionResetError:
            pass
        c.close()
        counts["served"] += 1
    c = socket.create_connection((addr4, port), timeout=10)
    c.sendall(b"q")
    c.close()
    print("%d connections: %d served, %d closed first with a reset, %d refused, "
          "%d to a listening socket of their own"
          % (n, counts["served"], counts["reset"], counts["refused"], counts["local"]))


def same(addr, port, n):
    fam = socket.AF_INET6 if ":" in addr else socket.AF_INET
    lsn = socket.socket(fam, socket.SOCK_STREAM)
    lsn.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    lsn.bind((addr, port))
    lsn.listen(1)
    for _ in range(n):
        c = socket.socket(fam, socket.SOCK_STREAM)
        c.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        c.bind((addr, port + 1))
        c.connect((addr, port))
        s = lsn.accept()[0]
        c.sendall(b"x")
        if s.recv(1) != b"x":
            sys.exit("churn: no byte")
        linger0(s)
        s.close()
        linger0(c)
        c.close()
    lsn.close()
    print("%d connections with one four-tuple" % n)


if __name__ == "__main__":
    if sys.argv[1] == "same":
        same(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
    elif sys.argv[1] == "serve":
        serve(int(sys.argv[2]))
    elif sys.argv[1] == "short":
        short(sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]),
              *sys.argv[6:8])
    else:
        main(sys.argv)
