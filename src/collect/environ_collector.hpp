// Who the job is and what it was given, from its processes (after the
// ProcessCollector, whose pids it walks): account and GPUs from the Slurm
// variables of a job process's /proc/<pid>/environ (SLURM_JOB_ACCOUNT,
// SLURM_JOB_GPUS else SLURM_STEP_GPUS), the uid from the owner of
// /proc/<pid> (v2 paths carry no uid; SLURM_JOB_UID only from a process
// root runs, since a job may put any value in its environment but cannot
// change who owns its processes), and the user's login
// name. Each is read until known, then kept in JobFacts. Environments are
// read at most a few per pass and a few dozen in the job's life: other
// schedulers, and jobs whose processes all came through pam_slurm_adopt,
// have no Slurm environment at all.
//
// The environments are read through SlowReads (they can wait on a hung
// filesystem); a process skipped there in this pass is not tried, and one
// whose read was skipped for lack of time is tried again in a later pass.
//
// A job whose cgroup is named by its SLUID (Slurm 26.05) needs SLURM_JOB_ID
// for its numeric id: until one of its processes' environments gives it,
// each pass counts an "environ" error for the job, and its environments are
// read past the lifetime cap (still a few per pass, each pid once).
#pragma once

#include "collect/job_collector.hpp"
#include "collect/procfs_reader.hpp"
#include "collect/slow_reads.hpp"

#include <unordered_set>

namespace petricore::collect {

class ErrorCounter;

struct EnvironState {
  bool found = false;
  int reads = 0;
  std::unordered_set<int> tried;  // pids whose environment had no job variables
};

class EnvironCollector final : public JobCollectorWith<EnvironState> {
 public:
  // Counts its errors where `procfs` does.
  EnvironCollector(ProcfsReader& procfs, SlowReads& slow) : procfs_(procfs), slow_(slow), errors_(procfs.errors()) {}

 protected:
  void collect_job(JobContext& job, EnvironState& state, JobSample& out) override;

 private:
  void read_environ(int pid, EnvironState& state, JobFacts& facts);

  ProcfsReader& procfs_;
  SlowReads& slow_;
  ErrorCounter& errors_;
  std::string env_;  // reused
};

}  // namespace petricore::collect
