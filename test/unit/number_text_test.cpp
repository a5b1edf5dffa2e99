// number_text: the one way numbers are written into sentences, and (through
// serve's fleet means) into JSON.
#include "core/number_text.hpp"

#include "catch.hpp"

#include <cfloat>
#include <cstdint>
#include <cstdlib>
#include <optional>

using petricore::number_text;
using petricore::parse_whole_number;

TEST_CASE("numbers without trailing zeros, never -0", "[number_text]") {
  CHECK(number_text(42.5) == "42.5");
  CHECK(number_text(3000.0, 2) == "3000");
  CHECK(number_text(0.25, 2) == "0.25");
  CHECK(number_text(-0.0001, 2) == "0");
}

TEST_CASE("a number wider than 64 characters keeps all its digits", "[number_text][fuzz]") {
  // test/fuzz/regressions/number_text/: a 64-byte buffer gave 1.3164e62 here.
  CHECK(std::strtod(number_text(1.3164e64, 2).c_str(), nullptr) == 1.3164e64);
  CHECK(std::strtod(number_text(-DBL_MAX, 4).c_str(), nullptr) == -DBL_MAX);
  CHECK(number_text(1e70, 0).size() == 71);
}

TEST_CASE("parse_whole_number reads a whole number and nothing else", "[number_text]") {
  CHECK(parse_whole_number("42") == std::optional<std::int64_t>(42));
  CHECK(parse_whole_number("-7") == std::optional<std::int64_t>(-7));
  CHECK(parse_whole_number("9223372036854775807") == std::optional<std::int64_t>(INT64_MAX));
  CHECK_FALSE(parse_whole_number(""));
  CHECK_FALSE(parse_whole_number("12_3"));
  CHECK_FALSE(parse_whole_number("123.0"));
  CHECK_FALSE(parse_whole_number(" 1"));
  CHECK_FALSE(parse_whole_number("9223372036854775808"));  // does not fit
}
