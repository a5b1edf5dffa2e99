#include "collect/exposition.hpp"

#include <prometheus/text_serializer.h>

#include <charconv>
#include <cmath>
#include <cstdint>

namespace petricore::collect {

namespace {

// Written directly into one string: prometheus-cpp's TextSerializer goes
// through an ostream, and was a tenth of a collection pass's CPU.

// Label values are short: one loop. HELP texts are long: one memchr per
// special character (a loop testing each character against all three was
// the largest user-space cost of a pass).
bool needs_escape(std::string_view text, bool quote_too) {
  if (text.size() < 32) {
    for (char c : text)
      if (c == '\\' || c == '\n' || (quote_too && c == '"')) return true;
    return false;
  }
  return text.find('\\') != std::string_view::npos || text.find('\n') != std::string_view::npos ||
         (quote_too && text.find('"') != std::string_view::npos);
}

}  // namespace

void append_escaped(std::string& out, std::string_view text, bool quote_too) {
  if (!needs_escape(text, quote_too)) {  // the usual case, appended at once
    out += text;
    return;
  }
  for (char c : text) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '"' && quote_too) {
      out += "\\\"";
    } else {
      out += c;
    }
  }
}

void append_value(std::string& out, double value) {
  if (std::isnan(value)) {
    out += "Nan";
  } else if (std::isinf(value)) {
    out += value < 0 ? "-Inf" : "+Inf";
  } else if (value == std::trunc(value) && std::fabs(value) < 1e15 && !(value == 0 && std::signbit(value))) {
    // Most samples are whole numbers (counts, bytes, MiB of round sizes):
    // below 1e15 %.16g writes one as its digits, which integer formatting
    // does at a tenth of the cost.
    char digits[24];
    auto end = std::to_chars(digits, digits + sizeof digits, static_cast<std::int64_t>(value)).ptr;
    out.append(digits, end);
  } else {
    char digits[32];
    auto end = std::to_chars(digits, digits + sizeof digits, value, std::chars_format::general, 16).ptr;
    out.append(digits, end);
  }
}

namespace {

void append_sample(std::string& out, const prometheus::MetricFamily& family, const prometheus::ClientMetric& metric,
                   double value) {
  out += family.name;
  if (!metric.label.empty()) {
    out += '{';
    const char* separator = "";
    for (const auto& label : metric.label) {
      out += separator;
      out += label.name;
      out += "=\"";
      append_escaped(out, label.value, true);
      out += '"';
      separator = ",";
    }
    out += '}';
  }
  out += ' ';
  append_value(out, value);
  if (metric.timestamp_ms != 0) {
    char digits[24];
    auto end = std::to_chars(digits, digits + sizeof digits, metric.timestamp_ms).ptr;
    out += ' ';
    out.append(digits, end);
  }
  out += '\n';
}

const char* type_name(prometheus::MetricType type) {
  switch (type) {
    case prometheus::MetricType::Counter:
      return "counter";
    case prometheus::MetricType::Gauge:
      return "gauge";
    case prometheus::MetricType::Untyped:
      return "untyped";
    default:
      return nullptr;
  }
}

}  // namespace

std::string serialize_text(const Snapshot& snapshot) {
  std::string out;
  std::size_t samples = 0;
  for (const auto& family : snapshot) samples += family.metric.size();
  out.reserve(samples * 96 + snapshot.size() * 128);
  for (const auto& family : snapshot) {
    const char* type = type_name(family.type);
    if (!type) {
      // Summaries and histograms (the collector makes none) as prometheus-cpp writes them.
      out += prometheus::TextSerializer{}.Serialize({family});
      continue;
    }
    if (!family.help.empty()) {
      out += "# HELP ";
      out += family.name;
      out += ' ';
      append_escaped(out, family.help, false);
      out += '\n';
    }
    out += "# TYPE ";
    out += family.name;
    out += ' ';
    out += type;
    out += '\n';
    for (const auto& metric : family.metric) {
      double value = family.type == prometheus::MetricType::Counter ? metric.counter.value
                     : family.type == prometheus::MetricType::Gauge ? metric.gauge.value
                                                                    : metric.untyped.value;
      append_sample(out, family, metric, value);
    }
  }
  return out;
}

}  // namespace petricore::collect
