// The fleet view's sums (model/fleet_efficiency.hpp, whose header states
// every meaning) over the job archive (job_archive.hpp): the version in
// force of each job of one cluster that ended in the window, added up in
// the database (GROUP BY over archive_schema's covering indexes), never
// fetched job by job. Memory in GB is the archive's MB (Slurm's, MiB) over
// 1024.
#pragma once

#include "core/result.hpp"
#include "model/fleet_efficiency.hpp"
#include "sources/sql_database.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace petricore::sources {

struct EfficiencyQuery {
  model::EfficiencyGrouping by = model::EfficiencyGrouping::Account;
  std::int64_t since = 0, until = 0;   // epoch seconds: jobs whose end is in [since, until)
  std::optional<std::string> user;     // only this user's jobs
  std::vector<std::string> accounts;   // only these accounts' jobs (empty: all)
  std::size_t worst_jobs = 10;         // how many of the most wasteful jobs
  std::int64_t point_seconds = 86400;  // the stretch of each over_time point
};

// The fleet view of `cluster`'s archived jobs, from an archive of the
// current schema (migrate_archive). The worst jobs are those that wasted
// any core-hours (a job whose CPU time is unknown wasted none); a group's or
// a point's CPU efficiency is absent too where the jobs with a known CPU
// time were allocated no core-hours (none started). BadInput when until is
// before since or point_seconds is not positive; Unavailable when the
// database fails.
Result<model::FleetEfficiency> fleet_efficiency(SqlDatabase& db, const std::string& cluster, const EfficiencyQuery& q);

}  // namespace petricore::sources
