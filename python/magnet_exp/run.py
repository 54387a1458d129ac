"""magnet-exp run: an experiment end to end on this host (as root).

Three network namespaces joined by veth pairs, the bottleneck on the
router:

    mx-snd                 mx-rtr                          mx-rcv
    snd0 10.77.1.1 --- rtr0 10.77.1.2 | rtr1 10.77.2.1 --- rcv0 10.77.2.2
         (7101)            (7102)        (7103)               (7104)
                     <- netem: return delay/loss
                                        -> netem: rate, delay, jitter,
                                           loss, limit (the bottleneck)

(ifindexes in brackets: fixed, so that a log's device records say which
device they come from). For each variant (congestion control) and
repetition: load magnet, start the reader, run iperf3 from mx-snd to
mx-rcv with that congestion control, then TEACUP's end (flush, 0.5 s,
statistics, finish), unload. Each run leaves in the output directory
<test_id>_<variant>_<rep>_<host>_magnet.bin.gz, the iperf3 JSON, the
statistics at finish; the directory also gets the spec, the kernel
release, the sysctls and the qdiscs.
"""
import gzip
import json
import os
import shutil
import socket
import subprocess
import sys
import time

from magnet_exp import spec as sp

NS_SND, NS_RTR, NS_RCV = "mx-snd", "mx-rtr", "mx-rcv"
DEVS = {"snd0": (NS_SND, 7101, "10.77.1.1/24"),
        "rtr0": (NS_RTR, 7102, "10.77.1.2/24"),
        "rtr1": (NS_RTR, 7103, "10.77.2.1/24"),
        "rcv0": (NS_RCV, 7104, "10.77.2.2/24")}
# the end hosts' devices: the ones the analysis looks at
HOST_IFINDEX = {"7101", "7104"}
RCV_ADDR = "10.77.2.2"
PORT = 5201
PROC = "/proc/net/magnet"


class RunError(RuntimeError):
    pass


def sh(*cmd, ns=None, check=True, quiet=False, **kw):
    argv = (["ip", "netns", "exec", ns] if ns else []) + list(cmd)
    p = subprocess.run(argv, capture_output=True, text=True, **kw)
    if check and p.returncode:
        raise RunError("%s: exit %d: %s" % (" ".join(argv), p.returncode,
                                            (p.stderr or p.stdout).strip()))
    return p.stdout


def teardown():
    for ns in (NS_SND, NS_RTR, NS_RCV):
        sh("ip", "netns", "del", ns, check=False)


def setup(s):
    teardown()
    for ns in (NS_SND, NS_RTR, NS_RCV):
        sh("ip", "netns", "add", ns)
        sh("ip", "link", "set", "lo", "up", ns=ns)
    for a, b in (("snd0", "rtr0"), ("rtr1", "rcv0")):
        sh("ip", "link", "add", a, "index", str(DEVS[a][1]), "netns",
           DEVS[a][0], "type", "veth", "peer", "name", b, "index",
           str(DEVS[b][1]), "netns", DEVS[b][0])
    for dev, (ns, _, addr) in DEVS.items():
        sh("ip", "addr", "add", addr, "dev", dev, ns=ns)
        # one MSS per packet at every layer: no TSO, GSO or GRO, and TCP
        # builds no multi-segment packets (software GSO would)
        sh("ethtool", "-K", dev, "tso", "off", "gso", "off", "gro", "off",
           ns=ns)
        sh("ip", "link", "set", dev, "gso_max_segs", "1", "up", ns=ns)
    sh("ip", "route", "add", "default", "via", "10.77.1.2", ns=NS_SND)
    sh("ip", "route", "add", "default", "via", "10.77.2.1", ns=NS_RCV)
    sh("sysctl", "-q", "-w", "net.ipv4.ip_forward=1", ns=NS_RTR)
    for ns in (NS_SND, NS_RCV):
        # each run starts from nothing learnt by the one before
        sh("sysctl", "-q", "-w", "net.ipv4.tcp_no_metrics_save=1", ns=ns)
    p = s["path"]
    fwd = ["tc", "qdisc", "add", "dev", "rtr1", "root", "netem", "delay",
           p["delay"]]
    if sp.time_s(p["jitter"]):
        fwd += [p["jitter"]]
    fwd += ["loss", p["loss"], "rate", p["rate"], "limit", str(p["limit"])]
    sh(*fwd, ns=NS_RTR)
    sh("tc", "qdisc", "add", "dev", "rtr0", "root", "netem", "delay",
       p["return_delay"], "loss", p["return_loss"], ns=NS_RTR)


def ensure_cc(variant):
    path = "/proc/sys/net/ipv4/tcp_available_congestion_control"
    with open(path) as f:
        if variant in f.read().split():
            return
    subprocess.run(["modprobe", "tcp_" + variant], capture_output=True)
    with open(path) as f:
        if variant not in f.read().split():
            raise RunError("congestion control '%s' is not available "
                           "(modprobe tcp_%s failed)" % (variant, variant))


def _wait_listen(port, timeout=10):
    end = time.time() + timeout
    while time.time() < end:
        out = sh("ss", "-Htln", "sport = :%d" % port, ns=NS_RCV, check=False)
        if out.strip():
            return
        time.sleep(0.05)
    raise RunError("iperf3 server not listening on %d" % port)


