#!/usr/bin/python3
"""The interactive view (view.html, python/magnet_exp/view.py) in a real
headless browser: Debian's Chromium, driven through ChromeDriver's W3C
WebDriver protocol (HTTP, the standard library's urllib), with every host
name mapped to nothing (no network).

usage: browser.py VIEW.html [SCREENSHOT.png]

Checks, each printed as "ok: ..." or "FAIL: ...":
- the page loads and its script ends (body data-ready) with no console
  message of level SEVERE (an error, or a blocked fetch);
- no resource was fetched (performance's resource entries: none) and the
  file names no http(s) URL to fetch (the SVG namespace is no fetch);
- every plot of the page's data is drawn, each with every point of its
  series in view (data-points, the JSON's own counts) and a path per
  series;
- a wheel over the first plot (a real wheel event, WebDriver's wheel
  input) narrows the visible range (body data-x0, data-x1), inside the
  old one, and fewer points are in view; a drag (pointer down, move, up)
  moves the range by the dragged share; a double-click shows all again;
- a page with a deliberate script error is reported as failing by the
  console check (the check can fail).
Closes with "browser: N passed, N failed"; exit 1 on a failure.
"""
import base64
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

passed = failed = 0
# WebDriver's key of an element reference
ELEMENT = "element-6066-11e4-a52e-4f735466cecf"
DOWN = {"type": "pointerDown", "button": 0}
UP = {"type": "pointerUp", "button": 0}


def check(what, ok, detail=""):
    global passed, failed
    if ok:
        passed += 1
        print("ok: %s" % what)
    else:
        failed += 1
        print("FAIL: %s%s" % (what, ": " + detail if detail else ""))


