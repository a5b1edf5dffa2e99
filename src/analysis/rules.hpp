// The findings of ARCHITECTURE.md §6: each rule looks at one JobUsage and may
// produce a finding with a severity, a message, concrete advice, the measured
// value and the threshold. Every threshold is configurable ([rules]).
#pragma once

#include "analysis/job_usage.hpp"

#include <string>
#include <vector>

namespace petricore::analysis {

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
};

enum class Severity { Info, Warning, Critical };
const char* severity_name(Severity severity);  // "info", "warning", "critical"

struct Finding {
  std::string rule;  // cpu_efficiency, cpu_stability, ...
  Severity severity = Severity::Info;
  std::string message;   // what was seen, one sentence
  std::string advice;    // what to do, one or two sentences
  double value = 0;      // in `unit`
  double threshold = 0;  // in `unit`
  std::string unit;      // "%", "ratio", "MB", "s", "count"
};

std::vector<Finding> evaluate_rules(const JobUsage& usage, const RuleThresholds& thresholds);

// True when any finding is critical or warning (info does not count).
bool has_warning(const std::vector<Finding>& findings);

}  // namespace petricore::analysis
