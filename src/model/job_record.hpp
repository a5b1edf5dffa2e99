// What the accounting source (sacct, the DB view, or jobs_info in Prometheus)
// knows about one job: owner, time window, allocation, final state.
#pragma once

#include "core/number_text.hpp"

#include <cstdint>
#include <optional>
#include <string>

namespace petricore::model {

struct JobRecord {
  std::string job_id;  // as Slurm prints it: "123", "123_4", "123+1"
  std::string raw_id;  // the numeric id the collector labels slurm_job with (sacct JobIDRaw)
  std::string name;
  std::string user;
  std::optional<unsigned> uid;
  std::string account;  // the original's "sponsor"
  std::string partition;
  // The base state word (COMPLETED, RUNNING, PENDING, FAILED, CANCELLED,
  // TIMEOUT, OUT_OF_MEMORY, NODE_FAIL, ...); "CANCELLED by 0" becomes CANCELLED.
  std::string state;
  std::optional<std::int64_t> submit;              // epoch seconds
  std::optional<std::int64_t> start;               // epoch seconds; absent while pending
  std::optional<std::int64_t> end;                 // epoch seconds; absent while running
  std::optional<std::int64_t> time_limit_seconds;  // absent when unlimited
  int alloc_cpus = 0;
  std::optional<double> alloc_mem_mb;  // MB (MiB, as Slurm counts), whole job
  int alloc_nodes = 0;
  std::string node_list;  // as sacct prints it: "node[01-04]"
  int alloc_gpus = 0;
  std::optional<int> billing;
  // How memory was requested: true for --mem-per-cpu, false for --mem (per
  // node); absent when the source cannot tell (sacct prints the total since
  // Slurm 21.08; the DB view has mem_req's per-CPU flag).
  std::optional<bool> mem_per_cpu;
  // The task layout as the job's numbered steps (srun) show it: the most
  // tasks of one step, and that step's CPUs per task. Absent without a
  // numbered step (a batch script alone does not tell -n from -c).
  std::optional<int> tasks;
  std::optional<int> cpus_per_task;
  // Slurm's own measurements (sacct, or the DB view's steps): stand-ins for
  // figures the metrics lack (short jobs) and cross-checks. Absent when the
  // source has none (the jobs_info source, a job still running).
  std::optional<double> total_cpu_seconds;  // TotalCPU: user + system over the steps, seconds
  std::optional<double> max_rss_mb;         // max MaxRSS over the steps, MiB

  // raw_id as a number (what the job archive keeps a job under); nullopt
  // when it is empty or not a whole number.
  std::optional<std::int64_t> numeric_raw_id() const { return parse_whole_number(raw_id); }

  bool running() const { return start.has_value() && !end.has_value(); }
  bool finished() const { return end.has_value(); }
  // end - start, or now - start while running.
  std::optional<std::int64_t> elapsed_seconds(std::int64_t now) const {
    if (!start) return std::nullopt;
    return (end ? *end : now) - *start;
  }
};

}  // namespace petricore::model
