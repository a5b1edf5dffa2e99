// /proc/<pid>/environ (a job's own environment) and what the collector
// takes from it: a found value follows "KEY=" at the start of an entry and
// holds no NUL; Slurm GPU lists split into non-empty items without commas;
// fd link targets classify consistently.
#include "collect/kernel_formats.hpp"
#include "fuzz_check.hpp"

#include <string>

using namespace petricore::collect;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = petricore::fuzz::as_text(data, size);
  for (std::string_view key : {"SLURM_JOB_ID", "SLURM_JOB_GPUS", "CUDA_VISIBLE_DEVICES", "A"}) {
    auto value = environ_value(text, key);
    if (!value) continue;
    FUZZ_CHECK(value->find('\0') == std::string::npos);
    const std::string entry = std::string(key) + "=" + *value;
    std::size_t at = text.find(entry);
    while (at != std::string_view::npos && at != 0 && text[at - 1] != '\0') at = text.find(entry, at + 1);
    FUZZ_CHECK(at != std::string_view::npos);
    for (const std::string& gpu : split_gpu_list(*value)) {
      FUZZ_CHECK(!gpu.empty() && gpu.find(',') == std::string::npos);
      FUZZ_CHECK(value->find(gpu) != std::string::npos);
    }
  }
  // The same bytes as a readlink() answer of /proc/<pid>/fd/N.
  if (classify_fd_target(text) == FdTarget::RegularFile) {
    std::string_view path = fd_target_path(text);
    FUZZ_CHECK(!path.empty() && path.front() == '/' && text.substr(0, path.size()) == path);
    FUZZ_CHECK(path_is_under(path, path));
    FUZZ_CHECK(path_is_under(path, "/"));
  }
  return 0;
}
