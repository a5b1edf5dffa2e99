#include "collect/sampler.hpp"

#include "collect/cgroup_reader.hpp"
#include "collect/cpu_after_end.hpp"
#include "collect/error_counter.hpp"
#include "collect/file_reader.hpp"
#include "collect/kernel_formats.hpp"
#include "collect/procfs_reader.hpp"
#include "core/log.hpp"

#include <pwd.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <map>
#include <stdexcept>
#include <unordered_map>
#include <unordered_set>

namespace petricore::collect {

double monotonic_seconds() {
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
}

namespace {

constexpr double kMiB = 1024.0 * 1024.0;
// Looking for a job's environment: at most this many processes per pass, and
// this many in the job's life (other schedulers, or jobs whose processes all
// came through pam_slurm_adopt, have no Slurm environment at all).
constexpr int kEnvironReadsPerPass = 3;
constexpr int kMaxEnvironReads = 24;

std::string user_name(unsigned uid) {
  struct passwd pw;
  struct passwd* found = nullptr;
  char buffer[1024];
  if (::getpwuid_r(uid, &pw, buffer, sizeof buffer, &found) == 0 && found != nullptr) return found->pw_name;
  return std::to_string(uid);
}

std::optional<unsigned> parse_uid(std::string_view text) {
  unsigned value = 0;
  auto r = std::from_chars(text.data(), text.data() + text.size(), value);
  if (r.ec != std::errc{} || r.ptr != text.data() + text.size()) return std::nullopt;
  return value;
}

// A process we have seen, identified by pid and start time so a reused pid is
// not mistaken for the same process.
struct TrackedProcess {
  std::uint64_t starttime = 0;
  ProcIo io;                    // last values read
  std::uint64_t cpu_ticks = 0;  // utime + stime
  int ppid = 0;
  bool listed = false;  // in the job's cgroup.procs this pass
};

struct JobState {
  // Static facts, each read until known, then cached for the job's life.
  std::optional<unsigned> uid;
  std::string user;
  std::optional<std::vector<int>> cpus;
  bool environ_found = false;
  int environ_reads = 0;
  std::unordered_set<int> environ_tried;  // pids whose environment had no job variables
  std::string account;
  std::vector<std::string> gpus;

  // Between passes.
  std::optional<double> last_cpu_seconds;
  double last_time = 0;
  std::unordered_map<int, TrackedProcess> processes;
  ProcIo exited_io;    // sums of processes that exited with their I/O
  ProcIo reported_io;  // the totals last exported, which never go down
  bool uses_scratch = false;
  std::uint64_t memory_high_water = 0;  // bytes

  // cgroup v2 per-core accumulation.
  std::vector<double> core_seconds;  // aligned with *cpus
  std::optional<double> last_v2_usage_seconds;

  // The job's CPU cgroup (for its parent's counters at its end).
  std::string cpu_dir;
  CgroupVersion version = CgroupVersion::V1;
  // The job's latest full sample, its counters refreshed by every watch
  // read: what is published when the job ends.
  std::optional<JobSample> latest;
  double latest_read_time = 0;  // when latest's counters were read
};

// Below this, the CPU time since the last full pass is too short a stretch
// to give the final sample a rate of its own.
constexpr double kMinFinalRateSeconds = 0.2;
// Counters that go back by more than this are another job's (nanosecond
// cgroup counters never go back; rounding to microseconds might, a little).
constexpr double kBackwardsSeconds = 1e-3;

void add(ProcIo& total, const ProcIo& io) {
  total.syscr += io.syscr;
  total.syscw += io.syscw;
  total.read_bytes += io.read_bytes;
  total.write_bytes += io.write_bytes;
}

void raise_to(ProcIo& high, const ProcIo& io) {
  high.syscr = std::max(high.syscr, io.syscr);
  high.syscw = std::max(high.syscw, io.syscw);
  high.read_bytes = std::max(high.read_bytes, io.read_bytes);
  high.write_bytes = std::max(high.write_bytes, io.write_bytes);
}

// When a parent reaps a child, the kernel adds the child's I/O to the
// parent's /proc/<pid>/io. A process that ended under a parent still in the
// job is therefore counted again by that parent; only one whose parent is
// outside the job (slurmstepd, init, a subreaper) or gone as well took its
// I/O away with it, and must be kept in the job's total.
bool reaped_inside_job(const TrackedProcess& gone, const std::unordered_map<int, TrackedProcess>& processes) {
  auto parent = processes.find(gone.ppid);
  return parent != processes.end() && parent->second.listed;
}

std::unordered_set<std::string> job_ids(const std::vector<JobCgroups>& found) {
  std::unordered_set<std::string> ids;
  for (const JobCgroups& cg : found) ids.insert(cg.job_id);
  return ids;
}

}  // namespace

struct Sampler::Impl {
  CgroupReader cgroups;
  ProcfsReader procfs;
  std::unique_ptr<Layout> layout;
  SamplerOptions options;
  ErrorCounter& errors;
  std::map<std::string, JobState> jobs;
  // /proc/stat per-CPU busy ticks of the previous pass (cgroup v2 only).
  std::vector<std::uint64_t> last_cpu_busy;
  // Reused between jobs and passes.
  std::vector<ProcessRef> process_list;
  std::unordered_set<std::string> open_paths;
  std::map<std::string, std::int64_t> threads;
  std::unordered_map<int, double> ticks_by_cpu;

