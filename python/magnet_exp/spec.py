"""The experiment spec (TOML), checked with a clear message per mistake.

    test_id = "cc-compare"          # names the logs: letters, digits, - .
    variants = ["cubic", "reno"]    # congestion controls to compare
    repetitions = 2

    [path]                          # the bottleneck, on the router
    rate = "20mbit"                 # tc rate units (kbit, mbit, gbit)
    delay = "20ms"                  # one way, toward the receiver
    jitter = "0ms"
    loss = "0%"
    limit = 100                     # packets the bottleneck queue holds
    return_delay = "0ms"            # toward the sender
    return_loss = "0%"
    relays = 0                      # TCP relays (socat) chained between
                                    # the router and the receiver: the
                                    # data crosses 1 + relays TCP stacks

    [traffic]                       # one iperf3 flow; or [[flows]] below
    size = "2M"                     # iperf3 -n; or duration = 5 (s)
    parallel = 1                    # iperf3 -P
    length = "128K"                 # iperf3 -l: the application's writes
    source = "iperf3"               # or "socat": socat sends size bytes
                                    # in writes of length, its server
                                    # reads to the end (wc -c): every
                                    # byte delivered before the flow ends
                                    # (iperf3 -n ends its test when the
                                    # last bytes are written, and its
                                    # server closes on what is in flight);
                                    # or "send": the same from python3,
                                    # its first write made while the
                                    # connection opens

    [[flows]]                       # instead of [traffic]: one table per
    name = "bulk"                   # flow (default flow1, flow2, ...)
    start = 0                       # s after the first flow starts
    port = 5201                     # default 5201, 5202, ... by order
    size = "2M"                     # an iperf3 flow: size or duration,
    parallel = 1                    # parallel and length as [traffic]
    length = "128K"
    [[flows]]                       # or any command, on the sender
    start = 1                       # (namespace, or testbed host):
                                    # {addr} {port} {variant}
    command = "head -c 1000000 /dev/zero | socat -u - TCP:{addr}:{port}"
    server = "socat -u TCP-LISTEN:{port},reuseaddr /dev/null"
                                    # optional, on the receiver, before
                                    # the flows start

    A list instead of one value, for any key of [path] but relays and
    any of [traffic], sweeps it (TEACUP's TPCONF_vary_parameters): every
    combination of the lists' values (their cartesian product) runs
    every variant and repetition, e.g. delay = ["10ms", "40ms"] with
    loss = ["0%", "1%"]: 4 paths. Not with [testbed].

    [magnet]
    params = "events=all omode=1"   # module parameters (omode=1 always)
    reader = "live"                 # or "after": the reader starts once
                                    # the traffic is over (a stalled
                                    # reader: what the rings cannot hold
                                    # is lost, and the log says so)
    text_logs = ["ttprobe", "web10g"]   # also <...>_ttprobe.log.gz and
                                    # _web10g.log.gz per log, for
                                    # TEACUP's own analysis (default: none)

    [monarch]                       # optional: each run a Monarch flow
    remote = "192.0.2.7"            # (magnet-exp monarch, docs/monarch.md)
    probe = "tcp"                   # to this host over the real path: tcp,
    closed_port = 33434             # udp, echo or tstamp probes (the
    hold = 5000                     # defaults), instead of [path]; with
                                    # [traffic]'s size or duration only,
                                    # no [[flows]] or [testbed]

    [testbed.sender]                # optional: real hosts over SSH
    ssh = "root@tb1.lab"            # [user@]host[:port] (required)
    name = "tb1"                    # in its files (default: the host's
                                    # first label, or its address)
    identity = "~/.ssh/id_ed25519"  # default: ssh's usual keys, agent
    known_hosts = "~/.ssh/known_hosts"   # the default; checked always
    record = true                   # magnet records here (default: yes
                                    # on sender and receiver, no on the
                                    # router)
    module = "/root/magnet.ko"      # insmod it (default: modprobe magnet)
    [testbed.receiver]              # required; the same keys, and
    address = "10.10.2.2"           # iperf3 -c (required)
    [testbed.router]                # optional; the same keys, and
    forward_dev = "enp2s0"          # [path]'s netem, toward the receiver
    return_dev = "enp1s0"           # return_delay/loss, toward the sender
                                    # (without a router, no [path]; over
                                    # SSH [traffic] or [[flows]], no
                                    # relays)
"""
import copy
import itertools
import re
import tomllib

