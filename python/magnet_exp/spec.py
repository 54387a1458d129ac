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

    [traffic]
    size = "2M"                     # iperf3 -n; or duration = 5 (s)
    parallel = 1                    # iperf3 -P
    length = "128K"                 # iperf3 -l: the application's writes

    [magnet]
    params = "events=all omode=1"   # module parameters (omode=1 always)
    reader = "live"                 # or "after": the reader starts once
                                    # the traffic is over (a stalled
                                    # reader: what the rings cannot hold
                                    # is lost, and the log says so)
"""
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
             "return_loss": "0%"},
    "traffic": {"size": "2M", "duration": None, "parallel": 1,
                "length": "128K"},
    "magnet": {"params": "events=all omode=1", "reader": "live"},
}


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
             "magnet"}
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
    for sect in ("path", "traffic", "magnet"):
        got = raw.get(sect, {})
        _check(isinstance(got, dict), "%s: [%s] must be a table"
               % (where, sect))
        for k in got:
            _check(k in DEFAULTS[sect], "%s: [%s]: unknown key '%s' "
                   "(known: %s)" % (where, sect, k,
                                    ", ".join(sorted(DEFAULTS[sect]))))
        s[sect] = dict(DEFAULTS[sect], **got)
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
    t = s["traffic"]
    if t["duration"] is not None:
        _check(isinstance(t["duration"], (int, float)) and
               0 < t["duration"] <= 3600,
               "%s: [traffic] duration must be 0..3600 s" % where)
        t["size"] = None
    else:
        _check(isinstance(t["size"], str) and _SIZE.match(t["size"]),
               "%s: [traffic] size '%s': bytes, or with K, M or G"
               % (where, t["size"]))
    _check(isinstance(t["parallel"], int) and 1 <= t["parallel"] <= 128,
           "%s: [traffic] parallel must be 1..128" % where)
    _check(isinstance(t["length"], str) and _SIZE.match(t["length"]),
           "%s: [traffic] length '%s': bytes, or with K, M or G"
           % (where, t["length"]))
    m = s["magnet"]
    _check(isinstance(m["params"], str) and
           re.match(r"^[A-Za-z0-9_=,. ]*$", m["params"]),
           "%s: [magnet] params: module parameters, NAME=VALUE ..." % where)
    _check(m["reader"] in ("live", "after"),
           "%s: [magnet] reader must be \"live\" or \"after\"" % where)
    _check("omode=" not in m["params"] or "omode=1" in m["params"],
           "%s: [magnet] params: the experiments record omode=1 (binary)"
           % where)
    return s


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
