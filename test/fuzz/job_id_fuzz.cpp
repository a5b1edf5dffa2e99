// Job ids, SLUIDs and user names as they come in request paths, cgroup
// directory names and headers: a parsed job id writes back to a text that
// parses to the same id, a SLUID's canonical spelling is a fixed point, and
// a valid user name keeps to its alphabet.
#include "fuzz_check.hpp"
#include "model/job_id.hpp"
#include "model/sluid.hpp"

#include <cctype>

using namespace petricore::model;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = petricore::fuzz::as_text(data, size);
  if (auto id = parse_job_id(text)) {
    FUZZ_CHECK(!(id->array_task && id->het_component));
    const std::string written = id->text();
    FUZZ_CHECK(written.size() <= text.size());
    auto again = parse_job_id(written);
    FUZZ_CHECK(again && *again == *id && again->text() == written);
  }
  if (auto sluid = parse_sluid(text)) {
    FUZZ_CHECK(sluid->size() == 14 && sluid->front() == 's');
    FUZZ_CHECK(parse_sluid(*sluid) == sluid);
    FUZZ_CHECK(!sluid_like(*sluid));  // "looks like one but is not"
  }
  if (valid_user_name(text)) {
    FUZZ_CHECK(!text.empty() && text.size() <= 32 && text.front() != '-');
    for (char c : text) FUZZ_CHECK(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-');
  }
  return 0;
}
