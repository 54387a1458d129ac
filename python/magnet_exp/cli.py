"""magnet-exp: the command line."""
import argparse
import concurrent.futures
import contextlib
import csv
import glob
import io
import json
import os
import select
import sys

from magnet_exp import analyse as an
from magnet_exp import clocks, compare, export, monarch, monarchdiag, plots
from magnet_exp import stacks
from magnet_exp import report as rpt
from magnet_exp import run as runner
from magnet_exp import spec as specmod
from magnet_exp import view

EPILOG = """\
examples:
  magnet-exp analyse run.bin                 # into ./run.analysis/
  magnet-exp analyse -o out logs/            # every *.bin and *.bin.gz in logs/
  magnet-exp analyse --strict run.bin.gz     # exit 1 unless confirmed
  magnet-exp analyse -j 2 -o out logs/       # two logs at a time

Hosts are kept apart: a log whose records name their network namespace
(magnet since 2026-11-28) is analysed per namespace, so one kernel's
sender, router and receiver (or containers) are never mixed; a connection
end is named with its host (" on sender (mx-snd)" from a run's
topology.json, else " on netns N"), and a namespace with packets but no
socket (a router) is in no end's numbers (a note says so).

For each log it writes, into ./<log name>.analysis/ (with -o OUT and one
log file: into OUT; with -o OUT and more logs: OUT/<log name>.analysis/):
  <family>_<laddr>_<lport>_<raddr>_<rport>[_ns<netns>].csv  per TCP
      connection end
      (not a listening socket): one row per TCP-layer record (time in s
      from the log's first record, epoch: the wall clock in s to the ns,
      event, state, ca_state, cwnd, ssthresh, srtt_us, rttvar_us, rto_us,
      mss, packets_out, retrans_out, total_retrans, bytes_sent,
      bytes_retrans, bytes_acked, bytes_received, snd_una, snd_nxt,
      rcv_nxt, min_rtt_us, rtt_us, ca_name, and the rate part's pacing_rate,
      delivery_rate, delivered, delivered_ce, lost_out, sacked_out,
      app_limited, bbr_bw, bbr_min_rtt, bbr_pacing_gain, bbr_cwnd_gain,
      empty in a log without one); the kernel's "none yet" values are
      written empty: ssthresh 2147483647, min_rtt_us 4294967295,
      pacing_rate 18446744073709551615
  verdict.json   the verdicts and their reasons, per log and per connection
                 (with its netns and host), the namespaces (host, events,
                 connection ends), and the two tables below; times in s
                 from the log's first record, whose wall clock is "epoch"
                 (and each time's)
  modulation.csv how the stack shaped the traffic (MAGNeT's Table II): per
                 connection end, direction and layer (app, tcp, ip, dev),
                 the events carrying data, their size (bytes: mean,
                 10/50/90/99th percentiles) and the time between them (us)
  latency.csv    per host and direction, the time a segment takes from one
                 layer to
                 the next (tcp_out->ip_out->dev_out, dev_in->ip_in->tcp_in,
                 tcp_in->app_recv), matched by sequence range: count, mean
                 and percentiles (us)
  cwnd_srtt.png/.svg   cwnd and srtt over time, a series per connection
                 end (at most 4000 points each, evenly thinned)
  cwnd_ssthresh.png/.svg, rtt.png/.svg, seq.png/.svg  per sending
                 connection end: cwnd and ssthresh (once set), smoothed
                 and per-ACK RTT, snd_nxt and snd_una over time
  throughput.csv, throughput.png/.svg  each sending connection end's
                 throughput over time: the data arriving at the receiver's
                 TCP when the log has it (else the packets the sender
                 learnt were delivered, else its bytes acked, said so), in
                 whole windows of the longest of the path's RTT, a 100th of
                 the transfer and 100 ms; verdict.json says per connection
                 how, the window, the largest and mean window and the
                 granularity (the largest step of the count, over a window)
  modulation_cdf.png/.svg  modulation.csv as CDFs (MAGNeT's Figure 8): for
                 the connection ends sending data (at most 4), a series per
                 layer of the events' sizes and of the time between them
  latency_cdf.png/.svg  latency.csv as CDFs, a series per row (both drawn
                 from the percentiles' 1% bins)
  report.md      all of it, to read
  report.html    the same, a page that stands alone (the figures inline)
  view.html      the interactive view: one page with its script and data
                 inside it (no network), the data senders' cwnd and
                 packets in flight, srtt, pacing and delivery rate (BBR's
                 bandwidth too), each qdisc's sojourn per packet and the
                 receivers' bytes received, on the log's one clock,
                 zoomed (wheel) and panned (drag) together, with markers
                 for retransmissions, RTOs, TLPs, state and congestion
                 state changes and drops with their reason (every point
                 up to 20,000 a series, then buckets of each one's
                 smallest and largest value, said under the plot)
and, with several logs, OUT/compare.png/.svg: each log's busiest sender's
throughput over time, one series per log.
and prints each log's verdict. A verdict is confirmed (nothing known to
make the trace inaccurate happened), inaccurate (records lost or discarded,
the log cut short, fewer records in the log than the kernel had written by
the run's end (its statistics, <...>_magnet_stats.txt, beside the log: the
reader never got finish), segments seen at TCP and never at the device, application
bytes that TCP's counters contradict, loss on the return path in the peer's
IP IDs) or indeterminate (a connection still open when the capture ended).
Logs are read through ttpb2ascii -f magnet (MAGNET_TTPB2ASCII, or the one
beside magnet-exp, or on PATH), and each record is analysed by
magnet-pass, the pass in C (MAGNET_PASS, the one make install puts beside
the package, or on PATH; MAGNET_EXP_PASS=python, ttprobe's and web10g's
logs, or none found: the same pass in Python, some 20 times slower).
Exit status: 0, 1 with --strict and a
verdict other than confirmed, 2 on a usage or I/O error, or a file that
gives not one complete record (not a log, empty, or cut within its first
record: ttpb2ascii's reason, and no report for it).
"""


