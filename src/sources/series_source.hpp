// Where the analysis reads a job's time series from: a store answering
// PromQL range queries. PrometheusClient is the one in use (Prometheus,
// Thanos, VictoriaMetrics, Mimir); tests give the analyzer their own.
#pragma once

#include "core/result.hpp"
#include "model/series.hpp"

#include <string>
#include <vector>

namespace petricore::sources {

class SeriesSource {
 public:
  virtual ~SeriesSource() = default;
  // Range query from `start` to `end` (epoch seconds), `step` in seconds.
  // Unavailable when the store failed, with its reason.
  virtual Result<std::vector<model::Series>> query_range(const std::string& promql, double start, double end,
                                                         double step) = 0;
  // Requests made so far, by every caller (the analysis logs how few a job
  // needs).
  virtual int requests() const = 0;
};

}  // namespace petricore::sources
