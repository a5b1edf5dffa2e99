#!/usr/bin/python3
"""Prints what a PNG holds without any image library: width, height, the
number of distinct colours, and the fraction of pixels that are not white.

Usage: png_info.py FILE      ->  "WIDTH HEIGHT COLOURS NONWHITE_FRACTION"
Exits 1 with a reason when FILE is not a PNG it can decode (8-bit RGB/RGBA,
not interlaced: what cairo and Chromium write).
"""
import struct
import sys
import zlib


def main(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        sys.exit(f"{path}: not a PNG")
    pos, idat, header = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    width, height, depth, colour, _, _, interlace = header
    channels = {2: 3, 6: 4}.get(colour)
    if depth != 8 or channels is None or interlace:
        sys.exit(f"{path}: unsupported PNG (depth {depth}, colour type {colour}, interlace {interlace})")
    raw = zlib.decompress(idat)
    stride = width * channels
    previous = bytearray(stride)
    colours, nonwhite = set(), 0
    for y in range(height):
        kind = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            left = line[i - channels] if i >= channels else 0
            up = previous[i]
            corner = previous[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + left) & 255
            elif kind == 2:
                line[i] = (line[i] + up) & 255
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 255
            elif kind == 4:
                p = left + up - corner
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                predictor = left if pa <= pb and pa <= pc else up if pb <= pc else corner
                line[i] = (line[i] + predictor) & 255
        for x in range(0, stride, channels):
            pixel = bytes(line[x:x + 3])
            colours.add(pixel)
            if pixel != b"\xff\xff\xff":
                nonwhite += 1
        previous = line
    print(width, height, len(colours), round(nonwhite / (width * height), 4))


if __name__ == "__main__":
    main(sys.argv[1])
