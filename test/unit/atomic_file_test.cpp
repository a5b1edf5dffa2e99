#include "core/atomic_file.hpp"

#include "catch.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

using namespace petricore;
namespace fs = std::filesystem;

namespace {

class TempDir {
 public:
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "atomic_file_test.XXXXXX").string();
    REQUIRE(::mkdtemp(pattern.data()) != nullptr);
    path_ = pattern;
  }
  ~TempDir() { fs::remove_all(path_); }
  std::string file(const std::string& name) const { return (path_ / name).string(); }
  std::vector<std::string> entries() const {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(path_)) names.push_back(e.path().filename().string());
    return names;
  }

 private:
  fs::path path_;
};

std::string content(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

mode_t mode_of(const std::string& path) {
  struct stat st {};
  REQUIRE(::stat(path.c_str(), &st) == 0);
  return st.st_mode & 07777;
}

}  // namespace

TEST_CASE("an atomic write replaces the file and leaves no temporary file", "[atomic_file]") {
  TempDir dir;
  const std::string path = dir.file("report.pdf");
  std::ofstream(path) << "old";
  CHECK_FALSE(write_file_atomically(path, "new content"));
  CHECK(content(path) == "new content");
  CHECK(dir.entries() == std::vector<std::string>{"report.pdf"});

  AtomicWriteOptions synced;
  synced.sync = true;
  CHECK_FALSE(write_file_atomically(path, "", synced));
  CHECK(content(path).empty());
}

TEST_CASE("an atomic write takes the umask unless a mode is given", "[atomic_file]") {
  TempDir dir;
  const mode_t old_umask = ::umask(027);
  const bool plain = !write_file_atomically(dir.file("plain"), "x");
  AtomicWriteOptions fixed;
  fixed.mode = 0644;
  const bool exact = !write_file_atomically(dir.file("fixed"), "x", fixed);
  ::umask(old_umask);
  REQUIRE(plain);
  REQUIRE(exact);
  CHECK(mode_of(dir.file("plain")) == 0640);
  CHECK(mode_of(dir.file("fixed")) == 0644);
}

TEST_CASE("an atomic write through a fixed temporary name", "[atomic_file]") {
  TempDir dir;
  AtomicWriteOptions options;
  options.temp_path = dir.file("jobs.prom.tmp.1");
  CHECK_FALSE(write_file_atomically(dir.file("jobs.prom"), "a 1\n", options));
  CHECK(content(dir.file("jobs.prom")) == "a 1\n");
  CHECK(dir.entries() == std::vector<std::string>{"jobs.prom"});

  // A symlink planted at the temporary name is not followed.
  REQUIRE(::symlink(dir.file("elsewhere").c_str(), options.temp_path.c_str()) == 0);
  auto failed = write_file_atomically(dir.file("jobs.prom"), "b 2\n", options);
  REQUIRE(failed);
  CHECK(failed->step == AtomicWriteError::Step::Create);
  CHECK(failed->error == ELOOP);
  CHECK(content(dir.file("jobs.prom")) == "a 1\n");
  CHECK_FALSE(fs::exists(dir.file("elsewhere")));
}

TEST_CASE("a failed rename keeps the target and removes the temporary file", "[atomic_file]") {
  TempDir dir;
  const std::string path = dir.file("busy");
  REQUIRE(::mkdir(path.c_str(), 0755) == 0);  // a file cannot replace a directory
  std::ofstream(path + "/keep") << "x";
  auto failed = write_file_atomically(path, "data");
  REQUIRE(failed);
  CHECK(failed->step == AtomicWriteError::Step::Rename);
  CHECK(failed->error == EISDIR);
  CHECK(failed->temp_path.rfind(path + ".", 0) == 0);
  CHECK(dir.entries() == std::vector<std::string>{"busy"});
}

TEST_CASE("an atomic write into a missing directory fails at create", "[atomic_file]") {
  TempDir dir;
  auto failed = write_file_atomically(dir.file("missing/file"), "data");
  REQUIRE(failed);
  CHECK(failed->step == AtomicWriteError::Step::Create);
  CHECK(failed->error == ENOENT);
}

TEST_CASE("write_all writes everything to a pipe", "[atomic_file]") {
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  CHECK(write_all(fds[1], "hello"));
  ::close(fds[1]);
  char buffer[16] = {};
  CHECK(::read(fds[0], buffer, sizeof buffer) == 5);
  ::close(fds[0]);
  CHECK(std::string(buffer) == "hello");
}
