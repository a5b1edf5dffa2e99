#include "core/startup_error.hpp"

#include "collect/collect_command.hpp"

#include "catch.hpp"

#include <string>
#include <type_traits>

using namespace petricore;

TEST_CASE("a start-up error meets the catch of the modules' own configuration checks", "[startup_error]") {
  // main maps std::invalid_argument to exit 2: a StartupError must land there
  // too, never in the std::exception catch that means exit 1.
  STATIC_REQUIRE(std::is_base_of_v<std::invalid_argument, StartupError>);
  STATIC_REQUIRE(std::is_same_v<collect::UsageError, StartupError>);
  try {
    throw StartupError("--interval must be a positive number of seconds");
  } catch (const std::invalid_argument& e) {
    CHECK(std::string(e.what()) == "--interval must be a positive number of seconds");
  }
}