_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9.-]*$")
_RATE = re.compile(r"^[0-9]+(\.[0-9]+)?(bit|kbit|mbit|gbit)$")
_TIME = re.compile(r"^[0-9]+(\.[0-9]+)?(us|ms|s)$")
_PCT = re.compile(r"^[0-9]+(\.[0-9]+)?%$")
_SIZE = re.compile(r"^[0-9]+[KMG]?$")

DEFAULTS = {
    "repetitions": 1,
    "path": {"rate": "20mbit", "delay": "20ms", "jitter": "0ms",
             "loss": "0%", "limit": 100, "return_delay": "0ms",
             "return_loss": "0%", "relays": 0},
    "traffic": {"size": "2M", "duration": None, "parallel": 1,
                "length": "128K", "source": "iperf3"},
    "magnet": {"params": "events=all omode=1", "reader": "live",
               "text_logs": []},
}
FLOW_KEYS = ("name", "start", "port", "size", "duration", "parallel",
             "length", "command", "server")
MAX_FLOWS = 16
# a sweep: at most this many values per key, and combinations in all
MAX_SWEEP_VALUES = 20
MAX_COMBINATIONS = 256
MAX_RELAYS = 8
FIRST_PORT = 5201


# [traffic] source: iperf3, or a transfer that completes, sent by socat
# or by "send", counted by socat's server (listed() and flows_of() below)
SOURCES = ("iperf3", "socat", "send")
SOCAT_CLIENT = ("socat -u -b %d OPEN:/dev/zero,readbytes=%d "
                "TCP:{addr}:{port}")
SOCAT_SERVER = "socat -u TCP-LISTEN:{port},reuseaddr - | wc -c"
# "send": the same bytes in the same writes from a few lines of Python
# whose first write is made while the connection opens (a blocking send
# after a non-blocking connect: the kernel copies the data as soon as the
# SYN-ACK is in, and the handshake's last ACK goes with it). socat
# connects, then sets itself up and reads its input before its first
# write: under software emulation 5 to 37 ms of the time to the first byte
# (make demo, 7.2), the application's, not the path's or the variant's.
SEND_PROGRAM = """import errno, os, socket, sys
size, left = int(sys.argv[1]), int(sys.argv[2])
try:
    fam, kind, proto, _, addr = socket.getaddrinfo(
        sys.argv[3], int(sys.argv[4]), type=socket.SOCK_STREAM)[0]
    s = socket.socket(fam, kind, proto)
    s.setblocking(False)
    e = s.connect_ex(addr)
    if e not in (0, errno.EINPROGRESS):
        raise OSError(e, os.strerror(e))
    s.setblocking(True)
    buf = memoryview(bytes(size))
    while left > 0:
        left -= s.send(buf[:min(size, left)])
    s.shutdown(socket.SHUT_WR)
except OSError as x:
    sys.exit("send: %s port %s: %s, %d bytes not sent" % (
        sys.argv[3], sys.argv[4], x.strerror or x, left))
"""
SEND_CLIENT = "python3 -c '%s' %%d %%d {addr} {port}" % \
    SEND_PROGRAM.replace("%", "%%")
# the command flows' clients, by [traffic] source (iperf3 is no command)
CLIENTS = {"socat": SOCAT_CLIENT, "send": SEND_CLIENT}


# [monarch]: its keys and their defaults (remote: required)
MONARCH_DEFAULTS = {"remote": None, "probe": "tcp", "closed_port": 33434,
                    "hold": 5000}


# [magnet] text_logs: besides the binary log, each run's log in these
# text formats (ttpb2ascii -f FORMAT), named as TEACUP names them
TEXT_LOGS = ("ttprobe", "web10g")


class SpecError(ValueError):
    pass


def _check(cond, msg):
    if not cond:
        raise SpecError(msg)


def load(path):
    try:
        with open(path, "rb") as f:
            raw = tomllib.load(f)
    except tomllib.TOMLDecodeError as e:
        raise SpecError("%s: not valid TOML: %s" % (path, e)) from None
    return check(raw, path)


