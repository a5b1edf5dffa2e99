// The fleet view: how efficiently groups of finished jobs (per user, account
// or partition) used what they were allocated over a period, summed from the
// job archive (sources/archive_efficiency.hpp). The JSON of
// /api/v1/efficiency, the /efficiency page, `report --user/--account` and
// the users' digests all render this one value.
//
// Meanings (every job counts with its elapsed time, end - start; a job that
// never started counts 0 hours):
// * core-hours allocated: alloc_cpus x elapsed;
// * core-hours used: the job's CPU time (petricore's samples, else Slurm's
//   TotalCPU) / 3600;
// * CPU efficiency: used / allocated over the jobs whose CPU time is known;
// * core-hours wasted: allocated - used over those same jobs, never below 0
//   per job;
// * memory GB-hours requested: alloc_mem x elapsed; used: the resident peak
//   x elapsed (the peak stands for the whole run: an upper bound of use);
// * GPU-hours allocated: alloc_gpus x elapsed; idle: allocated x (1 - the
//   job's mean utilisation per GPU), over the jobs whose utilisation is known.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace petricore::model {

// What the fleet view groups by.
enum class EfficiencyGrouping { User, Account, Partition };

struct EfficiencyTotals {
  std::int64_t jobs = 0;
  double core_hours_allocated = 0;
  double core_hours_used = 0;
  std::optional<double> cpu_efficiency_percent;  // absent when no job has a known CPU time
  double core_hours_wasted = 0;
  double memory_gb_hours_requested = 0;
  double memory_gb_hours_used = 0;
  double gpu_hours_allocated = 0;
  double gpu_hours_idle = 0;
  std::map<std::string, std::int64_t> jobs_by_finding;  // rule -> jobs with that finding
};

struct EfficiencyGroup {
  std::string name;  // the user, the account or the partition
  EfficiencyTotals totals;
};

// One of the jobs that wasted most core-hours.
struct WastefulJob {
  std::int64_t job_id = 0;  // the numeric id (links: /jobs/<job_id>)
  std::string display_id;   // as Slurm prints it: 123_4
  std::string name;
  std::string user;
  std::string account;
  std::string partition;
  std::int64_t end = 0;  // epoch seconds
  double core_hours_allocated = 0;
  double core_hours_wasted = 0;
  std::optional<double> cpu_efficiency_percent;
};

// The totals of the jobs that ended in one stretch [start, start + length).
struct EfficiencyPoint {
  std::int64_t start = 0;  // epoch seconds
  EfficiencyTotals totals;
};

struct FleetEfficiency {
  EfficiencyGrouping by = EfficiencyGrouping::Account;
  std::int64_t since = 0;  // epoch seconds, jobs that ended in [since, until)
  std::int64_t until = 0;
  std::optional<std::string> user;         // only this user's jobs, when set
  std::vector<std::string> accounts;       // only these accounts' jobs, when not empty
  EfficiencyTotals total;                  // over every job counted
  std::vector<EfficiencyGroup> groups;     // most core-hours wasted first
  std::vector<WastefulJob> worst_jobs;     // most core-hours wasted first
  std::int64_t point_seconds = 86400;      // the stretch of each point below
  std::vector<EfficiencyPoint> over_time;  // oldest first, stretches without jobs left out
};

// "user", "account", "partition".
const char* grouping_name(EfficiencyGrouping by);
// nullopt for any other word.
std::optional<EfficiencyGrouping> parse_grouping(const std::string& word);

}  // namespace petricore::model