PCAPNG_HELP = ("also each log's packets and events for Wireshark, one "
               "pcapng file per host and device and one of each host's "
               "events (ttpb2ascii -f pcapng --split --events), in the "
               "analysis directory's pcapng/ (docs/wireshark.md)")

RUN_EPILOG = """\
the spec (TOML), every key but test_id and variants optional (the values
below are the defaults where a comment gives none; in [testbed.*], ssh,
the receiver's address and the router's forward_dev are required):

  test_id = "cc-compare"          # names the logs
  variants = ["cubic", "reno"]    # congestion controls (tcp_* modules are
  repetitions = 2                 #   loaded as needed); default 1
  [path]                          # the bottleneck, on the router
  rate = "20mbit"                 # netem rate toward the receiver
  delay = "20ms"                  # one way, toward the receiver
  jitter = "0ms"
  loss = "0%"
  limit = 100                     # packets the bottleneck queue holds
  return_delay = "0ms"            # toward the sender
  return_loss = "0%"
  relays = 0                      # socat relays chained before the
                                  #   receiver: 1 + relays TCP stacks
                                  # a list (delay = ["10ms", "40ms"]) for
                                  #   any [path] key but relays, or any
                                  #   [traffic] key, sweeps it: every
                                  #   combination of the lists runs
  [traffic]                       # one iperf3 flow; or [[flows]]
  size = "2M"                     # iperf3 -n; or duration = 5 (iperf3 -t)
  parallel = 1                    # iperf3 -P
  length = "128K"                 # iperf3 -l: the application's writes
  source = "iperf3"               # or "socat": every byte delivered
                                  #   (iperf3 -n ends on the last write);
                                  #   or "send": as socat, from python3,
                                  #   its first write as the connection
                                  #   opens (no start in the first byte)
  [[flows]]                       # instead of [traffic], a table per flow
  name = "bulk"                   # names its files (default flow1, ...)
  start = 0                       # s after the first flow (default 0)
  port = 5201                     # default 5201, 5202, ... in order
  size = "1M"                     # iperf3: size or duration, parallel,
  length = "64K"                  #   length; or a command:
  [[flows]]
  start = 0.5                     # on the sender (namespace or host),
  command = "head -c 500000 /dev/zero | socat -u - TCP:{addr}:{port}"
  server = "socat -u TCP-LISTEN:{port},reuseaddr - | wc -c"
                                  # optional, first, on the receiver;
                                  #   a status other than 0 fails the run
  [magnet]
  params = "events=all omode=1"   # module parameters
  reader = "live"                 # or "after": start the reader once the
                                  #   traffic is over (a stalled reader)
  text_logs = ["ttprobe"]         # also <...>_ttprobe.log.gz and/or
                                  #   _web10g.log.gz per log (TEACUP's);
                                  #   default none
  [testbed.sender]                # optional: real hosts over SSH instead
  ssh = "root@tb1.lab"            #   of the local namespaces; [user@]host
  identity = "~/.ssh/id_ed25519"  #   [:port]; default keys: ssh's usual
  known_hosts = "~/.ssh/known_hosts"  # the default; the key must be there
  name = "tb1"                    # in its files' names (default: host)
  record = true                   # magnet records here (default: sender
                                  #   and receiver yes, router no)
  module = "/root/magnet.ko"      # insmod this (default: modprobe magnet)
  [testbed.receiver]              # the same keys, and
  ssh = "root@tb2.lab"
  address = "10.10.2.2"           # iperf3 -c: its experiment address
  [testbed.router]                # optional, the same keys, and
  ssh = "root@tb3.lab"
  forward_dev = "enp2s0"          # [path]'s netem, toward the receiver
  return_dev = "enp1s0"           # return_delay/loss, toward the sender

examples:
  sudo magnet-exp run examples/experiments/cc-compare.toml
  sudo magnet-exp run examples/experiments/relays.toml
  sudo magnet-exp run --module build/$(uname -r)/magnet.ko -o out spec.toml
  magnet-exp run --no-analyse -o tb examples/experiments/testbed.toml

With [testbed], each run's files come back over SFTP, named by the host
that made them (the sender's log, iperf3 JSON and statistics, every
recording host's log and statistics, the receiver's iperf3 server log;
with [[flows]], the clients' files and flows.json from the sender, the
servers' logs from the receiver); kernel.txt, sysctl.txt and qdisc.txt
have a section per host; runs.json an entry per recording host's log.

The runs go repetition after repetition, each repetition every
combination with every variant once, in a random order within it (a
seed of its own each run unless --seed; --no-shuffle: the spec's order),
recorded in order.json; runs.json lists those done, as they end; the
report takes them in the spec's order. --resume -o DIR goes on with an
interrupted run in DIR (the same spec).
Before each run one ping crosses each hop of the path (neighbours
resolved before the flow's first packet; on a [testbed], from the sender
to the receiver's address).

[path] relays are refused there (an emulation in namespaces on one
machine). A failure stops the servers, unloads magnet everywhere and
names the host, the flow and the command.

Each run leaves, in DIR: <test_id>_<variant>_<rep>_<host>_magnet.bin.gz
(of a sweep: <test_id>_<key>-<value>...._<variant>_...), its iperf3 JSON
(with [[flows]]: <...>_<flow>_iperf3.json or <...>_<flow>_command.log,
the servers' logs, <...>_flows.json), magnet's statistics at finish, the
router's qdiscs (tc -s), and its analysis (<...>.analysis/, as magnet-exp
analyse, with stacks.csv: per flow the application's writes and the data
segments each TCP stack sent, MAGNeT's Table II, and flows.csv); DIR also
gets the spec, the kernel release, the sysctls, the qdiscs, the device
map and provenance.json (kernel, CPUs, virtualization, offloads, and
MAGNET_EXP_ICOUNT: the QEMU -icount options of a guest on instruction-
counted time, as make demo's; printed above the table, with a caveat
under software emulation), and at the end comparison.md and .csv (per variant, and per
combination of a sweep, median and
min..max over the repetitions whose verdict is confirmed, the others
listed: throughput from the log and from iperf3,
retransmits, mean and max RTT, max cwnd, time to 10/30/50/70/90% of the
bytes; a warning below 3 runs, and one naming a variant none of whose
runs reached congestion avoidance; each one's mean with its 95% confidence
interval (Student's t), and Welch's t-test of each variant against the
first; then the per-stack table and each flow's numbers), stacks.csv,
summary.json, compare.png/.svg, with repetitions spread.png/.svg (box
plots of each variant's runs, the means' intervals), plane.png/.svg
(each run's throughput against the 95th percentile of its RTT samples,
the means' intervals both ways), plane_owd.png/.svg (the same against
the 95th percentile of its data segments' one-way delays, device to
device, else TCP to TCP), delay_cdf.png/.svg (the CDFs of every run's
RTT samples and one-way delays), and report.html
(the comparison and its statistics, every
run's verdict and reasons, the figures inline, links to each run's
<...>.analysis/report.html and view.html). A run whose data senders' TCP records name
another congestion control than its variant is left out of every
statistic and named on stderr, and the exit status is then 2 (else 0, or
1 with --strict and a verdict other than confirmed).
"""


