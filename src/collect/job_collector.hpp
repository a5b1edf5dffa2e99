// One source of job facts, in node_exporter's manner: cgroup CPU, cgroup
// memory, the cpuset, the processes' /proc files, the job environment. Each
// is one JobCollector; the sampler runs them in the order make_job_collectors()
// (job_collectors.hpp) lists them, for every job in every full pass, and
// handles the jobs' lives (discovery, the watch, ends, reused cgroups) around
// them. A collector reads through the readers it was built with, which count
// its errors by source; one source failing leaves the others' values.
#pragma once

#include "collect/cpu_rate.hpp"
#include "collect/job_sample.hpp"
#include "collect/layout.hpp"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace petricore::collect {

// Facts that hold for a job's life, each read until known, then kept. The
// sampler needs them itself: the uid to skip excluded users' jobs, the CPUs to
// tell which cpusets are shared and to share the time of jobs that end
// together. It copies them into every sample.
struct JobFacts {
  std::optional<unsigned> uid;
  std::string user;                      // login name, or the uid as text
  std::optional<std::vector<int>> cpus;  // absent until read; empty when the job has no cpuset
  std::string account;
  std::vector<std::string> gpus;
  // SLURM_JOB_ID of the job's environment (decimal digits), empty until
  // read: the id a job whose directory is named by its SLUID is exported as.
  std::string slurm_job_id;
};

// What the walk over the job's processes found that later collectors use,
// so that no /proc file is read twice. Reused from job to job.
struct ProcessFindings {
  std::vector<int> pids;  // processes read this pass, slurmstepd left out, in listing order
  // v2: the USER_HZ ticks the job's processes used since the previous pass,
  // by the CPU each last ran on.
  std::unordered_map<int, double> ticks_by_cpu;
  std::optional<std::uint64_t> resident_bytes;  // anon + shmem of them all, when the job has no memory cgroup

  void clear() {
    pids.clear();
    ticks_by_cpu.clear();
    resident_bytes.reset();
  }
};

// One job, in one pass, as the collectors see it.
struct JobContext {
  const JobCgroups& cgroups;
  double now;  // monotonic seconds
  JobFacts& facts;
  CpuRate& rate;  // jobs_cpu_percent's base, which the job's final sample uses too
  // Full passes only.
  bool exclusive_cpuset = false;                               // v2: no other job shares one of its CPUs
  const std::vector<std::uint64_t>* cpu_busy_delta = nullptr;  // /proc/stat busy ticks since the last pass, by CPU id
  ProcessFindings* processes = nullptr;
};

// What a collector keeps of one job between passes; it goes with the job.
class JobCollectorState {
 public:
  virtual ~JobCollectorState() = default;
};

class JobCollector {
 public:
  virtual ~JobCollector() = default;

  // The state of a job seen for the first time (or sampled afresh in a reused
  // cgroup); null when the collector keeps none.
  virtual std::unique_ptr<JobCollectorState> new_job() const { return nullptr; }
  // Facts that need no process, read for every job of a full pass before any
  // job is sampled (and for a job the watch sees start).
  virtual void prepare(JobContext& /*job*/, JobCollectorState* /*state*/) {}
  // A full pass: reads the source into `out`.
  virtual void collect(JobContext& job, JobCollectorState* state, JobSample& out) = 0;
  // The watch's light pass between full passes: the job cgroup's own files
  // only, into the job's latest sample; a value that cannot be read keeps its
  // last reading.
  virtual void refresh(JobContext& /*job*/, JobCollectorState* /*state*/, JobSample& /*latest*/) {}
};

// A collector that keeps a `State` per job: the casts said once.
template <class State>
class JobCollectorWith : public JobCollector {
 public:
  std::unique_ptr<JobCollectorState> new_job() const final { return std::make_unique<Held>(); }
  void prepare(JobContext& job, JobCollectorState* state) final { prepare_job(job, of(state)); }
  void collect(JobContext& job, JobCollectorState* state, JobSample& out) final { collect_job(job, of(state), out); }
  void refresh(JobContext& job, JobCollectorState* state, JobSample& latest) final {
    refresh_job(job, of(state), latest);
  }

 protected:
  virtual void prepare_job(JobContext& /*job*/, State& /*state*/) {}
  virtual void collect_job(JobContext& job, State& state, JobSample& out) = 0;
  virtual void refresh_job(JobContext& /*job*/, State& /*state*/, JobSample& /*latest*/) {}

 private:
  struct Held : JobCollectorState {
    State state;
  };
  static State& of(JobCollectorState* state) { return static_cast<Held*>(state)->state; }
};

}  // namespace petricore::collect
