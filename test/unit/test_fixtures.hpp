// Helpers shared by the unit tests that read the fixture trees.
#pragma once

#include "collect/error_counter.hpp"

#include "catch.hpp"

#include <cstdint>
#include <cstdlib>
#include <filesystem>

namespace petricore::test {

// PETRICORE_FIXTURES (set by meson), else the source tree's test/fixtures.
inline std::filesystem::path fixtures_dir() {
  namespace fs = std::filesystem;
  if (const char* env = std::getenv("PETRICORE_FIXTURES"); env != nullptr && *env != '\0') return env;
  fs::path from_source = fs::path(__FILE__).parent_path().parent_path() / "fixtures";
  if (fs::exists(from_source / "slurm-v1")) return from_source;
  for (fs::path dir = fs::current_path(); !dir.empty(); dir = dir.parent_path()) {
    if (fs::exists(dir / "test" / "fixtures" / "slurm-v1")) return dir / "test" / "fixtures";
    if (dir == dir.root_path()) break;
  }
  FAIL("fixtures not found: set PETRICORE_FIXTURES");
  return {};
}

// All errors counted, whatever their source.
inline std::uint64_t total_errors(const collect::ErrorCounter& errors) {
  std::uint64_t n = 0;
  for (const auto& [source, count] : errors.totals()) n += count;
  return n;
}

}  // namespace petricore::test
