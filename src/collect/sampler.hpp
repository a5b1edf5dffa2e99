// One collection pass over every job on the node: discovers the jobs through
// the layout, reads their cgroup files and their processes' /proc files, and
// returns one JobSample per job. Keeps per-job state between passes (CPU time
// for rates, I/O of exited processes, the scratch flag, the memory high-water
// mark, cached static facts) and forgets a job when it disappears.
//
// Everything is read relative to two held directory fds, so tests point the
// sampler at fixture trees and production at /sys/fs/cgroup and /proc.
#pragma once

#include "collect/job_sample.hpp"
#include "collect/layout.hpp"
#include "core/unique_fd.hpp"

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
};

class Sampler {
 public:
  // Throws std::runtime_error when a root directory cannot be opened.
  Sampler(const std::string& cgroup_root, const std::string& proc_root, std::unique_ptr<Layout> layout,
          SamplerOptions options, ErrorCounter& errors);
  ~Sampler();
  Sampler(const Sampler&) = delete;
  Sampler& operator=(const Sampler&) = delete;

  // One pass. `now` is a monotonic time in seconds (steady clock in the daemon,
  // chosen freely by tests); CPU percent is the CPU time delta over its delta.
  std::vector<JobSample> sample(double now);

  // Jobs with state kept between passes (for leak checks).
  std::size_t tracked_jobs() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The steady clock in seconds.
double monotonic_seconds();

}  // namespace petricore::collect
