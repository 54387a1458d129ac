"""view.html: one run's interactive view, a page that stands alone (its
script and data inside it: no server, no network). Time-aligned plots on
the log's one clock, zoomed and panned together: the data senders' cwnd
and packets in flight, srtt, pacing and delivery rate (and BBR's
bandwidth where the log has it), each router qdisc's sojourn, the
receivers' bytes received; markers for TCP's retransmissions, RTOs, TLPs
and state changes, congestion-state changes (from the TCP records'
ca_state) and drops with their reason.

A series keeps every point up to MAX_BUCKETS; beyond that, each bucket of
a fixed width keeps its smallest and largest value (Envelope), and the
page says so under the plot, with the width: no spike is lost to the
binning, and none is invented. The page itself draws what is in view as
the smallest and largest value per pixel column."""
import csv
import html
import json
import os
import re

MAX_BUCKETS = 20000
MAX_MARKS = 20000
MAX_SENDERS = 8


class Envelope:
    """(time, min, max) of a series in time order: every point while there
    are at most @cap; then buckets of a width (doubled as needed) from
    the first point's time, each its smallest and largest value. Memory
    bounded by @cap whatever the series' length."""
    __slots__ = ("pts", "width", "t0", "cap", "n")

    def __init__(self, cap=MAX_BUCKETS):
        self.pts = []
        self.width = 0.0        # 0: every point as it came
        self.t0 = None
        self.cap = cap
        self.n = 0

    def add(self, t, v):
        self.n += 1
        if self.t0 is None:
            self.t0 = t
        p = self.pts
        if self.width:
            b = self.t0 + int((t - self.t0) / self.width) * self.width
            if p and p[-1][0] == b:
                q = p[-1]
                if v < q[1]:
                    q[1] = v
                if v > q[2]:
                    q[2] = v
                q[3] = v
                return
            p.append([b, v, v, v])
        else:
            p.append([t, v, v, v])
        if len(p) > self.cap:
            self._coarser(t)

    def _coarser(self, t):
        span = max(t - self.t0, 1e-9)
        w = self.width * 2 if self.width else span / (self.cap / 2)
        out = []
        for b, lo, hi, last in self.pts:
            k = self.t0 + int((b - self.t0) / w) * w
            if out and out[-1][0] == k:
                q = out[-1]
                q[1] = min(q[1], lo)
                q[2] = max(q[2], hi)
                q[3] = last
            else:
                out.append([k, lo, hi, last])
        self.pts = out
        self.width = w

    def as_json(self):
        """{"width": the buckets' width in s (0: every point), "n": the
        values, "pts": [time, value] per point, or [start, smallest,
        largest, last] per bucket of more than one value}"""
        return {"width": round(self.width, 9), "n": self.n,
                "pts": [[round(t, 6), _r(lo)] if lo == hi == last else
                        [round(t, 6), _r(lo), _r(hi), _r(last)]
                        for t, lo, hi, last in self.pts]}


def _r(v):
    """@v to 7 significant digits"""
    v = float("%.7g" % v)
    return int(v) if v.is_integer() else v


def _num(s):
    if s == "" or s is None:
        return None
    try:
        return float(s)
    except ValueError:
        return None


def _flow_series(path, t_first):
    """the envelopes of one connection end's CSV (analyse.CSV_COLUMNS), and
    its congestion-state changes [(time, from, to)]"""
    env = {k: Envelope() for k in ("cwnd", "inflight", "srtt", "pacing",
                                   "delivery", "bbr_bw", "received")}
    changes = []
    last_ca = None
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            t = float(row["time"])
            cw = _num(row["cwnd"])
            if cw is not None:
                env["cwnd"].add(t, cw)
            mss = _num(row["mss"]) or 0
            una, nxt = _num(row["snd_una"]), _num(row["snd_nxt"])
            if mss and una is not None and nxt is not None:
                env["inflight"].add(t, ((nxt - una) % 2 ** 32) / mss)
            v = _num(row["srtt_us"])
            if v:
                env["srtt"].add(t, v / 1e3)
            v = _num(row["pacing_rate"])
            if v is not None:
                env["pacing"].add(t, v * 8 / 1e6)
            v = _num(row["delivery_rate"])
            if v is not None:
                env["delivery"].add(t, v * 8 / 1e6)
            v = _num(row["bbr_bw"])
            if v is not None:
                env["bbr_bw"].add(t, v * 8 / 1e6)
            v = _num(row["bytes_received"])
            if v is not None:
                env["received"].add(t, v / 1e6)
            ca = row["ca_state"]
            if ca and ca != last_ca:
                if last_ca is not None and len(changes) < MAX_MARKS:
                    changes.append((t, last_ca, ca))
                last_ca = ca
    return env, changes


