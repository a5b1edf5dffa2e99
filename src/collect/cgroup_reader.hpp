// Reads one job's cgroup files (v1 or v2) relative to the held cgroup root and
// turns them into the values the sampler needs, in seconds and bytes. A file
// that vanished with its job is skipped silently; a file that is missing from a
// live cgroup, unreadable or malformed is counted as a "cgroup" error.
#pragma once

#include "collect/file_reader.hpp"
#include "collect/layout.hpp"
#include "core/unique_fd.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace petricore::collect {

class ErrorCounter;

// Each value is absent when its file was missing, unreadable or malformed.
struct CgroupCpu {
  std::optional<double> total_seconds;   // v1 cpuacct.usage, v2 cpu.stat usage_usec
  std::optional<double> user_seconds;    // v1 cpuacct.stat user, v2 user_usec
  std::optional<double> system_seconds;  // v1 cpuacct.stat system, v2 system_usec
  // v1 cpuacct.usage_percpu, indexed by CPU id; v2 has no such file.
  std::optional<std::vector<double>> per_cpu_seconds;
};

struct CgroupMemory {
  std::optional<std::uint64_t> rss_bytes;    // anon + shmem from memory.stat
  std::optional<std::uint64_t> limit_bytes;  // absent when unlimited
  std::optional<std::uint64_t> peak_bytes;   // v1 max_usage_in_bytes, v2 memory.peak (kernel >= 5.19)
};

// A process of the job and whether it sits in Slurm's extern step, whose
// processes (adopted ssh sessions, the step's sleep) carry no job environment.
struct ProcessRef {
  int pid = 0;
  bool in_extern_step = false;
};

class CgroupReader {
 public:
  CgroupReader(UniqueFd root, ErrorCounter& errors);

  int root_fd() const { return root_.get(); }

  CgroupCpu cpu(const JobCgroups& job);
  std::optional<CgroupMemory> memory(const JobCgroups& job);
  // The job's CPUs: nullopt when they could not be read (try again later),
  // empty when the job has no cpuset.
  std::optional<std::vector<int>> cpuset(const JobCgroups& job);
  // Every process in the job's cgroup subtree, once each, batch and numbered
  // steps before the extern step. Returns false when some cgroup.procs could
  // not be read, so the list may miss live processes.
  bool processes(const JobCgroups& job, std::vector<ProcessRef>& out);

 private:
  enum class Need { Required, Optional };
  // Reads <dir>/<file> into buffer_. False when absent or broken.
  bool read(const std::string& dir, const char* file, Need need);
  void malformed(const std::string& dir, const char* file);
  // Returns false when a cgroup.procs was unreadable or malformed.
  bool collect_processes(int dirfd, const std::string& path, bool in_extern, int depth, std::vector<ProcessRef>& out);

  UniqueFd root_;
  ErrorCounter& errors_;
  std::string path_;
  ReadBuffer buffer_;
  double ticks_per_second_;
};

}  // namespace petricore::collect
