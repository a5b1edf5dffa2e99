// DEFLATE compression of a whole buffer with zlib (already linked through
// prometheus-cpp): the zlib stream PNG's IDAT needs, and the gzip member
// HTTP's Content-Encoding: gzip needs.
#pragma once

#include <string>
#include <string_view>

namespace petricore {

enum class DeflateWrapper { Zlib, Gzip };

// `level` 1 (fastest) to 9 (smallest). Throws std::runtime_error when zlib
// fails (only out of memory can make it fail).
std::string deflate_bytes(std::string_view data, int level, DeflateWrapper wrapper);

}  // namespace petricore
