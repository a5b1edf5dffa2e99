// How the job renderers write numbers, durations and instants, so that the
// JSON, the mail and the terminal agree to the digit. Header-only: small and
// shared by job_json.cpp, mail_text.cpp and terminal_text.cpp.
#pragma once

#include "analysis/job_analyzer.hpp"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <optional>
#include <sstream>
#include <string>

namespace petricore::render::text {

// `value` rounded half away from zero to `decimals` places.
inline double rounded(double value, int decimals) {
  double scale = std::pow(10.0, decimals);
  return std::round(value * scale) / scale;
}

// At most `decimals` places, no trailing zeros: "42.5", "3000", "0.25".
// Non-finite values read "unknown": a sentence never shows "nan".
inline std::string number(double value, int decimals = 1) {
  if (!std::isfinite(value)) return "unknown";
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*f", decimals, value);
  std::string out = buffer;
  if (out.find('.') != std::string::npos) {
    out.erase(out.find_last_not_of('0') + 1);
    if (out.back() == '.') out.pop_back();
  }
  if (out == "-0") out = "0";
  return out;
}

inline std::string number(const std::optional<double>& value, int decimals = 1) {
  return value ? number(*value, decimals) : "unknown";
}

// "12.5 MB", or "unknown" without the unit.
inline std::string amount(const std::optional<double>& value, const char* unit, int decimals = 1) {
  if (!value || !std::isfinite(*value)) return "unknown";
  return number(*value, decimals) + " " + unit;
}

// Whether Prometheus had the metric for the job: a zero read_mb without it
// means "not measured", not "nothing read".
inline bool has_metric(const analysis::JobUsage& usage, const char* name) {
  return usage.series.count(name) != 0;
}

// A counter aggregate where its metric exists; absent otherwise.
inline std::optional<double> measured(const analysis::JobUsage& usage, const char* name, double value) {
  return has_metric(usage, name) ? std::optional<double>(value) : std::nullopt;
}

// HH:MM:SS with as many hours as it takes ("50:00:00" past two days), the
// form of the JSON's runtime and of Slurm's --time.
inline std::string duration(std::int64_t seconds) {
  if (seconds < 0) seconds = 0;
  char buffer[48];
  std::snprintf(buffer, sizeof buffer, "%02lld:%02lld:%02lld", static_cast<long long>(seconds / 3600),
                static_cast<long long>(seconds / 60 % 60), static_cast<long long>(seconds % 60));
  return buffer;
}

// ISO 8601 in UTC: "2026-11-29T18:09:15Z".
inline std::string iso8601_utc(std::int64_t epoch_seconds) {
  std::time_t time = static_cast<std::time_t>(epoch_seconds);
  std::tm utc{};
  gmtime_r(&time, &utc);
  char buffer[32];
  std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return buffer;
}

// `text` broken at spaces into lines of at most `width` columns (a longer
// word gets a line of its own, a "%" stays with its number), each ending in '\n': the first line starts
// with `first`, the others with `rest`. Width counts bytes, which only makes
// lines with "×" a column short.
inline std::string wrapped(const std::string& text, std::size_t width, const std::string& first,
                           const std::string& rest) {
  std::istringstream words(text);
  std::string out, word, line = first;
  bool line_empty = true;
  while (words >> word) {
    // "19.4 %" stays on one line: a unit never starts one.
    bool glued = word[0] == '%';
    if (!line_empty && !glued && line.size() + 1 + word.size() > width) {
      out += line + '\n';
      line = rest;
      line_empty = true;
    }
    if (!line_empty) line += ' ';
    line += word;
    line_empty = false;
  }
  return out + line + '\n';
}

// Whole-job CPU use per allocated core, in %; absent without data.
inline std::optional<double> cpu_efficiency_percent(const analysis::JobUsage& usage) {
  if (!usage.cpu_avg_percent || usage.job.alloc_cpus <= 0) return std::nullopt;
  return *usage.cpu_avg_percent / usage.job.alloc_cpus;
}

// Peak memory over the allocation, a fraction; absent without both.
inline std::optional<double> memory_fraction(const analysis::JobUsage& usage) {
  if (!usage.memory_peak_mb || !usage.job.alloc_mem_mb || !(*usage.job.alloc_mem_mb > 0)) return std::nullopt;
  return *usage.memory_peak_mb / *usage.job.alloc_mem_mb;
}

// Runtime over the time limit, a fraction; absent without both.
inline std::optional<double> time_fraction(const analysis::JobUsage& usage) {
  if (!usage.runtime_seconds || !usage.job.time_limit_seconds || *usage.job.time_limit_seconds <= 0)
    return std::nullopt;
  return static_cast<double>(*usage.runtime_seconds) / static_cast<double>(*usage.job.time_limit_seconds);
}

}  // namespace petricore::render::text
