#include "collect/core_shares.hpp"

namespace petricore::collect {

void core_weights(const std::vector<int>& cpus, bool exclusive_cpuset, const std::vector<std::uint64_t>* busy_delta,
                  const std::unordered_map<int, double>& job_ticks_by_cpu, std::vector<double>& weights) {
  weights.assign(cpus.size(), 0.0);
  for (std::size_t i = 0; i < cpus.size(); ++i) {
    auto c = static_cast<std::size_t>(cpus[i]);
    if (exclusive_cpuset && busy_delta && c < busy_delta->size()) {
      weights[i] = static_cast<double>((*busy_delta)[c]);
    } else if (auto it = job_ticks_by_cpu.find(cpus[i]); it != job_ticks_by_cpu.end()) {
      weights[i] = it->second;
    }
  }
}

void CoreShares::add(const std::vector<int>& cpus, double total_seconds, const std::vector<double>& weights) {
  if (seconds_.size() != cpus.size()) seconds_.assign(cpus.size(), 0.0);
  double delta = last_total_ ? total_seconds - *last_total_ : total_seconds;
  last_total_ = total_seconds;
  if (delta <= 0) return;
  double weight_sum = 0;
  for (std::size_t i = 0; i < cpus.size() && i < weights.size(); ++i) weight_sum += weights[i];
  for (std::size_t i = 0; i < cpus.size(); ++i) {
    double weight = i < weights.size() ? weights[i] : 0.0;
    double share = weight_sum > 0 ? weight / weight_sum : 1.0 / static_cast<double>(cpus.size());
    seconds_[i] += delta * share;
  }
}

}  // namespace petricore::collect
