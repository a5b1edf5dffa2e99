#include "collect/process_collector.hpp"

#include "collect/kernel_formats.hpp"

namespace petricore::collect {

namespace {

constexpr double kMiB = 1024.0 * 1024.0;

}  // namespace

ProcessCollector::ProcessCollector(CgroupReader& cgroups, ProcfsReader& procfs,
                                   std::vector<std::string> scratch_prefixes, std::size_t max_proc_names)
    : cgroups_(cgroups),
      procfs_(procfs),
      scratch_prefixes_(std::move(scratch_prefixes)),
      max_proc_names_(max_proc_names) {}

bool ProcessCollector::under_scratch(std::string_view path) const {
  for (const auto& prefix : scratch_prefixes_)
    if (path_is_under(path, prefix)) return true;
  return false;
}

void ProcessCollector::collect_job(JobContext& job, ProcessState& state, JobSample& out) {
  bool listing_complete = cgroups_.processes(job.cgroups, process_list_);
  ProcessFindings& found = *job.processes;
  open_paths_.clear();
  threads_.clear();
  state.tracker.begin_pass();
  bool v2 = job.cgroups.version == CgroupVersion::V2;
  bool need_status = job.cgroups.memory_dir.empty();
  std::uint64_t resident_bytes = 0;
  for (const ProcessRef& ref : process_list_) {
    auto stat = procfs_.stat(ref.pid);
    if (!stat) {
      // Vanished, or unreadable this once (counted by the reader): keep what
      // we knew of it until the cgroup no longer lists it.
      state.tracker.still_listed(ref.pid);
      continue;
    }
    if (stat->comm == "slurmstepd") continue;
    ++out.processes;
    threads_[stat->comm] += stat->num_threads;
    found.pids.push_back(ref.pid);

    std::uint64_t used =
        state.tracker.seen(ref.pid, stat->starttime, stat->ppid, stat->utime + stat->stime, procfs_.io(ref.pid));
    if (v2 && used > 0) found.ticks_by_cpu[stat->processor] += static_cast<double>(used);

    procfs_.open_files(ref.pid, [&](std::string_view path) {
      if (!state.uses_scratch && under_scratch(path)) state.uses_scratch = true;
      open_paths_.emplace(path);
    });
    if (!state.uses_scratch) {
      if (auto cwd = procfs_.cwd(ref.pid); cwd && under_scratch(*cwd)) state.uses_scratch = true;
    }
    if (need_status) {
      if (auto status = procfs_.status(ref.pid))
        resident_bytes += (status->rss_anon_kib + status->rss_shmem_kib) * 1024;
    }
  }
  if (need_status) found.resident_bytes = resident_bytes;

  ProcIo io = state.tracker.end_pass(listing_complete);
  out.read_mib = static_cast<double>(io.read_bytes) / kMiB;
  out.write_mib = static_cast<double>(io.write_bytes) / kMiB;
  out.read_count = io.syscr;
  out.write_count = io.syscw;
  out.opened_files = static_cast<std::int64_t>(open_paths_.size());
  out.uses_scratch = state.uses_scratch;
  out.threads_by_name = top_thread_names(threads_, max_proc_names_);
}

}  // namespace petricore::collect
