// The job's processes, from /proc: for every process its cgroups list
// (slurmstepd left out) /proc/<pid>/stat, io, fd/ and cwd, and status when
// the job has no memory cgroup, all read through SlowReads (one batch per
// job, off the sampling path: any of them can hang on a dead filesystem). A
// process skipped there still counts in processes; one in state D counts
// with its stat's threads, and nothing more of it is read. Fills processes, threads_by_name (capped),
// opened_files (distinct regular files), uses_scratch (once seen, kept for the
// job's life) and the I/O totals with exited processes' I/O kept
// (process_tracker.hpp). Leaves for the collectors after it the pids read,
// v2's ticks by CPU and the resident memory (ProcessFindings).
#pragma once

#include "collect/cgroup_reader.hpp"
#include "collect/job_collector.hpp"
#include "collect/process_tracker.hpp"
#include "collect/slow_reads.hpp"
#include "collect/thread_names.hpp"

#include <cstddef>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

namespace petricore::collect {

struct ProcessState {
  ProcessTracker tracker;
  bool uses_scratch = false;
};

class ProcessCollector final : public JobCollectorWith<ProcessState> {
 public:
  ProcessCollector(CgroupReader& cgroups, SlowReads& slow, std::vector<std::string> scratch_prefixes,
                   std::size_t max_proc_names);

 protected:
  void collect_job(JobContext& job, ProcessState& state, JobSample& out) override;

 private:
  bool under_scratch(std::string_view path) const;

  CgroupReader& cgroups_;
  SlowReads& slow_;
  std::vector<std::string> scratch_prefixes_;
  std::size_t max_proc_names_;
  // Reused between jobs and passes.
  std::vector<ProcessRef> process_list_;
  std::vector<SlowReadRequest> requests_;
  std::unordered_set<std::string> open_paths_;
  ThreadsByName threads_;
};

}  // namespace petricore::collect