def view_data(res, outdir, title):
    """the page's data: plots (each a list of named series) and markers,
    from @res (a LogAnalysis after its pass) and its CSVs in @outdir"""
    senders = [f for f in res.tcp_flows() if f.series.pts and
               f.series.pts[-1][3] > 0]
    most = max((f.series.pts[-1][3] for f in senders), default=0)
    # the connections that carried data: 1% of the busiest one's bytes at
    # least (iperf3's control connection is left out)
    senders = [f for f in senders if f.series.pts[-1][3] * 100 >= most]
    # the busiest MAX_SENDERS of them (a page of a thousand connections'
    # series would not open); the rest counted on the page
    senders.sort(key=lambda f: -f.series.pts[-1][3])
    senders_left_out = max(0, len(senders) - MAX_SENDERS)
    senders = senders[:MAX_SENDERS]
    plots = {k: [] for k in ("cwnd", "srtt", "rate", "sojourn", "received")}
    marks = []
    several = len(senders) > 1

    def name(what, f):
        return "%s, %s" % (what, f.label()) if several else what

    for f in senders:
        path = os.path.join(outdir, f.name() + ".csv")
        if not os.path.exists(path):
            continue
        env, changes = _flow_series(path, None)
        plots["cwnd"].append({"name": name("cwnd", f), **env["cwnd"].as_json()})
        plots["cwnd"].append({"name": name("in flight (snd_nxt - snd_una) / mss",
                                           f), **env["inflight"].as_json()})
        plots["srtt"].append({"name": name("srtt", f), **env["srtt"].as_json()})
        for k, what in (("pacing", "pacing rate"),
                        ("delivery", "delivery rate"),
                        ("bbr_bw", "BBR's bandwidth estimate")):
            if env[k].n:
                plots["rate"].append({"name": name(what, f),
                                      **env[k].as_json()})
        for t, a, b in changes:
            marks.append({"t": round(t, 6), "kind": "ca_state",
                          "text": "%s -> %s (%s)" % (a, b, f.label())})
        peer = res.peer(f)
        if peer is not None and peer.has_socket():
            p = os.path.join(outdir, peer.name() + ".csv")
            if os.path.exists(p):
                penv, _ = _flow_series(p, None)
                if penv["received"].n:
                    plots["received"].append({
                        "name": name("bytes received (its TCP, cumulative)",
                                     peer), **penv["received"].as_json()})
    for (ns, dev), env in sorted(res.queues.sojourns.items()):
        plots["sojourn"].append({
            "name": "%s, device %s" % (res.host_name(ns) or "host", dev),
            **env.as_json()})
    for t, kind, text in res.marks:
        marks.append({"t": round(t, 6), "kind": kind, "text": text})
    marks.sort(key=lambda m: m["t"])
    titles = {
        "cwnd": ("the data senders' cwnd and packets in flight", "packets"),
        "srtt": ("the data senders' smoothed RTT (srtt)", "ms"),
        "rate": ("the data senders' pacing and delivery rate", "Mbit/s"),
        "sojourn": ("time each packet waited in a qdisc (its sojourn), at "
                    "its dequeue", "ms"),
        "received": ("bytes the receivers' TCP got in order (bytes_received)",
                     "MB")}
    out = []
    for k in ("cwnd", "srtt", "rate", "sojourn", "received"):
        if plots[k]:
            out.append({"id": k, "title": titles[k][0], "unit": titles[k][1],
                        "style": "points" if k == "sojourn" else "step",
                        "series": plots[k]})
    return {"title": title, "plots": out, "marks": marks,
            "marks_left_out": res.marks_left_out,
            "senders_left_out": senders_left_out}


def write(res, outdir, title):
    """view.html in @outdir; its name, or None when no plot has data"""
    d = view_data(res, outdir, title)
    path = os.path.join(outdir, "view.html")
    if not d["plots"]:
        if os.path.exists(path):
            os.unlink(path)
        return None
    with open(path, "w") as f:
        f.write(page(d))
    return "view.html"


