// The thresholds of the findings (ARCHITECTURE.md §6), every one configurable
// in [rules]. The report carries the ones it was evaluated with so that the
// renderers draw and print the same levels.
#pragma once

#include <string>
#include <vector>

namespace petricore::model {

struct RuleThresholds {
  double min_runtime_seconds = 300;          // no rule but the state rule fires below
  double cpu_efficiency_critical = 65;       // % per allocated core
  double cpu_efficiency_warning = 80;        // %
  double cpu_stability_ratio = 0.75;         // mean / max of jobs_cpu_percent
  double core_imbalance_ratio = 0.9;         // core time / mean core time
  double serial_low = 0.85;                  // eff / (1/cores) lower bound
  double serial_high = 1.01;                 // eff / (1/cores) upper bound
  double memory_overallocated_ratio = 0.70;  // peak / allocated
  double memory_request_factor = 1.2;        // advice: request ceil(factor x peak)
  double memory_request_min_mb = 64;         // advice: never less per node (slurmstepd, libraries)
  double memory_near_limit_ratio = 0.95;     // peak / allocated
  double scratch_min_io_mb = 100;            // read + write MiB
  double small_io_mb_per_file = 5;           // MB per opened file
  double small_io_min_files = 1000;          // files
  double threads_per_cpu = 2;                // threads of one name / allocated CPUs
  // Process names too_many_threads leaves alone: Slurm's launchers.
  std::vector<std::string> threads_ignore{"srun", "slurmstepd", "sleep"};
  double time_critical_ratio = 0.10;  // elapsed / time limit
  double time_warning_ratio = 0.60;
  double gpu_efficiency_critical = 25;  // % mean utilisation per allocated GPU
  double gpu_efficiency_warning = 50;   // %
  double gpu_memory_low_ratio = 0.10;   // peak device memory used / device memory, every GPU
};

}  // namespace petricore::model
