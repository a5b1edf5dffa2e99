#include "collect/cgroup_reader.hpp"

#include "collect/error_counter.hpp"
#include "collect/file_reader.hpp"
#include "collect/kernel_formats.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>

namespace petricore::collect {
namespace {
// v1 reports "no limit" as PAGE_COUNTER_MAX pages (9223372036854771712 on x86_64).
constexpr std::uint64_t kUnlimited = std::uint64_t{1} << 62;
// job/step/task on v1; job/step/user/task on v2.
constexpr int kMaxProcessDepth = 5;
}  // namespace

CgroupReader::CgroupReader(UniqueFd root, ErrorCounter& errors)
    : root_(std::move(root)), errors_(errors), ticks_per_second_(static_cast<double>(::sysconf(_SC_CLK_TCK))) {}

bool CgroupReader::read(const std::string& dir, const char* file, Need need) {
  path_.assign(dir).append("/").append(file);
  ReadError error = read_file_at(root_.get(), path_.c_str(), buffer_);
  if (error.status == ReadStatus::Ok) return true;
  if (error.status == ReadStatus::Missing) {
    if (need == Need::Optional) return false;
    struct stat st;
    if (::fstatat(root_.get(), dir.c_str(), &st, 0) != 0) return false;  // the job just ended
    errors_.count(error_source::cgroup, std::string{"missing "} + file,
                  "cgroup file " + path_ + " is missing: controller not set up as expected");
    return false;
  }
  errors_.count(error_source::cgroup, std::string{"unreadable "} + file,
                "cannot read cgroup file " + path_ + ": " + describe(error));
  return false;
}

void CgroupReader::malformed(const std::string& dir, const char* file) {
  errors_.count(error_source::cgroup, std::string{"malformed "} + file, "cannot parse cgroup file " + dir + "/" + file);
}

CgroupCpu CgroupReader::cpu(const JobCgroups& job) {
  CgroupCpu cpu;
  if (job.cpu_dir.empty()) return cpu;
  if (job.version == CgroupVersion::V2) {
    if (!read(job.cpu_dir, "cpu.stat", Need::Required)) return cpu;
    if (auto stat = parse_cpu_stat(buffer_)) {
      cpu.total_seconds = static_cast<double>(stat->usage_usec) / 1e6;
      cpu.user_seconds = static_cast<double>(stat->user_usec) / 1e6;
      cpu.system_seconds = static_cast<double>(stat->system_usec) / 1e6;
    } else {
      malformed(job.cpu_dir, "cpu.stat");
    }
    return cpu;
  }
  if (read(job.cpu_dir, "cpuacct.usage", Need::Required)) {
    if (auto usage = parse_u64(buffer_))
      cpu.total_seconds = static_cast<double>(*usage) / 1e9;
    else
      malformed(job.cpu_dir, "cpuacct.usage");
  }
  if (read(job.cpu_dir, "cpuacct.stat", Need::Required)) {
    if (auto stat = parse_cpuacct_stat(buffer_)) {
      cpu.user_seconds = static_cast<double>(stat->user) / ticks_per_second_;
      cpu.system_seconds = static_cast<double>(stat->system) / ticks_per_second_;
    } else {
      malformed(job.cpu_dir, "cpuacct.stat");
    }
  }
  if (read(job.cpu_dir, "cpuacct.usage_percpu", Need::Required)) {
    if (auto per_cpu = parse_cpuacct_usage_percpu(buffer_)) {
      std::vector<double> seconds;
      seconds.reserve(per_cpu->size());
      for (auto ns : *per_cpu) seconds.push_back(static_cast<double>(ns) / 1e9);
      cpu.per_cpu_seconds = std::move(seconds);
    } else {
      malformed(job.cpu_dir, "cpuacct.usage_percpu");
    }
  }
  return cpu;
}

std::optional<CgroupMemory> CgroupReader::memory(const JobCgroups& job) {
  if (job.memory_dir.empty()) return std::nullopt;
  CgroupMemory memory;
  if (read(job.memory_dir, "memory.stat", Need::Required)) {
    if (auto stat = parse_memory_stat(buffer_))
      memory.rss_bytes = stat->anon + stat->shmem;
    else
      malformed(job.memory_dir, "memory.stat");
  }
  bool v2 = job.version == CgroupVersion::V2;
  if (v2) {
    if (read(job.memory_dir, "memory.max", Need::Optional)) {
      if (auto max = parse_memory_max(buffer_))
        memory.limit_bytes = max->bytes;
      else
        malformed(job.memory_dir, "memory.max");
    }
  } else if (read(job.memory_dir, "memory.limit_in_bytes", Need::Required)) {
    if (auto limit = parse_u64(buffer_)) {
      if (*limit < kUnlimited) memory.limit_bytes = *limit;
    } else {
      malformed(job.memory_dir, "memory.limit_in_bytes");
    }
  }
  const char* peak_file = v2 ? "memory.peak" : "memory.max_usage_in_bytes";
  if (read(job.memory_dir, peak_file, Need::Optional)) {
    if (auto peak = parse_u64(buffer_))
      memory.peak_bytes = *peak;
    else
      malformed(job.memory_dir, peak_file);
  }
  return memory;
}

std::optional<std::vector<int>> CgroupReader::cpuset(const JobCgroups& job) {
  if (job.cpuset_dir.empty()) return std::vector<int>{};
  const char* file = job.version == CgroupVersion::V2 ? "cpuset.cpus.effective" : "cpuset.cpus";
  if (!read(job.cpuset_dir, file, job.version == CgroupVersion::V2 ? Need::Optional : Need::Required)) {
    if (job.version == CgroupVersion::V2) return std::vector<int>{};  // cpuset controller not enabled
    return std::nullopt;
  }
  auto cpus = parse_cpu_list(buffer_);
  if (!cpus) {
    malformed(job.cpuset_dir, file);
    return std::nullopt;
  }
  return cpus;
}

bool CgroupReader::collect_processes(int dirfd, const std::string& path, bool in_extern, int depth,
                                     std::vector<ProcessRef>& out) {
  bool complete = true;
  ReadError error = read_file_at(dirfd, "cgroup.procs", buffer_);
  if (error.status == ReadStatus::Ok) {
    if (auto pids = parse_pid_list(buffer_)) {
      for (int pid : *pids) out.push_back({pid, in_extern});
    } else {
      malformed(path, "cgroup.procs");
      complete = false;
    }
  } else if (error.status != ReadStatus::Missing) {
    errors_.count(error_source::cgroup, "unreadable cgroup.procs",
                  "cannot read " + path + "/cgroup.procs: " + describe(error));
    complete = false;
  }
  if (depth >= kMaxProcessDepth) return complete;
  std::vector<std::string> children;
  list_directory(dirfd, [&](std::string_view name, bool is_directory) {
    if (is_directory) children.emplace_back(name);
  });
  for (const auto& child : children) {
    auto child_fd = open_directory_at(dirfd, child.c_str());
    if (!child_fd) continue;  // removed meanwhile
    complete =
        collect_processes(child_fd->get(), path + "/" + child, in_extern || child == "step_extern", depth + 1, out) &&
        complete;
  }
  return complete;
}

bool CgroupReader::processes(const JobCgroups& job, std::vector<ProcessRef>& result) {
  result.clear();
  if (job.process_dir.empty()) return true;
  auto job_fd = open_directory_at(root_.get(), job.process_dir.c_str());
  if (!job_fd) return true;  // the job ended
  bool complete = collect_processes(job_fd->get(), job.process_dir, false, 0, result);
  // One entry per pid, then batch and numbered steps before the extern step.
  std::sort(result.begin(), result.end(), [](const ProcessRef& a, const ProcessRef& b) { return a.pid < b.pid; });
  result.erase(std::unique(result.begin(), result.end(),
                           [](const ProcessRef& a, const ProcessRef& b) { return a.pid == b.pid; }),
               result.end());
  std::stable_partition(result.begin(), result.end(), [](const ProcessRef& p) { return !p.in_extern_step; });
  return complete;
}

}  // namespace petricore::collect
