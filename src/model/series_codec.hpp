// The job archive's form of a job's series: compact bytes, and the way
// back. Labels come back exactly; times to the millisecond; values as
// 32-bit floats (7 significant digits, ample for a chart; NaN and ±Inf
// kept). Inside a zlib stream: "PCS1", then per metric its name and series,
// per series its labels and its samples, the times as differences of
// differences (a steady step costs a zero), the values' float bits XORed
// with the previous value's (a steady value costs zeros).
#pragma once

#include "model/series.hpp"

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace petricore::model {

std::string encode_series(const std::map<std::string, std::vector<Series>>& by_metric);

// nullopt for bytes that are not such an encoding (malformed, truncated, or
// inflating past 64 MiB).
std::optional<std::map<std::string, std::vector<Series>>> decode_series(std::string_view bytes);

}  // namespace petricore::model
