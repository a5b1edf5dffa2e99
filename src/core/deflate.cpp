#include "core/deflate.hpp"

#include <zlib.h>

#include <stdexcept>

namespace petricore {

std::string deflate_bytes(std::string_view data, int level, DeflateWrapper wrapper) {
  // windowBits 15 + 16 asks zlib for a gzip header and trailer.
  const int window_bits = wrapper == DeflateWrapper::Gzip ? 15 + 16 : 15;
  z_stream z{};
  if (deflateInit2(&z, level, Z_DEFLATED, window_bits, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    throw std::runtime_error("zlib: cannot start deflate");
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

}  // namespace petricore