def load_module(module, params):
    if os.path.exists(PROC):
        raise RunError("magnet is already loaded: unload it first "
                       "(rmmod magnet)")
    argv = ["insmod", module] if module else ["modprobe", "magnet"]
    sh(*(argv + params.split()))


def one_run(s, variant, rep, outdir, module, host):
    base = "%s_%s_%d_%s" % (s["test_id"], variant, rep, host)
    params = s["magnet"]["params"]
    if "omode=" not in params:
        params += " omode=1"
    if "port=" not in params:
        params += " port=%d" % PORT
    load_module(module, params)
    log = os.path.join(outdir, base + "_magnet.bin")
    reader = None
    try:
        if s["magnet"]["reader"] == "live":
            with open(log, "wb") as f:
                reader = subprocess.Popen(["cat", PROC], stdout=f)
        sh("iperf3", "-s", "-1", "-D", "-p", str(PORT), "--logfile",
           os.path.join(outdir, base + "_iperf3_server.log"), ns=NS_RCV)
        _wait_listen(PORT)
        t = s["traffic"]
        cmd = ["iperf3", "-c", RCV_ADDR, "-p", str(PORT), "-J", "-C",
               variant, "-l", t["length"], "-P", str(t["parallel"])]
        cmd += ["-t", str(t["duration"])] if t["duration"] else \
            ["-n", t["size"]]
        out = sh(*cmd, ns=NS_SND, timeout=3600)
        with open(os.path.join(outdir, base + "_iperf3.json"), "w") as f:
            f.write(out)
        if reader is None:
            with open(log, "wb") as f:
                reader = subprocess.Popen(["cat", PROC], stdout=f)
        with open(PROC, "w") as f:
            f.write("flush\n")
        time.sleep(0.5)
        with open("/proc/net/magnet_stats") as f:
            stats = f.read()
        with open(os.path.join(outdir, base + "_magnet_stats.txt"),
                  "w") as f:
            f.write(stats)
        with open(PROC, "w") as f:
            f.write("finish\n")
        try:
            reader.wait(timeout=60)
        except subprocess.TimeoutExpired:
            reader.kill()
            raise RunError("the reader did not end after finish")
    finally:
        if reader is not None and reader.poll() is None:
            reader.kill()
        sh("pkill", "-x", "iperf3", check=False)
        sh("rmmod", "magnet", check=False)
    with open(log, "rb") as src, gzip.open(log + ".gz", "wb") as dst:
        shutil.copyfileobj(src, dst)
    os.unlink(log)
    return log + ".gz", json.loads(out)


def describe(s, outdir):
    """what the runs share: the spec, the kernel, sysctls and qdiscs"""
    with open(os.path.join(outdir, "spec.json"), "w") as f:
        json.dump(s, f, indent=1)
    with open(os.path.join(outdir, "kernel.txt"), "w") as f:
        f.write(os.uname().release + "\n")
    with open(os.path.join(outdir, "sysctl.txt"), "w") as f:
        for ns in (NS_SND, NS_RCV):
            f.write("# %s\n" % ns)
            f.write(sh("sysctl", "net.ipv4.tcp_congestion_control",
                       "net.ipv4.tcp_rmem", "net.ipv4.tcp_wmem",
                       "net.ipv4.tcp_sack", "net.ipv4.tcp_timestamps",
                       "net.ipv4.tcp_ecn", "net.ipv4.tcp_no_metrics_save",
                       ns=ns))
    with open(os.path.join(outdir, "qdisc.txt"), "w") as f:
        f.write(sh("tc", "qdisc", "show", ns=NS_RTR))
    with open(os.path.join(outdir, "topology.json"), "w") as f:
        json.dump({"devices": {d: {"netns": v[0], "ifindex": v[1],
                                   "address": v[2]}
                               for d, v in DEVS.items()},
                   "host_ifindex": sorted(HOST_IFINDEX)}, f, indent=1)


def run(s, outdir, module=None, out=sys.stdout):
    """every variant and repetition; returns [(variant, rep, log, iperf)]"""
    if os.geteuid() != 0:
        raise RunError("magnet-exp run needs root (namespaces, the module)")
    for v in s["variants"]:
        ensure_cc(v)
    os.makedirs(outdir, exist_ok=True)
    host = socket.gethostname().split(".")[0] or "host"
    runs = []
    total = len(s["variants"]) * s["repetitions"]
    started = time.time()
    setup(s)
    try:
        describe(s, outdir)
        n = 0
        for rep in range(1, s["repetitions"] + 1):
            for v in s["variants"]:
                n += 1
                left = ""
                if n > 1:
                    per = (time.time() - started) / (n - 1)
                    left = ", about %d s left" % (per * (total - n + 1))
                print("[%d/%d] %s, repetition %d of %d%s" % (
                    n, total, v, rep, s["repetitions"], left), file=out,
                    flush=True)
                log, iperf = one_run(s, v, rep, outdir, module, host)
                runs.append((v, rep, log, iperf))
    finally:
        teardown()
    print("%d runs in %.0f s, in %s" % (total, time.time() - started,
                                        outdir), file=out, flush=True)
    return runs
