// A client of the Prometheus HTTP API (/api/v1/query, /api/v1/query_range),
// which Thanos, VictoriaMetrics and Mimir also serve. libcurl (loaded through
// core/curl_library.hpp) stays inside the .cpp; answers are decoded as they
// arrive by sources/prometheus_answer.
#pragma once

#include "core/result.hpp"
#include "model/series.hpp"
#include "sources/series_source.hpp"

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace petricore::sources {

struct PrometheusConfig {
  std::string url;              // base URL, e.g. http://127.0.0.1:9090 (a path prefix is kept)
  double timeout_seconds = 10;  // whole request
};

class PrometheusClient final : public SeriesSource {
 public:
  // Throws StartupError (one line) when the URL is not http(s).
  explicit PrometheusClient(PrometheusConfig config);
  ~PrometheusClient() override;
  PrometheusClient(const PrometheusClient&) = delete;
  PrometheusClient& operator=(const PrometheusClient&) = delete;

  // Range query; `step` in seconds. Unavailable on transport errors, HTTP
  // errors and API errors ({"status":"error"}), with Prometheus's own reason.
  Result<std::vector<model::Series>> query_range(const std::string& promql, double start, double end,
                                                 double step) override;
  // Instant query at `time`: each series has one sample.
  Result<std::vector<model::Series>> query(const std::string& promql, double time);

  // Requests made so far (the benchmark checks how few a job needs).
  int requests() const override;
  const std::string& url() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace petricore::sources
