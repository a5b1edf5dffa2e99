#include "collect/job_collectors.hpp"

#include "collect/cgroup_cpu_collector.hpp"
#include "collect/cgroup_memory_collector.hpp"
#include "collect/cpuset_collector.hpp"
#include "collect/environ_collector.hpp"
#include "collect/gpu_collector.hpp"
#include "collect/gpu_nvml.hpp"
#include "collect/gpu_rocm.hpp"
#include "collect/process_collector.hpp"
#include "collect/sampler.hpp"

namespace petricore::collect {

std::vector<std::unique_ptr<JobCollector>> make_job_collectors(CgroupReader& cgroups, ProcfsReader& procfs,
                                                               SlowReads& slow, const SamplerOptions& options,
                                                               ErrorCounter& errors) {
  std::vector<std::unique_ptr<JobCollector>> collectors;
  collectors.push_back(std::make_unique<CpusetCollector>(cgroups));
  collectors.push_back(
      std::make_unique<ProcessCollector>(cgroups, slow, options.scratch_prefixes, options.max_proc_names));
  collectors.push_back(std::make_unique<EnvironCollector>(procfs, slow));
  collectors.push_back(std::make_unique<CgroupCpuCollector>(cgroups));
  collectors.push_back(std::make_unique<CgroupMemoryCollector>(cgroups));
  if (!options.nvml_library.empty())
    collectors.push_back(std::make_unique<GpuCollector>(std::make_unique<NvmlGpus>(options.nvml_library, errors)));
  if (!options.rocm_smi_libraries.empty())
    collectors.push_back(
        std::make_unique<GpuCollector>(std::make_unique<RocmGpus>(options.rocm_smi_libraries, errors)));
  return collectors;
}

}  // namespace petricore::collect
