#include "collect/environ_collector.hpp"

#include "collect/error_counter.hpp"
#include "collect/kernel_formats.hpp"
#include "core/passwd.hpp"
#include "model/job_id.hpp"

#include <charconv>
#include <string_view>

namespace petricore::collect {

namespace {

constexpr int kEnvironReadsPerPass = 3;
constexpr int kMaxEnvironReads = 24;

std::string user_name(unsigned uid) {
  return user_name_of_uid(uid).value_or(std::to_string(uid));
}

std::optional<unsigned> parse_uid(std::string_view text) {
  unsigned value = 0;
  auto r = std::from_chars(text.data(), text.data() + text.size(), value);
  if (r.ec != std::errc{} || r.ptr != text.data() + text.size()) return std::nullopt;
  return value;
}

}  // namespace

void EnvironCollector::read_environ(int pid, EnvironState& state, JobFacts& facts) {
  SlowReads::Got got = slow_.environ(pid, env_);
  if (got == SlowReads::Got::Skipped) return;  // tried again later
  ++state.reads;
  const std::string* env = got == SlowReads::Got::Read ? &env_ : nullptr;
  if (!env || !environ_value(*env, "SLURM_JOB_ID")) {
    state.tried.insert(pid);
    return;
  }
  if (auto gpus = environ_value(*env, "SLURM_JOB_GPUS"))
    facts.gpus = split_gpu_list(*gpus);
  else if (auto step_gpus = environ_value(*env, "SLURM_STEP_GPUS"))
    facts.gpus = split_gpu_list(*step_gpus);
  if (auto account = environ_value(*env, "SLURM_JOB_ACCOUNT")) facts.account = *account;
  if (!facts.uid) {
    // The kernel's word over the job's: a process may claim any
    // SLURM_JOB_UID in its environment, but not another owner. Only a root
    // process's claim is believed (slurmstepd's, whose owner says nothing).
    const std::optional<unsigned> owner = procfs_.owner_uid(pid);
    if (owner && *owner != 0) {
      facts.uid = owner;
    } else if (auto uid = environ_value(*env, "SLURM_JOB_UID")) {
      facts.uid = parse_uid(*uid);
    }
  }
  // The job's own numeric id: a plain number (an array task's or het
  // component's SLURM_JOB_ID is its own job id), anything else is ignored.
  if (auto id = model::parse_job_id(*environ_value(*env, "SLURM_JOB_ID")); id && !id->array_task && !id->het_component)
    facts.slurm_job_id = std::to_string(id->job);
  state.found = true;
  // Each pid is read once while the number is still wanted.
  if (facts.slurm_job_id.empty())
    state.tried.insert(pid);
  else
    state.tried.clear();
}

void EnvironCollector::collect_job(JobContext& job, EnvironState& state, JobSample& /*out*/) {
  JobFacts& facts = job.facts;
  // A SLUID job without its number is exported under the SLUID: worth more
  // reads than a job that merely lacks its account.
  auto number_missing = [&] { return !job.cgroups.sluid.empty() && facts.slurm_job_id.empty(); };
  int reads_this_pass = 0;
  // Process by process, the environment before the owner: a job's own
  // SLURM_JOB_UID wins over the owner of a process seen later.
  for (int pid : job.processes->pids) {
    bool wanted = (!state.found && state.reads < kMaxEnvironReads) || number_missing();
    if (wanted && reads_this_pass < kEnvironReadsPerPass && !state.tried.count(pid) && !slow_.blocked(pid)) {
      ++reads_this_pass;
      read_environ(pid, state, facts);
    }
    if (!facts.uid) facts.uid = procfs_.owner_uid(pid);
  }
  if (facts.uid && facts.user.empty()) facts.user = user_name(*facts.uid);
  if (number_missing() && !job.processes->pids.empty()) {
    errors_.count(error_source::environ, "SLUID job without SLURM_JOB_ID",
                  "job " + job.cgroups.sluid +
                      ": no process environment with SLURM_JOB_ID could be read; exported under its SLUID until one "
                      "can");
  }
}

}  // namespace petricore::collect
