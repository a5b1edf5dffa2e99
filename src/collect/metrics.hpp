// Turns one pass's JobSamples into the jobs_* metric families of the metric
// contract (ARCHITECTURE.md §4), plus jobs_info, the allocation families and
// the collector's self-metrics. The snapshot is rebuilt each pass, so the
// series of a job that ended are absent from the next one in every sink.
#pragma once

#include "collect/job_sample.hpp"
#include "collect/sink.hpp"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace petricore::collect {

struct SelfMetrics {
  double collect_duration_seconds = 0;
  std::map<std::string, std::uint64_t> errors_by_source;
};

Snapshot build_snapshot(const std::vector<JobSample>& jobs, const std::string& instance, const SelfMetrics& self);

}  // namespace petricore::collect
