// SlowReads over a small proc tree of its own. A process whose stat is a
// FIFO blocks the reader in open(2), in the kernel, as a read of a process
// whose exec hangs on a dead filesystem does; each test opens the FIFOs for
// writing at its end, so the stuck readers return.
#include "collect/slow_reads.hpp"

#include "collect/error_counter.hpp"
#include "collect/skip_counter.hpp"

#include "catch.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

using namespace petricore::collect;
namespace fs = std::filesystem;
using namespace std::chrono_literals;

namespace {

struct ProcTree {
  fs::path dir;
  petricore::UniqueFd fd;
  ErrorCounter errors;
  SkipCounter skips;
  std::vector<fs::path> fifos;

  ProcTree() {
    std::string templ = (fs::temp_directory_path() / "petricore-slow-XXXXXX").string();
    REQUIRE(::mkdtemp(templ.data()) != nullptr);
    dir = templ;
    // 100: a process with files, a cwd and an environment.
    fs::create_directories(dir / "100" / "fd");
    fs::create_symlink("/dev/null", dir / "100" / "fd" / "0");
    fs::create_symlink("/scratch/u/out (deleted)", dir / "100" / "fd" / "3");
    fs::create_symlink("/home/u/data", dir / "100" / "fd" / "4");
    fs::create_symlink("socket:[4711]", dir / "100" / "fd" / "5");
    fs::create_symlink("/home/u", dir / "100" / "cwd");
    std::ofstream(dir / "100" / "environ") << std::string("A=1\0SLURM_JOB_ID=7\0", 19);
    std::ofstream(dir / "100" / "io") << "rchar: 1\nwchar: 2\nsyscr: 3\nsyscw: 4\nread_bytes: 4096\n"
                                         "write_bytes: 8192\ncancelled_write_bytes: 0\n";
    process(100, 'S');
    fd = petricore::UniqueFd(::open(templ.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    REQUIRE(fd.get() >= 0);
  }
  // /proc/<pid>/stat of a process in `state`.
  void process(int pid, char state) {
    fs::create_directories(dir / std::to_string(pid));
    std::ofstream(dir / std::to_string(pid) / "stat")
        << pid << " (job) " << state
        << " 1 1 1 0 -1 4194560 1223 0 6 0 3 5 0 0 20 0 4 0 500000 26521600 1825 18446744073709551615 1 2 3 0 0 0 "
           "0 0 16386 0 0 0 17 0 0 0 0 0 0 1 2 3 4 5 6 7 0\n";
  }
  // A process whose stat blocks its reader until released.
  void hanging(int pid) {
    fs::create_directories(dir / std::to_string(pid));
    fs::path fifo = dir / std::to_string(pid) / "stat";
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    fifos.push_back(fifo);
  }
  // Opens every FIFO for writing and closes it: its stuck reader reads an
  // empty file and returns. A FIFO no reader has open is left as it is.
  void release() {
    for (const fs::path& fifo : fifos) {
      int w = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
      if (w >= 0) ::close(w);
    }
  }
  ~ProcTree() {
    release();
    std::error_code ignored;
    fs::remove_all(dir, ignored);
  }
  std::uint64_t skipped(std::string_view reason) const { return skips.totals().at(std::string{reason}); }
};

SlowReadRequest everything(int pid) {
  return SlowReadRequest{pid, true, false, true, true, true};
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

bool unstuck(const SlowReads& slow) {
  for (int i = 0; i < 500 && slow.stuck_readers() > 0; ++i) std::this_thread::sleep_for(10ms);
  return slow.stuck_readers() == 0;
}

}  // namespace

TEST_CASE("slow reads give a process's regular-file fd targets, cwd and environment", "[slow_reads]") {
  ProcTree t;
  SlowReads slow(t.fd.get(), 15, t.errors, t.skips);
  slow.begin_pass();
  REQUIRE(slow.may_read(100));
  const std::vector<ProcessReading>& got = slow.read({everything(100), everything(101)});
  REQUIRE(got.size() == 2);
  REQUIRE(got[0].read);
  REQUIRE(got[0].stat);
  CHECK(got[0].stat->state == 'S');
  REQUIRE(got[0].io);
  CHECK(got[0].io->write_bytes == 8192);
  std::vector<std::string> files(got[0].files.begin(), got[0].files.begin() + got[0].file_count);
  std::sort(files.begin(), files.end());
  CHECK(files == std::vector<std::string>{"/home/u/data", "/scratch/u/out"});
  CHECK(got[0].cwd == "/home/u");
  CHECK(got[0].environ == std::string("A=1\0SLURM_JOB_ID=7\0", 19));
  // 101 is gone: read, nothing found, no error (a vanished process is normal).
  CHECK(got[1].read);
  CHECK_FALSE(got[1].stat);
  CHECK(got[1].file_count == 0);
  CHECK_FALSE(got[1].cwd);
  CHECK(t.errors.totals().at("proc") == 0);
  for (const auto& [reason, n] : t.skips.totals()) CHECK(n == 0);
}

TEST_CASE("a process in state D is read no further than its stat, and counted", "[slow_reads]") {
  ProcTree t;
  t.process(300, 'D');
  fs::create_symlink("/home/u", t.dir / "300" / "cwd");
  SlowReads slow(t.fd.get(), 15, t.errors, t.skips);
  for (int pass = 1; pass <= 2; ++pass) {
    slow.begin_pass();
    REQUIRE(slow.may_read(300));
    const ProcessReading& got = slow.read({everything(300)}).front();
    CHECK(got.read);
    REQUIRE(got.stat);
    CHECK(got.d_state);
    CHECK_FALSE(got.io);
    CHECK_FALSE(got.cwd);
    CHECK_FALSE(got.environ);
    CHECK(slow.blocked(300));
    std::string env;
    CHECK(slow.environ(300, env) == SlowReads::Got::Skipped);
    CHECK(t.skipped(skip_reason::d_state) == static_cast<std::uint64_t>(pass));
  }
  // Out of D: read in full.
  t.process(300, 'S');
  slow.begin_pass();
  const ProcessReading& got = slow.read({everything(300)}).front();
  CHECK_FALSE(got.d_state);
  CHECK(got.cwd == "/home/u");
  CHECK_FALSE(slow.blocked(300));
}

TEST_CASE("a read that hangs is abandoned within its budget and its process left alone until it returns",
          "[slow_reads]") {
  ProcTree t;
  t.hanging(200);
  t.hanging(201);
  // A 1 s pass: 0.25 s a process, 0.8 s for them all.
  SlowReads slow(t.fd.get(), 1, t.errors, t.skips);
  slow.begin_pass();
  auto start = std::chrono::steady_clock::now();
  const std::vector<ProcessReading>& got = slow.read({everything(200), everything(201), everything(100)});
  double waited = seconds_since(start);
  CHECK(waited >= 0.45);
  CHECK(waited < 0.9);
  CHECK_FALSE(got[0].read);
  CHECK_FALSE(got[1].read);
  REQUIRE(got[2].read);  // the process after them, on a third reader
  CHECK(got[2].cwd == "/home/u");
  CHECK(t.skipped(skip_reason::timeout) == 2);
  CHECK(slow.stuck_readers() == 2);

  // The next pass does not queue behind them: skipped at once, counted again.
  slow.begin_pass();
  start = std::chrono::steady_clock::now();
  CHECK_FALSE(slow.may_read(200));
  CHECK_FALSE(slow.may_read(201));
  std::string env;
  CHECK(slow.environ(200, env) == SlowReads::Got::Skipped);
  CHECK(seconds_since(start) < 0.1);
  CHECK(t.skipped(skip_reason::timeout) == 4);

  // The reads return: the readers are back, and the process is read again.
  t.release();
  REQUIRE(unstuck(slow));
  slow.begin_pass();
  CHECK(slow.may_read(200));
  CHECK(slow.reader_threads() == 3);
}

TEST_CASE("a pass's slow reads stop at 80 % of its timeout, and stuck readers stay bounded", "[slow_reads]") {
  ProcTree t;
  for (int pid = 201; pid <= 206; ++pid) t.hanging(pid);
  SlowReads slow(t.fd.get(), 0.4, t.errors, t.skips);  // 0.1 s a process, 0.32 s a pass
  slow.begin_pass();
  std::vector<SlowReadRequest> requests;
  for (int pid = 201; pid <= 206; ++pid) requests.push_back(everything(pid));
  requests.push_back(everything(100));
  auto start = std::chrono::steady_clock::now();
  const std::vector<ProcessReading>& got = slow.read(requests);
  CHECK(seconds_since(start) < 0.4);
  for (const ProcessReading& r : got) CHECK_FALSE(r.read);
  CHECK(t.skipped(skip_reason::timeout) + t.skipped(skip_reason::pass_timeout) == requests.size());
  CHECK(t.skipped(skip_reason::pass_timeout) >= 1);
  CHECK(slow.stuck_readers() <= kReaderThreads);
  CHECK(slow.reader_threads() <= kReaderThreads);

  // However many hang, never more readers than kReaderThreads; once all are
  // stuck, reads are refused at once.
  for (int pass = 0; pass < 3; ++pass) {
    slow.begin_pass();
    std::vector<SlowReadRequest> more;
    for (int pid = 201; pid <= 206; ++pid)
      if (slow.may_read(pid)) more.push_back(everything(pid));
    more.push_back(everything(100));
    start = std::chrono::steady_clock::now();
    slow.read(more);
    CHECK(seconds_since(start) < 0.4);
  }
  CHECK(slow.stuck_readers() == kReaderThreads);
  CHECK(slow.reader_threads() == kReaderThreads);
  slow.begin_pass();
  start = std::chrono::steady_clock::now();
  CHECK_FALSE(slow.read({everything(100)}).front().read);
  CHECK(seconds_since(start) < 0.2);

  t.release();
  CHECK(unstuck(slow));
}
