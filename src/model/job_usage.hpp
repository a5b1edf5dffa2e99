// What one job used, as the analysis found it: its accounting record, the
// time series of its jobs_* metrics, and the aggregates the API, the rules and
// the renderers use (meanings: ARCHITECTURE.md §5 — a job's value is the sum
// over its nodes unless said otherwise). analysis/usage_summary builds it.
#pragma once

#include "model/job_record.hpp"
#include "model/series.hpp"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace petricore::model {

struct CoreTime {
  std::string core;    // "<node>_core_<n>"
  double seconds = 0;  // jobs_cpu_time_core at the job's end
};

// Where a figure came from: the job's own samples, or — when there were
// none for it (a job shorter than the collector's interval, a node without
// the collector) — Slurm's accounting record (TotalCPU, MaxRSS).
enum class FigureSource { Metrics, Accounting };

// The parts of resident memory and what sits beside it, MB, at each node's
// resident peak (summed over nodes). Absent parts were not exported.
struct MemoryBreakdown {
  std::optional<double> anon;    // heap, stacks
  std::optional<double> shmem;   // tmpfs, shared memory
  std::optional<double> file;    // page cache: reclaimable, not resident use
  std::optional<double> kernel;  // kernel memory charged to the job
  std::optional<double> swap;    // swapped out
};

// One GPU the job held, from its per-GPU series: petricore's own jobs_gpu_*
// (NVML, ROCm SMI) or, for the utilisation only, another exporter's series
// when the job has none of petricore's. Absent figures were not exported
// (a MIG instance has no utilisation of its own, another exporter no memory
// or power).
struct GpuUsage {
  std::string node;                        // short node name
  std::string gpuid;                       // as Slurm numbers it; a MIG instance "<gpu>/<gi>"
  std::optional<double> utilization_mean;  // % of the time busy, mean over the samples
  std::optional<double> utilization_max;   // %
  std::optional<double> memory_peak_mb;    // MiB of device memory used, max over the samples
  std::optional<double> memory_total_mb;   // MiB the device (or MIG instance) has
  std::optional<double> power_mean_w;      // W, mean over the samples
};

struct JobUsage {
  JobRecord job;

  // Seconds the job ran: end - start once it ended; while it runs, up to its
  // latest sample (summarize() reads no clock). Absent without a start.
  std::optional<std::int64_t> runtime_seconds;

  // CPU. Percentages are of one CPU.
  std::optional<double> cpu_time_total;  // seconds: each node's final cgroup CPU time, summed
  FigureSource cpu_time_source = FigureSource::Metrics;
  // 100 x cpu_time_total / runtime: seff's definition, known for every job
  // with a CPU time and a runtime.
  std::optional<double> cpu_avg_percent;
  // The largest sampled rate (the sum of jobs_cpu_percent over the nodes at
  // an instant), never below the mean; absent without a sampled rate.
  std::optional<double> cpu_max_percent;
  std::optional<double> user_time;      // seconds
  std::optional<double> system_time;    // seconds
  std::vector<CoreTime> cpu_time_core;  // every allocated core of every node
  int cores_used = 0;                   // cores with >= 0.8 x the mean per-core time

  // Memory, MB. Resident memory is anon + shmem (jobs_rss): what the job
  // really held, comparable with Slurm's MaxRSS (see the README's table).
  std::optional<double> memory_resident_mb;  // peak resident: each node's max of jobs_rss, summed
  FigureSource memory_resident_source = FigureSource::Metrics;
  std::map<std::string, double> resident_peak_by_node;  // node -> its resident peak (metrics only)
  MemoryBreakdown memory_at_peak;                       // the parts at each node's resident peak
  // The cgroup's high-water mark, page cache included (jobs_memory_peak_mb;
  // a node without it counts its resident peak), summed over nodes.
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
  // Each GPU with a per-GPU series, by node then GPU number.
  std::vector<GpuUsage> gpu_devices;
  // The mean utilisation per GPU (percent): the average of the per-GPU
  // means over the GPUs with utilisation samples, so that every GPU counts
  // alike however many samples it has; absent without such samples.
  std::optional<double> gpu_utilization_mean;
  // Max over the job of the GPUs' utilisation (percent); absent when no
  // utilisation series exist for them.
  std::optional<double> gpu_utilization_max;
  // Another exporter's utilisation series (percent; instance and gpu set to
  // the node and GPU number), for the charts; empty when petricore's own
  // jobs_gpu_utilization_percent exists (it is in `series`).
  std::vector<Series> gpu_utilization_series;
  // Device memory, MiB. peak: the max over time of the sum over the job's
  // GPUs at each instant (as resident memory is), not the sum of each GPU's
  // own peak; total: the sum of the devices' memory.
  std::optional<double> gpu_memory_peak_mb;
  std::optional<double> gpu_memory_total_mb;
  // Power of the job's GPUs summed at each instant: its mean over time (W)
  // and its time integral (Wh, trapezoids between samples, up to the end).
  std::optional<double> gpu_power_mean_w;
  std::optional<double> gpu_energy_wh;

  // The raw series by metric name, kept for charts.
  std::map<std::string, std::vector<Series>> series;

  // Ratios of the figures above, computed once by summarize() so that the
  // rules and every face read the same number; absent when a side of the
  // division is unknown.
  // cpu_avg_percent per allocated CPU, in % (the mean is summed over nodes,
  // alloc_cpus counts every node's CPUs): how busy it kept what it asked for.
  std::optional<double> cpu_efficiency_percent;
  // memory_resident_mb over alloc_mem_mb, a fraction: the page cache is not
  // the job's use (the kernel reclaims it), so it never counts here.
  std::optional<double> memory_fraction;
  // runtime_seconds over the time limit, a fraction.
  std::optional<double> time_limit_fraction;

  // Figures that could not be known, each as "<figure>: <why>" (one line).
  std::vector<std::string> missing;

  // True when Prometheus had no jobs_* series at all for the job.
  bool no_metrics() const { return series.empty(); }
  // True when nothing at all is known of the job's use: no samples, and no
  // stand-in from accounting either.
  bool no_usage() const { return no_metrics() && !cpu_time_total && !memory_resident_mb; }
};

// Sets usage's ratios (cpu_efficiency_percent, memory_fraction,
// time_limit_fraction) from the figures they divide: what summarize() does
// last, and what a JobUsage built or read back by hand needs (tests, an
// archived job's JSON read again).
void compute_ratios(JobUsage& usage);

}  // namespace petricore::model
