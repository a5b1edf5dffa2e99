// DEFLATE compression of a whole buffer with zlib (already linked through
// prometheus-cpp): the zlib stream PNG's IDAT needs, and the gzip member
// HTTP's Content-Encoding: gzip needs; and the way back, for the zlib
// streams petricore stores (the job archive's series).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace petricore {

enum class DeflateWrapper { Zlib, Gzip };

// `level` 1 (fastest) to 9 (smallest). Throws std::runtime_error when zlib
// fails (only out of memory can make it fail).
std::string deflate_bytes(std::string_view data, int level, DeflateWrapper wrapper);

// The bytes of a whole zlib stream, at most `max_size` of them (a bound
// against a stream that inflates without end); nullopt when the stream is
// malformed, truncated or larger.
std::optional<std::string> inflate_bytes(std::string_view zlib_stream, std::size_t max_size);

}  // namespace petricore
