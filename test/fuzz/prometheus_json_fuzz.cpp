// Prometheus API answers (/api/v1/query, /api/v1/query_range): a decoded
// answer has finite sample times and labels that are valid UTF-8, as JSON
// requires; a refused one carries a one-line message.
#include "core/utf8.hpp"
#include "fuzz_check.hpp"
#include "sources/prometheus_client.hpp"

#include <cmath>

using namespace petricore;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto series = sources::decode_query_response(fuzz::as_text(data, size));
  if (!series) {
    FUZZ_CHECK(series.error().message.find('\n') == std::string::npos);
    return 0;
  }
  for (const auto& s : *series) {
    for (const auto& [name, value] : s.labels) {
      FUZZ_CHECK(valid_utf8(name) == name);
      FUZZ_CHECK(valid_utf8(value) == value);
    }
    for (const auto& sample : s.samples) FUZZ_CHECK(std::isfinite(sample.time));
  }
  return 0;
}
