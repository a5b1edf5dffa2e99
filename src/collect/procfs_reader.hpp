// The sampling thread's own /proc reads: the node's /proc/stat (held open
// between passes, held_files.hpp) and the owner of a process's /proc entry.
// A process's files (stat, io, status, fd/, cwd, environ) are read by
// slow_reads.hpp's reader threads below the same root, since any of them
// can hang on a dead filesystem.
#pragma once

#include "collect/file_reader.hpp"
#include "collect/held_files.hpp"
#include "core/unique_fd.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace petricore::collect {

class ErrorCounter;

class ProcfsReader {
 public:
  ProcfsReader(UniqueFd proc_root, ErrorCounter& errors);

  // Owner of /proc/<pid> (the process's effective uid).
  std::optional<unsigned> owner_uid(int pid);
  // The root, for slow_reads.hpp.
  int root_fd() const { return root_.get(); }
  // Where this reader counts its errors (for the collectors built on it).
  ErrorCounter& errors() const { return errors_; }
  // Busy ticks (user+nice+system+irq+softirq+steal) per CPU id from /proc/stat.
  std::vector<std::uint64_t> cpu_busy_ticks();
  // Closes the held files this pass did not use.
  void end_pass() { held_.sweep(); }
  std::size_t held_files() const { return held_.held(); }

 private:
  UniqueFd root_;
  ErrorCounter& errors_;
  char path_[64];
  std::string held_path_;
  HeldFiles held_;
  ReadBuffer buffer_;
};

}  // namespace petricore::collect
