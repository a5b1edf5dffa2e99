// The sources of job facts, built in one place. Adding a source is a
// collector in its own file (job_collector.hpp) and one line here.
#pragma once

#include "collect/job_collector.hpp"

#include <memory>
#include <vector>

namespace petricore::collect {

class CgroupReader;
class ErrorCounter;
class ProcfsReader;
class SlowReads;
struct SamplerOptions;

// Every collector, in the order the sampler runs them: the walk over the
// job's processes comes first (the environment and the CPU shares use what
// it found), and the owner is known before the cgroup files are read (an
// excluded user's job is read no further); the GPU sources come last, since
// they match the GPUs to the job's processes and its GPU ids.
std::vector<std::unique_ptr<JobCollector>> make_job_collectors(CgroupReader& cgroups, ProcfsReader& procfs,
                                                               SlowReads& slow, const SamplerOptions& options,
                                                               ErrorCounter& errors);

}  // namespace petricore::collect
