#include "core/one_line.hpp"

#include <cctype>

namespace petricore {

std::string one_line(std::string_view text, std::size_t max_size) {
  std::string out;
  const std::string_view kept = text.substr(0, max_size);
  out.reserve(kept.size() + 3);
  for (char c : kept) out += std::iscntrl(static_cast<unsigned char>(c)) ? ' ' : c;
  while (!out.empty() && out.back() == ' ') out.pop_back();
  if (text.size() > kept.size()) out += "...";
  return out;
}

}  // namespace petricore
