#include "render/json_writer.hpp"

#include "core/utf8.hpp"
#include "render/text_format.hpp"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>

namespace petricore::render {
namespace {

namespace json = boost::json;

// Boost.JSON's strings as std::string_view, spelled out: before Boost 1.81
// its string_view was Boost.Utility's, which does not convert.
template <typename Text>
std::string_view text_of(const Text& text) {
  return {text.data(), text.size()};
}

void write_string(std::string& out, std::string_view s) {
  static const char* hex = "0123456789abcdef";
  out += '"';
  for (std::size_t i = 0; i < s.size();) {
    auto c = static_cast<unsigned char>(s[i]);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
      ++i;
    } else if (c < 0x20 || c == 0x7F) {
      out += "\\u00";
      out += hex[c >> 4];
      out += hex[c & 0xF];
      ++i;
    } else if (c < 0x80) {
      out += static_cast<char>(c);
      ++i;
    } else if (std::size_t n = utf8_sequence(s, i); n > 0) {
      out.append(s.substr(i, n));
      i += n;
    } else {
      out += "\\ufffd";
      ++i;
    }
  }
  out += '"';
}

class Writer {
 public:
  Writer(std::string& out, JsonLayout layout) : out_(out), layout_(layout) {}

  void write(const json::value& value, int depth) {
    switch (value.kind()) {
      case json::kind::null:
        out_ += "null";
        break;
      case json::kind::bool_:
        out_ += value.get_bool() ? "true" : "false";
        break;
      case json::kind::int64:
        out_ += std::to_string(value.get_int64());
        break;
      case json::kind::uint64:
        out_ += std::to_string(value.get_uint64());
        break;
      case json::kind::double_:
        write_double(value.get_double());
        break;
      case json::kind::string:
        write_string(out_, text_of(value.get_string()));
        break;
      case json::kind::array: {
        const json::array& array = value.get_array();
        bool broken = breaks(value, depth);
        out_ += '[';
        for (std::size_t i = 0; i < array.size(); ++i) {
          separate(i == 0, broken, depth + 1);
          write(array[i], depth + 1);
        }
        close(!array.empty() && broken, depth, ']');
        break;
      }
      case json::kind::object: {
        const json::object& object = value.get_object();
        bool broken = breaks(value, depth);
        out_ += '{';
        bool first = true;
        for (const auto& member : object) {
          separate(first, broken, depth + 1);
          first = false;
          write_string(out_, text_of(member.key()));
          out_ += layout_ == JsonLayout::Compact ? ":" : ": ";
          write(member.value(), depth + 1);
        }
        close(!object.empty() && broken, depth, '}');
        break;
      }
    }
  }

 private:
  // Whether a container's members go on lines of their own.
  bool breaks(const json::value& value, int depth) const {
    switch (layout_) {
      case JsonLayout::Pretty:
        return true;
      case JsonLayout::Compact:
        return false;
      case JsonLayout::Records:
        if (depth == 0) return true;
        return value.is_array() && !value.get_array().empty() && value.get_array().front().is_object();
    }
    return true;
  }

  void separate(bool first, bool broken, int level) {
    if (!first) out_ += ',';
    if (broken) {
      newline(level);
    } else if (!first && layout_ != JsonLayout::Compact) {
      out_ += ' ';
    }
  }

  void close(bool broken, int level, char bracket) {
    if (broken) newline(level);
    out_ += bracket;
  }

  void newline(int level) {
    out_ += '\n';
    out_.append(static_cast<std::size_t>(2 * level), ' ');
  }

  void write_double(double d) {
    if (!std::isfinite(d)) {
      out_ += "null";
      return;
    }
    // Already rounded: the shortest form that reads back the same double.
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.*g", std::numeric_limits<double>::max_digits10 - 2, d);
    out_ += buffer;
  }

  std::string& out_;
  JsonLayout layout_;
};

}  // namespace

std::string json_text(const boost::json::value& value, JsonLayout layout) {
  std::string out;
  Writer(out, layout).write(value, 0);
  return out;
}

boost::json::value json_number(const std::optional<double>& value, int decimals) {
  if (!value || !std::isfinite(*value)) return nullptr;
  double r = text::rounded(*value, decimals);
  if (r == 0) return 0;  // no "-0"
  if (std::trunc(r) == r && std::fabs(r) < 9.0e15) return static_cast<std::int64_t>(r);
  return r;
}

}  // namespace petricore::render
