// Reads one job's cgroup files (v1 or v2) relative to the held cgroup root and
// turns them into the values the sampler needs, in seconds and bytes. A file
// that vanished with its job is skipped silently; a file that is missing from a
// live cgroup, unreadable or malformed is counted as a "cgroup" error. The
// files read on every pass (the counters, cgroup.procs, and on v2 the
// directories walked for processes) stay open between passes
// (held_files.hpp) until end_pass() finds them unused.
#pragma once

#include "collect/file_reader.hpp"
#include "collect/held_files.hpp"
#include "collect/layout.hpp"
#include "core/unique_fd.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace petricore::collect {

class ErrorCounter;

// Each value is absent when its file was missing, unreadable or malformed.
struct CgroupCpu {
  std::optional<double> total_seconds;   // v1 cpuacct.usage, v2 cpu.stat usage_usec
  std::optional<double> user_seconds;    // v1 cpuacct.stat user, v2 user_usec
  std::optional<double> system_seconds;  // v1 cpuacct.stat system, v2 system_usec
  // v1 cpuacct.usage_percpu, indexed by CPU id; v2 has no such file.
  std::optional<std::vector<double>> per_cpu_seconds;
};

struct CgroupMemory {
  std::optional<std::uint64_t> rss_bytes;    // anon + shmem from memory.stat
  std::optional<std::uint64_t> anon_bytes;   // memory.stat anon (v1 total_rss)
  std::optional<std::uint64_t> shmem_bytes;  // memory.stat shmem
  std::optional<std::uint64_t> file_bytes;   // page cache without shmem: memory.stat cache/file - shmem
  // v2 memory.stat kernel; v1: what memory.usage_in_bytes holds beyond
  // cache + rss (kernel memory, since the v1 usage counts it too).
  std::optional<std::uint64_t> kernel_bytes;
  std::optional<std::uint64_t> swap_bytes;   // v1 memory.stat total_swap, v2 memory.swap.current
  std::optional<std::uint64_t> usage_bytes;  // what the limit counts: v1 memory.usage_in_bytes, v2 memory.current
  std::optional<std::uint64_t> limit_bytes;  // absent when unlimited
  std::optional<std::uint64_t> peak_bytes;   // v1 max_usage_in_bytes, v2 memory.peak (kernel >= 5.19)
};

// A process of the job and whether it sits in Slurm's extern step, whose
// processes (adopted ssh sessions, the step's sleep) carry no job environment.
struct ProcessRef {
  int pid = 0;
  bool in_extern_step = false;
};

class CgroupReader {
 public:
  CgroupReader(UniqueFd root, ErrorCounter& errors);

  int root_fd() const { return root_.get(); }

  CgroupCpu cpu(const JobCgroups& job);
  // The same counters of any cgroup directory (a job's parent, a sibling):
  // files that are missing give empty values and count no error.
  CgroupCpu cpu_at(const std::string& dir, CgroupVersion version);
  // The names of the directories below `dir`; empty when it is gone.
  std::vector<std::string> child_directories(const std::string& dir);
  std::optional<CgroupMemory> memory(const JobCgroups& job);
  // The job's CPUs: nullopt when they could not be read (try again later),
  // empty when the job has no cpuset.
  std::optional<std::vector<int>> cpuset(const JobCgroups& job);
  // Every process in the job's cgroup subtree, once each, batch and numbered
  // steps before the extern step; on v2 the steps' `slurm/` leaves (Slurm's
  // own slurmstepd) are not looked into. Returns false when some cgroup.procs could
  // not be read, so the list may miss live processes.
  // On v2 a job's subtree, once walked with every cgroup in it held, is not
  // listed again while it stands: a pass reads the job's cgroup.stat and the
  // held cgroup.procs of the cgroups found, and walks again when a read fails
  // (a cgroup removed) or the count of live descendants is not the number
  // found (one made). Every cgroup found is alive and they are as many as the
  // kernel counts, so they are all there are.
  bool processes(const JobCgroups& job, std::vector<ProcessRef>& out);
  // Whether any of the job's cgroups still lists a process, Slurm's own
  // slurmstepd left out where the layout lets it be (v1: the cpuacct
  // hierarchy, which holds only the job's processes; v2: the steps' `slurm/`
  // leaves are skipped). Stops at the first process found, so a running job
  // costs a few reads. True when a cgroup.procs could not be read: an
  // unreadable job is not taken for an ended one.
  bool has_processes(const JobCgroups& job);
  // Closes the held files no job of this pass used.
  void end_pass();
  std::size_t held_files() const { return held_.held(); }
  // Walks of a job's cgroup subtree for its processes so far (a v2 job whose
  // subtree stands is not walked; see processes()).
  std::size_t subtree_walks() const { return walks_; }

 private:
  enum class Need { Required, Optional };
  CgroupCpu read_cpu(const std::string& dir, CgroupVersion version, Need need);
  // Reads <dir>/<file> into buffer_. False when absent or broken.
  enum class Hold { Yes, No };  // No: read once per job (the cpuset)
  bool read(const std::string& dir, const char* file, Need need, Hold hold = Hold::Yes);
  void malformed(const std::string& dir, const char* file);
  // Returns false when a cgroup.procs was unreadable or malformed.
  // The processes of the cgroup `name` below `parent_fd` (named `path`) and
  // of those below it.
  // A cgroup of a job's v2 subtree as the last walk found it; `counted`:
  // false for the steps' `slurm/` leaves (held, read only to see them alive).
  struct KnownCgroup {
    std::string path;
    bool in_extern = false;
    bool counted = true;
  };
  struct KnownTree {
    std::vector<KnownCgroup> cgroups;  // the job's cgroup first
    std::uint64_t used_in = 0;         // the pass it was last used in
  };
  // The walk of `dir`'s subtree records its cgroups in `known` (nullptr: v1,
  // no record); `all_held` turns false when one of them is not held.
  struct Record {
    std::vector<KnownCgroup>* known = nullptr;
    bool all_held = true;
  };
  bool collect_processes(int parent_fd, const char* name, const std::string& path, bool in_extern,
                         bool skip_slurm_leaves, int depth, ListOptions listing, std::vector<ProcessRef>& out,
                         Record& record);
  // The processes of a known tree if it still stands (see processes()).
  bool reread_tree(const std::string& dir, const KnownTree& tree, std::vector<ProcessRef>& out);
  bool any_process(int parent_fd, const char* name, const std::string& path, bool skip_slurm_leaves, int depth,
                   ListOptions listing);
  // How a directory below `path`'s mount (its first component: v1's
  // controller, a v2 slice) is listed once opened.
  ListOptions listing_of(const std::string& path);

  UniqueFd root_;
  ErrorCounter& errors_;
  std::string path_;
  HeldFiles held_;
  std::unordered_map<std::string, ListOptions> listing_by_mount_;
  std::unordered_map<std::string, KnownTree> trees_;  // by the job's process_dir
  std::uint64_t pass_ = 0;
  std::size_t walks_ = 0;
  ReadBuffer buffer_;
  double ticks_per_second_;
};

}  // namespace petricore::collect
