// Jobs with realistic series for the chart, PDF and HTML tests: built from
// formulas, not recorded, so every value at every instant is known.
#pragma once

#include "analysis/rules.hpp"
#include "analysis/usage_summary.hpp"
#include "model/job_report.hpp"

#include <cmath>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace petricore::test {

constexpr std::int64_t kSampleStart = 1'795'975'755;  // 2026-11-29T18:09:15Z

// `count` samples every `step` seconds from kSampleStart, value = f(i).
inline model::Series sample_series(std::map<std::string, std::string> labels, std::size_t count, double step,
                                   const std::function<double(std::size_t)>& f) {
  model::Series s;
  s.labels = std::move(labels);
  s.samples.reserve(count);
  for (std::size_t i = 0; i < count; ++i) s.samples.push_back({static_cast<double>(kSampleStart) + step * i, f(i)});
  return s;
}

// The report the analyzer makes of `record` and `metrics` (and the GPU
// utilisation series `gpu`), judged at `thresholds`.
inline model::JobReport report_from(model::JobRecord record, std::map<std::string, std::vector<model::Series>> metrics,
                                    std::optional<std::vector<model::Series>> gpu = std::nullopt,
                                    model::RuleThresholds thresholds = {}) {
  model::JobReport report;
  report.usage = analysis::summarize(std::move(record), std::move(metrics), std::move(gpu));
  report.findings = analysis::evaluate_rules(report.usage, thresholds);
  report.warning = model::has_warning(report.findings);
  report.thresholds = std::move(thresholds);
  return report;
}

// Job 9001 of bob, killed for memory 40 s in, before any sample reached
// Prometheus: 4 cores and 2000 MB on node07, nothing measured.
inline model::JobReport oom_before_samples_job() {
  model::JobRecord job;
  job.job_id = job.raw_id = "9001";
  job.name = "oom";
  job.user = "bob";
  job.account = "def-bob";
  job.partition = "cpu";
  job.state = "OUT_OF_MEMORY";
  job.start = kSampleStart;
  job.end = kSampleStart + 40;
  job.alloc_cpus = 4;
  job.alloc_mem_mb = 2000;
  job.alloc_nodes = 1;
  job.node_list = "node07";
  return report_from(std::move(job), {});
}

// Job 4242 of alice: 1 hour on 4 nodes (node01..node04) with 8 cores each,
// sampled every 15 s (241 samples per series). Node n (1-based) runs at
// 100 * (n + 1) % CPU (so 200, 300, 400, 500 %: far below the 3,200 % asked
// for), its memory climbs linearly from 100 MB to 1,000 * n MB, it reads
// 10 MB/min and writes n MB/min; threads: "solver" 8 per node, "bash" 1.
inline model::JobReport four_node_job() {
  model::JobRecord job;
  job.job_id = job.raw_id = "4242";
  job.name = "cfd-run";
  job.user = "alice";
  job.account = "def-alice";
  job.partition = "cpu";
  job.state = "COMPLETED";
  job.start = kSampleStart;
  job.end = kSampleStart + 3600;
  job.time_limit_seconds = 4 * 3600;
  job.alloc_cpus = 32;
  job.alloc_mem_mb = 64000;
  job.alloc_nodes = 4;
  job.node_list = "node[01-04]";
  job.billing = 32;
  const std::size_t n = 241;
  const double step = 15;
  std::map<std::string, std::vector<model::Series>> m;
  for (int node = 1; node <= 4; ++node) {
    const std::string name = "node0" + std::to_string(node);
    auto on = [&](std::map<std::string, std::string> extra = {}) {
      extra["instance"] = name;
      extra["slurm_job"] = "4242";
      return extra;
    };
    const double percent = 100.0 * (node + 1);
    m["jobs_cpu_percent"].push_back(sample_series(on(), n, step, [&](std::size_t) { return percent; }));
    m["jobs_cpu_time_total"].push_back(
        sample_series(on(), n, step, [&](std::size_t i) { return percent / 100 * step * i; }));
    m["jobs_user_time"].push_back(
        sample_series(on(), n, step, [&](std::size_t i) { return 0.9 * percent / 100 * step * i; }));
    m["jobs_system_time"].push_back(
        sample_series(on(), n, step, [&](std::size_t i) { return 0.1 * percent / 100 * step * i; }));
    for (int core = 0; core < 8; ++core) {
      m["jobs_cpu_time_core"].push_back(sample_series(on({{"core", std::to_string(core)}}), n, step,
                                                      [&](std::size_t i) { return percent / 800 * step * i; }));
    }
    m["jobs_rss"].push_back(sample_series(
        on(), n, step, [&](std::size_t i) { return 100 + (1000.0 * node - 100) * static_cast<double>(i) / (n - 1); }));
    m["jobs_read_mb"].push_back(sample_series(on(), n, step, [&](std::size_t i) { return 10 * step * i / 60; }));
    m["jobs_write_mb"].push_back(
        sample_series(on(), n, step, [&](std::size_t i) { return node * step * static_cast<double>(i) / 60; }));
    m["jobs_read_count"].push_back(sample_series(on(), n, step, [&](std::size_t i) { return 20.0 * i; }));
    m["jobs_write_count"].push_back(sample_series(on(), n, step, [&](std::size_t i) { return 5.0 * i; }));
    m["jobs_opened_files"].push_back(sample_series(on(), n, step, [&](std::size_t) { return 12; }));
    m["jobs_uses_scratch"].push_back(sample_series(on(), n, step, [&](std::size_t) { return 0; }));
    m["jobs_spawned_processes"].push_back(sample_series(on(), n, step, [&](std::size_t) { return 3; }));
    m["jobs_thread_count"].push_back(
        sample_series(on({{"proc_name", "solver"}}), n, step, [](std::size_t) { return 8; }));
    m["jobs_thread_count"].push_back(
        sample_series(on({{"proc_name", "bash"}}), n, step, [](std::size_t) { return 1; }));
  }
  return report_from(std::move(job), std::move(m));
}

