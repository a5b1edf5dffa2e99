// Numbers inside sentences, written the one way the findings and every face
// (mail, page, PDF, terminal) write them, so that they agree to the digit;
// and whole numbers read from text petricore stored (job ids, watermarks).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace petricore {

// `value` with at most `decimals` places and no trailing zeros: "42.5",
// "3000", "0.25"; never "-0". Formats with printf's "%.*f", so a non-finite
// value reads as printf writes it ("nan", "inf"): callers that may hold one
// say what it means (render::text::number says "unknown").
std::string number_text(double value, int decimals = 1);

// `text` as a whole number, all of it ("42", "-7"); nullopt when it is
// empty, holds anything else, or does not fit.
std::optional<std::int64_t> parse_whole_number(std::string_view text);

}  // namespace petricore
