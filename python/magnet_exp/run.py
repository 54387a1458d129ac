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
device they come from). With [path] relays = N, N more namespaces
mx-rl1..mx-rlN sit between the router and mx-rcv, each on two veths
(rl<k>i 10.77.<k+1>.2, rl<k>o 10.77.<k+2>.1, ifindexes 7109+2k and
7110+2k; mx-rcv's rcv0 becomes 10.77.<N+2>.2), each running a socat
per flow port that relays the flow's connections to the next: the data
crosses N+1 TCP stacks. The sender always connects to 10.77.2.2 (the
receiver, or the first relay), through the bottleneck.

For each variant (congestion control) and repetition: load magnet, start
the reader, start the flows (the iperf3 flow of [traffic], or every
[[flows]] at its start time: iperf3 from mx-snd to mx-rcv with that
congestion control, or a command), then TEACUP's end (flush, 0.5 s,
statistics, finish), unload. Each run leaves in the output directory
<test_id>_<variant>_<rep>_<host>_magnet.bin.gz, the iperf3 JSON (per
flow: ..._<flow>_iperf3.json, ..._<flow>_command.log, and
..._flows.json), the statistics at finish; the directory also gets the
spec, the kernel release, the sysctls and the qdiscs.
"""
import gzip
import json
import os
import shutil
import socket
import subprocess
import signal
import sys
import threading
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
SND_ADDR = "10.77.1.1"
# every address of the path: the filter when the flows use several ports
NET = "10.77.0.0/16"


def relay_ns(k):
    return "mx-rl%d" % k


def topology(relays):
    """the path with @relays relays: {"devices": {dev: (netns, ifindex,
    address/24)}, "links": [(dev, dev)] (veth pairs), "relays": [(netns,
    the next hop's address)], "hops": [(local address, remote address)]
    of the connection leaving each TCP stack, sender first, "receiver":
    the receiver's address, "host_ifindex": the ifindexes of the
    devices of the TCP stacks (the router's left out)}"""
    devs = {d: v for d, v in DEVS.items() if d != "rcv0"}
    links = [("snd0", "rtr0")]
    prev = "rtr1"
    hosts = set(HOST_IFINDEX)
    rel = []
    for k in range(1, relays + 1):
        i, o = "rl%di" % k, "rl%do" % k
        devs[i] = (relay_ns(k), 7109 + 2 * k, "10.77.%d.2/24" % (k + 1))
        devs[o] = (relay_ns(k), 7110 + 2 * k, "10.77.%d.1/24" % (k + 2))
        hosts |= {str(7109 + 2 * k), str(7110 + 2 * k)}
        links.append((prev, i))
        rel.append((relay_ns(k), "10.77.%d.2" % (k + 2)))
        prev = o
    rcv = "10.77.%d.2" % (relays + 2)
    devs["rcv0"] = (NS_RCV, DEVS["rcv0"][1], rcv + "/24")
    links.append((prev, "rcv0"))
    hops = [(SND_ADDR, RCV_ADDR)] + [
        ("10.77.%d.1" % (k + 2), "10.77.%d.2" % (k + 2))
        for k in range(1, relays + 1)]
    return {"devices": devs, "links": links, "relays": rel, "hops": hops,
            "receiver": rcv, "host_ifindex": hosts}


class RunError(RuntimeError):
    pass


def sh(*cmd, ns=None, check=True, quiet=False, **kw):
    argv = (["ip", "netns", "exec", ns] if ns else []) + list(cmd)
    p = subprocess.run(argv, capture_output=True, text=True, **kw)
    if check and p.returncode:
        raise RunError("%s: exit %d: %s" % (" ".join(argv), p.returncode,
                                            (p.stderr or p.stdout).strip()))
    return p.stdout


class held_sigint:
    """a block SIGINT (Ctrl-C) cannot break in the middle: loading the
    module (an insmod killed mid-way leaves it loaded, nobody to unload
    it) and the cleanup after a run (unloaded, the namespaces removed).
    A SIGINT during the block is noted and acted on as it ends, by the
    handler there was before (KeyboardInterrupt by Python's own). Where
    SIGINT is ignored, or off the main thread, the block changes
    nothing."""

    def __enter__(self):
        self.old = None
        self.got = False
        if threading.current_thread() is not threading.main_thread():
            return self
        old = signal.getsignal(signal.SIGINT)
        if old in (signal.SIG_IGN, None):
            return self

        def note(sig, frame):
            self.got = True
        self.old = old
        signal.signal(signal.SIGINT, note)
        return self

    def __exit__(self, et, ev, tb):
        if self.old is None:
            return False
        signal.signal(signal.SIGINT, self.old)
        if self.got and et is None:
            if self.old is signal.SIG_DFL:
                os.kill(os.getpid(), signal.SIGINT)
            else:
                self.old(signal.SIGINT, None)
        return False


def teardown():
    have = sh("ip", "netns", "list", check=False).split()
    for ns in [NS_SND, NS_RTR, NS_RCV] + [
            relay_ns(k) for k in range(1, sp.MAX_RELAYS + 1)]:
        if ns in have:
            sh("ip", "netns", "del", ns, check=False)


def setup(s):
    teardown()
    topo = topology(s["path"]["relays"])
    devs = topo["devices"]
    relays = [ns for ns, _ in topo["relays"]]
    for ns in [NS_SND, NS_RTR, NS_RCV] + relays:
        sh("ip", "netns", "add", ns)
        sh("ip", "link", "set", "lo", "up", ns=ns)
    for a, b in topo["links"]:
        sh("ip", "link", "add", a, "index", str(devs[a][1]), "netns",
           devs[a][0], "type", "veth", "peer", "name", b, "index",
           str(devs[b][1]), "netns", devs[b][0])
    for dev, (ns, _, addr) in devs.items():
        sh("ip", "addr", "add", addr, "dev", dev, ns=ns)
        # one MSS per packet at every layer: no TSO, GSO or GRO, and TCP
        # builds no multi-segment packets (software GSO would)
        sh("ethtool", "-K", dev, "tso", "off", "gso", "off", "gro", "off",
           ns=ns)
        sh("ip", "link", "set", dev, "gso_max_segs", "1", "up", ns=ns)
    sh("ip", "route", "add", "default", "via", "10.77.1.2", ns=NS_SND)
    if relays:
        # the first relay answers the sender through the router; the
        # others talk to their neighbours only
        sh("ip", "route", "add", "default", "via", "10.77.2.1",
           ns=relays[0])
    sh("ip", "route", "add", "default", "via", devs[topo["links"][-1][0]][2]
       .split("/")[0], ns=NS_RCV)
    sh("sysctl", "-q", "-w", "net.ipv4.ip_forward=1", ns=NS_RTR)
    for ns in [NS_SND, NS_RCV] + relays:
        # each run starts from nothing learnt by the one before
        sh("sysctl", "-q", "-w", "net.ipv4.tcp_no_metrics_save=1", ns=ns)
    set_path(s["path"])


def set_path(p):
    """[path]'s bottleneck on the router (one combination's values):
    netem toward the receiver, and toward the sender, new (counters
    from 0)"""
    fwd = ["tc", "qdisc", "replace", "dev", "rtr1", "root", "netem",
           "delay", p["delay"]]
    if sp.time_s(p["jitter"]):
        fwd += [p["jitter"]]
    fwd += ["loss", p["loss"], "rate", p["rate"], "limit", str(p["limit"])]
    for dev in ("rtr1", "rtr0"):
        # replace would keep a netem's counters
        sh("tc", "qdisc", "del", "dev", dev, "root", ns=NS_RTR, check=False)
    sh(*fwd, ns=NS_RTR)
    sh("tc", "qdisc", "replace", "dev", "rtr0", "root", "netem", "delay",
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


def _wait_listen(port, timeout=10, ns=NS_RCV, what="iperf3 server"):
    end = time.time() + timeout
    while time.time() < end:
        out = sh("ss", "-Htln", "sport = :%d" % port, ns=ns, check=False)
        if out.strip():
            return
        time.sleep(0.05)
    raise RunError("%s not listening on %d in %s" % (what, port, ns))


def not_loaded():
    if os.path.exists(PROC):
        raise RunError("magnet is already loaded: unload it first "
                       "(rmmod magnet)")


def load_module(module, params):
    argv = ["insmod", module] if module else ["modprobe", "magnet"]
    with held_sigint():
        sh(*(argv + params.split()))


def _bg(argv, ns, log):
    """a background process in @ns, its own process group (a relay's
    forks with it), its output into @log"""
    with open(log, "w") as f:
        return subprocess.Popen(["ip", "netns", "exec", ns] + argv,
                                stdout=f, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL,
                                start_new_session=True)


def _stop(p, wait=0):
    """@p, given @wait s to end by itself, then its process group
    terminated; its exit status if it ended by itself, else None"""
    try:
        return p.wait(timeout=wait)
    except subprocess.TimeoutExpired:
        pass
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(p.pid, sig)
        except ProcessLookupError:
            break
        try:
            p.wait(timeout=5)
            break
        except subprocess.TimeoutExpired:
            continue
    return None


def _fill(text, **kw):
    """a command's placeholders {addr}, {port}, {variant} (only these:
    other braces, an awk program's, stay as they are)"""
    for k, v in kw.items():
        text = text.replace("{%s}" % k, str(v))
    return text


def _wait_quiet(nss, ports, timeout=10):
    """until no connection on @ports is established in @nss (a relay
    closes its side once the other has): their ends go into the log"""
    filt = "( %s )" % " or ".join("sport = :%d or dport = :%d" % (p, p)
                                  for p in ports)
    end = time.time() + timeout
    while time.time() < end:
        if not any(sh("ss", "-Htn", "state", "established", filt, ns=ns,
                      check=False).strip() for ns in nss):
            return
        time.sleep(0.1)


def flow_files(base, f):
    """a flow's files, by its name (none for [traffic]'s flow)"""
    b = base if f["name"] is None else "%s_%s" % (base, f["name"])
    if f["command"] is None:
        return {"client": b + "_iperf3.json",
                "server": b + "_iperf3_server.log"}
    return {"client": b + "_command.log", "server": b + "_server.log"}


def flow_record(f, files):
    """a flow's entry in flows.json, before it runs"""
    return {"name": f["name"], "port": f["port"], "start": f["start"],
            "kind": "iperf3" if f["command"] is None else "command",
            "files": files, "iperf3": None}


def client_argv(f, addr, variant):
    """a flow's client toward @addr: (argv, None) of iperf3 -c with the
    variant, or (sh -c its command, the command) with {addr}, {port} and
    {variant} filled"""
    if f["command"] is None:
        argv = ["iperf3", "-c", addr, "-p", str(f["port"]), "-J", "-C",
                variant, "-l", f["length"], "-P", str(f["parallel"])]
        argv += ["-t", str(f["duration"])] if f["duration"] else \
            ["-n", f["size"]]
        return argv, None
    cmd = _fill(f["command"], addr=addr, port=f["port"], variant=variant)
    return ["sh", "-c", cmd], cmd


def client_result(r, f, out, err, path):
    """a flow's client ended (r["exit"] set): its file at @path (iperf3's
    JSON, or the command, its output and status), r["iperf3"], and
    r["error"]; iperf3 -J exiting 0 after an error counts as a failure"""
    with open(path, "w") as fo:
        if f["command"] is None:
            fo.write(out)
        else:
            fo.write("$ %s\n%s%s[exit %s]\n" % (
                r["command"], out, err, r["exit"]))
    if f["command"] is None:
        try:
            r["iperf3"] = json.loads(out)
        except ValueError:
            pass
    r["error"] = (err or out).strip()[-500:]
    # iperf3 -J (3.12) can exit 0 after an error; its JSON says so
    if isinstance(r.get("iperf3"), dict) and r["iperf3"].get("error"):
        r["error"] = str(r["iperf3"]["error"])
        if r["exit"] == 0:
            r["exit"] = "0 (its JSON reports an error)"


def write_flows(path, flows):
    """<base>_flows.json: run_flows()'s list without iperf3's JSON (in its
    own file)"""
    with open(path, "w") as f:
        json.dump([{k: v for k, v in r.items() if k != "iperf3"}
                   for r in flows], f, indent=1)
        f.write("\n")


def run_flows(s, variant, base, outdir):
    """the flows of one run: the receivers' servers, the relays, then each
    flow from the sender at its start time; returns [a dict per flow:
    name, port, kind, start, started and ended (s after the first flow
    began), exit, files, iperf3 (its JSON, or None)]"""
    topo = topology(s["path"]["relays"])
    flows = sp.flows_of(s)
    bg = []
    try:
        servers = []
        for f in flows:
            files = flow_files(base, f)
            srv = os.path.join(outdir, files["server"])
            if f["command"] is None:
                argv = ["iperf3", "-s", "-1", "-p", str(f["port"]),
                        "--logfile", srv]
            elif f["server"]:
                argv = ["sh", "-c", _fill(f["server"], addr=topo["receiver"],
                                          port=f["port"], variant=variant)]
            else:
                servers.append(None)
                continue
            p = _bg(argv, NS_RCV, srv if f["command"] else os.devnull)
            servers.append(p)
            bg.append(p)
            _wait_listen(f["port"], what="%s's server" % (f["name"] or
                                                          "iperf3"))
        # the relays, from the receiver back: each listens once the next
        # hop does
        for ns, nxt in reversed(topo["relays"]):
            for f in flows:
                bg.append(_bg(["socat", "TCP-LISTEN:%d,reuseaddr,fork"
                               % f["port"], "TCP:%s:%d" % (nxt, f["port"])],
                              ns, os.devnull))
                _wait_listen(f["port"], ns=ns, what="the relay")
        results = [None] * len(flows)
        t0 = time.time()

        def client(i, f):
            files = flow_files(base, f)
            r = flow_record(f, files)
            results[i] = r
            time.sleep(max(0, t0 + f["start"] - time.time()))
            r["started"] = round(time.time() - t0, 3)
            argv, cmd = client_argv(f, RCV_ADDR, variant)
            if cmd is not None:
                r["command"] = cmd
            try:
                p = subprocess.run(["ip", "netns", "exec", NS_SND] + argv,
                                   capture_output=True, text=True,
                                   timeout=3600)
                r["exit"] = p.returncode
                out, err = p.stdout, p.stderr
            except subprocess.TimeoutExpired as e:
                r["exit"] = None
                out, err = e.stdout or "", "timed out after 3600 s"
                out = out.decode() if isinstance(out, bytes) else out
            r["ended"] = round(time.time() - t0, 3)
            client_result(r, f, out, err,
                          os.path.join(outdir, files["client"]))

        threads = [threading.Thread(target=client, args=(i, f))
                   for i, f in enumerate(flows)]
        for th in threads:
            th.start()
        for th in threads:
            th.join()
        bad = ["flow %s: %s exited with status %s: %s" % (
            r["name"] or "iperf3", "iperf3" if r["kind"] == "iperf3" else
            "command '%s'" % r["command"], r["exit"], r["error"])
            for r in results if r["exit"] != 0]
        # the servers end with their connection (iperf3 -s -1 after its
        # test); a server still running after 30 s is stopped
        for f, p, r in zip(flows, servers, results):
            if p is None:
                continue
            st = _stop(p, 30)
            r["server_exit"] = st
            if st not in (0, None) and f["command"] is not None:
                bad.append("flow %s: server '%s' exited with status %d "
                           "(%s)" % (f["name"], f["server"], st,
                                     flow_files(base, f)["server"]))
        _wait_quiet([ns for ns, _ in topo["relays"]] + [NS_RCV, NS_SND],
                    [f["port"] for f in flows])
        if bad:
            raise RunError("; ".join(bad))
    finally:
        for p in bg:
            _stop(p)
    for r in results:
        r.pop("error", None)
    return results


def module_params(s):
    """the module's parameters for a run of @s: [magnet] params, with
    omode=1 and the flows' port unless given; and whether the flows use
    several ports, which the port filter cannot name (it has one): then
    port=0, and the caller narrows by address with a filter command"""
    params = s["magnet"]["params"]
    if "omode=" not in params:
        params += " omode=1"
    ports = sorted({f["port"] for f in sp.flows_of(s)})
    several = False
    if "port=" not in params:
        if len(ports) == 1:
            params += " port=%d" % ports[0]
        else:
            params += " port=0"
            several = True
    return params, several


def run_base(s, params, variant, rep, host):
    """a run's files' common name: test id, the sweep's combination (if
    any), variant, repetition, host"""
    tag = sp.params_tag(params)
    return "_".join([s["test_id"]] + ([tag] if tag else []) +
                    [variant, str(rep), host])


def one_run(s, variant, rep, outdir, module, host, params=None):
    base = run_base(s, params or {}, variant, rep, host)
    # the commands and the relays use the namespaces' default
    topo = topology(s["path"]["relays"])
    for ns in [NS_SND, NS_RCV] + [ns for ns, _ in topo["relays"]]:
        sh("sysctl", "-q", "-w", "net.ipv4.tcp_congestion_control=" +
           variant, ns=ns)

    def traffic():
        flows = run_flows(s, variant, base, outdir)
        if sp.listed(s):
            write_flows(os.path.join(outdir, base + "_flows.json"), flows)
            return flows
        return flows[0]["iperf3"]

    def qdiscs():
        # the router's qdiscs as the run left them: the path it had (a
        # sweep's combination) and the kernel's own counts, drops
        # included
        with open(os.path.join(outdir, base + "_qdisc.txt"), "w") as f:
            f.write(sh("tc", "-s", "qdisc", "show", ns=NS_RTR))

    return recorded(s, module, os.path.join(outdir, base + "_magnet.bin"),
                    traffic, qdiscs)


def recorded(s, module, log, traffic, at_end=None):
    """traffic() with magnet recording: the module loaded with @s's
    parameters, its reader into @log (<...>_magnet.bin) from the start
    (or, with [magnet] reader "after", once traffic() returned), then
    TEACUP's end (flush, 0.5 s, the statistics into <...>_magnet_stats.txt,
    at_end(), finish), the module unloaded, the log gzipped and its text
    logs written. Returns (the log's path, what traffic() returned)."""
    modparams, several = module_params(s)
    # every port, the path's addresses
    filt = "filter addr=%s\n" % NET if several else None
    not_loaded()
    reader = None
    try:
        # inside the try: a SIGINT as insmod returns still unloads it
        load_module(module, modparams)
        if filt:
            with open(PROC, "w") as f:
                f.write(filt)
        if s["magnet"]["reader"] == "live":
            with open(log, "wb") as f:
                reader = subprocess.Popen(["cat", PROC], stdout=f)
        out = traffic()
        if reader is None:
            with open(log, "wb") as f:
                reader = subprocess.Popen(["cat", PROC], stdout=f)
        with open(PROC, "w") as f:
            f.write("flush\n")
        time.sleep(0.5)
        with open("/proc/net/magnet_stats") as f:
            stats = f.read()
        with open(log[:-len(".bin")] + "_stats.txt", "w") as f:
            f.write(stats)
        if at_end:
            at_end()
        with open(PROC, "w") as f:
            f.write("finish\n")
        try:
            reader.wait(timeout=60)
        except subprocess.TimeoutExpired:
            reader.kill()
            raise RunError("the reader did not end after finish")
    finally:
        with held_sigint():
            if reader is not None and reader.poll() is None:
                reader.kill()
                reader.wait()
            sh("pkill", "-x", "iperf3", check=False)
            sh("rmmod", "magnet", check=False)
    # gzip's own default level: 3 times faster than Python's 9 for 2%
    # more bytes (a 12 MB all-layer log: 0.13 s and 759 KB, against 0.40 s
    # and 741 KB; under emulation, seconds a run)
    with open(log, "rb") as src, gzip.open(log + ".gz", "wb",
                                           compresslevel=6) as dst:
        shutil.copyfileobj(src, dst)
    os.unlink(log)
    text_logs(s, log + ".gz")
    return log + ".gz", out


def text_logs(s, log):
    """[magnet] text_logs: beside @log (<...>_magnet.bin.gz), the same
    records as <...>_ttprobe.log.gz and <...>_web10g.log.gz, written by
    ttpb2ascii -f ttprobe / web10g (TEACUP's analysis reads these)"""
    if not s["magnet"].get("text_logs"):
        return []
    from magnet_exp import textlog
    tool = textlog.find_ttpb2ascii()
    out = []
    for fmt in s["magnet"]["text_logs"]:
        dst = log[:-len("_magnet.bin.gz")] + "_%s.log.gz" % fmt
        p = subprocess.run([tool, "-f", fmt, log], capture_output=True)
        if p.returncode:
            raise RunError("%s -f %s %s: exit %d: %s" % (
                tool, fmt, log, p.returncode, p.stderr.decode(
                    errors="replace").strip()))
        with gzip.open(dst, "wb", compresslevel=6) as f:
            f.write(p.stdout)
        out.append(dst)
    return out


# the offloads provenance.json records per device (ethtool -k's names)
OFFLOADS = ("tcp-segmentation-offload", "generic-segmentation-offload",
            "generic-receive-offload", "large-receive-offload")


def _cmd_out(argv, ns=None):
    """@argv's standard output (in namespace @ns), or None if it could not
    run"""
    if ns:
        argv = ["ip", "netns", "exec", ns] + argv
    try:
        return subprocess.run(argv, capture_output=True, text=True,
                              timeout=10).stdout
    except (OSError, subprocess.SubprocessError):
        return None


def provenance(devices):
    """what the runs ran on: the kernel, the CPUs, the virtual machine as
    systemd-detect-virt --vm names it ("none" on bare metal, "qemu" under
    QEMU's software emulation (TCG), "kvm" with KVM, ...; None if it could
    not tell), the container as --container names it ("none", "docker",
    ...: a guest whose root is a container's files can look like one),
    QEMU's -icount options when the environment's MAGNET_EXP_ICOUNT gives
    them (a guest cannot tell it runs on instruction-counted time: make
    demo's VM does and says so), and each of @devices' ({dev: (netns,
    ...)}) offloads as ethtool -k shows them"""
    model = None
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    virt = (_cmd_out(["systemd-detect-virt", "--vm"]) or "").strip() or None
    cont = (_cmd_out(["systemd-detect-virt", "--container"]) or "").strip() \
        or None
    offloads = {}
    for dev, v in sorted(devices.items()):
        text = _cmd_out(["ethtool", "-k", dev], ns=v[0]) or ""
        got = {}
        for line in text.splitlines():
            k, _, val = line.partition(":")
            if k.strip() in OFFLOADS:
                got[k.strip()] = val.split()[0] if val.split() else None
        offloads[dev] = got
    return {"kernel": os.uname().release, "machine": os.uname().machine,
            "cpus": os.cpu_count(), "cpu_model": model,
            "virtualization": virt, "container": cont,
            "icount": os.environ.get("MAGNET_EXP_ICOUNT") or None,
            "offloads": offloads}


def describe(s, outdir):
    """what the runs share: the spec, the kernel, sysctls and qdiscs, and
    what they ran on (provenance.json)"""
    with open(os.path.join(outdir, "spec.json"), "w") as f:
        json.dump(s, f, indent=1)
    with open(os.path.join(outdir, "kernel.txt"), "w") as f:
        f.write(os.uname().release + "\n")
    topo = topology(s["path"]["relays"])
    with open(os.path.join(outdir, "sysctl.txt"), "w") as f:
        for ns in [NS_SND] + [ns for ns, _ in topo["relays"]] + [NS_RCV]:
            f.write("# %s\n" % ns)
            f.write(sh("sysctl", "net.ipv4.tcp_congestion_control",
                       "net.ipv4.tcp_rmem", "net.ipv4.tcp_wmem",
                       "net.ipv4.tcp_sack", "net.ipv4.tcp_timestamps",
                       "net.ipv4.tcp_ecn", "net.ipv4.tcp_no_metrics_save",
                       ns=ns))
    with open(os.path.join(outdir, "qdisc.txt"), "w") as f:
        f.write(sh("tc", "qdisc", "show", ns=NS_RTR))
    with open(os.path.join(outdir, "provenance.json"), "w") as f:
        json.dump(provenance(topo["devices"]), f, indent=1)
        f.write("\n")
    # each namespace's inode, the netns its records carry: which host
    # a record is about
    names = [(NS_SND, "sender"), (NS_RTR, "router")] + [
        (ns, "relay %d" % k) for k, (ns, _) in enumerate(topo["relays"], 1)
    ] + [(NS_RCV, "receiver")]
    inodes = {}
    for ns, role in names:
        try:
            inodes[str(os.stat("/run/netns/" + ns).st_ino)] = \
                "%s (%s)" % (role, ns)
        except OSError:
            pass
    with open(os.path.join(outdir, "topology.json"), "w") as f:
        json.dump({"devices": {d: {"netns": v[0], "ifindex": v[1],
                                   "address": v[2]}
                               for d, v in topo["devices"].items()},
                   "netns_hosts": inodes,
                   "host_ifindex": sorted(topo["host_ifindex"]),
                   "relays": [ns for ns, _ in topo["relays"]],
                   "hops": topo["hops"], "receiver": topo["receiver"]},
                  f, indent=1)


MANIFEST = "runs.json"


def _entry(v, rep, log, traffic, params):
    base = os.path.basename(log)[:-len("_magnet.bin.gz")]
    e = {"variant": v, "repetition": rep, "log": os.path.basename(log)}
    if params:
        e["params"] = params
    if isinstance(traffic, list):
        e["flows"] = base + "_flows.json"       # [[flows]]
    else:
        e["iperf3"] = base + "_iperf3.json"
    return e


def write_manifest(outdir, runs):
    """runs.json: every run done so far, for magnet-exp report DIR"""
    with open(os.path.join(outdir, MANIFEST + ".tmp"), "w") as f:
        json.dump([_entry(*r) for r in runs], f, indent=1)
        f.write("\n")
    os.replace(os.path.join(outdir, MANIFEST + ".tmp"),
               os.path.join(outdir, MANIFEST))


def _load_json(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def read_manifest(outdir):
    """[(variant, rep, log path, iperf3 JSON or None, params)] of a run
    directory (params: the sweep's combination, {} if none);
    with [[flows]], instead of iperf3's JSON, the list run_flows()
    returned (each iperf3 flow's JSON read back from its file)"""
    path = os.path.join(outdir, MANIFEST)
    try:
        with open(path) as f:
            entries = json.load(f)
    except FileNotFoundError:
        raise RunError("%s: no %s: not a directory magnet-exp run wrote"
                       % (outdir, MANIFEST)) from None
    except ValueError as e:
        raise RunError("%s: not valid JSON: %s" % (path, e)) from None
    runs = []
    for e in entries:
        if "flows" in e:
            iperf = _load_json(os.path.join(outdir, e["flows"]))
            if not isinstance(iperf, list):
                raise RunError("%s: missing or not valid JSON" %
                               os.path.join(outdir, e["flows"]))
            for r in iperf:
                if r["kind"] == "iperf3":
                    r["iperf3"] = _load_json(os.path.join(
                        outdir, r["files"]["client"]))
        else:
            iperf = _load_json(os.path.join(outdir, e["iperf3"]))
        params = e.get("params", {})
        if not isinstance(params, dict):
            raise RunError("%s: a run's params is not a table" % path)
        runs.append((e["variant"], e["repetition"],
                     os.path.join(outdir, e["log"]), iperf, params))
    return runs


def plan(s, seed=None):
    """(params, spec, variant, repetition) of every run, in the order they
    run: repetition after repetition, each holding every combination of
    a sweep with every variant once (a block: a slow drift of the
    machine favours no variant); within each block, the runs in a random
    order drawn from @seed (random.Random(seed), one draw per block, so
    the seed gives the order again), or with @seed None each combination
    in turn, within it each variant in turn (--no-shuffle)"""
    import random
    combos = sp.combinations(s)
    rng = random.Random(seed) if seed is not None else None
    runs = []
    for rep in range(1, s["repetitions"] + 1):
        block = [(params, one, v, rep) for params, one in combos
                 for v in s["variants"]]
        if rng is not None:
            rng.shuffle(block)
        runs += block
    return runs


def schedule(s, out, started, seed=None, done=0):
    """plan(s, seed)'s runs from the @done-th on (a resumed sweep: those
    before it ran already), each announced on @out with the time left,
    estimated from @started"""
    runs = plan(s, seed)
    total = len(runs)
    for n, (params, one, v, rep) in enumerate(runs[done:], done + 1):
        left = ""
        if n > done + 1:
            per = (time.time() - started) / (n - done - 1)
            left = ", about %d s left" % (per * (total - n + 1))
        print("[%d/%d] %s%s, repetition %d of %d%s" % (
            n, total, sp.params_text(params) + ": " if params
            else "", v, rep, s["repetitions"], left), file=out,
            flush=True)
        yield params, one, v, rep


def spec_order(s, runs):
    """@runs ([(variant, rep, ...), ...], params fifth) as --no-shuffle
    would have run them: by the sweep's combination, then variant, then
    repetition, as the spec lists them (a stable sort: a testbed's logs
    of one run stay together); the report reads them so, whatever order
    they ran in"""
    combos = [p for p, _ in sp.combinations(s)]
    variants = list(s["variants"])

    def key(r):
        params = r[4] if len(r) > 4 else {}
        return (combos.index(params) if params in combos else len(combos),
                variants.index(r[0]) if r[0] in variants else len(variants),
                r[1])
    return sorted(runs, key=key)


ORDER = "order.json"


def write_order(outdir, s, seed):
    """order.json: the seed (null: --no-shuffle) and every run in the
    order it runs (variant, repetition, the sweep's combination): what
    --resume continues"""
    with open(os.path.join(outdir, ORDER), "w") as f:
        json.dump({"seed": seed, "shuffled": seed is not None,
                   "order": [dict({"variant": v, "repetition": rep},
                                  **({"params": params} if params else {}))
                             for params, _, v, rep in plan(s, seed)]},
                  f, indent=1)
        f.write("\n")


def runs_of(done):
    """read_manifest()'s entries @done as runs: lists of consecutive
    entries of one variant, repetition and combination (a testbed's run
    has an entry per recording host's log; a local run one)"""
    out = []
    for e in done:
        if out and (e[0], e[1], e[4]) == (out[-1][0][0], out[-1][0][1],
                                          out[-1][0][4]):
            out[-1].append(e)
        else:
            out.append([e])
    return out


def resume_point(s, outdir):
    """(seed, runs done) of an interrupted magnet-exp run in @outdir, the
    same spec: its order.json's seed, and the entries its runs.json lists
    (read_manifest()'s; runs_of() groups them into runs), each run the
    one the order put there, with its logs (a run cut short is not
    listed: it runs again)"""
    try:
        with open(os.path.join(outdir, "spec.json")) as f:
            old = json.load(f)
        with open(os.path.join(outdir, ORDER)) as f:
            order = json.load(f)
    except FileNotFoundError as e:
        raise RunError("--resume: %s: no %s: not a run magnet-exp began" % (
            outdir, os.path.basename(e.filename))) from None
    except ValueError as e:
        raise RunError("--resume: %s: not valid JSON: %s" % (outdir, e)) \
            from None
    if old != json.loads(json.dumps(s)):
        raise RunError("--resume: %s was begun with another spec (its "
                       "spec.json differs from this one)" % outdir)
    seed = order.get("seed")
    if not isinstance(seed, (int, type(None))) or isinstance(seed, bool):
        raise RunError("--resume: %s: its %s's seed is not a number" % (
            outdir, ORDER))
    try:
        done = read_manifest(outdir)
    except RunError as e:
        if not os.path.exists(os.path.join(outdir, MANIFEST)):
            done = []
        else:
            raise RunError("--resume: %s" % e) from None
    want = plan(s, seed)
    runs = runs_of(done)
    if len(runs) > len(want):
        raise RunError("--resume: %s lists %d runs, the spec has %d" % (
            MANIFEST, len(runs), len(want)))
    for k, (run, (wp, _, wv, wrep)) in enumerate(zip(runs, want), 1):
        v, rep, _, _, params = run[0]
        if (v, rep, params) != (wv, wrep, wp):
            raise RunError("--resume: run %d of %s is %s #%d, the order "
                           "(%s, seed %s) puts %s #%d there" % (
                               k, MANIFEST, v, rep, ORDER, seed, wv, wrep))
        for e in run:
            if not os.path.exists(e[2]):
                raise RunError("--resume: run %d's log %s is missing" % (
                    k, e[2]))
    return seed, done


def warm_up(s):
    """before each run: one ping across each hop of the path, from the
    TCP stack the connection leaves (the sender, each relay), so that
    every neighbour on the way is resolved before the flow's first
    packet (without it the first run's SYN waited for the router's ARP
    behind the bottleneck's delay) and the path has carried a packet
    each way; up to 5 s each, as a lossy path may drop a ping"""
    topo = topology(s["path"]["relays"])
    nss = [NS_SND] + [ns for ns, _ in topo["relays"]]
    for ns, (_, remote) in zip(nss, topo["hops"]):
        p = subprocess.run(["ip", "netns", "exec", ns, "ping", "-c", "1",
                            "-w", "5", "-q", "-n", remote],
                           capture_output=True, text=True)
        if p.returncode:
            raise RunError("warm-up: no answer to a ping from %s to %s in "
                           "5 s: the path is down" % (ns, remote))


def run(s, outdir, module=None, out=sys.stdout, seed=None, resume=False):
    """every combination, variant and repetition, in plan(s, seed)'s order
    (order.json); with @resume, from where an interrupted run in @outdir
    stopped (its seed); returns [(variant, rep, log, iperf, params)]
    (with [[flows]], instead of iperf, run_flows()'s list; params: the
    sweep's combination, {} if none)"""
    if os.geteuid() != 0:
        raise RunError("magnet-exp run needs root (namespaces, the module)")
    runs = []
    if resume:
        seed, runs = resume_point(s, outdir)
    done = len(runs_of(runs))
    for v in s["variants"]:
        ensure_cc(v)
    if s.get("monarch"):
        os.makedirs(outdir, exist_ok=True)
        return run_monarch(s, outdir, module,
                           socket.gethostname().split(".")[0] or "host", out,
                           seed, runs if resume else None)
    if not shutil.which("socat"):
        if s["path"]["relays"]:
            raise RunError("[path] relays: socat is not installed (make "
                           "deps installs it)")
        if any(sp.listed(one) and not one.get("flows")
               for _, one in sp.combinations(s)):
            raise RunError("[traffic] source \"socat\" or \"send\": socat "
                           "(its server) is not installed (make deps "
                           "installs it)")
    os.makedirs(outdir, exist_ok=True)
    host = socket.gethostname().split(".")[0] or "host"
    total = len(plan(s))
    started = time.time()
    setup(sp.combinations(s)[0][1])
    try:
        describe(s, outdir)
        write_order(outdir, s, seed)
        if resume:
            print("resuming %s: %d of %d runs done (seed %s)" % (
                outdir, done, total, seed), file=out, flush=True)
        for params, one, v, rep in schedule(s, out, started, seed, done):
            # neighbours resolved, then every run's own qdiscs: its
            # path, counters from 0
            warm_up(one)
            set_path(one["path"])
            log, iperf = one_run(one, v, rep, outdir, module, host, params)
            runs.append((v, rep, log, iperf, params))
            write_manifest(outdir, runs)
    finally:
        with held_sigint():
            teardown()
    print("%d runs in %.0f s, in %s" % (total - done, time.time() - started,
                                        outdir), file=out, flush=True)
    return runs


def monarch_hosts(outdir, done):
    """the namespaces topology.json names for the runs @done (an
    interrupted [monarch] run's: resume_point), each of their logs'
    sender and receiver there, and each run's Monarch files beside its
    log; {} when none is done"""
    if not done:
        return {}
    path = os.path.join(outdir, "topology.json")
    topo = _load_json(path)
    hosts = topo.get("netns_hosts") if isinstance(topo, dict) else None
    if not isinstance(hosts, dict):
        raise RunError("--resume: %s: missing, or not the netns_hosts of "
                       "the runs done" % path)
    for k, e in enumerate(done, 1):
        mdir = e[2][:-len("_magnet.bin.gz")] + "_monarch" \
            if e[2].endswith("_magnet.bin.gz") else None
        if not mdir or not os.path.isfile(os.path.join(mdir,
                                                       "monarch.json")):
            raise RunError("--resume: run %d's Monarch files (%s) are "
                           "missing" % (k, mdir or e[2]))
        info = _load_json(os.path.join(mdir, "monarch.json"))
        ns = info.get("namespaces") if isinstance(info, dict) else None
        if not isinstance(ns, dict) or not all(
                str(ns.get(x)) in hosts
                for x in ("sender_netns", "receiver_netns")):
            raise RunError("--resume: run %d's namespaces (%s) are not in "
                           "%s" % (k, os.path.join(mdir, "monarch.json"),
                                   path))
    return hosts


def run_monarch(s, outdir, module, host, out, seed=None, done=None):
    """[monarch]: every run a Monarch flow to the remote (monarch.run: its
    own sender and receiver namespaces, its proxy, a flow of the run's
    variant), magnet recording it as any run; its files in
    <...>_monarch/ (trace.txt, probes.pcapng, monarch.json with the
    self-diagnosis) beside the log, iperf3's JSON as <...>_iperf3.json.
    topology.json names each run's two namespaces (their inodes, the
    netns of the records) sender and receiver. @done: the runs an
    interrupted run in @outdir ended (--resume: resume_point's), which
    stay, their hosts read back from topology.json."""
    from magnet_exp import monarch
    m = s["monarch"]
    runs = list(done or [])
    hosts = monarch_hosts(outdir, runs)
    ndone = len(runs_of(runs))
    started = time.time()
    with open(os.path.join(outdir, "spec.json"), "w") as f:
        json.dump(s, f, indent=1)
    with open(os.path.join(outdir, "kernel.txt"), "w") as f:
        f.write(os.uname().release + "\n")
    with open(os.path.join(outdir, "provenance.json"), "w") as f:
        json.dump(provenance({}), f, indent=1)
        f.write("\n")
    write_order(outdir, s, seed)
    if done is not None:
        print("resuming %s: %d of %d runs done (seed %s)" % (
            outdir, ndone, len(plan(s)), seed), file=out, flush=True)
    for params, one, v, rep in schedule(s, out, started, seed, ndone):
        base = run_base(one, params, v, rep, host)
        mdir = os.path.join(outdir, base + "_monarch")
        t = one["traffic"]

        def traffic():
            try:
                r = monarch.run(
                    m["remote"], m["probe"], mdir, cc=v,
                    nbytes=sp.size_bytes(t["size"]) if t["duration"] is None
                    else None, seconds=t["duration"], port=PORT,
                    closed_port=m["closed_port"], hold_ms=m["hold"])
            except monarch.MonarchError as e:
                raise RunError("monarch: %s" % e) from None
            shutil.copy(os.path.join(mdir, "iperf3.json"),
                        os.path.join(outdir, base + "_iperf3.json"))
            with open(os.path.join(outdir, base + "_iperf3.json")) as f:
                return r, json.load(f)

        log, (summary, iperf) = recorded(
            one, module, os.path.join(outdir, base + "_magnet.bin"), traffic)
        ns = summary["namespaces"]
        hosts[str(ns["sender_netns"])] = "sender (%s)" % ns["sender"]
        hosts[str(ns["receiver_netns"])] = "receiver (%s)" % ns["receiver"]
        with open(os.path.join(outdir, "topology.json"), "w") as f:
            json.dump({"netns_hosts": hosts, "monarch": m, "hops": [],
                       "receiver": None}, f, indent=1)
        print("  %s: %.3f Mbit/s; %s" % (
            base, summary["mbps"],
            monarch.monarchdiag.summary_line(summary["diagnosis"])),
            file=out, flush=True)
        runs.append((v, rep, log, iperf, params))
        write_manifest(outdir, runs)
    print("%d runs in %.0f s, in %s" % (len(runs) - len(done or []),
                                        time.time() - started,
                                        outdir), file=out, flush=True)
    return runs
