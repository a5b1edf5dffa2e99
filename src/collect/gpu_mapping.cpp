#include "collect/gpu_mapping.hpp"

#include <algorithm>

namespace petricore::collect {
namespace {

bool listed(const std::vector<std::string>& ids, const std::string& value) {
  return !value.empty() && std::find(ids.begin(), ids.end(), value) != ids.end();
}

std::int64_t processes_of_job(const std::vector<int>& on_device, const std::vector<int>& job_pids) {
  std::int64_t n = 0;
  for (int pid : on_device)
    if (std::binary_search(job_pids.begin(), job_pids.end(), pid)) ++n;
  return n;
}

}  // namespace

JobGpuMatch match_job_gpus(const std::vector<std::string>& job_gpu_ids, const std::vector<int>& job_pids,
                           const std::vector<GpuDevice>& devices, const std::vector<GpuSample>& samples) {
  JobGpuMatch match;
  for (std::size_t i = 0; i < samples.size(); ++i) {
    const GpuSample& sample = samples[i];
    if (sample.device >= devices.size()) continue;
    const GpuDevice& device = devices[sample.device];
    bool by_id = !device.mig && (listed(job_gpu_ids, device.id) || listed(job_gpu_ids, device.uuid));
    std::int64_t running = job_pids.empty() ? 0 : processes_of_job(sample.pids, job_pids);
    if (by_id || (device.instance && running > 0))
      match.held.push_back(i);
    else if (running > 0)
      match.foreign.emplace_back(i, running);
  }
  return match;
}

}  // namespace petricore::collect
