// HeldFiles on the real /proc (its own and a child's files) and on a plain
// temporary directory, which must never be held.
#include "collect/held_files.hpp"

#include "catch.hpp"

#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

using namespace petricore::collect;
namespace fs = std::filesystem;

namespace {

int open_dir(const char* path) {
  int fd = ::open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  REQUIRE(fd >= 0);
  return fd;
}

// A child that sleeps until killed, reaped by kill_and_reap().
struct SleepingChild {
  pid_t pid = ::fork();
  SleepingChild() {
    REQUIRE(pid >= 0);
    if (pid == 0) {
      ::pause();
      ::_exit(0);
    }
  }
  ~SleepingChild() { kill_and_reap(); }
  void kill_and_reap() {
    if (pid <= 0) return;
    ::kill(pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
    pid = -1;
  }
};

void write_file(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::trunc);
  out << text;
}

}  // namespace

TEST_CASE("held /proc files are re-read afresh through one fd each", "[held_files]") {
  petricore::UniqueFd proc{open_dir("/proc")};
  HeldFiles held(16);
  ReadBuffer buffer;
  SleepingChild child;
  std::string id = std::to_string(child.pid);
  REQUIRE(held.read(proc.get(), id + "/stat", buffer, Records::One).status == ReadStatus::Ok);
  CHECK(buffer.view().rfind(id + " (", 0) == 0);
  REQUIRE(held.read(proc.get(), id + "/io", buffer, Records::One).status == ReadStatus::Ok);
  CHECK(buffer.view().find("rchar:") == 0);
  int entries = 0;
  REQUIRE(held.list(proc.get(), id + "/fd", [&](int, std::string_view, bool) { ++entries; }));
  CHECK(entries > 0);
  CHECK(held.held() == 3);

  // The same files again: through the held fds, with the same answers.
  REQUIRE(held.read(proc.get(), id + "/stat", buffer, Records::One).status == ReadStatus::Ok);
  CHECK(buffer.view().rfind(id + " (", 0) == 0);
  int again = 0;
  REQUIRE(held.list(proc.get(), id + "/fd", [&](int, std::string_view, bool) { ++again; }));
  CHECK(again == entries);
  CHECK(held.held() == 3);

  // Once the process is gone, its held files fail, are dropped, and the
  // path is gone too: no old content.
  child.kill_and_reap();
  CHECK(held.read(proc.get(), id + "/stat", buffer, Records::One).status == ReadStatus::Missing);
  CHECK(held.read(proc.get(), id + "/io", buffer, Records::One).status == ReadStatus::Missing);
  CHECK_FALSE(held.list(proc.get(), id + "/fd", [&](int, std::string_view, bool) { FAIL("listed a gone process"); }));
  CHECK(held.held() == 0);
}

TEST_CASE("held /proc/self/stat follows the process as it runs", "[held_files]") {
  petricore::UniqueFd proc{open_dir("/proc")};
  HeldFiles held(16);
  ReadBuffer buffer;
  REQUIRE(held.read(proc.get(), "self/stat", buffer, Records::One).status == ReadStatus::Ok);
  std::string first{buffer.view()};
  // Spend CPU until utime/stime (fields 14, 15) move.
  for (int round = 0; round < 200; ++round) {
    volatile double x = 0;
    for (int i = 0; i < 2000000; ++i) x = x + i;
    REQUIRE(held.read(proc.get(), "self/stat", buffer, Records::One).status == ReadStatus::Ok);
    if (std::string{buffer.view()} != first) break;
  }
  CHECK(std::string{buffer.view()} != first);
  CHECK(held.held() == 1);
}

TEST_CASE("files outside procfs, cgroupfs and sysfs are never held", "[held_files]") {
  std::string templ = (fs::temp_directory_path() / "petricore-held-XXXXXX").string();
  REQUIRE(::mkdtemp(templ.data()) != nullptr);
  fs::path dir = templ;
  petricore::UniqueFd dir_fd{open_dir(templ.c_str())};
  write_file(dir / "counter", "1\n");
  HeldFiles held(16);
  ReadBuffer buffer;
  REQUIRE(held.read(dir_fd.get(), "counter", buffer, Records::One).status == ReadStatus::Ok);
  CHECK(buffer.view() == "1\n");
  CHECK(held.held() == 0);
  // Replaced by a new file (as a fixture test rewrites one): the new content.
  write_file(dir / "counter.new", "2\n");
  fs::rename(dir / "counter.new", dir / "counter");
  REQUIRE(held.read(dir_fd.get(), "counter", buffer, Records::One).status == ReadStatus::Ok);
  CHECK(buffer.view() == "2\n");
  // A file larger than one read, in both modes.
  std::string big(100000, 'x');
  write_file(dir / "big", big);
  REQUIRE(held.read(dir_fd.get(), "big", buffer, Records::One).status == ReadStatus::Ok);
  CHECK(buffer.size() == big.size());
  REQUIRE(held.read(dir_fd.get(), "big", buffer, Records::Many).status == ReadStatus::Ok);
  CHECK(buffer.size() == big.size());
  CHECK(held.held() == 0);
  std::error_code ec;
  fs::remove_all(dir, ec);
}

TEST_CASE("sweep closes what a pass did not use; the capacity caps what is held", "[held_files]") {
  petricore::UniqueFd proc{open_dir("/proc")};
  ReadBuffer buffer;
  HeldFiles held(16);
  REQUIRE(held.read(proc.get(), "self/stat", buffer, Records::One).status == ReadStatus::Ok);
  REQUIRE(held.read(proc.get(), "self/io", buffer, Records::One).status == ReadStatus::Ok);
  REQUIRE(held.read(proc.get(), "stat", buffer, Records::One).status == ReadStatus::Ok);
  CHECK(held.held() == 3);
  held.sweep();  // all three were used in this period
  CHECK(held.held() == 3);
  REQUIRE(held.read(proc.get(), "stat", buffer, Records::One).status == ReadStatus::Ok);
  held.sweep();
  CHECK(held.held() == 1);
  held.sweep();
  CHECK(held.held() == 0);

  HeldFiles small(2);
  for (const char* path : {"self/stat", "self/io", "stat", "self/statm"})
    REQUIRE(small.read(proc.get(), path, buffer, Records::One).status == ReadStatus::Ok);
  CHECK(small.held() == 2);
  CHECK(HeldFiles(0).capacity() == 0);
}

TEST_CASE("raise_open_file_limit raises the soft limit, never past the hard one", "[held_files]") {
  rlimit saved{};
  REQUIRE(::getrlimit(RLIMIT_NOFILE, &saved) == 0);
  REQUIRE((saved.rlim_max == RLIM_INFINITY || saved.rlim_max >= 256));  // every Linux default allows this
  rlimit lowered = saved;
  lowered.rlim_cur = 128;
  REQUIRE(::setrlimit(RLIMIT_NOFILE, &lowered) == 0);
  CHECK(raise_open_file_limit(256) == 256);
  CHECK(raise_open_file_limit(200) == 256);  // never lowered
  if (saved.rlim_max != RLIM_INFINITY) CHECK(raise_open_file_limit(saved.rlim_max + 1000) == saved.rlim_max);
  // The capacity asked for is cut to a quarter of the soft limit.
  lowered.rlim_cur = 128;
  REQUIRE(::setrlimit(RLIMIT_NOFILE, &lowered) == 0);
  CHECK(HeldFiles(4096).capacity() == 32);
  REQUIRE(::setrlimit(RLIMIT_NOFILE, &saved) == 0);
}
