#include "analysis/usage_summary.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <set>
#include <utility>

namespace petricore::analysis {

using model::CoreTime;
using model::FigureSource;
using model::JobRecord;
using model::JobUsage;
using model::MemoryBreakdown;
using model::Sample;
using model::Series;
namespace {

// A core counts as used when it got this share of the mean per-core time
// (ARCHITECTURE.md §5; the original's 0.8).
constexpr double kCoreUsedShareOfMean = 0.8;

// The name is a C string, not a const std::string&: the temporary string a
// call would make looks to GCC 14's -Wdangling-reference like the referent
// of the returned reference (which is always an element of all, or none).
const std::vector<Series>& series_of(const std::map<std::string, std::vector<Series>>& all, const char* name) {
  static const std::vector<Series> none;
  auto it = all.find(name);
  return it == all.end() ? none : it->second;
}

// Prometheus timestamps are whole milliseconds, and one range query evaluates
// every series at the same start + k × step: rounding to the millisecond undoes
// the decimal-to-double noise, so equal instants get equal keys.
std::int64_t instant_of(double time) {
  return std::llround(time * 1000.0);
}

// The job-wide value at each instant: the sum over the series that have a
// sample then. A node without a sample at an instant adds nothing.
std::map<std::int64_t, double> sum_per_instant(const std::vector<const Series*>& series) {
  std::map<std::int64_t, double> sums;
  for (const Series* s : series)
    for (const Sample& sample : s->samples)
      if (std::isfinite(sample.value)) sums[instant_of(sample.time)] += sample.value;
  return sums;
}

std::vector<const Series*> pointers_to(const std::vector<Series>& series) {
  std::vector<const Series*> out;
  out.reserve(series.size());
  for (const Series& s : series) out.push_back(&s);
  return out;
}

std::optional<double> mean_of(const std::map<std::int64_t, double>& values) {
  if (values.empty()) return std::nullopt;
  double sum = 0;
  for (const auto& [instant, value] : values) sum += value;
  return sum / static_cast<double>(values.size());
}

std::optional<double> max_of(const std::map<std::int64_t, double>& values) {
  std::optional<double> best;
  for (const auto& [instant, value] : values)
    if (!best || value > *best) best = value;
  return best;
}

// The latest finite sample of one series.
std::optional<Sample> last_sample(const Series& series) {
  for (auto it = series.samples.rbegin(); it != series.samples.rend(); ++it)
    if (std::isfinite(it->value)) return *it;
  return std::nullopt;
}

std::optional<double> max_sample(const Series& series) {
  std::optional<double> best;
  for (const Sample& sample : series.samples)
    if (std::isfinite(sample.value) && (!best || sample.value > *best)) best = sample.value;
  return best;
}

// Counters (CPU seconds, bytes, syscalls) grow over a job's life, so a node's
// total is its latest sample. Should a node carry several series of the same
// key, the one sampled last wins.
template <typename Key, typename KeyOf>
std::map<Key, Sample> last_per(const std::vector<Series>& series, KeyOf key_of) {
  std::map<Key, Sample> latest;
  for (const Series& s : series) {
    auto last = last_sample(s);
    if (!last) continue;
    auto [it, inserted] = latest.emplace(key_of(s), *last);
    if (!inserted && last->time >= it->second.time) it->second = *last;
  }
  return latest;
}

// Σ over nodes of each node's latest value; absent when no node had a sample.
std::optional<double> sum_of_last_per_node(const std::vector<Series>& series) {
  auto latest = last_per<std::string>(series, [](const Series& s) { return s.label("instance"); });
  if (latest.empty()) return std::nullopt;
  double sum = 0;
  for (const auto& [node, sample] : latest) sum += sample.value;
  return sum;
}

// Core numbers and GPU indexes order as numbers ("2" before "10"); anything
// that is not a plain number sorts after them, as text.
bool numeric_less(const std::string& a, const std::string& b) {
  auto as_number = [](const std::string& text) -> std::optional<unsigned long long> {
    unsigned long long value = 0;
    auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || error != std::errc{} || end != text.data() + text.size()) return std::nullopt;
    return value;
  };
  auto na = as_number(a), nb = as_number(b);
  if (na && nb) return *na != *nb ? *na < *nb : a < b;  // "01" and "1": keep a strict order
  if (na || nb) return na.has_value();
  return a < b;
}

struct NumericLess {
  bool operator()(const std::string& a, const std::string& b) const { return numeric_less(a, b); }
};

std::vector<CoreTime> core_times(const std::vector<Series>& series) {
  using NodeCore = std::pair<std::string, std::string>;
  auto latest = last_per<NodeCore>(series, [](const Series& s) {
    return NodeCore{s.label("instance"), s.label("core")};
  });
  std::vector<std::pair<NodeCore, double>> ordered;
  for (const auto& [key, sample] : latest) ordered.emplace_back(key, sample.value);
  std::sort(ordered.begin(), ordered.end(), [](const auto& a, const auto& b) {
    if (a.first.first != b.first.first) return a.first.first < b.first.first;
    return numeric_less(a.first.second, b.first.second);
  });
  std::vector<CoreTime> out;
  out.reserve(ordered.size());
  for (const auto& [key, seconds] : ordered) out.push_back({key.first + "_core_" + key.second, seconds});
  return out;
}

int count_cores_used(const std::vector<CoreTime>& cores) {
  if (cores.empty()) return 0;
  double total = 0;
  for (const CoreTime& core : cores) total += core.seconds;
  double mean = total / static_cast<double>(cores.size());
  // A job that used no CPU at all used no core, although every core is at
  // 0.8 × a zero mean.
  if (!(mean > 0)) return 0;
  return static_cast<int>(std::count_if(
      cores.begin(), cores.end(), [&](const CoreTime& core) { return core.seconds >= kCoreUsedShareOfMean * mean; }));
}

// Each node's largest value of `series` and the instant it was sampled at.
struct NodePeak {
  double value = 0;
  std::int64_t instant = 0;
};
std::map<std::string, NodePeak> peaks_per_node(const std::vector<Series>& series) {
  std::map<std::string, NodePeak> peaks;
  for (const Series& s : series) {
    for (const Sample& sample : s.samples) {
      if (!std::isfinite(sample.value)) continue;
      auto [it, inserted] = peaks.emplace(s.label("instance"), NodePeak{sample.value, instant_of(sample.time)});
      if (!inserted && sample.value > it->second.value) it->second = {sample.value, instant_of(sample.time)};
    }
  }
  return peaks;
}

// The value of a node's series at one instant of the range query, if sampled.
std::optional<double> value_at(const std::vector<Series>& series, const std::string& node, std::int64_t instant) {
  for (const Series& s : series) {
    if (s.label("instance") != node) continue;
    for (const Sample& sample : s.samples)
      if (instant_of(sample.time) == instant && std::isfinite(sample.value)) return sample.value;
  }
  return std::nullopt;
}

void add_to(std::optional<double>& sum, const std::optional<double>& value) {
  if (value) sum = sum.value_or(0) + *value;
}

// The breakdown metrics at each node's resident peak, summed over nodes.
MemoryBreakdown breakdown_at(const std::map<std::string, std::vector<Series>>& all,
                             const std::map<std::string, NodePeak>& resident_peaks) {
  MemoryBreakdown parts;
  const std::pair<const char*, std::optional<double> MemoryBreakdown::*> metrics[] = {
      {"jobs_memory_anon_mb", &MemoryBreakdown::anon}, {"jobs_memory_shmem_mb", &MemoryBreakdown::shmem},
      {"jobs_memory_file_mb", &MemoryBreakdown::file}, {"jobs_memory_kernel_mb", &MemoryBreakdown::kernel},
      {"jobs_memory_swap_mb", &MemoryBreakdown::swap},
  };
  for (const auto& [name, member] : metrics) {
    const std::vector<Series>& series = series_of(all, name);
    for (const auto& [node, peak] : resident_peaks) add_to(parts.*member, value_at(series, node, peak.instant));
  }
  return parts;
}

// Σ over nodes of each node's peak: the cgroup's own high-water mark where the
// collector exported one, else the highest resident memory sampled.
std::optional<double> memory_peak(const std::vector<Series>& peak_series,
                                  const std::map<std::string, NodePeak>& resident_peaks) {
  std::map<std::string, double> node_peaks;
  for (const auto& [node, peak] : peaks_per_node(peak_series)) node_peaks[node] = peak.value;
  for (const auto& [node, resident] : resident_peaks) node_peaks.emplace(node, resident.value);  // only where no peak
  if (node_peaks.empty()) return std::nullopt;
  double sum = 0;
  for (const auto& [node, peak] : node_peaks) sum += peak;
  return sum;
}

std::map<std::string, double> thread_maxima(const std::vector<Series>& series) {
  std::map<std::string, std::vector<const Series*>> by_name;
  for (const Series& s : series) by_name[s.label("proc_name")].push_back(&s);
  std::map<std::string, double> maxima;
  for (const auto& [name, of_name] : by_name)
    if (auto max = max_of(sum_per_instant(of_name))) maxima[name] = *max;
  return maxima;
}

std::map<std::string, std::vector<std::string>> gpus_per_node(const std::vector<Series>& series) {
  // A jobs_gpus_used series exists for each allocated GPU: its labels are the
  // fact, its value is always 1.
  std::map<std::string, std::set<std::string, NumericLess>> ids;
  for (const Series& s : series)
    if (!s.label("gpuid").empty()) ids[s.label("instance")].insert(s.label("gpuid"));
  std::map<std::string, std::vector<std::string>> out;
  for (const auto& [node, node_ids] : ids) out[node].assign(node_ids.begin(), node_ids.end());
  return out;
}

std::optional<double> max_over_all(const std::vector<Series>& series) {
  std::optional<double> best;
  for (const Series& s : series)
    if (auto max = max_sample(s); max && (!best || *max > *best)) best = max;
  return best;
}

bool any_sample_set(const std::vector<Series>& series) {
  for (const Series& s : series)
    for (const Sample& sample : s.samples)
      if (std::isfinite(sample.value) && sample.value >= 0.5) return true;
  return false;
}

// GPU numbers order as numbers, and a MIG instance "<gpu>/<gi>" right after
// its GPU: "2" < "2/1" < "2/13" < "10".
bool gpu_id_less(const std::string& a, const std::string& b) {
  std::size_t i = 0, j = 0;
  for (;;) {
    std::size_t end_a = std::min(a.find('/', i), a.size()), end_b = std::min(b.find('/', j), b.size());
    std::string part_a = a.substr(i, end_a - i), part_b = b.substr(j, end_b - j);
    if (part_a != part_b) return numeric_less(part_a, part_b);
    bool a_done = end_a == a.size(), b_done = end_b == b.size();
    if (a_done || b_done) return a_done && !b_done;
    i = end_a + 1;
    j = end_b + 1;
  }
}

// A GPU of the job: its node and its number.
using GpuKey = std::pair<std::string, std::string>;
struct GpuKeyLess {
  bool operator()(const GpuKey& a, const GpuKey& b) const {
    if (a.first != b.first) return a.first < b.first;
    return gpu_id_less(a.second, b.second);
  }
};

// The series of each GPU: `id_label` names the GPU's number (petricore's
// own series: gpuid; another exporter's, as the analyzer rewrote it: gpu).
std::map<GpuKey, std::vector<const Series*>, GpuKeyLess> per_gpu(const std::vector<Series>& series,
                                                                 const char* id_label) {
  std::map<GpuKey, std::vector<const Series*>, GpuKeyLess> out;
  for (const Series& s : series)
    if (!s.label(id_label).empty()) out[{s.label("instance"), s.label(id_label)}].push_back(&s);
  return out;
}

// The mean and the max over the finite samples of one GPU's series.
struct SampleStats {
  std::optional<double> mean;
  std::optional<double> max;
};
SampleStats stats_of(const std::vector<const Series*>& series) {
  double sum = 0;
  std::size_t count = 0;
  SampleStats stats;
  for (const Series* s : series) {
    for (const Sample& sample : s->samples) {
      if (!std::isfinite(sample.value)) continue;
      sum += sample.value;
      ++count;
      if (!stats.max || sample.value > *stats.max) stats.max = sample.value;
    }
  }
  if (count > 0) stats.mean = sum / static_cast<double>(count);
  return stats;
}

// The per-GPU figures and the job's GPU aggregates. Utilisation comes from
// petricore's jobs_gpu_utilization_percent where the job has it, else from
// another exporter's series (`external`, moved into the usage for the
// charts); memory and power from petricore's series only.
void summarize_gpus(JobUsage& usage, const std::map<std::string, std::vector<Series>>& series,
                    std::optional<std::vector<Series>> external) {
  const std::vector<Series>& own = series_of(series, "jobs_gpu_utilization_percent");
  if (own.empty() && external) usage.gpu_utilization_series = std::move(*external);
  const bool use_own = !own.empty();
  const std::vector<Series>& utilization = use_own ? own : usage.gpu_utilization_series;

  std::map<GpuKey, model::GpuUsage, GpuKeyLess> devices;
  auto device = [&](const GpuKey& key) -> model::GpuUsage& {
    auto [it, inserted] = devices.try_emplace(key);
    if (inserted) {
      it->second.node = key.first;
      it->second.gpuid = key.second;
    }
    return it->second;
  };
  for (const auto& [key, of_gpu] : per_gpu(utilization, use_own ? "gpuid" : "gpu")) {
    SampleStats stats = stats_of(of_gpu);
    if (!stats.mean) continue;
    device(key).utilization_mean = stats.mean;
    device(key).utilization_max = stats.max;
  }
  // Memory used: each GPU's peak; its size is constant, so its max is it.
  struct Figure {
    const char* metric;
    std::optional<double> model::GpuUsage::*member;
    bool mean;  // else the max
  };
  const Figure figures[] = {{"jobs_gpu_memory_used_mb", &model::GpuUsage::memory_peak_mb, false},
                            {"jobs_gpu_memory_total_mb", &model::GpuUsage::memory_total_mb, false},
                            {"jobs_gpu_power_watts", &model::GpuUsage::power_mean_w, true}};
  for (const Figure& figure : figures) {
    for (const auto& [key, of_gpu] : per_gpu(series_of(series, figure.metric), "gpuid")) {
      SampleStats stats = stats_of(of_gpu);
      if (stats.mean) device(key).*figure.member = figure.mean ? stats.mean : stats.max;
    }
  }

  double mean_sum = 0;
  int measured = 0;
  for (auto& [key, gpu] : devices) {
    if (gpu.utilization_mean) {
      mean_sum += *gpu.utilization_mean;
      ++measured;
    }
    if (gpu.memory_total_mb) usage.gpu_memory_total_mb = usage.gpu_memory_total_mb.value_or(0) + *gpu.memory_total_mb;
    usage.gpu_devices.push_back(std::move(gpu));
  }
  if (measured > 0) usage.gpu_utilization_mean = mean_sum / measured;
  usage.gpu_utilization_max = max_over_all(utilization);

  // Memory as resident memory is: the job's GPUs summed at each instant.
  usage.gpu_memory_peak_mb = max_of(sum_per_instant(pointers_to(series_of(series, "jobs_gpu_memory_used_mb"))));
  auto power = sum_per_instant(pointers_to(series_of(series, "jobs_gpu_power_watts")));
  usage.gpu_power_mean_w = mean_of(power);
  // The mean power over the job's whole runtime, as cpu_avg_percent takes
  // the CPU time over it: the samples (one per step) rarely span the whole
  // job, so integrating between them would leave its first and last moments
  // out (a 15 s job sampled at 15 s steps would have spent nothing).
  if (usage.gpu_power_mean_w && usage.runtime_seconds)
    usage.gpu_energy_wh = *usage.gpu_power_mean_w * static_cast<double>(*usage.runtime_seconds) / 3600;
}

std::optional<std::int64_t> runtime_of(const JobRecord& job, const std::map<std::string, std::vector<Series>>& series) {
  if (!job.start) return std::nullopt;
  if (job.end) return std::max<std::int64_t>(0, *job.end - *job.start);
  std::optional<double> latest;
  for (const auto& [name, of_metric] : series)
    for (const Series& s : of_metric)
      if (!s.samples.empty() && (!latest || s.samples.back().time > *latest)) latest = s.samples.back().time;
  if (!latest) return std::nullopt;
  return std::max<std::int64_t>(0, static_cast<std::int64_t>(*latest) - *job.start);
}

// After a job's end a series holds its final reading, published by the
// collector when it saw the end and scraped a little later, then repeats
// of it while it lingers: only the last of them stays.
void keep_one_sample_after(std::map<std::string, std::vector<Series>>& series, double end) {
  for (auto& [name, of_metric] : series) {
    for (Series& s : of_metric) {
      auto after = std::upper_bound(s.samples.begin(), s.samples.end(), end,
                                    [](double t, const Sample& sample) { return t < sample.time; });
      if (after == s.samples.end()) continue;
      Sample last = s.samples.back();
      s.samples.erase(after, s.samples.end());
      s.samples.push_back(last);
    }
  }
}

// Why nothing is known about the job's use: one sentence.
std::string no_usage_reason(const JobRecord& job) {
  if (!job.start) return "The job has not started: there is nothing to measure yet.";
  if (!job.end)
    return "No samples yet: petricore collect has not reported the job (it has just started, or the collector is "
           "not running on its nodes).";
  return "No samples were recorded (a job shorter than the collector's interval, or no collector on its nodes), and "
         "the accounting record has neither TotalCPU nor MaxRSS.";
}

}  // namespace

