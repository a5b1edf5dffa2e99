// The Catch2 every unit test includes ("catch.hpp"), whichever major version
// the platform ships: Catch2 v2 (Debian 12: the single header
// <catch2/catch.hpp>) or Catch2 v3 (Debian 13: one header per part and a
// compiled library, pkg-config catch2-with-main). The tests use v2's names;
// on v3 the few that moved are brought back here:
//   Approx                   v3: Catch::Approx (<catch2/catch_approx.hpp>)
//   Catch::Contains(text)    v3: Catch::Matchers::ContainsSubstring
//   Catch::Matchers::WithinAbs, GENERATE: their own v3 headers
#pragma once

#if __has_include(<catch2/catch_test_macros.hpp>)
#include <catch2/catch_approx.hpp>
#include <catch2/catch_test_macros.hpp>
#include <catch2/generators/catch_generators.hpp>
#include <catch2/matchers/catch_matchers_floating_point.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <string>

using Catch::Approx;

namespace Catch {
// v2's string matcher; v3's Matchers::Contains is the range matcher.
inline Matchers::StringContainsMatcher Contains(const std::string& text, CaseSensitive sensitive = CaseSensitive::Yes) {
  return Matchers::ContainsSubstring(text, sensitive);
}
}  // namespace Catch
#else
#include <catch2/catch.hpp>
#endif
