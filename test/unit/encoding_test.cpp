#include "core/encoding.hpp"

#include "catch.hpp"

using namespace petricore;

TEST_CASE("base64 and base64url: the RFC 4648 test vectors and the two alphabets", "[encoding]") {
  CHECK(base64("") == "");
  CHECK(base64("f") == "Zg==");
  CHECK(base64("fo") == "Zm8=");
  CHECK(base64("foo") == "Zm9v");
  CHECK(base64("foob") == "Zm9vYg==");
  CHECK(base64("fooba") == "Zm9vYmE=");
  CHECK(base64("foobar") == "Zm9vYmFy");
  CHECK(base64("\xfb\xff") == "+/8=");
  CHECK(base64url("\xfb\xff") == "-_8=");
  CHECK(base64url("a/b") == "YS9i");
}

TEST_CASE("percent-encoding keeps unreserved bytes and the ones asked for", "[encoding]") {
  CHECK(percent_encode("node-01.x_y~") == "node-01.x_y~");
  CHECK(percent_encode("a b/c%") == "a%20b%2Fc%25");
  CHECK(percent_encode("123+1") == "123%2B1");
  CHECK(percent_encode("123+1", "+") == "123+1");
  CHECK(percent_encode("\xc3\xa9") == "%C3%A9");
}
