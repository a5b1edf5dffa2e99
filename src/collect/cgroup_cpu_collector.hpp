// The job's CPU time, from its CPU cgroup (v1 cpuacct.usage, cpuacct.stat,
// cpuacct.usage_percpu; v2 cpu.stat): cpu_time_total, user_time,
// system_time, cpu_percent since the previous full pass (cpu_rate.hpp), and
// cpu_time_core for the CPUs of the job's cpuset — v1's per-CPU counters, or
// on v2 the shares of core_shares.hpp, weighted by the ProcessCollector's
// ticks by CPU. A value whose file is missing or malformed is left absent.
// The watch's CPU readings are taken by the sampler, together with the job's
// parent cgroup (cpu_after_end.hpp), and applied with apply_cpu_reading().
#pragma once

#include "collect/cgroup_reader.hpp"
#include "collect/core_shares.hpp"
#include "collect/job_collector.hpp"

#include <vector>

namespace petricore::collect {

struct CgroupCpuState {
  CoreShares v2_cores;
};

class CgroupCpuCollector final : public JobCollectorWith<CgroupCpuState> {
 public:
  explicit CgroupCpuCollector(CgroupReader& cgroups) : cgroups_(cgroups) {}

 protected:
  void collect_job(JobContext& job, CgroupCpuState& state, JobSample& out) override;

 private:
  CgroupReader& cgroups_;
  std::vector<double> weights_;  // reused
};

// A reading taken outside a full pass (the watch's, or the time a job used
// after it, recovered at its end) into the job's latest sample: total, user
// and system time, and the per-core seconds — v1 from its per-CPU counters;
// v2 scaled to the new total in the job's split so far, since v2 attributes
// time to cores only in full passes. Values that could not be read keep their
// last reading. Pure.
void apply_cpu_reading(const CgroupCpu& cpu, JobSample& latest);

}  // namespace petricore::collect
