// A job's /proc reads, kept off the sampling path so that a dead NFS or
// Lustre server cannot stall a pass. Any read of a process can wait on one:
// its fd targets, cwd and environ, and even its stat and io, which wait on
// the process's exec lock while an execve of it hangs closing a file there
// (measured: test/integration/hang_test.sh). So every read of a process runs
// on a few reader threads (core/bounded_workers.hpp), a job's processes as
// one batch, each process with a time budget. A read that does not answer
// in it is abandoned, its thread left stuck in the kernel, and its process
// is left alone (skipped) until that read returns. A process found in
// uninterruptible sleep (state D) is read no further than its stat. Every
// skip is counted by reason (skip_counter.hpp), once per process and pass;
// its job is still exported, with its cgroup numbers.
//
// Bounds: at most kReaderThreads threads ever, so at most that many stuck;
// the reads of a pass stop at 80 % of its time (--pass-timeout), leaving the
// rest to the cgroup reads; each process gets a quarter of the pass's time,
// at most 1 s, at least 50 ms. The files read every pass (stat, io, the fd
// directory) stay open between passes, held by the readers' batch
// (held_files.hpp), until end_pass() finds them unused.
#pragma once

#include "collect/file_reader.hpp"
#include "collect/kernel_formats.hpp"
#include "core/bounded_workers.hpp"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace petricore::collect {

class ErrorCounter;
class SkipCounter;

inline constexpr std::size_t kReaderThreads = 4;

struct SlowReadRequest {
  int pid = 0;
  bool stat = true;      // stat, then io (not in state D)
  bool status = false;   // /proc/<pid>/status (not in state D)
  bool files = false;    // the fd targets that are regular files (not in state D)
  bool cwd = false;      // the cwd link (not in state D)
  bool environ = false;  // /proc/<pid>/environ
};

// What the reads of one process gave. Reused from pass to pass: the strings
// keep their capacity.
struct ProcessReading {
  int pid = 0;
  bool read = false;             // false: skipped (counted), nothing below is set
  std::optional<ProcStat> stat;  // absent: gone or unreadable
  bool d_state = false;          // found in state D: read no further (counted)
  std::optional<ProcIo> io;
  std::optional<ProcStatus> status;
  std::vector<std::string> files;  // the first file_count entries: regular-file targets, " (deleted)" cut
  std::size_t file_count = 0;
  std::optional<std::string> cwd;      // absent: gone or unreadable
  std::optional<std::string> environ;  // the raw environment (NUL separated)
  struct Error {
    std::string_view source;  // error_counter.hpp's
    std::string cause, detail;
  };
  std::vector<Error> errors;  // counted by SlowReads on the sampling thread
};

class SlowReads {
 public:
  // Reads below `proc_root` (its own duplicate of the fd, which stuck
  // readers keep). `pass_timeout` in seconds.
  SlowReads(int proc_root, double pass_timeout, ErrorCounter& errors, SkipCounter& skips);
  ~SlowReads();
  SlowReads(const SlowReads&) = delete;
  SlowReads& operator=(const SlowReads&) = delete;

  // A pass (or the watch's light pass) starts now: its reads may run until
  // 80 % of the pass timeout from now.
  void begin_pass();

  // Whether the process may be read in this pass: not while a read of it is
  // still stuck (counted). When not, blocked(pid) holds for the rest of the
  // pass, as it does for a process read() found in state D or skipped.
  bool may_read(int pid);
  bool blocked(int pid) const;

  // Runs the requests, in order; one reading per request, in the same order.
  // Valid until the next call.
  const std::vector<ProcessReading>& read(const std::vector<SlowReadRequest>& requests);

  // One process's environment: Read (into `out`), Failed (gone, unreadable:
  // counted by the reader) or Skipped (blocked, or no time left: counted).
  enum class Got { Read, Failed, Skipped };
  Got environ(int pid, std::string& out);

  // Closes the held files no process of this pass used.
  void end_pass();

  // Reader threads stuck on an abandoned read now, and started in all.
  std::size_t stuck_readers() const { return workers_.stuck(); }
  std::size_t reader_threads() const { return workers_.started(); }

 private:
  struct Batch;
  void skip(int pid, std::string_view reason);
  std::shared_ptr<Batch> idle_batch();

  std::shared_ptr<const UniqueFd> root_;
  BoundedWorkers::Clock::duration budget_;
  BoundedWorkers::Clock::duration share_;  // of a pass, for these reads
  BoundedWorkers::Clock::time_point deadline_;
  ErrorCounter& errors_;
  SkipCounter& skips_;
  BoundedWorkers workers_;
  std::shared_ptr<Batch> batch_;  // reused while no reader is stuck with it

  // Processes with a read still stuck, by pid, and the batch it is stuck in.
  // (Not told apart from a new process that got the pid: that would take a
  // read of its stat, which can hang too.)
  std::unordered_map<int, std::shared_ptr<const Batch>> hung_;
  std::vector<int> blocked_;  // this pass's skips
  std::vector<ProcessReading> out_;
  std::vector<SlowReadRequest> one_;  // environ()'s request
};

}  // namespace petricore::collect
