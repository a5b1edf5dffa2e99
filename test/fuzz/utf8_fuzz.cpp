// UTF-8 clean-up of outside text (core/utf8.hpp): valid_utf8 gives valid
// UTF-8, leaves valid text alone and is idempotent; printable_utf8 leaves no
// C0 control or DEL.
#include "core/utf8.hpp"
#include "fuzz_check.hpp"

using namespace petricore;

namespace {

bool is_valid(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    std::size_t n = utf8_sequence(s, i);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = fuzz::as_text(data, size);
  const std::string valid = valid_utf8(text);
  FUZZ_CHECK(is_valid(valid));
  FUZZ_CHECK(valid_utf8(valid) == valid);
  if (is_valid(text)) FUZZ_CHECK(valid == text);
  const std::string printable = printable_utf8(text);
  FUZZ_CHECK(is_valid(printable));
  for (char c : printable) FUZZ_CHECK(static_cast<unsigned char>(c) >= 0x20 && c != 0x7f);
  return 0;
}
