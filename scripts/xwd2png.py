#!/usr/bin/env python3
"""An X window dump (xwd's file, of a 24- or 32-bit TrueColor or
DirectColor screen) as a
PNG, with Python's standard library only (scripts/wireshark-screenshot.sh).

usage: xwd2png.py IN.xwd OUT.png
prints the number of colours in a sample of the pixels (every tenth row,
every tenth pixel: a blank screen has one or two); exit 0, or 2 with the
reason on a file that is no such dump"""
import struct
import sys
import zlib


def read_xwd(data):
    """(width, height, rows of RGB bytes) of the dump @data"""
    if len(data) < 100:
        raise ValueError("shorter than an xwd header")
    for order in (">", "<"):
        h = struct.unpack(order + "25I", data[:100])
        if h[1] == 7:
            break
    else:
        raise ValueError("not an xwd file (no version 7 header)")
    (size, _, fmt, depth, width, height, _, byte_order, _, _, _, bpp, bpl,
     visual, rmask, gmask, bmask) = h[:17]
    ncolors = h[19]
    # TrueColor (4), or DirectColor (5: Xvfb's root, whose colour map is
    # the identity)
    # bytes per pixel by the line's length (xwd may give the depth as
    # bits_per_pixel for 32-bit pixels)
    step = bpl // width if width else 0
    if fmt != 2 or bpp not in (24, 32) or step not in (3, 4) or \
            visual not in (4, 5):
        raise ValueError("a %d-bit format %d visual %d dump: only 24- or "
                         "32-bit TrueColor or DirectColor ZPixmap is read"
                         % (bpp, fmt, visual))
    # each colour's byte within the 32-bit pixel, in the file's order
    shift = {0xff0000: 2, 0xff00: 1, 0xff: 0}
    try:
        idx = [shift[m] for m in (rmask, gmask, bmask)]
    except KeyError:
        raise ValueError("colour masks %x %x %x not 8 bits each" % (
            rmask, gmask, bmask)) from None
    if byte_order == 1:         # MSBFirst: the pixel's high byte first
        idx = [step - 1 - i for i in idx]
    start = size + ncolors * 12
    if len(data) < start + height * bpl:
        raise ValueError("cut: %d bytes of %d" % (len(data),
                                                  start + height * bpl))
    rows = []
    for y in range(height):
        row = data[start + y * bpl:start + y * bpl + width * step]
        rgb = bytearray(width * 3)
        for c, i in enumerate(idx):
            rgb[c::3] = row[i::step]
        rows.append(bytes(rgb))
    return width, height, rows


def png(width, height, rows):
    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + \
            struct.pack(">I", zlib.crc32(kind + body) & 0xffffffff)
    raw = b"".join(b"\0" + r for r in rows)
    return b"\x89PNG\r\n\x1a\n" + \
        chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0,
                                   0)) + \
        chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b"")


def main(argv):
    if len(argv) != 3:
        print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
        return 2
    try:
        with open(argv[1], "rb") as f:
            w, h, rows = read_xwd(f.read())
        with open(argv[2], "wb") as f:
            f.write(png(w, h, rows))
        print(len({r[i:i + 3] for r in rows[::10]
                   for i in range(0, len(r), 30)}))
    except (OSError, ValueError) as e:
        print("xwd2png: %s: %s" % (argv[1], e), file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