def page(d):
    """the page of view_data()'s @d: one pass over the template, so that
    nothing in the data is taken for a placeholder"""
    data = json.dumps(d, separators=(",", ":")).replace("</", "<\\/")
    fill = {"TITLE": html.escape(d["title"]), "DATA": data,
            "SCRIPT": _SCRIPT}
    return re.sub(r"@(TITLE|DATA|SCRIPT)@", lambda m: fill[m.group(1)],
                  _PAGE)


_PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; \
script-src 'unsafe-inline'; style-src 'unsafe-inline'">
<title>@TITLE@: interactive view</title>
<style>
body { font: 14px sans-serif; margin: 1em 2em; color: #222; }
.plot { margin: 0.4em 0 1.2em 0; }
.plot h2 { font-size: 14px; margin: 0 0 2px 0; }
.plot svg { width: 100%; height: 190px; display: block; cursor: grab;
  user-select: none; }
.note { color: #666; font-size: 12px; }
.legend span { margin-right: 1.2em; white-space: nowrap; }
.legend i { display: inline-block; width: 14px; height: 3px;
  vertical-align: middle; margin-right: 4px; }
#bar { position: sticky; top: 0; background: #fff; padding: 4px 0;
  border-bottom: 1px solid #ddd; z-index: 1; }
button { font: inherit; }
</style></head>
<body>
<h1 style="font-size:18px">@TITLE@</h1>
<div id="bar"><button id="reset">show all</button>
<span id="range"></span> &mdash; wheel over a plot: zoom in time; drag:
pan; double-click: show all. <span class="legend" id="marklegend"></span>
</div>
<div id="plots"></div>
<p class="note" id="marknote"></p>
<script id="data" type="application/json">@DATA@</script>
<script>@SCRIPT@</script>
</body></html>
"""

_SCRIPT = r"""
"use strict";
const D = JSON.parse(document.getElementById("data").textContent);
const COLOURS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b",
                 "#e377c2", "#17becf", "#bcbd22"];
const MARKS = {retrans: "#d62728", rto: "#000000", tlp: "#9467bd",
               state: "#7f7f7f", drop: "#e6550d", ca_state: "#31a354",
               cong_state: "#31a354", rcvbuf: "#1f77b4", rto_end: "#000000"};
const NS = "http://www.w3.org/2000/svg";
const ML = 64, MR = 12, MT = 8, MB = 22;
let lo = Infinity, hi = -Infinity;
for (const p of D.plots) for (const s of p.series) for (const q of s.pts) {
  if (q[0] < lo) lo = q[0];
  if (q[0] > hi) hi = q[0];
}
for (const m of D.marks) { if (m.t < lo) lo = m.t; if (m.t > hi) hi = m.t; }
if (!(hi > lo)) { hi = lo + 1; }
const ALL = [lo, hi];
let view = [lo, hi];
const plots = [];

function el(tag, attrs, parent) {
  const e = document.createElementNS(NS, tag);
  for (const k in attrs) e.setAttribute(k, attrs[k]);
  if (parent) parent.appendChild(e);
  return e;
}

function ticks(a, b, n) {
  const span = b - a;
  if (!(span > 0)) return [a];
  const step0 = span / n, mag = Math.pow(10, Math.floor(Math.log10(step0)));
  let step = mag;
  for (const m of [1, 2, 5, 10]) { if (m * mag >= step0) { step = m * mag; break; } }
  const out = [];
  for (let t = Math.ceil(a / step) * step; t <= b + step * 1e-9; t += step)
    out.push(Math.abs(t) < step * 1e-9 ? 0 : t);
  return out;
}

function fmt(v) {
  const a = Math.abs(v);
  if (a === 0) return "0";
  if (a >= 1000) return v.toFixed(0);
  if (a >= 1) return +v.toPrecision(4) + "";
  return +v.toPrecision(3) + "";
}

function build() {
  const box = document.getElementById("plots");
  for (const p of D.plots) {
    const div = document.createElement("div");
    div.className = "plot";
    div.dataset.id = p.id;
    const h = document.createElement("h2");
    h.textContent = p.title + " (" + p.unit + ")";
    div.appendChild(h);
    const svg = el("svg", {role: "img", "aria-label": p.title});
    div.appendChild(svg);
    const leg = document.createElement("div");
    leg.className = "legend";
    const notes = [];
    p.series.forEach((s, i) => {
      const sp = document.createElement("span");
      const sw = document.createElement("i");
      sw.style.background = COLOURS[i % COLOURS.length];
      sp.appendChild(sw);
      sp.appendChild(document.createTextNode(s.name + " (" + s.n + " values)"));
      leg.appendChild(sp);
      if (s.width > 0)
        notes.push(s.name + ": " + s.n + " values in " + s.pts.length +
                   " buckets of " + fmt(s.width * 1e3) +
                   " ms, each drawn as its smallest and largest value");
    });
    div.appendChild(leg);
    if (notes.length) {
      const n = document.createElement("div");
      n.className = "note";
      n.textContent = notes.join("; ");
      div.appendChild(n);
    }
    box.appendChild(div);
    plots.push({p: p, svg: svg, div: div});
    attach(svg);
  }
  const ml = document.getElementById("marklegend");
  const kinds = {};
  for (const m of D.marks) kinds[m.kind] = (kinds[m.kind] || 0) + 1;
  for (const k of Object.keys(kinds).sort()) {
    const sp = document.createElement("span");
    const sw = document.createElement("i");
    sw.style.background = MARKS[k] || "#aaa";
    sp.appendChild(sw);
    sp.appendChild(document.createTextNode(k + " (" + kinds[k] + ")"));
    ml.appendChild(sp);
  }
  const notes = [];
  if (D.marks_left_out)
    notes.push(D.marks_left_out + " later markers left out (at most " +
               D.marks.length + " are kept)");
  if (D.senders_left_out)
    notes.push(D.senders_left_out + " more data senders not drawn (the " +
               "busiest are, by bytes acknowledged)");
  document.getElementById("marknote").textContent = notes.join("; ");
  document.getElementById("reset").onclick = () => setView(ALL[0], ALL[1]);
}

// a point's [smallest, largest, last] value: [t, v] or a bucket's
// [t, smallest, largest, last]
function span(q) {
  return q.length > 2 ? [q[1], q[2], q[3]] : [q[1], q[1], q[1]];
}

function draw(pl) {
  const svg = pl.svg, p = pl.p;
  while (svg.firstChild) svg.removeChild(svg.firstChild);
  const W = svg.clientWidth || 800, H = svg.clientHeight || 190;
  const w = W - ML - MR, h = H - MT - MB;
  const x = t => ML + (t - view[0]) / (view[1] - view[0]) * w;
  // per pixel column, each series' smallest and largest value in view
  const cols = [];
  let ymin = Infinity, ymax = -Infinity, shown = 0;
  for (const s of p.series) {
    const c = new Map();
    let before = null, after = null;
    for (const q of s.pts) {
      if (q[0] < view[0]) { before = q; continue; }
      if (q[0] > view[1]) { after = q; break; }
      const k = Math.round(x(q[0]));
      const b = span(q);
      const e = c.get(k);
      if (e) {
        if (b[0] < e[0]) e[0] = b[0];
        if (b[1] > e[1]) e[1] = b[1];
        e[2] = b[2];
      } else c.set(k, b);
      if (b[0] < ymin) ymin = b[0];
      if (b[1] > ymax) ymax = b[1];
      shown++;
    }
    // the line goes on from the point before the view and to the one
    // after it (clipped)
    if (before) c.set(Math.round(x(before[0])), span(before));
    if (after && p.style === "step")
      c.set(Math.round(x(after[0])), span(after));
    cols.push(c);
  }
  pl.div.dataset.points = shown;
  if (!(ymax >= ymin)) { ymin = 0; ymax = 1; }
  if (ymin > 0) ymin = 0;
  if (ymax === ymin) ymax = ymin + 1;
  ymax += (ymax - ymin) * 0.05;
  const y = v => MT + h - (v - ymin) / (ymax - ymin) * h;
  el("rect", {x: ML, y: MT, width: w, height: h, fill: "#fff",
              stroke: "#ccc"}, svg);
  for (const v of ticks(ymin, ymax, 4)) {
    el("line", {x1: ML, x2: ML + w, y1: y(v), y2: y(v), stroke: "#eee"}, svg);
    const t = el("text", {x: ML - 4, y: y(v) + 4, "text-anchor": "end",
                          "font-size": 11}, svg);
    t.textContent = fmt(v);
  }
  for (const v of ticks(view[0], view[1], 8)) {
    el("line", {x1: x(v), x2: x(v), y1: MT + h, y2: MT + h + 4,
                stroke: "#888"}, svg);
    const t = el("text", {x: x(v), y: H - 6, "text-anchor": "middle",
                          "font-size": 11, class: "xtick"}, svg);
    t.textContent = fmt(v) + " s";
  }
  const clip = "c" + p.id;
  const cp = el("clipPath", {id: clip}, el("defs", {}, svg));
  el("rect", {x: ML, y: MT, width: w, height: h}, cp);
  const g = el("g", {"clip-path": "url(#" + clip + ")"}, svg);
  for (const m of D.marks) {
    if (m.t < view[0] || m.t > view[1]) continue;
    const l = el("line", {x1: x(m.t), x2: x(m.t), y1: MT, y2: MT + h,
                          stroke: MARKS[m.kind] || "#aaa",
                          "stroke-width": 1, "stroke-opacity": 0.5,
                          class: "mark"}, g);
    el("title", {}, l).textContent = m.t.toFixed(6) + " s: " + m.kind +
      " " + m.text;
  }
  cols.forEach((c, i) => {
    const keys = Array.from(c.keys()).sort((a, b) => a - b);
    if (!keys.length) return;
    let d = "";
    if (p.style === "step") {
      // a value holds until the next one (TCP's state as of each
      // record): across to the next column, then up or down its
      // smallest to largest value, ending at its last
      let prev = null;
      for (const k of keys) {
        const e = c.get(k);
        if (prev === null) d += "M" + k + "," + y(e[0]).toFixed(1);
        else d += "L" + k + "," + y(prev).toFixed(1) + "L" + k + "," +
          y(e[0]).toFixed(1);
        d += "L" + k + "," + y(e[1]).toFixed(1) + "L" + k + "," +
          y(e[2]).toFixed(1);
        prev = e[2];
      }
    } else {
      // a value per packet: a dot, or a bar from the smallest to the
      // largest value of a column
      for (const k of keys) {
        const e = c.get(k);
        d += "M" + k + "," + (y(e[0]) + 1).toFixed(1) + "L" + k + "," +
          (y(e[1]) - 1).toFixed(1);
      }
    }
    el("path", {d: d, fill: "none", stroke: COLOURS[i % COLOURS.length],
                "stroke-width": p.style === "step" ? 1.2 : 2.5,
                class: "series"}, g);
  });
}

function setView(a, b) {
  if (b - a < 1e-6) { const m = (a + b) / 2; a = m - 5e-7; b = m + 5e-7; }
  view = [Math.max(ALL[0], a), Math.min(ALL[1], b)];
  document.body.dataset.x0 = view[0];
  document.body.dataset.x1 = view[1];
  document.getElementById("range").textContent = "showing " +
    view[0].toFixed(6) + " to " + view[1].toFixed(6) + " s";
  for (const pl of plots) draw(pl);
}

function attach(svg) {
  svg.addEventListener("wheel", ev => {
    ev.preventDefault();
    const r = svg.getBoundingClientRect();
    const w = r.width - ML - MR;
    const f = Math.min(1, Math.max(0, (ev.clientX - r.left - ML) / w));
    const at = view[0] + f * (view[1] - view[0]);
    const k = Math.exp(ev.deltaY * 0.002);
    setView(at - (at - view[0]) * k, at + (view[1] - at) * k);
  }, {passive: false});
  let drag = null;
  svg.addEventListener("mousedown", ev => {
    drag = {x: ev.clientX, v: view.slice(),
            w: svg.getBoundingClientRect().width - ML - MR};
  });
  window.addEventListener("mousemove", ev => {
    if (!drag) return;
    const dt = (ev.clientX - drag.x) / drag.w * (drag.v[1] - drag.v[0]);
    let a = drag.v[0] - dt, b = drag.v[1] - dt;
    if (a < ALL[0]) { b += ALL[0] - a; a = ALL[0]; }
    if (b > ALL[1]) { a -= b - ALL[1]; b = ALL[1]; }
    setView(a, b);
  });
  window.addEventListener("mouseup", () => { drag = null; });
  svg.addEventListener("dblclick", () => setView(ALL[0], ALL[1]));
}

build();
setView(ALL[0], ALL[1]);
window.addEventListener("resize", () => setView(view[0], view[1]));
document.body.dataset.ready = "1";
"""
