// Prometheus API answers (/api/v1/query, /api/v1/query_range): a decoded
// answer has finite sample times and labels that are valid UTF-8, as JSON
// requires; a refused one carries a one-line message. The streaming decoder
// gives what the document-tree decoder it replaced gave
// (prometheus_answer_tree.hpp), however the body is cut into pieces.
#include "core/utf8.hpp"
#include "fuzz_check.hpp"
#include "prometheus_answer_tree.hpp"
#include "sources/prometheus_answer.hpp"

#include <algorithm>
#include <cmath>

using namespace petricore;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view body = fuzz::as_text(data, size);
  auto series = sources::decode_query_response(body);

  bool tree_api_error = false;
  const auto tree = reference::decode_with_tree(body, tree_api_error);
  FUZZ_CHECK(reference::same_decoding(series, tree));

  // In pieces of 1 to 16 bytes, as a slow server might send them.
  sources::PrometheusAnswer pieces;
  const std::size_t piece = size == 0 ? 1 : 1 + data[0] % 16;
  for (std::size_t at = 0; at < size; at += piece) {
    if (!pieces.feed(body.substr(at, piece))) break;
  }
  const auto pieced = pieces.finish();
  FUZZ_CHECK(reference::same_decoding(series, pieced));
  FUZZ_CHECK(pieces.api_error() == tree_api_error);
  FUZZ_CHECK(pieces.start() == body.substr(0, std::min(pieces.size(), std::size_t{200})));

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
