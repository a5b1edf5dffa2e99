#include "collect/sampler.hpp"

#include "collect/cgroup_reader.hpp"
#include "collect/error_counter.hpp"
#include "collect/file_reader.hpp"
#include "collect/kernel_formats.hpp"
#include "collect/procfs_reader.hpp"

#include <pwd.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <chrono>
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
};

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

  std::vector<JobSample> sample(double now);
  bool excluded(const JobState& state) const { return state.uid && options.excluded_uids.count(*state.uid) != 0; }
  std::optional<JobSample> sample_job(const JobCgroups& cg, JobState& state, double now, bool exclusive_cpuset,
                                      const std::vector<std::uint64_t>* cpu_busy_delta);
  void read_environ(int pid, JobState& state);
  bool under_scratch(std::string_view path) const;
  void sample_cpu(const JobCgroups& cg, JobState& state, JobSample& out, double now,
                  const std::vector<std::uint64_t>* cpu_busy_delta, bool exclusive_cpuset);
  void sample_memory(const JobCgroups& cg, JobState& state, JobSample& out, std::optional<std::uint64_t> process_rss);
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

void Sampler::Impl::sample_memory(const JobCgroups& cg, JobState& state, JobSample& out,
                                  std::optional<std::uint64_t> process_rss) {
  std::optional<CgroupMemory> memory = cgroups.memory(cg);
  std::optional<std::uint64_t> rss = memory ? memory->rss_bytes : process_rss;
  if (rss) {
    out.rss_mib = static_cast<double>(*rss) / kMiB;
    state.memory_high_water = std::max(state.memory_high_water, *rss);
  }
  if (memory && memory->limit_bytes) out.memory_limit_mib = static_cast<double>(*memory->limit_bytes) / kMiB;
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
  sample_memory(cg, state, out, need_status ? std::optional<std::uint64_t>(process_rss_bytes) : std::nullopt);
  return out;
}

std::vector<JobSample> Sampler::Impl::sample(double now) {
  std::vector<JobCgroups> found = layout->discover(cgroups.root_fd(), errors);

  // Forget jobs that ended, so their series vanish and their state is freed.
  std::unordered_set<std::string> present;
  for (const auto& cg : found) present.insert(cg.job_id);
  for (auto it = jobs.begin(); it != jobs.end();) it = present.count(it->first) ? std::next(it) : jobs.erase(it);

  // Facts that need no process: known uids (from the path) and cpusets, for
  // every job before any is sampled, since v2 per-core attribution must know
  // which cpusets are shared.
  for (const JobCgroups& cg : found) {
    JobState& state = jobs[cg.job_id];
    if (!state.uid) state.uid = cg.uid;
    if (!state.cpus && !excluded(state)) state.cpus = cgroups.cpuset(cg);
  }

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
  for (const JobCgroups& cg : found) {
    JobState& state = jobs[cg.job_id];
    if (excluded(state)) continue;
    bool exclusive = false;
    if (cg.version == CgroupVersion::V2 && state.cpus && !state.cpus->empty()) {
      exclusive = std::all_of(state.cpus->begin(), state.cpus->end(), [&](int c) { return jobs_per_cpu[c] == 1; });
    }
    std::optional<JobSample> sample =
        sample_job(cg, state, now, exclusive, cpu_busy_delta.empty() ? nullptr : &cpu_busy_delta);
    if (!sample) continue;
    // A leftover cgroup of a job that ended (Slurm does not always clean up)
    // has no processes; it is not a running job.
    if (sample->processes == 0) {
      jobs.erase(cg.job_id);
      continue;
    }
    samples.push_back(std::move(*sample));
  }
  return samples;
}

}  // namespace petricore::collect
