#include "collect/cpu_after_end.hpp"

#include <algorithm>
#include <set>

namespace petricore::collect {
namespace {

// Below this the result is rounding, above it the readings do not add up.
constexpr double kRoundingSeconds = 0.05;
// Time outside the vanished jobs' CPUs that still lets the split stand.
constexpr double kOutsideShare = 0.05;

// A sum of optional counters; unknown once any term is.
struct Sum {
  bool known = true;
  double value = 0;
  void add(const std::optional<double>& v, double sign) {
    if (!v)
      known = false;
    else
      value += sign * *v;
  }
};

}  // namespace

std::optional<VanishedCpu> cpu_of_vanished(const CpuReadings& before, const CpuReadings& now) {
  // A child that vanished, or whose counters went down.
  auto went = [&](const std::string& name, const CgroupCpu& was) {
    auto it = now.children.find(name);
    if (it == now.children.end()) return true;
    return it->second.total_seconds && was.total_seconds &&
           *it->second.total_seconds + kRoundingSeconds < *was.total_seconds;
  };
  VanishedCpu out;
  for (const auto& [name, reading] : before.children)
    if (went(name, reading)) out.children.push_back(name);
  if (out.children.empty()) return std::nullopt;
  // The children whose time before counts (still the same cgroup).
  auto same_as_before = [&](const std::string& name) -> const CgroupCpu* {
    auto was = before.children.find(name);
    return was == before.children.end() || went(name, was->second) ? nullptr : &was->second;
  };

  // The parent's growth less the growth of every child still (or newly) there.
  auto spent = [&](std::optional<double> CgroupCpu::*field) -> std::optional<double> {
    Sum sum;
    sum.add(now.parent.*field, 1);
    sum.add(before.parent.*field, -1);
    for (const auto& [name, reading] : now.children) {
      sum.add(reading.*field, -1);
      if (const CgroupCpu* was = same_as_before(name)) sum.add(was->*field, 1);
    }
    if (!sum.known || sum.value < -kRoundingSeconds) return std::nullopt;
    return sum.value > 0 ? sum.value : 0.0;
  };
  out.spent.total_seconds = spent(&CgroupCpu::total_seconds);
  if (!out.spent.total_seconds) return std::nullopt;
  out.spent.user_seconds = spent(&CgroupCpu::user_seconds);
  out.spent.system_seconds = spent(&CgroupCpu::system_seconds);

  // Per CPU, the same arithmetic when every reading has the same CPUs.
  const auto& parent_now = now.parent.per_cpu_seconds;
  const auto& parent_before = before.parent.per_cpu_seconds;
  if (!parent_now || !parent_before || parent_now->size() != parent_before->size()) return out;
  std::size_t cpus = parent_now->size();
  std::vector<double> per_cpu(cpus);
  for (std::size_t c = 0; c < cpus; ++c) per_cpu[c] = (*parent_now)[c] - (*parent_before)[c];
  for (const auto& [name, reading] : now.children) {
    if (!reading.per_cpu_seconds || reading.per_cpu_seconds->size() != cpus) return out;
    const CgroupCpu* was = same_as_before(name);
    if (was && (!was->per_cpu_seconds || was->per_cpu_seconds->size() != cpus)) return out;
    for (std::size_t c = 0; c < cpus; ++c) {
      per_cpu[c] -= (*reading.per_cpu_seconds)[c];
      if (was) per_cpu[c] += (*was->per_cpu_seconds)[c];
    }
  }
  for (double& seconds : per_cpu) {
    if (seconds < -kRoundingSeconds) return out;
    if (seconds < 0) seconds = 0;
  }
  out.spent.per_cpu_seconds = std::move(per_cpu);
  return out;
}

std::optional<CgroupCpu> share_of(const VanishedCpu& vanished, const std::string& child,
                                  const std::map<std::string, std::vector<int>>& cpus_of) {
  if (std::find(vanished.children.begin(), vanished.children.end(), child) == vanished.children.end())
    return std::nullopt;
  if (vanished.children.size() == 1) return vanished.spent;
  const auto& per_cpu = vanished.spent.per_cpu_seconds;
  if (!per_cpu || !vanished.spent.total_seconds) return std::nullopt;
  std::set<int> held;
  for (const std::string& name : vanished.children) {
    auto cpus = cpus_of.find(name);
    if (cpus == cpus_of.end() || cpus->second.empty()) return std::nullopt;
    for (int c : cpus->second)
      if (c < 0 || static_cast<std::size_t>(c) >= per_cpu->size() || !held.insert(c).second) return std::nullopt;
  }
  double inside = 0;
  for (int c : held) inside += (*per_cpu)[static_cast<std::size_t>(c)];
  double outside = *vanished.spent.total_seconds - inside;
  if (outside > kRoundingSeconds + kOutsideShare * *vanished.spent.total_seconds) return std::nullopt;

  CgroupCpu share;
  std::vector<double> mine(per_cpu->size(), 0.0);
  double total = 0;
  for (int c : cpus_of.at(child)) {
    mine[static_cast<std::size_t>(c)] = (*per_cpu)[static_cast<std::size_t>(c)];
    total += mine[static_cast<std::size_t>(c)];
  }
  share.total_seconds = total;
  share.per_cpu_seconds = std::move(mine);
  return share;
}

}  // namespace petricore::collect
