// Request targets as anyone on the network sends them: split into path and
// query, the path's segments decoded and matched against routes. A valid
// path has no segment that could leave the route tree, its segments encoded
// again give the same segments, percent-decoding undoes percent-encoding,
// and dispatch answers 200, 400, 404 or 405 and nothing else.
#include "core/encoding.hpp"
#include "fuzz_check.hpp"
#include "serve/router.hpp"

#include <algorithm>

using namespace petricore;
using namespace petricore::serve;

namespace {

const Router& router() {
  static const Router routes = [] {
    Router r;
    auto echo = [](const HttpRequest&, const RouteParams& params) {
      std::string body;
      for (const auto& [name, value] : params) body += name + "=" + value + "\n";
      return text_response(body);
    };
    r.get({"/healthz", "health", "", true}, echo);
    r.get({"/api/v1/jobs/{jobid}", "a job", "", false}, echo);
    r.get({"/api/v1/jobs/{jobid}/charts/{chart}", "a chart", "", false}, echo);
    r.get({"/users/{user}/", "a user", "", false}, echo);
    return r;
  }();
  return routes;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = fuzz::as_text(data, size);

  FUZZ_CHECK(percent_decode(percent_encode(text), false) == std::string(text));
  if (auto decoded = percent_decode(text, false))
    FUZZ_CHECK(percent_decode(percent_encode(*decoded), false) == decoded);

  std::string path;
  std::vector<std::pair<std::string, std::string>> query;
  if (!split_target(text, path, query)) return 0;
  FUZZ_CHECK(path.find('?') == std::string::npos);

  PathSegments split = split_path(path);
  if (split.error.empty()) {
    std::string encoded;
    for (const auto& segment : split.segments) {
      FUZZ_CHECK(segment != "." && segment != "..");
      FUZZ_CHECK(segment.find_first_of(std::string_view("/\\\0", 3)) == std::string::npos);
      encoded += "/" + percent_encode(segment);
    }
    PathSegments again = split_path(encoded);
    FUZZ_CHECK(again.error.empty() && again.segments == split.segments);
  }

  ResolvedRoute resolved = router().resolve(path);
  FUZZ_CHECK(resolved.error.empty() == split.error.empty());
  if (resolved.route) {
    FUZZ_CHECK(resolved.error.empty() && resolved.label == router().routes()[*resolved.route].pattern);
    for (const auto& [name, value] : resolved.params)
      FUZZ_CHECK(std::find(split.segments.begin(), split.segments.end(), value) != split.segments.end());
  }
  for (const char* method : {"GET", "POST"}) {
    HttpRequest request = make_request(method, text);
    int status = router().dispatch(request).status;
    FUZZ_CHECK(status == 200 || status == 400 || status == 404 || status == 405);
  }
  return 0;
}
