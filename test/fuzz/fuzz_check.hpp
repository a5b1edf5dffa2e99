// What a harness asserts besides "does not crash". A failed FUZZ_CHECK
// prints the condition and aborts: libFuzzer reports it as a crash and keeps
// the input, and the replay driver (replay_main.cpp) exits non-zero.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#define FUZZ_CHECK(condition)                                                                       \
  do {                                                                                              \
    if (!(condition)) {                                                                             \
      std::fprintf(stderr, "%s:%d: invariant does not hold: %s\n", __FILE__, __LINE__, #condition); \
      std::abort();                                                                                 \
    }                                                                                               \
  } while (0)

namespace petricore::fuzz {

inline std::string_view as_text(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

}  // namespace petricore::fuzz

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);
