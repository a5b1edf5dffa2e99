// Everything known about one job in one value: its accounting record, the
// time series of its jobs_* metrics, and the aggregates the API, the rules and
// the renderers use (meanings: ARCHITECTURE.md §5 — a job's value is the sum
// over its nodes unless said otherwise).
#pragma once

#include "analysis/job_record.hpp"
#include "analysis/series.hpp"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace petricore::analysis {

struct CoreTime {
  std::string core;    // "<node>_core_<n>"
  double seconds = 0;  // jobs_cpu_time_core at the job's end
};

struct JobUsage {
  JobRecord job;

  // Seconds the job ran: end - start once it ended; while it runs, up to its
  // latest sample (summarize() reads no clock). Absent without a start.
  std::optional<std::int64_t> runtime_seconds;

  // CPU. Percentages are of one CPU; the job-wide value at an instant is the
  // sum of jobs_cpu_percent over the job's nodes.
  std::optional<double> cpu_avg_percent;   // mean over the job's life
  std::optional<double> cpu_max_percent;   // max over the job's life
  std::optional<double> cpu_time_total;    // seconds, last value summed over nodes
  std::optional<double> user_time;         // seconds
  std::optional<double> system_time;       // seconds
  std::vector<CoreTime> cpu_time_core;     // every allocated core of every node
  int cores_used = 0;                      // cores with >= 0.8 x the mean per-core time

  // Memory: the sum of the per-node peaks (jobs_memory_peak_mb, else max of jobs_rss).
  std::optional<double> memory_peak_mb;

  // I/O.
  std::optional<double> opened_files_avg;  // mean over time of the node sum
  double read_mb = 0;                      // last values summed over nodes
  double write_mb = 0;
  double read_count = 0;
  double write_count = 0;
  bool uses_scratch = false;

  // Threads: max over time of each name's count summed over nodes.
  std::map<std::string, double> threads_max;

  // GPUs allocated, per node: node -> node GPU indexes.
  std::map<std::string, std::vector<std::string>> gpus;
  // Max over the job of the GPUs' utilisation (percent); absent when no
  // utilisation series exist for them.
  std::optional<double> gpu_utilization_max;
  // Those utilisation series themselves (percent; labels as the GPU exporter
  // sets them), for the charts.
  std::vector<Series> gpu_utilization_series;

  // The raw series by metric name, kept for charts.
  std::map<std::string, std::vector<Series>> series;

  // True when Prometheus had no jobs_* series at all for the job.
  bool no_metrics() const { return series.empty(); }
};

// Builds the aggregates from the series (pure: tests call it directly).
// `series` maps metric names to what a range query returned over the job's
// window; `gpu_utilization` the utilisation series of its GPUs, if any.
// Metric names without any series are dropped, so no_metrics() holds when no
// jobs_* series had a sample. NaN and ±Inf samples are ignored.
JobUsage summarize(JobRecord job, std::map<std::string, std::vector<Series>> series,
                   std::optional<std::vector<Series>> gpu_utilization);

}  // namespace petricore::analysis