def check(raw, where="spec"):
    known = {"test_id", "variants", "repetitions", "path", "traffic",
             "magnet", "flows", "testbed", "monarch"}
    for k in raw:
        _check(k in known, "%s: unknown key '%s' (known: %s)"
               % (where, k, ", ".join(sorted(known))))
    s = {"test_id": raw.get("test_id"), "variants": raw.get("variants"),
         "repetitions": raw.get("repetitions", DEFAULTS["repetitions"])}
    _check(isinstance(s["test_id"], str) and _ID.match(s["test_id"]),
           "%s: test_id must be letters, digits, '-' and '.'" % where)
    _check(isinstance(s["variants"], list) and s["variants"] and
           all(isinstance(v, str) and re.match(r"^[a-z0-9_]+$", v)
               for v in s["variants"]),
           "%s: variants must be a list of congestion control names" % where)
    _check(isinstance(s["repetitions"], int) and
           1 <= s["repetitions"] <= 100,
           "%s: repetitions must be 1..100" % where)
    flows = raw.get("flows")
    # [[flows]] replace [traffic]; check()'s own output has "flows": None
    # without them, and "traffic": None with them
    _check(flows is None or raw.get("traffic") is None,
           "%s: [traffic] and [[flows]]: give one or the other" % where)
    for sect in ("path", "traffic", "magnet"):
        got = raw.get(sect, {})
        if sect == "traffic" and flows is not None:
            s[sect] = None
            continue
        if got is None and sect == "traffic":
            got = {}
        _check(isinstance(got, dict), "%s: [%s] must be a table"
               % (where, sect))
        for k in got:
            _check(k in DEFAULTS[sect], "%s: [%s]: unknown key '%s' "
                   "(known: %s)" % (where, sect, k,
                                    ", ".join(sorted(DEFAULTS[sect]))))
        s[sect] = dict(DEFAULTS[sect], **got)
    s["monarch"] = None
    if raw.get("monarch") is not None:
        s["monarch"] = check_monarch(raw, where)
    swept = _swept(s, where)
    _check(not swept or raw.get("testbed") is None,
           "%s: [testbed]: a sweep (%s a list) runs in the local namespaces "
           "only; on a testbed, one spec per combination" % (
               where, ", ".join(k for _, k in swept)))
    t = s["traffic"]
    _check(not (t and isinstance(t["size"], list) and
                t["duration"] is not None),
           "%s: [traffic] size and duration: give one or the other (a "
           "sweep of sizes with a duration)" % where)
    # each combination's values checked as a spec of its own; the spec
    # is the first one's, with the swept keys' lists
    checked = []
    for _, one in combinations(s):
        _check_one(one, raw, where)
        checked.append(one)
    out = checked[0]
    for sect, k in swept:
        out[sect][k] = s[sect][k]
    return out


def _swept(s, where):
    """[(section, key)] of the keys whose value is a list (a sweep), in the
    spec's order; each list checked for its shape"""
    out = _sweep_keys(s)
    n = 1
    for sect, k in out:
        v = s[sect][k]
        _check(sect != "path" or k != "relays",
               "%s: [path] relays cannot be swept: each count is a "
               "topology of its own (one spec per count)" % where)
        _check(v and len(v) <= MAX_SWEEP_VALUES,
               "%s: [%s] %s: a sweep of 1..%d values" % (
                   where, sect, k, MAX_SWEEP_VALUES))
        _check(all(not isinstance(x, (list, dict)) for x in v) and
               len(set(map(repr, v))) == len(v),
               "%s: [%s] %s: a sweep's values, each once" % (
                   where, sect, k))
        n *= len(v)
    _check(n <= MAX_COMBINATIONS, "%s: the sweep has %d combinations, at "
           "most %d" % (where, n, MAX_COMBINATIONS))
    return out


def _sweep_keys(s):
    """[(section, key)] a spec sweeps (its lists), in its order"""
    return [(sect, k) for sect in ("path", "traffic")
            for k, v in (s.get(sect) or {}).items() if isinstance(v, list)]


def swept_keys(s):
    """the keys a checked spec sweeps, in its order ([path]'s, then
    [traffic]'s: no key is in both)"""
    return [k for _, k in _sweep_keys(s)]


