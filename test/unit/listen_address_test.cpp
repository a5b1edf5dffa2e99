#include "core/listen_address.hpp"

#include "catch.hpp"

#include <string>

using namespace petricore;

namespace {

std::string why(const char* text) {
  Result<ListenAddress> parsed = parse_listen_address(text);
  REQUIRE_FALSE(parsed);
  CHECK(parsed.error().kind == Error::Kind::BadInput);
  return parsed.error().message;
}

}  // namespace

TEST_CASE("listen addresses with a host, without one, and in brackets", "[listen_address]") {
  auto a = parse_listen_address("127.0.0.1:9966");
  REQUIRE(a);
  CHECK(a->host == "127.0.0.1");
  CHECK(a->port == 9966);
  CHECK_FALSE(a->ipv6);

  auto all = parse_listen_address(":0");
  REQUIRE(all);
  CHECK(all->host.empty());
  CHECK(all->port == 0);

  auto named = parse_listen_address("localhost:65535");  // names are left to the server to resolve
  REQUIRE(named);
  CHECK(named->host == "localhost");
  CHECK(named->port == 65535);

  auto v6 = parse_listen_address("[::1]:8080");
  REQUIRE(v6);
  CHECK(v6->host == "::1");
  CHECK(v6->port == 8080);
  CHECK(v6->ipv6);
}

TEST_CASE("a malformed listen address says what is wrong", "[listen_address]") {
  CHECK(why("9966") == "missing ':PORT'");
  CHECK(why("") == "missing ':PORT'");
  CHECK(why("host:") == "port '' is not a number");
  CHECK(why(":12a") == "port '12a' is not a number");
  CHECK(why(":-1") == "port '-1' is not a number");
  CHECK(why(":99999999") == "port '99999999' is not a number");
  CHECK(why(":65536") == "port 65536 is out of range");
  CHECK(why("::1:9966") == "an IPv6 address must be written in brackets");
  CHECK(why("[::1]9966") == "missing ':PORT'");
  CHECK(why("[::1") == "missing ']'");
  CHECK(why("[]:80") == "'' is not an IPv6 address");
  CHECK(why("[zz]:1") == "'zz' is not an IPv6 address");
}
