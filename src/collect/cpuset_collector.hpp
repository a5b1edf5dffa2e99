// The job's CPUs, from its cpuset cgroup (v1 cpuset.cpus, v2
// cpuset.cpus.effective), read before the pass's jobs are sampled — the CPU
// collector and the sampler's view of shared cpusets need them — until read
// once, then kept in JobFacts.
#pragma once

#include "collect/cgroup_reader.hpp"
#include "collect/job_collector.hpp"

namespace petricore::collect {

class CpusetCollector final : public JobCollector {
 public:
  explicit CpusetCollector(CgroupReader& cgroups) : cgroups_(cgroups) {}

  void prepare(JobContext& job, JobCollectorState* state) override;
  void collect(JobContext& job, JobCollectorState* state, JobSample& out) override;

 private:
  CgroupReader& cgroups_;
};

}  // namespace petricore::collect
