// `petricore report --user U | --account A` on a terminal: the period, the
// totals, one table row per group, the worst jobs and the jobs per finding.
// On a tty, bars and colour (the rules' default levels: they only help the
// eye) mark the shares; piped, the same text without an escape code.
#include "core/utf8.hpp"
#include "model/rule_thresholds.hpp"
#include "render/efficiency_render.hpp"
#include "render/text_format.hpp"

#include <algorithm>
#include <sstream>

namespace petricore::render {
namespace {

using model::EfficiencyTotals;

constexpr std::size_t kNameColumn = 20;
constexpr std::size_t kWorstJobsShown = 10;

// The colour of a share where more is better: below `critical` red, below
// `warning` yellow, else green.
const char* colour_of(double percent, double critical, double warning) {
  return percent < critical ? text::kRed : percent < warning ? text::kYellow : text::kGreen;
}

// Code points, which is columns for the names a cluster has.
std::size_t columns(const std::string& s) {
  std::size_t n = 0;
  for (std::size_t i = 0; i < s.size(); ++n) i += std::max<std::size_t>(1, utf8_sequence(s, i));
  return n;
}

// `s` in exactly `width` columns: padded (on the left when `right`), or cut
// with "…". Controls become spaces: a job name sends no escape code.
std::string cell(const std::string& raw, std::size_t width, bool right = true) {
  std::string s = printable_utf8(raw);
  if (columns(s) > width) {
    std::size_t at = 0;
    for (std::size_t kept = 0; kept + 1 < width; ++kept) at += std::max<std::size_t>(1, utf8_sequence(s, at));
    return s.substr(0, at) + "\u2026";
  }
  std::string pad(width - columns(s), ' ');
  return right ? pad + s : s + pad;
}

void bar(std::ostream& out, const char* label, double percent, const char* colour) {
  out << "  " << cell(label, 9, false) << colour << text::bar_cells(percent) << text::kReset << ' '
      << cell(text::number(percent, 0), 3) << " %\n";
}

void row(std::ostream& out, const char* label, const std::string& value) {
  out << "  " << cell(label, 12, false) << value << '\n';
}

void totals_block(std::ostream& out, const EfficiencyTotals& t, bool tty) {
  const model::RuleThresholds levels;
  row(out, "Core-hours",
      text::number(t.core_hours_allocated) + " allocated, " + text::number(t.core_hours_used) + " used, " +
          text::number(t.core_hours_wasted) + " wasted");
  row(out, "CPU", text::percent(t.cpu_efficiency_percent) + " efficiency (core-hours used of allocated)");
  auto memory = memory_used_percent(t);
  row(out, "Memory",
      text::number(t.memory_gb_hours_used) + " of " + text::number(t.memory_gb_hours_requested) +
          " GB-hours requested used at peak" + (memory ? " (" + text::percent(memory) + ")" : ""));
  auto idle = gpu_idle_percent(t);
  if (t.gpu_hours_allocated > 0)
    row(out, "GPU-hours",
        text::number(t.gpu_hours_allocated) + " allocated, " + text::number(t.gpu_hours_idle) + " idle (" +
            text::percent(idle) + ")");
  if (!tty) return;
  out << '\n';
  if (t.cpu_efficiency_percent)
    bar(out, "CPU", *t.cpu_efficiency_percent,
        colour_of(*t.cpu_efficiency_percent, levels.cpu_efficiency_critical, levels.cpu_efficiency_warning));
  if (memory) bar(out, "Memory", *memory, colour_of(*memory, 0, 100 * levels.memory_overallocated_ratio));
  if (idle)
    bar(out, "GPU busy", 100 - *idle,
        colour_of(100 - *idle, levels.gpu_efficiency_critical, levels.gpu_efficiency_warning));
}

void groups_table(std::ostream& out, const model::FleetEfficiency& e, bool tty) {
  const model::RuleThresholds levels;
  std::string by = model::grouping_name(e.by);
  out << "\nBy " << by << " (most core-hours wasted first)\n";
  out << "  " << cell(by, kNameColumn, false) << ' ' << cell("jobs", 7) << ' ' << cell("core-h", 10) << ' '
      << cell("used", 10) << ' ' << cell("CPU eff", 9) << (tty ? std::string(text::kBarCells + 1, ' ') : "") << ' '
      << cell("wasted", 10) << ' ' << cell("mem GB-h", 10) << ' ' << cell("used", 10) << ' ' << cell("GPU-h", 8) << ' '
      << cell("idle", 8) << "  top finding\n";
  for (const model::EfficiencyGroup& g : e.groups) {
    const EfficiencyTotals& t = g.totals;
    std::string efficiency = cell(text::percent(t.cpu_efficiency_percent), 9);
    if (tty) {
      efficiency =
          t.cpu_efficiency_percent
              ? colour_of(*t.cpu_efficiency_percent, levels.cpu_efficiency_critical, levels.cpu_efficiency_warning) +
                    efficiency + ' ' + text::bar_cells(*t.cpu_efficiency_percent) + text::kReset
              : efficiency + std::string(text::kBarCells + 1, ' ');
    }
    auto top = top_findings(t, 1);
    out << "  " << cell(g.name, kNameColumn, false) << ' ' << cell(std::to_string(t.jobs), 7) << ' '
        << cell(text::number(t.core_hours_allocated), 10) << ' ' << cell(text::number(t.core_hours_used), 10) << ' '
        << efficiency << ' ' << cell(text::number(t.core_hours_wasted), 10) << ' '
        << cell(text::number(t.memory_gb_hours_requested), 10) << ' ' << cell(text::number(t.memory_gb_hours_used), 10)
        << ' ' << cell(text::number(t.gpu_hours_allocated), 8) << ' ' << cell(text::number(t.gpu_hours_idle), 8) << "  "
        << (top.empty() ? "-" : top.front().first + " (" + std::to_string(top.front().second) + ")") << '\n';
  }
}

void worst_jobs(std::ostream& out, const std::vector<model::WastefulJob>& jobs) {
  if (jobs.empty()) return;
  out << "\nWorst jobs (most core-hours wasted)\n";
  std::size_t shown = std::min(jobs.size(), kWorstJobsShown);
  for (std::size_t i = 0; i < shown; ++i) {
    const model::WastefulJob& j = jobs[i];
    out << "  " << cell(j.display_id, 12, false) << ' ' << cell(j.user, 10, false) << ' ' << cell(j.account, 14, false)
        << ' ' << cell(j.partition, 10, false) << ' ' << text::iso8601_utc(j.end).substr(0, 10) << "  "
        << text::number(j.core_hours_allocated) << " core-h, " << text::number(j.core_hours_wasted) << " wasted, CPU "
        << text::percent(j.cpu_efficiency_percent);
    if (!j.name.empty()) out << "  " << printable_utf8(j.name);
    out << '\n';
  }
  if (jobs.size() > shown) out << "  and " << jobs.size() - shown << " more\n";
}

void findings(std::ostream& out, const EfficiencyTotals& t) {
  auto list = top_findings(t, t.jobs_by_finding.size());
  out << '\n';
  if (list.empty()) {
    out << "No findings in these jobs.\n";
    return;
  }
  out << "Jobs per finding\n";
  for (const auto& [rule, jobs] : list)
    out << "  " << cell(std::to_string(jobs), 7) << "  " << finding_title(rule) << " (" << rule << ")\n";
}

}  // namespace

std::string efficiency_text(const model::FleetEfficiency& e, bool tty) {
  std::ostringstream out;
  out << "Efficiency of the jobs that ended " << efficiency_period(e) << ", by " << model::grouping_name(e.by) << " ("
      << printable_utf8(efficiency_filters(e)) << ")\n";
  if (e.total.jobs == 0) {
    out << "No jobs ended in this period.\n";
    return out.str();
  }
  out << '\n' << e.total.jobs << (e.total.jobs == 1 ? " job\n" : " jobs\n");
  totals_block(out, e.total, tty);
  if (!e.groups.empty()) groups_table(out, e, tty);
  worst_jobs(out, e.worst_jobs);
  findings(out, e.total);
  return out.str();
}

}  // namespace petricore::render
