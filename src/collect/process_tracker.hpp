// The processes of one job across passes, each known by pid and start time so
// that a reused pid is not taken for the same process. Keeps two things the
// per-process /proc files lose when a process goes:
//   * its I/O. /proc/<pid>/io is per process and vanishes with it, but when a
//     parent reaps a child the kernel adds the child's I/O to the parent's. So
//     a process that ended under a parent still in the job is counted again by
//     that parent; only one whose parent is outside the job (slurmstepd, init,
//     a subreaper) or gone as well took its I/O away, and is banked here.
//   * its CPU ticks at the previous pass, for the ticks it used since.
// The job's totals never go down: between a child's exit and its reaping the
// parent does not count it yet, so the highest totals so far are reported.
//
// Pure: the caller reads /proc and hands in what it read.
#pragma once

#include "collect/kernel_formats.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <unordered_map>
#include <vector>

namespace petricore::collect {

class ProcessTracker {
 public:
  // Starts a pass: no process is listed yet.
  void begin_pass();
  // A process of the job read this pass. `cpu_ticks` is utime + stime (USER_HZ
  // ticks); `io` is absent when /proc/<pid>/io could not be read, which keeps
  // the last values read. Returns the ticks it used since it was last seen: 0
  // for a process seen for the first time (a reused pid included).
  std::uint64_t seen(int pid, std::uint64_t starttime, int ppid, std::uint64_t cpu_ticks,
                     const std::optional<ProcIo>& io);
  // A listed process whose /proc files could not be read this once: what is
  // known of it is kept until the cgroup no longer lists it.
  void still_listed(int pid);
  // Ends the pass: a known process not listed has exited — unless the listing
  // was incomplete, when nobody is taken for gone. Returns the job's I/O
  // totals, exited processes included, never below the previous pass's.
  ProcIo end_pass(bool listing_complete);

  std::size_t tracked() const { return processes_.size(); }

 private:
  struct Tracked {
    std::uint64_t starttime = 0;
    ProcIo io;                    // last values read
    std::uint64_t cpu_ticks = 0;  // utime + stime
    int ppid = 0;
    bool listed = false;  // in the job's cgroup.procs this pass
  };
  bool reaped_inside_job(const Tracked& gone) const;

  std::unordered_map<int, Tracked> processes_;
  std::vector<Tracked> replaced_;  // this pass: processes whose pid was reused
  ProcIo exited_io_;               // sums of processes that exited with their I/O
  ProcIo reported_io_;             // the totals last reported
};

}  // namespace petricore::collect