def combinations(s):
    """[(params, spec)]: each combination of a sweep's values ({key:
    value} of the swept keys, in their order), and the spec with those
    values; a spec that sweeps nothing: [({}, s)]"""
    keys = _sweep_keys(s)
    out = []
    for vals in itertools.product(*(s[sect][k] for sect, k in keys)):
        one = copy.deepcopy(s)
        for (sect, k), v in zip(keys, vals):
            one[sect][k] = v
        out.append(({k: v for (_, k), v in zip(keys, vals)}, one))
    return out


def with_params(s, params):
    """the spec of one combination of a sweep (@s itself if none)"""
    if not params:
        return s
    one = copy.deepcopy(s)
    for sect in ("path", "traffic"):
        for k in one.get(sect) or {}:
            if k in params:
                one[sect][k] = params[k]
    return one


def params_tag(params):
    """a combination in file names: delay-10ms.loss-1pct ("" if none)"""
    return ".".join("%s-%s" % (k, re.sub(r"[^A-Za-z0-9.]", "",
                                          str(v).replace("%", "pct")))
                    for k, v in params.items())


def params_text(params):
    """a combination for people: delay 10ms, loss 1%"""
    return ", ".join("%s %s" % (k, v) for k, v in params.items())


def _check_one(s, raw, where):
    """the checks of one combination's values (scalars): @s is changed
    in place (a duration sets size None; a testbed's table)"""
    p = s["path"]
    _check(isinstance(p["rate"], str) and _RATE.match(p["rate"]),
           "%s: [path] rate '%s': a number and bit, kbit, mbit or gbit"
           % (where, p["rate"]))
    for k in ("delay", "jitter", "return_delay"):
        _check(isinstance(p[k], str) and _TIME.match(p[k]),
               "%s: [path] %s '%s': a number and us, ms or s"
               % (where, k, p[k]))
    for k in ("loss", "return_loss"):
        _check(isinstance(p[k], str) and _PCT.match(p[k]) and
               float(p[k][:-1]) <= 100,
               "%s: [path] %s '%s': a percentage, 0%% to 100%%"
               % (where, k, p[k]))
    _check(isinstance(p["limit"], int) and 1 <= p["limit"] <= 1000000,
           "%s: [path] limit must be 1..1000000 packets" % where)
    _check(isinstance(p["relays"], int) and not isinstance(p["relays"], bool)
           and 0 <= p["relays"] <= MAX_RELAYS,
           "%s: [path] relays must be 0..%d" % (where, MAX_RELAYS))
    flows = raw.get("flows")
    s["flows"] = None if flows is None else _check_flows(flows, where)
    t = s["traffic"]
    if t is not None:
        _check(t["source"] in SOURCES, "%s: [traffic] source must be %s"
               % (where, " or ".join('"%s"' % x for x in SOURCES)))
        _check(t["source"] == "iperf3" or (t["duration"] is None and
                                           t["parallel"] == 1),
               "%s: [traffic] source \"%s\" sends a size over one "
               "connection: no duration, parallel 1" % (where, t["source"]))
        _check_iperf(t, "[traffic]", where)
    m = s["magnet"]
    _check(isinstance(m["params"], str) and
           re.match(r"^[A-Za-z0-9_=,. ]*$", m["params"]),
           "%s: [magnet] params: module parameters, NAME=VALUE ..." % where)
    _check(m["reader"] in ("live", "after"),
           "%s: [magnet] reader must be \"live\" or \"after\"" % where)
    _check(isinstance(m["text_logs"], list) and
           all(x in TEXT_LOGS for x in m["text_logs"]) and
           len(set(m["text_logs"])) == len(m["text_logs"]),
           "%s: [magnet] text_logs: a list of %s, each once" % (
               where, " and ".join('"%s"' % x for x in TEXT_LOGS)))
    _check("omode=" not in m["params"] or "omode=1" in m["params"],
           "%s: [magnet] params: the experiments record omode=1 (binary)"
           % where)
    if raw.get("testbed") is not None:
        s["testbed"] = check_testbed(raw["testbed"], s, where)


