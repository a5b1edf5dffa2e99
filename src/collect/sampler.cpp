#include "collect/sampler.hpp"

#include "collect/cgroup_reader.hpp"
#include "collect/error_counter.hpp"
#include "collect/file_reader.hpp"
#include "collect/kernel_formats.hpp"
#include "collect/procfs_reader.hpp"

#include <pwd.h>
#include <unistd.h>

#include <algorithm>
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
// Give up looking for a job's environment after this many passes without
// finding SLURM_JOB_ID in any of its processes.
constexpr int kMaxEnvironPasses = 8;

std::string user_name(unsigned uid) {
  struct passwd pw;
  struct passwd* found = nullptr;
  char buffer[1024];
  if (::getpwuid_r(uid, &pw, buffer, sizeof buffer, &found) == 0 && found != nullptr) return found->pw_name;
  return std::to_string(uid);
}

// A process we saw in an earlier pass, identified by pid and start time so a
// reused pid is not mistaken for the same process.
struct TrackedProcess {
  std::uint64_t starttime = 0;
  ProcIo io;
  std::uint64_t cpu_ticks = 0;  // utime + stime
  bool seen = false;
};

struct JobState {
  // Static facts.
  bool facts_complete = false;
  int environ_passes = 0;
  std::optional<unsigned> uid;
  std::string user;
  std::string account;
  std::vector<std::string> gpus;
  std::optional<std::vector<int>> cpus;

  // Between passes.
  std::optional<double> last_cpu_seconds;
  double last_time = 0;
  std::unordered_map<int, TrackedProcess> processes;
  ProcIo exited_io;  // sums of processes that have exited
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

}  // namespace

struct Sampler::Impl {
  CgroupReader cgroups;
  ProcfsReader procfs;
  std::unique_ptr<Layout> layout;
  SamplerOptions options;
  ErrorCounter& errors;
  std::map<std::string, JobState> jobs;
  double ticks_per_second = static_cast<double>(::sysconf(_SC_CLK_TCK));
  // /proc/stat per-CPU busy ticks of the previous pass (cgroup v2 only).
  std::vector<std::uint64_t> last_cpu_busy;

  Impl(UniqueFd cgroup_root, UniqueFd proc_root, std::unique_ptr<Layout> l, SamplerOptions o, ErrorCounter& e)
      : cgroups(std::move(cgroup_root), e),
        procfs(std::move(proc_root), e),
        layout(std::move(l)),
        options(std::move(o)),
        errors(e) {}