// Job 4300 of erin: 10 minutes on one core, streaming a large file through
// the page cache. Resident memory (anon + shmem) stays at 3 MB; the page
// cache grows to 510 MB, so the cgroup's peak, cache included, is 516 MB.
// Sampled every 15 s (41 samples); no swap series.
inline model::JobReport page_cache_job() {
  model::JobRecord job;
  job.job_id = job.raw_id = "4300";
  job.name = "stream";
  job.user = "erin";
  job.account = "def-erin";
  job.partition = "cpu";
  job.state = "COMPLETED";
  job.start = kSampleStart;
  job.end = kSampleStart + 600;
  job.time_limit_seconds = 900;
  job.alloc_cpus = 1;
  job.alloc_mem_mb = 4000;
  job.alloc_nodes = 1;
  job.node_list = "node05";
  const std::size_t n = 41;
  const double step = 15;
  const std::map<std::string, std::string> on = {{"instance", "node05"}, {"slurm_job", "4300"}};
  auto ramp = [](double first, double last) { return [first, last](std::size_t i) { return i == 0 ? first : last; }; };
  std::map<std::string, std::vector<model::Series>> m;
  m["jobs_cpu_percent"] = {sample_series(on, n, step, [](std::size_t) { return 95; })};
  m["jobs_cpu_time_total"] = {sample_series(on, n, step, [&](std::size_t i) { return 0.95 * step * i; })};
  m["jobs_rss"] = {sample_series(on, n, step, ramp(2.5, 3))};
  m["jobs_memory_anon_mb"] = {sample_series(on, n, step, ramp(2, 2.5))};
  m["jobs_memory_shmem_mb"] = {sample_series(on, n, step, ramp(0.5, 0.5))};
  m["jobs_memory_file_mb"] = {sample_series(on, n, step, ramp(200, 510))};
  m["jobs_memory_kernel_mb"] = {sample_series(on, n, step, ramp(3, 3))};
  m["jobs_memory_peak_mb"] = {sample_series(on, n, step, ramp(210, 516))};
  m["jobs_read_mb"] = {sample_series(on, n, step, [&](std::size_t i) { return 125.0 * i; })};
  m["jobs_write_mb"] = {sample_series(on, n, step, [](std::size_t) { return 0; })};
  m["jobs_opened_files"] = {sample_series(on, n, step, [](std::size_t) { return 2; })};
  m["jobs_uses_scratch"] = {sample_series(on, n, step, [](std::size_t) { return 1; })};
  return report_from(std::move(job), std::move(m));
}

// Job 4301 of frank: ended after 20 s, before the collector sampled it; Slurm's
// accounting record has TotalCPU 18 s and MaxRSS 700 MB, which stand in.
inline model::JobReport accounting_only_job() {
  model::JobRecord job;
  job.job_id = job.raw_id = "4301";
  job.name = "quick";
  job.user = "frank";
  job.account = "def-frank";
  job.partition = "cpu";
  job.state = "COMPLETED";
  job.start = kSampleStart;
  job.end = kSampleStart + 20;
  job.time_limit_seconds = 600;
  job.alloc_cpus = 1;
  job.alloc_mem_mb = 2000;
  job.alloc_nodes = 1;
  job.node_list = "node06";
  job.total_cpu_seconds = 18;
  job.max_rss_mb = 700;
  return report_from(std::move(job), {});
}

// Job 4302: the same 20 s job, but its accounting record has neither
// TotalCPU nor MaxRSS: nothing at all is known of its use.
inline model::JobReport no_usage_job() {
  model::JobRecord job;
  job.job_id = job.raw_id = "4302";
  job.name = "quick";
  job.user = "frank";
  job.account = "def-frank";
  job.partition = "cpu";
  job.state = "COMPLETED";
  job.start = kSampleStart;
  job.end = kSampleStart + 20;
  job.time_limit_seconds = 600;
  job.alloc_cpus = 1;
  job.alloc_mem_mb = 2000;
  job.alloc_nodes = 1;
  job.node_list = "node06";
  return report_from(std::move(job), {});
}

