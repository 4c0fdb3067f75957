#!/usr/bin/env python3
"""Compares a screenshot of the report with the golden one, tolerant of font anti-aliasing.

Usage: compare_screenshot.py SHOT.png GOLDEN.png [--update]
Both are reduced to grey averages of 4x4-pixel blocks (the golden file is stored reduced, so it stays small).
They match when they have one size and at most 0.5% of the blocks differ by more than 40 grey levels: glyphs
drawn a little differently move a block's average by a few levels; a label moved by a few pixels, a line
drawn elsewhere or text that now overlaps changes whole rows of blocks. --update writes SHOT's reduction as
GOLDEN instead. The reduced shot is also written beside SHOT (SHOT.reduced.png) for a look."""
import os
import struct
import sys
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from count_ink import read_rows  # noqa: E402

BLOCK = 4
LEVELS = 40
SHARE = 0.005


def reduced(path):
    """(width, height, grey bytes) of the image in BLOCK x BLOCK averages; a grey image is taken as it is."""
    width, height, channels, rows = read_rows(path, 1 << 30)
    if channels == 1:
        return width, height, b"".join(bytes(row) for row in rows)
    w, h = width // BLOCK, height // BLOCK
    out = bytearray(w * h)
    for by in range(h):
        sums = [0] * w
        for row in rows[by * BLOCK:(by + 1) * BLOCK]:
            grey = [(299 * row[i] + 587 * row[i + 1] + 114 * row[i + 2]) // 1000
                    for i in range(0, width * channels, channels)]
            for bx in range(w):
                sums[bx] += sum(grey[bx * BLOCK:(bx + 1) * BLOCK])
        for bx in range(w):
            out[by * w + bx] = sums[bx] // (BLOCK * BLOCK)
    return w, h, bytes(out)


def write_grey(path, width, height, pixels):
    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)
    raw = b"".join(b"\x00" + pixels[y * width:(y + 1) * width] for y in range(height))
    with open(path, "wb") as out:
        out.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)) +
                  chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    shot, golden = sys.argv[1], sys.argv[2]
    width, height, pixels = reduced(shot)
    write_grey(shot + ".reduced.png", width, height, pixels)
    if "--update" in sys.argv[3:]:
        write_grey(golden, width, height, pixels)
        print(f"wrote {golden} ({width}x{height}, from {shot})")
        return 0
    if not os.path.exists(golden):
        print(f"no golden file {golden}: write it with --update (EVOTUNE_UPDATE_GOLDEN=1 for the test)")
        return 1
    g_width, g_height, g_pixels = reduced(golden)
    if (g_width, g_height) != (width, height):
        print(f"the reduced screenshot is {width}x{height}, the golden one {g_width}x{g_height}")
        return 1
    differing = [i for i in range(len(pixels)) if abs(pixels[i] - g_pixels[i]) > LEVELS]
    share = len(differing) / len(pixels)
    print(f"{len(differing)} of {len(pixels)} blocks of {BLOCK}x{BLOCK} pixels differ by more than {LEVELS} grey "
          f"levels ({100 * share:.3f}%, at most {100 * SHARE:.1f}% allowed)")
    if share <= SHARE:
        return 0
    rows = sorted({i // width for i in differing})
    print(f"differing rows of the page: {rows[0] * BLOCK} to {rows[-1] * BLOCK + BLOCK - 1} "
          f"(first block at x = {differing[0] % width * BLOCK}); the reduced shot is {shot}.reduced.png "
          "(the test's EVOTUNE_KEEP_SCREENSHOT=FILE keeps the full screenshot)")
    return 1


if __name__ == "__main__":
    sys.exit(main())
