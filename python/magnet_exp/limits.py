"""What held a connection's sender back, from the kernel's own clocks.

Linux times each socket's sending with its chronographs (tp->chrono_*,
since 4.10): *busy* while data is queued and neither of the others stops
it, *rwnd* while the receiver's window stops it, *sndbuf* while the
application waits for room in the send buffer, none while nothing is
queued. magnet's limit part (docs/binary-format.md, "Limit part") carries
them at every tcp_out and tcp_in record, as tcp_info would give them at
that instant (busy_us is tcpi_busy_time, the three summed). This module
keeps, per connection end, what its last record said and what the
records between say of each interval:

  cwnd      the busy chronograph's time while the congestion window was
            the tighter bound (cwnd x mss / srtt below the pacing rate,
            at the record that began the interval; the kernel counts both
            as busy);
  pacing    the busy chronograph's time while the pacing rate was;
  rwnd      the kernel's receiver-window-limited time;
  sndbuf    the kernel's send-buffer-limited time;
  app       the rest of the connection's life (its first record to its
            last with a limit part): nothing was queued to send.

The three kernel times are exact to the jiffy (jiffy_us); the split of
busy into cwnd and pacing is magnet's, from the rate part, and says so.
"""

import bisect
from array import array

# the kernel's chronographs, as the magnet text names them
CHRONOS = ("none", "busy", "rwnd", "sndbuf")
# the accumulated times are kept at most this often (ns), for the
# timeline (plots.limit_timeline): a few jiffies
SAMPLE_NS = 10_000_000
# the shares, in the order they are shown, with what each says
SHARES = ("cwnd", "pacing", "rwnd", "sndbuf", "app")
SHARE_NAMES = {
    "cwnd": "congestion-window-limited",
    "pacing": "pacing-limited",
    "rwnd": "receiver-window-limited",
    "sndbuf": "send-buffer-limited",
    "app": "application-limited",
}


