// Decodes the answers of the Prometheus HTTP API (/api/v1/query,
// /api/v1/query_range) into series as their bytes arrive. "matrix",
// "vector" and "scalar" results become series; {"status":"error",...}
// becomes an Unavailable error naming Prometheus's errorType and error.
//
// Streaming, not a document tree: a tree of a range answer took about eight
// times the answer's size (870 MB for 100 MB), and each of serve's workers
// may decode one. Here memory grows with the samples kept (16 bytes each,
// less than their ~25 bytes of text) and nothing else, and a body that stops
// being JSON is known at once, so the caller can stop reading it.
//
// What is accepted is exactly what a Boost.JSON document of the answer
// would give (test/fuzz/prometheus_json_fuzz.cpp checks the two against each
// other): the keys of an object in any order, the last of duplicated keys
// winning.
#pragma once

#include "core/result.hpp"
#include "model/series.hpp"

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace petricore::sources {

class PrometheusAnswer {
 public:
  PrometheusAnswer();
  ~PrometheusAnswer();
  PrometheusAnswer(const PrometheusAnswer&) = delete;
  PrometheusAnswer& operator=(const PrometheusAnswer&) = delete;

  // The next bytes of the body. False once they cannot make an answer (not
  // JSON, or JSON followed by more) and start() is kept: the rest need not be
  // read, finish() says why.
  bool feed(std::string_view bytes);

  // After the last bytes: the series, or why not ("malformed response: ...",
  // or the API's own error; api_error() tells which). Call once.
  Result<std::vector<model::Series>> finish();
  bool api_error() const;

  std::size_t size() const;        // bytes fed
  std::string_view start() const;  // the first 200 of them, for messages about a proxy's page

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// A whole body at once. Pure; the unit tests and the fuzz harness use it.
Result<std::vector<model::Series>> decode_query_response(std::string_view body);

}  // namespace petricore::sources
