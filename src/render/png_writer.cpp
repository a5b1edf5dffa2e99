#include "render/png_writer.hpp"

#include "core/deflate.hpp"

#include <zlib.h>

#include <cstring>
#include <stdexcept>
#include <vector>

namespace petricore::render {
namespace {

void put_u32(std::string& out, std::uint32_t v) {
  const char bytes[4] = {static_cast<char>(v >> 24), static_cast<char>(v >> 16), static_cast<char>(v >> 8),
                         static_cast<char>(v)};
  out.append(bytes, 4);
}

// A chunk: length, type, data, CRC of type + data.
void put_chunk(std::string& out, const char* type, const unsigned char* data, std::size_t size) {
  put_u32(out, static_cast<std::uint32_t>(size));
  out.append(type, 4);
  if (size > 0) out.append(reinterpret_cast<const char*>(data), size);
  uLong crc = crc32(0L, reinterpret_cast<const Bytef*>(type), 4);
  if (size > 0) crc = crc32(crc, data, static_cast<uInt>(size));
  put_u32(out, static_cast<std::uint32_t>(crc));
}

}  // namespace

std::string encode_png(const unsigned char* pixels, int width, int height, int stride) {
  if (width <= 0 || height <= 0)
    throw std::runtime_error("cannot write a PNG of " + std::to_string(width) + "x" + std::to_string(height) +
                             " pixels");
  const std::size_t row = static_cast<std::size_t>(width) * 3;
  // Filtered rows: a filter-type byte, then the row.
  std::vector<unsigned char> filtered((row + 1) * static_cast<std::size_t>(height));
  std::vector<unsigned char> current(row), previous(row, 0), sub(row), up(row);
  for (int y = 0; y < height; ++y) {
    const auto* src = reinterpret_cast<const std::uint32_t*>(pixels + static_cast<std::size_t>(y) * stride);
    for (int x = 0; x < width; ++x) {
      std::uint32_t p = src[x];
      current[3 * x] = static_cast<unsigned char>(p >> 16);
      current[3 * x + 1] = static_cast<unsigned char>(p >> 8);
      current[3 * x + 2] = static_cast<unsigned char>(p);
    }
    std::size_t sub_zeros = 0, up_zeros = 0;
    for (std::size_t i = 0; i < row; ++i) {
      sub[i] = static_cast<unsigned char>(current[i] - (i >= 3 ? current[i - 3] : 0));
      up[i] = static_cast<unsigned char>(current[i] - previous[i]);
      sub_zeros += sub[i] == 0;
      up_zeros += up[i] == 0;
    }
    unsigned char* out = filtered.data() + static_cast<std::size_t>(y) * (row + 1);
    const bool use_up = up_zeros > sub_zeros;
    out[0] = use_up ? 2 : 1;
    std::memcpy(out + 1, use_up ? up.data() : sub.data(), row);
    current.swap(previous);
  }

  const std::string compressed = deflate_bytes(
      std::string_view(reinterpret_cast<const char*>(filtered.data()), filtered.size()), 1, DeflateWrapper::Zlib);

  std::string png("\x89PNG\r\n\x1a\n", 8);
  unsigned char header[13];
  const auto w = static_cast<std::uint32_t>(width), h = static_cast<std::uint32_t>(height);
  const unsigned char ihdr[13] = {static_cast<unsigned char>(w >> 24),
                                  static_cast<unsigned char>(w >> 16),
                                  static_cast<unsigned char>(w >> 8),
                                  static_cast<unsigned char>(w),
                                  static_cast<unsigned char>(h >> 24),
                                  static_cast<unsigned char>(h >> 16),
                                  static_cast<unsigned char>(h >> 8),
                                  static_cast<unsigned char>(h),
                                  8,   // bits per channel
                                  2,   // colour type: RGB
                                  0,   // deflate
                                  0,   // adaptive filtering
                                  0};  // not interlaced
  std::memcpy(header, ihdr, sizeof header);
  png.reserve(png.size() + compressed.size() + 64);
  put_chunk(png, "IHDR", header, sizeof header);
  put_chunk(png, "IDAT", reinterpret_cast<const unsigned char*>(compressed.data()), compressed.size());
  put_chunk(png, "IEND", nullptr, 0);
  return png;
}

}  // namespace petricore::render
