#include "collect/sampler.hpp"

#include "collect/cgroup_cpu_collector.hpp"
#include "collect/cgroup_reader.hpp"
#include "collect/cpu_after_end.hpp"
#include "collect/error_counter.hpp"
#include "collect/file_reader.hpp"
#include "collect/job_collector.hpp"
#include "collect/job_collectors.hpp"
#include "collect/procfs_reader.hpp"
#include "collect/skip_counter.hpp"
#include "collect/slow_reads.hpp"
#include "core/log.hpp"

#include <algorithm>
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

// Below this, the CPU time since the last full pass is too short a stretch
// to give the final sample a rate of its own.
constexpr double kMinFinalRateSeconds = 0.2;
// How long a job cgroup first seen without a process may still be starting.
constexpr double kStartGraceSeconds = 10.0;
// Counters that go back by more than this are another job's (nanosecond
// cgroup counters never go back; rounding to microseconds might, a little).
constexpr double kBackwardsSeconds = 1e-3;

struct JobState {
  JobFacts facts;
  CpuRate rate;
  std::vector<std::unique_ptr<JobCollectorState>> sources;  // by collector, as Impl::collectors

  // The job's CPU cgroup (for its parent's counters at its end).
  std::string cpu_dir;
  CgroupVersion version = CgroupVersion::V1;
  // The job's latest full sample, its counters refreshed by every watch
  // read: what is published when the job ends.
  std::optional<JobSample> latest;
  double latest_read_time = 0;  // when latest's counters were read
};

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
  SkipCounter skips;
  SlowReads slow;
  std::vector<std::unique_ptr<JobCollector>> collectors;
  std::map<std::string, JobState> jobs;
  // /proc/stat per-CPU busy ticks of the previous pass (cgroup v2 only).
  std::vector<std::uint64_t> last_cpu_busy;
  // Reused between jobs and passes.
  ProcessFindings process_findings;

  Impl(UniqueFd cgroup_root, UniqueFd proc_root, std::unique_ptr<Layout> l, SamplerOptions o, ErrorCounter& e)
      : cgroups(std::move(cgroup_root), e),
        procfs(std::move(proc_root), e),
        layout(std::move(l)),
        options(std::move(o)),
        errors(e),
        slow(procfs.root_fd(), options.pass_timeout, e, skips),
        collectors(make_job_collectors(cgroups, procfs, slow, options, e)) {}

  // Jobs that ended, not yet handed out by take_ended().
  std::vector<JobSample> ended;
  // Job cgroups without a process (left behind by Slurm, or a job that just
  // ended): the watch skips them; full passes look again.
  std::unordered_set<std::string> leftovers;
  // Job cgroups never seen with a process, since when: Slurm makes a job's
  // cgroups before it moves the job's processes in (on v2 only slurmstepd,
  // in the steps' slurm/ leaves, is there at first), so such a job may be
  // starting. The watch keeps looking at it for kStartGraceSeconds before it
  // counts as a leftover; taken for one at once, a short job could end
  // before the next full pass and never be sampled.
  std::unordered_map<std::string, double> empty_since;
  void empty_at_first_sight(const std::string& id, double now);
  // Drops the entries of cgroups no longer there (either pass: the watch may be off).
  void forget_empty_gone(const std::vector<JobCgroups>& found);
  // Once the watch runs, it alone ends jobs whose cgroups are gone, with its
  // readings of their parents (cpu_after_end.hpp) from one watch to the next.
  bool watching = false;
  std::map<std::string, CpuReadings> last_readings;  // by parent directory

  std::vector<JobSample> sample(double now);
  std::vector<JobSample> watch(double now);
  JobState new_job() const;
  JobState& state_of(const std::string& job_id);
  void prepare(const JobCgroups& cg, JobState& state, double now);
  void end_gone_jobs(const std::vector<JobCgroups>& found, const std::map<std::string, CpuReadings>* readings,
                     double now);
  std::map<std::string, CpuReadings> read_cpu_by_parent(const std::vector<JobCgroups>& found);
  void add_time_after_last_reading(JobState& state, const std::map<std::string, CpuReadings>& readings,
                                   const std::map<std::string, std::vector<int>>& cpus_by_dir, double now);
  bool went_backwards(const std::string& job_id, const JobState& state, const std::optional<double>& cpu_seconds);
  void refresh(const JobCgroups& cg, const CgroupCpu& cpu, JobState& state, double now);
  JobSample final_sample(const JobState& state) const;
  bool excluded(const JobState& state) const {
    return state.facts.uid && options.excluded_uids.count(*state.facts.uid) != 0;
  }
  std::optional<JobSample> sample_job(const JobCgroups& cg, JobState& state, double now, bool exclusive_cpuset,
                                      const std::vector<std::uint64_t>* cpu_busy_delta);
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

