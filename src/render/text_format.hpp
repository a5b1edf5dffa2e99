// How the renderers write numbers, durations and instants, so that the
// JSON, the mail and the terminal agree to the digit, and the terminal's
// colours and bars. Header-only: small and shared by the job's and the
// fleet's faces.
#pragma once

#include "core/number_text.hpp"
#include "model/job_report.hpp"

#include <algorithm>
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

// At most `decimals` places, no trailing zeros: "42.5", "3000", "0.25"
// (core/number_text.hpp). Non-finite values read "unknown": a sentence never
// shows "nan".
inline std::string number(double value, int decimals = 1) {
  return std::isfinite(value) ? number_text(value, decimals) : "unknown";
}

inline std::string number(const std::optional<double>& value, int decimals = 1) {
  return value ? number(*value, decimals) : "unknown";
}

// "42.5 %", or "unknown".
inline std::string percent(const std::optional<double>& value) {
  return value ? number(*value) + " %" : "unknown";
}

// "12.5 MB", or "unknown" without the unit.
inline std::string amount(const std::optional<double>& value, const char* unit, int decimals = 1) {
  if (!value || !std::isfinite(*value)) return "unknown";
  return number(*value, decimals) + " " + unit;
}

// Whether Prometheus had the metric for the job: a zero read_mb without it
// means "not measured", not "nothing read".
inline bool has_metric(const model::JobUsage& usage, const char* name) {
  return usage.series.count(name) != 0;
}

