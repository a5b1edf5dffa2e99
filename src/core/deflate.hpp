// DEFLATE compression of a whole buffer with zlib (already linked through
// prometheus-cpp): the zlib stream PNG's IDAT needs, and the gzip member
// HTTP's Content-Encoding: gzip needs; and the way back, for the zlib
// streams petricore stores (the job archive's series and job JSON). A zlib
// stream may start from a preset dictionary (RFC 1950 FDICT): text the data
// is likely to repeat, which shrinks small records several fold. The stream
// names its dictionary by Adler-32, so a reader finds it among those it knows.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace petricore {

enum class DeflateWrapper { Zlib, Gzip };

// `level` 1 (fastest) to 9 (smallest). Throws std::runtime_error when zlib
// fails (only out of memory can make it fail).
std::string deflate_bytes(std::string_view data, int level, DeflateWrapper wrapper);
// A zlib stream of `data` that starts from `dictionary` (at most its last
// 32 KiB count).
std::string deflate_with_dictionary(std::string_view data, int level, std::string_view dictionary);

// The bytes of a whole zlib stream, at most `max_size` of them (a bound
// against a stream that inflates without end); nullopt when the stream is
// malformed, truncated or larger, or asks for a dictionary not among
// `dictionaries`.
std::optional<std::string> inflate_bytes(std::string_view zlib_stream, std::size_t max_size,
                                         const std::vector<std::string_view>& dictionaries = {});

}  // namespace petricore
