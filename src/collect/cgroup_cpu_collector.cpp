#include "collect/cgroup_cpu_collector.hpp"

namespace petricore::collect {

void CgroupCpuCollector::collect_job(JobContext& job, CgroupCpuState& state, JobSample& out) {
  CgroupCpu cpu = cgroups_.cpu(job.cgroups);
  out.cpu_time_total = cpu.total_seconds;
  out.user_time = cpu.user_seconds;
  out.system_time = cpu.system_seconds;
  if (cpu.total_seconds) out.cpu_percent = job.rate.next(*cpu.total_seconds, job.now);

  if (!job.facts.cpus) return;
  const std::vector<int>& cpus = *job.facts.cpus;
  if (cpu.per_cpu_seconds) {
    // v1: cpuacct.usage_percpu is indexed by CPU id.
    for (int c : cpus) {
      if (c >= 0 && static_cast<std::size_t>(c) < cpu.per_cpu_seconds->size())
        out.cpu_time_core.emplace_back(c, (*cpu.per_cpu_seconds)[static_cast<std::size_t>(c)]);
    }
    return;
  }
  if (job.cgroups.version != CgroupVersion::V2 || cpus.empty() || !cpu.total_seconds) return;
  core_weights(cpus, job.exclusive_cpuset, job.cpu_busy_delta, job.processes->ticks_by_cpu, weights_);
  state.v2_cores.add(cpus, *cpu.total_seconds, weights_);
  const std::vector<double>& seconds = state.v2_cores.seconds();
  for (std::size_t i = 0; i < cpus.size(); ++i) out.cpu_time_core.emplace_back(cpus[i], seconds[i]);
}

void apply_cpu_reading(const CgroupCpu& cpu, JobSample& latest) {
  if (cpu.total_seconds) {
    if (cpu.per_cpu_seconds) {
      for (auto& [c, seconds] : latest.cpu_time_core)
        if (c >= 0 && static_cast<std::size_t>(c) < cpu.per_cpu_seconds->size())
          seconds = (*cpu.per_cpu_seconds)[static_cast<std::size_t>(c)];
    } else if (latest.cpu_time_total && *latest.cpu_time_total > 0) {
      // The watch's share follows the job's split so far, so the cores still
      // sum to the total.
      double scale = *cpu.total_seconds / *latest.cpu_time_total;
      for (auto& core : latest.cpu_time_core) core.second *= scale;
    }
    latest.cpu_time_total = cpu.total_seconds;
  }
  if (cpu.user_seconds) latest.user_time = cpu.user_seconds;
  if (cpu.system_seconds) latest.system_time = cpu.system_seconds;
}

}  // namespace petricore::collect
