// The archive's job JSON read back (render/job_json_read.hpp) from whatever
// the archive's column holds: a document it accepts writes back (job_json)
// to a document that reads back to the same text, and its figures are
// finite.
#include "fuzz_check.hpp"
#include "render/job_json_read.hpp"
#include "render/job_render.hpp"

#include <cmath>

using namespace petricore;

namespace {

model::JobRecord record() {
  model::JobRecord r;
  r.job_id = r.raw_id = "7";
  r.user = "alice";
  r.account = "physics";
  r.state = "COMPLETED";
  r.submit = 1795900000;
  r.start = 1795900100;
  r.end = 1795903700;
  r.alloc_cpus = 4;
  r.alloc_nodes = 1;
  r.alloc_mem_mb = 4096;
  return r;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto report = render::report_from_job_json(fuzz::as_text(data, size), record(), {}, {});
  if (!report) {
    FUZZ_CHECK(report.error().message.find('\n') == std::string::npos);
    return 0;
  }
  const std::string written = render::job_json(*report);
  auto again = render::report_from_job_json(written, record(), {}, {});
  FUZZ_CHECK(again.ok());
  FUZZ_CHECK(render::job_json(*again) == written);
  for (const auto& finding : report->findings) FUZZ_CHECK(!finding.message.empty());
  return 0;
}
