// What every face of the fleet view says the same way: the shares, the
// period, the filters, the findings in words and the charts over time.
#include "render/efficiency_render.hpp"
#include "render/text_format.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace petricore::render {
namespace {

// `part` of `whole` in %, unknown when the whole is nothing.
std::optional<double> percent_of(double part, double whole) {
  if (!(whole > 0) || !std::isfinite(part) || !std::isfinite(whole)) return std::nullopt;
  return 100 * part / whole;
}

bool midnight(std::int64_t epoch) {
  return epoch % 86400 == 0;
}

struct RuleWords {
  const char* rule;
  const char* title;
  const char* advice;
};

// Written for many jobs at once: the job page of each job has its own
// figures and advice.
constexpr RuleWords kRules[] = {
    {"job_state", "failed, out of memory or out of time",
     "Read the end of the failed jobs' output; ask for more memory or time, or write checkpoints."},
    {"cpu_efficiency", "low CPU efficiency",
     "Ask for only as many cores as the program keeps busy, or make it use them all."},
    {"cpu_stability", "CPU use varied a lot",
     "Look for serial or I/O phases that leave the cores idle, and overlap or split them off."},
    {"core_imbalance", "work spread unevenly over the cores",
     "Spread the work evenly over threads or ranks, or ask for fewer cores."},
    {"serial_on_many_cores", "serial program on many cores",
     "Ask for one core unless the program is meant to run in parallel."},
    {"memory_overallocated", "memory over-requested",
     "Ask for a little more than the peak the job page shows: unused memory stays reserved."},
    {"memory_near_limit", "memory close to its limit",
     "Leave some headroom so that a larger input does not end in OUT_OF_MEMORY."},
    {"scratch_unused", "heavy I/O outside scratch",
     "Keep working files in scratch ($SLURM_TMPDIR, /scratch) and copy the results back."},
    {"small_io_many_files", "many small files",
     "Bundle small files (tar, HDF5) or work on node-local scratch: shared filesystems are slow with them."},
    {"too_many_threads", "more threads than cores",
     "Match the threads to the cores: OMP_NUM_THREADS=$SLURM_CPUS_PER_TASK."},
    {"gpu_unused", "GPUs left unused",
     "Check that the program sees its GPUs (nvidia-smi in the job), or submit without --gpus."},
    {"gpu_efficiency", "low GPU utilisation",
     "Feed the GPUs faster (more data-loader workers, larger batches) or ask for fewer."},
    {"gpu_memory_low", "little GPU memory used", "A smaller GPU or a MIG slice would do, and is easier to get."},
    {"time_overrequested", "time limit far above the runtime",
     "Ask for a --time closer to the runtime (plus a margin): shorter limits start sooner."},
};

const RuleWords* words_of(const std::string& rule) {
  for (const RuleWords& w : kRules)
    if (rule == w.rule) return &w;
  return nullptr;
}

double middle_of(std::int64_t start, std::int64_t seconds) {
  return static_cast<double>(start) + static_cast<double>(seconds) / 2;
}

}  // namespace

std::optional<double> memory_used_percent(const model::EfficiencyTotals& totals) {
  return percent_of(totals.memory_gb_hours_used, totals.memory_gb_hours_requested);
}

std::optional<double> gpu_idle_percent(const model::EfficiencyTotals& totals) {
  return percent_of(totals.gpu_hours_idle, totals.gpu_hours_allocated);
}

std::string efficiency_period(const model::FleetEfficiency& efficiency) {
  if (midnight(efficiency.since) && midnight(efficiency.until))
    return text::iso8601_utc(efficiency.since).substr(0, 10) + " to " +
           text::iso8601_utc(efficiency.until).substr(0, 10);
  return text::iso8601_utc(efficiency.since) + " to " + text::iso8601_utc(efficiency.until);
}

std::string efficiency_filters(const model::FleetEfficiency& efficiency) {
  std::string out;
  if (efficiency.user) out = "user " + *efficiency.user;
  if (!efficiency.accounts.empty()) {
    out += out.empty() ? "" : "; ";
    out += efficiency.accounts.size() == 1 ? "account " : "accounts ";
    for (std::size_t i = 0; i < efficiency.accounts.size(); ++i) out += (i == 0 ? "" : ", ") + efficiency.accounts[i];
  }
  return out.empty() ? "all jobs" : out;
}

std::string finding_title(const std::string& rule) {
  const RuleWords* words = words_of(rule);
  return words ? words->title : rule;
}

std::string finding_advice(const std::string& rule) {
  const RuleWords* words = words_of(rule);
  return words ? words->advice : "";
}

std::vector<std::pair<std::string, std::int64_t>> top_findings(const model::EfficiencyTotals& totals,
                                                               std::size_t most) {
  std::vector<std::pair<std::string, std::int64_t>> list;
  for (const auto& [rule, jobs] : totals.jobs_by_finding)
    if (jobs > 0) list.emplace_back(rule, jobs);
  // The map is in rule order already: a stable sort keeps ties so.
  std::stable_sort(list.begin(), list.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  if (list.size() > most) list.resize(most);
  return list;
}

LineChart efficiency_chart(const model::FleetEfficiency& efficiency, EfficiencyChart which) {
  LineChart chart;
  ChartLine line;
  switch (which) {
    case EfficiencyChart::Cpu:
      chart.title = "CPU efficiency over time";
      chart.y_title = "CPU efficiency (% of core-hours allocated)";
      line.label = "core-hours used of allocated";
      break;
    case EfficiencyChart::Memory:
      chart.title = "Memory used of requested over time";
      chart.y_title = "Memory used (% of GB-hours requested)";
      line.label = "GB-hours used (resident peak) of requested";
      break;
    case EfficiencyChart::GpuIdle:
      chart.title = "Idle GPU-hours over time";
      chart.y_title = "GPU idle (% of GPU-hours allocated)";
      line.label = "GPU-hours idle of allocated";
      break;
  }
  const std::int64_t step = efficiency.point_seconds > 0 ? efficiency.point_seconds : 86400;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  std::optional<std::int64_t> previous;
  for (const model::EfficiencyPoint& point : efficiency.over_time) {
    // Stretches without jobs are not in the list: the line breaks over them.
    if (previous && point.start - *previous > step) line.points.push_back({middle_of(*previous + step, step), nan});
    previous = point.start;
    std::optional<double> value = which == EfficiencyChart::Cpu      ? point.totals.cpu_efficiency_percent
                                  : which == EfficiencyChart::Memory ? memory_used_percent(point.totals)
                                                                     : gpu_idle_percent(point.totals);
    line.points.push_back({middle_of(point.start, step), value && std::isfinite(*value) ? *value : nan});
  }
  chart.lines.push_back(std::move(line));
  chart.start = static_cast<double>(efficiency.since);
  chart.end = static_cast<double>(efficiency.until);
  chart.y_top_at_least = 100;
  return chart;
}

}  // namespace petricore::render