std::map<std::string, std::uint64_t> Sampler::skipped() const {
  return impl_->skips.totals();
}

std::size_t Sampler::stuck_readers() const {
  return impl_->slow.stuck_readers();
}

// A job as first seen: each collector's state of it, nothing known yet.
JobState Sampler::Impl::new_job() const {
  JobState state;
  state.sources.reserve(collectors.size());
  for (const auto& collector : collectors) state.sources.push_back(collector->new_job());
  return state;
}

JobState& Sampler::Impl::state_of(const std::string& job_id) {
  auto known = jobs.find(job_id);
  if (known != jobs.end()) return known->second;
  return jobs.emplace(job_id, new_job()).first->second;
}

std::optional<JobSample> Sampler::Impl::sample_job(const JobCgroups& cg, JobState& state, double now,
                                                   bool exclusive_cpuset,
                                                   const std::vector<std::uint64_t>* cpu_busy_delta) {
  process_findings.clear();
  JobContext job{cg, now, state.facts, state.rate, exclusive_cpuset, cpu_busy_delta, &process_findings};
  JobSample out;
  out.job_id = cg.job_id;
  for (std::size_t i = 0; i < collectors.size(); ++i) {
    collectors[i]->collect(job, state.sources[i].get(), out);
    // A source may have found the job's owner (its environment, the owner of
    // its processes): an excluded user's job is read no further.
    if (excluded(state)) return std::nullopt;
  }
  const JobFacts& facts = state.facts;
  // A job whose cgroup is named by its SLUID is exported under its numeric
  // id once known: the state stays keyed by the directory, only the label
  // moves, and the sinks drop the SLUID-labelled series with the next pass.
  out.sluid = cg.sluid;
  if (!cg.sluid.empty() && !facts.slurm_job_id.empty()) out.job_id = facts.slurm_job_id;
  out.uid = facts.uid;
  out.user = facts.user;
  out.account = facts.account;
  out.gpus = facts.gpus;
  if (facts.cpus) out.cpus = *facts.cpus;
  return out;
}

