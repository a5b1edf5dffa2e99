#include "render/job_charts.hpp"

#include "render/text_format.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <utility>

namespace petricore::render {
namespace {

using model::JobUsage;
using model::Series;

struct MetricInfo {
  ChartMetric chart;
  // Whether the sum of several series means something (counts, MiB,
  // seconds, % of one CPU): then the lines beyond kMaxChartLines become one
  // "others" line instead of being dropped.
  bool summable = true;
};

const std::vector<MetricInfo>& metric_table() {
  static const std::vector<MetricInfo> table = {
      {{"jobs_cpu_percent", "CPU use", "CPU (% of one CPU)"}, true},
      {{"jobs_rss", "Resident memory", "Resident memory (MiB)"}, true},
      {{"jobs_read_mb", "Data read", "Data read, cumulative (MiB)"}, true},
      {{"jobs_write_mb", "Data written", "Data written, cumulative (MiB)"}, true},
      {{std::string(kGpuUtilization), "GPU utilisation", "GPU utilisation (%)"}, false},
      // petricore's own GPU series, one line per GPU. A sum of several GPUs'
      // memory would not compare with one device's size: none is summed.
      {{"jobs_gpu_utilization_percent", "GPU utilisation", "GPU busy (% of the time)"}, false},
      {{"jobs_gpu_memory_used_mb", "GPU memory", "GPU memory used (MiB)"}, false},
      {{"jobs_cpu_percent_per_core", "CPU use per allocated core", "CPU per allocated core (%)"}, false},
      {{"jobs_memory_peak_mb", "Peak memory with page cache", "Cgroup peak, page cache included (MiB)"}, true},
      {{"jobs_memory_file_mb", "Page cache (reclaimable)", "Page cache, reclaimable (MiB)"}, true},
      {{"jobs_memory_limit_mb", "Memory limit", "Memory limit (MiB)"}, true},
      {{"jobs_read_count", "Read calls", "Read calls, cumulative (count)"}, true},
      {{"jobs_write_count", "Write calls", "Write calls, cumulative (count)"}, true},
      {{"jobs_opened_files", "Open files", "Open files (count)"}, true},
      {{"jobs_spawned_processes", "Processes", "Processes (count)"}, true},
      {{"jobs_thread_count", "Threads", "Threads per process name (count)"}, true},
      {{"jobs_cpu_time_total", "CPU time", "CPU time, cumulative (s)"}, true},
      {{"jobs_user_time", "CPU time in user mode", "User time, cumulative (s)"}, true},
      {{"jobs_system_time", "CPU time in system mode", "System time, cumulative (s)"}, true},
      {{"jobs_cpu_time_core", "CPU time per core", "CPU time per core, cumulative (s)"}, true},
      {{"jobs_cpus_allocated", "Allocated CPUs", "CPUs allocated (count)"}, true},
      {{"jobs_uses_scratch", "Scratch use", "Uses scratch (0 = no, 1 = yes)"}, false},
      {{"jobs_gpu_power_watts", "GPU power", "GPU power (W)"}, true},
      {{"jobs_gpu_memory_utilization_percent", "GPU memory controller use", "GPU memory controller busy (%)"}, false},
  };
  return table;
}

const MetricInfo* find_metric(const std::string& metric) {
  for (const MetricInfo& info : metric_table())
    if (info.chart.metric == metric) return &info;
  return nullptr;
}

// "node2" before "node10", "core 3" before "core 12": runs of digits compare
// as numbers, the rest byte by byte.
bool natural_less(const std::string& a, const std::string& b) {
  std::size_t i = 0, j = 0;
  auto digit = [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; };
  while (i < a.size() && j < b.size()) {
    if (digit(a[i]) && digit(b[j])) {
      std::size_t ei = i, ej = j;
      while (ei < a.size() && digit(a[ei])) ++ei;
      while (ej < b.size() && digit(b[ej])) ++ej;
      std::size_t si = a.find_first_not_of('0', i), sj = b.find_first_not_of('0', j);
      si = std::min(si == std::string::npos ? ei : si, ei);
      sj = std::min(sj == std::string::npos ? ej : sj, ej);
      if (ei - si != ej - sj) return ei - si < ej - sj;
      int cmp = a.compare(si, ei - si, b, sj, ej - sj);
      if (cmp != 0) return cmp < 0;
      i = ei;
      j = ej;
    } else {
      if (a[i] != b[j]) return a[i] < b[j];
      ++i;
      ++j;
    }
  }
  return a.size() - i < b.size() - j;
}

// One series ready to become a line: its label, sort key and size.
struct Candidate {
  const Series* series = nullptr;
  std::string label;
  std::string node, core, proc;  // sort key
  double max_value = -std::numeric_limits<double>::infinity();
};

bool key_less(const Candidate& a, const Candidate& b) {
  if (a.node != b.node) return natural_less(a.node, b.node);
  if (a.core != b.core) return natural_less(a.core, b.core);
  return natural_less(a.proc, b.proc);
}

// The node of a GPU exporter's series: its instance or DCGM's Hostname.
std::string gpu_node(const Series& s) {
  const std::string& instance = s.label("instance");
  return model::short_node_name(instance.empty() ? s.label("Hostname") : instance);
}

// Whether `metric` has one series per GPU of petricore's own (jobs_gpu_*,
// labelled gpuid).
bool per_gpu_metric(const std::string& metric) {
  return metric.rfind("jobs_gpu_", 0) == 0;
}

std::string line_label(const Series& s, bool several_nodes) {
  if (s.labels.count("gpu") != 0) return gpu_node(s) + " GPU " + s.label("gpu");
  const std::string& node = s.label("instance");
  const std::string& proc = s.label("proc_name");
  const std::string& core = s.label("core");
  if (!proc.empty()) return several_nodes && !node.empty() ? proc + " on " + node : proc;
  if (!core.empty()) return (node.empty() ? "" : node + " ") + "core " + core;
  return node.empty() ? "job" : node;
}

// Prometheus sends NaN and ±Inf as values; the chart takes NaN as "no value".
double chart_value(double value) {
  return std::isfinite(value) ? value : std::numeric_limits<double>::quiet_NaN();
}

// The samples as chart points. A range query has no sample where the
// series was missing (the node's collector was down, Prometheus missed
// scrapes): where the distance to the next sample is more than 2.5 times the
// usual step, a NaN point breaks the line instead of bridging the hole.
std::vector<ChartPoint> points_of(const Series& s) {
  std::vector<double> steps;
  for (std::size_t i = 1; i < s.samples.size(); ++i) steps.push_back(s.samples[i].time - s.samples[i - 1].time);
  double usual = 0;
  if (!steps.empty()) {
    std::nth_element(steps.begin(), steps.begin() + static_cast<std::ptrdiff_t>(steps.size() / 2), steps.end());
    usual = steps[steps.size() / 2];
  }
  std::vector<ChartPoint> points;
  points.reserve(s.samples.size() + 8);
  for (std::size_t i = 0; i < s.samples.size(); ++i) {
    const model::Sample& sample = s.samples[i];
    if (i > 0 && usual > 0 && sample.time - s.samples[i - 1].time > 2.5 * usual) {
      points.push_back({(sample.time + s.samples[i - 1].time) / 2, std::numeric_limits<double>::quiet_NaN()});
    }
    points.push_back({sample.time, chart_value(sample.value)});
  }
  return points;
}

// The lines summed at each instant. A range query aligns every series of it
// on the same steps, so summing by exact time is enough.
ChartLine summed(const std::vector<Candidate>& rest) {
  std::map<double, double> sums;
  for (const Candidate& c : rest)
    for (const model::Sample& sample : c.series->samples)
      if (std::isfinite(sample.value)) sums[sample.time] += sample.value;
  ChartLine line;
  line.label = "others (" + std::to_string(rest.size()) + " series)";
  line.points.reserve(sums.size());
  for (const auto& [time, value] : sums) line.points.push_back({time, value});
  return line;
}

// "node01 core 3" from "node01_core_3"; the name itself when it is not one.
std::string core_label(const std::string& core) {
  auto at = core.rfind("_core_");
  if (at == std::string::npos) return core;
  return core.substr(0, at) + " core " + core.substr(at + 6);
}

}  // namespace

const std::vector<ChartMetric>& chart_metrics() {
  static const std::vector<ChartMetric> metrics = [] {
    std::vector<ChartMetric> out;
    for (const MetricInfo& info : metric_table()) out.push_back(info.chart);
    return out;
  }();
  return metrics;
}

Result<LineChart> metric_chart(const model::JobReport& report, const std::string& metric) {
  return metric_chart(report, metric, report.thresholds);
}

Result<LineChart> metric_chart(const model::JobReport& report, const std::string& metric,
                               const model::RuleThresholds& thresholds) {
  const MetricInfo* info = find_metric(metric);
  if (!info) return bad_input("no chart of metric " + metric + ": not a jobs_* metric petricore plots");
  const JobUsage& usage = report.usage;
  const model::JobRecord& job = usage.job;

  // GPU utilisation comes from the GPU exporter, kept apart from jobs_*.
  const std::vector<Series>* list = nullptr;
  if (metric == kGpuUtilization) {
    list = &usage.gpu_utilization_series;
  } else if (auto found = usage.series.find(metric); found != usage.series.end()) {
    list = &found->second;
  }
  std::vector<Candidate> candidates;
  if (list != nullptr) {
    for (const Series& s : *list) {
      if (s.samples.empty()) continue;
      if (metric == kGpuUtilization) {
        candidates.push_back({&s, {}, gpu_node(s), s.label("gpu"), {}});
      } else if (per_gpu_metric(metric)) {
        candidates.push_back(
            {&s, s.label("instance") + " GPU " + s.label("gpuid"), s.label("instance"), s.label("gpuid"), {}});
      } else {
        candidates.push_back({&s, {}, s.label("instance"), s.label("core"), s.label("proc_name")});
      }
    }
  }
  if (candidates.empty()) return not_found("no " + metric + " samples for job " + job.job_id);

  std::set<std::string> nodes;
  double latest = 0;
  for (Candidate& c : candidates) {
    nodes.insert(c.node);
    for (const model::Sample& sample : c.series->samples)
      if (std::isfinite(sample.value)) c.max_value = std::max(c.max_value, sample.value);
    latest = std::max(latest, c.series->samples.back().time);
  }
  const bool several_nodes = nodes.size() > 1 || job.alloc_nodes > 1;
  for (Candidate& c : candidates)
    if (c.label.empty()) c.label = line_label(*c.series, several_nodes);

  LineChart chart;
  chart.title = info->chart.title + " of job " + job.job_id;
  chart.y_title = info->chart.y_title;
  if (job.start) {
    chart.start = static_cast<double>(*job.start);
    chart.end = job.end ? static_cast<double>(*job.end) : std::max(latest, chart.start);
  }

  std::vector<Candidate> rest;
  if (candidates.size() > kMaxChartLines) {
    // Keep the largest; the small ones are the least visible anyway.
    std::stable_sort(candidates.begin(), candidates.end(),
                     [](const Candidate& a, const Candidate& b) { return a.max_value > b.max_value; });
    std::size_t keep = info->summable ? kMaxChartLines - 1 : kMaxChartLines;
    rest.assign(candidates.begin() + static_cast<std::ptrdiff_t>(keep), candidates.end());
    candidates.resize(keep);
    // Summed, they are drawn (the "others" line names how many); else they
    // are left out and the legend says so.
    if (!info->summable) chart.omitted_lines = static_cast<int>(rest.size());
  }
  std::sort(candidates.begin(), candidates.end(), key_less);
  for (const Candidate& c : candidates) chart.lines.push_back({c.label, points_of(*c.series)});
  if (!rest.empty() && info->summable) chart.lines.push_back(summed(rest));

  // Percentages of one device or core: the scale shows how far from 100.
  if (metric == kGpuUtilization || metric == "jobs_cpu_percent_per_core" || metric == "jobs_gpu_utilization_percent" ||
      metric == "jobs_gpu_memory_utilization_percent")
    chart.y_top_at_least = 100;
  // Memory used reads against the device's size: the largest of the GPUs'.
  if (metric == "jobs_gpu_memory_used_mb")
    for (const model::GpuUsage& gpu : usage.gpu_devices)
      if (gpu.memory_total_mb && std::isfinite(*gpu.memory_total_mb))
        chart.y_top_at_least = std::max(chart.y_top_at_least, *gpu.memory_total_mb);
  if (metric == "jobs_cpu_percent" && job.alloc_cpus > 0) {
    // One line per node: the reference is each node's share of the job's
    // lowest expected use (the cpu_efficiency warning level).
    double per_node = static_cast<double>(job.alloc_cpus) / static_cast<double>(nodes.size());
    chart.reference = thresholds.cpu_efficiency_warning * per_node;
    chart.reference_label = "lowest expected: " + text::number(thresholds.cpu_efficiency_warning) + " % of " +
                            text::number(per_node) + (per_node == 1 ? " CPU" : " CPUs") +
                            (nodes.size() > 1 ? " per node" : "");
  }
  return chart;
}

Result<PieChart> cpu_mode_pie(const model::JobReport& report) {
  const JobUsage& usage = report.usage;
  if (!usage.user_time && !usage.system_time)
    return not_found("no user or system CPU time for job " + usage.job.job_id);
  PieChart pie;
  pie.title = "User vs system CPU time of job " + usage.job.job_id;
  pie.unit = "s";
  if (usage.user_time) pie.slices.push_back({"User", std::max(0.0, *usage.user_time)});
  if (usage.system_time) pie.slices.push_back({"System", std::max(0.0, *usage.system_time)});
  return pie;
}

Result<PieChart> cpu_core_pie(const model::JobReport& report) {
  const JobUsage& usage = report.usage;
  if (usage.cpu_time_core.empty()) return not_found("no CPU time per core for job " + usage.job.job_id);
  std::vector<const model::CoreTime*> cores;
  for (const model::CoreTime& c : usage.cpu_time_core) cores.push_back(&c);
  std::stable_sort(cores.begin(), cores.end(),
                   [](const model::CoreTime* a, const model::CoreTime* b) { return natural_less(a->core, b->core); });
  PieChart pie;
  pie.title = "CPU time per core of job " + usage.job.job_id;
  pie.unit = "s";
  for (const model::CoreTime* c : cores)
    pie.slices.push_back({core_label(c->core), std::isfinite(c->seconds) ? std::max(0.0, c->seconds) : 0.0});
  return pie;
}

}  // namespace petricore::render
