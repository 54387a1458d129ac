#!/usr/bin/env python3
"""A second decoder of magnet's binary stream (versions 2 and 3, either
byte order, gzip or not), written from docs/binary-format.md alone: every
rule it applies is stated there, none is taken from the module's or
ttpb2ascii's code. It prints the magnet text (`ttpb2ascii -f magnet`);
check.sh compares the two byte for byte, and their exit codes, on the
fixtures and on crafted corner cases, so the doc stays complete enough to
write a decoder from, and the two decoders agree.

    docdecode.py FILE    exit 0; 1 ttprobe's 96-byte records (no magnet
                         text of them); 2 bad input; 3 the log ends inside
                         a record

Each rule it follows is the document's; the comments name the section
("Reading a stream" has the checks and their order).
"""
import sys, struct, zlib

MAGIC = 0x01234567
MAGIC_SW = 0x67452301

EV_NAMES = {1: 'tcp_out', 2: 'tcp_in', 3: 'app_send', 4: 'app_recv',
            5: 'ip_out', 6: 'ip_in', 7: 'dev_out', 8: 'dev_in',
            9: 'lost', 10: 'reset', 12: 'drop_out', 13: 'drop_in',
            14: 'retrans', 15: 'rto', 16: 'tlp', 17: 'state', 18: 'qdisc',
            19: 'qdisc_enq', 20: 'wire_out', 21: 'cong_state',
            22: 'rcvbuf', 23: 'rto_end'}
RETRANS_KINDS = {1: 'rto', 2: 'fast', 3: 'tlp'}
TLP_KINDS = {1: 'none', 2: 'new', 3: 'retrans'}
RF_TCP, RF_SEQ, RF_IP, RF_DEV, RF_APP, RF_SOCK, RF_HDR, RF_RATE = \
    0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80
EV_FLOW = 11
KNOWN = 0xfff   # "Growing the format": the additions this decoder knows
FEAT_LIMIT = 0x80
FEAT_RTO_TOTALS = 0x400
CHRONOS = {0: 'none', 1: 'busy', 2: 'rwnd', 3: 'sndbuf'}

COLUMNS = ("time cpu event sock family laddr lport raddr rport state len seq "
           "end_seq mark pid comm req ret mss srtt_us rttvar_us rto_us cwnd "
           "ssthresh snd_wnd rcv_wnd snd_una snd_nxt write_seq copied_seq "
           "packets_out retrans_out total_retrans ca_state ca_name ifindex "
           "netns ip_id ip_tos ip_ttl ip_proto segs_out data_segs_out segs_in "
           "data_segs_in bytes_sent bytes_received bytes_acked bytes_retrans "
           "rcv_nxt min_rtt_us rtt_us advmss snd_wscale rcv_wscale opts "
           "pacing_rate delivery_rate delivered delivered_ce lost_out "
           "sacked_out app_limited bbr_bw bbr_min_rtt bbr_pacing_gain "
           "bbr_cwnd_gain drop_reason drop_where prev_state kind "
           "timeouts qdisc qdisc_handle qdisc_qlen qdisc_backlog chrono "
           "chrono_us busy_us rwnd_limited_us sndbuf_limited_us reordering "
           "reord_seen dsack_dups rcvbuf rcvbuf_before window_clamp "
           "window_clamp_before rcv_ssthresh rcv_space rcv_rtt_us total_rto "
           "total_rto_recoveries total_rto_time rto_recovery_ms lost").split()
assert len(COLUMNS) == 96

TCP_U32 = ("mss srtt_us rttvar_us rto_us cwnd ssthresh snd_wnd rcv_wnd "
           "snd_una snd_nxt write_seq copied_seq packets_out retrans_out "
           "total_retrans").split()
TCP_U32B = ("segs_out data_segs_out segs_in data_segs_in rcv_nxt min_rtt_us "
            "rtt_us").split()
TCP_U64 = "bytes_sent bytes_received bytes_acked bytes_retrans".split()


class BadInput(Exception):
    pass


class Legacy(Exception):
    """ttprobe's 96-byte records: no magnet text of them (exit 1)."""


