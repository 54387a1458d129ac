"""magnet-exp run on a testbed: the hosts of the spec's [testbed], reached
over SSH (asyncssh), instead of the local namespaces of run.py.

The same lifecycle as run.py's, TEACUP's, per variant and repetition:
magnet loaded with the spec's parameters on every recording host, its
reader (cat /proc/net/magnet) writing into a file on that host, the flows
([traffic]'s iperf3 flow, or every [[flows]]: each flow's server, iperf3
-s or its command, on the receiver, then each client, iperf3 -c with the
congestion control or its command, on the sender at its start time), then
flush, 0.5 s, the statistics, finish, the readers' end, unload; then
every file of the run is fetched over SFTP into the output directory, its
host's name in its name, and removed from the host. A failure anywhere
unloads magnet on every host it was loaded on and stops with the host and
the command that failed.

For the experiment: [path]'s bottleneck with tc netem on the router's
interfaces (removed at the end), tcp_no_metrics_save=1 on the sender and
the receiver and, with [[flows]], the sender's default congestion control
set to each run's variant (restored at the end), and kernel.txt,
sysctl.txt and qdisc.txt from every host. runs.json lists one entry per
recording host's log (the analysis takes each log on its own);
topology.json names the hosts, the ifindexes of the sender's and the
receiver's interfaces on the experiment's path (the analysis counts their
device records only) and their addresses there (hops, receiver: the
per-stack and per-flow tables, as run.describe writes them).

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
        self.bg = []                # (process, pid): the flows' servers

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

    async def start(self, command):
        """a command in the background, started when this returns:
        (its SSH process, its pid, which is also its process group's: sshd
        makes the session's shell a session leader, and exec keeps it)"""
        cmd = "echo $$; exec %s" % command
        t0 = time.time()
        try:
            proc = await self.conn.create_process(cmd)
            pid = await asyncio.wait_for(proc.stdout.readline(), 30)
        except Exception as e:
            raise RemoteError("%s: %s: %s" % (self, cmd, e)) from None
        _trace(self, cmd, t0, "started")
        if not pid.strip().isdigit():
            raise RemoteError("%s: %s: did not start: %s" % (
                self, cmd, (await proc.stderr.read()).strip()))
        return proc, int(pid)

    async def stop(self, bg, wait):
        """a background process (of start()) given @wait s to end by
        itself, else its process group terminated; its exit status if it
        ended by itself, else None; never raises"""
        proc, pid = bg
        try:
            r = await asyncio.wait_for(proc.wait(), wait)
            if bg in self.bg:
                self.bg.remove(bg)
            return r.exit_status if r.exit_signal is None else None
        except Exception:
            pass
        try:
            await self.sh("kill -TERM -- -%d 2> /dev/null || kill %d "
                          "2> /dev/null" % (pid, pid), check=False,
                          timeout=30)
            await asyncio.wait_for(proc.wait(), 10)
        except Exception:
            pass
        if bg in self.bg:
            self.bg.remove(bg)
        return None

    async def start_reader(self, name):
        """cat PROC into a file on the host, started when this returns"""
        self.reader = await self.start("cat %s > %s" % (
            PROC, shlex.quote(self.path(name))))

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
        """after a failure too: the reader and the servers ended, magnet
        unloaded if it was loaded here; never raises"""
        if self.reader is not None:
            try:
                await self.sh("kill %d 2> /dev/null" % self.reader[1],
                              check=False, timeout=30)
            except RemoteError:
                pass
            self.reader = None
        for bg in list(self.bg):
            await self.stop(bg, 0)
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
    """the module's parameters, and the filter to write after the load
    (several ports: port=0, and the filter keeps the receiver's address,
    as run.one_run does; else None)"""
    params, several = local.module_params(s)
    by_addr = None
    if several:
        by_addr = "filter addr=%s"
        if "fwmark=" not in params:
            # nothing recorded until the filter is written (a mark no
            # packet has; the filter's fwmark=0 is any): not the SSH
            # session that writes it, nor other traffic of the host
            params += " fwmark=%d" % NO_MARK
            by_addr = "filter fwmark=0 addr=%s"
    return params.split(), by_addr


NO_MARK = 0x4d474e54


# the clients start this long (at least) after the sender's clock was
# read, so that each has its SSH channel open and its shell running by
# its start time (in the VM's emulation two took 1.4 s)
LEAD = 2.0


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


# the route types `ip route get` may name before the address
_ROUTE_TYPES = {"local", "unicast", "broadcast", "multicast", "anycast",
                "unreachable", "blackhole", "prohibit", "throw", "nat"}


class Testbed:
    def __init__(self, s, outdir, out, seed=None):
        self.s, self.outdir, self.out, self.seed = s, outdir, out, seed
        tb = s["testbed"]
        self.hosts = [Host(r, tb[r]) for r in sp.ROLES if tb[r]]
        self.by_role = {h.role: h for h in self.hosts}
        self.snd, self.rcv = self.by_role["sender"], self.by_role["receiver"]
        self.rtr = self.by_role.get("router")
        self.recording = [h for h in self.hosts if h.cfg["record"]]
        self.saved_sysctl = {}      # {(host, key): value}
        self.qdiscs = []
        # the sender's and the receiver's addresses on the experiment's
        # path (ip route get), set by describe()
        self.snd_addr = self.rcv_addr = None

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
        keys = [(self.snd, "net.ipv4.tcp_no_metrics_save"),
                (self.rcv, "net.ipv4.tcp_no_metrics_save")]
        if sp.listed(self.s):
            # each run sets the sender's default to the variant, for the
            # commands (as run.one_run does in its namespaces)
            keys.append((self.snd, "net.ipv4.tcp_congestion_control"))
        for h, key in keys:
            self.saved_sysctl[(h, key)] = (await h.run("sysctl", "-n",
                                                       key)).strip()
        for h, key in keys[:2]:
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
        undo = [(h, ("sysctl", "-q", "-w", "%s=%s" % (k, v)))
                for (h, k), v in self.saved_sysctl.items()]
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
        route = await self.snd.run("ip", "-o", "route", "get", addr)
        sdev, src = dev_src(route)
        # (ip route get's line: [a route type: local, unicast, ...]
        # the address, ...; the address is the spec's, whatever its form)
        w = route.split()
        self.rcv_addr = (w[1] if len(w) > 1 and w[0] in _ROUTE_TYPES
                         else w[0]) if w else addr
        self.snd_addr = src
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
        topo = {"hosts": {h.name: {
            "role": h.role, "ssh": h.cfg["ssh"], "record": h.cfg["record"],
            "experiment_dev": devs.get(h.name)} for h in self.hosts},
            "receiver_address": self.s["testbed"]["receiver"]["address"],
            "host_ifindex": sorted({d["ifindex"] for d in devs.values()})}
        if self.snd_addr:
            # as run.describe writes them: the one TCP stack's connection
            # (sender to receiver), for the per-stack and per-flow tables
            topo["hops"] = [[self.snd_addr, self.rcv_addr]]
            topo["receiver"] = self.rcv_addr
        with open(os.path.join(o, "topology.json"), "w") as f:
            json.dump(topo, f, indent=1)
            f.write("\n")

    async def run_flows(self, variant, name):
        """the flows of one run (sp.flows_of: [traffic]'s iperf3 flow, or
        every [[flows]]), as run.run_flows runs them in the namespaces:
        each flow's server on the receiver (iperf3 -s -1 on its port, or
        its server command), each listening before the next starts; then
        each client on the sender at its start time, on the sender's
        clock (each SSH channel is opened at once and sleeps there until
        its time), all waited for; then the servers (30 s at most to end
        by themselves). Returns run.run_flows()'s list (started, ended: s
        after the time the first flow was due, on the sender's clock);
        raises, naming the host, the flow and the command, if a client or
        a command's server failed"""
        snd, rcv = self.snd, self.rcv
        addr = self.s["testbed"]["receiver"]["address"]
        flows = sp.flows_of(self.s)
        files = [dict(local.flow_files(name[snd], f),
                      server=local.flow_files(name[rcv], f)["server"])
                 for f in flows]

        def what(f):
            return "flow %s: " % f["name"] if f["name"] else ""
        servers = []
        for f, fl in zip(flows, files):
            log = shlex.quote(rcv.path(fl["server"]))
            if f["command"] is None:
                cmd = "iperf3 -s -1 -p %d --logfile %s > /dev/null 2>&1" % (
                    f["port"], log)
            elif f["server"]:
                cmd = "sh -c %s > %s 2>&1" % (shlex.quote(local._fill(
                    f["server"], addr=addr, port=f["port"],
                    variant=variant)), log)
            else:
                servers.append(None)
                continue
            bg = await rcv.start(cmd + " < /dev/null")
            rcv.bg.append(bg)
            servers.append(bg)
            # (10 s at most, as run.py's: a server must listen on {port})
            got = (await rcv.sh(
                "for i in $(seq 200); do ss -Htln 'sport = :%d' | grep -q . "
                "&& echo listening && exit 0; sleep 0.05; done; tail -3 %s"
                % (f["port"], log), check=False, timeout=60)).strip()
            if got != "listening":
                raise RemoteError("%s: %s%s: not listening on %d after 10 s"
                                  "%s" % (rcv, what(f), cmd, f["port"],
                                          got and ": " + got))
        t = time.time()
        now = float((await snd.run("date", "+%s.%N")).strip())
        # at least LEAD, and five times what a command took, before the
        # first
        t0 = now + max(LEAD, 5 * (time.time() - t))
        results = [local.flow_record(f, fl) for f, fl in zip(flows, files)]
        argvs = [None] * len(flows)

        async def client(i, f):
            r = results[i]
            argv, cmd = local.client_argv(f, addr, variant)
            argvs[i] = argv
            if cmd is not None:
                r["command"] = cmd
            # asleep until its start time (if the sleep fails, exit 125),
            # the time it starts on stdout's first line, the time it ended
            # on stderr's last, in microseconds. bash's clock
            # ($EPOCHREALTIME) costs no process: with date and awk each
            # start came 0.3-0.4 s late under emulation
            line = ("u() { local t=${EPOCHREALTIME/[.,]/}; echo $t; }; "
                    "d=$(( %d - $(u) )); if [ $d -gt 0 ]; then "
                    "printf -v s %%d.%%06d $((d / 1000000)) "
                    "$((d %% 1000000)); sleep $s || exit 125; fi; u; %s; "
                    "r=$?; u >&2; exit $r"
                    % (round((t0 + f["start"]) * 1e6), shlex.join(argv)))
            line = "bash -c " + shlex.quote(line)
            t1 = time.time()
            out = err = ""
            try:
                p = await asyncio.wait_for(snd.conn.run(line),
                                           3600 + LEAD + f["start"])
                _trace(snd, line, t1, p.exit_status)
                out, err = p.stdout or "", p.stderr or ""
                r["exit"] = p.exit_status if p.exit_signal is None else \
                    "signal %s" % p.exit_signal[0]
            except asyncio.TimeoutError:
                r["exit"], err = None, "timed out after 3600 s"
            except Exception as e:
                r["exit"], err = None, "SSH: %s" % e
            first, _, rest = out.partition("\n")
            r["started"] = r["ended"] = None
            try:
                r["started"] = round(int(first) / 1e6 - t0, 3)
                out = rest
            except ValueError:
                pass
            head, _, last = err.rstrip("\n").rpartition("\n")
            try:
                r["ended"] = round(int(last) / 1e6 - t0, 3)
                err = head + "\n" if head else ""
            except ValueError:
                pass
            local.client_result(r, f, out, err,
                                os.path.join(self.outdir, files[i]["client"]))
        await asyncio.gather(*(client(i, f) for i, f in enumerate(flows)))
        bad = []
        for f, r, argv in zip(flows, results, argvs):
            if r["exit"] == 0:
                continue
            c = shlex.join(argv) if f["command"] is None else \
                "command '%s'" % r["command"]
            if f["name"] is None:
                bad.append("%s: exit %s: %s" % (c, r["exit"], r["error"]))
            else:
                bad.append("flow %s: %s exited with status %s: %s" % (
                    f["name"], c, r["exit"], r["error"]))
        bad = ["%s: %s" % (snd, b) for b in bad]
        # the servers end with their connection (iperf3 -s -1 after its
        # test); one still running after 30 s is stopped (at once after a
        # client failed: the run fails anyway)
        ends = await asyncio.gather(*(rcv.stop(bg, 0 if bad else 30)
                                      for bg in servers if bg is not None))
        ends = iter(ends)
        for f, bg, r in zip(flows, servers, results):
            if bg is None:
                continue
            st = r["server_exit"] = next(ends)
            if st not in (0, None) and f["command"] is not None:
                bad.append("%s: flow %s: server '%s' exited with status %d "
                           "(%s)" % (rcv, f["name"], f["server"], st,
                                     r["files"]["server"]))
        # until no connection of the flows is established on either end:
        # their ends go into the logs
        filt = shlex.quote("( %s )" % " or ".join(
            "sport = :%d or dport = :%d" % (f["port"], f["port"])
            for f in flows))
        await self.each(lambda h: h.sh(
            "for i in $(seq 100); do [ -z \"$(ss -Htn state established %s)"
            "\" ] && exit 0; sleep 0.1; done; exit 0" % filt, check=False),
            [snd, rcv])
        if bad:
            raise RemoteError("; ".join(bad))
        for r in results:
            r.pop("error", None)
        return results

    async def one_run(self, variant, rep):
        s = self.s
        base = "%s_%s_%d" % (s["test_id"], variant, rep)
        name = {h: "%s_%s" % (base, h.name) for h in self.hosts}
        params, by_addr = _params(s)
        try:
            async def load(h):
                m = h.cfg["module"]
                argv = (["insmod", m] if m else ["modprobe", "magnet"]) + \
                    params
                h.loaded = True
                await h.run(*argv)
                if by_addr:
                    # several ports: every connection to the receiver
                    await h.sh("echo %s > %s" % (shlex.quote(
                        by_addr % self.rcv_addr), PROC))
            await self.each(load, self.recording)
            live = s["magnet"]["reader"] == "live"
            if live:
                await self.each(lambda h: h.start_reader(
                    name[h] + "_magnet.bin"), self.recording)
            if sp.listed(s):
                await self.snd.run("sysctl", "-q", "-w",
                                   "net.ipv4.tcp_congestion_control=" +
                                   variant)
            flows = await self.run_flows(variant, name)
            if sp.listed(s):
                local.write_flows(os.path.join(
                    self.outdir, name[self.snd] + "_flows.json"), flows)
                traffic = flows
            else:
                traffic = flows[0]["iperf3"]
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

            async def collect(h):
                got = []
                if h.cfg["record"]:
                    await h.run("gzip", "-f", h.path(name[h] +
                                                     "_magnet.bin"))
                    await h.fetch(name[h] + "_magnet.bin.gz", self.outdir)
                    got.append(os.path.join(self.outdir, name[h] +
                                            "_magnet.bin.gz"))
                    local.text_logs(s, got[-1])
                if h is self.rcv:
                    # the servers' logs (a command flow without a server
                    # has none)
                    for f, r in zip(sp.flows_of(s), flows):
                        if f["command"] is None or f["server"]:
                            await h.fetch(r["files"]["server"], self.outdir)
                return got
            logs = await self.each(collect)
        finally:
            res = await asyncio.gather(*(h.cleanup() for h in self.hosts),
                                       return_exceptions=True)
            for h, r in zip(self.hosts, res):
                if isinstance(r, BaseException):
                    _warn("%s: magnet may still be loaded: %s" % (h, r))
        return [(h, log, traffic) for h, got in zip(self.hosts, logs)
                for log in got]

    def write_manifest(self, runs):
        """runs.json as run.write_manifest writes it (magnet-exp report
        DIR reads it), one entry per recording host's log, the iperf3
        JSON (with [[flows]], flows.json) the sender's for all of them,
        and the host"""
        path = os.path.join(self.outdir, local.MANIFEST)
        kind, what = ("flows", "flows.json") if sp.listed(self.s) else \
            ("iperf3", "iperf3.json")
        with open(path + ".tmp", "w") as f:
            json.dump([{"variant": v, "repetition": rep,
                        "log": os.path.basename(log),
                        kind: "%s_%s_%d_%s_%s" % (
                            self.s["test_id"], v, rep, self.snd.name, what),
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

    async def warm_up(self):
        """before each run, as run.warm_up: one ping from the sender to
        the receiver's address on the experiment's path, up to 5 s, so
        that every neighbour on the way is resolved and the path has
        carried a packet each way before the flow's first"""
        try:
            await self.snd.run("ping", "-c", "1", "-w", "5", "-q", "-n",
                               self.rcv_addr, timeout=30)
        except RemoteError as e:
            raise RemoteError("warm-up: no answer to a ping from the "
                              "sender to %s in 5 s: the path is down (%s)"
                              % (self.rcv_addr, e)) from None

    async def run(self, done=()):
        """every run, or with @done (run.resume_point's entries of an
        interrupted run) the rest of them"""
        s, out = self.s, self.out
        os.makedirs(self.outdir, exist_ok=True)
        by_name = {h.name: h for h in self.hosts}
        runs = []
        if done:
            with open(os.path.join(self.outdir, local.MANIFEST)) as f:
                names = [e.get("host") for e in json.load(f)]
            for (v, rep, log, iperf, _), name in zip(done, names):
                if name not in by_name:
                    raise RemoteError("--resume: %s names host %r, not one "
                                      "of the spec's testbed" % (
                                          local.MANIFEST, name))
                runs.append((v, rep, by_name[name], log, iperf))
        n_done = len(local.runs_of(done))
        total = len(s["variants"]) * s["repetitions"]
        started = time.time()
        try:
            await self.prepare()
            await self.describe()
            # a testbed's spec sweeps nothing (spec.check refuses it)
            local.write_order(self.outdir, s, self.seed)
            if done:
                print("resuming %s: %d of %d runs done (seed %s)" % (
                    self.outdir, n_done, total, self.seed), file=out,
                    flush=True)
            for _, _, v, rep in local.schedule(s, out, started, self.seed,
                                               n_done):
                await self.warm_up()
                for h, log, iperf in await self.one_run(v, rep):
                    runs.append((v, rep, h, log, iperf))
                self.write_manifest(runs)
        finally:
            try:
                await self.restore()
            finally:
                await self.close()
        print("%d runs in %.0f s on %s, in %s" % (
            total - n_done, time.time() - started,
            ", ".join(h.name for h in self.hosts), self.outdir), file=out,
            flush=True)
        return [(v, rep, log, iperf, {}) for v, rep, _, log, iperf in runs]


def run(s, outdir, out=sys.stdout, seed=None, resume=False):
    """every variant and repetition on the spec's testbed, in
    run.plan(s, seed)'s order (with @resume, from where an interrupted
    run in @outdir stopped, with its seed: run.resume_point); returns
    [(variant, rep, log, iperf, {})], one per recording host's log"""
    _asyncssh()
    done = []
    if resume:
        seed, done = local.resume_point(s, outdir)
    return asyncio.run(Testbed(s, outdir, out, seed).run(done))
