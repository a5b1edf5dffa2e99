#include "model/sluid.hpp"

namespace petricore::model {
namespace {

constexpr std::size_t kSluidChars = 13;

bool ascii_alnum(char c) {
  return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}

char upper(char c) {
  return c >= 'a' && c <= 'z' ? static_cast<char>(c - 'a' + 'A') : c;
}

// Crockford's base32 alphabet: the digits and the letters without I, L, O, U.
bool crockford(char c) {
  c = upper(c);
  if (c >= '0' && c <= '9') return true;
  return c >= 'A' && c <= 'Z' && c != 'I' && c != 'L' && c != 'O' && c != 'U';
}

bool starts_with_s(std::string_view text) {
  return !text.empty() && (text.front() == 's' || text.front() == 'S');
}

}  // namespace

std::optional<std::string> parse_sluid(std::string_view text) {
  if (text.size() != 1 + kSluidChars || !starts_with_s(text)) return std::nullopt;
  std::string canonical = "s";
  for (char c : text.substr(1)) {
    if (!crockford(c)) return std::nullopt;
    canonical += upper(c);
  }
  return canonical;
}

bool sluid_like(std::string_view name) {
  if (!starts_with_s(name) || name.size() < kSluidChars || name.size() > kSluidChars + 2) return false;
  for (char c : name.substr(1))
    if (!ascii_alnum(c)) return false;
  return !parse_sluid(name);
}

}  // namespace petricore::model
