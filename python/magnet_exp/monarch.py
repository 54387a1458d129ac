"""Monarch (Haeberlen et al., IMC'06): a TCP flow of this host's own,
unmodified kernel TCP, emulated over the path to a remote host that only
answers probes (docs/monarch.md).

The sender and the receiver each get a network namespace of their own,
joined to this namespace by a veth pair; both have the address LOCAL, and
both believe the other end is the remote address. In this namespace,
nftables (a table of this run's own) hands the sender's packets to
magnet-monarch-proxy's NFQUEUE queue, which sends a probe of each one's
size to the remote and accepts the packet when the answer comes; a later
chain swaps the packet's addresses (remote to local: the checksums do not
change) and policy routing by incoming device takes it to the receiver.
The receiver's packets are swapped the same way and go straight to the
sender. Conntrack is kept out (notrack). Everything is named after this
process's pid and removed at the end, on an error, and on SIGINT, SIGTERM or
SIGHUP; the removal itself cannot be interrupted: a signal during it is
noted and ignored.
"""
import errno
import json
import os
import shutil
import signal
import subprocess
import sys
import time

from magnet_exp import monarchdiag

PROBES = ("tcp", "udp", "echo", "tstamp")
LOCAL = "10.255.77.2"
GATEWAY = "10.255.77.1"


class MonarchError(Exception):
    pass


# SIGINT, SIGTERM, SIGHUP during a run: the first makes the run stop at
# its next step (Interrupted), none stops the teardown
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
_signalled = []


class Interrupted(Exception):
    pass


def _on_signal(sig, frame):
    # never raises: an exception here could land anywhere, in the
    # teardown too; the run's steps look (checkpoint())
    _signalled.append(sig)


def checkpoint():
    """raise Interrupted if a stop signal came (not during the teardown,
    which calls none)"""
    if _signalled:
        raise Interrupted


def wait(seconds):
    """sleep, a checkpoint every 0.1 s"""
    end = time.monotonic() + seconds
    while True:
        checkpoint()
        left = end - time.monotonic()
        if left <= 0:
            return
        time.sleep(min(left, 0.1))


def create(path, mode="w"):
    """a file of ours, opened as root: never through a symbolic link
    (refused: MonarchError), truncated if it is a regular file"""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC |
                     os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
    except OSError as e:
        if e.errno == errno.ELOOP:
            raise MonarchError("%s: a symbolic link: refused" % path)
        raise
    return os.fdopen(fd, mode)


# the files of a run in its directory: the proxy creates the first two
# itself (and refuses an existing one)
PROXY_FILES = ("trace.txt", "probes.pcapng")
OWN_FILES = ("proxy.txt", "iperf3.json", "monarch.json")


def proxy_path():
    here = os.path.dirname(os.path.realpath(sys.argv[0]))
    for d in (here, os.path.join(here, "..", "userspace"),
              os.path.join(os.path.dirname(__file__), "..", "..",
                           "userspace")):
        p = os.path.join(d, "magnet-monarch-proxy")
        if os.access(p, os.X_OK):
            return os.path.normpath(p)
    p = shutil.which("magnet-monarch-proxy")
    if p:
        return p
    raise MonarchError("magnet-monarch-proxy not found (make userspace)")


def sh(*args, ns=None, check=True, quiet=False, **kw):
    cmd = (["ip", "netns", "exec", ns] if ns else []) + list(args)
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True, **kw)
    if check and r.returncode:
        raise MonarchError("%s: %s" % (" ".join(cmd),
                                        (r.stderr or r.stdout).strip()))
    return r


