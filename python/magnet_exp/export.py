"""A run's packets and events for Wireshark (--pcapng): `ttpb2ascii -f
pcapng --split DIR --events LOG`, one pcapng file per host (network
namespace) and device, and one of each host's events that are no packet
on the wire (nsN-events.pcapng: retransmissions, RTOs, state changes,
qdisc events, drops), every packet's TCP state in the comment the plugin
wireshark/magnet.lua makes typed magnet.* fields of (docs/wireshark.md).
DIR/files.txt names each file's host as the run's topology names it."""
import os
import shutil
import subprocess

from magnet_exp import textlog

DIRNAME = "pcapng"
LISTING = "files.txt"


def write(log, outdir, ttpb2ascii=None, host_name=None):
    """export @log into @outdir/pcapng/ (emptied first); @host_name(netns)
    the host's name; (the directory, [(file, packets, what)]), or raise
    OSError with ttpb2ascii's reason (a text log, a cut one)"""
    tool = textlog.find_ttpb2ascii(ttpb2ascii)
    d = os.path.join(outdir, DIRNAME)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    p = subprocess.run([tool, "-f", "pcapng", "--split", d, "--events", log],
                       capture_output=True, text=True)
    if p.returncode:
        shutil.rmtree(d, ignore_errors=True)
        raise OSError("%s: no pcapng export: %s" % (
            log, (p.stderr.strip().splitlines() or ["ttpb2ascii exited %d"
                                                    % p.returncode])[-1]))
    files = []
    for line in p.stdout.splitlines():
        # path, "N packets", "netns N ifindex M" or "netns N events"
        path, count, what = line.split("\t")
        w = what.split(" ")
        host = host_name(w[1]) if host_name else "netns " + w[1]
        what = "%s, %s" % (host, "its events" if w[2] == "events" else
                           "device %s" % w[3])
        files.append((os.path.basename(path), int(count.split(" ")[0]),
                      what))
    files.sort()
    with open(os.path.join(d, LISTING), "w") as f:
        f.write("# ttpb2ascii -f pcapng --split --events: file, packets "
                "(records), whose\n")
        for x in files:
            f.write("%s\t%d\t%s\n" % x)
    return d, files
