#include "collect/exported_jobs.hpp"

#include <utility>

namespace petricore::collect {

void ExportedJobs::set_running(std::vector<JobSample> running) {
  running_.clear();
  for (auto& sample : running) {
    lingering_.erase(sample.job_id);
    std::string id = sample.job_id;
    running_.emplace(std::move(id), std::move(sample));
  }
}

void ExportedJobs::start(JobSample sample) {
  lingering_.erase(sample.job_id);
  std::string id = sample.job_id;
  running_.insert_or_assign(std::move(id), std::move(sample));
}

void ExportedJobs::end(JobSample final_sample, double now) {
  running_.erase(final_sample.job_id);
  std::string id = final_sample.job_id;
  lingering_.insert_or_assign(std::move(id), Lingering{std::move(final_sample), now + linger_});
}

std::vector<JobSample> ExportedJobs::current(double now) {
  std::vector<JobSample> out;
  out.reserve(running_.size() + lingering_.size());
  for (const auto& [id, sample] : running_) out.push_back(sample);
  for (auto it = lingering_.begin(); it != lingering_.end();) {
    if (it->second.until <= now) {
      it = lingering_.erase(it);
      continue;
    }
    out.push_back(it->second.sample);
    ++it;
  }
  return out;
}

}  // namespace petricore::collect
