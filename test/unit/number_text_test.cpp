// number_text: the one way numbers are written into sentences, and (through
// serve's fleet means) into JSON.
#include "core/number_text.hpp"

#include "catch.hpp"

#include <cfloat>
#include <cstdlib>

using petricore::number_text;

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
