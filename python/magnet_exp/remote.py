"""magnet-exp run on a testbed: the hosts of the spec's [testbed], reached
over SSH (asyncssh), instead of the local namespaces of run.py.

The same lifecycle as run.py's, TEACUP's, per variant and repetition:
magnet loaded with the spec's parameters on every recording host, its
reader (cat /proc/net/magnet) writing into a file on that host, iperf3 -s
on the receiver, iperf3 -c on the sender with the congestion control,
then flush, 0.5 s, the statistics, finish, the readers' end, unload; then
every file of the run is fetched over SFTP into the output directory, its
host's name in its name, and removed from the host. A failure anywhere
unloads magnet on every host it was loaded on and stops with the host and
the command that failed.

For the experiment: [path]'s bottleneck with tc netem on the router's
interfaces (removed at the end), tcp_no_metrics_save=1 on the sender and
the receiver (restored at the end), and kernel.txt, sysctl.txt and
qdisc.txt from every host. runs.json lists one entry per recording host's
log (the analysis takes each log on its own); topology.json names the
hosts and the ifindexes of the sender's and the receiver's interfaces on
the experiment's path (the analysis counts their device records only).

Host keys are checked against known_hosts (the host's known_hosts key,
else ~/.ssh/known_hosts); an unknown or changed key stops the run.
asyncssh is imported here, when a testbed runs: analyse, report and the
local run do without it.
"""
import asyncio
import json
import os
import shlex
import sys
import time
import warnings

from magnet_exp import run as local
from magnet_exp import spec as sp

PORT = local.PORT
PROC = local.PROC
STATS = "/proc/net/magnet_stats"
SYSCTLS = ("net.ipv4.tcp_congestion_control", "net.ipv4.tcp_rmem",
           "net.ipv4.tcp_wmem", "net.ipv4.tcp_sack",
           "net.ipv4.tcp_timestamps", "net.ipv4.tcp_ecn",
           "net.ipv4.tcp_no_metrics_save")


class RemoteError(local.RunError):
    pass


def _asyncssh():
    try:
        with warnings.catch_warnings():
            # python3-cryptography's warnings about ciphers asyncssh offers
            warnings.simplefilter("ignore")
            import asyncssh
    except ImportError as e:
        raise RemoteError("a [testbed] runs over SSH with asyncssh: %s "
                          "(make deps installs python3-asyncssh)" % e) \
            from None
    return asyncssh


