// The job archive (model/archived_job.hpp): every finished job's record,
// kept beyond Prometheus's retention, in an SQL database of the site's
// choice: an SQLite file (the default, no set-up) or a MariaDB database that
// several `serve` instances share. Records are immutable: storing a job
// again writes its next version, and readers see the newest. One archive
// object per connection; not for concurrent use.
#pragma once

#include "core/result.hpp"
#include "model/archived_job.hpp"
#include "sources/sql_database.hpp"

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace petricore::sources {

class JobArchive {
 public:
  // The archive of `cluster` in `db`, whose schema must be current
  // (migrate_archive). The database outlives the archive object.
  JobArchive(SqlDatabase& db, std::string cluster);

  // Stores `job` (its job.raw_id numeric) as its next version and puts that
  // version in force (the one latest(), jobs_of_user and the fleet view
  // read), and returns it. Writing the record is one statement and moving
  // the version in force one more, so that readers see one version of a
  // job, never two or none, without a transaction of its own: a caller's
  // (a batch of jobs) may hold it. Should the second statement fail, the error says so, the version
  // before stays in force, and storing again puts a newer one in force. A
  // writer that lost the race for a version to another (two serve
  // instances) tries the next one. BadInput for a record without a numeric
  // id or an end.
  Result<int> store(const model::ArchivedJob& job);
  // Stores `job` as its first version, or nothing when the archive has it
  // already (another archiver was first): 1, or 0 for nothing stored. The
  // archivers' way, so that two of them never store a job twice.
  Result<int> store_first(const model::ArchivedJob& job);

  // The version in force (the newest) of job `job_id` (the numeric id), with
  // its JSON and series; nullopt when the archive does not have it.
  Result<std::optional<model::ArchivedJob>> latest(std::int64_t job_id);
  // Every version of it, oldest first, without the JSON and the series.
  Result<std::vector<model::ArchivedJob>> versions(std::int64_t job_id);
  // Whether the archive has the job at all (the archiver's "done already").
  Result<bool> has(std::int64_t job_id);

  // The version in force of each of `user`'s jobs that ended in
  // [since, until), newest first, at most `limit`, without JSON and series.
  Result<std::vector<model::ArchivedJob>> jobs_of_user(const std::string& user, std::int64_t since, std::int64_t until,
                                                       std::size_t limit);

  // A named value the archiver keeps between runs (its watermark).
  Result<std::optional<std::string>> setting(const std::string& name);
  Result<bool> set_setting(const std::string& name, const std::string& value);

 private:
  Result<int> store_version(const model::ArchivedJob& job, bool first_only);
  // The bits of its findings' rules (archive_schema.hpp), given them when new.
  Result<std::int64_t> finding_mask(const model::ArchivedJob& job);

  SqlDatabase& db_;
  std::string cluster_;
  std::map<std::string, int> finding_bits_;  // those met so far: a rule's bit never changes
};

}  // namespace petricore::sources
