// The jobs behind the render golden files (test/fixtures/render/): a serial
// job, two idle GPU nodes, one killed for memory before any sample, a running
// one; built from one sample a minute, so every figure is known. The render,
// read-back and PDF tests share them.
#pragma once

#include "analysis/rules.hpp"
#include "analysis/usage_summary.hpp"
#include "model/job_report.hpp"
#include "sample_jobs.hpp"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace petricore::test::golden {

using model::JobRecord;
using model::JobReport;
using model::Series;

using Labels = std::map<std::string, std::string>;
using Metrics = std::map<std::string, std::vector<Series>>;

constexpr std::int64_t kStart = kSampleStart;  // 2026-11-29T18:09:15Z

// One sample per minute from the job's start.
inline Series per_minute(Labels labels, std::vector<double> values) {
  Series s;
  s.labels = std::move(labels);
  for (std::size_t i = 0; i < values.size(); ++i)
    s.samples.push_back({static_cast<double>(kStart) + 60.0 * static_cast<double>(i), values[i]});
  return s;
}

inline Labels on(const std::string& instance, Labels extra = {}) {
  extra["instance"] = instance;
  extra["slurm_job"] = "51234";
  return extra;
}

// A serial Python script on four cores of one node, with too much memory
// asked for and its I/O outside scratch.
inline JobReport serial_job() {
  JobRecord job;
  job.job_id = job.raw_id = "51234";
  job.name = "fit-model";
  job.user = "alice";
  job.account = "def-alice";
  job.partition = "cpu";
  job.state = "COMPLETED";
  job.start = kStart;
  job.end = kStart + 602;
  job.time_limit_seconds = 3600;
  job.alloc_cpus = 4;
  job.alloc_mem_mb = 8000;
  job.alloc_nodes = 1;
  job.node_list = "node01";
  job.billing = 4;
  Metrics m;
  m["jobs_cpu_percent"] = {per_minute(on("node01"), {0, 98, 99.5, 100, 99, 100, 98.5, 99, 100, 100, 99})};
  m["jobs_cpu_time_total"] = {per_minute(on("node01"), {0, 60, 120, 180, 240, 300, 360, 420, 480, 540, 590.25})};
  m["jobs_user_time"] = {per_minute(on("node01"), {0, 580.5})};
  m["jobs_system_time"] = {per_minute(on("node01"), {0, 9.75})};
  m["jobs_cpu_time_core"] = {
      per_minute(on("node01", {{"core", "0"}}), {0, 560.25}), per_minute(on("node01", {{"core", "1"}}), {0, 10}),
      per_minute(on("node01", {{"core", "2"}}), {0, 10}), per_minute(on("node01", {{"core", "3"}}), {0, 10})};
  m["jobs_rss"] = {per_minute(on("node01"), {100, 900, 1500, 1480})};
  m["jobs_memory_peak_mb"] = {per_minute(on("node01"), {120, 950, 1550.5, 1550.5})};
  m["jobs_opened_files"] = {per_minute(on("node01"), {3, 4, 4, 5})};
  m["jobs_read_mb"] = {per_minute(on("node01"), {0, 400, 812.4})};
  m["jobs_write_mb"] = {per_minute(on("node01"), {0, 10, 20.6})};
  m["jobs_read_count"] = {per_minute(on("node01"), {0, 900, 1800})};
  m["jobs_write_count"] = {per_minute(on("node01"), {0, 60, 120})};
  m["jobs_uses_scratch"] = {per_minute(on("node01"), {0, 0, 0})};
  m["jobs_thread_count"] = {per_minute(on("node01", {{"proc_name", "python3"}}), {1, 1, 1}),
                            per_minute(on("node01", {{"proc_name", "bash"}}), {1, 1})};
  return report_from(job, m);
}

