// One-number cgroup files (cpuacct.usage, memory.current, memory.peak,
// memory.max, cgroup.stat's nr_descendants): each reads back from its
// decimal form, and memory.max agrees with the plain number reader.
#include "collect/kernel_formats.hpp"
#include "fuzz_check.hpp"

#include <string>

using namespace petricore::collect;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = petricore::fuzz::as_text(data, size);
  auto value = parse_u64(text);
  if (value) FUZZ_CHECK(parse_u64(std::to_string(*value) + "\n") == value);
  if (auto max = parse_memory_max(text)) {
    if (max->bytes)
      FUZZ_CHECK(max->bytes == value);
    else
      FUZZ_CHECK(!value);
  } else {
    FUZZ_CHECK(!value);
  }
  if (auto descendants = parse_cgroup_descendants(text))
    FUZZ_CHECK(parse_cgroup_descendants("nr_descendants " + std::to_string(*descendants) + "\n") == descendants);
  return 0;
}
