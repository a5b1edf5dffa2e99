// The job archive's schema, versioned: each version is a migration from the
// one before, applied in order and recorded in archive_meta's
// schema_version. The same statements serve SQLite and MariaDB (type names
// both accept: BIGINT, DOUBLE, VARCHAR, MEDIUMBLOB). An archive
// whose version is newer than this petricore knows is refused, never
// written to: an older petricore would misread it.
#pragma once

#include "core/result.hpp"
#include "model/archived_job.hpp"
#include "sources/sql_database.hpp"

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace petricore::sources {

struct ArchiveMigration {
  int version;                          // the version the archive has once this ran
  std::vector<std::string> statements;  // one statement each (MariaDB runs one at a time)
  // Run after the statements, in the same transaction: what SQL cannot say
  // in the same words to both databases, or at all (DROP INDEX, parsing).
  Result<bool> (*then)(SqlDatabase& db) = nullptr;
};

// Every version this petricore knows, oldest first.
const std::vector<ArchiveMigration>& archive_migrations();

// Brings the archive to the last version of `migrations` (default: every
// known one) and returns the version it had before (0: empty). BadInput
// when the archive is newer; Unavailable when the database fails. Each
// migration and its version record are one transaction where the database
// makes DDL transactional (SQLite; MariaDB commits DDL at once, so a
// migration that fails half-way there is reported with its version).
Result<int> migrate_archive(SqlDatabase& db, const std::vector<ArchiveMigration>& migrations = archive_migrations());

// The version the archive has now (0: empty, never migrated).
Result<int> archive_version(SqlDatabase& db);

// Whether `db` is SQLite, as its describe() says ("sqlite at ..."), for the
// few words the two say differently (DROP INDEX, index hints).
bool is_sqlite(const SqlDatabase& db);

// A record's findings as archived_jobs.findings holds them,
// "rule:severity,rule:severity" (rules and severities are identifiers), and back.
using ArchivedFindings = std::vector<std::pair<std::string, std::string>>;
std::string findings_text(const ArchivedFindings& findings);
ArchivedFindings parse_findings(const std::string& text);

// What a record adds to the fleet view's sums (model/fleet_efficiency.hpp
// states the meanings), worked out once when it is written: since schema
// version 2 these are archived_jobs' columns of the same names, in the
// covering indexes, so that the sums are plain SUMs over them.
struct JobFigures {
  std::int64_t core_s = 0;        // core-seconds allocated: alloc_cpus x elapsed (0 if it never started)
  std::int64_t core_s_known = 0;  // the same where the CPU time is known, else 0
  double core_s_wasted = 0;       // core_s - CPU time where that is known, never below 0
  double mem_mb_s_requested = 0;  // alloc_mem (MB) x elapsed
  double mem_mb_s_used = 0;       // resident peak (MB) x elapsed
  std::int64_t gpu_s = 0;         // GPU-seconds allocated: alloc_gpus x elapsed
  double gpu_s_idle = 0;          // gpu_s x (1 - mean utilisation) where that is known, else 0
};
JobFigures job_figures(const model::ArchivedJob& job);

// Since schema version 2 each rule a finding names has a bit of
// archived_jobs.finding_mask, the one archive_findings gave it when the
// archive first met the rule, never changed after: the fleet view counts
// jobs per finding from the masks. 63 bits (the mask stays a positive
// BIGINT): a 64th rule and those after it stay in the findings text but are
// counted nowhere, as is a rule name longer than 64 bytes.
constexpr int kFindingBits = 63;
// Every rule's bit.
Result<std::map<std::string, int>> finding_bits(SqlDatabase& db);
// The bit of `rule`, given one now when it has none (another writer that
// gives it first wins); nullopt when it can have none.
Result<std::optional<int>> finding_bit(SqlDatabase& db, const std::string& rule);

}  // namespace petricore::sources