def clean(b):
    """At most the field's size, up to the first NUL; 0x21..0x7e as they
    are, a space as '_', any other byte as '?'."""
    n = b.find(b'\0')
    if n >= 0:
        b = b[:n]
    out = []
    for c in b:
        if c == 0x20:
            out.append('_')
        elif 0x21 <= c <= 0x7e:
            out.append(chr(c))
        else:
            out.append('?')
    return ''.join(out)


def fmt_addr(family, a):
    """"The magnet text": dotted decimal when family is 4, otherwise (6 or
    any other value) eight groups of 4 upper-case hex digits, never
    shortened."""
    if family == 4:
        return '.'.join(str(x) for x in a[:4])
    return ':'.join('%02X%02X' % (a[i], a[i + 1]) for i in range(0, 16, 2))


def legacy_valid(d):
    """"The legacy record": what a ttprobe record satisfies, read in this
    host's byte order ("Reading a stream", "The input")."""
    tv_sec, tv_usec = struct.unpack_from('=qq', d, 0)
    return (d[90] in (2, 10) and d[89] in (ord('o'), ord('i')) and
            0 <= tv_usec <= 999999 and 0 <= tv_sec <= 9999999999)


def gunzip(data):
    """"Reading a stream", "The input": gzip members one after another;
    bytes after a member that do not start another are ignored; a damaged
    or unfinished member is bad input."""
    out = []
    while data[:2] == b'\x1f\x8b':
        z = zlib.decompressobj(wbits=31)
        try:
            out.append(z.decompress(data))
        except zlib.error as e:
            raise BadInput('corrupt gzip stream: %s' % e)
        if not z.eof:
            raise BadInput('truncated gzip stream')
        data = z.unused_data
    return b''.join(out)