  std::vector<JobSample> sample(double now);
  void load_static_facts(const JobCgroups& cg, JobState& state, const std::vector<ProcessRef>& processes);
  void sample_cpu(const JobCgroups& cg, JobState& state, JobSample& out, double now,
                  const std::vector<std::uint64_t>* cpu_busy_delta, bool exclusive_cpuset,
                  const std::unordered_map<int, double>& ticks_by_cpu);
  void sample_memory(const JobCgroups& cg, JobState& state, JobSample& out, std::uint64_t process_rss_bytes);
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

void Sampler::Impl::load_static_facts(const JobCgroups& cg, JobState& state, const std::vector<ProcessRef>& processes) {
  if (!state.uid) state.uid = cg.uid;
  if (!state.uid && !processes.empty()) state.uid = procfs.owner_uid(processes.front().pid);
  if (state.uid && state.user.empty()) state.user = user_name(*state.uid);
  if (!state.cpus) state.cpus = cgroups.cpuset(cg);

  // The environment of one process of the batch step or a numbered step; the
  // extern step's processes carry no job environment, so they come last.
  int tried = 0;
  for (const ProcessRef& p : processes) {
    if (tried == 3) break;
    ++tried;
    auto env = procfs.environ(p.pid);
    if (!env || !environ_value(*env, "SLURM_JOB_ID")) continue;
    if (auto gpus = environ_value(*env, "SLURM_JOB_GPUS"))
      state.gpus = split_gpu_list(*gpus);
    else if (auto step_gpus = environ_value(*env, "SLURM_STEP_GPUS"))
      state.gpus = split_gpu_list(*step_gpus);
    if (auto account = environ_value(*env, "SLURM_JOB_ACCOUNT")) state.account = *account;
    state.facts_complete = true;
    return;
  }
  // Not a Slurm environment (other schedulers, or pam_slurm_adopt'ed
  // processes): stop trying after a while, the facts stay empty.
  if (++state.environ_passes >= kMaxEnvironPasses) state.facts_complete = true;
}

void Sampler::Impl::sample_cpu(const JobCgroups& cg, JobState& state, JobSample& out, double now,
                               const std::vector<std::uint64_t>* cpu_busy_delta, bool exclusive_cpuset,
                               const std::unordered_map<int, double>& ticks_by_cpu) {
  auto cpu = cgroups.cpu(cg);
  if (!cpu) return;
  out.cpu_time_total = cpu->total_seconds;
  out.user_time = cpu->user_seconds;
  out.system_time = cpu->system_seconds;
  if (state.last_cpu_seconds && now > state.last_time) {
    double delta = cpu->total_seconds - *state.last_cpu_seconds;
    out.cpu_percent = delta < 0 ? 0.0 : 100.0 * delta / (now - state.last_time);
  }
  state.last_cpu_seconds = cpu->total_seconds;
  state.last_time = now;

  const std::vector<int>& cpus = out.cpus;
  if (cpu->per_cpu_seconds) {
    // v1: cpuacct.usage_percpu is indexed by CPU id.
    for (int c : cpus) {
      if (c >= 0 && static_cast<std::size_t>(c) < cpu->per_cpu_seconds->size())
        out.cpu_time_core.emplace_back(c, (*cpu->per_cpu_seconds)[static_cast<std::size_t>(c)]);
    }
    return;
  }
  if (cpus.empty()) return;
  // v2 has no per-CPU file: share each pass's cgroup CPU time delta among the
  // job's CPUs, weighted by per-CPU busy time from /proc/stat when the cpuset
  // is the job's alone, else by where the job's processes last ran. The
  // per-core values then sum to the cgroup total by construction.
  if (state.core_seconds.size() != cpus.size()) state.core_seconds.assign(cpus.size(), 0.0);
  double delta = state.last_v2_usage_seconds ? cpu->total_seconds - *state.last_v2_usage_seconds
                                             : cpu->total_seconds;  // first pass: time so far
  state.last_v2_usage_seconds = cpu->total_seconds;
  if (delta > 0) {
    std::vector<double> weights(cpus.size(), 0.0);
    double weight_sum = 0;
    for (std::size_t i = 0; i < cpus.size(); ++i) {
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
                                  std::uint64_t process_rss_bytes) {
  auto memory = cgroups.memory(cg);
  std::uint64_t rss = 0;
  if (memory && memory->rss_bytes) {
    rss = *memory->rss_bytes;
  } else if (cg.memory_dir.empty()) {
    rss = process_rss_bytes;  // no memory cgroup: Σ RssAnon + RssShmem
  } else {
    return;  // the memory cgroup exists but could not be read (already counted)
  }
  out.rss_mib = static_cast<double>(rss) / kMiB;
  state.memory_high_water = std::max(state.memory_high_water, rss);
  if (memory && memory->limit_bytes) out.memory_limit_mib = static_cast<double>(*memory->limit_bytes) / kMiB;
  std::uint64_t peak = memory && memory->peak_bytes ? *memory->peak_bytes : state.memory_high_water;
  out.memory_peak_mib = static_cast<double>(peak) / kMiB;
}

std::vector<JobSample> Sampler::Impl::sample(double now) {
  std::vector<JobCgroups> found = layout->discover(cgroups.root_fd(), errors);

  // Forget jobs that ended, so their series vanish and their state is freed.
  std::unordered_set<std::string> present;
  for (const auto& cg : found) present.insert(cg.job_id);
  for (auto it = jobs.begin(); it != jobs.end();) {
    it = present.count(it->first) ? std::next(it) : jobs.erase(it);
  }

  // cgroup v2 per-core attribution needs /proc/stat and to know which
  // cpusets are shared; both are cheap and read once per pass.
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
  }

  std::vector<JobSample> samples;
  samples.reserve(found.size());
  std::unordered_set<std::string> open_paths;
  std::map<std::string, std::int64_t> threads;
  std::unordered_map<int, double> ticks_by_cpu;
  for (const JobCgroups& cg : found) {
    if (cg.uid && options.excluded_uids.count(*cg.uid)) continue;
    std::vector<ProcessRef> processes = cgroups.processes(cg);
    JobState& state = jobs[cg.job_id];
    if (!state.facts_complete) load_static_facts(cg, state, processes);
    if (state.uid && options.excluded_uids.count(*state.uid)) continue;

    JobSample out;
    out.job_id = cg.job_id;
    out.uid = state.uid;
    out.user = state.user;
    out.account = state.account;
    out.gpus = state.gpus;
    if (state.cpus) out.cpus = *state.cpus;

    open_paths.clear();
    threads.clear();
    ticks_by_cpu.clear();
    for (auto& [pid, tracked] : state.processes) tracked.seen = false;
    std::uint64_t process_rss_bytes = 0;
    ProcIo live_io;
    bool need_status = cg.memory_dir.empty();
    for (const ProcessRef& ref : processes) {
      auto stat = procfs.stat(ref.pid);
      if (!stat) continue;  // vanished or unreadable (counted by the reader)
      if (stat->comm == "slurmstepd") continue;
      ++out.processes;
      threads[stat->comm] += stat->num_threads;

      std::uint64_t ticks = stat->utime + stat->stime;
      TrackedProcess& tracked = state.processes[ref.pid];
      if (tracked.starttime != stat->starttime) {
        add(state.exited_io, tracked.io);  // the pid was reused: bank the old one
        tracked = TrackedProcess{};
        tracked.starttime = stat->starttime;
        tracked.cpu_ticks = ticks;
      }
      tracked.seen = true;
      if (cg.version == CgroupVersion::V2 && ticks > tracked.cpu_ticks)
        ticks_by_cpu[stat->processor] += static_cast<double>(ticks - tracked.cpu_ticks);
      tracked.cpu_ticks = ticks;
      if (auto io = procfs.io(ref.pid)) tracked.io = *io;
      add(live_io, tracked.io);

      procfs.open_files(ref.pid, [&](std::string_view path) {
        if (!state.uses_scratch) {
          for (const auto& prefix : options.scratch_prefixes)
            if (path_is_under(path, prefix)) state.uses_scratch = true;
        }
        open_paths.emplace(path);
      });
      if (!state.uses_scratch) {
        if (auto cwd = procfs.cwd(ref.pid)) {
          for (const auto& prefix : options.scratch_prefixes)
            if (path_is_under(*cwd, prefix)) state.uses_scratch = true;
        }
      }
      if (need_status) {
        if (auto status = procfs.status(ref.pid))
          process_rss_bytes += (status->rss_anon_kib + status->rss_shmem_kib) * 1024;
      }
    }
    // Processes gone since the last pass keep counting towards the job's I/O.
    for (auto it = state.processes.begin(); it != state.processes.end();) {
      if (it->second.seen) {
        ++it;
      } else {
        add(state.exited_io, it->second.io);
        it = state.processes.erase(it);
      }
    }
    ProcIo total_io = state.exited_io;
    add(total_io, live_io);
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

    bool exclusive = false;
    if (cg.version == CgroupVersion::V2 && !out.cpus.empty()) {
      exclusive = true;
      for (const JobCgroups& other : found) {
        if (&other == &cg || other.version != CgroupVersion::V2) continue;
        auto other_state = jobs.find(other.job_id);
        if (other_state == jobs.end() || !other_state->second.cpus) continue;
        for (int c : *other_state->second.cpus)
          if (std::binary_search(out.cpus.begin(), out.cpus.end(), c)) exclusive = false;
      }
    }
    sample_cpu(cg, state, out, now, cpu_busy_delta.empty() ? nullptr : &cpu_busy_delta, exclusive, ticks_by_cpu);
    sample_memory(cg, state, out, process_rss_bytes);

    // A leftover cgroup of a job that ended (Slurm does not always clean up)
    // has no processes; it is not a running job.
    if (out.processes == 0) {
      jobs.erase(cg.job_id);
      continue;
    }
    samples.push_back(std::move(out));
  }
  return samples;
}

}  // namespace petricore::collect