def check_monarch(raw, where="spec"):
    """[monarch] of the raw spec @raw, checked, with its defaults: a run
    is a Monarch flow to a real host, so no [path] (the path is the real
    one), [[flows]] or [testbed], and of [traffic] only size or duration
    (iperf3, one connection)"""
    import ipaddress
    from magnet_exp.monarch import PROBES
    m = raw["monarch"]
    _check(isinstance(m, dict), "%s: [monarch] must be a table" % where)
    for k in m:
        _check(k in MONARCH_DEFAULTS, "%s: [monarch]: unknown key '%s' "
               "(known: %s)" % (where, k, ", ".join(sorted(
                   MONARCH_DEFAULTS))))
    out = dict(MONARCH_DEFAULTS, **m)
    try:
        ipaddress.IPv4Address(out["remote"])
    except (ValueError, TypeError):
        raise SpecError("%s: [monarch] remote: an IPv4 address (Monarch "
                        "here is IPv4 only), not %r" % (where,
                                                        out["remote"])) \
            from None
    _check(out["probe"] in PROBES, "%s: [monarch] probe: one of %s"
           % (where, ", ".join(PROBES)))
    _check(isinstance(out["closed_port"], int) and
           not isinstance(out["closed_port"], bool) and
           1 <= out["closed_port"] <= 65535,
           "%s: [monarch] closed_port must be 1..65535" % where)
    _check(isinstance(out["hold"], int) and not isinstance(out["hold"], bool)
           and 1 <= out["hold"] <= 60000,
           "%s: [monarch] hold must be 1..60000 (ms)" % where)
    # (a checked spec, as magnet-exp run saves it in spec.json, carries
    # [path] and [traffic] with their defaults: those pass)
    for k, why in (("path", "the path is the real one to the remote"),
                   ("flows", "a Monarch run is one iperf3 flow"),
                   ("testbed", "Monarch's sender and receiver are this "
                    "host's namespaces")):
        _check(raw.get(k) is None or
               (k == "path" and raw[k] == DEFAULTS["path"]),
               "%s: [monarch] and [%s]: %s" % (
                   where, "[flows]" if k == "flows" else k, why))
    t = raw.get("traffic") or {}
    extra = sorted(k for k in t if k not in ("size", "duration") and
                   t[k] != DEFAULTS["traffic"].get(k))
    _check(not extra, "%s: [monarch]: [traffic] takes size or duration "
           "only (one iperf3 connection), not %s" % (where, ", ".join(extra)))
    return out


# [testbed]: hosts reached over SSH (magnet_exp.remote). Each role's
# table, its keys and their defaults (None: absent, optional)
ROLES = ("sender", "receiver", "router")
_HOST_KEYS = {"ssh": None, "name": None, "identity": None,
              "known_hosts": None, "record": None, "module": None}
_ROLE_KEYS = {"sender": {}, "receiver": {"address": None},
              "router": {"forward_dev": None, "return_dev": None}}
_SSH = re.compile(r"^(?:([A-Za-z0-9._][A-Za-z0-9._-]*)@)?"
                  r"(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9][A-Za-z0-9.-]*)"
                  r"(?::([0-9]{1,5}))?$")
_DEV = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.@-]{0,14}$")
_ADDR = re.compile(r"^([0-9A-Fa-f:.]+|[A-Za-z0-9][A-Za-z0-9.-]*)$")


def ssh_dest(text):
    """(user or None, host, port) of "[user@]host[:port]"; host may be
    an IPv6 address in brackets"""
    m = _SSH.match(text)
    return m.group(1), m.group(2).strip("[]"), int(m.group(3) or 22)


def _default_name(host):
    """a host's default name in its files: a name's first label, or the
    address (':' of IPv6 as '-')"""
    if re.match(r"^[0-9.]+$", host) or ":" in host:
        return host.replace(":", "-")
    return host.split(".")[0]


