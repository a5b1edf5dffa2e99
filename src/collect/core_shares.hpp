// Per-core CPU seconds of a cgroup v2 job. v2 has no per-CPU counter (v1's
// cpuacct.usage_percpu), so each full pass shares the growth of the job's
// cgroup CPU time (cpu.stat usage_usec) among the job's CPUs by weights: the
// per-CPU busy ticks of /proc/stat when the cpuset is the job's alone (all
// that ran there was the job's), else the ticks of the job's own threads by
// the CPU each last ran on. Without weights it is shared evenly: nothing
// tells where. The per-core values then sum to the cgroup total by
// construction.
//
// Pure: the CPU collector reads the files and keeps one CoreShares per job.
#pragma once

#include <cstdint>
#include <optional>
#include <unordered_map>
#include <vector>

namespace petricore::collect {

// The weight of each of `cpus` (CPU ids), into `weights` (resized to match):
// its /proc/stat busy ticks since the previous pass (`busy_delta`, indexed by
// CPU id, null when unknown) when `exclusive_cpuset`, else the job's thread
// ticks on it (`job_ticks_by_cpu`); 0 when neither knows it.
void core_weights(const std::vector<int>& cpus, bool exclusive_cpuset, const std::vector<std::uint64_t>* busy_delta,
                  const std::unordered_map<int, double>& job_ticks_by_cpu, std::vector<double>& weights);

class CoreShares {
 public:
  // The job's cgroup CPU total, seconds, at this pass: what it grew by since
  // the previous call (all of it on the first) is added to the job's CPUs in
  // proportion to `weights` (aligned with `cpus`), evenly when they sum to
  // zero. A total that went down adds nothing. A cpuset of another size
  // starts the shares again from zero.
  void add(const std::vector<int>& cpus, double total_seconds, const std::vector<double>& weights);
  // Seconds per CPU, aligned with the `cpus` of the last add().
  const std::vector<double>& seconds() const { return seconds_; }

 private:
  std::vector<double> seconds_;
  std::optional<double> last_total_;
};

}  // namespace petricore::collect
