#include "core/http_url.hpp"

#include "core/startup_error.hpp"

#include "catch.hpp"

#include <string>

using namespace petricore;

TEST_CASE("credentials in a URL are replaced by *** in messages", "[http_url]") {
  CHECK(redact_userinfo("https://alice:s3cret@prom:9090/api") == "https://***@prom:9090/api");
  CHECK(redact_userinfo("smtp://mailer:s3cret@127.0.0.1:25") == "smtp://***@127.0.0.1:25");
  CHECK(redact_userinfo("http://token@pushgateway:9091") == "http://***@pushgateway:9091");
}

TEST_CASE("a password holding '@', '/', '?' or '#' is hidden whole", "[http_url]") {
  CHECK(redact_userinfo("https://u:p@ss@prom:9090") == "https://***@prom:9090");
  // A raw '/' ends the authority for a URL parser; the password still must not show.
  CHECK(redact_userinfo("https://u:pa/ss@prom:9090/prefix") == "https://***@prom:9090/prefix");
  CHECK(redact_userinfo("https://u:pa?ss@prom") == "https://***@prom");
  CHECK(redact_userinfo("https://u:pa#ss@prom") == "https://***@prom");
}

TEST_CASE("URLs without credentials are shown as they are", "[http_url]") {
  CHECK(redact_userinfo("http://prometheus:9090/prom") == "http://prometheus:9090/prom");
  CHECK(redact_userinfo("not a url @ all") == "not a url @ all");
  CHECK(redact_userinfo("") == "");
}

TEST_CASE("a refused base URL's message carries no password", "[http_url]") {
  try {
    validated_base_url("ftp://u:pa/ss@prom:9090", "Prometheus URL");
    FAIL("accepted an ftp:// URL");
  } catch (const StartupError& e) {
    const std::string message = e.what();
    CHECK(message.find("pa/ss") == std::string::npos);
    CHECK(message.find("***@prom:9090") != std::string::npos);
  }
}
