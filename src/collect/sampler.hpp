// One collection pass over every job on the node: discovers the jobs through
// the layout, reads their cgroup files and their processes' /proc files
// through the collectors of job_collectors.hpp, one per source, and returns
// one JobSample per job. Keeps per-job state between passes (CPU time
// for rates, I/O of exited processes, the scratch flag, the memory high-water
// mark, cached static facts) and forgets a job when it ends, handing its final
// sample out once. A job whose CPU time goes down (its cgroup name reused by
// a new job, e.g. a requeue) is sampled as a new job, which is logged.
//
// Everything is read relative to two held directory fds, so tests point the
// sampler at fixture trees and production at /sys/fs/cgroup and /proc.
//
// A pass cannot be stalled by a hung filesystem: the reads that could wait
// on one (fd targets, cwd, environ) run on reader threads with a time budget
// and stop at 80 % of `pass_timeout` (slow_reads.hpp); the processes they
// leave out are counted by reason (skipped()). Their jobs are still sampled,
// with everything the cgroups and /proc/<pid>/stat and io give.
#pragma once

#include "collect/job_sample.hpp"
#include "collect/layout.hpp"
#include "core/unique_fd.hpp"

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace petricore::collect {

class ErrorCounter;

struct SamplerOptions {
  std::vector<std::string> scratch_prefixes{"/scratch", "/localscratch"};
  std::set<unsigned> excluded_uids;
  std::size_t max_proc_names = 16;  // jobs_thread_count names per job before "other"
  // The GPU libraries (gpu_source.hpp), tried in order; none: that source is off.
  std::string nvml_library;
  std::vector<std::string> rocm_smi_libraries;
  double pass_timeout = 15;  // seconds (see above)
};

class Sampler {
 public:
  // Throws std::runtime_error when a root directory cannot be opened.
  Sampler(const std::string& cgroup_root, const std::string& proc_root, std::unique_ptr<Layout> layout,
          SamplerOptions options, ErrorCounter& errors);
  ~Sampler();
  Sampler(const Sampler&) = delete;
  Sampler& operator=(const Sampler&) = delete;

  // One full pass: every running job. `now` is a monotonic time in seconds
  // (steady clock in the daemon, chosen freely by tests); CPU percent is the
  // CPU time delta over its delta since the job's previous full pass.
  std::vector<JobSample> sample(double now);

  // The light pass between full passes: lists the jobs and reads each job
  // cgroup's own files only — CPU time, memory, and whether it still holds a
  // process — no /proc walk. Returns the jobs it saw for the first time, each
  // with a full sample taken at once. A job whose cgroup is gone or holds no
  // process any more has ended: see take_ended(). The readings refresh each
  // job's latest values, so a job's last CPU reading is at most one watch
  // interval old when it ends; they do not move the full passes' rate base.
  std::vector<JobSample> watch(double now);

  // The jobs that ended since the last call (found by either pass), each as
  // its last sample with the latest readings taken before the end — nothing
  // invented: a cgroup removed before a final read leaves the previous
  // readings. CPU percent is the rate since the job's last full pass, when
  // that lies long enough back to measure one.
  std::vector<JobSample> take_ended();

  // Jobs with state kept between passes (for leak checks).
  std::size_t tracked_jobs() const;

  // Processes whose slow reads were left out, by reason, since the start
  // (petricore_collect_skipped_total).
  std::map<std::string, std::uint64_t> skipped() const;
  // Reader threads stuck on an abandoned read now.
  std::size_t stuck_readers() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The soft open-file limit a sampler wants (raise_open_file_limit): its
// readers hold up to 4096 (the processes' files, slow_reads.hpp) + 1024
// (cgroups) files between passes, and take at most a quarter of the limit.
inline constexpr std::size_t kSamplerOpenFileLimit = 4 * (4096 + 1024);

// The steady clock in seconds.
double monotonic_seconds();

}  // namespace petricore::collect
