// Who the job is and what it was given, from its processes (after the
// ProcessCollector, whose pids it walks): account and GPUs from the Slurm
// variables of a job process's /proc/<pid>/environ (SLURM_JOB_ACCOUNT,
// SLURM_JOB_GPUS else SLURM_STEP_GPUS), the uid from SLURM_JOB_UID or else
// the owner of /proc/<pid> (v2 paths carry no uid), and the user's login
// name. Each is read until known, then kept in JobFacts. Environments are
// read at most a few per pass and a few dozen in the job's life: other
// schedulers, and jobs whose processes all came through pam_slurm_adopt,
// have no Slurm environment at all.
#pragma once

#include "collect/job_collector.hpp"
#include "collect/procfs_reader.hpp"

#include <unordered_set>

namespace petricore::collect {

struct EnvironState {
  bool found = false;
  int reads = 0;
  std::unordered_set<int> tried;  // pids whose environment had no job variables
};

class EnvironCollector final : public JobCollectorWith<EnvironState> {
 public:
  explicit EnvironCollector(ProcfsReader& procfs) : procfs_(procfs) {}

 protected:
  void collect_job(JobContext& job, EnvironState& state, JobSample& out) override;

 private:
  void read_environ(int pid, EnvironState& state, JobFacts& facts);

  ProcfsReader& procfs_;
};

}  // namespace petricore::collect
