// HeldFiles on the real /proc (its own and a child's files), on a private
// cgroup2 mount, and on a plain temporary directory, which must never be held.
#include "collect/held_files.hpp"

#include "catch.hpp"

#include "real_cgroup2.hpp"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

using namespace petricore::collect;
namespace fs = std::filesystem;
using petricore::test::Cgroup2Mount;
using petricore::test::move_process;
using petricore::test::SleepingChild;

namespace {

int open_dir(const char* path) {
  int fd = ::open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  REQUIRE(fd >= 0);
  return fd;
}

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

namespace {

std::vector<std::string> subdirectories_of(int fd, bool rewind) {
  std::vector<std::string> names;
  REQUIRE(list_directory(fd,
                         [&](std::string_view name, bool is_directory) {
                           if (is_directory) names.emplace_back(name);
                         },
                         {rewind, true}));
  return names;
}

}  // namespace

TEST_CASE("a v2 cgroup directory is held with its cgroup.procs, and opened afresh once the cgroup is made anew",
          "[held_files]") {
  Cgroup2Mount cg2;
  if (cg2.top.empty()) {
    WARN("cannot mount cgroup2 and make a cgroup in it (not root, or not allowed here): skipped");
    return;
  }
  const fs::path& top = cg2.top;
  fs::create_directories(top / "job_1" / "step_0");
  petricore::UniqueFd root{open_dir(top.c_str())};
  SleepingChild child;
  std::string pid_line = std::to_string(child.pid) + "\n";
  move_process(child.pid, top / "job_1" / "step_0");
  HeldFiles held(16);
  ReadBuffer buffer;

  HeldFiles::CgroupDir job = held.read_cgroup(root.get(), "job_1", "job_1", buffer);
  REQUIRE(job.procs.status == ReadStatus::Ok);
  CHECK(buffer.view().empty());
  CHECK_FALSE(job.held);
  CHECK(subdirectories_of(job.fd, job.held) == std::vector<std::string>{"step_0"});
  HeldFiles::CgroupDir step = held.read_cgroup(job.fd, "step_0", "job_1/step_0", buffer);
  REQUIRE(step.procs.status == ReadStatus::Ok);
  CHECK(buffer.view() == pid_line);
  CHECK(held.held() == 4);  // two directories, two cgroup.procs

  // Again: through the held pair, the same answers.
  step = held.read_cgroup(job.fd, "step_0", "job_1/step_0", buffer);
  REQUIRE(step.procs.status == ReadStatus::Ok);
  CHECK(step.held);
  CHECK(buffer.view() == pid_line);
  job = held.read_cgroup(root.get(), "job_1", "job_1", buffer);
  CHECK(job.held);
  CHECK(subdirectories_of(job.fd, job.held) == std::vector<std::string>{"step_0"});

  // The step made anew under the same name (a requeued job's cgroups), with
  // a cgroup below it: the held pair reads as gone, the new one is listed.
  move_process(child.pid, cg2.parking);
  REQUIRE(::rmdir((top / "job_1" / "step_0").c_str()) == 0);
  fs::create_directories(top / "job_1" / "step_0" / "task_0");
  move_process(child.pid, top / "job_1" / "step_0" / "task_0");
  step = held.read_cgroup(job.fd, "step_0", "job_1/step_0", buffer);
  REQUIRE(step.procs.status == ReadStatus::Ok);
  CHECK_FALSE(step.held);
  CHECK(buffer.view().empty());
  CHECK(subdirectories_of(step.fd, step.held) == std::vector<std::string>{"task_0"});
  CHECK(held.held() == 4);

  // Removed: gone, and nothing of it stays held.
  move_process(child.pid, cg2.parking);
  REQUIRE(::rmdir((top / "job_1" / "step_0" / "task_0").c_str()) == 0);
  REQUIRE(::rmdir((top / "job_1" / "step_0").c_str()) == 0);
  step = held.read_cgroup(job.fd, "step_0", "job_1/step_0", buffer);
  CHECK(step.fd < 0);
  CHECK(step.procs.status == ReadStatus::Missing);
  CHECK(held.held() == 2);
  held.sweep();
  held.read_cgroup(root.get(), "job_1", "job_1", buffer);
  held.sweep();
  CHECK(held.held() == 2);  // job_1 used in that period
  held.sweep();
  CHECK(held.held() == 0);
}

TEST_CASE("a cgroup directory outside cgroup v2 is read the plain way", "[held_files]") {
  std::string templ = (fs::temp_directory_path() / "petricore-held-XXXXXX").string();
  REQUIRE(::mkdtemp(templ.data()) != nullptr);
  fs::path dir = templ;
  fs::create_directories(dir / "job_2" / "step_batch");
  write_file(dir / "job_2" / "cgroup.procs", "42\n");
  petricore::UniqueFd root{open_dir(templ.c_str())};
  HeldFiles held(16);
  ReadBuffer buffer;
  for (int pass = 0; pass < 2; ++pass) {
    HeldFiles::CgroupDir job = held.read_cgroup(root.get(), "job_2", "job_2", buffer);
    REQUIRE(job.procs.status == ReadStatus::Ok);
    CHECK(buffer.view() == "42\n");
    CHECK_FALSE(job.held);
    CHECK(subdirectories_of(job.fd, false) == std::vector<std::string>{"step_batch"});
    HeldFiles::CgroupDir step = held.read_cgroup(job.fd, "step_batch", "job_2/step_batch", buffer);
    CHECK(step.fd >= 0);
    CHECK(step.procs.status == ReadStatus::Missing);  // no cgroup.procs there
  }
  CHECK(held.held() == 0);
  std::error_code ec;
  fs::remove_all(dir, ec);
}
