#include "sources/archive_schema.hpp"

#include <algorithm>
#include <charconv>
#include <set>

namespace petricore::sources {
namespace {

Result<bool> finish_version_2(SqlDatabase& db);

}  // namespace

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
      // Version 2: what the fleet view sums, read cheaply. `latest` is 1 on
      // the version of a job in force (its newest, JobArchive::store), 0 on
      // those it superseded; finding_mask has the bits of the rules its
      // findings name (archive_findings); the figures it adds to the sums
      // (JobFigures) are columns. Two covering indexes, one from the window
      // (cluster, latest, end_time), one from a user's window, hold every
      // column the sums read, so that they read no record; they replace
      // version 1's four indexes (finish_version_2, which also works out
      // the masks and figures of the records version 1 kept).
      {2,
       {"ALTER TABLE archived_jobs ADD COLUMN latest INT NOT NULL DEFAULT 1",
        "ALTER TABLE archived_jobs ADD COLUMN finding_mask BIGINT NOT NULL DEFAULT 0",
        "ALTER TABLE archived_jobs ADD COLUMN core_s BIGINT NOT NULL DEFAULT 0",
        "ALTER TABLE archived_jobs ADD COLUMN core_s_known BIGINT NOT NULL DEFAULT 0",
        "ALTER TABLE archived_jobs ADD COLUMN core_s_wasted DOUBLE NOT NULL DEFAULT 0",
        "ALTER TABLE archived_jobs ADD COLUMN mem_mb_s_requested DOUBLE NOT NULL DEFAULT 0",
        "ALTER TABLE archived_jobs ADD COLUMN mem_mb_s_used DOUBLE NOT NULL DEFAULT 0",
        "ALTER TABLE archived_jobs ADD COLUMN gpu_s BIGINT NOT NULL DEFAULT 0",
        "ALTER TABLE archived_jobs ADD COLUMN gpu_s_idle DOUBLE NOT NULL DEFAULT 0",
        "UPDATE archived_jobs SET latest = 0 WHERE version < (SELECT MAX(b.version) FROM archived_jobs b"
        " WHERE b.cluster = archived_jobs.cluster AND b.job_id = archived_jobs.job_id)",
        "CREATE TABLE archive_findings (bit INT NOT NULL PRIMARY KEY, rule VARCHAR(64) NOT NULL UNIQUE)"},
       finish_version_2},
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

namespace {

// The columns the fleet view's sums read (archive_efficiency.cpp), after
// the columns each index is searched by: InnoDB's limit is 16 a key.
constexpr const char* kSummedColumns =
    "core_s, core_s_known, cpu_time_s, core_s_wasted, mem_mb_s_requested, mem_mb_s_used, gpu_s, gpu_s_idle, "
    "finding_mask, job_id";
// "rule:%" and "%,rule:%" for LIKE ... ESCAPE '!': the rule's own _ and %
// are letters, and the comma before it keeps memory_low from matching
// gpu_memory_low.
std::pair<std::string, std::string> finding_patterns(const std::string& rule) {
  std::string escaped;
  for (char c : rule) {
    if (c == '_' || c == '%' || c == '!') escaped += '!';
    escaped += c;
  }
  return {escaped + ":%", "%," + escaped + ":%"};
}

// job_figures in SQL, over a record's columns, for the records version 1
// kept (the migration's test holds the two to the same figures).
std::string figures_of_version_1() {
  const std::string elapsed =
      "(CASE WHEN start_time IS NOT NULL AND end_time > start_time THEN end_time - start_time ELSE 0 END)";
  const std::string core_s = "alloc_cpus * " + elapsed;
  const std::string gpu_s = "alloc_gpus * " + elapsed;
  return "UPDATE archived_jobs SET core_s = " + core_s + ", core_s_known = CASE WHEN cpu_time_s IS NULL THEN 0 ELSE " +
         core_s + " END" + ", core_s_wasted = CASE WHEN cpu_time_s IS NOT NULL AND " + core_s + " > cpu_time_s THEN " +
         core_s + " - cpu_time_s ELSE 0 END" + ", mem_mb_s_requested = COALESCE(alloc_mem_mb, 0) * " + elapsed +
         ", mem_mb_s_used = COALESCE(memory_resident_mb, 0) * " + elapsed + ", gpu_s = " + gpu_s +
         ", gpu_s_idle = CASE WHEN gpu_utilization_mean IS NULL OR gpu_utilization_mean >= 100 THEN 0"
         " WHEN gpu_utilization_mean <= 0 THEN " +
         gpu_s + " ELSE " + gpu_s + " * (100 - gpu_utilization_mean) / 100 END";
}

// Version 2, after its statements: the figures and masks of the records
// version 1 kept (one UPDATE for the figures, one per rule their findings
// name); version 1's indexes out, the covering ones in (last, so that they
// are built once).
Result<bool> finish_version_2(SqlDatabase& db) {
  if (auto figures = db.run(figures_of_version_1()); !figures) return figures.error();
  auto texts = db.run("SELECT DISTINCT findings FROM archived_jobs WHERE findings <> ''");
  if (!texts) return texts.error();
  std::set<std::string> rules;
  for (const SqlRow& row : texts->rows)
    for (const auto& finding : parse_findings(row[0].value_or(""))) rules.insert(finding.first);
  for (const std::string& rule : rules) {
    auto bit = finding_bit(db, rule);
    if (!bit) return bit.error();
    if (!*bit) continue;
    auto [first, later] = finding_patterns(rule);
    auto set = db.run(
        "UPDATE archived_jobs SET finding_mask = finding_mask | ? WHERE findings LIKE ? ESCAPE '!'"
        " OR findings LIKE ? ESCAPE '!'",
        {std::int64_t{1} << **bit, first, later});
    if (!set) return set.error();
  }
  // DROP INDEX names the table on MariaDB and must not on SQLite.
  const bool sqlite = is_sqlite(db);
  for (const char* index :
       {"archived_jobs_end", "archived_jobs_user", "archived_jobs_account", "archived_jobs_partition"}) {
    auto dropped = db.run(std::string("DROP INDEX ") + index + (sqlite ? "" : " ON archived_jobs"));
    if (!dropped) return dropped.error();
  }
  for (const std::string& index :
       {std::string("CREATE INDEX archived_jobs_window ON archived_jobs (cluster, latest, end_time, user_name, "
                    "account, partition_name, ") +
            kSummedColumns + ")",
        std::string("CREATE INDEX archived_jobs_user_window ON archived_jobs (cluster, latest, user_name, end_time, "
                    "account, partition_name, ") +
            kSummedColumns + ")"}) {
    auto created = db.run(index);
    if (!created) return created.error();
  }
  return true;
}

}  // namespace

bool is_sqlite(const SqlDatabase& db) {
  return db.describe().rfind("sqlite", 0) == 0;
}

JobFigures job_figures(const model::ArchivedJob& a) {
  const model::JobRecord& j = a.job;
  const std::int64_t elapsed = j.start && j.end && *j.end > *j.start ? *j.end - *j.start : 0;
  JobFigures f;
  f.core_s = std::int64_t{j.alloc_cpus} * elapsed;
  if (a.cpu_time_seconds) {
    f.core_s_known = f.core_s;
    f.core_s_wasted = std::max(0.0, static_cast<double>(f.core_s) - *a.cpu_time_seconds);
  }
  f.mem_mb_s_requested = j.alloc_mem_mb.value_or(0) * static_cast<double>(elapsed);
  f.mem_mb_s_used = a.memory_resident_mb.value_or(0) * static_cast<double>(elapsed);
  f.gpu_s = std::int64_t{j.alloc_gpus} * elapsed;
  if (a.gpu_utilization_mean)
    f.gpu_s_idle = static_cast<double>(f.gpu_s) * (100 - std::clamp(*a.gpu_utilization_mean, 0.0, 100.0)) / 100;
  return f;
}

std::string findings_text(const ArchivedFindings& findings) {
  std::string out;
  for (const auto& [rule, severity] : findings) out += (out.empty() ? "" : ",") + rule + ":" + severity;
  return out;
}

ArchivedFindings parse_findings(const std::string& text) {
  ArchivedFindings out;
  std::size_t at = 0;
  while (at < text.size()) {
    std::size_t comma = text.find(',', at);
    std::string item = text.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
    std::size_t colon = item.find(':');
    if (colon != std::string::npos) out.emplace_back(item.substr(0, colon), item.substr(colon + 1));
    if (comma == std::string::npos) break;
    at = comma + 1;
  }
  return out;
}

Result<std::map<std::string, int>> finding_bits(SqlDatabase& db) {
  auto rows = db.run("SELECT rule, bit FROM archive_findings");
  if (!rows) return rows.error();
  std::map<std::string, int> out;
  for (const SqlRow& row : rows->rows) {
    int bit = -1;
    const std::string text = row[1].value_or("");
    std::from_chars(text.data(), text.data() + text.size(), bit);
    if (row[0] && bit >= 0 && bit < kFindingBits) out[*row[0]] = bit;
  }
  return out;
}

Result<std::optional<int>> finding_bit(SqlDatabase& db, const std::string& rule) {
  constexpr std::size_t kMaxRule = 64;  // archive_findings.rule
  constexpr int kTries = 5;             // writers giving the next bit at once
  if (rule.empty() || rule.size() > kMaxRule) return std::optional<int>();
  Error last;
  for (int attempt = 0; attempt < kTries; ++attempt) {
    auto bits = finding_bits(db);
    if (!bits) return bits.error();
    if (auto found = bits->find(rule); found != bits->end()) return std::optional<int>(found->second);
    auto highest = db.run("SELECT MAX(bit) FROM archive_findings");
    if (!highest) return highest.error();
    int next = 0;
    if (!highest->rows.empty() && highest->rows[0][0]) {
      const std::string& text = *highest->rows[0][0];
      std::from_chars(text.data(), text.data() + text.size(), next);
      ++next;
    }
    if (next >= kFindingBits) return std::optional<int>();
    // Another writer that took this bit (or gave this rule one) first makes
    // the INSERT fail; the next round reads what it did.
    auto given = db.run("INSERT INTO archive_findings (bit, rule) VALUES (?, ?)", {std::int64_t{next}, rule});
    if (given) return std::optional<int>(next);
    last = given.error();
  }
  return unavailable(last.message + " (giving finding rule '" + rule + "' a bit)");
}

namespace {

// A new SQLite archive gets 16 KiB pages (InnoDB's), not SQLite's 4 KiB.
// The fleet view's sums read a stretch of a covering index whose pages,
// written as jobs ended, lie among the records' pages, so that the first
// sums after the file left the page cache read them one by one: 90 days of
// a 1,000,000-job archive took 0.83 s at 4 KiB, 0.45 s at 16 KiB (0.48 s at
// 64 KiB), and the file is 12 % smaller; a job stored alone writes 74 kB of
// WAL instead of 22 kB (280 kB at 64 KiB). test/bench/README.md, "Fleet
// efficiency benchmark". Only a file without tables can change its page
// size, and only out of WAL mode, which it is put back in. Another
// connection to the new file keeps it at its size.
Result<bool> large_pages_when_new(SqlDatabase& db) {
  constexpr const char* kPageSize = "PRAGMA page_size = 16384";
  if (!is_sqlite(db)) return true;
  auto tables = db.run("SELECT COUNT(*) FROM sqlite_master");
  if (!tables) return tables.error();
  if (tables->rows.empty() || tables->rows[0][0] != std::optional<std::string>("0")) return true;
  if (!db.run("PRAGMA journal_mode = DELETE")) return true;
  auto sized = db.run(kPageSize);
  if (sized) sized = db.run("VACUUM");
  auto wal = db.run("PRAGMA journal_mode = WAL");
  if (!wal) return wal.error();
  if (!sized) return sized.error();
  return true;
}

}  // namespace

Result<int> migrate_archive(SqlDatabase& db, const std::vector<ArchiveMigration>& migrations) {
  if (auto pages = large_pages_when_new(db); !pages) return pages.error();
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
    if (m.then != nullptr)
      if (auto done = m.then(db); !done) return fail(done.error());
    auto recorded = db.run("REPLACE INTO archive_meta (name, value) VALUES (?, ?)",
                           {std::string("schema_version"), std::to_string(m.version)});
    if (!recorded) return fail(recorded.error());
    if (auto commit = db.run("COMMIT"); !commit) return fail(commit.error());
    now = m.version;
  }
  return *before;
}

}  // namespace petricore::sources