  Impl(UniqueFd cgroup_root, UniqueFd proc_root, std::unique_ptr<Layout> l, SamplerOptions o, ErrorCounter& e)
      : cgroups(std::move(cgroup_root), e),
        procfs(std::move(proc_root), e),
        layout(std::move(l)),
        options(std::move(o)),
        errors(e) {}

  // Jobs that ended, not yet handed out by take_ended().
  std::vector<JobSample> ended;
  // Job cgroups without a process (left behind by Slurm, or a job that just
  // ended): the watch skips them; full passes look again.
  std::unordered_set<std::string> leftovers;
  // Once the watch runs, it alone ends jobs whose cgroups are gone, with its
  // readings of their parents (cpu_after_end.hpp) from one watch to the next.
  bool watching = false;
  std::map<std::string, CpuReadings> last_readings;  // by parent directory

  std::vector<JobSample> sample(double now);
  std::vector<JobSample> watch(double now);
  void prepare(const JobCgroups& cg, JobState& state);
  void end_gone_jobs(const std::vector<JobCgroups>& found, const std::map<std::string, CpuReadings>* readings,
                     double now);
  std::map<std::string, CpuReadings> read_cpu_by_parent(const std::vector<JobCgroups>& found);
  void add_time_after_last_reading(JobState& state, const std::map<std::string, CpuReadings>& readings,
                                   const std::map<std::string, std::vector<int>>& cpus_by_dir, double now);
  bool went_backwards(const std::string& job_id, const JobState& state, const std::optional<double>& cpu_seconds);
  void refresh(const JobCgroups& cg, const CgroupCpu& cpu, JobState& state, double now);
  static void apply_cpu_reading(const CgroupCpu& cpu, JobSample& latest);
  JobSample final_sample(const JobState& state) const;
  bool excluded(const JobState& state) const { return state.uid && options.excluded_uids.count(*state.uid) != 0; }
  std::optional<JobSample> sample_job(const JobCgroups& cg, JobState& state, double now, bool exclusive_cpuset,
                                      const std::vector<std::uint64_t>* cpu_busy_delta);
  void read_environ(int pid, JobState& state);
  bool under_scratch(std::string_view path) const;
  void sample_cpu(const JobCgroups& cg, JobState& state, JobSample& out, double now,
                  const std::vector<std::uint64_t>* cpu_busy_delta, bool exclusive_cpuset);
  void apply_memory(const std::optional<CgroupMemory>& memory, JobState& state, JobSample& out,
                    std::optional<std::uint64_t> process_rss);
};

Sampler::Sampler(const std::string& cgroup_root, const std::string& proc_root, std::unique_ptr<Layout> layout,
                 SamplerOptions options, ErrorCounter& errors) {
  auto cgroup_fd = open_directory(cgroup_root);
  if (!cgroup_fd) throw std::runtime_error("cannot open cgroup root " + cgroup_root);
  auto proc_fd = open_directory(proc_root);
  if (!proc_fd) throw std::runtime_error("cannot open proc root " + proc_root);
  impl_ =
      std::make_unique<Impl>(std::move(*cgroup_fd), std::move(*proc_fd), std::move(layout), std::move(options), errors);
}

Sampler::~Sampler() = default;

std::vector<JobSample> Sampler::sample(double now) {
  return impl_->sample(now);
}

std::vector<JobSample> Sampler::watch(double now) {
  return impl_->watch(now);
}

std::vector<JobSample> Sampler::take_ended() {
  std::vector<JobSample> out;
  out.swap(impl_->ended);
  return out;
}

std::size_t Sampler::tracked_jobs() const {
  return impl_->jobs.size();
}

void Sampler::Impl::read_environ(int pid, JobState& state) {
  ++state.environ_reads;
  auto env = procfs.environ(pid);
  if (!env || !environ_value(*env, "SLURM_JOB_ID")) {
    state.environ_tried.insert(pid);
    return;
  }
  if (auto gpus = environ_value(*env, "SLURM_JOB_GPUS"))
    state.gpus = split_gpu_list(*gpus);
  else if (auto step_gpus = environ_value(*env, "SLURM_STEP_GPUS"))
    state.gpus = split_gpu_list(*step_gpus);
  if (auto account = environ_value(*env, "SLURM_JOB_ACCOUNT")) state.account = *account;
  if (!state.uid) {
    if (auto uid = environ_value(*env, "SLURM_JOB_UID")) state.uid = parse_uid(*uid);
  }
  state.environ_found = true;
  state.environ_tried.clear();
}

bool Sampler::Impl::under_scratch(std::string_view path) const {
  for (const auto& prefix : options.scratch_prefixes)
    if (path_is_under(path, prefix)) return true;
  return false;
}

void Sampler::Impl::sample_cpu(const JobCgroups& cg, JobState& state, JobSample& out, double now,
                               const std::vector<std::uint64_t>* cpu_busy_delta, bool exclusive_cpuset) {
  CgroupCpu cpu = cgroups.cpu(cg);
  out.cpu_time_total = cpu.total_seconds;
  out.user_time = cpu.user_seconds;
  out.system_time = cpu.system_seconds;
  if (cpu.total_seconds) {
    if (state.last_cpu_seconds && now > state.last_time) {
      double delta = *cpu.total_seconds - *state.last_cpu_seconds;
      out.cpu_percent = delta < 0 ? 0.0 : 100.0 * delta / (now - state.last_time);
    }
    state.last_cpu_seconds = cpu.total_seconds;
    state.last_time = now;
  }

  const std::vector<int>& cpus = out.cpus;
  if (cpu.per_cpu_seconds) {
    // v1: cpuacct.usage_percpu is indexed by CPU id.
    for (int c : cpus) {
      if (c >= 0 && static_cast<std::size_t>(c) < cpu.per_cpu_seconds->size())
        out.cpu_time_core.emplace_back(c, (*cpu.per_cpu_seconds)[static_cast<std::size_t>(c)]);
    }
    return;
  }
  if (cg.version != CgroupVersion::V2 || cpus.empty() || !cpu.total_seconds) return;
  // v2 has no per-CPU file: share each pass's cgroup CPU time delta among the
  // job's CPUs, weighted by per-CPU busy time from /proc/stat when the cpuset
  // is the job's alone, else by where the job's processes last ran. The
  // per-core values then sum to the cgroup total by construction. The time
  // spent before the job's first pass is spread evenly: nothing tells where.
  if (state.core_seconds.size() != cpus.size()) state.core_seconds.assign(cpus.size(), 0.0);
  double delta = state.last_v2_usage_seconds ? *cpu.total_seconds - *state.last_v2_usage_seconds : *cpu.total_seconds;
  state.last_v2_usage_seconds = cpu.total_seconds;
  if (delta > 0) {
    std::vector<double> weights(cpus.size(), 0.0);
    double weight_sum = 0;
    bool first_pass = !state.last_cpu_seconds || state.core_seconds.empty();
    for (std::size_t i = 0; i < cpus.size() && !first_pass; ++i) {
      auto c = static_cast<std::size_t>(cpus[i]);
      if (exclusive_cpuset && cpu_busy_delta && c < cpu_busy_delta->size()) {
        weights[i] = static_cast<double>((*cpu_busy_delta)[c]);
      } else if (auto it = ticks_by_cpu.find(cpus[i]); it != ticks_by_cpu.end()) {
        weights[i] = it->second;
      }
      weight_sum += weights[i];
    }
    for (std::size_t i = 0; i < cpus.size(); ++i) {
      double share = weight_sum > 0 ? weights[i] / weight_sum : 1.0 / static_cast<double>(cpus.size());
      state.core_seconds[i] += delta * share;
    }
  }
  for (std::size_t i = 0; i < cpus.size(); ++i) out.cpu_time_core.emplace_back(cpus[i], state.core_seconds[i]);
}

void Sampler::Impl::apply_memory(const std::optional<CgroupMemory>& memory, JobState& state, JobSample& out,
                                 std::optional<std::uint64_t> process_rss) {
  auto mib = [](const std::optional<std::uint64_t>& bytes, std::optional<double>& into) {
    if (bytes) into = static_cast<double>(*bytes) / kMiB;
  };
  std::optional<std::uint64_t> rss = memory ? memory->rss_bytes : process_rss;
  if (rss) {
    out.rss_mib = static_cast<double>(*rss) / kMiB;
    state.memory_high_water = std::max(state.memory_high_water, *rss);
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
  else if (state.memory_high_water > 0)
    out.memory_peak_mib = static_cast<double>(state.memory_high_water) / kMiB;
}

std::optional<JobSample> Sampler::Impl::sample_job(const JobCgroups& cg, JobState& state, double now,
                                                   bool exclusive_cpuset,
                                                   const std::vector<std::uint64_t>* cpu_busy_delta) {
  bool listing_complete = cgroups.processes(cg, process_list);

  JobSample out;
  out.job_id = cg.job_id;
  open_paths.clear();
  threads.clear();
  ticks_by_cpu.clear();
  for (auto& [pid, tracked] : state.processes) tracked.listed = false;
  bool need_status = cg.memory_dir.empty();
  std::uint64_t process_rss_bytes = 0;
  int environ_reads_this_pass = 0;
  std::vector<TrackedProcess> replaced;  // processes whose pid was reused
  for (const ProcessRef& ref : process_list) {
    auto stat = procfs.stat(ref.pid);
    if (!stat) {
      // Vanished, or unreadable this once (counted by the reader): keep what
      // we knew of it until the cgroup no longer lists it.
      if (auto it = state.processes.find(ref.pid); it != state.processes.end()) it->second.listed = true;
      continue;
    }
    if (stat->comm == "slurmstepd") continue;
    ++out.processes;
    threads[stat->comm] += stat->num_threads;

    if (!state.environ_found && state.environ_reads < kMaxEnvironReads &&
        environ_reads_this_pass < kEnvironReadsPerPass && !state.environ_tried.count(ref.pid)) {
      ++environ_reads_this_pass;
      read_environ(ref.pid, state);
    }
    if (!state.uid) state.uid = procfs.owner_uid(ref.pid);

    std::uint64_t ticks = stat->utime + stat->stime;
    TrackedProcess& tracked = state.processes[ref.pid];
    if (tracked.starttime != stat->starttime) {
      if (tracked.starttime != 0) replaced.push_back(tracked);
      tracked = TrackedProcess{};
      tracked.starttime = stat->starttime;
      tracked.cpu_ticks = ticks;
    }
    tracked.listed = true;
    tracked.ppid = stat->ppid;
    if (cg.version == CgroupVersion::V2 && ticks > tracked.cpu_ticks)
      ticks_by_cpu[stat->processor] += static_cast<double>(ticks - tracked.cpu_ticks);
    tracked.cpu_ticks = ticks;
    if (auto io = procfs.io(ref.pid)) tracked.io = *io;

    procfs.open_files(ref.pid, [&](std::string_view path) {
      if (!state.uses_scratch && under_scratch(path)) state.uses_scratch = true;
      open_paths.emplace(path);
    });
    if (!state.uses_scratch) {
      if (auto cwd = procfs.cwd(ref.pid); cwd && under_scratch(*cwd)) state.uses_scratch = true;
    }
    if (need_status) {
      if (auto status = procfs.status(ref.pid))
        process_rss_bytes += (status->rss_anon_kib + status->rss_shmem_kib) * 1024;
    }
  }
  if (state.uid && state.user.empty()) state.user = user_name(*state.uid);
  if (excluded(state)) return std::nullopt;

  // A process the cgroup no longer lists has exited. When the listing was
  // incomplete, nobody is taken for gone.
  for (const TrackedProcess& gone : replaced)
    if (!reaped_inside_job(gone, state.processes)) add(state.exited_io, gone.io);
  for (auto it = state.processes.begin(); it != state.processes.end();) {
    if (!it->second.listed && listing_complete) {
      if (!reaped_inside_job(it->second, state.processes)) add(state.exited_io, it->second.io);
      it = state.processes.erase(it);
    } else {
      ++it;
    }
  }
  ProcIo total_io = state.exited_io;
  for (const auto& [pid, tracked] : state.processes) add(total_io, tracked.io);
  // Between a child's exit and its reaping the parent does not count it yet:
  // hold the totals so they never go down.
  raise_to(state.reported_io, total_io);
  total_io = state.reported_io;
  out.read_mib = static_cast<double>(total_io.read_bytes) / kMiB;
  out.write_mib = static_cast<double>(total_io.write_bytes) / kMiB;
  out.read_count = total_io.syscr;
  out.write_count = total_io.syscw;
  out.opened_files = static_cast<std::int64_t>(open_paths.size());
  out.uses_scratch = state.uses_scratch;

  // Thread counts: the top names by threads, the rest summed as "other".
  std::vector<std::pair<std::string, std::int64_t>> by_name(threads.begin(), threads.end());
  std::stable_sort(by_name.begin(), by_name.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  if (by_name.size() > options.max_proc_names) {
    std::int64_t other = 0;
    for (std::size_t i = options.max_proc_names; i < by_name.size(); ++i) other += by_name[i].second;
    by_name.resize(options.max_proc_names);
    by_name.emplace_back("other", other);
  }
  out.threads_by_name = std::move(by_name);

  out.uid = state.uid;
  out.user = state.user;
  out.account = state.account;
  out.gpus = state.gpus;
  if (state.cpus) out.cpus = *state.cpus;
  sample_cpu(cg, state, out, now, cpu_busy_delta, exclusive_cpuset);
  apply_memory(cgroups.memory(cg), state, out,
               need_status ? std::optional<std::uint64_t>(process_rss_bytes) : std::nullopt);
  return out;
}

// Facts that need no process: the uid from the path, the cpuset.
void Sampler::Impl::prepare(const JobCgroups& cg, JobState& state) {
  state.cpu_dir = cg.cpu_dir;
  state.version = cg.version;
  if (!state.uid) state.uid = cg.uid;
  if (!state.cpus && !excluded(state)) state.cpus = cgroups.cpuset(cg);
}

// Jobs whose cgroups are gone have ended: their last readings are final,
// completed by what their parent's counters show they used after the last
// one when `readings` (this watch's) are given.
void Sampler::Impl::end_gone_jobs(const std::vector<JobCgroups>& found,
                                  const std::map<std::string, CpuReadings>* readings, double now) {
  std::unordered_set<std::string> present = job_ids(found);
  // Which CPUs each job held, by its CPU cgroup: jobs that went together
  // share their parent's time by them.
  std::map<std::string, std::vector<int>> cpus_by_dir;
  for (const auto& [id, state] : jobs)
    if (!state.cpu_dir.empty() && state.cpus) cpus_by_dir[state.cpu_dir] = *state.cpus;
  for (auto it = jobs.begin(); it != jobs.end();) {
    if (present.count(it->first)) {
      ++it;
      continue;
    }
    if (it->second.latest) {
      if (readings) add_time_after_last_reading(it->second, *readings, cpus_by_dir, now);
      ended.push_back(final_sample(it->second));
    }
    it = jobs.erase(it);
  }
  for (auto it = leftovers.begin(); it != leftovers.end();)
    it = present.count(*it) ? std::next(it) : leftovers.erase(it);
}

namespace {

std::string parent_of(const std::string& dir) {
  auto slash = dir.rfind('/');
  return slash == std::string::npos ? std::string() : dir.substr(0, slash);
}

// The reading of the cgroup `dir` among its parent's, if it was read.
const CgroupCpu* reading_of(const std::map<std::string, CpuReadings>& readings, const std::string& dir) {
  std::string parent = parent_of(dir);
  auto of_parent = readings.find(parent);
  if (parent.empty() || of_parent == readings.end()) return nullptr;
  auto child = of_parent->second.children.find(dir.substr(parent.size() + 1));
  return child == of_parent->second.children.end() ? nullptr : &child->second;
}

}  // namespace

// CPU counters of every parent of a job's CPU cgroup (jobs found now, and
// jobs known before, which may be gone), each read right before all of its
// children.
std::map<std::string, CpuReadings> Sampler::Impl::read_cpu_by_parent(const std::vector<JobCgroups>& found) {
  std::map<std::string, const JobCgroups*> job_at;  // cpu_dir -> job
  std::map<std::string, CgroupVersion> parents;
  auto add_parents = [&](const std::string& cpu_dir, CgroupVersion version) {
    std::string parent = parent_of(cpu_dir);
    parents.emplace(parent, version);
    // On v1 the grandparent too (Slurm removes uid_U with the user's last
    // job), unless it is the hierarchy's root, whose counters also hold the
    // CPU time of every process outside a cgroup. v2's slurmstepd scope
    // outlives the jobs.
    std::string grandparent = parent_of(parent);
    if (version == CgroupVersion::V1 && !parent_of(grandparent).empty()) parents.emplace(grandparent, version);
  };
  for (const JobCgroups& cg : found) {
    if (cg.cpu_dir.empty()) continue;
    job_at[cg.cpu_dir] = &cg;
    add_parents(cg.cpu_dir, cg.version);
  }
  for (const auto& [id, state] : jobs)
    if (!state.cpu_dir.empty()) add_parents(state.cpu_dir, state.version);
  std::map<std::string, CpuReadings> readings;
  for (const auto& [parent, version] : parents) {
    if (parent.empty()) continue;
    CpuReadings& r = readings[parent];
    r.parent = cgroups.cpu_at(parent, version);
    for (const std::string& child : cgroups.child_directories(parent)) {
      std::string dir = parent + "/" + child;
      auto job = job_at.find(dir);
      // A job's own files are required (a missing one is an error); any
      // other child (v2's slurmstepd area `system`) is read if it can be.
      r.children[child] = job != job_at.end() ? cgroups.cpu(*job->second) : cgroups.cpu_at(dir, version);
    }
  }
  return readings;
}

void Sampler::Impl::add_time_after_last_reading(JobState& state, const std::map<std::string, CpuReadings>& readings,
                                                const std::map<std::string, std::vector<int>>& cpus_by_dir,
                                                double now) {
  std::string parent = parent_of(state.cpu_dir);
  auto before = last_readings.find(parent);
  auto after = readings.find(parent);
  if (parent.empty() || before == last_readings.end() || after == readings.end()) return;
  std::string name = state.cpu_dir.substr(parent.size() + 1);
  std::optional<CgroupCpu> spent;
  const auto& parent_before = before->second.parent.total_seconds;
  const auto& parent_after = after->second.parent.total_seconds;
  bool same_parent = parent_before && parent_after && *parent_after + 1e-3 >= *parent_before;
  if (same_parent) {
    if (auto vanished = cpu_of_vanished(before->second, after->second)) {
      std::map<std::string, std::vector<int>> cpus_of;
      for (const std::string& child : vanished->children)
        if (auto cpus = cpus_by_dir.find(parent + "/" + child); cpus != cpus_by_dir.end())
          cpus_of[child] = cpus->second;
      spent = share_of(*vanished, name, cpus_of);
    }
  } else if (before->second.children.size() == 1) {
    // The parent went with the job, its only child, and may be there anew
    // for the user's next job: what the old parent used after the last
    // reading, as its own parent's counters show, is the job's.
    std::string grandparent = parent_of(parent);
    auto before_up = last_readings.find(grandparent);
    auto after_up = readings.find(grandparent);
    if (!grandparent.empty() && before_up != last_readings.end() && after_up != readings.end())
      if (auto vanished = cpu_of_vanished(before_up->second, after_up->second))
        spent = share_of(*vanished, parent.substr(grandparent.size() + 1), {});
  }
  if (!spent || !before->second.children.count(name)) return;
  const CgroupCpu& last = before->second.children.at(name);
  auto plus = [](const std::optional<double>& a, const std::optional<double>& b) -> std::optional<double> {
    if (!a || !b) return std::nullopt;
    return *a + *b;
  };
  CgroupCpu final_cpu;
  final_cpu.total_seconds = plus(last.total_seconds, spent->total_seconds);
  final_cpu.user_seconds = plus(last.user_seconds, spent->user_seconds);
  final_cpu.system_seconds = plus(last.system_seconds, spent->system_seconds);
  if (last.per_cpu_seconds && spent->per_cpu_seconds &&
      last.per_cpu_seconds->size() == spent->per_cpu_seconds->size()) {
    std::vector<double> per_cpu = *last.per_cpu_seconds;
    for (std::size_t c = 0; c < per_cpu.size(); ++c) per_cpu[c] += (*spent->per_cpu_seconds)[c];
    final_cpu.per_cpu_seconds = std::move(per_cpu);
  }
  // Never below what was read already (a full pass may have read later).
  if (!final_cpu.total_seconds ||
      (state.latest->cpu_time_total && *final_cpu.total_seconds < *state.latest->cpu_time_total))
    return;
  apply_cpu_reading(final_cpu, *state.latest);
  state.latest_read_time = now;
}

// A job cgroup whose CPU time went down holds another job now (a requeued
// job's, whose id stays): what was kept of the old one must not leak into it.
bool Sampler::Impl::went_backwards(const std::string& job_id, const JobState& state,
                                   const std::optional<double>& cpu_seconds) {
  if (!cpu_seconds || !state.latest || !state.latest->cpu_time_total) return false;
  if (*cpu_seconds + kBackwardsSeconds >= *state.latest->cpu_time_total) return false;
  char line[200];
  std::snprintf(line, sizeof line,
                "job %s: cgroup CPU time went down from %.3f s to %.3f s: a new job in a reused "
                "cgroup, sampled afresh",
                job_id.c_str(), *state.latest->cpu_time_total, *cpu_seconds);
  log::info(line);
  return true;
}

// A CPU reading of the job's cgroup into its latest sample; values that
// could not be read keep their last reading.
void Sampler::Impl::apply_cpu_reading(const CgroupCpu& cpu, JobSample& latest) {
  if (cpu.total_seconds) {
    if (cpu.per_cpu_seconds) {
      for (auto& [c, seconds] : latest.cpu_time_core)
        if (c >= 0 && static_cast<std::size_t>(c) < cpu.per_cpu_seconds->size())
          seconds = (*cpu.per_cpu_seconds)[static_cast<std::size_t>(c)];
    } else if (latest.cpu_time_total && *latest.cpu_time_total > 0) {
      // v2 attributes time to cores only in full passes: the watch's share
      // follows the job's split so far, so the cores still sum to the total.
      double scale = *cpu.total_seconds / *latest.cpu_time_total;
      for (auto& core : latest.cpu_time_core) core.second *= scale;
    }
    latest.cpu_time_total = cpu.total_seconds;
  }
  if (cpu.user_seconds) latest.user_time = cpu.user_seconds;
  if (cpu.system_seconds) latest.system_time = cpu.system_seconds;
}

// The watch's reading of one job: CPU time and memory from its cgroup, into
// the latest sample. Values that could not be read keep their last reading.
void Sampler::Impl::refresh(const JobCgroups& cg, const CgroupCpu& cpu, JobState& state, double now) {
  apply_cpu_reading(cpu, *state.latest);
  if (auto memory = cgroups.memory(cg)) apply_memory(memory, state, *state.latest, std::nullopt);
  state.latest_read_time = now;
}

JobSample Sampler::Impl::final_sample(const JobState& state) const {
  JobSample out = *state.latest;
  double span = state.latest_read_time - state.last_time;
  if (state.last_cpu_seconds && out.cpu_time_total && span >= kMinFinalRateSeconds) {
    double delta = *out.cpu_time_total - *state.last_cpu_seconds;
    out.cpu_percent = delta < 0 ? 0.0 : 100.0 * delta / span;
  }
  return out;
}

std::vector<JobSample> Sampler::Impl::watch(double now) {
  watching = true;
  std::vector<JobCgroups> found = layout->discover(cgroups.root_fd(), errors);
  // Which known jobs still hold a process, before any counter is read: the
  // counters of one that holds none are final.
  std::unordered_set<std::string> empty;
  for (const JobCgroups& cg : found) {
    auto known = jobs.find(cg.job_id);
    if (known != jobs.end() && known->second.latest && !leftovers.count(cg.job_id) && !cgroups.has_processes(cg))
      empty.insert(cg.job_id);
  }
  std::map<std::string, CpuReadings> readings = read_cpu_by_parent(found);
  end_gone_jobs(found, &readings, now);

  std::vector<JobSample> started;
  for (const JobCgroups& cg : found) {
    if (leftovers.count(cg.job_id)) continue;
    auto known = jobs.find(cg.job_id);
    if (known != jobs.end() && known->second.latest) {
      JobState& state = known->second;
      const CgroupCpu* read = reading_of(readings, cg.cpu_dir);
      CgroupCpu cpu = read ? *read : cgroups.cpu(cg);
      if (went_backwards(cg.job_id, state, cpu.total_seconds)) {
        jobs.erase(known);  // and sampled as a new job below
      } else {
        refresh(cg, cpu, state, now);
        if (empty.count(cg.job_id)) {
          ended.push_back(final_sample(state));
          jobs.erase(known);
          leftovers.insert(cg.job_id);
        }
        continue;
      }
    }
    JobState& state = jobs[cg.job_id];
    prepare(cg, state);
    if (excluded(state)) continue;
    std::optional<JobSample> sample = sample_job(cg, state, now, false, nullptr);
    if (!sample) continue;
    if (sample->processes == 0) {
      jobs.erase(cg.job_id);
      leftovers.insert(cg.job_id);
      continue;
    }
    state.latest = *sample;
    state.latest_read_time = now;
    started.push_back(std::move(*sample));
  }
  last_readings = std::move(readings);
  return started;
}

std::vector<JobSample> Sampler::Impl::sample(double now) {
  std::vector<JobCgroups> found = layout->discover(cgroups.root_fd(), errors);
  // With the watch running, a job whose cgroups are gone is ended by the
  // next watch, which can tell what it used after its last reading.
  if (!watching) end_gone_jobs(found, nullptr, now);

  // Facts that need no process, for every job before any is sampled, since
  // v2 per-core attribution must know which cpusets are shared.
  for (const JobCgroups& cg : found) prepare(cg, jobs[cg.job_id]);

  bool any_v2 =
      std::any_of(found.begin(), found.end(), [](const JobCgroups& cg) { return cg.version == CgroupVersion::V2; });
  std::vector<std::uint64_t> cpu_busy_delta;
  std::unordered_map<int, int> jobs_per_cpu;
  if (any_v2) {
    std::vector<std::uint64_t> busy = procfs.cpu_busy_ticks();
    if (busy.size() == last_cpu_busy.size()) {
      cpu_busy_delta.resize(busy.size());
      for (std::size_t i = 0; i < busy.size(); ++i)
        cpu_busy_delta[i] = busy[i] >= last_cpu_busy[i] ? busy[i] - last_cpu_busy[i] : 0;
    }
    last_cpu_busy = std::move(busy);
    for (const JobCgroups& cg : found) {
      const JobState& state = jobs[cg.job_id];
      if (state.cpus)
        for (int c : *state.cpus) ++jobs_per_cpu[c];
    }
  }

  std::vector<JobSample> samples;
  samples.reserve(found.size());
  if (watching) {
    // Jobs whose cgroups went since the last watch stay as they were read
    // until the next watch ends them, so their series do not blink out.
    std::unordered_set<std::string> present = job_ids(found);
    for (const auto& [id, state] : jobs)
      if (!present.count(id) && state.latest) samples.push_back(*state.latest);
  }
  for (const JobCgroups& cg : found) {
    JobState& state = jobs[cg.job_id];
    if (excluded(state)) continue;
    bool exclusive = false;
    if (cg.version == CgroupVersion::V2 && state.cpus && !state.cpus->empty()) {
      exclusive = std::all_of(state.cpus->begin(), state.cpus->end(), [&](int c) { return jobs_per_cpu[c] == 1; });
    }
    const std::vector<std::uint64_t>* busy = cpu_busy_delta.empty() ? nullptr : &cpu_busy_delta;
    std::optional<JobSample> sample = sample_job(cg, state, now, exclusive, busy);
    if (sample && went_backwards(cg.job_id, state, sample->cpu_time_total)) {
      state = JobState{};
      prepare(cg, state);
      sample = sample_job(cg, state, now, exclusive, busy);
    }
    if (!sample) continue;
    // A cgroup without processes is not a running job: one that just ended
    // (its last readings are these), or one Slurm left behind.
    if (sample->processes == 0) {
      if (state.latest) ended.push_back(std::move(*sample));
      jobs.erase(cg.job_id);
      leftovers.insert(cg.job_id);
      continue;
    }
    leftovers.erase(cg.job_id);
    state.latest = *sample;
    state.latest_read_time = now;
    samples.push_back(std::move(*sample));
  }
  return samples;
}

}  // namespace petricore::collect