JobUsage summarize(JobRecord job, std::map<std::string, std::vector<Series>> series,
                   std::optional<std::vector<Series>> gpu_utilization) {
  for (auto it = series.begin(); it != series.end();) {
    bool has_sample =
        std::any_of(it->second.begin(), it->second.end(), [](const Series& s) { return !s.samples.empty(); });
    it = has_sample ? std::next(it) : series.erase(it);
  }
  if (job.end) keep_one_sample_after(series, static_cast<double>(*job.end));

  JobUsage usage;
  usage.runtime_seconds = runtime_of(job, series);
  usage.job = std::move(job);
  const JobRecord& record = usage.job;

  usage.cpu_time_total = sum_of_last_per_node(series_of(series, "jobs_cpu_time_total"));
  if (!usage.cpu_time_total && record.finished() && record.total_cpu_seconds) {
    usage.cpu_time_total = record.total_cpu_seconds;
    usage.cpu_time_source = FigureSource::Accounting;
  }
  if (usage.cpu_time_total && usage.runtime_seconds && *usage.runtime_seconds > 0)
    usage.cpu_avg_percent = 100 * *usage.cpu_time_total / static_cast<double>(*usage.runtime_seconds);
  usage.cpu_max_percent = max_of(sum_per_instant(pointers_to(series_of(series, "jobs_cpu_percent"))));
  // The fastest stretch ran at least as fast as the job did on average; a
  // few samples can miss it.
  if (usage.cpu_max_percent && usage.cpu_avg_percent && *usage.cpu_max_percent < *usage.cpu_avg_percent)
    usage.cpu_max_percent = usage.cpu_avg_percent;
  usage.user_time = sum_of_last_per_node(series_of(series, "jobs_user_time"));
  usage.system_time = sum_of_last_per_node(series_of(series, "jobs_system_time"));
  usage.cpu_time_core = core_times(series_of(series, "jobs_cpu_time_core"));
  usage.cores_used = count_cores_used(usage.cpu_time_core);

  auto resident_peaks = peaks_per_node(series_of(series, "jobs_rss"));
  if (!resident_peaks.empty()) {
    double sum = 0;
    for (const auto& [node, peak] : resident_peaks) {
      usage.resident_peak_by_node[node] = peak.value;
      sum += peak.value;
    }
    usage.memory_resident_mb = sum;
    usage.memory_at_peak = breakdown_at(series, resident_peaks);
  } else if (record.finished() && record.max_rss_mb) {
    usage.memory_resident_mb = record.max_rss_mb;
    usage.memory_resident_source = FigureSource::Accounting;
  }
  usage.memory_peak_mb = memory_peak(series_of(series, "jobs_memory_peak_mb"), resident_peaks);

  usage.opened_files_avg = mean_of(sum_per_instant(pointers_to(series_of(series, "jobs_opened_files"))));
  usage.read_mb = sum_of_last_per_node(series_of(series, "jobs_read_mb")).value_or(0);
  usage.write_mb = sum_of_last_per_node(series_of(series, "jobs_write_mb")).value_or(0);
  usage.read_count = sum_of_last_per_node(series_of(series, "jobs_read_count")).value_or(0);
  usage.write_count = sum_of_last_per_node(series_of(series, "jobs_write_count")).value_or(0);
  usage.uses_scratch = any_sample_set(series_of(series, "jobs_uses_scratch"));

  usage.threads_max = thread_maxima(series_of(series, "jobs_thread_count"));
  usage.gpus = gpus_per_node(series_of(series, "jobs_gpus_used"));
  summarize_gpus(usage, series, std::move(gpu_utilization));

  usage.series = std::move(series);
  if (usage.no_usage()) {
    usage.missing.push_back(no_usage_reason(record));
  } else if (record.start) {
    const char* why_not_accounting =
        !record.finished() ? "the job is still running" : "the accounting record has none either";
    if (!usage.cpu_time_total)
      usage.missing.push_back(std::string("CPU time: no jobs_cpu_time_total sample, and ") + why_not_accounting +
                              " (TotalCPU)");
    if (!usage.memory_resident_mb)
      usage.missing.push_back(std::string("resident memory: no jobs_rss sample, and ") + why_not_accounting +
                              " (MaxRSS)");
  }
  model::compute_ratios(usage);
  return usage;
}

}  // namespace petricore::analysis
