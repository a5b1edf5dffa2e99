#include "core/shared_library.hpp"

#include "catch.hpp"

#include <unistd.h>

#include <cstring>
#include <stdexcept>
#include <string>

using namespace petricore;

namespace {

// An adapter the way the four real ones are written, over libc (which every
// test machine has), each function named once.
#define TEST_LIBC_FUNCTIONS(X) \
  X(length, strlen)            \
  X(process_id, getpid)

struct TestLibc {
  TEST_LIBC_FUNCTIONS(PETRICORE_DLSYM_MEMBER)
};

TestLibc load_libc() {
  SharedLibrary so("libc.so.6");
  TestLibc lib{};
  TEST_LIBC_FUNCTIONS(PETRICORE_DLSYM_RESOLVE)
  return lib;
}

}  // namespace

TEST_CASE("an X-macro table declares and resolves each function once", "[shared_library]") {
  const TestLibc lib = load_libc();
  REQUIRE(lib.length != nullptr);
  CHECK(lib.length("petricore") == 9);
  CHECK(lib.process_id() == ::getpid());
  const auto length = PETRICORE_DLSYM(SharedLibrary("libc.so.6"), strlen);
  CHECK(length("abc") == 3);
}

TEST_CASE("a missing library or function is a one-line error naming it", "[shared_library]") {
  try {
    SharedLibrary missing("libpetricore-no-such.so.0");
    FAIL("loaded");
  } catch (const std::runtime_error& e) {
    CHECK(std::string(e.what()).find("cannot load libpetricore-no-such.so.0") == 0);
  }
  SharedLibrary so({"libpetricore-no-such.so.0", "libc.so.6"});
  CHECK(so.soname() == "libc.so.6");
  decltype(&::strlen) nothing = nullptr;
  CHECK_THROWS_AS(so.resolve("petricore_no_such_function", nothing), std::runtime_error);
}
