#include "core/deflate.hpp"

#include <zlib.h>

#include <stdexcept>

namespace petricore {

namespace {

std::string deflate_stream(std::string_view data, int level, int window_bits, std::string_view dictionary) {
  z_stream z{};
  if (deflateInit2(&z, level, Z_DEFLATED, window_bits, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    throw std::runtime_error("zlib: cannot start deflate");
  if (!dictionary.empty() && deflateSetDictionary(&z, reinterpret_cast<const Bytef*>(dictionary.data()),
                                                  static_cast<uInt>(dictionary.size())) != Z_OK) {
    deflateEnd(&z);
    throw std::runtime_error("zlib: cannot set the dictionary");
  }
  std::string out(deflateBound(&z, static_cast<uLong>(data.size())), '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  z.avail_in = static_cast<uInt>(data.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  // deflateBound leaves room for the whole stream: one call finishes it.
  const int rc = deflate(&z, Z_FINISH);
  out.resize(out.size() - z.avail_out);
  deflateEnd(&z);
  if (rc != Z_STREAM_END) throw std::runtime_error("zlib: cannot compress");
  return out;
}

}  // namespace

std::string deflate_bytes(std::string_view data, int level, DeflateWrapper wrapper) {
  // windowBits 15 + 16 asks zlib for a gzip header and trailer.
  return deflate_stream(data, level, wrapper == DeflateWrapper::Gzip ? 15 + 16 : 15, {});
}

std::string deflate_with_dictionary(std::string_view data, int level, std::string_view dictionary) {
  return deflate_stream(data, level, 15, dictionary);
}

std::optional<std::string> inflate_bytes(std::string_view zlib_stream, std::size_t max_size,
                                         const std::vector<std::string_view>& dictionaries) {
  z_stream z{};
  if (inflateInit(&z) != Z_OK) return std::nullopt;
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(zlib_stream.data()));
  z.avail_in = static_cast<uInt>(zlib_stream.size());
  std::string out;
  char chunk[16384];
  int rc = Z_OK;
  while (rc == Z_OK) {
    z.next_out = reinterpret_cast<Bytef*>(chunk);
    z.avail_out = sizeof chunk;
    rc = inflate(&z, Z_NO_FLUSH);
    if (rc == Z_NEED_DICT) {
      // z.adler holds the Adler-32 the stream asks for.
      rc = Z_DATA_ERROR;
      for (std::string_view d : dictionaries) {
        const auto* bytes = reinterpret_cast<const Bytef*>(d.data());
        if (adler32(adler32(0, nullptr, 0), bytes, static_cast<uInt>(d.size())) != z.adler) continue;
        rc = inflateSetDictionary(&z, bytes, static_cast<uInt>(d.size()));
        break;
      }
      if (rc != Z_OK) break;
      continue;
    }
    if (rc != Z_OK && rc != Z_STREAM_END) break;
    out.append(chunk, sizeof chunk - z.avail_out);
    if (out.size() > max_size) rc = Z_BUF_ERROR;
    // No progress and no end: the input stopped short.
    if (rc == Z_OK && z.avail_in == 0 && z.avail_out != 0) rc = Z_DATA_ERROR;
  }
  inflateEnd(&z);
  if (rc != Z_STREAM_END) return std::nullopt;
  return out;
}

}  // namespace petricore
