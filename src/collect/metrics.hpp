// Turns one pass's JobSamples into the jobs_* metric families of the metric
// contract (ARCHITECTURE.md §4), plus jobs_info, the allocation families and
// the collector's self-metrics. The snapshot is rebuilt from the jobs it is
// given each time, so a job left out (one that ended, once its linger time is
// up: exported_jobs.hpp) is absent from every sink.
#pragma once

#include "collect/job_sample.hpp"
#include "collect/sink.hpp"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace petricore::collect {

struct SelfMetrics {
  double collect_duration_seconds = 0;
  std::map<std::string, std::uint64_t> errors_by_source;
  // petricore_jobs: the running jobs, when `jobs` also holds ended ones
  // (lingering); else jobs.size().
  std::optional<std::size_t> running_jobs;
};

Snapshot build_snapshot(const std::vector<JobSample>& jobs, const std::string& instance, const SelfMetrics& self);

}  // namespace petricore::collect
