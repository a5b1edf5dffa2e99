// Builds a JobUsage from a job's record and its series (pure: tests call it
// directly).
#pragma once

#include "model/job_usage.hpp"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace petricore::analysis {

// Builds the aggregates from the series (pure: tests call it directly).
// `series` maps metric names to what a range query returned over the job's
// window; `gpu_utilization` another exporter's utilisation series of its
// GPUs, if any (used only when the job has no jobs_gpu_utilization_percent,
// petricore's own).
// Samples after a finished job's end are the collector's final readings
// (published when it saw the job end, scraped a little later): of those,
// each series keeps only its last, so counters end at their final values and
// nothing after the end is counted twice. Metric names without any series
// are dropped, so no_metrics() holds when no jobs_* series had a sample. NaN
// and ±Inf samples are ignored. A finished job's CPU time and resident peak
// fall back to the record's TotalCPU and MaxRSS when no sample has them.
model::JobUsage summarize(model::JobRecord job, std::map<std::string, std::vector<model::Series>> series,
                          std::optional<std::vector<model::Series>> gpu_utilization);

// summarize() sets the ratios last with model::compute_ratios
// (model/job_usage.hpp).

}  // namespace petricore::analysis
