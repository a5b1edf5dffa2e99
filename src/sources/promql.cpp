#include "sources/promql.hpp"

namespace petricore::sources {

std::string promql_string(std::string_view value) {
  static constexpr char hex[] = "0123456789abcdef";
  std::string out;
  out.reserve(value.size() + 2);
  out += '"';
  for (unsigned char c : value) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (c < 0x20 || c == 0x7f) {
          out += "\\x";
          out += hex[c >> 4];
          out += hex[c & 0xF];
        } else {
          out += static_cast<char>(c);  // UTF-8 passes through
        }
    }
  }
  out += '"';
  return out;
}

}  // namespace petricore::sources
