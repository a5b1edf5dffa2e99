// cgroup v1 cpuacct.stat and cpuacct.usage_percpu, and v2 cpu.stat: what is
// parsed reads back the same from the kernel's own form.
#include "collect/kernel_formats.hpp"
#include "fuzz_check.hpp"

#include <string>

using namespace petricore::collect;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = petricore::fuzz::as_text(data, size);
  if (auto stat = parse_cpuacct_stat(text)) {
    auto again = parse_cpuacct_stat("user " + std::to_string(stat->user) + "\nsystem " + std::to_string(stat->system));
    FUZZ_CHECK(again && again->user == stat->user && again->system == stat->system);
  }
  if (auto percpu = parse_cpuacct_usage_percpu(text)) {
    FUZZ_CHECK(!percpu->empty() && percpu->size() <= size / 2 + 1);  // a number and a separator each
    std::string form;
    for (auto ns : *percpu) form += std::to_string(ns) + " ";
    FUZZ_CHECK(parse_cpuacct_usage_percpu(form + "\n") == percpu);
  }
  if (auto stat = parse_cpu_stat(text)) {
    auto again = parse_cpu_stat("usage_usec " + std::to_string(stat->usage_usec) + "\nuser_usec " +
                                std::to_string(stat->user_usec) + "\nsystem_usec " + std::to_string(stat->system_usec) +
                                "\nnr_periods 0\n");
    FUZZ_CHECK(again && again->usage_usec == stat->usage_usec && again->user_usec == stat->user_usec &&
               again->system_usec == stat->system_usec);
  }
  return 0;
}