class Setup:
    """The namespaces, veths, routes and rules of one run; undo() removes
    what was made, in reverse order, whatever failed."""

    def __init__(self, remote, tag=None):
        self.remote = remote
        self.tag = tag or str(os.getpid())
        t = self.tag
        self.snd = "magnet-monarch-%s-snd" % t
        self.rcv = "magnet-monarch-%s-rcv" % t
        self.hs = ("mms%s" % t)[:15]
        self.hr = ("mmr%s" % t)[:15]
        self.table = "magnet_monarch_%s" % t
        n = int(t) if t.isdigit() else 0
        self.queue = 40000 + n % 20000
        self.rt_s = 0x4d4f0000 + n % 0x10000 * 2
        self.rt_r = self.rt_s + 1
        self.undo_steps = []

    def step(self, undo, *args, **kw):
        checkpoint()
        sh(*args, **kw)
        if undo:
            self.undo_steps.append(undo)

    def make(self):
        r, t = self.remote, self.tag
        for ns in (self.snd, self.rcv):
            self.step(["ip", "netns", "del", ns], "ip", "netns", "add", ns)
            sh("sysctl", "-q", "-w", "net.ipv6.conf.all.disable_ipv6=1",
               "net.ipv6.conf.default.disable_ipv6=1", ns=ns)
            sh("ip", "link", "set", "lo", "up", ns=ns)
        for host, ns, dev in ((self.hs, self.snd, "ms%s" % t),
                              (self.hr, self.rcv, "mr%s" % t)):
            dev = dev[:15]
            self.step(["ip", "link", "del", host], "ip", "link", "add",
                      host, "type", "veth", "peer", "name", dev, "netns", ns)
            sh("sysctl", "-q", "-w",
               "net.ipv6.conf.%s.disable_ipv6=1" % host,
               "net.ipv4.conf.%s.forwarding=1" % host,
               "net.ipv4.conf.%s.rp_filter=0" % host)
            sh("ip", "addr", "add", GATEWAY + "/32", "dev", host,
               "noprefixroute")
            sh("ip", "link", "set", host, "up")
            sh("ip", "link", "set", dev, "up", ns=ns)
            sh("ip", "addr", "add", LOCAL + "/32", "dev", dev, ns=ns)
            sh("ip", "route", "add", GATEWAY, "dev", dev, ns=ns)
            sh("ip", "route", "add", r, "via", GATEWAY, "dev", dev, ns=ns)
            # one MSS per packet: a probe is at most one MTU
            sh("ethtool", "-K", dev, "tso", "off", "gso", "off", "gro",
               "off", ns=ns, quiet=True)
            sh("ethtool", "-K", host, "gro", "off", quiet=True)
            # ECN cannot be emulated (the remote echoes no CE mark)
            sh("sysctl", "-q", "-w", "net.ipv4.tcp_ecn=0", ns=ns)
        # packets from the sender go to the receiver, and back
        for host, other, rt in ((self.hs, self.hr, self.rt_s),
                                (self.hr, self.hs, self.rt_r)):
            self.step(["ip", "route", "flush", "table", str(rt)],
                      "ip", "route", "add", LOCAL, "dev", other,
                      "table", str(rt))
            self.step(["ip", "rule", "del", "iif", host, "lookup", str(rt)],
                      "ip", "rule", "add", "iif", host, "lookup", str(rt))
        rules = """table ip %(t)s {
  chain hold {
    type filter hook prerouting priority -300; policy accept;
    iifname "%(hs)s" ip daddr %(r)s notrack queue num %(q)d
    iifname "%(hr)s" notrack
  }
  chain swap {
    type filter hook prerouting priority -290; policy accept;
    iifname { "%(hs)s", "%(hr)s" } ip daddr %(r)s ip saddr set %(r)s ip daddr set %(l)s
  }
}
""" % {"t": self.table, "hs": self.hs, "hr": self.hr, "r": r,
       "q": self.queue, "l": LOCAL}
        self.step(["nft", "delete", "table", "ip", self.table],
                  "nft", "-f", "-", input=rules)

    def undo(self):
        errs = []
        while self.undo_steps:
            cmd = self.undo_steps.pop()
            r = sh(*cmd, check=False)
            if r.returncode:
                errs.append("%s: %s" % (" ".join(cmd), r.stderr.strip()))
        return errs


def leftovers(tag):
    """what of run @tag is still there: namespaces, the nftables table,
    devices"""
    s = Setup("192.0.2.1", tag)
    left = []
    ns = sh("ip", "netns", "list", check=False).stdout
    left += [n for n in (s.snd, s.rcv) if n in ns.split()]
    if sh("nft", "list", "table", "ip", s.table, check=False).returncode == 0:
        left.append("nft table " + s.table)
    for d in (s.hs, s.hr):
        if os.path.exists("/sys/class/net/" + d):
            left.append("device " + d)
    return left