// A counter aggregate where its metric exists; absent otherwise.
inline std::optional<double> measured(const model::JobUsage& usage, const char* name, double value) {
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

// What every face appends to a figure Slurm's accounting record stood in for.
inline const char* source_note(model::FigureSource source) {
  return source == model::FigureSource::Accounting ? " (from Slurm accounting)" : "";
}

// The cgroup's peak with the page cache, where it says more than the
// resident peak (at least 1 MB above it): the cache is reclaimable, so the
// faces show it beside the resident figure, never as the job's use.
inline std::optional<double> peak_with_cache(const model::JobUsage& usage) {
  if (!usage.memory_peak_mb || !std::isfinite(*usage.memory_peak_mb)) return std::nullopt;
  if (usage.memory_resident_mb && !(*usage.memory_peak_mb - *usage.memory_resident_mb >= 1)) return std::nullopt;
  return usage.memory_peak_mb;
}

// "1500 MB resident at peak of 8000 MB allocated (18.8 %)", and where it came
// from when that was Slurm's accounting: the mail, the page and the PDF.
inline std::string resident_memory(const model::JobUsage& usage) {
  std::string out = usage.memory_resident_mb ? amount(usage.memory_resident_mb, "MB") + " resident at peak"
                                             : std::string("resident unknown");
  if (usage.job.alloc_mem_mb) out += " of " + number(*usage.job.alloc_mem_mb) + " MB allocated";
  if (const auto& fraction = usage.memory_fraction) out += " (" + number(100 * *fraction) + " %)";
  if (usage.memory_resident_mb) out += source_note(usage.memory_resident_source);
  return out;
}

// "; with page cache 140 MB (reclaimable)", or "" when it adds nothing.
inline std::string page_cache_note(const model::JobUsage& usage) {
  auto peak = peak_with_cache(usage);
  return peak ? "; with page cache " + number(*peak) + " MB (reclaimable)" : "";
}

// The parts of memory at the resident peak: "anon 95 MB, shmem 7 MB, page
// cache 38 MB (reclaimable), kernel 2 MB, swap 0 MB"; empty when none was
// exported.
inline std::string memory_parts(const model::JobUsage& usage) {
  const model::MemoryBreakdown& parts = usage.memory_at_peak;
  std::string out;
  auto add = [&](const char* name, const std::optional<double>& mb, const char* note) {
    if (mb) out += (out.empty() ? "" : ", ") + std::string(name) + " " + number(*mb) + " MB" + note;
  };
  add("anon", parts.anon, "");
  add("shmem", parts.shmem, "");
  add("page cache", parts.file, " (reclaimable)");
  add("kernel", parts.kernel, "");
  add("swap", parts.swap, "");
  return out;
}

// "98 % of one CPU on average, 100 % at most" followed by `efficiency` (the
// face's own words for the share of the allocated CPUs) and the note when
// the mean came from Slurm's accounting; "100 % of one CPU at most (mean
// unknown)" without a mean; "unknown" without either. The mail, the page and
// the PDF say it so; the terminal has its shorter form.
inline std::string cpu_usage(const model::JobUsage& usage, const std::string& efficiency) {
  if (!usage.cpu_avg_percent)
    return usage.cpu_max_percent ? number(*usage.cpu_max_percent) + " % of one CPU at most (mean unknown)" : "unknown";
  std::string text = number(*usage.cpu_avg_percent) + " % of one CPU on average";
  if (usage.cpu_max_percent) text += ", " + number(*usage.cpu_max_percent) + " % at most";
  return text + efficiency + source_note(usage.cpu_time_source);
}

// "570 s (user 560 s, system 10 s)", with the note when the CPU time came
// from Slurm's accounting.
inline std::string cpu_time(const model::JobUsage& usage) {
  std::string text = amount(usage.cpu_time_total, "s");
  if (usage.cpu_time_total) text += source_note(usage.cpu_time_source);
  if (usage.user_time || usage.system_time)
    text += " (user " + amount(usage.user_time, "s") + ", system " + amount(usage.system_time, "s") + ")";
  return text;
}

// Whether the job had GPUs: listed, counted by accounting, or measured.
inline bool has_gpus(const model::JobUsage& usage) {
  return !usage.gpus.empty() || usage.job.alloc_gpus > 0 || !usage.gpu_devices.empty();
}

// "30 % on average per GPU, 95 % at most"; "95 % at most" without a mean;
// "not measured" without either. The mail, the page and the PDF say it so.
inline std::string gpu_utilization(const model::JobUsage& usage) {
  if (!usage.gpu_utilization_mean)
    return usage.gpu_utilization_max ? number(*usage.gpu_utilization_max) + " % at most" : "not measured";
  std::string text = number(*usage.gpu_utilization_mean) + " % on average per GPU";
  if (usage.gpu_utilization_max) text += ", " + number(*usage.gpu_utilization_max) + " % at most";
  return text;
}

// "16000 MB at peak of 163840 MB (9.8 %)" (the GPUs together), or "" when
// no memory was measured.
inline std::string gpu_memory(const model::JobUsage& usage) {
  if (!usage.gpu_memory_peak_mb) return "";
  std::string text = number(*usage.gpu_memory_peak_mb) + " MB at peak";
  if (const auto& total = usage.gpu_memory_total_mb; total && *total > 0)
    text += " of " + number(*total) + " MB (" + number(100 * *usage.gpu_memory_peak_mb / *total) + " %)";
  return text;
}

// "500 W on average, 1000 Wh" (the GPUs together), or "" when no power was
// measured.
inline std::string gpu_power(const model::JobUsage& usage) {
  if (!usage.gpu_power_mean_w) return "";
  std::string text = number(*usage.gpu_power_mean_w) + " W on average";
  if (usage.gpu_energy_wh) text += ", " + number(*usage.gpu_energy_wh) + " Wh";
  return text;
}

// "gpu01 GPU 0".
inline std::string gpu_name(const model::GpuUsage& gpu) {
  return gpu.node + " GPU " + gpu.gpuid;
}

// One GPU's figures: "35 % on average, 95 % at most; memory 8000 of 81920
// MB at peak; 250 W on average", the parts that were measured.
inline std::string gpu_figures(const model::GpuUsage& gpu) {
  std::string text;
  auto add = [&](const std::string& part) { text += (text.empty() ? "" : "; ") + part; };
  if (gpu.utilization_mean)
    add(number(*gpu.utilization_mean) + " % on average" +
        (gpu.utilization_max ? ", " + number(*gpu.utilization_max) + " % at most" : ""));
  else
    add("utilisation not measured");
  if (gpu.memory_peak_mb)
    add("memory " + number(*gpu.memory_peak_mb) +
        (gpu.memory_total_mb ? " of " + number(*gpu.memory_total_mb) : std::string()) + " MB at peak");
  if (gpu.power_mean_w) add(number(*gpu.power_mean_w) + " W on average");
  return text;
}

// The one sentence of a job of which nothing is known (JobUsage::no_usage()).
inline std::string no_usage_sentence(const model::JobUsage& usage) {
  return usage.missing.empty() ? "Nothing is known of the job's use." : usage.missing.front();
}

// What the faces say when the figures come from accounting alone.
inline constexpr const char* kNoSamples = "no samples; figures from Slurm accounting";

// The terminal's colours (only on a tty; they help the eye, the words say
// it): red for critical, yellow for a warning, cyan for a note, green for
// nothing to say.
inline constexpr const char* kReset = "\033[0m";
inline constexpr const char* kRed = "\033[1;31m";
inline constexpr const char* kYellow = "\033[33m";
inline constexpr const char* kCyan = "\033[36m";
inline constexpr const char* kGreen = "\033[32m";

inline constexpr int kBarCells = 10;

// A share as kBarCells cells, "███████░░░" for 70 %: it saturates at 0 and
// 100 %, the number beside it does not.
inline std::string bar_cells(double share) {
  int filled = static_cast<int>(std::lround(std::clamp(share, 0.0, 100.0) / (100.0 / kBarCells)));
  std::string cells;
  for (int i = 0; i < kBarCells; ++i) cells += i < filled ? "█" : "░";
  return cells;
}

}  // namespace petricore::render::text