// Facts that need no process: the uid from the path, then each source's
// (the cpuset) unless that uid is excluded.
void Sampler::Impl::prepare(const JobCgroups& cg, JobState& state, double now) {
  state.cpu_dir = cg.cpu_dir;
  state.version = cg.version;
  if (!state.facts.uid) state.facts.uid = cg.uid;
  if (excluded(state)) return;
  JobContext job{cg, now, state.facts, state.rate};
  for (std::size_t i = 0; i < collectors.size(); ++i) collectors[i]->prepare(job, state.sources[i].get());
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
    if (!state.cpu_dir.empty() && state.facts.cpus) cpus_by_dir[state.cpu_dir] = *state.facts.cpus;
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

// The watch's reading of one job: CPU time and memory from its cgroup, into
// the latest sample. Values that could not be read keep their last reading.
void Sampler::Impl::refresh(const JobCgroups& cg, const CgroupCpu& cpu, JobState& state, double now) {
  apply_cpu_reading(cpu, *state.latest);
  JobContext job{cg, now, state.facts, state.rate};
  for (std::size_t i = 0; i < collectors.size(); ++i)
    collectors[i]->refresh(job, state.sources[i].get(), *state.latest);
  state.latest_read_time = now;
}

void Sampler::Impl::forget_empty_gone(const std::vector<JobCgroups>& found) {
  if (empty_since.empty()) return;
  std::unordered_set<std::string> present = job_ids(found);
  for (auto it = empty_since.begin(); it != empty_since.end();)
    it = present.count(it->first) ? std::next(it) : empty_since.erase(it);
}

void Sampler::Impl::empty_at_first_sight(const std::string& id, double now) {
  auto [since, fresh] = empty_since.emplace(id, now);
  if (fresh || now - since->second < kStartGraceSeconds) return;
  empty_since.erase(since);
  leftovers.insert(id);
}

JobSample Sampler::Impl::final_sample(const JobState& state) const {
  JobSample out = *state.latest;
  if (out.cpu_time_total) {
    if (auto rate = state.rate.since_base(*out.cpu_time_total, state.latest_read_time, kMinFinalRateSeconds))
      out.cpu_percent = rate;
  }
  return out;
}

std::vector<JobSample> Sampler::Impl::watch(double now) {
  watching = true;
  slow.begin_pass();
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
    JobState& state = state_of(cg.job_id);
    prepare(cg, state, now);
    if (excluded(state)) continue;
    std::optional<JobSample> sample = sample_job(cg, state, now, false, nullptr);
    if (!sample) continue;
    if (sample->processes == 0) {
      jobs.erase(cg.job_id);
      empty_at_first_sight(cg.job_id, now);
      continue;
    }
    empty_since.erase(cg.job_id);
    state.latest = *sample;
    state.latest_read_time = now;
    started.push_back(std::move(*sample));
  }
  last_readings = std::move(readings);
  forget_empty_gone(found);
  return started;
}

std::vector<JobSample> Sampler::Impl::sample(double now) {
  slow.begin_pass();
  std::vector<JobCgroups> found = layout->discover(cgroups.root_fd(), errors);
  forget_empty_gone(found);
  // With the watch running, a job whose cgroups are gone is ended by the
  // next watch, which can tell what it used after its last reading.
  if (!watching) end_gone_jobs(found, nullptr, now);

  // Facts that need no process, for every job before any is sampled, since
  // v2 per-core attribution must know which cpusets are shared.
  for (const JobCgroups& cg : found) prepare(cg, state_of(cg.job_id), now);

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
      const JobState& state = jobs.at(cg.job_id);
      if (state.facts.cpus)
        for (int c : *state.facts.cpus) ++jobs_per_cpu[c];
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
    JobState& state = jobs.at(cg.job_id);
    if (excluded(state)) continue;
    bool exclusive = false;
    const std::optional<std::vector<int>>& cpus = state.facts.cpus;
    if (cg.version == CgroupVersion::V2 && cpus && !cpus->empty()) {
      exclusive = std::all_of(cpus->begin(), cpus->end(), [&](int c) { return jobs_per_cpu[c] == 1; });
    }
    const std::vector<std::uint64_t>* busy = cpu_busy_delta.empty() ? nullptr : &cpu_busy_delta;
    std::optional<JobSample> sample = sample_job(cg, state, now, exclusive, busy);
    if (sample && went_backwards(cg.job_id, state, sample->cpu_time_total)) {
      state = new_job();
      prepare(cg, state, now);
      sample = sample_job(cg, state, now, exclusive, busy);
    }
    if (!sample) continue;
    // A cgroup without processes is not a running job: one that just ended
    // (its last readings are these), or one Slurm left behind.
    if (sample->processes == 0) {
      bool was_running = state.latest.has_value();
      if (was_running) ended.push_back(std::move(*sample));
      jobs.erase(cg.job_id);
      if (was_running)
        leftovers.insert(cg.job_id);
      else
        empty_at_first_sight(cg.job_id, now);
      continue;
    }
    leftovers.erase(cg.job_id);
    empty_since.erase(cg.job_id);
    state.latest = *sample;
    state.latest_read_time = now;
    samples.push_back(std::move(*sample));
  }
  // What this pass did not read belongs to processes and cgroups that are gone.
  cgroups.end_pass();
  procfs.end_pass();
  slow.end_pass();
  return samples;
}

}  // namespace petricore::collect
