#include "collect/cpu_rate.hpp"

namespace petricore::collect {

namespace {

double percent(double cpu_delta, double wall_delta) {
  return cpu_delta < 0 ? 0.0 : 100.0 * cpu_delta / wall_delta;
}

}  // namespace

std::optional<double> CpuRate::next(double cpu_seconds, double now) {
  std::optional<double> rate;
  if (last_cpu_seconds_ && now > last_time_) rate = percent(cpu_seconds - *last_cpu_seconds_, now - last_time_);
  last_cpu_seconds_ = cpu_seconds;
  last_time_ = now;
  return rate;
}

std::optional<double> CpuRate::since_base(double cpu_seconds, double read_time, double min_seconds) const {
  double span = read_time - last_time_;
  if (!last_cpu_seconds_ || span < min_seconds) return std::nullopt;
  return percent(cpu_seconds - *last_cpu_seconds_, span);
}

}  // namespace petricore::collect