// Two GPU nodes whose GPUs idled, with an uneven core load.
inline JobReport gpu_job() {
  JobRecord job;
  job.job_id = job.raw_id = "51240";
  job.name = "train";
  job.user = "bob";
  job.account = "rrg-bob";
  job.state = "COMPLETED";
  job.start = kStart;
  job.end = kStart + 7200;
  job.time_limit_seconds = 8 * 3600;
  job.alloc_cpus = 4;
  job.alloc_mem_mb = 16000;
  job.alloc_nodes = 2;
  job.node_list = "gpu[01-02]";
  job.alloc_gpus = 2;
  job.billing = 12;
  Metrics m;
  m["jobs_cpu_percent"] = {per_minute(on("gpu01"), {190, 200, 200}), per_minute(on("gpu02"), {150, 100, 150})};
  m["jobs_cpu_time_total"] = {per_minute(on("gpu01"), {14000}), per_minute(on("gpu02"), {9000})};
  m["jobs_user_time"] = {per_minute(on("gpu01"), {13000}), per_minute(on("gpu02"), {8000})};
  m["jobs_system_time"] = {per_minute(on("gpu01"), {1000}), per_minute(on("gpu02"), {1000})};
  m["jobs_cpu_time_core"] = {
      per_minute(on("gpu01", {{"core", "0"}}), {7000}), per_minute(on("gpu01", {{"core", "1"}}), {7000}),
      per_minute(on("gpu02", {{"core", "0"}}), {7000}), per_minute(on("gpu02", {{"core", "1"}}), {2000})};
  m["jobs_rss"] = {per_minute(on("gpu01"), {6000, 6500}), per_minute(on("gpu02"), {6000, 6400})};
  m["jobs_opened_files"] = {per_minute(on("gpu01"), {20}), per_minute(on("gpu02"), {21})};
  m["jobs_read_mb"] = {per_minute(on("gpu01"), {40})};
  m["jobs_write_mb"] = {per_minute(on("gpu01"), {2})};
  m["jobs_read_count"] = {per_minute(on("gpu01"), {100})};
  m["jobs_write_count"] = {per_minute(on("gpu01"), {10})};
  m["jobs_uses_scratch"] = {per_minute(on("gpu01"), {1}), per_minute(on("gpu02"), {0})};
  m["jobs_thread_count"] = {per_minute(on("gpu01", {{"proc_name", "python"}}), {6, 6}),
                            per_minute(on("gpu02", {{"proc_name", "python"}}), {6, 7})};
  m["jobs_gpus_used"] = {per_minute(on("gpu01", {{"gpuid", "0"}}), {1}),
                         per_minute(on("gpu02", {{"gpuid", "1"}}), {1})};
  std::vector<Series> utilisation = {per_minute({{"instance", "gpu01"}, {"gpu", "0"}}, {0, 0}),
                                     per_minute({{"instance", "gpu02"}, {"gpu", "1"}}, {0, 0})};
  return report_from(job, m, utilisation);
}

// Killed for memory before any sample reached Prometheus.
inline JobReport oom_without_metrics() {
  JobRecord job;
  job.job_id = "51250_3";
  job.raw_id = "51253";
  job.name = "assemble";
  job.user = "carol";
  job.account = "def-carol";
  job.state = "OUT_OF_MEMORY";
  job.start = kStart;
  job.end = kStart + 95;
  job.alloc_cpus = 1;
  job.alloc_mem_mb = 2000;
  job.alloc_nodes = 1;
  job.node_list = "node07";
  return report_from(job, {});
}

// A running job: no end yet, runtime up to its latest sample.
inline JobReport running_job() {
  JobRecord job;
  job.job_id = job.raw_id = "51260";
  job.user = "dave";
  job.account = "def-dave";
  job.state = "RUNNING";
  job.start = kStart;
  job.alloc_cpus = 2;
  job.alloc_nodes = 1;
  job.node_list = "node02";
  Metrics m;
  m["jobs_cpu_percent"] = {per_minute(on("node02"), {199, 200, 198.5})};
  m["jobs_rss"] = {per_minute(on("node02"), {500, 510})};
  return report_from(job, m);
}

}  // namespace petricore::test::golden