// Job 4400 of grace: 1 hour of training on two GPUs of gpu03 with 16 cores,
// sampled every 15 s (241 samples), with petricore's own jobs_gpu_* series.
// GPU 0 is busy 20 % with a burst to 90 % every fourth sample (mean
// 9090 / 241 = 37.7 %), GPU 1 a flat 30 %: 33.9 % per GPU on average, a
// gpu_efficiency warning and nothing else. Device memory climbs linearly to
// 12000 and 9000 of 40960 MiB each; power is 80 W + 2 W per % busy on GPU 0
// and a flat 140 W on GPU 1. CPU 1400 % of 1600, memory 40000 of 48000 MB.
inline model::JobReport gpu_training_job() {
  model::JobRecord job;
  job.job_id = job.raw_id = "4400";
  job.name = "train-resnet";
  job.user = "grace";
  job.account = "def-grace";
  job.partition = "gpu";
  job.state = "COMPLETED";
  job.start = kSampleStart;
  job.end = kSampleStart + 3600;
  job.time_limit_seconds = 5400;
  job.alloc_cpus = 16;
  job.alloc_mem_mb = 48000;
  job.alloc_nodes = 1;
  job.alloc_gpus = 2;
  job.node_list = "gpu03";
  job.billing = 48;
  const std::size_t n = 241;
  const double step = 15;
  auto on = [](std::map<std::string, std::string> extra = {}) {
    extra["instance"] = "gpu03";
    extra["slurm_job"] = "4400";
    return extra;
  };
  auto ramp = [&](double from, double to) {
    return [=](std::size_t i) { return from + (to - from) * static_cast<double>(i) / (n - 1); };
  };
  std::map<std::string, std::vector<model::Series>> m;
  m["jobs_cpu_percent"].push_back(sample_series(on(), n, step, [](std::size_t) { return 1400; }));
  m["jobs_cpu_time_total"].push_back(sample_series(on(), n, step, [&](std::size_t i) { return 14 * step * i; }));
  m["jobs_user_time"].push_back(sample_series(on(), n, step, [&](std::size_t i) { return 13 * step * i; }));
  m["jobs_system_time"].push_back(sample_series(on(), n, step, [&](std::size_t i) { return 1 * step * i; }));
  for (int core = 0; core < 16; ++core)
    m["jobs_cpu_time_core"].push_back(sample_series(on({{"core", std::to_string(core)}}), n, step,
                                                    [&](std::size_t i) { return 14.0 / 16 * step * i; }));
  m["jobs_rss"].push_back(sample_series(on(), n, step, ramp(2000, 40000)));
  m["jobs_read_mb"].push_back(sample_series(on(), n, step, ramp(0, 24000)));
  m["jobs_write_mb"].push_back(sample_series(on(), n, step, ramp(0, 300)));
  m["jobs_opened_files"].push_back(sample_series(on(), n, step, [](std::size_t) { return 40; }));
  m["jobs_uses_scratch"].push_back(sample_series(on(), n, step, [](std::size_t) { return 1; }));
  m["jobs_thread_count"].push_back(
      sample_series(on({{"proc_name", "python"}}), n, step, [](std::size_t) { return 24; }));
  auto busy0 = [](std::size_t i) { return i % 4 == 0 ? 90.0 : 20.0; };
  for (const char* id : {"0", "1"}) {
    const bool first = std::string(id) == "0";
    m["jobs_gpus_used"].push_back(sample_series(on({{"gpuid", id}}), n, step, [](std::size_t) { return 1; }));
    m["jobs_gpu_info"].push_back(sample_series(on({{"gpuid", id},
                                                   {"uuid", std::string("GPU-4400-") + id},
                                                   {"model", "NVIDIA A100-SXM4-40GB"},
                                                   {"vendor", "nvidia"}}),
                                               n, step, [](std::size_t) { return 1; }));
    m["jobs_gpu_utilization_percent"].push_back(
        sample_series(on({{"gpuid", id}}), n, step, [&](std::size_t i) { return first ? busy0(i) : 30.0; }));
    m["jobs_gpu_memory_utilization_percent"].push_back(
        sample_series(on({{"gpuid", id}}), n, step, [&](std::size_t i) { return first ? busy0(i) / 3 : 10.0; }));
    m["jobs_gpu_memory_used_mb"].push_back(
        sample_series(on({{"gpuid", id}}), n, step, first ? ramp(500, 12000) : ramp(500, 9000)));
    m["jobs_gpu_memory_total_mb"].push_back(
        sample_series(on({{"gpuid", id}}), n, step, [](std::size_t) { return 40960; }));
    m["jobs_gpu_power_watts"].push_back(
        sample_series(on({{"gpuid", id}}), n, step, [&](std::size_t i) { return first ? 80 + 2 * busy0(i) : 140.0; }));
  }
  return report_from(std::move(job), std::move(m));
}

}  // namespace petricore::test