def check_testbed(raw, s, where="spec"):
    """[testbed]: [testbed.sender], [testbed.receiver] and optionally
    [testbed.router], each with ssh = "[user@]host[:port]" and options"""
    _check(isinstance(raw, dict), "%s: [testbed] must be a table" % where)
    for k in raw:
        _check(k in ROLES, "%s: [testbed]: unknown key '%s' (known: %s)"
               % (where, k, ", ".join(ROLES)))
    for k in ("sender", "receiver"):
        _check(raw.get(k) is not None, "%s: [testbed] needs [testbed.%s]"
               % (where, k))
    # the relays are an emulation: namespaces on the one machine
    _check(not s["path"].get("relays"),
           "%s: [testbed]: [path] relays are an emulation built from network "
           "namespaces on one machine (magnet-exp run without [testbed]); a "
           "testbed's relays are hosts of its own" % where)
    tb, names = {}, {}
    for role in ROLES:
        got = raw.get(role)
        if got is None:
            tb[role] = None
            continue
        sect = "[testbed.%s]" % role
        _check(isinstance(got, dict), "%s: %s must be a table"
               % (where, sect))
        keys = dict(_HOST_KEYS, **_ROLE_KEYS[role])
        for k in got:
            _check(k in keys, "%s: %s: unknown key '%s' (known: %s)"
                   % (where, sect, k, ", ".join(sorted(keys))))
        h = dict(keys, **got)
        _check(isinstance(h["ssh"], str) and _SSH.match(h["ssh"]) and
               0 < ssh_dest(h["ssh"])[2] < 65536,
               "%s: %s ssh '%s': the SSH destination, [user@]host[:port]"
               % (where, sect, h["ssh"]))
        if h["name"] is None:
            h["name"] = _default_name(ssh_dest(h["ssh"])[1])
        _check(isinstance(h["name"], str) and _ID.match(h["name"]),
               "%s: %s name '%s': letters, digits, '-' and '.' (it names "
               "the host's files)" % (where, sect, h["name"]))
        _check(h["name"] not in names, "%s: %s and [testbed.%s] are both "
               "named '%s' (it names their files): give one a name" % (
                   where, sect, names.get(h["name"]), h["name"]))
        names[h["name"]] = role
        for k in ("identity", "known_hosts", "module"):
            _check(h[k] is None or (isinstance(h[k], str) and h[k]),
                   "%s: %s %s: a file name" % (where, sect, k))
        if h["record"] is None:
            h["record"] = role != "router"
        _check(isinstance(h["record"], bool),
               "%s: %s record must be true or false" % (where, sect))
        tb[role] = h
    a = tb["receiver"]["address"]
    _check(isinstance(a, str) and _ADDR.match(a),
           "%s: [testbed.receiver] needs address = \"...\": the receiver's "
           "address on the experiment's network (iperf3 -c)" % where)
    r = tb["router"]
    p = s["path"]
    if r is None:
        _check(all(p[k] == v for k, v in DEFAULTS["path"].items()),
               "%s: [path] needs [testbed.router] to put the bottleneck on "
               "(without a router, leave [path] out: the testbed's own "
               "path is what the traffic crosses)" % where)
    else:
        for k in ("forward_dev", "return_dev"):
            _check(r[k] is None or (isinstance(r[k], str) and
                                    _DEV.match(r[k])),
                   "%s: [testbed.router] %s: an interface name"
                   % (where, k))
        _check(r["forward_dev"] is not None, "%s: [testbed.router] needs "
               "forward_dev = \"...\": its interface toward the receiver, "
               "where [path]'s bottleneck goes" % where)
        _check(r["return_dev"] is not None or (
            time_s(p["return_delay"]) == 0 and
            float(p["return_loss"][:-1]) == 0),
            "%s: [path] return_delay and return_loss need [testbed.router] "
            "return_dev = \"...\" (its interface toward the sender)" % where)
    _check(any(h["record"] for h in tb.values() if h),
           "%s: [testbed]: no host records (record = true on one)" % where)
    return tb


def _check_iperf(t, sect, where):
    """an iperf3 flow's keys: [traffic], or a [[flows]] table"""
    if t["duration"] is not None:
        _check(isinstance(t["duration"], (int, float)) and
               0 < t["duration"] <= 3600,
               "%s: %s duration must be 0..3600 s" % (where, sect))
        t["size"] = None
    else:
        _check(isinstance(t["size"], str) and _SIZE.match(t["size"]),
               "%s: %s size '%s': bytes, or with K, M or G"
               % (where, sect, t["size"]))
    _check(isinstance(t["parallel"], int) and 1 <= t["parallel"] <= 128,
           "%s: %s parallel must be 1..128" % (where, sect))
    _check(isinstance(t["length"], str) and _SIZE.match(t["length"]),
           "%s: %s length '%s': bytes, or with K, M or G"
           % (where, sect, t["length"]))


