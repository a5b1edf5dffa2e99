// The job archive's schema, versioned: each version is a migration from the
// one before, applied in order and recorded in archive_meta's
// schema_version. The same statements serve SQLite and MariaDB (type names
// both accept: BIGINT, DOUBLE, VARCHAR, MEDIUMBLOB). An archive
// whose version is newer than this petricore knows is refused, never
// written to: an older petricore would misread it.
#pragma once

#include "core/result.hpp"
#include "sources/sql_database.hpp"

#include <string>
#include <vector>

namespace petricore::sources {

struct ArchiveMigration {
  int version;                          // the version the archive has once this ran
  std::vector<std::string> statements;  // one statement each (MariaDB runs one at a time)
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

}  // namespace petricore::sources
