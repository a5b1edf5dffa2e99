// sacct --parsable2 output (sources/sacct.hpp) in petricore's columns:
// every record's figures are in their domain (no NaN or infinity, no
// negative count, size, duration or limit), steps never become records, a
// name keeps no newline, and select_ended sorts by end. The small parsers
// (durations, sizes, times) get the whole input too.
#include "fuzz_check.hpp"
#include "sources/sacct.hpp"

#include <cmath>

using namespace petricore::sources;

namespace {

void check_figure(const std::optional<double>& value) {
  if (value) FUZZ_CHECK(std::isfinite(*value) && *value >= 0);
}

void check_records(std::string_view text, std::string_view delimiter) {
  auto records = parse_sacct(text, sacct_fields(), delimiter);
  if (!records) return;
  for (const auto& r : *records) {
    FUZZ_CHECK(!r.job_id.empty() && r.job_id.find('.') == std::string::npos);
    FUZZ_CHECK(r.name.find('\n') == std::string::npos);
    if (r.time_limit_seconds) FUZZ_CHECK(*r.time_limit_seconds >= 0);
    check_figure(r.alloc_mem_mb);
    check_figure(r.total_cpu_seconds);
    check_figure(r.max_rss_mb);
    FUZZ_CHECK(r.alloc_gpus >= 0 && r.alloc_cpus >= 0 && r.alloc_nodes >= 0);
    if (r.tasks) FUZZ_CHECK(*r.tasks > 0 && r.cpus_per_task && *r.cpus_per_task >= 1);
  }
  // select_ended keeps only what it was asked for, in order.
  auto ended = select_ended(*records, 0, 4102444800);
  for (std::size_t i = 1; i < ended.size(); ++i) FUZZ_CHECK(*ended[i - 1].end <= *ended[i].end);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = petricore::fuzz::as_text(data, size);
  check_figure(parse_sacct_duration(text));
  check_figure(parse_sacct_size_mb(text));
  if (auto time = parse_sacct_time(text)) FUZZ_CHECK(*time != 0);

  // "|" as recorded outputs have it, and a delimiter of its own (the unit
  // sacct_delimiter draws is longer, which changes nothing here) for records
  // that go on over lines.
  for (std::string_view delimiter : {"|", "\x1f"}) check_records(text, delimiter);
  return 0;
}