def _check_flows(flows, where):
    _check(isinstance(flows, list) and flows and
           all(isinstance(f, dict) for f in flows),
           "%s: flows must be an array of tables ([[flows]])" % where)
    _check(len(flows) <= MAX_FLOWS, "%s: [[flows]]: at most %d flows"
           % (where, MAX_FLOWS))
    out = []
    for i, got in enumerate(flows):
        sect = "[[flows]] #%d" % (i + 1)
        for k in got:
            _check(k in FLOW_KEYS, "%s: %s: unknown key '%s' (known: %s)"
                   % (where, sect, k, ", ".join(sorted(FLOW_KEYS))))
        f = dict({"name": "flow%d" % (i + 1), "start": 0,
                  "port": FIRST_PORT + i, "command": None,
                  "server": None}, **got)
        _check(isinstance(f["name"], str) and _ID.match(f["name"]),
               "%s: %s: name must be letters, digits, '-' and '.'"
               % (where, sect))
        sect = "[[flows]] %s" % f["name"]
        _check(isinstance(f["start"], (int, float)) and
               not isinstance(f["start"], bool) and
               0 <= f["start"] <= 3600,
               "%s: %s: start must be 0..3600 s" % (where, sect))
        _check(isinstance(f["port"], int) and not isinstance(f["port"], bool)
               and 1 <= f["port"] <= 65535,
               "%s: %s: port must be 1..65535" % (where, sect))
        if f["command"] is not None or f["server"] is not None:
            _check(isinstance(f["command"], str) and f["command"].strip(),
                   "%s: %s: command must be a non-empty string (a server "
                   "goes with a command)" % (where, sect))
            _check(f["server"] is None or (isinstance(f["server"], str) and
                                           f["server"].strip()),
                   "%s: %s: server must be a non-empty string" % (where,
                                                                  sect))
            for k in ("size", "duration", "parallel", "length"):
                _check(f.get(k) is None, "%s: %s: '%s' is for an iperf3 "
                       "flow, not with command" % (where, sect, k))
                f[k] = None
        else:
            for k, v in DEFAULTS["traffic"].items():
                if k != "source":       # [traffic]'s only
                    f.setdefault(k, v)
            _check_iperf(f, sect, where)
        out.append(f)
    for key in ("name", "port"):
        seen = [f[key] for f in out]
        for v in seen:
            _check(seen.count(v) == 1, "%s: [[flows]]: %s %s used twice "
                   "(each flow needs its own)" % (where, key, v))
    return out


def listed(s):
    """whether a run's traffic is a list of flows (flows.json; run_flows'
    list in runs): [[flows]], or [traffic] from socat or send (a command
    flow)"""
    return bool(s.get("flows")) or \
        (s.get("traffic") or {}).get("source") in CLIENTS


def flows_of(s):
    """the flows of a checked spec (of one combination of a sweep):
    [[flows]]; or [traffic]'s one iperf3 flow (name None: its files keep
    their names, <base>_iperf3.json); or with source "socat" or "send"
    its command flow, named bulk"""
    if s.get("flows"):
        return s["flows"]
    t = s["traffic"]
    client = CLIENTS.get(t.get("source"))
    if client:
        return [{"name": "bulk", "start": 0, "port": FIRST_PORT,
                 "command": client % (size_bytes(t["length"]),
                                      size_bytes(t["size"])),
                 "server": SOCAT_SERVER, "size": None, "duration": None,
                 "parallel": None, "length": None}]
    return [dict(t, name=None, start=0, port=FIRST_PORT,
                 command=None, server=None)]


def size_bytes(text):
    mult = {"K": 1024, "M": 1024 ** 2, "G": 1024 ** 3}
    if text[-1] in mult:
        return int(text[:-1]) * mult[text[-1]]
    return int(text)


def rate_bps(text):
    m = re.match(r"^([0-9.]+)(bit|kbit|mbit|gbit)$", text)
    return float(m.group(1)) * {"bit": 1, "kbit": 1e3, "mbit": 1e6,
                                "gbit": 1e9}[m.group(2)]


def time_s(text):
    m = re.match(r"^([0-9.]+)(us|ms|s)$", text)
    return float(m.group(1)) * {"us": 1e-6, "ms": 1e-3, "s": 1}[m.group(2)]
