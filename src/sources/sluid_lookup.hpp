// The numeric job id of a Slurm 26.05 SLUID (model/sluid.hpp), for `report`
// and `serve`, which accept a SLUID wherever a job id is accepted: the
// collector exports a SLUID-named job as jobs_info{slurm_job="<id>",
// sluid="<SLUID>"} once the job's environment gave the id, and only then is
// it known here. Jobs are analysed by that id; the SLUID is only a way in.
#pragma once

#include "core/result.hpp"
#include "model/job_id.hpp"

#include <cstddef>
#include <mutex>
#include <string>
#include <unordered_map>

namespace petricore::sources {

class PrometheusClient;

class SluidLookup {
 public:
  // `prometheus` must outlive the lookup. `lookback_seconds`: how far back
  // the job's jobs_info series are looked for (the Prometheus accounting
  // source's default, 30 days).
  explicit SluidLookup(PrometheusClient& prometheus, double lookback_seconds = 30 * 86400.0);

  // The job id of `sluid`, a canonical SLUID (model::parse_sluid's). One
  // range query over the lookback at the first call for a SLUID; an answer
  // found is kept (a SLUID never changes its job). NotFound when no
  // jobs_info series has the SLUID, or only series still labelled by the
  // SLUID itself (the collector could not read the number yet);
  // Unavailable when Prometheus failed. Thread-safe.
  Result<model::JobId> job_id(const std::string& sluid);

 private:
  PrometheusClient& prometheus_;
  const double lookback_;
  std::mutex mutex_;
  std::unordered_map<std::string, model::JobId> known_;
};

}  // namespace petricore::sources
