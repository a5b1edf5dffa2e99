// The job's memory, from its memory cgroup (v1 memory.stat,
// memory.usage_in_bytes, memory.limit_in_bytes, memory.max_usage_in_bytes;
// v2 memory.stat, memory.current, memory.swap.current, memory.max,
// memory.peak), in MiB: rss (anon + shmem) and its breakdown, usage, limit
// and peak. A job without a memory cgroup gets rss from its processes'
// /proc/<pid>/status (the ProcessCollector's resident bytes) and nothing
// else. Without a peak file (v2 before kernel 5.19, or no memory cgroup) the
// peak is the high-water mark of rss over the job's samples. The watch
// refreshes all of it.
#pragma once

#include "collect/cgroup_reader.hpp"
#include "collect/job_collector.hpp"

#include <cstdint>
#include <optional>

namespace petricore::collect {

struct CgroupMemoryState {
  std::uint64_t high_water_bytes = 0;  // of rss
};

class CgroupMemoryCollector final : public JobCollectorWith<CgroupMemoryState> {
 public:
  explicit CgroupMemoryCollector(CgroupReader& cgroups) : cgroups_(cgroups) {}

 protected:
  void collect_job(JobContext& job, CgroupMemoryState& state, JobSample& out) override;
  void refresh_job(JobContext& job, CgroupMemoryState& state, JobSample& latest) override;

 private:
  CgroupReader& cgroups_;
};

// One reading into `out`, raising the high-water mark: the cgroup's when
// there is one, else only `process_rss_bytes` (absent: no rss either).
// Values that could not be read are left as they were. Pure.
void apply_memory(const std::optional<CgroupMemory>& memory, std::optional<std::uint64_t> process_rss_bytes,
                  std::uint64_t& high_water_bytes, JobSample& out);

}  // namespace petricore::collect
