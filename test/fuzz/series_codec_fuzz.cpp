// The archive's series bytes (model/series_codec.hpp) read back from any
// bytes: a decoding encodes to bytes that decode to the same series (values
// compared as the 32-bit floats stored, NaN equal to NaN).
#include "fuzz_check.hpp"
#include "model/series_codec.hpp"

#include <cmath>

using namespace petricore::model;

namespace {

bool same_value(double a, double b) {
  return (std::isnan(a) && std::isnan(b)) || a == b;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto decoded = decode_series(petricore::fuzz::as_text(data, size));
  if (!decoded) return 0;
  auto again = decode_series(encode_series(*decoded));
  FUZZ_CHECK(again && again->size() == decoded->size());
  for (const auto& [metric, series] : *decoded) {
    const auto& other = again->at(metric);
    FUZZ_CHECK(other.size() == series.size());
    for (std::size_t i = 0; i < series.size(); ++i) {
      FUZZ_CHECK(other[i].labels == series[i].labels && other[i].samples.size() == series[i].samples.size());
      for (std::size_t j = 0; j < series[i].samples.size(); ++j) {
        FUZZ_CHECK(same_value(other[i].samples[j].time, series[i].samples[j].time));
        FUZZ_CHECK(same_value(other[i].samples[j].value, series[i].samples[j].value));
      }
    }
  }
  return 0;
}
