// cgroup.procs / tasks: every id is a positive pid, and the list reads back
// the same from one id a line.
#include "collect/kernel_formats.hpp"
#include "fuzz_check.hpp"

#include <string>

using namespace petricore::collect;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto pids = parse_pid_list(petricore::fuzz::as_text(data, size));
  if (!pids) return 0;
  std::string lines;
  for (int pid : *pids) {
    FUZZ_CHECK(pid > 0);
    lines += std::to_string(pid) + "\n";
  }
  FUZZ_CHECK(parse_pid_list(lines) == pids);
  return 0;
}
