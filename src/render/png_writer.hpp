// PNG files from cairo RGB24 image data, written with zlib directly.
//
// cairo's own writer (libpng: zlib level 6, every filter tried on every row)
// took more time than drawing a 900 x 450 chart. Charts are mostly flat
// colour: the Sub or Up filter, chosen per row by the number of zero bytes
// it leaves, and zlib level 1 give files as small (96 KB against libpng's
// 100 KB for the benchmark's noisy 4 x 1,000-point chart) in about a third
// of the time (test/bench/render_bench prints both).
#pragma once

#include <cstdint>
#include <string>

namespace petricore::render {

// `pixels`: `height` rows of `stride` bytes, each pixel a native-endian
// uint32 0x00RRGGBB (CAIRO_FORMAT_RGB24). Returns the PNG file (8-bit RGB).
// Throws std::runtime_error when zlib fails.
std::string encode_png(const unsigned char* pixels, int width, int height, int stride);

}  // namespace petricore::render
