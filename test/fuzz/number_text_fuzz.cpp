// Numbers written into sentences and serve's fleet means
// (core/number_text.hpp): the text of a finite value reads back within half
// a unit of its last place (all its digits kept, however wide), has no
// trailing zeros and is never "-0". Input: 8 bytes of a double, then the
// number of places.
#include "core/number_text.hpp"
#include "fuzz_check.hpp"

#include <cmath>
#include <cstring>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 9) return 0;
  double value = 0;
  std::memcpy(&value, data, sizeof value);
  const int decimals = data[8] % 10;
  if (!std::isfinite(value)) return 0;
  const std::string text = petricore::number_text(value, decimals);
  FUZZ_CHECK(text != "-0");
  if (text.find('.') != std::string::npos) FUZZ_CHECK(text.back() != '0' && text.back() != '.');
  const double back = std::strtod(text.c_str(), nullptr);
  const double half_place = 0.5 * std::pow(10.0, -decimals);
  // The rounding to `decimals` places, plus the value's own representation error.
  FUZZ_CHECK(std::fabs(back - value) <= half_place + std::fabs(value) * 1e-15);
  return 0;
}