class Host:
    """one host of the testbed, its SSH connection and its temporaries"""

    def __init__(self, role, cfg):
        self.role, self.cfg, self.name = role, cfg, cfg["name"]
        self.conn = None
        self.tmp = None
        self.loaded = False
        self.reader = None          # (process, pid) of cat PROC
        self.iperf_pid = None       # the file iperf3 -s writes its pid in

    def __str__(self):
        return "%s %s (%s)" % (self.role, self.name, self.cfg["ssh"])

    async def connect(self):
        ssh = _asyncssh()
        user, host, port = sp.ssh_dest(self.cfg["ssh"])
        kw = {"port": port}
        if user:
            kw["username"] = user
        if self.cfg["identity"]:
            kw["client_keys"] = [os.path.expanduser(self.cfg["identity"])]
        if self.cfg["known_hosts"]:
            kw["known_hosts"] = os.path.expanduser(self.cfg["known_hosts"])
        try:
            self.conn = await asyncio.wait_for(ssh.connect(host, **kw), 30)
        except asyncio.TimeoutError:
            raise RemoteError("%s: SSH connection: no answer in 30 s"
                              % self) from None
        except ssh.HostKeyNotVerifiable as e:
            raise RemoteError(
                "%s: SSH connection: %s: its key is not the one %s holds "
                "for it (check the key, then add it there: ssh-keyscan -p "
                "%d %s)" % (self, e.reason, self.cfg["known_hosts"] or
                            "~/.ssh/known_hosts", port, host)) from None
        except (OSError, ssh.Error) as e:
            raise RemoteError("%s: SSH connection: %s" % (
                self, getattr(e, "reason", None) or e)) from None
        self.tmp = (await self.run("mktemp", "-d",
                                   "/tmp/magnet-exp.XXXXXX")).strip()

    async def sh(self, command, check=True, timeout=120):
        """a shell command line on the host; its stdout"""
        t0 = time.time()
        try:
            r = await asyncio.wait_for(self.conn.run(command), timeout)
            _trace(self, command, t0, r.exit_status)
        except asyncio.TimeoutError:
            raise RemoteError("%s: %s: no end in %d s" % (self, command,
                                                          timeout)) from None
        except Exception as e:
            raise RemoteError("%s: %s: %s" % (self, command, e)) from None
        if check and r.exit_status != 0:
            why = (r.stderr or r.stdout or "").strip()
            try:
                # iperf3 -J says why in its JSON
                why = json.loads(r.stdout)["error"]
            except (ValueError, KeyError, TypeError):
                pass
            raise RemoteError("%s: %s: exit %s: %s" % (
                self, command, r.exit_status, why))
        return r.stdout

    async def run(self, *argv, check=True, timeout=120):
        return await self.sh(shlex.join(argv), check, timeout)

    def path(self, name):
        return "%s/%s" % (self.tmp, name)

    async def start_reader(self, name):
        """cat PROC into a file on the host, started when this returns"""
        cmd = "echo $$; exec cat %s > %s" % (PROC, shlex.quote(
            self.path(name)))
        try:
            proc = await self.conn.create_process(cmd)
            pid = await asyncio.wait_for(proc.stdout.readline(), 30)
        except Exception as e:
            raise RemoteError("%s: %s: %s" % (self, cmd, e)) from None
        if not pid.strip().isdigit():
            raise RemoteError("%s: %s: did not start: %s" % (
                self, cmd, (await proc.stderr.read()).strip()))
        self.reader = (proc, int(pid))

    async def wait_reader(self):
        proc, _ = self.reader
        try:
            r = await asyncio.wait_for(proc.wait(), 60)
        except asyncio.TimeoutError:
            raise RemoteError("%s: the reader did not end after finish"
                              % self) from None
        self.reader = None
        if r.exit_status != 0:
            raise RemoteError("%s: cat %s: exit %s: %s" % (
                self, PROC, r.exit_status, (r.stderr or "").strip()))

    async def fetch(self, name, outdir, remove=True):
        """the host's temporary file NAME into outdir, then removed"""
        try:
            async with self.conn.start_sftp_client() as sftp:
                await sftp.get(self.path(name), os.path.join(outdir, name))
                if remove:
                    await sftp.remove(self.path(name))
        except Exception as e:
            raise RemoteError("%s: SFTP get %s: %s" % (
                self, self.path(name), e)) from None

    async def cleanup(self):
        """after a failure too: the reader and iperf3 -s ended, magnet
        unloaded if it was loaded here; never raises"""
        cmds = []
        if self.reader is not None:
            cmds.append("kill %d" % self.reader[1])
            self.reader = None
        if self.iperf_pid:
            cmds.append("kill $(cat %s)" % shlex.quote(self.iperf_pid))
            self.iperf_pid = None
        for c in cmds:
            try:
                await self.sh(c + " 2> /dev/null", check=False, timeout=30)
            except RemoteError:
                pass
        if self.loaded:
            self.loaded = False
            return await self.run("rmmod", "magnet", check=False, timeout=60)


def _trace(host, command, t0, status):
    """MAGNET_EXP_TRACE=FILE: every remote command, when, how long"""
    path = os.environ.get("MAGNET_EXP_TRACE")
    if path:
        with open(path, "a") as f:
            f.write("%.3f %.3f %s %s: %s\n" % (t0, time.time() - t0, host.name,
                                              status, command))


