// The GPU source of job facts (job_collector.hpp): one vendor library
// (gpu_source.hpp) read once per pass, at the pass's first job, and its
// devices matched to each job by gpu_mapping.hpp's rule. A job's sample gets
// the readings of the GPUs it holds and the count of its processes on GPUs
// it does not hold. The watch between passes reads no GPU: a job's final
// sample has its last pass's readings.
#pragma once

#include "collect/gpu_source.hpp"
#include "collect/job_collector.hpp"

#include <memory>
#include <vector>

namespace petricore::collect {

class GpuCollector final : public JobCollector {
 public:
  explicit GpuCollector(std::unique_ptr<GpuSource> source);

  void collect(JobContext& job, JobCollectorState* state, JobSample& out) override;

 private:
  // The readings at `now`, read once for every job of a pass.
  const std::vector<GpuSample>& samples_at(double now);

  std::unique_ptr<GpuSource> source_;
  bool read_once_ = false;
  double read_at_ = 0;
  std::vector<GpuSample> samples_;
  bool any_pids_ = false;      // whether any device lists a process
  std::vector<int> job_pids_;  // reused: the job's pids, sorted
};

}  // namespace petricore::collect
