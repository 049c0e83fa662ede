#!/usr/bin/env python3
"""Draws the app icons Tauri needs into src-tauri/icons/, with the standard
library only (no image library, nothing downloaded).

The icon is a dark rounded square holding an accent-coloured ring with a dot:
a companion with a plugged-in ability. Run it again after changing the
drawing; the generated files are committed.

    python3 scripts/make-icons.py
"""

import math
import os
import struct
import zlib

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src-tauri", "icons")

BACKGROUND = (24, 26, 33)
ACCENT = (122, 162, 247)
DOT = (158, 206, 106)


def coverage(distance):
    """Anti-aliasing: 1 well inside a shape (distance < 0), 0 well outside."""
    return max(0.0, min(1.0, 0.5 - distance))


def pixel(x, y, size):
    """RGBA of one pixel, drawn in a unit square scaled to `size`."""
    s = float(size)
    px, py = (x + 0.5) / s, (y + 0.5) / s
    # Rounded square, corner radius 0.2, signed distance in pixels.
    r = 0.2
    qx, qy = abs(px - 0.5) - (0.5 - r), abs(py - 0.5) - (0.5 - r)
    outside = math.hypot(max(qx, 0.0), max(qy, 0.0)) + min(max(qx, qy), 0.0) - r
    alpha = coverage(outside * s)
    if alpha == 0.0:
        return (0, 0, 0, 0)
    color = BACKGROUND
    # Ring.
    d = math.hypot(px - 0.5, py - 0.5)
    ring = coverage((abs(d - 0.27) - 0.07) * s)
    color = tuple(round(c * (1 - ring) + a * ring) for c, a in zip(color, ACCENT))
    # Dot at the ring's lower right, the "plugged-in" ability.
    dd = math.hypot(px - 0.70, py - 0.70)
    dot = coverage((dd - 0.11) * s)
    color = tuple(round(c * (1 - dot) + a * dot) for c, a in zip(color, DOT))
    return color + (round(255 * alpha),)


def png(size):
    """A size×size RGBA PNG (colour type 6, as Tauri requires)."""
    rows = bytearray()
    for y in range(size):
        rows.append(0)  # filter: none
        for x in range(size):
            rows.extend(pixel(x, y, size))

    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", size, size, 8, 6, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header)
            + chunk(b"IDAT", zlib.compress(bytes(rows), 9)) + chunk(b"IEND", b""))


def ico(images):
    """An .ico holding PNG-compressed images (allowed since Windows Vista)."""
    out = struct.pack("<HHH", 0, 1, len(images))
    offset = 6 + 16 * len(images)
    data = b""
    for size, blob in images:
        dim = 0 if size >= 256 else size
        out += struct.pack("<BBBBHHII", dim, dim, 0, 0, 1, 32, len(blob), offset + len(data))
        data += blob
    return out + data


def main():
    os.makedirs(OUT, exist_ok=True)
    files = {"32x32.png": 32, "128x128.png": 128, "128x128@2x.png": 256, "icon.png": 512}
    cache = {}
    for name, size in files.items():
        cache.setdefault(size, png(size))
        with open(os.path.join(OUT, name), "wb") as f:
            f.write(cache[size])
    for size in (16, 48):
        cache.setdefault(size, png(size))
    with open(os.path.join(OUT, "icon.ico"), "wb") as f:
        f.write(ico([(s, cache[s]) for s in (16, 32, 48, 256)]))
    print("icons written to", os.path.normpath(OUT))


if __name__ == "__main__":
    main()