def _warn(msg):
    print("magnet-exp: warning: %s" % msg, file=sys.stderr, flush=True)


def _params(s):
    params = s["magnet"]["params"]
    if "omode=" not in params:
        params += " omode=1"
    if "port=" not in params:
        params += " port=%d" % PORT
    return params.split()


def _netem(p, fwd, ret):
    """tc command lines: [path]'s bottleneck on fwd, the return on ret"""
    f = ["tc", "qdisc", "replace", "dev", fwd, "root", "netem", "delay",
         p["delay"]]
    if sp.time_s(p["jitter"]):
        f += [p["jitter"]]
    f += ["loss", p["loss"], "rate", p["rate"], "limit", str(p["limit"])]
    out = [f]
    if ret:
        out.append(["tc", "qdisc", "replace", "dev", ret, "root", "netem",
                    "delay", p["return_delay"], "loss", p["return_loss"]])
    return out


class Testbed:
    def __init__(self, s, outdir, out):
        self.s, self.outdir, self.out = s, outdir, out
        tb = s["testbed"]
        self.hosts = [Host(r, tb[r]) for r in sp.ROLES if tb[r]]
        self.by_role = {h.role: h for h in self.hosts}
        self.snd, self.rcv = self.by_role["sender"], self.by_role["receiver"]
        self.rtr = self.by_role.get("router")
        self.recording = [h for h in self.hosts if h.cfg["record"]]
        self.saved_sysctl = {}
        self.qdiscs = []

    async def each(self, fn, hosts=None):
        """fn(host) on the hosts at once; the first failure raised once
        all have ended"""
        res = await asyncio.gather(*(fn(h) for h in (hosts or self.hosts)),
                                   return_exceptions=True)
        for r in res:
            if isinstance(r, BaseException):
                raise r
        return res

    async def prepare(self):
        await self.each(lambda h: h.connect())
        for v in self.s["variants"]:
            avail = "/proc/sys/net/ipv4/tcp_available_congestion_control"
            if v not in (await self.snd.run("cat", avail)).split():
                await self.snd.run("modprobe", "tcp_" + v, check=False)
                if v not in (await self.snd.run("cat", avail)).split():
                    raise RemoteError("%s: congestion control '%s' is not "
                                      "available (modprobe tcp_%s failed)"
                                      % (self.snd, v, v))

        async def not_loaded(h):
            if (await h.sh("test -e %s && echo yes" % PROC,
                           check=False)).strip():
                raise RemoteError("%s: magnet is already loaded: unload it "
                                  "first (rmmod magnet)" % h)
        await self.each(not_loaded, self.recording)
        for h in (self.snd, self.rcv):
            key = "net.ipv4.tcp_no_metrics_save"
            self.saved_sysctl[h] = (await h.run("sysctl", "-n", key)).strip()
            await h.run("sysctl", "-q", "-w", key + "=1")
        if self.rtr:
            r = self.rtr.cfg
            for cmd in _netem(self.s["path"], r["forward_dev"],
                              r["return_dev"]):
                await self.rtr.run(*cmd)
                self.qdiscs.append(cmd[4])

    async def restore(self):
        """what prepare changed, put back; never raises (it runs after a
        failure too), warns"""
        undo = [(h, ("sysctl", "-q", "-w",
                     "net.ipv4.tcp_no_metrics_save=" + v))
                for h, v in self.saved_sysctl.items()]
        undo += [(self.rtr, ("tc", "qdisc", "del", "dev", dev, "root"))
                 for dev in self.qdiscs]
        for h, argv in undo:
            try:
                await h.run(*argv)
            except RemoteError as e:
                _warn("not restored: %s" % e)

    async def experiment_ifindex(self):
        """the sender's and the receiver's interfaces toward each other"""
        def dev_src(route):
            w = route.split()
            return (w[w.index("dev") + 1] if "dev" in w else None,
                    w[w.index("src") + 1] if "src" in w else None)
        addr = self.s["testbed"]["receiver"]["address"]
        sdev, src = dev_src(await self.snd.run("ip", "-o", "route", "get",
                                               addr))
        rdev, _ = dev_src(await self.rcv.run("ip", "-o", "route", "get",
                                             src)) if src else (None, None)
        out = {}
        for h, dev in ((self.snd, sdev), (self.rcv, rdev)):
            if dev:
                out[h.name] = {"dev": dev, "ifindex": (await h.run(
                    "cat", "/sys/class/net/%s/ifindex" % dev)).strip()}
        return out

    async def describe(self):
        """spec.json, and kernel.txt, sysctl.txt, qdisc.txt from every
        host, topology.json"""
        o = self.outdir
        with open(os.path.join(o, "spec.json"), "w") as f:
            json.dump(self.s, f, indent=1)

        async def info(h):
            return (await h.run("uname", "-r"),
                    await h.run("sysctl", *SYSCTLS),
                    await h.run("tc", "qdisc", "show"))
        got = await self.each(info)
        for i, fname in enumerate(("kernel.txt", "sysctl.txt", "qdisc.txt")):
            with open(os.path.join(o, fname), "w") as f:
                for h, g in zip(self.hosts, got):
                    f.write("# %s %s\n%s" % (h.role, h.name, g[i]))
        devs = await self.experiment_ifindex()
        with open(os.path.join(o, "topology.json"), "w") as f:
            json.dump({"hosts": {h.name: {
                "role": h.role, "ssh": h.cfg["ssh"],
                "record": h.cfg["record"],
                "experiment_dev": devs.get(h.name)} for h in self.hosts},
                "receiver_address": self.s["testbed"]["receiver"]["address"],
                "host_ifindex": sorted({d["ifindex"]
                                        for d in devs.values()})},
                f, indent=1)
            f.write("\n")

    async def one_run(self, variant, rep):
        s = self.s
        base = "%s_%s_%d" % (s["test_id"], variant, rep)
        name = {h: "%s_%s" % (base, h.name) for h in self.hosts}
        try:
            async def load(h):
                m = h.cfg["module"]
                argv = (["insmod", m] if m else ["modprobe", "magnet"]) + \
                    _params(s)
                h.loaded = True
                await h.run(*argv)
            await self.each(load, self.recording)
            live = s["magnet"]["reader"] == "live"
            if live:
                await self.each(lambda h: h.start_reader(
                    name[h] + "_magnet.bin"), self.recording)
            r = self.rcv
            r.iperf_pid = r.path("iperf3.pid")
            await r.run("iperf3", "-s", "-1", "-D", "-p", str(PORT),
                        "--pidfile", r.iperf_pid, "--logfile",
                        r.path(name[r] + "_iperf3_server.log"))
            await r.sh("for i in $(seq 200); do ss -Htln 'sport = :%d' | "
                       "grep -q . && exit 0; sleep 0.05; done; echo iperf3 "
                       "-s is not listening on %d >&2; exit 1" % (PORT, PORT))
            t = s["traffic"]
            cmd = ["iperf3", "-c", s["testbed"]["receiver"]["address"],
                   "-p", str(PORT), "-J", "-C", variant, "-l", t["length"],
                   "-P", str(t["parallel"])]
            cmd += ["-t", str(t["duration"])] if t["duration"] else \
                ["-n", t["size"]]
            js = await self.snd.run(*cmd, timeout=3600)
            try:
                # iperf3 3.12 -J exits 0 on an error, and says it here
                err = json.loads(js).get("error")
            except ValueError:
                err = "not JSON: %s" % js[:200]
            if err:
                raise RemoteError("%s: %s: %s" % (self.snd, shlex.join(cmd),
                                                  err))
            with open(os.path.join(self.outdir,
                                   name[self.snd] + "_iperf3.json"),
                      "w") as f:
                f.write(js)
            if not live:
                await self.each(lambda h: h.start_reader(
                    name[h] + "_magnet.bin"), self.recording)
            await self.each(lambda h: h.sh("echo flush > %s" % PROC),
                            self.recording)
            await asyncio.sleep(0.5)

            async def stop(h):
                stats = await h.run("cat", STATS)
                with open(os.path.join(self.outdir, name[h] +
                                       "_magnet_stats.txt"), "w") as f:
                    f.write(stats)
                await h.sh("echo finish > %s" % PROC)
                await h.wait_reader()
                await h.run("rmmod", "magnet", timeout=60)
                h.loaded = False
            await self.each(stop, self.recording)
            # iperf3 -s -1 ends after its test
            await r.sh("p=$(cat %s 2> /dev/null) || exit 0; timeout 10 "
                       "tail -s 0.1 --pid=$p -f /dev/null; kill $p "
                       "2> /dev/null; true" % shlex.quote(r.iperf_pid),
                       check=False)
            r.iperf_pid = None

            async def collect(h):
                got = []
                if h.cfg["record"]:
                    await h.run("gzip", "-f", h.path(name[h] +
                                                     "_magnet.bin"))
                    await h.fetch(name[h] + "_magnet.bin.gz", self.outdir)
                    got.append(os.path.join(self.outdir, name[h] +
                                            "_magnet.bin.gz"))
                if h is r:
                    await h.fetch(name[h] + "_iperf3_server.log",
                                  self.outdir)
                return got
            logs = await self.each(collect)
        finally:
            res = await asyncio.gather(*(h.cleanup() for h in self.hosts),
                                       return_exceptions=True)
            for h, r in zip(self.hosts, res):
                if isinstance(r, BaseException):
                    _warn("%s: magnet may still be loaded: %s" % (h, r))
        iperf = json.loads(js)
        return [(h, log, iperf) for h, got in zip(self.hosts, logs)
                for log in got]

    def write_manifest(self, runs):
        """runs.json as run.write_manifest writes it (magnet-exp report
        DIR reads it), one entry per recording host's log, the iperf3
        JSON the sender's for all of them, and the host"""
        path = os.path.join(self.outdir, local.MANIFEST)
        with open(path + ".tmp", "w") as f:
            json.dump([{"variant": v, "repetition": rep,
                        "log": os.path.basename(log),
                        "iperf3": "%s_%s_%d_%s_iperf3.json" % (
                            self.s["test_id"], v, rep, self.snd.name),
                        "host": h.name}
                       for v, rep, h, log, _ in runs], f, indent=1)
            f.write("\n")
        os.replace(path + ".tmp", path)

    async def close(self):
        for h in self.hosts:
            if h.conn is None:
                continue
            if h.tmp:
                try:
                    await h.run("rm", "-rf", h.tmp, check=False, timeout=60)
                except RemoteError:
                    pass
            h.conn.close()
            try:
                await h.conn.wait_closed()
            except Exception:
                pass

    async def run(self):
        s, out = self.s, self.out
        os.makedirs(self.outdir, exist_ok=True)
        runs = []
        total = len(s["variants"]) * s["repetitions"]
        started = time.time()
        try:
            await self.prepare()
            await self.describe()
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
                    for h, log, iperf in await self.one_run(v, rep):
                        runs.append((v, rep, h, log, iperf))
                    self.write_manifest(runs)
        finally:
            try:
                await self.restore()
            finally:
                await self.close()
        print("%d runs in %.0f s on %s, in %s" % (
            total, time.time() - started,
            ", ".join(h.name for h in self.hosts), self.outdir), file=out,
            flush=True)
        return [(v, rep, log, iperf) for v, rep, _, log, iperf in runs]


def run(s, outdir, out=sys.stdout):
    """every variant and repetition on the spec's testbed; returns
    [(variant, rep, log, iperf)], one per recording host's log"""
    _asyncssh()
    return asyncio.run(Testbed(s, outdir, out).run())
