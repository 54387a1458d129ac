"""Monarch's self-diagnosis (IMC'06, section 3.3 and Figure 3): from the
proxy's trace alone (trace.txt, docs/monarch.md), whether a flow can be
trusted.

Many hosts give each packet they create the next IP ID. A probe lost on the
way out never reaches the remote, which then creates no answer and uses no
ID; an answer lost on the way back used one. So between two answered
probes, the IDs the remote used and the probes between them that got no
answer say how many of those were lost on the way back (upstream) and how
many on the way out (downstream). Answers that arrive in another order than
their IDs were reordered on the way back: the proxy delivers the held
packets in that order, so the receiver's TCP sees a reordering a real flow
would not have.

The result, as the paper's Figure 3:
- indeterminate: the IDs cannot be used (all zero, constant, or not
  increasing by a fixed step: randomised), or a loss cannot be classified
  (more IDs used between two answers than probes unanswered there, or not a
  whole number of steps; or IDs used between them while the remote was
  idle between the two answers for as long as it took, elsewhere in the
  same trace, for its IDs to jump, as Linux's do after a quiet jiffy: a
  jump or a lost answer, which cannot be told; with no ID used between
  them every loss there was on the way out, since a jump only adds);
- inaccurate: an answer of a packet carrying data was lost on the way back
  (the sender's TCP retransmitted a packet a real flow's cumulative ACK
  would have covered), or answers were reordered on the way back by 3
  packets or more (TCP's duplicate ACK threshold: a retransmission);
- confirmed: neither.
Long runs of unanswered probes (the paper's 3.3.4: a rate-limiting host,
or a path failure) are reported, and make the flow inaccurate.
"""

import bisect

DUPTHRESH = 3
RUN_LIMIT = 20       # unanswered probes in a row: rate limiting, or a failure


def read_trace(path):
    """the trace's probes in the order they were sent: dicts with key, seq,
    len, data, t_probe, and for the answered, ipid and t_answer"""
    probes, order = {}, []
    head = None
    with open(path) as f:
        for line in f:
            if line.startswith("#"):
                continue
            w = line.rstrip("\n").split("\t")
            if head is None:
                head = w
                if head[:3] != ["time_ns", "event", "key"]:
                    raise ValueError("%s: not a magnet-monarch-proxy trace"
                                     % path)
                continue
            r = dict(zip(head, w))
            if len(w) != len(head):
                raise ValueError("%s: a line of %d fields, the header has %d"
                                 % (path, len(w), len(head)))
            ev, key, t = r["event"], r["key"], int(r["time_ns"])
            if ev == "probe":
                p = {"key": key, "seq": int(r["seq"]), "len": int(r["len"]),
                     "data": int(r.get("data") or 0), "t_probe": t,
                     "ipid": None, "t_answer": None, "late": False,
                     "held": False}
                probes[key] = p
                order.append(p)
            elif ev == "response" and key in probes:
                probes[key]["ipid"] = int(r["ip_id"])
                probes[key]["t_answer"] = t
            elif ev == "held" and key in probes:
                # still held when the proxy stopped, unanswered
                probes[key]["held"] = True
            elif ev == "unmatched" and key in probes and \
                    probes[key]["ipid"] is None:
                # answered after its packet expired: not lost, but the
                # packet was never delivered
                probes[key]["ipid"] = int(r["ip_id"])
                probes[key]["t_answer"] = t
                probes[key]["late"] = True
    if head is None:
        raise ValueError("%s: empty, not a magnet-monarch-proxy trace" % path)
    return order


