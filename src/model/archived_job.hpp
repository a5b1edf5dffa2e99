// One finished job as the job archive keeps it beyond Prometheus's
// retention: its accounting facts, the figures the fleet view adds up, its
// findings, the job JSON of /api/v1/jobs/<id>/usage as it was rendered, and
// its chart series, downsampled. A record is never changed once written: a
// re-analysis is stored as the job's next version.
#pragma once

#include "model/job_record.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace petricore::model {

struct ArchivedJob {
  JobRecord job;  // the accounting facts: ids, owner, window, allocation, state

  int version = 0;               // 1 for the first analysis, then one more per re-analysis; set by the store
  std::int64_t archived_at = 0;  // epoch seconds
  bool from_metrics = true;      // false: Prometheus had no samples any more, accounting alone

  // The figures the fleet view sums (ARCHITECTURE.md §5 meanings).
  std::optional<double> cpu_time_seconds;      // the job's CPU time (metrics, else TotalCPU)
  std::optional<double> memory_resident_mb;    // peak resident memory (metrics, else MaxRSS)
  std::optional<double> gpu_utilization_mean;  // %, mean per allocated GPU

  std::vector<std::pair<std::string, std::string>> findings;  // (rule, severity), as evaluated
  bool warning = false;

  std::string usage_json;  // the job JSON document
  std::string series;      // the chart series, downsampled and compressed (opaque to the store)
};

}  // namespace petricore::model
