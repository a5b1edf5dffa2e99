#include "core/secret_file.hpp"

#include "catch.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

using namespace petricore;
namespace fs = std::filesystem;

namespace {

// A file in a fresh temporary directory, removed with it.
class SecretFile {
 public:
  SecretFile(const std::string& content, mode_t mode) {
    dir_ = fs::temp_directory_path() / ("petricore-secret-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    std::ofstream(path(), std::ios::binary) << content;
    ::chmod(path().c_str(), mode);
  }
  ~SecretFile() { fs::remove_all(dir_); }
  std::string path() const { return (dir_ / "secret").string(); }

 private:
  fs::path dir_;
};

std::string read(const std::string& content, mode_t mode = 0600) {
  SecretFile file(content, mode);
  Result<std::string> secret = read_secret_file(file.path());
  return secret ? "'" + *secret + "'" : secret.error().message.substr(file.path().size());
}

}  // namespace

TEST_CASE("a secret is the whole file but one trailing line end", "[secret_file]") {
  CHECK(read("s3cret\n") == "'s3cret'");
  CHECK(read("s3cret") == "'s3cret'");
  CHECK(read("s3cret\r\n") == "'s3cret'");
  CHECK(read("s3cret\n\n") == "'s3cret\n'");
  CHECK(read(" spaces stay \n") == "' spaces stay '");
  CHECK(read(std::string(kMaxSecretBytes, 'x')) == "'" + std::string(kMaxSecretBytes, 'x') + "'");
}

TEST_CASE("a secret file others can read or write, or its group can write, is refused, naming the file",
          "[secret_file]") {
  CHECK(read("s3cret\n", 0604) == ": readable or writable by others (chmod 640 or 600 it)");
  CHECK(read("s3cret\n", 0602) == ": readable or writable by others (chmod 640 or 600 it)");
  CHECK(read("s3cret\n", 0620) == ": writable by group (chmod 640 or 600 it)");
  SecretFile file("s3cret\n", 0644);
  Result<std::string> secret = read_secret_file(file.path());
  REQUIRE_FALSE(secret);
  CHECK(secret.error().kind == Error::Kind::BadInput);
  CHECK(secret.error().message == file.path() + ": readable or writable by others (chmod 640 or 600 it)");
}

TEST_CASE("a secret file its group may only read is accepted (root:<service> 0640)", "[secret_file]") {
  CHECK(read("s3cret\n", 0640) == "'s3cret'");
  CHECK(read("s3cret\n", 0440) == "'s3cret'");
  CHECK(read("s3cret\n", 0400) == "'s3cret'");
}

TEST_CASE("empty, too long, missing and non-regular secret files are refused", "[secret_file]") {
  CHECK(read("") == ": empty");
  CHECK(read("\n") == ": empty");
  CHECK(read(std::string(kMaxSecretBytes + 1, 'x')) == ": too long (more than 4096 bytes)");
  CHECK(read_secret_file("/nonexistent/secret").error().message == "/nonexistent/secret: No such file or directory");
  CHECK(read_secret_file("/").error().message == "/: not a regular file");
  CHECK(read_secret_file("").error().message == "no file given");
}

TEST_CASE("a password file for a start-up setting throws StartupError naming the setting", "[secret_file]") {
  SecretFile good("pw\n", 0600);
  CHECK(read_password_file(good.path(), "--password-file") == "pw");
  try {
    read_password_file("/nonexistent/pw", "--password-file");
    FAIL("no exception");
  } catch (const StartupError& e) {
    CHECK(std::string(e.what()) == "--password-file /nonexistent/pw: No such file or directory");
  }
}
