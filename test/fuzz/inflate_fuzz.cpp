// inflate_bytes (core/deflate.hpp) on any bytes, as the archive's series
// column may hold them: the result stays within its bound, and what it gives
// deflates and inflates back to itself.
#include "core/deflate.hpp"
#include "fuzz_check.hpp"

using namespace petricore;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  constexpr std::size_t kBound = 1 << 20;
  auto bytes = inflate_bytes(fuzz::as_text(data, size), kBound);
  if (!bytes) return 0;
  FUZZ_CHECK(bytes->size() <= kBound);
  FUZZ_CHECK(inflate_bytes(deflate_bytes(*bytes, 1, DeflateWrapper::Zlib), kBound) == bytes);
  // The input itself, compressed: always comes back.
  FUZZ_CHECK(inflate_bytes(deflate_bytes(fuzz::as_text(data, size), 6, DeflateWrapper::Zlib), size) ==
             std::string(fuzz::as_text(data, size)));
  return 0;
}