class Driver:
    def __init__(self, profile):
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        self.port = s.getsockname()[1]
        s.close()
        self.proc = subprocess.Popen(
            ["chromedriver", "--port=%d" % self.port],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.base = "http://127.0.0.1:%d" % self.port
        for _ in range(100):
            try:
                if self.call("GET", "/status")["ready"]:
                    break
            except OSError:
                pass
            time.sleep(0.1)
        else:
            raise RuntimeError("chromedriver did not start")
        caps = {"browserName": "chrome",
                "goog:loggingPrefs": {"browser": "ALL"},
                "goog:chromeOptions": {
                    "binary": shutil.which("chromium") or "/usr/bin/chromium",
                    "args": ["--headless=new", "--no-sandbox",
                             "--disable-gpu", "--disable-quic",
                             "--no-first-run",
                             "--disable-background-networking",
                             "--disable-component-update", "--disable-sync",
                             "--user-data-dir=" + profile,
                             "--window-size=1200,1500",
                             "--host-resolver-rules=MAP * ~NOTFOUND"]}}
        r = self.call("POST", "/session",
                      {"capabilities": {"alwaysMatch": caps}})
        self.sid = r["sessionId"]

    def call(self, method, path, body=None):
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(
            self.base + path, data=data, method=method,
            headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=60) as f:
            return json.load(f)["value"]

    def s(self, method, path, body=None):
        return self.call(method, "/session/%s%s" % (self.sid, path), body)

    def js(self, script, *args):
        return self.s("POST", "/execute/sync",
                      {"script": script, "args": list(args)})

    def console(self):
        return self.s("POST", "/se/log", {"type": "browser"})

    def severe(self):
        """the console's messages of level SEVERE since the last call"""
        return [e for e in self.console() if e.get("level") == "SEVERE"]

    def view_range(self):
        """the page's visible time range (its body's data-x0, data-x1)"""
        return tuple(float(v) for v in self.js(
            "return [document.body.dataset.x0, document.body.dataset.x1]"))

    def open(self, path):
        self.s("POST", "/url", {"url": "file://" + os.path.abspath(path)})
        for _ in range(100):
            if self.js("return document.body && "
                       "document.body.dataset.ready || null") == "1":
                return True
            time.sleep(0.1)
        return False

    def element(self, css):
        r = self.s("POST", "/element", {"using": "css selector",
                                        "value": css})
        return next(iter(r.values()))

    def actions(self, *sources):
        self.s("POST", "/actions", {"actions": list(sources)})
        self.s("DELETE", "/actions")

    def mouse(self, name, element, *steps):
        """a mouse (input source @name) moved to the middle of @element,
        then @steps (WebDriver pointer actions)"""
        self.actions({"type": "pointer", "id": name,
                      "parameters": {"pointerType": "mouse"}, "actions": [
                          {"type": "pointerMove", "x": 0, "y": 0,
                           "origin": {ELEMENT: element}}] + list(steps)})

    def close(self):
        try:
            self.s("DELETE", "")
        finally:
            self.proc.terminate()
            self.proc.wait(10)


def page_data(path):
    text = open(path).read()
    m = re.search(r'<script id="data" type="application/json">(.*?)'
                  r'</script>', text, re.S)
    return text, json.loads(m.group(1).replace("<\\/", "</"))


def main():
    view = sys.argv[1]
    shot = sys.argv[2] if len(sys.argv) > 2 else None
    text, data = page_data(view)
    urls = [u for u in re.findall(r"https?://[^\s\"'<>)]+", text)
            if u != "http://www.w3.org/2000/svg"]
    check("the page names no URL to fetch", not urls, " ".join(urls[:3]))
    tmp = tempfile.mkdtemp(prefix="magnet-browser.")
    d = Driver(os.path.join(tmp, "profile"))
    try:
        check("the page loads and its script ends", d.open(view))
        bad = d.severe()
        check("no console error", not bad,
              "; ".join(e.get("message", "") for e in bad[:3]))
        n = d.js("return performance.getEntriesByType('resource').length")
        check("nothing fetched (%d resource entries)" % n, n == 0)
        got = d.js("return Array.from(document.querySelectorAll('.plot'))"
                   ".map(p => [p.dataset.id, +p.dataset.points, "
                   "p.querySelectorAll('path.series').length])")
        want = [[p["id"], sum(len(s["pts"]) for s in p["series"]),
                 sum(1 for s in p["series"] if s["pts"])]
                for p in data["plots"]]
        check("every plot drawn with every point in view: %s" % (
            ", ".join("%s %d points, %d series" % tuple(w) for w in want)),
            got == want and all(w[1] > 0 for w in want), repr(got))
        x0, x1 = d.view_range()
        svg = d.element(".plot svg")
        # a wheel up over the middle of the first plot: zoom in
        d.actions({"type": "wheel", "id": "wheel", "actions": [
            {"type": "scroll", "x": 0, "y": 0, "deltaX": 0, "deltaY": -600,
             "origin": {ELEMENT: svg}}]})
        time.sleep(0.3)
        z0, z1 = d.view_range()
        check("a wheel narrows the visible range (%.6f-%.6f s to "
              "%.6f-%.6f s)" % (x0, x1, z0, z1),
              x0 <= z0 < z1 <= x1 and (z1 - z0) < 0.7 * (x1 - x0))
        pts = d.js("return +document.querySelector('.plot')"
                   ".dataset.points")
        check("fewer points in view after the zoom (%d of %d)" % (
            pts, want[0][1]), 0 < pts < want[0][1])
        ticks = d.js("return Array.from(document.querySelectorAll("
                     "'.plot text.xtick')).map(t => t.textContent)")
        check("the time axis is drawn again for the range (%s ... %s)" % (
            ticks[0], ticks[-1]), ticks and all(
                z0 - 1e-3 <= float(t.split()[0]) <= z1 + 1e-3
                for t in ticks))
        # a drag to the right by a quarter of the plot's width: the range
        # moves back (earlier) by a quarter of its span
        w = d.js("return document.querySelector('.plot svg')"
                 ".getBoundingClientRect().width") - 64 - 12
        d.mouse("mouse", svg, DOWN,
                {"type": "pointerMove", "x": int(w / 4), "y": 0,
                 "origin": "pointer", "duration": 100}, UP)
        time.sleep(0.3)
        p0, p1 = d.view_range()
        moved = z0 - p0
        want_move = min((z1 - z0) * int(w / 4) / w, z0 - x0)
        check("a drag pans the range (by %.6f s, %.6f s expected)" % (
            moved, want_move), abs((p1 - p0) - (z1 - z0)) < 1e-6 * (x1 - x0)
            + 1e-9 and abs(moved - want_move) <= 0.05 * (z1 - z0))
        d.mouse("mouse2", svg, DOWN, UP, DOWN, UP)
        time.sleep(0.3)
        a0, a1 = d.view_range()
        check("a double-click shows all again", (a0, a1) == (x0, x1),
              "%.6f-%.6f" % (a0, a1))
        if shot:
            png = base64.b64decode(d.s("GET", "/screenshot"))
            with open(shot, "wb") as f:
                f.write(png)
            check("screenshot %s (%d bytes)" % (shot, len(png)),
                  png[:8] == b"\x89PNG\r\n\x1a\n")
        # the console check fails on a page whose script fails
        broken = os.path.join(tmp, "broken.html")
        with open(broken, "w") as f:
            f.write(text.replace("build();", "build(); no_such_function();"))
        d.open(broken)
        bad = d.severe()
        check("a script error is seen by the console check (%d)" % len(bad),
              any("no_such_function" in e.get("message", "") for e in bad))
    finally:
        d.close()
        shutil.rmtree(tmp, ignore_errors=True)
    print("browser: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
