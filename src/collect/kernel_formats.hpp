// Kernel file formats the collector reads, each as a typed value with a pure
// parse function from the file's text. No I/O here: the reader (procfs_reader,
// cgroup_reader) fetches the bytes, these functions only interpret them.
//
// Every parser returns std::nullopt when the text is malformed (missing field,
// not a number, overflow); callers count that as a "malformed" error and move on.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace petricore::collect {

// A CPU list such as "0-3,8,10-11" (cpuset.cpus, cpuset.cpus.effective).
// Ascending, without duplicates. An empty or whitespace-only text is an empty
// list (a cpuset that has not been set up yet), not an error.
std::optional<std::vector<int>> parse_cpu_list(std::string_view text);

// Formats a CPU list back into the kernel's compact form ("0-3,8").
std::string format_cpu_list(const std::vector<int>& cpus);

// A single unsigned integer followed by optional whitespace (cpuacct.usage,
// memory.max_usage_in_bytes, memory.peak, memory.limit_in_bytes, memory.current).
std::optional<std::uint64_t> parse_u64(std::string_view text);

// cgroup v2 memory.max: "max" means no limit (returned as std::nullopt inside
// the outer optional); otherwise bytes.
struct MemoryMax {
  std::optional<std::uint64_t> bytes;  // bytes; empty = unlimited
};
std::optional<MemoryMax> parse_memory_max(std::string_view text);

// cpuacct.usage_percpu (v1): space separated nanoseconds, index = CPU id.
std::optional<std::vector<std::uint64_t>> parse_cpuacct_usage_percpu(std::string_view text);

// cpuacct.stat (v1): "user N\nsystem N\n".
struct CpuacctStat {
  std::uint64_t user = 0;    // USER_HZ ticks
  std::uint64_t system = 0;  // USER_HZ ticks
};
std::optional<CpuacctStat> parse_cpuacct_stat(std::string_view text);

// cpu.stat (v2): "usage_usec N\nuser_usec N\nsystem_usec N\n..." — the three
// keys are required, others ignored.
struct CpuStat {
  std::uint64_t usage_usec = 0;   // microseconds
  std::uint64_t user_usec = 0;    // microseconds
  std::uint64_t system_usec = 0;  // microseconds
};
std::optional<CpuStat> parse_cpu_stat(std::string_view text);

// cgroup.stat (v2): the number of live cgroups below this one
// ("nr_descendants N"; other keys ignored).
std::optional<std::uint64_t> parse_cgroup_descendants(std::string_view text);

// memory.stat, v1 or v2. v1 hierarchical totals (total_rss, total_shmem, ...)
// are preferred over the local ones (rss, shmem, ...); v2 has anon, shmem,
// file and kernel. Returns nullopt when no rss/total_rss/anon key is present;
// a missing shmem key (older v1 kernels) leaves shmem at 0.
struct MemoryStat {
  std::uint64_t anon = 0;   // bytes (v1 total_rss, v2 anon)
  std::uint64_t shmem = 0;  // bytes (v1 total_shmem, v2 shmem)
  // Page cache, tmpfs and shared memory included (v1 total_cache, v2 file).
  std::optional<std::uint64_t> cache;  // bytes
  // Kernel memory charged to the cgroup (v2 kernel; on kernels without that
  // key, the sum of kernel_stack, pagetables, percpu, sock and slab). v1's
  // memory.stat has no such key: absent.
  std::optional<std::uint64_t> kernel;  // bytes
  // Swapped out (v1 total_swap, present with swap accounting). v2 keeps it
  // in memory.swap.current instead: absent.
  std::optional<std::uint64_t> swap;  // bytes
};
std::optional<MemoryStat> parse_memory_stat(std::string_view text);

// cgroup.procs / tasks: one id per line. Blank lines are skipped.
std::optional<std::vector<int>> parse_pid_list(std::string_view text);

// /proc/<pid>/stat. comm is between the first '(' and the LAST ')', since a
// command name may itself contain spaces and parentheses.
struct ProcStat {
  int pid = 0;
  std::string comm;  // usually at most 15 bytes (TASK_COMM_LEN); workqueue
                     // kthreads show longer names ("kworker/u8:0-events_unbound")
  char state = '?';
  int ppid = 0;             // parent pid (0 for the kernel's own)
  std::uint64_t utime = 0;  // USER_HZ ticks
  std::uint64_t stime = 0;  // USER_HZ ticks
  std::int64_t num_threads = 0;
  std::uint64_t starttime = 0;  // USER_HZ ticks after boot
  std::int64_t rss_pages = 0;   // pages
  int processor = -1;           // CPU last run on (-1 if the field is absent)
};
std::optional<ProcStat> parse_proc_stat(std::string_view text);

// /proc/<pid>/status: only the fields the collector uses.
struct ProcStatus {
  int tgid = 0;
  std::int64_t uid = -1;            // real uid (uid_t values reach 4294967294)
  std::uint64_t rss_anon_kib = 0;   // KiB
  std::uint64_t rss_shmem_kib = 0;  // KiB
  std::int64_t threads = 0;
};
std::optional<ProcStatus> parse_proc_status(std::string_view text);

// /proc/<pid>/io.
struct ProcIo {
  std::uint64_t syscr = 0;        // read syscalls
  std::uint64_t syscw = 0;        // write syscalls
  std::uint64_t read_bytes = 0;   // bytes that reached the storage layer
  std::uint64_t write_bytes = 0;  // bytes sent to the storage layer
};
std::optional<ProcIo> parse_proc_io(std::string_view text);

// Looks up one variable in /proc/<pid>/environ (NUL separated KEY=VALUE).
// Returns nullopt when absent. Never fails otherwise.
std::optional<std::string> environ_value(std::string_view environ, std::string_view key);

// Splits a Slurm GPU list ("0,1,10") into ids; empty items are dropped.
std::vector<std::string> split_gpu_list(std::string_view text);

// What a /proc/<pid>/fd link target is. Only RegularFile counts as an open file.
enum class FdTarget {
  RegularFile,  // an absolute path outside /dev (files in /dev/shm do count), /proc, /sys and /memfd:; a file that was
                // unlinked while open (" (deleted)" suffix) still counts
  Other,        // socket:[..], pipe:[..], anon_inode:.., /memfd:.., /dev/..., /proc/..., /sys/...
};
FdTarget classify_fd_target(std::string_view target);

// The path of a RegularFile target without the kernel's " (deleted)" suffix.
std::string_view fd_target_path(std::string_view target);

// True when path equals prefix or lies below it ("/scratch" matches
// "/scratch/a" but not "/scratchy").
bool path_is_under(std::string_view path, std::string_view prefix);

}  // namespace petricore::collect