class Decoder:
    def __init__(self, data, out):
        self.d = data
        self.out = out
        self.flows = {}

    def header(self):
        """"Reading a stream", "The input" and "The header", in order."""
        d = self.d
        m = struct.unpack_from('=I', d, 0)[0] if len(d) >= 4 else None
        if m not in (MAGIC, MAGIC_SW) and len(d) >= 96 and legacy_valid(d):
            raise Legacy()
        if len(d) < 4:
            raise BadInput('empty, or fewer than 4 bytes')
        # "Byte order": the writer's, told by magic as read here
        if m == MAGIC:
            self.e = '='
        elif m == MAGIC_SW:
            self.e = '>' if sys.byteorder == 'little' else '<'
        else:
            raise BadInput('bad magic')
        e = self.e
        if len(d) >= 6:
            self.version = struct.unpack_from(e + 'H', d, 4)[0]
            if self.version not in (2, 3):
                raise BadInput('unsupported version %d' % self.version)
        if len(d) < 256:
            raise BadInput('shorter than the header')
        (self.magic, self.version, self.record_size, self.sysinfo_size,
         self.ncpus, features, self.rt_off, self.start_ns) = \
            struct.unpack_from(e + 'IHHHHIqQ', d, 0)
        # "Growing the format": this decoder knows KNOWN; a header's 0
        # means 0x3f; a bit beyond them makes the log newer than it
        self.newer = (features or 0x3f) & ~KNOWN
        # "Limit part": in TCP_OUT, TCP_IN and TCP events of a log whose
        # features have 0x80
        self.limit = bool(features & FEAT_LIMIT)
        # the TCP event part's bytes 3-7: reserved, or the RTO totals
        self.rto_totals = bool(features & FEAT_RTO_TOTALS)
        if self.record_size != (256 if self.version == 2 else 0):
            raise BadInput('bad record_size')
        if self.sysinfo_size != 256:
            raise BadInput('bad sysinfo_size')

    def u(self, fmt, off):
        return struct.unpack_from(self.e + fmt, self.d, off)

    def emit(self, r):
        row = []
        for c in COLUMNS:
            v = r.get(c)
            row.append('' if v is None else str(v))
        self.out.write('\t'.join(row) + '\n')

    def time(self, ts):
        w = (ts + self.rt_off) & 0xffffffffffffffff
        return '%d.%09d' % (w // 1000000000, w % 1000000000)

    # ---- common output from a version-2-like dict of fields ----
    def row(self, f):
        ev = f['event']
        fl = f['flags']
        r = {'time': self.time(f['ts_ns']), 'cpu': f['cpu'],
             'event': EV_NAMES.get(ev, str(ev))}
        if ev in (9, 10):
            r['lost'] = f['req']
            # "The magnet text": a lost line's probe misses, when not 0,
            # unsigned 64-bit; a reset line never shows its ret
            if ev == 9 and f.get('ret'):
                r['ret'] = f['ret'] & 0xffffffffffffffff
            return r
        if fl & RF_SOCK:
            # "The magnet text": 16 lowercase hex digits, zero-padded
            r['sock'] = '%016x' % f['sock_id']
            r['state'] = f['state']
        r['family'] = f['family']
        r['laddr'] = fmt_addr(f['family'], f['laddr'])
        r['raddr'] = fmt_addr(f['family'], f['raddr'])
        r['lport'] = f['lport']
        r['rport'] = f['rport']
        r['len'] = f['len']
        r['mark'] = f['mark']
        if fl & RF_SEQ:
            r['seq'] = f['seq']
            r['end_seq'] = f['end_seq']
        if fl & RF_APP:
            for k in ('pid', 'req', 'ret'):
                r[k] = f[k]
            r['comm'] = clean(f['comm'])
        if fl & RF_TCP:
            for k in TCP_U32 + TCP_U32B + TCP_U64 + ['advmss', 'ca_state']:
                r[k] = f[k]
            r['ca_name'] = clean(f['ca_name'])
            r['snd_wscale'] = f['wscale'] >> 4
            r['rcv_wscale'] = f['wscale'] & 15
            r['opts'] = f['opts']
        if fl & RF_DEV:
            r['ifindex'] = f['ifindex']
        # "The magnet text": netns, a version 3 flow's other than 0
        if f.get('netns'):
            r['netns'] = f['netns']
        if fl & RF_IP:
            for k in ('ip_id', 'ip_tos', 'ip_ttl', 'ip_proto'):
                r[k] = f[k]
        # "The magnet text": the rate columns need a rate part and RF_TCP
        if 'rate' in f and fl & RF_TCP:
            q = f['rate']
            r['pacing_rate'] = q['pacing_rate']
            if q['rate_delivered'] == 0 or q['rate_interval_us'] == 0:
                dr = 0
            else:
                dr = ((q['rate_delivered'] * f['mss']) & 0xffffffffffffffff)
                dr = ((dr * 1000000) & 0xffffffffffffffff) // q['rate_interval_us']
            r['delivery_rate'] = dr
            for k in ('delivered', 'delivered_ce', 'lost_out', 'sacked_out',
                      'app_limited'):
                r[k] = q[k]
            if q['cc_attr'] == 16:
                ci = q['cc_info']
                r['bbr_bw'] = (ci[1] << 32) | ci[0]
                r['bbr_min_rtt'] = ci[2]
                r['bbr_pacing_gain'] = ci[3]
                r['bbr_cwnd_gain'] = ci[4]
        # "Drop part": the name, else the number, else unknown
        if 'drop' in f:
            q = f['drop']
            name = clean(q['reason_name'])
            r['drop_reason'] = name or (q['reason'] or 'unknown')
            r['drop_where'] = clean(q['where'])
        # "TCP event part": each column of its event only
        if 'tcpev' in f:
            q = f['tcpev']
            if f['event'] in (17, 21):
                r['prev_state'] = q['prev_state']
            elif f['event'] == 14:
                r['kind'] = RETRANS_KINDS.get(q['kind'], q['kind'])
            elif f['event'] == 16:
                r['kind'] = TLP_KINDS.get(q['kind'], q['kind'])
            elif f['event'] == 15:
                r['timeouts'] = q['timeouts']
            # any TCP event's, where the kernel keeps them
            for k in ('total_rto', 'total_rto_recoveries'):
                if k in q:
                    r[k] = q[k]
        # "Qdisc part": the kind cleaned, the handle as tc writes it
        if 'qdisc' in f:
            q = f['qdisc']
            r['qdisc'] = clean(q['kind'])
            r['qdisc_handle'] = '%x:%x' % (q['handle'] >> 16,
                                           q['handle'] & 0xffff)
            for k in ('qlen', 'backlog'):
                r['qdisc_' + k] = q[k] if q[k] != 0xffffffff else ''
        # "Limit part": jiffies times jiffy_us, busy_us the three summed
        if 'limit' in f:
            q = f['limit']
            us = q['jiffy_us']
            r['chrono'] = CHRONOS.get(q['chrono'], '?')
            r['chrono_us'] = q['chrono_time'] * us
            r['busy_us'] = (q['busy'] + q['rwnd_limited'] +
                            q['sndbuf_limited']) * us
            r['rwnd_limited_us'] = q['rwnd_limited'] * us
            r['sndbuf_limited_us'] = q['sndbuf_limited'] * us
            for k in ('reordering', 'reord_seen', 'dsack_dups'):
                r[k] = q[k]
        # "Rcvbuf part": each field a column, space as rcv_space
        if 'rcvbuf' in f:
            q = f['rcvbuf']
            for k in ('rcvbuf', 'rcvbuf_before', 'window_clamp',
                      'window_clamp_before', 'rcv_ssthresh', 'rcv_rtt_us'):
                r[k] = q[k]
            r['rcv_space'] = q['space']
        # "Rtoend part": the RTO totals' columns, and its two times
        if 'rtoend' in f:
            r.update(f['rtoend'])
        return r

    # ---- version 3 ----
    def run3(self):
        """"Reading a stream", "A version 3 record", steps 1 to 3; rec3()
        has step 4."""
        d = self.d
        off = self.sysinfo_size
        idx = 0
        n = len(d)
        while off < n:
            if n - off < 16:
                return 3, n - off
            ts, cpu, flow, ev, fl, ln = self.u('QHHBBH', off)
            if ln < 32 or ln > (1024 if self.newer else 256) or ln % 8:
                raise BadInput('bad len %d at record %d offset %d' % (ln, idx, off))
            if n - off < ln:
                return 3, n - off
            self.rec3(off, idx, ts, cpu, flow, ev, fl, ln)
            off += ln
            idx += 1
        return 0, 0

    def rec3(self, off, idx, ts, cpu, flow, ev, fl, ln):
        def bad(why):
            raise BadInput('%s: record %d offset %d' % (why, idx, off))

        def short(want):
            # "Reading a stream": a length other than the layout's; in a
            # newer log only a shorter one (a longer one is read as far
            # as the layout goes)
            return ln < want or (ln > want and not self.newer)
        # the flags of FLOW, LOST and RESET records, and the flow of LOST
        # and RESET, are not checked ("Reading a stream")
        if ev == EV_FLOW:
            # "FLOW": 80 bytes, or 72 written before netns (netns 0)
            if ln != 72 and short(80):
                bad('bad FLOW len')
            if not 1 <= flow <= 1024:
                bad('FLOW record for flow id %d' % flow)
            sock_id, lport, rport, family = self.u('QHHB', off + 16)
            self.flows[(cpu, flow)] = dict(
                sock_id=sock_id, lport=lport, rport=rport, family=family,
                ca_name=self.d[off + 29:off + 40],
                laddr=self.d[off + 40:off + 56], raddr=self.d[off + 56:off + 72],
                netns=self.u('I', off + 72)[0] if ln >= 80 else 0)
            return
        if ev in (9, 10):
            if short(32):
                bad('bad count len')
            req, ret = self.u('Qq', off + 16)
            if ev == 9:
                for k in [k for k in self.flows if k[0] == cpu]:
                    del self.flows[k]
            else:
                self.flows.clear()
            self.emit(self.row(dict(ts_ns=ts, cpu=cpu, event=ev, flags=fl,
                                    req=req, ret=ret)))
            return
        if ev < 1 or ev > 23:
            # "Growing the format": a kind a newer writer added, skipped
            if ev and self.newer:
                return
            bad('unknown event %d' % ev)
        if ev in (14, 15, 16, 17, 21):
            # "TCP events": the TCP part, the rate part, the TCP event part
            if fl & (RF_HDR | RF_APP) or fl & (RF_TCP | RF_RATE) != \
                    RF_TCP | RF_RATE:
                bad('TCP event flags 0x%02x' % fl)
            base = 160
            want = 160 + 56 + 8
            part = base + 56
            lim = want if self.limit else 0
        elif ev == 22:
            # "RCVBUF": the TCP part, then the rcvbuf part (32 bytes)
            if fl & (RF_HDR | RF_APP | RF_RATE) or not fl & RF_TCP:
                bad('rcvbuf flags 0x%02x' % fl)
            want = 160 + 32
            lim = 0
        elif ev == 23:
            # "RTO_END": the TCP part, then the rtoend part (16 bytes)
            if fl & (RF_HDR | RF_APP | RF_RATE) or not fl & RF_TCP:
                bad('rto_end flags 0x%02x' % fl)
            want = 160 + 16
            lim = 0
        elif ev in (1, 2, 3, 4):
            if fl & RF_HDR:
                bad('RF_HDR on TCP/app event')
            base = 160 if ev <= 2 else 200
            want = base + (56 if fl & RF_RATE else 0)
            # "Limit part": last in a TCP_OUT or TCP_IN record, never an
            # app record
            lim = want if self.limit and ev <= 2 else 0
        else:
            if fl & (RF_TCP | RF_RATE):
                bad('RF_TCP/RF_RATE on packet event')
            th = self.d[off + 53] if ln >= 56 else 0
            if th > 60:
                bad('tcp_hlen %d' % th)
            # "Version 3", packet part: options only when tcp_hlen is
            # 21 to 60; none when 0 to 20
            nopt = th - 20 if th > 20 else 0
            want = part = 56 + (nopt + 7) // 8 * 8
            # "Drop part": 72 bytes last in a DROP event; "Qdisc part": 32
            # in a QDISC or QDISC_ENQ event
            if ev in (12, 13):
                want += 72
            elif ev in (18, 19):
                want += 32
        if ev in (1, 2, 3, 4, 14, 15, 16, 17, 21) and lim:
            want += 32
        if short(want):
            bad('bad len %d want %d' % (ln, want))
        fi = self.flows.get((cpu, flow))
        if fi is None:
            bad('no FLOW for cpu %d flow %d' % (cpu, flow))
        # "Version 3": a field the flags name that the layout does not
        # carry is 0
        f = dict(ts_ns=ts, cpu=cpu, event=ev, flags=fl,
                 family=fi['family'], lport=fi['lport'], rport=fi['rport'],
                 laddr=fi['laddr'], raddr=fi['raddr'], netns=fi['netns'],
                 sock_id=fi['sock_id'] if fl & RF_SOCK else 0,
                 ca_name=fi['ca_name'] if fl & RF_TCP else b'',
                 pid=0, req=0, ret=0, comm=b'', ifindex=0, ip_id=0,
                 ip_tos=0, ip_ttl=0, ip_proto=0)
        if ev in (1, 2, 3, 4, 14, 15, 16, 17, 21, 22, 23):
            o = off + 16
            (f['len'], f['mark'], f['seq'], f['end_seq'], f['state'],
             f['ca_state'], f['wscale'], f['opts'], f['advmss'], _r) = \
                self.u('IIIIBBBBHH', o)
            v = self.u('15I', off + 40)
            f.update(zip(TCP_U32, v))
            v = self.u('7I', off + 100)
            f.update(zip(TCP_U32B, v))
            v = self.u('4Q', off + 128)
            f.update(zip(TCP_U64, v))
            if ev in (3, 4):
                f['pid'], _r, f['req'], f['ret'] = self.u('IIQq', off + 160)
                f['comm'] = self.d[off + 184:off + 200]
            if fl & RF_RATE:
                p = off + base
                (pr, dl, dce, lo, so, rd, ri, al, ca, _r) = \
                    self.u('QIIIIIIBBH', p)
                ci = self.u('5I', p + 36)
                f['rate'] = dict(pacing_rate=pr, delivered=dl, delivered_ce=dce,
                                 lost_out=lo, sacked_out=so, rate_delivered=rd,
                                 rate_interval_us=ri, app_limited=al,
                                 cc_attr=ca, cc_info=ci)
            if ev == 22:
                v = self.u('7I', off + 160)
                f['rcvbuf'] = dict(zip(('rcvbuf', 'rcvbuf_before',
                                        'window_clamp', 'window_clamp_before',
                                        'rcv_ssthresh', 'space', 'rcv_rtt_us'),
                                       v))
            elif ev == 23:
                v = self.u('IIHH', off + 160)
                f['rtoend'] = dict(zip(('total_rto_time', 'rto_recovery_ms',
                                        'total_rto', 'total_rto_recoveries'),
                                       v))
            elif ev >= 14:
                pv, kd, to, has, tr, trr = self.u('BBBBHH', off + part)
                f['tcpev'] = dict(prev_state=pv, kind=kd, timeouts=to)
                if self.rto_totals and has:
                    f['tcpev'].update(total_rto=tr, total_rto_recoveries=trr)
            if lim:
                v = self.u('7IHB', off + lim)
                f['limit'] = dict(zip(('busy', 'rwnd_limited',
                                       'sndbuf_limited', 'chrono_time',
                                       'reordering', 'reord_seen',
                                       'dsack_dups', 'jiffy_us', 'chrono'),
                                      v))
        else:
            o = off + 16
            (f['len'], f['mark'], f['seq'], f['end_seq'], f['ifindex'],
             f['tcp_ack'], f['ip_id'], f['tcp_win'], f['ip_hlen'],
             f['ip_frag'], f['state'], f['ip_tos'], f['ip_ttl'],
             f['ip_proto'], f['tcp_flags'], f['tcp_hlen']) = \
                self.u('IIIIIIHHHHBBBBBB', o)
            if ev in (12, 13):
                p = off + part
                # "A reader ends each name at 31 bytes"
                f['drop'] = dict(reason=self.u('I', p)[0],
                                 reason_name=self.d[p + 8:p + 39],
                                 where=self.d[p + 40:p + 71])
            elif ev in (18, 19):
                p = off + part
                h, pa, ql, bl = self.u('IIII', p)
                # "A reader ends the kind at 15 bytes"
                f['qdisc'] = dict(handle=h, parent=pa, qlen=ql, backlog=bl,
                                  kind=self.d[p + 16:p + 31])
        self.emit(self.row(f))

    # ---- version 2 ----
    def run2(self):
        d = self.d
        off = self.sysinfo_size
        n = len(d)
        idx = 0
        while off < n:
            if n - off < 256:
                return 3, n - off
            f = {}
            (f['ts_ns'], f['sock_id'], f['event'], f['cpu'], f['family'],
             f['state'], f['ca_state'], f['flags'], f['lport'], f['rport'],
             f['len']) = self.u('QQHHBBBBHHI', off)
            f['laddr'] = d[off + 32:off + 48]
            f['raddr'] = d[off + 48:off + 64]
            (f['seq'], f['end_seq'], f['mark'], f['pid'], f['ret'],
             f['req']) = self.u('IIIIqQ', off + 64)
            f['comm'] = d[off + 96:off + 112]
            # "Reading a stream", "A version 2 record"
            fl = f['flags']
            if not 1 <= f['event'] <= 10:
                raise BadInput('unknown event: record %d offset %d' % (idx, off))
            if fl & RF_TCP and fl & RF_HDR:
                raise BadInput('RF_TCP and RF_HDR: record %d offset %d' % (idx, off))
            f.update(zip(TCP_U32, self.u('15I', off + 112)))
            f['ifindex'], f['ip_id'], f['ip_tos'], f['ip_ttl'] = \
                self.u('IHBB', off + 172)
            f['ca_name'] = d[off + 180:off + 191]
            f['ip_proto'] = d[off + 191]
            (f['segs_out'], f['data_segs_out'], f['segs_in'],
             f['data_segs_in']) = self.u('4I', off + 192)
            f.update(zip(TCP_U64, self.u('4Q', off + 208)))
            (f['rcv_nxt'], f['min_rtt_us'], f['rtt_us'], f['advmss'],
             f['wscale'], f['opts']) = self.u('IIIHBB', off + 240)
            self.emit(self.row(f))
            off += 256
            idx += 1
        return 0, 0


def main(argv):
    if len(argv) != 2:
        sys.stderr.write('usage: docdecode.py FILE\n')
        return 1
    with open(argv[1], 'rb') as fh:
        data = fh.read()
    out = sys.stdout
    try:
        dec = Decoder(gunzip(data) if data[:2] == b'\x1f\x8b' else data, out)
        dec.header()
        out.write('\t'.join(COLUMNS) + '\n')
        rc, left = dec.run3() if dec.version == 3 else dec.run2()
    except Legacy:
        sys.stderr.write('docdecode: ttprobe\'s 96-byte records: no magnet text\n')
        return 1
    except BadInput as e:
        out.flush()
        sys.stderr.write('docdecode: %s\n' % e)
        return 2
    if rc == 3:
        out.flush()
        sys.stderr.write('docdecode: the log ends inside a record (%d bytes)\n' % left)
    return rc


if __name__ == '__main__':
    sys.exit(main(sys.argv))