def run(remote, probe, out, cc="cubic", nbytes=None, seconds=None,
        port=5201, closed_port=33434, hold_ms=5000, on_ready=None,
        proxy_opts=()):
    """One Monarch flow to @remote; its files in @out. Returns the
    summary (a dict), written to out/monarch.json too. @proxy_opts: more
    options for the proxy (the tests' -b)."""
    if os.geteuid() != 0:
        raise MonarchError("monarch needs root (namespaces, nftables, "
                           "raw sockets)")
    for tool in ("ip", "nft", "iperf3", "ethtool"):
        if not shutil.which(tool):
            raise MonarchError("%s is not installed" % tool)
    if probe not in PROBES:
        raise MonarchError("probe %r: one of %s" % (probe, ", ".join(PROBES)))
    if not 1 <= closed_port <= 65535:
        raise MonarchError("closed port %d: not a port (1-65535)"
                           % closed_port)
    proxy = proxy_path()
    os.makedirs(out, exist_ok=True)
    # written as root: a symbolic link is refused, not followed; the
    # proxy's files of an earlier run are removed (it creates its own)
    for name in PROXY_FILES + OWN_FILES:
        f = os.path.join(out, name)
        if os.path.islink(f):
            raise MonarchError("%s: a symbolic link: refused" % f)
        if name in PROXY_FILES and os.path.lexists(f):
            os.unlink(f)
    # the remote answers, before anything is set up
    c = sh(proxy, "-c", "-r", remote, "-p", probe, "-P", str(closed_port),
           check=False)
    if c.returncode == 3:
        raise MonarchError("%s answered none of 3 %s probes in 3 s%s"
                           % (remote, probe, "" if probe != "udp" else
                              " (ICMP port unreachable is rate-limited by "
                              "many hosts)"))
    if c.returncode:
        raise MonarchError((c.stderr or c.stdout).strip())
    st = Setup(remote)
    px = srv = cl = None
    summary = {"remote": remote, "probe": probe, "cc": cc,
               "check": c.stdout.strip()}
    old = {s: signal.getsignal(s) for s in STOP_SIGNALS}
    # Ctrl-C too when started where SIGINT is ignored (a background job)
    del _signalled[:]
    for s in STOP_SIGNALS:
        signal.signal(s, _on_signal)
    try:
        st.make()
        # names, and the inode numbers magnet's records give (netns)
        summary["namespaces"] = {
            "sender": st.snd, "receiver": st.rcv,
            "sender_netns": os.stat("/run/netns/" + st.snd).st_ino,
            "receiver_netns": os.stat("/run/netns/" + st.rcv).st_ino}
        ptxt = os.path.join(out, "proxy.txt")
        perr = create(ptxt)
        checkpoint()
        px = subprocess.Popen(
            [proxy, "-q", str(st.queue), "-r", remote, "-p", probe,
             "-P", str(closed_port), "-H", str(hold_ms),
             "-t", os.path.join(out, "trace.txt"),
             "-w", os.path.join(out, "probes.pcapng")] + list(proxy_opts),
            stderr=perr, stdin=subprocess.DEVNULL)
        # bound when it says so
        for _ in range(50):
            wait(0.1)
            if px.poll() is not None:
                raise MonarchError("magnet-monarch-proxy: %s" %
                                   open(ptxt).read().strip())
            if "queue" in open(ptxt).read():
                break
        sh("sysctl", "-q", "-w", "net.ipv4.tcp_congestion_control=" + cc,
           ns=st.snd)
        srv = subprocess.Popen(
            ["ip", "netns", "exec", st.rcv, "iperf3", "-s", "-1", "-B",
             LOCAL, "-p", str(port)], stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL)
        for _ in range(50):
            if str(port) in sh("ss", "-ltnH", ns=st.rcv).stdout:
                break
            wait(0.1)
        if on_ready:
            on_ready(st)
        amount = ["-n", str(nbytes)] if nbytes else ["-t", str(seconds or 10)]
        checkpoint()
        t0 = time.time()
        cl = subprocess.Popen(
            ["ip", "netns", "exec", st.snd, "timeout", "600", "iperf3",
             "-c", remote, "-p", str(port), "-C", cc, "-J"] + amount,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        while cl.poll() is None:
            if px.poll() is not None:
                cl.kill()
                raise MonarchError("magnet-monarch-proxy ended during the "
                                   "flow (status %s): %s" % (
                                       px.returncode,
                                       open(ptxt).read().strip()))
            wait(0.1)
        jout = cl.stdout.read()
        with create(os.path.join(out, "iperf3.json")) as f:
            f.write(jout)
        summary["seconds"] = round(time.time() - t0, 3)
        try:
            j = json.loads(jout)
        except ValueError:
            raise MonarchError("iperf3 gave no result: %s"
                               % cl.stderr.read().strip())
        if j.get("error"):
            raise MonarchError("iperf3: %s" % j["error"])
        e = j["end"]
        summary["bytes"] = e["sum_sent"]["bytes"]
        summary["mbps"] = round(e["sum_received"]["bits_per_second"] / 1e6,
                                3)
        summary["retransmits"] = e["sum_sent"].get("retransmits")
    except (Interrupted, KeyboardInterrupt):
        summary["error"] = "interrupted"
    finally:
        # from here on a signal is only noted (_on_signal): the teardown
        # runs to its end whatever comes; every signal is ours to handle
        # (a KeyboardInterrupt raised before, by another handler, has
        # already brought us here)
        for s in STOP_SIGNALS:
            signal.signal(s, _on_signal)
        for p in (cl, srv):
            if p and p.poll() is None:
                p.kill()
                p.wait()
        if px and px.poll() is None:
            px.terminate()
            try:
                px.wait(5)
            except subprocess.TimeoutExpired:
                px.kill()
                px.wait()
        errs = st.undo()
        if _signalled:
            # a signal during the teardown too: the run was interrupted
            summary["error"] = summary.get("error") or "interrupted"
            summary["signals"] = len(_signalled)
        del _signalled[:]
        for s, h in old.items():
            # interrupted: the caller is to stop, with its status (2);
            # the signals that keep coming must not kill it first
            signal.signal(s, signal.SIG_IGN
                          if summary.get("error") == "interrupted" else h)
        if errs:
            summary["teardown_errors"] = errs
    if px:
        summary["proxy"] = open(os.path.join(out, "proxy.txt")).read()
        if not summary.get("error"):
            summary["diagnosis"] = monarchdiag.diagnose(
                monarchdiag.read_trace(os.path.join(out, "trace.txt")))
    with create(os.path.join(out, "monarch.json")) as f:
        json.dump(summary, f, indent=1)
        f.write("\n")
    if summary.get("error"):
        raise MonarchError(summary["error"])
    return summary
