#!/usr/bin/env python3
"""Version 3's growth contract (docs/binary-format.md, "Growing the
format"), tested both ways, from the document's layout alone (this file
reads and writes records with struct, never with magnet's code):

  compat.py make DIR
      write the past layouts of version 3 from today's real 7.2 logs
      (tests/unit/{tcpev,drops,qdisc}-7.2.bin), into DIR/<log>-<layout>.bin:
        L2  80-byte FLOW records, no event of 12 to 19 (before drops)
        L1  and 72-byte FLOW records (before netns)
        L0  and no rate part (before it: RF_RATE clear, 56 bytes fewer)
      the held fixtures in tests/unit/compat/ were written so; they are
      kept, not rewritten by the tests

  compat.py check TTPB2ASCII TTPB2ASCII_FIRST FIXTURES OUTDIR
      1. today's reader (TTPB2ASCII) reads each held past layout: exit 0,
         nothing on stderr, and the magnet text of today's log with the
         lines and columns that layout lacked taken away;
      2. a reader of version 3's first layout (TTPB2ASCII_FIRST, built
         knowing none of the additions) reads today's logs (as written,
         header features 0, 0x3f as the module wrote them before wire_out,
         and 0x7f as today's writes them): exit 0, the records it knows
         (no event 12 to 20, no netns, no
         rate columns), and one warning with the counts this file makes;
      3. a log newer than today's reader (a made-up record kind, 200,
         after every FLOW record, FLOW records of 88 bytes, every other
         record 16 bytes longer, and the header's feature bit 0x1000, with
         0x7f, the additions these logs use; not 0x80, the limit part):
         today's reader prints the same text as for the log it came from,
         exit 0, with the warning's counts; the same log with the header
         saying nothing it does not know is refused (exit 2), as before.
      Prints "ok: ..." or "FAIL: ..." lines; exits 1 if any failed.
"""
import os, struct, subprocess, sys

LOGS = ('tcpev-7.2', 'drops-7.2', 'qdisc-7.2')
HERE = os.path.dirname(os.path.abspath(__file__))
RF_RATE = 0x80
FLOW, LOST, RESET = 11, 9, 10
NEW_KINDS = range(12, 24)
RATE_COLS = ('pacing_rate delivery_rate delivered delivered_ce lost_out '
             'sacked_out app_limited bbr_bw bbr_min_rtt bbr_pacing_gain '
             'bbr_cwnd_gain').split()
EV_NAMES = {12: 'drop_out', 13: 'drop_in', 14: 'retrans', 15: 'rto',
            16: 'tlp', 17: 'state', 18: 'qdisc', 19: 'qdisc_enq',
            20: 'wire_out'}


def records(b):
    """The header and each record (event, flags, bytes) of a little-endian
    version 3 log ("Version 3": a 16-byte header whose len says the
    record's bytes)."""
    assert struct.unpack_from('<IH', b, 0) == (0x01234567, 3), 'not v3 LE'
    off, out = 256, []
    while off < len(b):
        ev, fl, ln = struct.unpack_from('<BBH', b, off + 12)
        out.append((ev, fl, b[off:off + ln]))
        off += ln
    assert off == len(b), 'log ends inside a record'
    return b[:256], out


def with_len(r, ln):
    return r[:14] + struct.pack('<H', ln) + r[16:]


def past_layout(b, layout):
    hdr, recs = records(b)
    out = [hdr]
    for ev, fl, r in recs:
        if ev in NEW_KINDS:
            continue
        if ev == FLOW and layout in ('L1', 'L0'):
            r = with_len(r[:72], 72)
        if fl & RF_RATE and layout == 'L0':
            # the rate part is last in a TCP or app event ("Version 3")
            r = with_len(r[:len(r) - 56], len(r) - 56)
            r = r[:13] + bytes([fl & ~RF_RATE]) + r[14:]
        out.append(r)
    return b''.join(out)


def with_features(b, features):
    return b[:12] + struct.pack('<I', features) + b[16:]


def newer_log(b, features):
    """Today's log grown as a later writer may grow it: counts of what
    was added."""
    hdr, recs = records(b)
    out, kinds, longer = [with_features(hdr, features)], 0, 0
    for ev, fl, r in recs:
        # every record longer than its layout: FLOW by 8 bytes, the
        # others by 16
        n = 8 if ev == FLOW else 16
        r = with_len(r + bytes(range(0xa0, 0xa0 + n)), len(r) + n)
        longer += 1
        out.append(r)
        if ev == FLOW:
            # a kind no reader knows, naming a flow id no FLOW defined
            out.append(struct.pack('<QHHBBH', 1, 0, 999, 200, 0xff, 48) +
                       bytes(range(32)))
            kinds += 1
    return b''.join(out), kinds, longer


def counts_first(b):
    """What a reader of the first layout skips (the kinds 12 to 19) and
    reads in part (80-byte FLOW records, records with a rate part)."""
    _, recs = records(b)
    skipped = sum(1 for ev, fl, r in recs if ev in NEW_KINDS)
    codes = sorted({ev for ev, fl, r in recs if ev in NEW_KINDS})
    longer = sum(1 for ev, fl, r in recs
                 if (ev == FLOW and len(r) == 80) or
                 (ev not in NEW_KINDS and fl & RF_RATE))
    return skipped, codes, longer


