// Reads the per-process files the metric set needs from a held /proc (or
// fixture) directory fd, into one reused buffer. A process that exited between
// listing and reading is normal and silent; permission errors and malformed
// files are counted ("proc", or "environ" for the job environment). The files
// read on every pass (stat, io, the fd/ directory, /proc/stat) stay open
// between passes (held_files.hpp) until end_pass() finds them unused.
#pragma once

#include "collect/file_reader.hpp"
#include "collect/held_files.hpp"
#include "collect/kernel_formats.hpp"
#include "core/unique_fd.hpp"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace petricore::collect {

class ErrorCounter;

class ProcfsReader {
 public:
  ProcfsReader(UniqueFd proc_root, ErrorCounter& errors);

  std::optional<ProcStat> stat(int pid);
  std::optional<ProcIo> io(int pid);
  std::optional<ProcStatus> status(int pid);
  // The raw environ (NUL separated). Copies: it is read once per job.
  std::optional<std::string> environ(int pid);
  // Owner of /proc/<pid> (the process's effective uid).
  std::optional<unsigned> owner_uid(int pid);
  std::optional<std::string> cwd(int pid);
  // Calls visit(path) for every fd of the process that refers to a regular
  // file (sockets, pipes, devices, anon inodes are skipped).
  void open_files(int pid, const std::function<void(std::string_view path)>& visit);
  // Where this reader counts its errors (for the collectors built on it).
  ErrorCounter& errors() const { return errors_; }
  // Busy ticks (user+nice+system+irq+softirq+steal) per CPU id from /proc/stat.
  std::vector<std::uint64_t> cpu_busy_ticks();
  // Closes the held files no process of this pass used.
  void end_pass() { held_.sweep(); }
  std::size_t held_files() const { return held_.held(); }

 private:
  // Reads <pid>/<file> into buffer_; false when gone or broken.
  bool read(int pid, const char* file, bool hold);
  void malformed(int pid, const char* file);
  const char* pid_path(int pid, const char* file);

  UniqueFd root_;
  ErrorCounter& errors_;
  char path_[64];
  std::string held_path_;  // path_ as the held files' key, its capacity kept
  HeldFiles held_;
  ReadBuffer buffer_;
  ReadBuffer link_;
};

}  // namespace petricore::collect