def diagnose(order):
    """the diagnosis of a flow's probes (read_trace): a dict. Packets still
    held when the proxy stopped (after waiting for the answers on the
    way) are unanswered as the others; held_at_end counts them"""
    out = {"probes": len(order),
           "held_at_end": sum(1 for p in order if p.get("held")),
           "answered": 0, "unanswered": 0,
           "late": 0, "downstream_losses": 0, "upstream_losses": 0,
           "upstream_losses_data": 0, "unclassified": 0,
           "upstream_reorder_max": 0, "upstream_reordered": 0,
           "longest_unanswered_run": 0, "ipid_step": None, "reasons": []}
    ans = [p for p in order if p["ipid"] is not None]
    out["answered"] = len(ans)
    out["unanswered"] = len(order) - len(ans)
    out["late"] = sum(1 for p in ans if p["late"])
    run = 0
    for p in order:
        run = run + 1 if p["ipid"] is None else 0
        out["longest_unanswered_run"] = max(out["longest_unanswered_run"],
                                            run)
    if len(ans) < 2:
        out["verdict"] = "indeterminate"
        out["reasons"].append("fewer than 2 answers")
        return out
    # the step: the most common ID difference between answers of
    # consecutive probes (both answered)
    diffs = []
    for a, b in zip(order, order[1:]):
        if a["ipid"] is not None and b["ipid"] is not None:
            diffs.append(((b["ipid"] - a["ipid"]) % 65536,
                          (b["t_answer"] - a["t_answer"])))
    ids = set(p["ipid"] for p in ans)
    step = None
    if diffs:
        counts = {}
        for d, _ in diffs:
            counts[d] = counts.get(d, 0) + 1
        step, n = max(counts.items(), key=lambda kv: kv[1])
        if step == 0 or n < 0.5 * len(diffs):
            step = None
    if ids == {0} or len(ids) == 1:
        out["reasons"].append("IP IDs unusable: all %d" % next(iter(ids)))
    elif step is None:
        out["reasons"].append("IP IDs unusable: no fixed step between "
                              "consecutive answers (randomised)")
    out["ipid_step"] = step
    if out["reasons"]:
        out["verdict"] = "indeterminate"
        return out
    # how long the remote was quiet before its IDs jumped (more than a step
    # between consecutive answers): a loss around so long a quiet time
    # cannot be classified
    jumps = [dt for d, dt in diffs if d != step]
    jump_gap = min(jumps) if jumps else None
    out["ipid_jumps"] = len(jumps)
    # each run of unanswered probes between two answered ones
    i = 0
    while i < len(order):
        if order[i]["ipid"] is not None:
            i += 1
            continue
        j = i
        while j < len(order) and order[j]["ipid"] is None:
            j += 1
        m = j - i
        lost = order[i:j]
        if i == 0 or j == len(order):
            # no answer on one side: cannot be told
            out["unclassified"] += m
            i = j
            continue
        a, b = order[i - 1], order[j]
        d = (b["ipid"] - a["ipid"]) % 65536
        used = d // step - 1 if d % step == 0 else -1
        quiet = b["t_answer"] - a["t_answer"]
        if used == 0:
            # no ID between them: no answer was lost, whatever the
            # quiet time (a jump only ever adds to the IDs)
            out["downstream_losses"] += m
        elif used < 0 or used > m or \
                (jump_gap is not None and quiet >= jump_gap):
            out["unclassified"] += m
        else:
            out["upstream_losses"] += used
            out["downstream_losses"] += m - used
            # which of them: unknown; the data-carrying count is bounded
            # by the data packets among them
            out["upstream_losses_data"] += min(
                used, sum(1 for p in lost if p["data"] > 0))
        i = j
    # reordering on the way back: answers in arrival order, against the
    # order of their IDs (unwrapped from the first)
    base = ans[0]["ipid"]
    seq = [((p["ipid"] - base) % 65536, p["t_answer"]) for p in ans]
    by_arrival = sorted(seq, key=lambda x: x[1])
    hi, worst, n_re = -1, 0, 0
    arrived = []
    for idv, _ in by_arrival:
        if idv < hi:
            n_re += 1
            # how many answers with later IDs arrived before it
            worst = max(worst, len(arrived) - bisect.bisect_right(arrived,
                                                                 idv))
        hi = max(hi, idv)
        bisect.insort(arrived, idv)
    out["upstream_reordered"] = n_re
    out["upstream_reorder_max"] = worst
    if out["unclassified"]:
        out["reasons"].append("%d losses could not be classified"
                              % out["unclassified"])
        out["verdict"] = "indeterminate"
        return out
    if out["upstream_losses_data"]:
        out["reasons"].append(
            "%d answers lost on the way back (%d of data packets: "
            "retransmissions a real flow would not have made)"
            % (out["upstream_losses"], out["upstream_losses_data"]))
    if worst >= DUPTHRESH:
        out["reasons"].append(
            "answers reordered on the way back by up to %d packets (%d "
            "answers): duplicate ACKs a real flow would not have seen"
            % (worst, n_re))
    if out["late"]:
        out["reasons"].append(
            "%d answers came after their packets were dropped (the proxy's "
            "hold time): losses to the sender's TCP that were delays"
            % out["late"])
    if out["longest_unanswered_run"] >= RUN_LIMIT:
        out["reasons"].append(
            "%d probes in a row unanswered: a rate-limiting remote or a "
            "path failure" % out["longest_unanswered_run"])
    out["verdict"] = "inaccurate" if out["reasons"] else "confirmed"
    return out


def summary_line(d):
    s = ("self-diagnosis: %s; %d probes, %d answered (%d late), %d lost on "
         "the way out, %d on the way back, %d unclassified; IP ID step %s"
         % (d["verdict"], d["probes"], d["answered"], d["late"],
            d["downstream_losses"], d["upstream_losses"], d["unclassified"],
            d["ipid_step"]))
    if d["reasons"]:
        s += " (" + "; ".join(d["reasons"]) + ")"
    return s
