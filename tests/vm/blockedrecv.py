#!/usr/bin/env python3
"""More application calls in flight than magnet's kretprobes have instances
for (maxactive), to check that probe misses reach the stream.

  blockedrecv.py ADDR PORT N

Listens on ADDR:PORT, connects N clients to it, and blocks N threads in
recv() on the accepted sockets at once: each holds a tcp_recvmsg kretprobe
instance until it returns, so with maxactive=1 at least N - 1 of them are
misses. After a second each client sends one byte, every recv returns,
then 20 more messages go back and forth on the first connection (so the
next tcp_recvmsg entries notice the misses and their CPUs report them in
the stream before the end), and all sockets close.
Prints "blocked N receivers".
"""
import socket
import sys
import threading
import time


def main(argv):
    addr, port, n = argv[1], int(argv[2]), int(argv[3])
    lsn = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    lsn.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    lsn.bind((addr, port))
    lsn.listen(n)
    clients, servers = [], []
    for _ in range(n):
        c = socket.create_connection((addr, port))
        clients.append(c)
        servers.append(lsn.accept()[0])
    got = [None] * n
    started = threading.Barrier(n + 1)

    def recv(i):
        started.wait()
        got[i] = servers[i].recv(16)

    threads = [threading.Thread(target=recv, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    started.wait()
    time.sleep(1)      # every thread is in recv() by now
    for c in clients:
        c.sendall(b"x")
    for t in threads:
        t.join(10)
    if any(g != b"x" for g in got):
        sys.exit("blockedrecv: a receiver got %r" % (got,))
    for _ in range(20):
        clients[0].sendall(b"y")
        if servers[0].recv(16) != b"y":
            sys.exit("blockedrecv: ping-pong broke")
        servers[0].sendall(b"z")
        if clients[0].recv(16) != b"z":
            sys.exit("blockedrecv: ping-pong broke")
        time.sleep(0.01)
    for s in clients + servers + [lsn]:
        s.close()
    print("blocked %d receivers" % n)


if __name__ == "__main__":
    main(sys.argv)