REPORT_EPILOG = """\
examples:
  sudo magnet-exp run --no-analyse -o out spec.toml   # in a VM, on a testbed
  magnet-exp report out                               # anywhere, later

DIR must hold what magnet-exp run wrote: spec.json, runs.json (the runs
done), the logs and iperf3's JSON. It writes the same files run writes
after its last run: <...>.analysis/ per log, comparison.md and .csv,
summary.json, compare.png/.svg and report.html, with the statistics over
the runs whose verdict is confirmed. Exit status: 2 if a run's log shows
another congestion control than its variant (the run named on stderr,
left out of the statistics), else 1 with --strict and a verdict other
than confirmed, else 0.
"""


def _logs(args):
    out = []
    for a in args:
        if os.path.isdir(a):
            found = sorted(glob.glob(os.path.join(a, "*.bin")) +
                           glob.glob(os.path.join(a, "*.bin.gz")))
            if not found:
                raise FileNotFoundError("%s: no *.bin or *.bin.gz logs" % a)
            out += found
        elif os.path.exists(a):
            out.append(a)
        else:
            raise FileNotFoundError("%s: no such file" % a)
    return out


def _base(path):
    b = os.path.basename(path)
    for ext in (".gz", ".bin"):
        if b.endswith(ext):
            b = b[:-len(ext)]
    return b


def _write_csv(path, rows):
    with open(path, "w", newline="") as f:
        if not rows:
            return
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)


def _figures(fn, *args):
    """the figures, or none with a warning if matplotlib is missing"""
    try:
        return fn(*args)
    except ImportError as e:
        print("magnet-exp: warning: no figures: %s (make deps installs "
              "python3-matplotlib)" % e, file=sys.stderr)
        return []


