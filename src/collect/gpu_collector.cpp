#include "collect/gpu_collector.hpp"

#include "collect/gpu_mapping.hpp"

#include <algorithm>
#include <utility>

namespace petricore::collect {

GpuCollector::GpuCollector(std::unique_ptr<GpuSource> source) : source_(std::move(source)) {}

const std::vector<GpuSample>& GpuCollector::samples_at(double now) {
  if (read_once_ && now == read_at_) return samples_;
  read_once_ = true;
  read_at_ = now;
  samples_ = source_->off_for_good() ? std::vector<GpuSample>{} : source_->read(now);
  any_pids_ = std::any_of(samples_.begin(), samples_.end(), [](const GpuSample& s) { return !s.pids.empty(); });
  return samples_;
}

void GpuCollector::collect(JobContext& job, JobCollectorState* /*state*/, JobSample& out) {
  const std::vector<GpuSample>& samples = samples_at(job.now);
  if (samples.empty()) return;
  const std::vector<GpuDevice>& devices = source_->devices();
  job_pids_.clear();
  if (any_pids_ && job.processes) {
    job_pids_ = job.processes->pids;
    std::sort(job_pids_.begin(), job_pids_.end());
  }
  std::vector<std::string>& ids = job.facts.gpus;
  JobGpuMatch match = match_job_gpus(ids, job_pids_, devices, samples);
  for (std::size_t i : match.held) {
    const GpuSample& sample = samples[i];
    const GpuDevice& device = devices[sample.device];
    // A job that names its GPU by UUID: jobs_gpus_used shows its number.
    if (!device.uuid.empty()) std::replace(ids.begin(), ids.end(), device.uuid, device.id);
    JobGpuReading& reading = out.gpu_readings.emplace_back();
    reading.gpuid = device.id;
    reading.uuid = device.uuid;
    reading.model = device.model;
    reading.vendor = source_->vendor();
    reading.utilization_percent = sample.utilization_percent;
    reading.memory_utilization_percent = sample.memory_utilization_percent;
    reading.memory_used_mib = sample.memory_used_mib;
    reading.memory_total_mib = device.memory_total_mib;
    reading.power_watts = sample.power_watts;
  }
  for (const auto& [i, processes] : match.foreign)
    out.gpu_foreign_processes.emplace_back(devices[samples[i].device].id, processes);
}

}  // namespace petricore::collect
