#include "collect/process_collector.hpp"

#include "collect/kernel_formats.hpp"

namespace petricore::collect {

namespace {

constexpr double kMiB = 1024.0 * 1024.0;

}  // namespace

ProcessCollector::ProcessCollector(CgroupReader& cgroups, SlowReads& slow, std::vector<std::string> scratch_prefixes,
                                   std::size_t max_proc_names)
    : cgroups_(cgroups), slow_(slow), scratch_prefixes_(std::move(scratch_prefixes)), max_proc_names_(max_proc_names) {}

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
  requests_.clear();
  for (const ProcessRef& ref : process_list_) {
    if (!slow_.may_read(ref.pid)) {
      // Left alone while a read of it is stuck: there, but unknown.
      ++out.processes;
      state.tracker.still_listed(ref.pid);
      continue;
    }
    SlowReadRequest request;
    request.pid = ref.pid;
    request.status = need_status;
    request.files = true;
    request.cwd = !state.uses_scratch;
    requests_.push_back(request);
  }
  for (const ProcessReading& reading : slow_.read(requests_)) {
    if (!reading.read || !reading.stat) {
      // Skipped (counted), vanished, or unreadable this once (counted by
      // SlowReads): keep what we knew of it until the cgroup no longer lists it.
      if (!reading.read) ++out.processes;
      state.tracker.still_listed(reading.pid);
      continue;
    }
    const ProcStat& stat = *reading.stat;
    if (stat.comm == "slurmstepd") continue;
    ++out.processes;
    threads_[stat.comm] += stat.num_threads;
    found.pids.push_back(reading.pid);

    std::uint64_t used =
        state.tracker.seen(reading.pid, stat.starttime, stat.ppid, stat.utime + stat.stime, reading.io);
    if (v2 && used > 0) found.ticks_by_cpu[stat.processor] += static_cast<double>(used);

    for (std::size_t i = 0; i < reading.file_count; ++i) {
      const std::string& path = reading.files[i];
      if (!state.uses_scratch && under_scratch(path)) state.uses_scratch = true;
      open_paths_.emplace(path);
    }
    if (!state.uses_scratch && reading.cwd && under_scratch(*reading.cwd)) state.uses_scratch = true;
    if (reading.status) resident_bytes += (reading.status->rss_anon_kib + reading.status->rss_shmem_kib) * 1024;
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
