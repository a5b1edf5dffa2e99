#include "collect/cgroup_memory_collector.hpp"

#include <algorithm>

namespace petricore::collect {

namespace {

constexpr double kMiB = 1024.0 * 1024.0;

}  // namespace

void apply_memory(const std::optional<CgroupMemory>& memory, std::optional<std::uint64_t> process_rss_bytes,
                  std::uint64_t& high_water_bytes, JobSample& out) {
  auto mib = [](const std::optional<std::uint64_t>& bytes, std::optional<double>& into) {
    if (bytes) into = static_cast<double>(*bytes) / kMiB;
  };
  std::optional<std::uint64_t> rss = memory ? memory->rss_bytes : process_rss_bytes;
  if (rss) {
    out.rss_mib = static_cast<double>(*rss) / kMiB;
    high_water_bytes = std::max(high_water_bytes, *rss);
  }
  if (memory) {
    mib(memory->anon_bytes, out.anon_mib);
    mib(memory->shmem_bytes, out.shmem_mib);
    mib(memory->file_bytes, out.file_mib);
    mib(memory->kernel_bytes, out.kernel_mib);
    mib(memory->swap_bytes, out.swap_mib);
    mib(memory->usage_bytes, out.usage_mib);
    mib(memory->limit_bytes, out.memory_limit_mib);
  }
  if (memory && memory->peak_bytes)
    out.memory_peak_mib = static_cast<double>(*memory->peak_bytes) / kMiB;
  else if (high_water_bytes > 0)
    out.memory_peak_mib = static_cast<double>(high_water_bytes) / kMiB;
}

void CgroupMemoryCollector::collect_job(JobContext& job, CgroupMemoryState& state, JobSample& out) {
  apply_memory(cgroups_.memory(job.cgroups), job.processes->resident_bytes, state.high_water_bytes, out);
}

void CgroupMemoryCollector::refresh_job(JobContext& job, CgroupMemoryState& state, JobSample& latest) {
  if (auto memory = cgroups_.memory(job.cgroups)) apply_memory(memory, std::nullopt, state.high_water_bytes, latest);
}

}  // namespace petricore::collect
