// jobs_cpu_percent: the growth of a job's cgroup CPU time over the wall time
// between two full passes. The base moves with every full pass only; the
// watch's readings in between refresh the counters but not the base, so a
// job's final sample gets the rate since its last full pass.
//
// Pure: times are monotonic seconds, chosen by the caller.
#pragma once

#include <optional>

namespace petricore::collect {

class CpuRate {
 public:
  // A full pass's reading of the job's CPU time, seconds, at `now`: % of one
  // CPU since the previous reading (absent on the first, or when no time
  // passed; 0 when the counter went down). The reading is the new base.
  std::optional<double> next(double cpu_seconds, double now);
  // The rate from the base to a later reading that does not move it (the
  // final sample's), absent without a base or when the stretch is shorter
  // than `min_seconds`: too short to measure.
  std::optional<double> since_base(double cpu_seconds, double read_time, double min_seconds) const;

 private:
  std::optional<double> last_cpu_seconds_;
  double last_time_ = 0;
};

}  // namespace petricore::collect
