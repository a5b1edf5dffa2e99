#include "core/number_text.hpp"

#include <charconv>

#include <cstdio>

namespace petricore {

std::string number_text(double value, int decimals) {
  // "%.2f" of 1e64 is 68 characters and of DBL_MAX 312: a fixed buffer would
  // cut the digits short and the number would read 100 or more times too
  // small, so the text is sized by a first, counting call.
  int length = std::snprintf(nullptr, 0, "%.*f", decimals, value);
  if (length <= 0) return "0";
  std::string text(static_cast<std::size_t>(length) + 1, '\0');
  std::snprintf(text.data(), text.size(), "%.*f", decimals, value);
  text.resize(static_cast<std::size_t>(length));
  if (text.find('.') != std::string::npos) {
    text.erase(text.find_last_not_of('0') + 1);
    if (text.back() == '.') text.pop_back();
  }
  if (text == "-0") text = "0";
  return text;
}

std::optional<std::int64_t> parse_whole_number(std::string_view text) {
  std::int64_t value = 0;
  auto [stop, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc{} || stop != text.data() + text.size()) return std::nullopt;
  return value;
}

}  // namespace petricore
