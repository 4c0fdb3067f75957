#!/usr/bin/env python3
"""Counts the pixels of a PNG screenshot that are not white, and those in strong colour (plot marks, not text).

Usage: count_ink.py FILE.png [ROWS]  ->  prints "WIDTH HEIGHT INK COLOURED BANDS_WITH_INK/BANDS"
A tiny reader for what Chromium writes: 8-bit RGB or RGBA (or grey, for compare_screenshot.py's reduced
images), not interlaced. Only the first ROWS rows are read
when given. Bands are 500-row slices of those rows."""
import struct
import sys
import zlib


def paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    if pa <= pb and pa <= pc:
        return a
    return b if pb <= pc else c


def read_rows(path, limit):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        sys.exit(f"{path}: not a PNG file")
    pos, idat, header = 8, [], None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
        pos += 12 + length
    width, height, depth, colour, _, _, interlace = header
    if depth != 8 or colour not in (0, 2, 6) or interlace:
        sys.exit(f"{path}: only 8-bit grey/RGB/RGBA, non-interlaced PNGs are read (depth {depth}, colour {colour})")
    channels = {0: 1, 2: 3, 6: 4}[colour]
    stride = width * channels
    raw = zlib.decompress(b"".join(idat))
    previous = bytearray(stride)
    rows = []
    for y in range(min(height, limit)):
        kind = raw[y * (stride + 1)]
        row = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        if kind == 1:
            for i in range(channels, stride):
                row[i] = (row[i] + row[i - channels]) & 0xFF
        elif kind == 2:
            row = bytearray((a + b) & 0xFF for a, b in zip(row, previous))
        elif kind == 3:
            for i in range(stride):
                left = row[i - channels] if i >= channels else 0
                row[i] = (row[i] + ((left + previous[i]) >> 1)) & 0xFF
        elif kind == 4:
            for i in range(stride):
                left = row[i - channels] if i >= channels else 0
                upper_left = previous[i - channels] if i >= channels else 0
                row[i] = (row[i] + paeth(left, previous[i], upper_left)) & 0xFF
        rows.append(row)
        previous = row
    return width, height, channels, rows


def main():
    limit = int(sys.argv[2]) if len(sys.argv) > 2 else 1 << 30
    width, height, channels, rows = read_rows(sys.argv[1], limit)
    ink = coloured = 0
    bands = {}
    for y, row in enumerate(rows):
        for x in range(0, width * channels, channels):
            r, g, b = row[x], row[x + 1], row[x + 2]
            if r < 245 or g < 245 or b < 245:
                ink += 1
                bands[y // 500] = True
                if max(r, g, b) - min(r, g, b) > 60:
                    coloured += 1
    print(width, height, ink, coloured, f"{len(bands)}/{(len(rows) + 499) // 500}")


if __name__ == "__main__":
    main()