def text_without(text, layout):
    """Today's magnet text as a past layout's log reads: its lines of
    events 12 to 19 gone, netns (L1, L0) and the rate columns (L0, or a
    reader of the first layout) empty."""
    lines = text.split('\n')
    head = lines[0].split('\t')
    ev_col = head.index('event')
    blank = []
    if layout in ('L1', 'L0', 'first'):
        blank.append(head.index('netns'))
    if layout in ('L0', 'first'):
        blank += [head.index(c) for c in RATE_COLS]
    out = [lines[0]]
    for ln in lines[1:]:
        if not ln:
            out.append(ln)
            continue
        f = ln.split('\t')
        if f[ev_col] in EV_NAMES.values():
            continue
        for c in blank:
            f[c] = ''
        out.append('\t'.join(f))
    return '\n'.join(out)


def run(prog, path):
    p = subprocess.run([prog, '-f', 'magnet', path], capture_output=True)
    return p.returncode, p.stdout.decode(), p.stderr.decode()


def make(d):
    os.makedirs(d, exist_ok=True)
    for log in LOGS:
        b = open(os.path.join(HERE, log + '.bin'), 'rb').read()
        for layout in ('L2', 'L1', 'L0'):
            open(os.path.join(d, '%s-%s.bin' % (log, layout)), 'wb').write(
                past_layout(b, layout))


def warning(path, newer, skipped, codes, longer):
    return ('ttpb2ascii: warning: %s: this log is newer than this reader: '
            'its header names additions to version 3 this reader does not '
            'know (features 0x%x); %d records of kinds it does not know were '
            'skipped%s, %d records longer than it knows were read as far as '
            'it knows\n' % (path, newer, skipped,
                            ' (event codes %s)' % ' '.join(map(str, codes))
                            if skipped else '', longer))


def check(today, first, fixtures, outdir):
    fails, passed = [], [0]

    def ok(what, cond, detail=''):
        passed[0] += bool(cond)
        print(('ok: ' if cond else 'FAIL: ') + what +
              ('' if cond else ' ' + detail))
        if not cond:
            fails.append(what)

    os.makedirs(outdir, exist_ok=True)
    for log in LOGS:
        src = os.path.join(HERE, log + '.bin')
        b = open(src, 'rb').read()
        rc, full, err = run(today, src)
        ok('%s: today\'s reader reads today\'s log' % log, rc == 0 and not err,
           '(exit %d, %r)' % (rc, err))
        # 1. the past layouts, as held
        for layout in ('L2', 'L1', 'L0'):
            f = os.path.join(fixtures, '%s-%s.bin' % (log, layout))
            held = open(f, 'rb').read()
            ok('%s %s: the held fixture is that layout of today\'s log' %
               (log, layout), held == past_layout(b, layout))
            rc, out, err = run(today, f)
            ok('%s %s: exit 0, nothing on stderr' % (log, layout),
               rc == 0 and not err, '(exit %d, %r)' % (rc, err))
            ok('%s %s: the magnet text of today\'s log less what the layout '
               'lacked' % (log, layout), out == text_without(full, layout))
        # 2. a reader of the first layout reads today's log
        skipped, codes, longer = counts_first(b)
        for features in (0, 0x3f, 0x7f):
            f = os.path.join(outdir, '%s-f%x.bin' % (log, features))
            open(f, 'wb').write(with_features(b, features))
            rc, out, err = run(first, f)
            what = '%s (features 0x%x), first layout\'s reader' % (log, features)
            ok(what + ': exit 0', rc == 0, '(exit %d, %r)' % (rc, err))
            ok(what + ': the records it knows', out == text_without(full, 'first'))
            want = warning(f, features or 0x3f, skipped, codes, longer)
            ok(what + ': the warning says %d skipped, %d read in part' %
               (skipped, longer), err == want, '(got %r, want %r)' % (err, want))
        # 3. a log newer than today's reader
        f = os.path.join(outdir, '%s-newer.bin' % log)
        nb, kinds, longer = newer_log(b, 0x107f)
        open(f, 'wb').write(nb)
        rc, out, err = run(today, f)
        ok('%s newer: exit 0 and the same text' % log, rc == 0 and out == full,
           '(exit %d)' % rc)
        want = warning(f, 0x1000, kinds, [200], longer)
        ok('%s newer: the warning says %d skipped, %d read in part' %
           (log, kinds, longer), err == want, '(got %r, want %r)' % (err, want))
        f = os.path.join(outdir, '%s-newer-unsaid.bin' % log)
        open(f, 'wb').write(newer_log(b, 0x7f)[0])
        rc, out, err = run(today, f)
        ok('%s newer, its header not saying so: refused (exit 2)' % log,
           rc == 2, '(exit %d, %r)' % (rc, err))
    print('compat: %d passed, %d failed' % (passed[0], len(fails)))
    return 1 if fails else 0


def main(argv):
    if len(argv) == 3 and argv[1] == 'make':
        make(argv[2])
        return 0
    if len(argv) == 6 and argv[1] == 'check':
        return check(*argv[2:])
    sys.stderr.write(__doc__)
    return 1


if __name__ == '__main__':
    sys.exit(main(sys.argv))