class Limits:
    """One connection end's limit parts, record by record."""
    __slots__ = ("first_ns", "last_ns", "busy", "rwnd", "sndbuf", "chrono",
                 "changes", "pacing", "paced", "reordering",
                 "reord_seen", "dsack_dups", "win_sum", "win_n", "queued_max",
                 "cwnd_sum", "srtt_sum", "busy_n", "pace_sum", "pace_n",
                 "bytes_sent", "st", "sb", "sr", "ss")

    def __init__(self, first_ns):
        self.first_ns = first_ns    # the connection's first record
        self.last_ns = first_ns     # its last record with a limit part
        # µs, as tcp_info gives them at the last record: busy the busy
        # chronograph's alone (tcpi_busy_time less the other two)
        self.busy = self.rwnd = self.sndbuf = 0
        self.chrono = None
        self.changes = 0            # changes of chrono between records
        self.pacing = 0             # of busy, µs while pacing bound
        self.paced = False          # the last record: pacing the bound
        self.reordering = self.reord_seen = self.dsack_dups = 0
        # while each ran, for the diagnosis: the peer's window (rwnd);
        # the bytes written and not acknowledged (sndbuf); cwnd, srtt and
        # the pacing rate (busy)
        self.win_sum = self.win_n = 0
        self.queued_max = 0
        self.cwnd_sum = self.srtt_sum = self.busy_n = 0
        self.pace_sum = self.pace_n = 0
        self.bytes_sent = 0         # the TCP part's, at the last record
        # the accumulated times (µs: busy alone, rwnd, sndbuf) at records
        # at least SAMPLE_NS apart (and the last record's, above): what
        # the timeline bins
        self.st, self.sb = array("q"), array("q")
        self.sr, self.ss = array("q"), array("q")

    def record(self, t, r, vals):
        """a record's limit part (@r a textlog.Row with one, at @t ns;
        @vals its TCP part's numbers, analyse._TCP_INTS)"""
        total = int(r["busy_us"])
        rwnd = int(r["rwnd_limited_us"])
        sndbuf = int(r["sndbuf_limited_us"])
        busy = total - rwnd - sndbuf
        if self.chrono is not None and self.paced and busy > self.busy:
            self.pacing += busy - self.busy
        self.busy, self.rwnd, self.sndbuf = busy, rwnd, sndbuf
        if not self.st or t - self.st[-1] >= SAMPLE_NS:
            self.st.append(t)
            self.sb.append(busy)
            self.sr.append(rwnd)
            self.ss.append(sndbuf)
        ch = r["chrono"]
        if ch != self.chrono:
            if self.chrono is not None:
                self.changes += 1
            self.chrono = ch
        self.last_ns = t
        self.reordering = int(r["reordering"])
        self.reord_seen = int(r["reord_seen"])
        self.dsack_dups = int(r["dsack_dups"])
        mss, srtt, cwnd = vals["mss"], vals["srtt_us"], vals["cwnd"]
        self.bytes_sent = vals["bytes_sent"]
        pr = r.get("pacing_rate")
        rate = int(pr) if pr else 0
        if ch == "rwnd":
            self.win_sum += int(r["snd_wnd"])
            self.win_n += 1
        elif ch == "sndbuf":
            self.queued_max = max(self.queued_max,
                                  (int(r["write_seq"]) - vals["snd_una"]) &
                                  0xffffffff)
        elif ch == "busy":
            self.cwnd_sum += cwnd
            self.srtt_sum += srtt
            self.busy_n += 1
            if rate and rate != 0xffffffffffffffff:
                self.pace_sum += rate
                self.pace_n += 1
        # which bound the next interval's busy time is under: the pacing
        # rate, when it is below what the window allows per RTT
        self.paced = bool(ch == "busy" and rate and
                          rate != 0xffffffffffffffff and srtt and mss and
                          rate * srtt < cwnd * mss * 1000000)

    def binned(self, n):
        """the life in @n equal bins: [(start ns, end ns, busy, rwnd,
        sndbuf, none)], each the share of the bin (0..1) its chronograph
        ran, from the accumulated times interpolated linearly between
        the samples; none: the rest (nothing queued)"""
        a0, a1 = self.first_ns, self.last_ns
        if n < 1 or a1 <= a0 or not self.st:
            return []
        # the samples, the last record's last, from 0 at the first record
        st, sb = [a0] + list(self.st), [0] + list(self.sb)
        sr, ss = [0] + list(self.sr), [0] + list(self.ss)
        if a1 > st[-1]:
            st.append(a1)
            sb.append(self.busy)
            sr.append(self.rwnd)
            ss.append(self.sndbuf)

        def at(t):
            # the accumulated (busy, rwnd, sndbuf) µs at @t
            i = bisect.bisect_right(st, t)
            if i >= len(st):
                return (sb[-1], sr[-1], ss[-1])
            f = (t - st[i - 1]) / (st[i] - st[i - 1]) if st[i] > st[i - 1] \
                else 1.0
            return tuple(v[i - 1] + (v[i] - v[i - 1]) * f
                         for v in (sb, sr, ss))
        out = []
        w = (a1 - a0) / n
        prev = at(a0)
        for k in range(n):
            b0, b1 = a0 + k * w, a0 + (k + 1) * w
            cur = at(b1)
            us = (b1 - b0) / 1000.0
            parts = [max(0.0, min(1.0, (c - p) / us))
                     for c, p in zip(cur, prev)]
            tot = sum(parts)
            if tot > 1:
                parts = [x / tot for x in parts]
                tot = 1.0
            out.append((b0, b1, parts[0], parts[1], parts[2], 1.0 - tot))
            prev = cur
        return out

    def life_us(self):
        return max(0, (self.last_ns - self.first_ns) // 1000)

    def shares(self):
        """{share: µs} (SHARES), and the life they divide"""
        life = self.life_us()
        sent = self.busy + self.rwnd + self.sndbuf
        us = {"cwnd": self.busy - self.pacing, "pacing": self.pacing,
              "rwnd": self.rwnd, "sndbuf": self.sndbuf,
              "app": max(0, life - sent)}
        return us, max(life, sent)

    def sent(self):
        """whether it sent data (a FIN alone runs the busy chronograph)"""
        return self.bytes_sent > 0 and self.busy + self.rwnd + self.sndbuf > 0

    def dominant(self):
        """the share that held it back longest, or None: it sent no data"""
        us, life = self.shares()
        if not life or not self.sent():
            return None
        return max(SHARES, key=lambda k: us[k])

    def diagnosis(self):
        """one line: the dominant limit, its share, why"""
        us, life = self.shares()
        if not self.sent():
            return "sent no data: nothing held it back"
        d = self.dominant()
        pct = 100.0 * us[d] / life
        if d == "rwnd":
            why = "the receiver's window averaged %s while it was" % (
                _kb(self.win_sum / self.win_n) if self.win_n else "?")
        elif d == "sndbuf":
            why = ("the send buffer held up to %s written and not "
                   "acknowledged (SO_SNDBUF, tcp_wmem)" %
                   _kb(self.queued_max))
        elif d == "cwnd":
            why = "cwnd averaged %.0f segments at srtt %.1f ms" % (
                self.cwnd_sum / max(1, self.busy_n),
                self.srtt_sum / max(1, self.busy_n) / 1000.0)
        elif d == "pacing":
            why = "the pacing rate averaged %.2f Mbit/s" % (
                self.pace_sum / max(1, self.pace_n) * 8 / 1e6)
        else:
            why = "nothing was queued to send"
        rest = ", ".join("%s %.0f%%" % (k, 100.0 * us[k] / life)
                         for k in SHARES if k != d)
        return "%.0f%% %s: %s (%s; of %.3f s)" % (
            pct, SHARE_NAMES[d], why, rest, life / 1e6)

    def as_dict(self, t0):
        us, life = self.shares()
        return {
            # how: the kernel's chronographs at the last record (µs, as
            # tcp_info), busy split by the rate part, app the rest of the
            # life (the first record to the last with a limit part)
            "busy_us": self.busy + self.rwnd + self.sndbuf,
            "rwnd_limited_us": self.rwnd,
            "sndbuf_limited_us": self.sndbuf,
            "life_us": life,
            "us": us,
            "shares": {k: round(us[k] / life, 4) if life else None
                       for k in SHARES},
            "dominant": self.dominant(),
            # the changes of the running chronograph between consecutive
            # records: a lower bound (it may change and back between two)
            "changes_seen": self.changes,
            "reordering": self.reordering, "reord_seen": self.reord_seen,
            "dsack_dups": self.dsack_dups,
            "diagnosis": self.diagnosis(),
        }


def _kb(b):
    return "%.0f KB" % (b / 1000.0) if b >= 10000 else "%.0f bytes" % b
