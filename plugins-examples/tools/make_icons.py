#!/usr/bin/env python3
"""Draws the icon.png of the example plugins that ship as a .zip.

Python 3 standard library only (zlib + struct): each icon is a 256 x 256
RGBA PNG, a coloured rounded tile with a simple white shape on a transparent
background. Shapes are drawn with signed distance functions and 4 x 4
supersampling, so edges are smooth.

Run from anywhere:  python3 plugins-examples/tools/make_icons.py
The output is deterministic: running it again gives the same bytes.
"""

import math
import os
import struct
import zlib

SIZE = 256
SAMPLES = 4  # supersampling per axis
HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLES = os.path.dirname(HERE)


# --- shapes: each returns a signed distance (negative inside) -------------

def rounded_rect(x0, y0, x1, y1, r):
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    hx, hy = (x1 - x0) / 2 - r, (y1 - y0) / 2 - r

    def sdf(x, y):
        dx, dy = abs(x - cx) - hx, abs(y - cy) - hy
        outside = math.hypot(max(dx, 0.0), max(dy, 0.0))
        inside = min(max(dx, dy), 0.0)
        return outside + inside - r
    return sdf


def circle(cx, cy, r):
    return lambda x, y: math.hypot(x - cx, y - cy) - r


def ring(cx, cy, r, width):
    return lambda x, y: abs(math.hypot(x - cx, y - cy) - r) - width / 2


def ellipse(cx, cy, rx, ry, angle=0.0):
    c, s = math.cos(angle), math.sin(angle)

    def sdf(x, y):
        dx, dy = x - cx, y - cy
        u, v = (dx * c + dy * s) / rx, (-dx * s + dy * c) / ry
        # Approximation, good enough for a smooth edge at this size.
        return (math.hypot(u, v) - 1.0) * min(rx, ry)
    return sdf


def union(*shapes):
    return lambda x, y: min(shape(x, y) for shape in shapes)


def subtract(shape, hole):
    return lambda x, y: max(shape(x, y), -hole(x, y))


# --- rendering -----------------------------------------------------------

def render(layers):
    """layers: list of (sdf, (r, g, b)) painted in order over transparency."""
    data = bytearray()
    step = 1.0 / SAMPLES
    for py in range(SIZE):
        data.append(0)  # PNG filter type 0 (None) for this row
        for px in range(SIZE):
            r = g = b = a = 0.0
            for sdf, colour in layers:
                centre = sdf(px + 0.5, py + 0.5)
                if centre > 1.5:
                    continue  # far outside: no need to supersample
                if centre < -1.5:
                    cover = SAMPLES * SAMPLES  # far inside
                else:
                    cover = sum(1 for sy in range(SAMPLES) for sx in range(SAMPLES)
                                if sdf(px + (sx + 0.5) * step, py + (sy + 0.5) * step) <= 0)
                if cover:
                    alpha = cover / (SAMPLES * SAMPLES)
                    # "over" compositing on premultiplied values
                    r = colour[0] * alpha + r * (1 - alpha)
                    g = colour[1] * alpha + g * (1 - alpha)
                    b = colour[2] * alpha + b * (1 - alpha)
                    a = alpha + a * (1 - alpha)
            if a > 0:
                data += bytes((round(r / a), round(g / a), round(b / a), round(a * 255)))
            else:
                data += b'\0\0\0\0'
    return bytes(data)


def png(rgba):
    def chunk(kind, body):
        return (struct.pack('>I', len(body)) + kind + body
                + struct.pack('>I', zlib.crc32(kind + body) & 0xFFFFFFFF))
    header = struct.pack('>IIBBBBB', SIZE, SIZE, 8, 6, 0, 0, 0)  # 8-bit RGBA
    return (b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', header)
            + chunk(b'IDAT', zlib.compress(rgba, 9)) + chunk(b'IEND', b''))


# --- the four icons ------------------------------------------------------

WHITE = (255, 255, 255)
TILE = rounded_rect(8, 8, 248, 248, 48)


def local_server():
    """A terminal prompt '>_' on slate blue: a program on your PC."""
    chevron = union(lambda x, y: _capsule(x, y, 64, 92, 112, 128, 11),
                    lambda x, y: _capsule(x, y, 112, 128, 64, 164, 11))
    underscore = rounded_rect(128, 154, 196, 176, 6)
    return [(TILE, (52, 73, 120)), (union(chevron, underscore), WHITE)]


def pomodoro():
    """A tomato (red circle, green leaves) on a warm cream tile."""
    body = ellipse(128, 142, 80, 72)
    leaves = union(ellipse(108, 76, 26, 10, -0.35), ellipse(148, 76, 26, 10, 0.35),
                   rounded_rect(123, 52, 133, 82, 4))
    shine = ellipse(96, 118, 14, 24, 0.5)
    return [(TILE, (255, 236, 210)), (body, (222, 58, 46)),
            (leaves, (58, 150, 70)), (shine, (244, 128, 112))]


def recipe_search():
    """A magnifying glass over an orange tile."""
    lens = ring(112, 112, 52, 20)
    handle = lambda x, y: _capsule(x, y, 150, 150, 204, 204, 12)
    return [(TILE, (232, 124, 32)), (union(lens, handle), WHITE)]


def trello_perso():
    """A board with two columns of cards on blue."""
    left = rounded_rect(52, 52, 122, 204, 12)
    right = rounded_rect(134, 52, 204, 152, 12)
    return [(TILE, (0, 102, 204)), (union(left, right), WHITE)]


def _capsule(x, y, ax, ay, bx, by, r):
    pax, pay, bax, bay = x - ax, y - ay, bx - ax, by - ay
    h = max(0.0, min(1.0, (pax * bax + pay * bay) / (bax * bax + bay * bay)))
    return math.hypot(pax - bax * h, pay - bay * h) - r


ICONS = {
    'local-server': local_server,
    'pomodoro': pomodoro,
    'recipe-search': recipe_search,
    'trello-perso': trello_perso,
}


def main():
    for folder, draw in ICONS.items():
        path = os.path.join(EXAMPLES, folder, 'icon.png')
        data = png(render(draw()))
        with open(path, 'wb') as out:
            out.write(data)
        print(f'{path}: {len(data)} bytes')


if __name__ == '__main__':
    main()
