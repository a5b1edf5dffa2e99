#include "core/smtp_client.hpp"

#include "catch.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

using namespace petricore;
namespace fs = std::filesystem;

// The checks before any connection: no server is needed.
TEST_CASE("the SMTP password file follows the secret-file rule, checked before connecting", "[smtp_client]") {
  const fs::path file = fs::temp_directory_path() / ("petricore-smtp-test-" + std::to_string(::getpid()));
  std::ofstream(file) << "s3cret\n";
  ::chmod(file.c_str(), 0644);
  SmtpConfig config;
  config.url = "smtp://127.0.0.1:1";
  config.user = "mailer";
  config.password_file = file.string();
  auto sent = send_mail(config, "a@example.org", {"b@example.org"}, "x");
  REQUIRE_FALSE(sent);
  CHECK(sent.error().kind == Error::Kind::BadInput);
  CHECK(sent.error().message ==
        "SMTP password file " + file.string() + ": readable or writable by others (chmod 640 or 600 it)");

  config.password_file = "/nonexistent/smtp-password";
  sent = send_mail(config, "a@example.org", {"b@example.org"}, "x");
  REQUIRE_FALSE(sent);
  CHECK(sent.error().message == "SMTP password file /nonexistent/smtp-password: No such file or directory");

  ::chmod(file.c_str(), 0600);
  config.password_file = file.string();
  config.user.clear();
  sent = send_mail(config, "a@example.org", {"b@example.org"}, "x");
  REQUIRE_FALSE(sent);
  CHECK(sent.error().message == "an SMTP password file needs an SMTP user");
  fs::remove(file);
}
