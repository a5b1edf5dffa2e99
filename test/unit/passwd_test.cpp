#include "core/passwd.hpp"

#include "catch.hpp"

using namespace petricore;

TEST_CASE("root is uid 0 both ways in the passwd database", "[passwd]") {
  // Every Linux passwd database has root; the build machines have nothing
  // else that is certain.
  CHECK(user_name_of_uid(0) == std::optional<std::string>("root"));
  CHECK(uid_of_user_name("root") == std::optional<uid_t>(0));
}

TEST_CASE("an unknown user or uid is no value", "[passwd]") {
  CHECK_FALSE(uid_of_user_name("petricore-no-such-user-x9"));
  CHECK_FALSE(uid_of_user_name(""));
  CHECK_FALSE(user_name_of_uid(static_cast<uid_t>(4000000000u)));
}