def analyse_one(path, outdir, ttpb2ascii=None, figures=True, devices=None,
                hosts=None, pcapng=False, bar=True):
    """one log: its analysis directory, printed verdict; (res, dict);
    @hosts: {netns inode: host name}; @pcapng: the log's packets and
    events for Wireshark too (export.py), in OUTDIR/pcapng/; @bar: a
    progress bar on stderr if it is a terminal"""
    # a bar on a terminal: the share of records read, when the size says
    # how many there are (an uncompressed log), else the count
    total = None
    if not path.endswith(".gz"):
        try:
            total = max(1, (os.path.getsize(path) - 256) // 256)
        except OSError:
            pass

    def progress(n):
        if not bar or not sys.stderr.isatty():
            return
        if total:
            done = min(1.0, n / total)
            sys.stderr.write("\r%s [%-30s] %3d%% %d records" % (
                path, "=" * int(done * 30), done * 100, n))
        else:
            sys.stderr.write("\r%s: %d records" % (path, n))

    res = an.analyse(path, outdir, ttpb2ascii, progress, devices, hosts)
    # magnet-exp run's statistics at the run's end, beside the log: the
    # log must hold every record the kernel had written by then
    stats = an.stats_file(path)
    if stats:
        with open(stats) as f:
            an.reconcile_stats(res, f.read())
    # and the path's qdiscs: their configured rates, drawn with the
    # throughput, and their limits, which tell a drop's kind (the devices
    # placed by the run's topology.json)
    qd = an.qdisc_file(path)
    if qd:
        with open(qd) as f:
            text = f.read()
        res.configured = an.configured_rates(text)
        res.qdisc_limits = an.qdisc_limits(
            text, _topology(os.path.dirname(path) or ".", "devices"),
            hosts)
    if bar and sys.stderr.isatty():
        sys.stderr.write("\r\033[K")
    d = res.as_dict()
    d["figures"] = _figures(plots.log_figures, res, outdir,
                            _base(path)) + \
        _figures(plots.teacup_figures, res, outdir, _base(path)) + \
        _figures(plots.cdf_figures, res, outdir, _base(path)) \
        if figures else []
    # the interactive view (view.py): with the figures
    d["view"] = view.write(res, outdir, _base(path)) if figures else None
    # the per-host files for Wireshark (export.py)
    d["pcapng"] = None
    if pcapng:
        try:
            pdir, files = export.write(path, outdir, ttpb2ascii,
                                       res.host_name)
            d["pcapng"] = {"dir": os.path.basename(pdir),
                           "files": [{"file": f, "packets": n, "what": w}
                                     for f, n, w in files]}
        except OSError as e:
            print("magnet-exp: %s" % e, file=sys.stderr)
    with open(os.path.join(outdir, "verdict.json"), "w") as f:
        json.dump(d, f, indent=1)
        f.write("\n")
    with open(os.path.join(outdir, "report.md"), "w") as f:
        f.write(rpt.report_md(d))
    with open(os.path.join(outdir, "report.html"), "w") as f:
        f.write(rpt.report_html(d, outdir))
    _write_csv(os.path.join(outdir, "modulation.csv"), d["modulation"])
    _write_csv(os.path.join(outdir, "latency.csv"), d["latency"])
    # every window of each sender's throughput (delivery.py)
    _write_csv(os.path.join(outdir, "throughput.csv"), [
        {"flow": f.label(), "start": "%.6f" % t,
         "epoch": an._epoch(res.t0 + round(t * 1e9)),
         "window_s": tp["window_s"], "mbit_s": round(v, 6)}
        for f, tp in res.throughputs().items() for t, v in tp["windows"]])
    print("%s: %s (%d connections, %d records) -> %s" % (
        path, d["verdict"], len(d["flows"]), d["records"], outdir))
    if d["pcapng"]:
        print("  for Wireshark: %s, %d files (%s names their hosts)" % (
            os.path.join(outdir, d["pcapng"]["dir"]),
            len(d["pcapng"]["files"]), export.LISTING))
    for r in d["reasons"]:
        print("  %s: %s" % (r["verdict"], r["reason"]))
    for fl in d["flows"]:
        for r in fl["reasons"]:
            print("  %s %s: %s" % (fl["flow"], r["verdict"], r["reason"]))
    # what held each sender back (limits.py): connections that sent data
    for fl in d["flows"]:
        lim = fl.get("limits")
        if lim and lim["dominant"]:
            print("  %s: %s" % (fl["flow"], lim["diagnosis"]))
    return res, d


def _analyse_job(job):
    """analyse_one(*@job) in a worker process: (res, dict, what it
    printed)"""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        res, d = analyse_one(*job, bar=False)
    return res, d, out.getvalue()


def jobs_default():
    """-j's default: the CPUs this process may run on"""
    return len(os.sched_getaffinity(0))


def analyse_all(jobs, n):
    """analyse_one(*args) for each argument tuple of @jobs, @n logs at
    a time in worker processes (one log's analysis is one pass, on one
    core): (res, dict) for each, in @jobs' order, each log's lines printed
    as analyse_one prints them, in that order too, once it is done; a
    log's error raised where its turn comes, as in turn"""
    if n <= 1 or len(jobs) <= 1:
        for args in jobs:
            yield analyse_one(*args)
        return
    with concurrent.futures.ProcessPoolExecutor(min(n, len(jobs))) as ex:
        for res, d, out in ex.map(_analyse_job, jobs):
            sys.stdout.write(out)
            sys.stdout.flush()
            yield res, d


def cmd_analyse(ns):
    worst = an.CONFIRMED
    runs, jobs = [], []
    paths = _logs(ns.logs)
    for path in paths:
        outdir = os.path.join(ns.output or ".", _base(path) + ".analysis") \
            if not ns.output or len(ns.logs) > 1 or os.path.isdir(ns.logs[0]) \
            else ns.output
        jobs.append((path, outdir, ns.ttpb2ascii, not ns.no_figures,
                     set(ns.ifindex.split(",")) if ns.ifindex else None,
                     host_names(os.path.dirname(path) or "."), ns.pcapng))
    for path, (res, d) in zip(paths, analyse_all(jobs, ns.jobs)):
        runs.append((_base(path), res))
        if an._RANK[d["verdict"]] > an._RANK[worst]:
            worst = d["verdict"]
    if len(runs) > 1 and not ns.no_figures:
        root = ns.output or "."
        os.makedirs(root, exist_ok=True)
        for fig in _figures(plots.compare_figure, runs, root):
            print("comparison of the logs: %s" % os.path.join(root,
                                                              fig["file"]))
    return 1 if ns.strict and worst != an.CONFIRMED else 0


def cmd_run(ns):
    s = specmod.load(ns.spec)
    outdir = ns.output or s["test_id"]
    # (an interrupt's message names it, where --resume can go on: main)
    if not s.get("monarch"):
        ns.outdir = outdir
    if ns.no_shuffle and ns.seed is not None:
        raise runner.RunError("--seed and --no-shuffle: one or the other")
    if ns.resume and (ns.no_shuffle or ns.seed is not None):
        raise runner.RunError("--resume takes the order the interrupted "
                              "run recorded (order.json): no --seed, no "
                              "--no-shuffle")
    if ns.no_shuffle:
        seed = None
    elif ns.seed is not None:
        seed = ns.seed
    else:
        # a new seed each run, recorded in order.json
        seed = int.from_bytes(os.urandom(4), "big")
    if s.get("testbed"):
        # hosts over SSH (magnet_exp.remote; asyncssh imported there)
        from magnet_exp import remote
        if ns.module:
            raise runner.RunError("--module is for the local namespaces; "
                                  "on a testbed, [testbed.<role>] module "
                                  "names the magnet.ko on each host")
        runs = remote.run(s, outdir, seed=seed, resume=ns.resume)
    else:
        runs = runner.run(s, outdir, ns.module, seed=seed,
                          resume=ns.resume)
    if ns.no_analyse:
        print("logs in %s; magnet-exp report %s analyses them" % (outdir,
                                                                 outdir))
        return 0
    return report(s, outdir, runs, ns)


def cmd_report(ns):
    outdir = ns.dir
    try:
        with open(os.path.join(outdir, "spec.json")) as f:
            s = specmod.check(json.load(f), os.path.join(outdir,
                                                         "spec.json"))
    except FileNotFoundError:
        raise runner.RunError("%s: no spec.json: not a directory "
                              "magnet-exp run wrote" % outdir) from None
    runs = runner.read_manifest(outdir)
    if not runs:
        raise runner.RunError("%s: no runs in %s" % (outdir,
                                                     runner.MANIFEST))
    return report(s, outdir, runs, ns)


def _json_or_none(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def _topology(outdir, key):
    """@key of @outdir's topology.json (magnet-exp run's), or None"""
    t = _json_or_none(os.path.join(outdir, "topology.json"))
    return t.get(key) if isinstance(t, dict) else None


def host_names(outdir):
    """{netns inode: host name} of topology.json (magnet-exp run's
    namespaces), else {}"""
    got = _topology(outdir, "netns_hosts")
    return dict(got) if isinstance(got, dict) else {}


def host_ifindex(outdir):
    """the ifindexes whose device records count: the end hosts' devices
    that topology.json names (a testbed's are the hosts' own), else the
    local namespaces' (run.HOST_IFINDEX)"""
    got = _topology(outdir, "host_ifindex")
    return set(str(i) for i in got) if got else runner.HOST_IFINDEX


def report(s, outdir, runs, ns):
    """every run's analysis, the comparison of the variants, the verdicts;
    the runs in the spec's order (run.spec_order), whatever order they
    ran in"""
    runs = runner.spec_order(s, runs)
    worst = an.CONFIRMED
    rows, named, summary, pages, mislabelled = [], [], [], [], []
    # each run's delay samples (compare.delay_samples), as rows are
    delays = []
    per_run = []
    devices, hosts = host_ifindex(outdir), host_names(outdir)
    jobs = [(log, os.path.join(outdir, _base(log) + ".analysis"),
             ns.ttpb2ascii, not ns.no_figures, devices, hosts, ns.pcapng)
            for _, _, log, _, _ in runs]
    for (variant, rep, log, iperf, params), job, (res, d) in zip(
            runs, jobs, analyse_all(jobs, ns.jobs)):
        adir = job[1]
        # per TCP stack and per flow (stacks.py); iperf: iperf3's JSON,
        # or with [[flows]] each flow's
        st_rows, fl_rows, iperf, ends = stacks.run_extras(
            specmod.with_params(s, params), outdir, res, adir, iperf)
        per_run.append((variant, rep, st_rows, fl_rows))
        ds = compare.delay_samples(res, ends)
        m = compare.run_metrics(res, iperf, ends, ds)
        # the congestion control the data senders used must be the
        # variant's: a run filed under another is in no statistic
        wrong = compare.mislabelled(variant, m)
        if wrong:
            mislabelled.append("%s #%d (%s): %s" % (
                rpt.run_variant(variant, params), rep,
                os.path.basename(log), wrong))
        rows.append((variant, rep, m, params,
                     "mislabelled" if wrong else d["verdict"]))
        delays.append(rows[-1][:2] + (ds,) + rows[-1][3:])
        named.append(("%s #%d" % (rpt.run_variant(variant, params), rep),
                      res))
        summary.append({"variant": variant, "repetition": rep,
                        "params": params,
                        "log": os.path.basename(log),
                        "verdict": d["verdict"], "metrics": m,
                        "caveats": d["caveats"],
                        "stacks": st_rows, "flows": fl_rows,
                        # Jain's fairness index over the flows' rates
                        "jain": stacks.jain(
                            x["throughput_mbps"] for x in fl_rows or []),
                        "reasons": d["reasons"] +
                        [dict(r, flow=f["flow"]) for f in d["flows"]
                         for r in f["reasons"]]})
        pages.append(_base(log) + ".analysis/report.html")
        summary[-1]["view"] = _base(log) + ".analysis/" + d["view"] \
            if d.get("view") else None
        summary[-1]["pcapng"] = _base(log) + ".analysis/" + \
            d["pcapng"]["dir"] if d["pcapng"] else None
        if an._RANK[d["verdict"]] > an._RANK[worst]:
            worst = d["verdict"]
    tab = compare.table(rows)
    md = compare.table_md(tab)
    # what the runs ran on (magnet-exp run's provenance.json), and what
    # each run's numbers cannot be taken for
    notes = rpt.provenance_lines(
        _json_or_none(os.path.join(outdir, "provenance.json"))) + [
        "caveat: %s #%d: %s" % (rpt.run_variant(r["variant"], r["params"]),
                                r["repetition"], c)
        for r in summary for c in r["caveats"]]
    with open(os.path.join(outdir, "comparison.md"), "w") as f:
        f.write(rpt.comparison_md(s["test_id"], tab, rows, notes))
        f.write(stacks.experiment_extras(outdir, per_run))
    _write_csv(os.path.join(outdir, "comparison.csv"),
               [{k: v for k, v in r.items() if k != "params"} for r in tab])
    with open(os.path.join(outdir, "summary.json"), "w") as f:
        json.dump({"test_id": s["test_id"], "runs": summary,
                   "comparison": tab,
                   "differences": compare.differences(rows)}, f, indent=1)
        f.write("\n")
    figs = []
    if not ns.no_figures:
        figs = _figures(plots.compare_figure, named, outdir)
        groups = compare.groups(rows)
        # every run on the throughput-delay plane: by the RTT, and by
        # the one-way delay
        figs += _figures(plots.plane_figure, groups, outdir)
        figs += _figures(plots.plane_figure, groups, outdir, "owd")
        # the CDFs of every run's RTT samples and one-way delays
        figs += _figures(plots.delay_cdf_figure, compare.groups(delays),
                         outdir)
        if any(len(ms) > 1 for _, _, ms in groups):
            # repetitions: their spread per variant (and combination)
            figs += _figures(plots.spread_figure, groups, outdir)
    with open(os.path.join(outdir, "report.html"), "w") as f:
        f.write(rpt.experiment_html(
            s["test_id"], tab, [dict(r, report=p) for r, p in
                                zip(summary, pages)], outdir, figs, rows,
            notes))
    print()
    for x in notes:
        print(x + "\n")
    print(md, end="")
    for w in compare.warnings(tab, rows):
        print("\n" + w)
    print("(means with 95%% confidence intervals, and Welch's tests of the "
          "differences: %s/comparison.md)" % outdir)
    print("\nverdicts: " + ", ".join("%s #%d %s" % (
        rpt.run_variant(r["variant"], r["params"]), r["repetition"],
        r["verdict"]) for r in summary))
    # [traffic]'s iperf3 transfers cut short
    cut = [r for r in summary if r["metrics"].get("undelivered") and
           s.get("traffic") is not None and
           not specmod.listed(specmod.with_params(s, r["params"]))]
    if cut:
        print("note: %d of %d runs' transfers were cut short (undelivered "
              "bytes: iperf3 -n ends its test on its last write, and its "
              "server closes on what is in flight); [traffic] source = "
              "\"send\" or \"socat\" sends transfers that complete" % (
                  len(cut), len(summary)))
    if not ns.no_figures:
        # the figures written (none of a plot with nothing to draw)
        pngs = [x["file"] for x in figs if x["file"].endswith(".png")]
        print("figures in %s: %s; cwnd_srtt.png and view.html in each "
              "*.analysis/" % (
            outdir, ", ".join(pngs) or "none"))
    print("report: %s/report.html" % outdir)
    for x in mislabelled:
        print("magnet-exp: %s; left out of the comparison" % x,
              file=sys.stderr)
    if mislabelled:
        return 2
    return 1 if ns.strict and worst != an.CONFIRMED else 0


CLOCKS_EPILOG = """\
examples:
  magnet-exp clocks run_magnet.bin.gz           # the hosts of one log
  magnet-exp clocks snd.bin.gz rcv.bin.gz       # two machines' logs
  magnet-exp clocks --json clocks.json a.txt b.txt

From packets both hosts recorded (IPv4: addresses, ports and IP ID; the
sender's device going out, the receiver's coming in), per pair of hosts
(addresses): the receiver's clock less the sender's, theta = (min delay
A->B - min delay B->A) / 2, within +- (min A->B + min B->A) / 2, and the
one-way delays each way after it (python/magnet_exp/clocks.py). Hosts
whose packets all went out and came in within one log are namespaces of
one kernel, on one clock: 0 by construction, the delays exact. Exit
status: 0; 1 if no pair of hosts has packets matched both ways; 2 on a
usage or I/O error, or a log that cannot be read.
"""


def cmd_clocks(ns):
    m = clocks.Matches()
    for path in ns.logs:
        if not os.path.exists(path):
            raise FileNotFoundError("%s: no such file" % path)
        m.read(path, ns.ttpb2ascii)
    est = clocks.estimate(m)
    for line in clocks.report(est):
        print(line)
    if ns.json:
        with open(ns.json, "w") as f:
            json.dump(est, f, indent=1)
            f.write("\n")
    return 0 if est["pairs"] else 1


MONARCH_EPILOG = """\
Example: magnet-exp monarch 192.0.2.7 -p tcp -C reno -n 2M -o m1

Writes DIR/trace.txt (a line per probe, response and expiry),
DIR/proxy.txt (the proxy's counts and the delay it added), DIR/iperf3.json
and DIR/monarch.json (the summary). Load magnet first to record the
sender's and the receiver's TCP. ECN cannot be emulated: the remote echoes
no congestion mark, so the sender's and receiver's tcp_ecn is 0.
"""


def cmd_monarch(ns):
    if ns.ecn:
        raise monarch.MonarchError(
            "ECN cannot be emulated: no probe's answer echoes a congestion "
            "mark (Monarch, IMC'06, section 2.4)")
    s = monarch.run(ns.remote, ns.probe, ns.output, cc=ns.cc,
                    nbytes=ns.bytes, seconds=ns.time,
                    closed_port=ns.closed_port, hold_ms=ns.hold)
    print("%s, %s probes, %s: %s bytes in %.2f s, %.3f Mbit/s, %s "
          "retransmits" % (s["remote"], s["probe"], s["cc"], s["bytes"],
                           s["seconds"], s["mbps"], s["retransmits"]))
    sys.stdout.write(s.get("proxy", ""))
    print(monarchdiag.summary_line(s["diagnosis"]))
    for e in s.get("teardown_errors", []):
        print("magnet-exp monarch: teardown: %s" % e, file=sys.stderr)
    return 1 if s.get("teardown_errors") else 0


def _jobs(v):
    try:
        n = int(v)
    except ValueError:
        n = 0
    if n < 1:
        raise argparse.ArgumentTypeError("%r: a number of logs, 1 or more"
                                         % v)
    return n


def main(argv=None):
    p = argparse.ArgumentParser(
        prog="magnet-exp",
        description="Experiments with magnet, and the analysis of its logs.")
    sub = p.add_subparsers(dest="cmd", required=True)
    a = sub.add_parser(
        "analyse", aliases=["analyze"],
        help="per-connection CSVs and a verdict for each log",
        description="Per-connection CSVs and a trace verdict for each "
        "magnet log: binary (omode=1), or its magnet text (omode=3, or "
        "ttpb2ascii -f magnet's), gzip or not; or a ttprobe log (its "
        "ASCII lines) or a web10g log, with the TCP columns each has "
        "(docs/experiments.md).",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    a.add_argument("logs", nargs="+", metavar="LOG|DIR",
                   help="magnet logs, binary (omode=1) or the magnet "
                   "text (omode=3), or ttprobe's or web10g logs, gzip or "
                   "not, "
                   "or directories of binary ones (*.bin, *.bin.gz)")
    a.add_argument("-o", "--output", metavar="OUT",
                   help="the directory for the results (default: "
                   "./LOG-name.analysis; with several logs, "
                   "OUT/LOG-name.analysis)")
    a.add_argument("--ttpb2ascii", metavar="PATH",
                   help="the ttpb2ascii to read the logs with")
    a.add_argument("--no-figures", action="store_true",
                   help="write no PNG and SVG figures")
    a.add_argument("--ifindex", metavar="N,N...",
                   help="only the device records of these interfaces (the "
                   "end hosts' devices of an emulated path; magnet-exp run "
                   "gives 7101,7104); a log that names its records' "
                   "namespaces needs none: a router's are its own")
    a.add_argument("--pcapng", action="store_true",
                   help=PCAPNG_HELP)
    a.add_argument("-j", "--jobs", type=_jobs, default=jobs_default(),
                   metavar="N", help="analyse N logs at a time, each in a "
                   "process of its own (default: one per CPU, here %d)"
                   % jobs_default())
    a.add_argument("--strict", action="store_true",
                   help="exit 1 unless every verdict is confirmed")
    r = sub.add_parser(
        "run", help="run an experiment (spec in TOML) and analyse it",
        description="Run an experiment on this host (root): three network "
        "namespaces, the bottleneck on the router, iperf3 with each "
        "congestion control, magnet recording; or, with [testbed], on "
        "hosts reached over SSH; then the analysis of every "
        "log and the comparison of the variants.", epilog=RUN_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    r.add_argument("spec", metavar="SPEC", help="the experiment (TOML)")
    r.add_argument("-o", "--output", metavar="DIR",
                   help="where the runs go (default: the test_id)")
    r.add_argument("--module", metavar="KO",
                   help="insmod this magnet.ko (default: modprobe magnet)")
    r.add_argument("--ttpb2ascii", metavar="PATH",
                   help="the ttpb2ascii to read the logs with")
    r.add_argument("--seed", type=int, metavar="N",
                   help="the seed of the runs' random order (default: a "
                   "new one, recorded in order.json)")
    r.add_argument("--no-shuffle", action="store_true",
                   help="each combination and variant in turn, the spec's "
                   "order, repetition after repetition")
    r.add_argument("--resume", action="store_true",
                   help="go on with an interrupted run in the output "
                   "directory: same spec, its order, the runs runs.json "
                   "lists kept")
    r.add_argument("--no-analyse", action="store_true",
                   help="only run, leave the logs")
    r.add_argument("--no-figures", action="store_true",
                   help="write no PNG and SVG figures")
    r.add_argument("--pcapng", action="store_true",
                   help=PCAPNG_HELP)
    r.add_argument("-j", "--jobs", type=_jobs, default=jobs_default(),
                   metavar="N", help="analyse N logs at a time, each in a "
                   "process of its own (default: one per CPU, here %d)"
                   % jobs_default())
    r.add_argument("--strict", action="store_true",
                   help="exit 1 unless every verdict is confirmed")
    e = sub.add_parser(
        "report", help="analyse the runs of an experiment directory",
        description="Analyse what magnet-exp run left in DIR (run with "
        "--no-analyse, or on another machine): every run's log, the "
        "comparison of the variants and the verdicts, as run does after "
        "its last run.", epilog=REPORT_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    e.add_argument("dir", metavar="DIR",
                   help="the directory magnet-exp run -o DIR wrote")
    e.add_argument("--ttpb2ascii", metavar="PATH",
                   help="the ttpb2ascii to read the logs with")
    e.add_argument("--no-figures", action="store_true",
                   help="write no PNG and SVG figures")
    e.add_argument("--pcapng", action="store_true",
                   help=PCAPNG_HELP)
    e.add_argument("-j", "--jobs", type=_jobs, default=jobs_default(),
                   metavar="N", help="analyse N logs at a time, each in a "
                   "process of its own (default: one per CPU, here %d)"
                   % jobs_default())
    e.add_argument("--strict", action="store_true",
                   help="exit 1 unless every verdict is confirmed")
    c = sub.add_parser(
        "clocks", help="the offset between hosts' clocks, one-way delays",
        description="The offset between the clocks of the hosts whose "
        "packets the logs recorded both going out and coming in, and the "
        "one-way delay each way.", epilog=CLOCKS_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    c.add_argument("logs", nargs="+", metavar="LOG",
                   help="magnet logs (binary or text, gzip or not): one "
                   "with several hosts' records, or one per host")
    c.add_argument("--json", metavar="FILE",
                   help="also write the estimate as JSON into FILE")
    c.add_argument("--ttpb2ascii", metavar="PATH",
                   help="the ttpb2ascii to read the logs with")
    m = sub.add_parser(
        "monarch", help="emulate a TCP flow to a host that answers probes",
        description="Monarch (IMC'06): a flow of this host's unmodified "
        "kernel TCP, from a sender to a receiver in namespaces of their "
        "own, through magnet-monarch-proxy, which holds each packet until "
        "the probe of its size sent to REMOTE is answered: the real path's "
        "loss and delay shape the flow (docs/monarch.md). Root.",
        epilog=MONARCH_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    m.add_argument("remote", metavar="REMOTE", help="an IPv4 address")
    m.add_argument("-p", "--probe", choices=monarch.PROBES, default="tcp",
                   help="tcp: an ACK to a closed port, answered by a RST "
                   "(the default); udp: a datagram to a closed port, "
                   "answered by ICMP port unreachable; echo: ICMP echo; "
                   "tstamp: ICMP timestamp (40 bytes whatever the packet)")
    m.add_argument("-C", "--cc", default="cubic",
                   help="the sender's congestion control (cubic)")
    m.add_argument("-n", "--bytes", metavar="N",
                   help="send N bytes (iperf3 -n: 2M, 500K)")
    m.add_argument("-t", "--time", type=float, metavar="S",
                   help="send for S seconds (default 10, without -n)")
    m.add_argument("-o", "--output", metavar="DIR", default="monarch",
                   help="where the files go (./monarch)")
    m.add_argument("--closed-port", type=int, default=33434,
                   help="the remote's closed port for tcp and udp probes")
    m.add_argument("--hold", type=int, default=5000, metavar="MS",
                   help="how long a packet waits for its probe's answer")
    m.add_argument("--ecn", action="store_true",
                   help="refused: no probe's answer echoes a congestion "
                   "mark, so ECN cannot be emulated")
    try:
        ns = p.parse_args(argv)
    except BrokenPipeError:
        # `magnet-exp --help | head`
        if stdout_gone():
            return quiet_end()
        raise
    cmd = {"monarch": cmd_monarch, "clocks": cmd_clocks, "run": cmd_run,
           "report": cmd_report}.get(ns.cmd, cmd_analyse)
    try:
        rc = cmd(ns)
        sys.stdout.flush()
        return rc
    except (OSError, ValueError, runner.RunError, monarch.MonarchError) as e:
        # `magnet-exp ... | head`: the reader went away, not an error
        if isinstance(e, BrokenPipeError) and stdout_gone():
            return quiet_end()
        print("magnet-exp: %s" % e, file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        # Ctrl-C (SIGINT): the run's own cleanup (magnet unloaded, the
        # namespaces removed) has run on the way out
        hint = ""
        if getattr(ns, "outdir", None):
            hint = ("; the runs that ended are in %s, and magnet-exp run "
                    "--resume -o %s %s runs the rest" % (
                        os.path.join(ns.outdir, runner.MANIFEST), ns.outdir,
                        ns.spec))
        print("magnet-exp: interrupted%s" % hint, file=sys.stderr)
        return 130


def stdout_gone():
    """whether standard output is a pipe whose reader has gone (`| head`):
    poll() says POLLERR on such a pipe's write end"""
    try:
        p = select.poll()
        p.register(sys.stdout.fileno(), select.POLLOUT)
        return any(ev & select.POLLERR for _, ev in p.poll(0))
    except (OSError, ValueError, AttributeError):
        return False


def quiet_end():
    """the end when stdout's reader has gone: no message, status 141, as
    ttpb2ascii and any C tool killed by SIGPIPE; what Python still holds
    for stdout goes to /dev/null (else it tries again at exit and says
    so)"""
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 141
