// The stand-in GPU libraries of test/standin, as the unit tests drive them:
// where the test build put each one (meson names it in the environment), the
// file it answers from, and the "gpu" errors a source counted.
#pragma once

#include "collect/error_counter.hpp"

#include <stdlib.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

namespace petricore::test {

// The library's full path, from `variable` (PETRICORE_NVML_STANDIN_LIBRARY,
// PETRICORE_ROCM_STANDIN_LIBRARY); empty when unset.
inline std::string standin_library(const char* variable) {
  const char* path = std::getenv(variable);
  return path ? path : "";
}

// The stand-in's file, named by `variable` (PETRICORE_NVML_STANDIN,
// PETRICORE_ROCM_STANDIN) while it lives. Written anew (a new inode) each
// time, so the stand-in always sees a change.
class StandinFile {
 public:
  explicit StandinFile(const char* variable)
      : variable_(variable),
        path_(std::filesystem::temp_directory_path() /
              ("petricore-" + std::string(variable) + "-" + std::to_string(::getpid()) + ".txt")) {
    ::setenv(variable_, path_.c_str(), 1);
  }
  ~StandinFile() {
    ::unsetenv(variable_);
    std::error_code ec;
    std::filesystem::remove(path_, ec);
  }
  StandinFile(const StandinFile&) = delete;
  StandinFile& operator=(const StandinFile&) = delete;

  void write(const std::string& text) {
    std::filesystem::path temp = path_.string() + ".new";
    std::ofstream(temp) << text;
    std::filesystem::rename(temp, path_);
  }

 private:
  const char* variable_;
  std::filesystem::path path_;
};

inline std::uint64_t gpu_errors(const collect::ErrorCounter& errors) {
  auto totals = errors.totals();
  auto gpu = totals.find("gpu");
  return gpu == totals.end() ? 0 : gpu->second;
}

}  // namespace petricore::test
