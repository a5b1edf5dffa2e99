#include "sources/archive_schema.hpp"

#include <charconv>

namespace petricore::sources {

const std::vector<ArchiveMigration>& archive_migrations() {
  // Version 1. archived_jobs: one row per (cluster, job, version); nothing
  // is ever updated. The columns the fleet view filters and sums are plain
  // columns; the rest of what the job showed is its JSON and its series.
  static const std::vector<ArchiveMigration> migrations = {
      {1,
       {"CREATE TABLE archived_jobs ("
        " cluster VARCHAR(64) NOT NULL,"
        " job_id BIGINT NOT NULL,"  // the numeric id (JobIDRaw)
        " version INT NOT NULL,"
        " display_id VARCHAR(64) NOT NULL,"  // as Slurm prints it: 123_4
        " name VARCHAR(255) NOT NULL,"
        " user_name VARCHAR(64) NOT NULL,"
        " uid BIGINT,"
        " account VARCHAR(64) NOT NULL,"
        " partition_name VARCHAR(64) NOT NULL,"
        " state VARCHAR(32) NOT NULL,"
        " submit_time BIGINT,"
        " start_time BIGINT,"
        " end_time BIGINT NOT NULL,"
        " time_limit_s BIGINT,"
        " alloc_cpus INT NOT NULL,"
        " alloc_mem_mb DOUBLE,"
        " alloc_nodes INT NOT NULL,"
        " node_list VARCHAR(1024) NOT NULL,"
        " alloc_gpus INT NOT NULL,"
        " cpu_time_s DOUBLE,"
        " memory_resident_mb DOUBLE,"
        " gpu_utilization_mean DOUBLE,"
        " findings VARCHAR(1024) NOT NULL,"  // rule:severity,...
        " warning INT NOT NULL,"
        " from_metrics INT NOT NULL,"
        " archived_at BIGINT NOT NULL,"
        " usage_json_z MEDIUMBLOB NOT NULL,"  // the job JSON, zlib-compressed (a fifth of its size)
        " series MEDIUMBLOB,"
        " PRIMARY KEY (cluster, job_id, version))",
        "CREATE INDEX archived_jobs_end ON archived_jobs (cluster, end_time)",
        "CREATE INDEX archived_jobs_user ON archived_jobs (cluster, user_name, end_time)",
        "CREATE INDEX archived_jobs_account ON archived_jobs (cluster, account, end_time)",
        "CREATE INDEX archived_jobs_partition ON archived_jobs (cluster, partition_name, end_time)"}},
  };
  return migrations;
}

namespace {

constexpr const char* kMeta =
    "CREATE TABLE IF NOT EXISTS archive_meta (name VARCHAR(64) NOT NULL PRIMARY KEY, value VARCHAR(255) NOT NULL)";

}  // namespace

Result<int> archive_version(SqlDatabase& db) {
  auto meta = db.run(kMeta);
  if (!meta) return meta.error();
  auto rows = db.run("SELECT value FROM archive_meta WHERE name = ?", {std::string("schema_version")});
  if (!rows) return rows.error();
  if (rows->rows.empty() || !rows->rows[0][0]) return 0;
  const std::string& text = *rows->rows[0][0];
  int version = 0;
  auto r = std::from_chars(text.data(), text.data() + text.size(), version);
  if (r.ec != std::errc{} || r.ptr != text.data() + text.size() || version < 0)
    return unavailable(db.describe() + ": archive_meta schema_version is '" + text + "', not a version");
  return version;
}

Result<int> migrate_archive(SqlDatabase& db, const std::vector<ArchiveMigration>& migrations) {
  auto before = archive_version(db);
  if (!before) return before;
  const int known = migrations.empty() ? 0 : migrations.back().version;
  if (*before > known)
    return bad_input(db.describe() + ": the archive has schema version " + std::to_string(*before) +
                     ", newer than this petricore's " + std::to_string(known) + ": upgrade petricore");
  int now = *before;
  for (const ArchiveMigration& m : migrations) {
    if (m.version <= now) continue;
    auto fail = [&](const Error& e) {
      db.run("ROLLBACK");
      return unavailable(e.message + " (migrating the archive to schema version " + std::to_string(m.version) + ")");
    };
    if (auto begin = db.run("BEGIN"); !begin) return fail(begin.error());
    for (const std::string& statement : m.statements)
      if (auto done = db.run(statement); !done) return fail(done.error());
    auto recorded = db.run("REPLACE INTO archive_meta (name, value) VALUES (?, ?)",
                           {std::string("schema_version"), std::to_string(m.version)});
    if (!recorded) return fail(recorded.error());
    if (auto commit = db.run("COMMIT"); !commit) return fail(commit.error());
    now = m.version;
  }
  return *before;
}

}  // namespace petricore::sources
