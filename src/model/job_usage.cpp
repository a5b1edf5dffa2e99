#include "model/job_usage.hpp"

namespace petricore::model {

void compute_ratios(JobUsage& usage) {
  const JobRecord& job = usage.job;
  usage.cpu_efficiency_percent.reset();
  if (usage.cpu_avg_percent && job.alloc_cpus > 0)
    usage.cpu_efficiency_percent = *usage.cpu_avg_percent / job.alloc_cpus;
  usage.memory_fraction.reset();
  if (usage.memory_resident_mb && job.alloc_mem_mb && *job.alloc_mem_mb > 0)
    usage.memory_fraction = *usage.memory_resident_mb / *job.alloc_mem_mb;
  usage.time_limit_fraction.reset();
  if (usage.runtime_seconds && job.time_limit_seconds && *job.time_limit_seconds > 0)
    usage.time_limit_fraction =
        static_cast<double>(*usage.runtime_seconds) / static_cast<double>(*job.time_limit_seconds);
}

}  // namespace petricore::model
