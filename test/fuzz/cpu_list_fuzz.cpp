// cpuset.cpus / cpuset.cpus.effective: a parsed list is ascending, without
// duplicates, within CPU ids, and reads back the same from its compact form.
#include "collect/kernel_formats.hpp"
#include "fuzz_check.hpp"

#include <algorithm>

using namespace petricore::collect;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto cpus = parse_cpu_list(petricore::fuzz::as_text(data, size));
  if (!cpus) return 0;
  FUZZ_CHECK(std::is_sorted(cpus->begin(), cpus->end()));
  FUZZ_CHECK(std::adjacent_find(cpus->begin(), cpus->end()) == cpus->end());
  FUZZ_CHECK(cpus->empty() || cpus->front() >= 0);
  const std::string compact = format_cpu_list(*cpus);
  FUZZ_CHECK(compact.size() <= size);  // the compact form is never longer
  auto again = parse_cpu_list(compact);
  FUZZ_CHECK(again && *again == *cpus);
  return 0;
}
