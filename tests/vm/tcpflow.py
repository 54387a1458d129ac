#!/usr/bin/python3
"""A TCP flow with what iperf3 cannot do: a socket mark, or a connection
held open (quiet) so that `ss -tin` can be read while it exists.

  tcpflow.py serve PORT                 accept one connection (IPv4 or
                                        IPv6), read to EOF, exit
  tcpflow.py send HOST PORT BYTES [--mark N] [--hold SECONDS] [--portfile F]
                [--quietfile Q] [--until U] [--cc NAME] [--infofile I]
                                        send BYTES (with congestion control
                                        NAME), wait (up to 60 s) until the
                                        peer has acked them all; with I, 1 s
                                        later write the socket's TCP_INFO,
                                        TCP_CC_INFO and cookie (SO_COOKIE)
                                        to I as JSON, then
                                        send one byte more (so a tcp_out
                                        record has this state); create Q,
                                        hold the connection open SECONDS (or,
                                        with U, until file U exists, at most
                                        SECONDS), close; F gets the local
                                        port
"""
import json
import os
import socket
import sys
import time

SO_MARK = 36


def serve(port):
    s = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("::", int(port)))
    s.listen(1)
    c, _ = s.accept()
    while c.recv(65536):
        pass
    c.close()
    s.close()


TCP_CC_INFO = 26
SO_COOKIE = 57
# struct tcp_info's offsets (include/uapi/linux/tcp.h, the same since 5.x)
TCP_INFO_FIELDS = (
    ("app_limited", 7, "B"), ("sacked", 28, "I"), ("lost", 32, "I"),
    ("snd_mss", 16, "I"), ("pacing_rate", 104, "Q"), ("bytes_acked", 120, "Q"),
    ("bytes_received", 128, "Q"), ("min_rtt", 148, "I"),
    ("delivery_rate", 160, "Q"), ("delivered", 192, "I"),
    ("delivered_ce", 196, "I"), ("bytes_sent", 200, "Q"))


def tcp_info(s):
    """The TCP_INFO fields above and TCP_CC_INFO's words of socket @s."""
    import struct
    b = s.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 232)
    info = {k: struct.unpack_from("<" + f, b, off)[0]
            for k, off, f in TCP_INFO_FIELDS}
    info["app_limited"] &= 1       # tcpi_delivery_rate_app_limited:1
    cc = s.getsockopt(socket.IPPROTO_TCP, TCP_CC_INFO, 20)
    info["cc_info"] = list(struct.unpack("<%dI" % (len(cc) // 4), cc))
    info["cc"] = s.getsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION,
                              16).rstrip(b"\0").decode()
    # the id `ss -e` shows as sk:, and magnet's sock_id
    info["cookie"] = struct.unpack("<Q", s.getsockopt(socket.SOL_SOCKET,
                                                      SO_COOKIE, 8))[0]
    return info


def send(host, port, nbytes, mark=None, hold=0.0, portfile=None, quietfile=None,
         until=None, cc=None, infofile=None):
    fam = socket.AF_INET6 if ":" in host else socket.AF_INET
    s = socket.socket(fam, socket.SOCK_STREAM)
    if mark is not None:
        s.setsockopt(socket.SOL_SOCKET, SO_MARK, int(mark))
    if cc is not None:
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, cc.encode())
    s.connect((host, int(port)))
    if portfile:
        with open(portfile, "w") as f:
            f.write("%d\n" % s.getsockname()[1])
    s.sendall(b"m" * int(nbytes))
    # wait for the peer's ACKs: the send queue drains (SIOCOUTQ = TIOCOUTQ)
    import fcntl
    import termios
    import array
    for _ in range(6000):
        buf = array.array("i", [0])
        fcntl.ioctl(s.fileno(), termios.TIOCOUTQ, buf)
        if buf[0] == 0:
            break
        time.sleep(0.01)
    else:
        sys.exit("tcpflow: %d bytes still unacked after 60 s" % buf[0])
    if infofile:
        # the receiver's window updates as it reads the last bytes
        time.sleep(1)
        info = tcp_info(s)
        s.sendall(b"m")
        with open(infofile, "w") as f:
            json.dump(info, f)
    if quietfile:
        open(quietfile, "w").close()
    if until:
        # released by the test, not by the clock: a loaded host can stall
        # the guest for seconds between two of its steps
        end = time.monotonic() + float(hold)
        while not os.path.exists(until):
            if time.monotonic() > end:
                sys.exit("tcpflow: %s did not appear within %s s" % (until, hold))
            time.sleep(0.05)
    else:
        time.sleep(float(hold))
    s.close()


def main(argv):
    if len(argv) >= 3 and argv[1] == "serve":
        serve(argv[2])
    elif len(argv) >= 5 and argv[1] == "send":
        opts = dict(zip(argv[5::2], argv[6::2]))
        send(argv[2], argv[3], argv[4], mark=opts.get("--mark"),
             hold=opts.get("--hold", 0), portfile=opts.get("--portfile"),
             quietfile=opts.get("--quietfile"), until=opts.get("--until"),
             cc=opts.get("--cc"), infofile=opts.get("--infofile"))
    else:
        print(__doc__)
        sys.exit(1)


if __name__ == "__main__":
    main(sys.argv)
