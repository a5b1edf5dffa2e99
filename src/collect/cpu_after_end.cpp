#include "collect/cpu_after_end.hpp"

#include <vector>

namespace petricore::collect {
namespace {

// Below this the result is rounding, above it the readings do not add up.
constexpr double kRoundingSeconds = 0.05;

// before + sign * (now - before) style arithmetic on optional counters.
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

std::optional<CgroupCpu> cpu_after_last_reading(const CpuReadings& before, const CpuReadings& now,
                                                const std::string& gone) {
  auto last = before.children.find(gone);
  if (last == before.children.end() || now.children.count(gone)) return std::nullopt;
  for (const auto& [name, reading] : before.children)
    if (name != gone && !now.children.count(name)) return std::nullopt;  // two vanished: no split

  // The parent's growth less the growth of every child still (or newly) there.
  auto spent = [&](std::optional<double> CgroupCpu::*field) -> std::optional<double> {
    Sum sum;
    sum.add(now.parent.*field, 1);
    sum.add(before.parent.*field, -1);
    for (const auto& [name, reading] : now.children) {
      sum.add(reading.*field, -1);
      if (auto was = before.children.find(name); was != before.children.end()) sum.add(was->second.*field, 1);
    }
    if (!sum.known || sum.value < -kRoundingSeconds) return std::nullopt;
    return sum.value > 0 ? sum.value : 0.0;
  };
  CgroupCpu out;
  out.total_seconds = spent(&CgroupCpu::total_seconds);
  if (!out.total_seconds) return std::nullopt;
  out.user_seconds = spent(&CgroupCpu::user_seconds);
  out.system_seconds = spent(&CgroupCpu::system_seconds);

  // Per CPU, the same arithmetic when every reading has the same CPUs.
  const auto& parent_now = now.parent.per_cpu_seconds;
  const auto& parent_before = before.parent.per_cpu_seconds;
  if (!parent_now || !parent_before || parent_now->size() != parent_before->size()) return out;
  std::size_t cpus = parent_now->size();
  std::vector<double> per_cpu(cpus);
  for (std::size_t c = 0; c < cpus; ++c) per_cpu[c] = (*parent_now)[c] - (*parent_before)[c];
  for (const auto& [name, reading] : now.children) {
    if (!reading.per_cpu_seconds || reading.per_cpu_seconds->size() != cpus) return out;
    auto was = before.children.find(name);
    if (was != before.children.end() && (!was->second.per_cpu_seconds || was->second.per_cpu_seconds->size() != cpus))
      return out;
    for (std::size_t c = 0; c < cpus; ++c) {
      per_cpu[c] -= (*reading.per_cpu_seconds)[c];
      if (was != before.children.end()) per_cpu[c] += (*was->second.per_cpu_seconds)[c];
    }
  }
  for (double& seconds : per_cpu) {
    if (seconds < -kRoundingSeconds) return out;
    if (seconds < 0) seconds = 0;
  }
  out.per_cpu_seconds = std::move(per_cpu);
  return out;
}

}  // namespace petricore::collect
