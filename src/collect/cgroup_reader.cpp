#include "collect/cgroup_reader.hpp"

#include "collect/error_counter.hpp"
#include "collect/file_reader.hpp"
#include "collect/kernel_formats.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

namespace petricore::collect {
namespace {
// v1 reports "no limit" as PAGE_COUNTER_MAX pages (9223372036854771712 on x86_64).
constexpr std::uint64_t kUnlimited = std::uint64_t{1} << 62;
// job/step/task on v1; job/step/user/task on v2.
constexpr int kMaxProcessDepth = 5;
// Up to 8 counter files and, on v2, ~7 directories with their cgroup.procs
// per job: ~100 jobs' worth.
constexpr std::size_t kMaxHeldFiles = 2048;
ListOptions only_directories(ListOptions listing) {
  listing.directories_only = true;
  return listing;
}

// The child cgroups of `dir`, but v2's `slurm/` leaves when `skip_slurm_leaves`
// (they are listed when `keep_slurm_leaves`, for a tree's record).
std::vector<std::string> child_cgroups(const HeldFiles::CgroupDir& dir, bool skip_slurm_leaves, ListOptions listing,
                                       bool keep_slurm_leaves = false) {
  std::vector<std::string> children;
  list_directory(dir.fd,
                 [&](std::string_view child, bool) {
                   if (keep_slurm_leaves || !(skip_slurm_leaves && child == "slurm")) children.emplace_back(child);
                 },
                 {dir.held, listing.short_read_ends, true});
  return children;
}
}  // namespace

CgroupReader::CgroupReader(UniqueFd root, ErrorCounter& errors)
    : root_(std::move(root)),
      errors_(errors),
      held_(kMaxHeldFiles),
      ticks_per_second_(static_cast<double>(::sysconf(_SC_CLK_TCK))) {}

bool CgroupReader::read(const std::string& dir, const char* file, Need need, Hold hold) {
  path_.assign(dir).append("/").append(file);
  ReadError error = hold == Hold::Yes ? held_.read(root_.get(), path_, buffer_, Records::One)
                                      : read_file_at(root_.get(), path_.c_str(), buffer_, Records::One);
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
  if (job.cpu_dir.empty()) return {};
  return read_cpu(job.cpu_dir, job.version, Need::Required);
}

CgroupCpu CgroupReader::cpu_at(const std::string& dir, CgroupVersion version) {
  return read_cpu(dir, version, Need::Optional);
}

// A cgroup directory opened just now is listed its mount's way; each mount
// (v1 controller, v2 slice, a fixture's tree) is asked once.
ListOptions CgroupReader::listing_of(const std::string& path) {
  std::string mount = path.substr(0, path.find('/'));
  auto known = listing_by_mount_.find(mount);
  if (known != listing_by_mount_.end()) return known->second;
  auto fd = open_directory_at(root_.get(), mount.c_str());
  if (!fd) return fresh_listing(KernelFilesystem::None);  // asked again next time
  ListOptions listing = fresh_listing(kernel_filesystem(fd->get()));
  listing_by_mount_.emplace(std::move(mount), listing);
  return listing;
}

std::vector<std::string> CgroupReader::child_directories(const std::string& dir) {
  std::vector<std::string> names;
  auto fd = open_directory_at(root_.get(), dir.c_str());
  if (!fd) return names;
  list_directory(
      fd->get(), [&](std::string_view name, bool) { names.emplace_back(name); }, only_directories(listing_of(dir)));
  return names;
}

CgroupCpu CgroupReader::read_cpu(const std::string& dir, CgroupVersion version, Need need) {
  CgroupCpu cpu;
  if (version == CgroupVersion::V2) {
    if (!read(dir, "cpu.stat", need)) return cpu;
    if (auto stat = parse_cpu_stat(buffer_)) {
      cpu.total_seconds = static_cast<double>(stat->usage_usec) / 1e6;
      cpu.user_seconds = static_cast<double>(stat->user_usec) / 1e6;
      cpu.system_seconds = static_cast<double>(stat->system_usec) / 1e6;
    } else {
      malformed(dir, "cpu.stat");
    }
    return cpu;
  }
  if (read(dir, "cpuacct.usage", need)) {
    if (auto usage = parse_u64(buffer_))
      cpu.total_seconds = static_cast<double>(*usage) / 1e9;
    else
      malformed(dir, "cpuacct.usage");
  }
  if (read(dir, "cpuacct.stat", need)) {
    if (auto stat = parse_cpuacct_stat(buffer_)) {
      cpu.user_seconds = static_cast<double>(stat->user) / ticks_per_second_;
      cpu.system_seconds = static_cast<double>(stat->system) / ticks_per_second_;
    } else {
      malformed(dir, "cpuacct.stat");
    }
  }
  if (read(dir, "cpuacct.usage_percpu", need)) {
    if (auto per_cpu = parse_cpuacct_usage_percpu(buffer_)) {
      std::vector<double> seconds;
      seconds.reserve(per_cpu->size());
      for (auto ns : *per_cpu) seconds.push_back(static_cast<double>(ns) / 1e9);
      cpu.per_cpu_seconds = std::move(seconds);
    } else {
      malformed(dir, "cpuacct.usage_percpu");
    }
  }
  return cpu;
}

std::optional<CgroupMemory> CgroupReader::memory(const JobCgroups& job) {
  if (job.memory_dir.empty()) return std::nullopt;
  CgroupMemory memory;
  bool v2 = job.version == CgroupVersion::V2;
  std::optional<MemoryStat> stat;
  if (read(job.memory_dir, "memory.stat", Need::Required)) {
    stat = parse_memory_stat(buffer_);
    if (!stat) malformed(job.memory_dir, "memory.stat");
  }
  if (stat) {
    memory.rss_bytes = stat->anon + stat->shmem;
    memory.anon_bytes = stat->anon;
    memory.shmem_bytes = stat->shmem;
    // The page cache counts shmem (tmpfs, shared memory), which is resident
    // and reported on its own.
    if (stat->cache) memory.file_bytes = *stat->cache > stat->shmem ? *stat->cache - stat->shmem : 0;
    memory.kernel_bytes = stat->kernel;
    memory.swap_bytes = stat->swap;
  }
  auto read_u64_file = [&](const char* file, Need need, std::optional<std::uint64_t>& into) {
    if (!read(job.memory_dir, file, need)) return;
    if (auto value = parse_u64(buffer_))
      into = *value;
    else
      malformed(job.memory_dir, file);
  };
  if (v2) {
    if (read(job.memory_dir, "memory.max", Need::Optional)) {
      if (auto max = parse_memory_max(buffer_))
        memory.limit_bytes = max->bytes;
      else
        malformed(job.memory_dir, "memory.max");
    }
    read_u64_file("memory.current", Need::Required, memory.usage_bytes);
    read_u64_file("memory.swap.current", Need::Optional, memory.swap_bytes);  // no swap controller: absent
  } else {
    std::optional<std::uint64_t> limit;
    read_u64_file("memory.limit_in_bytes", Need::Required, limit);
    if (limit && *limit < kUnlimited) memory.limit_bytes = limit;
    read_u64_file("memory.usage_in_bytes", Need::Required, memory.usage_bytes);
    // The v1 usage is approximate (per-CPU charge batches), so this is an
    // estimate; a usage below cache + rss means "none seen".
    if (stat && stat->cache && memory.usage_bytes) {
      std::uint64_t counted = *stat->cache + stat->anon;
      memory.kernel_bytes = *memory.usage_bytes > counted ? *memory.usage_bytes - counted : 0;
    }
  }
  read_u64_file(v2 ? "memory.peak" : "memory.max_usage_in_bytes", Need::Optional, memory.peak_bytes);
  return memory;
}

std::optional<std::vector<int>> CgroupReader::cpuset(const JobCgroups& job) {
  if (job.cpuset_dir.empty()) return std::vector<int>{};
  const char* file = job.version == CgroupVersion::V2 ? "cpuset.cpus.effective" : "cpuset.cpus";
  if (!read(job.cpuset_dir, file, job.version == CgroupVersion::V2 ? Need::Optional : Need::Required, Hold::No)) {
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

void CgroupReader::end_pass() {
  for (auto it = trees_.begin(); it != trees_.end();)
    it = it->second.used_in == pass_ ? std::next(it) : trees_.erase(it);
  ++pass_;
  held_.sweep();
}

bool CgroupReader::collect_processes(int parent_fd, const char* name, const std::string& path, bool in_extern,
                                     bool skip_slurm_leaves, int depth, ListOptions listing,
                                     std::vector<ProcessRef>& out, Record& record) {
  HeldFiles::CgroupDir dir = held_.read_cgroup(parent_fd, name, path, buffer_);
  if (dir.fd < 0) {
    record.all_held = false;
    return true;  // removed meanwhile (the job ended)
  }
  if (record.known) {
    record.known->push_back({path, in_extern, true});
    record.all_held = record.all_held && dir.holding;
  }
  bool complete = true;
  if (dir.procs.status == ReadStatus::Ok) {
    if (auto pids = parse_pid_list(buffer_)) {
      for (int pid : *pids) out.push_back({pid, in_extern});
    } else {
      malformed(path, "cgroup.procs");
      complete = false;
    }
  } else if (dir.procs.status != ReadStatus::Missing) {
    errors_.count(error_source::cgroup, "unreadable cgroup.procs",
                  "cannot read " + path + "/cgroup.procs: " + describe(dir.procs));
    complete = false;
  }
  if (depth >= kMaxProcessDepth) {
    record.all_held = false;  // what is below is not known: the tree is walked each pass
    return complete;
  }
  for (const auto& child : child_cgroups(dir, skip_slurm_leaves, listing, record.known != nullptr)) {
    std::string child_path = path + "/" + child;
    if (record.known && skip_slurm_leaves && child == "slurm") {
      // Slurm's own slurmstepd: held only to be seen alive in the next passes.
      HeldFiles::CgroupDir leaf = held_.read_cgroup(dir.fd, child.c_str(), child_path, buffer_);
      record.known->push_back({std::move(child_path), in_extern, false});
      record.all_held = record.all_held && leaf.holding;
      continue;
    }
    complete = collect_processes(dir.fd, child.c_str(), child_path, in_extern || child == "step_extern",
                                 skip_slurm_leaves, depth + 1, listing, out, record) &&
               complete;
  }
  return complete;
}

bool CgroupReader::reread_tree(const std::string& dir, const KnownTree& tree, std::vector<ProcessRef>& out) {
  path_.assign(dir).append("/cgroup.stat");
  if (held_.read(root_.get(), path_, buffer_, Records::One).status != ReadStatus::Ok) return false;
  std::optional<std::uint64_t> descendants = parse_cgroup_descendants(buffer_);
  if (!descendants || *descendants + 1 != tree.cgroups.size()) return false;
  for (const KnownCgroup& cgroup : tree.cgroups) {
    if (held_.reread_cgroup(cgroup.path, buffer_).status != ReadStatus::Ok) return false;
    if (!cgroup.counted) continue;
    std::optional<std::vector<int>> pids = parse_pid_list(buffer_);
    if (!pids) return false;  // the walk counts it
    for (int pid : *pids) out.push_back({pid, cgroup.in_extern});
  }
  return true;
}

bool CgroupReader::processes(const JobCgroups& job, std::vector<ProcessRef>& result) {
  result.clear();
  if (job.process_dir.empty()) return true;
  // v2: a step's `slurm/` leaf holds only its slurmstepd, never one of the
  // job's processes, so its pids are not taken (it is held only to see it
  // alive; v1 has no such leaf: its slurmstepds, wherever they sit, are
  // left out by name).
  const bool v2 = job.version == CgroupVersion::V2;
  bool complete = true;
  auto tree = v2 ? trees_.find(job.process_dir) : trees_.end();
  bool stands = false;
  if (tree != trees_.end()) {
    tree->second.used_in = pass_;
    stands = reread_tree(job.process_dir, tree->second, result);
  }
  if (!stands) {
    result.clear();
    ++walks_;
    KnownTree walked;
    Record record;
    if (v2) record.known = &walked.cgroups;
    complete = collect_processes(root_.get(), job.process_dir.c_str(), job.process_dir, false, v2, 0,
                                 listing_of(job.process_dir), result, record);
    if (v2 && complete && record.all_held) {
      walked.used_in = pass_;
      trees_.insert_or_assign(job.process_dir, std::move(walked));
    } else if (tree != trees_.end()) {
      trees_.erase(tree);
    }
  }
  // One entry per pid, then batch and numbered steps before the extern step.
  std::sort(result.begin(), result.end(), [](const ProcessRef& a, const ProcessRef& b) { return a.pid < b.pid; });
  result.erase(std::unique(result.begin(), result.end(),
                           [](const ProcessRef& a, const ProcessRef& b) { return a.pid == b.pid; }),
               result.end());
  std::stable_partition(result.begin(), result.end(), [](const ProcessRef& p) { return !p.in_extern_step; });
  return complete;
}

// Whether the cgroup or one below it holds a process; one that is gone holds
// none, one that cannot be read may.
bool CgroupReader::any_process(int parent_fd, const char* name, const std::string& path, bool skip_slurm_leaves,
                               int depth, ListOptions listing) {
  HeldFiles::CgroupDir dir = held_.read_cgroup(parent_fd, name, path, buffer_);
  if (dir.fd < 0) return classify_errno(dir.procs.errno_value) != ReadStatus::Missing;
  if (dir.procs.status == ReadStatus::Ok) {
    auto pids = parse_pid_list(buffer_);
    if (!pids || !pids->empty()) return true;  // a malformed list is not an empty one
  } else if (dir.procs.status != ReadStatus::Missing) {
    return true;
  }
  if (depth >= kMaxProcessDepth) return false;
  for (const auto& child : child_cgroups(dir, skip_slurm_leaves, listing))
    if (any_process(dir.fd, child.c_str(), path + "/" + child, skip_slurm_leaves, depth + 1, listing)) return true;
  return false;
}

bool CgroupReader::has_processes(const JobCgroups& job) {
  bool v2 = job.version == CgroupVersion::V2;
  const std::string& dir = !v2 && !job.cpu_dir.empty() ? job.cpu_dir : job.process_dir;
  if (dir.empty()) return true;
  return any_process(root_.get(), dir.c_str(), dir, v2, 0, listing_of(dir));
}

}  // namespace petricore::collect
