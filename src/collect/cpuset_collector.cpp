#include "collect/cpuset_collector.hpp"

namespace petricore::collect {

void CpusetCollector::prepare(JobContext& job, JobCollectorState* /*state*/) {
  if (!job.facts.cpus) job.facts.cpus = cgroups_.cpuset(job.cgroups);
}

// Nothing more in a pass: the CPUs are facts, copied into every sample.
void CpusetCollector::collect(JobContext& /*job*/, JobCollectorState* /*state*/, JobSample& /*out*/) {}

}  // namespace petricore::collect
