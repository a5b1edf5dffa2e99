// The job archive on a real SQLite file (sources/sqlite_library.hpp,
// archive_schema.hpp, job_archive.hpp): the SQL layer's types, the schema's
// versions and migrations, immutable records stored as versions, the reads
// the archive answers, and the faults (a corrupt file, a newer schema, a
// directory that is not there).
#include "sources/job_archive.hpp"

#include "catch.hpp"

#include "archive_stores.hpp"
#include "core/deflate.hpp"
#include "sources/archive_schema.hpp"
#include "sources/sqlite_library.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

using namespace petricore;
using namespace petricore::sources;
namespace fs = std::filesystem;

namespace {

using test::open_new;
using test::TempDir;

model::ArchivedJob finished(const std::string& id, const std::string& user, std::int64_t end) {
  model::ArchivedJob a;
  a.job.job_id = a.job.raw_id = id;
  a.job.name = "train";
  a.job.user = user;
  a.job.uid = 1001;
  a.job.account = "physics";
  a.job.partition = "gpu";
  a.job.state = "COMPLETED";
  a.job.submit = end - 4000;
  a.job.start = end - 3600;
  a.job.end = end;
  a.job.time_limit_seconds = 7200;
  a.job.alloc_cpus = 8;
  a.job.alloc_mem_mb = 32000;
  a.job.alloc_nodes = 1;
  a.job.node_list = "gpu01";
  a.job.alloc_gpus = 2;
  a.archived_at = end + 60;
  a.cpu_time_seconds = 14400.5;
  a.memory_resident_mb = 2048.25;
  a.gpu_utilization_mean = 33.9;
  a.findings = {{"gpu_efficiency", "warning"}, {"memory_overallocated", "warning"}};
  a.warning = true;
  a.usage_json = "{\"jobid\": " + id + "}";
  a.series = std::string("\x1f\x8b\0\x01series", 10);  // bytes, NULs included
  return a;
}

}  // namespace

TEST_CASE("sqlite: every parameter type goes in and comes back as its bytes", "[archive]") {
  TempDir dir;
  auto db = open_new(dir.file("types.db"));
  REQUIRE(db->run("CREATE TABLE t (n BIGINT, x DOUBLE, s TEXT, b BLOB, z TEXT)"));
  const std::string bytes("a\0b\xff", 4);
  REQUIRE(db->run("INSERT INTO t VALUES (?, ?, ?, ?, ?)",
                  {std::int64_t{-9007199254740993}, 2.5, std::string("été"), SqlBlob{bytes}, nullptr}));
  auto rows = db->run("SELECT n, x, s, b, z FROM t");
  REQUIRE(rows);
  REQUIRE(rows->rows.size() == 1);
  const SqlRow& row = rows->rows[0];
  CHECK(row[0] == "-9007199254740993");
  CHECK(row[1] == "2.5");
  CHECK(row[2] == "été");
  CHECK(row[3] == bytes);
  CHECK_FALSE(row[4]);
  CHECK(db->describe() == "sqlite at " + dir.file("types.db"));
}

TEST_CASE("sqlite: a wrong statement, a wrong parameter count and a duplicate key are errors naming the file",
          "[archive]") {
  TempDir dir;
  auto db = open_new(dir.file("errors.db"));
  auto bad = db->run("SELEKT 1");
  REQUIRE_FALSE(bad);
  CHECK(bad.error().kind == Error::Kind::Unavailable);
  CHECK(bad.error().message.find("sqlite at " + dir.file("errors.db")) == 0);
  CHECK(bad.error().message.find("syntax error") != std::string::npos);
  REQUIRE(db->run("CREATE TABLE k (id INT PRIMARY KEY)"));
  auto count = db->run("INSERT INTO k VALUES (?)", {});
  CHECK_FALSE(count);
  REQUIRE(db->run("INSERT INTO k VALUES (?)", {std::int64_t{1}}));
  CHECK_FALSE(db->last_error_was_duplicate());
  CHECK_FALSE(db->run("INSERT INTO k VALUES (?)", {std::int64_t{1}}));
  CHECK(db->last_error_was_duplicate());
}

TEST_CASE("sqlite: a file that is not a database, or a directory that is not there, fails at open", "[archive]") {
  TempDir dir;
  std::ofstream(dir.file("corrupt.db")) << std::string(4096, 'x');
  auto corrupt = SqliteDatabase::open(dir.file("corrupt.db"), true);
  REQUIRE_FALSE(corrupt);
  CHECK(corrupt.error().message == "sqlite at " + dir.file("corrupt.db") + ": file is not a database");
  auto missing = SqliteDatabase::open(dir.file("no/such/dir/archive.db"), true);
  REQUIRE_FALSE(missing);
  CHECK(missing.error().message.find("sqlite at " + dir.file("no/such/dir/archive.db") + ": ") == 0);
  auto absent = SqliteDatabase::open(dir.file("absent.db"), false);
  CHECK_FALSE(absent);
  CHECK_FALSE(fs::exists(dir.file("absent.db")));
}

TEST_CASE("sqlite: a new archive has 16 KiB pages and stays in WAL mode; an existing file keeps its pages",
          "[archive]") {
  TempDir dir;
  auto fresh = open_new(dir.file("new.db"));
  REQUIRE(migrate_archive(*fresh));
  CHECK(fresh->run("PRAGMA page_size")->rows[0][0] == "16384");
  CHECK(fresh->run("PRAGMA journal_mode")->rows[0][0] == "wal");
  auto older = open_new(dir.file("old.db"));
  REQUIRE(older->run("CREATE TABLE someone_elses (x INT)"));
  REQUIRE(migrate_archive(*older));
  CHECK(older->run("PRAGMA page_size")->rows[0][0] == "4096");
  CHECK(older->run("PRAGMA journal_mode")->rows[0][0] == "wal");
}

namespace {

using test::Store;

// Archive schema: an empty file is brought to the last version, once.
void schema_brought_up_once(Store& store) {
  auto db = store.fresh();
  auto before = migrate_archive(*db);
  REQUIRE(before);
  CHECK(*before == 0);
  CHECK(archive_version(*db).value() == archive_migrations().back().version);
  auto again = migrate_archive(*db);
  REQUIRE(again);
  CHECK(*again == archive_migrations().back().version);
}

// Archive schema: a later version migrates an archive and keeps its records.
void schema_migrates_keeping_records(Store& store) {
  auto db = store.fresh();
  REQUIRE(migrate_archive(*db));
  JobArchive archive(*db, "c1");
  REQUIRE(archive.store(finished("100", "alice", 1'700'000'000)));
  std::vector<ArchiveMigration> later = archive_migrations();
  const int next = later.back().version + 1;
  later.push_back({next, {"ALTER TABLE archived_jobs ADD COLUMN energy_wh DOUBLE"}});
  auto before = migrate_archive(*db, later);
  REQUIRE(before);
  CHECK(*before == next - 1);
  CHECK(archive_version(*db).value() == next);
  auto kept = archive.latest(100);
  REQUIRE(kept);
  REQUIRE(kept->has_value());
  CHECK((*kept)->job.user == "alice");
  CHECK(db->run("SELECT energy_wh FROM archived_jobs"));

  // A migration that fails leaves the version where it was; where DDL is
  // transactional (SQLite) its first statement is undone too.
  later.push_back({next + 1, {"ALTER TABLE archived_jobs ADD COLUMN gpu_hours DOUBLE", "ALTER TABLE nowhere ADD x"}});
  auto failed = migrate_archive(*db, later);
  REQUIRE_FALSE(failed);
  CHECK(failed.error().message.find("schema version " + std::to_string(next + 1)) != std::string::npos);
  CHECK(archive_version(*db).value() == next);
  if (store.transactional_ddl()) CHECK_FALSE(db->run("SELECT gpu_hours FROM archived_jobs"));
}

// Archive schema: an archive newer than this petricore is refused, not written.
void schema_newer_refused(Store& store) {
  auto db = store.fresh();
  REQUIRE(migrate_archive(*db));
  REQUIRE(db->run("UPDATE archive_meta SET value = '99' WHERE name = 'schema_version'"));
  auto refused = migrate_archive(*db);
  REQUIRE_FALSE(refused);
  CHECK(refused.error().kind == Error::Kind::BadInput);
  CHECK(refused.error().message.find("schema version 99, newer than this petricore's") != std::string::npos);
  CHECK(archive_version(*db).value() == 99);
}

// Job archive: a record is stored whole and read back the same.
void record_read_back_the_same(Store& store) {
  auto db = store.fresh();
  REQUIRE(migrate_archive(*db));
  JobArchive archive(*db, "c1");
  const model::ArchivedJob in = finished("4242", "alice", 1'700'000'000);
  auto version = archive.store(in);
  REQUIRE(version);
  CHECK(*version == 1);
  auto out = archive.latest(4242);
  REQUIRE(out);
  REQUIRE(out->has_value());
  const model::ArchivedJob& a = **out;
  CHECK(a.version == 1);
  CHECK(a.job.job_id == "4242");
  CHECK(a.job.raw_id == "4242");
  CHECK(a.job.name == "train");
  CHECK(a.job.user == "alice");
  CHECK(a.job.uid == 1001u);
  CHECK(a.job.account == "physics");
  CHECK(a.job.partition == "gpu");
  CHECK(a.job.state == "COMPLETED");
  CHECK(a.job.submit == in.job.submit);
  CHECK(a.job.start == in.job.start);
  CHECK(a.job.end == in.job.end);
  CHECK(a.job.time_limit_seconds == 7200);
  CHECK(a.job.alloc_cpus == 8);
  CHECK(a.job.alloc_mem_mb == 32000.0);
  CHECK(a.job.alloc_nodes == 1);
  CHECK(a.job.node_list == "gpu01");
  CHECK(a.job.alloc_gpus == 2);
  CHECK(a.cpu_time_seconds == 14400.5);
  CHECK(a.memory_resident_mb == 2048.25);
  CHECK(a.gpu_utilization_mean == 33.9);
  CHECK(a.findings == in.findings);
  CHECK(a.warning);
  CHECK(a.from_metrics);
  CHECK(a.archived_at == in.archived_at);
  CHECK(a.usage_json == in.usage_json);
  CHECK(a.series == in.series);
  // Unknown figures stay unknown.
  model::ArchivedJob bare = finished("4243", "alice", 1'700'000'100);
  bare.cpu_time_seconds.reset();
  bare.gpu_utilization_mean.reset();
  bare.job.uid.reset();
  bare.findings.clear();
  bare.series.clear();
  bare.from_metrics = false;
  REQUIRE(archive.store(bare));
  auto read = archive.latest(4243);
  REQUIRE(read);
  CHECK_FALSE((*read)->cpu_time_seconds);
  CHECK_FALSE((*read)->gpu_utilization_mean);
  CHECK_FALSE((*read)->job.uid);
  CHECK((*read)->findings.empty());
  CHECK((*read)->series.empty());
  CHECK_FALSE((*read)->from_metrics);
  CHECK(archive.latest(9999).value() == std::nullopt);
}

// Job archive: storing a job again writes its next version; the first stays as it was.
void store_again_next_version(Store& store) {
  auto db = store.fresh();
  REQUIRE(migrate_archive(*db));
  JobArchive archive(*db, "c1");
  CHECK_FALSE(archive.has(77).value());
  REQUIRE(archive.store(finished("77", "bob", 1'700'000'000)).value() == 1);
  CHECK(archive.has(77).value());
  model::ArchivedJob again = finished("77", "bob", 1'700'000'000);
  again.findings = {{"cpu_efficiency", "critical"}};
  again.usage_json = "{\"jobid\": 77, \"second\": true}";
  REQUIRE(archive.store(again).value() == 2);
  auto latest = archive.latest(77);
  CHECK((*latest)->version == 2);
  CHECK((*latest)->usage_json == again.usage_json);
  auto all = archive.versions(77);
  REQUIRE(all);
  REQUIRE(all->size() == 2);
  CHECK((*all)[0].version == 1);
  CHECK((*all)[0].findings.size() == 2);
  CHECK((*all)[1].findings == again.findings);
  // Another cluster's job 77 is another job.
  JobArchive other(*db, "c2");
  CHECK_FALSE(other.has(77).value());
  CHECK(other.store(finished("77", "carol", 1'700'000'000)).value() == 1);
}

namespace {

// Another serve instance, as the archive sees it: just before our first
// INSERT of a record, it stores the same job's version we are about to take.
class RacingDatabase final : public SqlDatabase {
 public:
  explicit RacingDatabase(SqlDatabase& db) : db_(db) {}
  Result<SqlResult> run(std::string_view sql, const std::vector<SqlParam>& params) override {
    if (!raced_ && sql.rfind("INSERT INTO archived_jobs", 0) == 0) {
      raced_ = true;
      std::vector<SqlParam> theirs = params;
      theirs[27] = SqlBlob{"theirs"};
      REQUIRE(db_.run(sql, theirs));
    }
    return db_.run(sql, params);
  }
  std::string describe() const override { return db_.describe(); }
  bool last_error_was_duplicate() const override { return db_.last_error_was_duplicate(); }

 private:
  SqlDatabase& db_;
  bool raced_ = false;
};

}  // namespace

// Job archive: a writer that lost the race for a version takes the next one.
void lost_race_next_version(Store& store) {
  auto db = store.fresh();
  REQUIRE(migrate_archive(*db));
  REQUIRE(JobArchive(*db, "c1").store(finished("5", "dave", 1'700'000'000)).value() == 1);
  RacingDatabase racing(*db);
  JobArchive archive(racing, "c1");
  CHECK(archive.store(finished("5", "dave", 1'700'000'000)).value() == 3);
  auto all = archive.versions(5);
  REQUIRE(all->size() == 3);
  CHECK(archive.latest(5).value()->series == finished("5", "dave", 0).series);
}

// Job archive: a job without a numeric id or not ended is refused.
void refuses_unarchivable_jobs(Store& store) {
  auto db = store.fresh();
  REQUIRE(migrate_archive(*db));
  JobArchive archive(*db, "c1");
  model::ArchivedJob no_id = finished("1", "eve", 1'700'000'000);
  no_id.job.raw_id.clear();
  no_id.job.job_id = "1_[2-3]";
  auto refused = archive.store(no_id);
  REQUIRE_FALSE(refused);
  CHECK(refused.error().kind == Error::Kind::BadInput);
  model::ArchivedJob running = finished("2", "eve", 1'700'000'000);
  running.job.end.reset();
  CHECK(archive.store(running).error().kind == Error::Kind::BadInput);
}

// Job archive: a user's jobs in a window, newest first, each at its newest version.
void jobs_of_user_window(Store& store) {
  auto db = store.fresh();
  REQUIRE(migrate_archive(*db));
  JobArchive archive(*db, "c1");
  const std::int64_t t = 1'700'000'000;
  for (int i = 0; i < 5; ++i) REQUIRE(archive.store(finished(std::to_string(10 + i), "frank", t + 100 * i)));
  REQUIRE(archive.store(finished("99", "grace", t + 150)));
  model::ArchivedJob redone = finished("11", "frank", t + 100);
  redone.findings.clear();
  REQUIRE(archive.store(redone).value() == 2);

  auto jobs = archive.jobs_of_user("frank", t + 100, t + 400, 10);  // ends 100, 200, 300
  REQUIRE(jobs);
  REQUIRE(jobs->size() == 3);
  CHECK((*jobs)[0].job.raw_id == "13");
  CHECK((*jobs)[1].job.raw_id == "12");
  CHECK((*jobs)[2].job.raw_id == "11");
  CHECK((*jobs)[2].version == 2);
  CHECK((*jobs)[2].findings.empty());
  CHECK((*jobs)[0].usage_json.empty());  // summaries: no JSON, no series
  auto two = archive.jobs_of_user("frank", 0, t + 1000, 2);
  REQUIRE(two->size() == 2);
  CHECK((*two)[0].job.raw_id == "14");
  CHECK(archive.jobs_of_user("nobody", 0, t + 1000, 10)->empty());
}

// Job archive: a setting (the archiver's watermark) is kept per cluster.
void setting_per_cluster(Store& store) {
  auto db = store.fresh();
  REQUIRE(migrate_archive(*db));
  JobArchive c1(*db, "c1"), c2(*db, "c2");
  CHECK(c1.setting("watermark").value() == std::nullopt);
  REQUIRE(c1.set_setting("watermark", "1700000000"));
  REQUIRE(c1.set_setting("watermark", "1700000100"));
  CHECK(c1.setting("watermark").value() == "1700000100");
  CHECK(c2.setting("watermark").value() == std::nullopt);
  // The schema's own version is not a cluster's setting.
  CHECK(archive_version(*db).value() == archive_migrations().back().version);
}

// Version 1's record as version 1 wrote it (its columns only): job
// `job_id`'s `version` in `cluster`, with `findings`.
void insert_v1(SqlDatabase& db, const std::string& cluster, std::int64_t job_id, std::int64_t version,
               const std::string& findings) {
  REQUIRE(
      db.run("INSERT INTO archived_jobs (cluster, job_id, version, display_id, name, user_name, account,"
             " partition_name, state, end_time, alloc_cpus, alloc_nodes, node_list, alloc_gpus, findings, warning,"
             " from_metrics, archived_at, usage_json_z) VALUES (?, ?, ?, ?, 'train', 'alice', 'physics', 'cpu',"
             " 'COMPLETED', ?, 4, 1, 'n1', 0, ?, 0, 1, ?, ?)",
             {cluster, job_id, version, std::to_string(job_id), std::int64_t{1'700'000'000} + job_id, findings,
              std::int64_t{1'700'000'000} + version,
              SqlBlob{deflate_bytes("{\"v\": " + std::to_string(version) + "}", 9, DeflateWrapper::Zlib)}}));
}

SqlParam maybe(const std::optional<double>& v) {
  return v ? SqlParam(*v) : SqlParam(nullptr);
}

// Version 1's record of `a`'s figures, as job `job_id` of cluster c3.
void insert_v1_figures(SqlDatabase& db, std::int64_t job_id, const model::ArchivedJob& a) {
  const model::JobRecord& j = a.job;
  REQUIRE(
      db.run("INSERT INTO archived_jobs (cluster, job_id, version, display_id, name, user_name, account,"
             " partition_name, state, start_time, end_time, alloc_cpus, alloc_mem_mb, alloc_nodes, node_list,"
             " alloc_gpus, cpu_time_s, memory_resident_mb, gpu_utilization_mean, findings, warning, from_metrics,"
             " archived_at, usage_json_z) VALUES ('c3', ?, 1, 'x', 'x', 'x', 'x', 'x', 'x', ?, ?, ?, ?, 1, 'n1',"
             " ?, ?, ?, ?, '', 0, 1, 0, ?)",
             {job_id, j.start ? SqlParam(*j.start) : SqlParam(nullptr), *j.end, std::int64_t{j.alloc_cpus},
              maybe(j.alloc_mem_mb), std::int64_t{j.alloc_gpus}, maybe(a.cpu_time_seconds), maybe(a.memory_resident_mb),
              maybe(a.gpu_utilization_mean), SqlBlob{deflate_bytes("{}", 9, DeflateWrapper::Zlib)}}));
}

// Every kind of figure a record adds up to (store works them out with job_figures).
std::vector<model::ArchivedJob> figure_kinds() {
  std::vector<model::ArchivedJob> out(6, finished("1", "judy", 1'700'000'000));
  out[1].job.start.reset();  // never started
  out[2].cpu_time_seconds.reset();
  out[2].gpu_utilization_mean.reset();
  out[3].cpu_time_seconds = 1e6;      // more than allocated
  out[3].gpu_utilization_mean = 150;  // past 100 %: no idle time
  out[4].gpu_utilization_mean = -5;   // below 0: all idle
  out[4].job.alloc_mem_mb.reset();
  out[4].memory_resident_mb.reset();
  out[5].job.start = *out[5].job.end + 10;  // starts after its end: 0 s
  return out;
}

// Archive schema: version 2 over a real version 1 archive with records
// keeps them, puts the newest version of each job in force, gives the rules
// of their findings bits, and trades version 1's indexes for the covering ones.
void schema_v1_to_v2(Store& store) {
  auto db = store.fresh();
  const std::vector<ArchiveMigration> v1(archive_migrations().begin(), archive_migrations().begin() + 1);
  REQUIRE(v1.back().version == 1);
  REQUIRE(migrate_archive(*db, v1).value() == 0);
  REQUIRE(archive_version(*db).value() == 1);
  insert_v1(*db, "c1", 10, 1, "cpu_efficiency:warning");
  insert_v1(*db, "c1", 10, 2, "memory_low:critical,gpu_memory_low:warning");
  insert_v1(*db, "c1", 10, 3, "gpu_memory_low:warning");  // not memory_low
  insert_v1(*db, "c1", 11, 1, "");
  insert_v1(*db, "c2", 10, 1, "memory_low:info");
  insert_v1(*db, "c2", 10, 2, "cpu_efficiency:warning,memory_low:info");
  insert_v1(*db, "c2", 12, 1, "cpuXefficiency:info");  // _ is a letter, not LIKE's any character
  const std::vector<model::ArchivedJob> kinds = figure_kinds();
  for (std::size_t i = 0; i < kinds.size(); ++i) insert_v1_figures(*db, 100 + static_cast<std::int64_t>(i), kinds[i]);
  CHECK(store.indexes(*db, "archived_jobs") == std::vector<std::string>{"archived_jobs_account", "archived_jobs_end",
                                                                        "archived_jobs_partition",
                                                                        "archived_jobs_user"});

  REQUIRE(migrate_archive(*db).value() == 1);
  CHECK(archive_version(*db).value() == 2);
  CHECK(store.indexes(*db, "archived_jobs") ==
        std::vector<std::string>{"archived_jobs_user_window", "archived_jobs_window"});
  auto bits = finding_bits(*db);
  REQUIRE(bits);
  CHECK(bits->size() == 4);  // cpu_efficiency, cpuXefficiency, gpu_memory_low, memory_low
  auto mask = [&](std::set<std::string> rules) {
    std::int64_t m = 0;
    for (const std::string& rule : rules) m |= std::int64_t{1} << bits->at(rule);
    return std::to_string(m);
  };
  auto rows = db->run(
      "SELECT cluster, job_id, version, latest, finding_mask FROM archived_jobs WHERE cluster <> 'c3'"
      " ORDER BY cluster, job_id, version");
  REQUIRE(rows);
  std::vector<std::string> got;
  for (const SqlRow& row : rows->rows)
    got.push_back(*row[0] + "/" + *row[1] + "/" + *row[2] + " latest " + *row[3] + " mask " + *row[4]);
  CHECK(got == std::vector<std::string>{
                   "c1/10/1 latest 0 mask " + mask({"cpu_efficiency"}),
                   "c1/10/2 latest 0 mask " + mask({"memory_low", "gpu_memory_low"}),
                   "c1/10/3 latest 1 mask " + mask({"gpu_memory_low"}),
                   "c1/11/1 latest 1 mask 0",
                   "c2/10/1 latest 0 mask " + mask({"memory_low"}),
                   "c2/10/2 latest 1 mask " + mask({"cpu_efficiency", "memory_low"}),
                   "c2/12/1 latest 1 mask " + mask({"cpuXefficiency"}),
               });

  // The migration's figures are store's.
  for (std::size_t i = 0; i < kinds.size(); ++i) {
    CAPTURE(i);
    auto figures = db->run(
        "SELECT core_s, core_s_known, core_s_wasted, mem_mb_s_requested, mem_mb_s_used, gpu_s, gpu_s_idle"
        " FROM archived_jobs WHERE cluster = 'c3' AND job_id = ?",
        {100 + static_cast<std::int64_t>(i)});
    REQUIRE(figures);
    REQUIRE(figures->rows.size() == 1);
    const SqlRow& got = figures->rows[0];
    const JobFigures want = job_figures(kinds[i]);
    auto real = [](const std::optional<std::string>& text) {
      return std::strtod(text.value_or("nan").c_str(), nullptr);
    };
    CHECK(got[0] == std::to_string(want.core_s));
    CHECK(got[1] == std::to_string(want.core_s_known));
    CHECK(real(got[2]) == Approx(want.core_s_wasted));
    CHECK(real(got[3]) == Approx(want.mem_mb_s_requested));
    CHECK(real(got[4]) == Approx(want.mem_mb_s_used));
    CHECK(got[5] == std::to_string(want.gpu_s));
    CHECK(real(got[6]) == Approx(want.gpu_s_idle));
  }
  // By hand, for the first: 8 cpus x 3600 s = 28,800; wasted 28,800 - 14,400.5 = 14,399.5; 2 GPUs x 3600 s
  // = 7200, idle 7200 x 0.661 = 4759.2.
  CHECK(job_figures(kinds[0]).core_s == 28'800);
  CHECK(job_figures(kinds[0]).core_s_wasted == Approx(14'399.5));
  CHECK(job_figures(kinds[0]).gpu_s_idle == Approx(4759.2));
  CHECK(job_figures(kinds[3]).core_s_wasted == 0);
  CHECK(job_figures(kinds[3]).gpu_s_idle == 0);
  CHECK(job_figures(kinds[4]).gpu_s_idle == 7200);
  CHECK(job_figures(kinds[1]).core_s == 0);
  CHECK(job_figures(kinds[5]).core_s == 0);

  // The records read as before, and the archive goes on from them.
  JobArchive archive(*db, "c1");
  auto kept = archive.latest(10);
  REQUIRE(kept);
  REQUIRE(kept->has_value());
  CHECK((*kept)->version == 3);
  CHECK((*kept)->usage_json == "{\"v\": 3}");
  CHECK((*kept)->findings == ArchivedFindings{{"gpu_memory_low", "warning"}});
  CHECK(archive.versions(10)->size() == 3);
  CHECK(archive.jobs_of_user("alice", 0, 2'000'000'000, 10)->size() == 2);
  REQUIRE(archive.store(finished("10", "alice", 1'700'000'010)).value() == 4);
  auto flags =
      db->run("SELECT version, latest FROM archived_jobs WHERE cluster = 'c1' AND job_id = 10 ORDER BY version");
  REQUIRE(flags);
  std::string flag_text;
  for (const SqlRow& row : flags->rows) flag_text += *row[0] + ":" + *row[1] + " ";
  CHECK(flag_text == "1:0 2:0 3:0 4:1 ");
}

namespace {

// A database whose statements that move the version in force fail while `failing`.
class FlagFailingDatabase final : public SqlDatabase {
 public:
  explicit FlagFailingDatabase(SqlDatabase& db) : db_(db) {}
  Result<SqlResult> run(std::string_view sql, const std::vector<SqlParam>& params) override {
    if (failing && sql.rfind("UPDATE archived_jobs SET latest", 0) == 0) return unavailable("disk full");
    return db_.run(sql, params);
  }
  std::string describe() const override { return db_.describe(); }
  bool last_error_was_duplicate() const override { return db_.last_error_was_duplicate(); }
  bool failing = false;

 private:
  SqlDatabase& db_;
};

std::string flags_of(SqlDatabase& db, std::int64_t job_id) {
  auto rows = db.run("SELECT version, latest FROM archived_jobs WHERE cluster = 'c1' AND job_id = ? ORDER BY version",
                     {job_id});
  REQUIRE(rows);
  std::string out;
  for (const SqlRow& row : rows->rows) out += *row[0] + ":" + *row[1] + " ";
  return out;
}

}  // namespace

// Job archive: one version of a job is in force, the newest; a store whose
// flag could not move leaves the one before in force, and the next store
// puts its own in force.
void one_version_in_force(Store& store) {
  auto db = store.fresh();
  REQUIRE(migrate_archive(*db));
  FlagFailingDatabase flaky(*db);
  JobArchive archive(flaky, "c1");
  model::ArchivedJob job = finished("20", "heidi", 1'700'000'000);
  REQUIRE(archive.store(job).value() == 1);
  CHECK(flags_of(*db, 20) == "1:1 ");
  job.usage_json = "{\"second\": true}";
  REQUIRE(archive.store(job).value() == 2);
  CHECK(flags_of(*db, 20) == "1:0 2:1 ");
  flaky.failing = true;
  job.usage_json = "{\"third\": true}";
  auto failed = archive.store(job);
  REQUIRE_FALSE(failed);
  CHECK(failed.error().message == "disk full (job 20's version 3 is stored, the one before stays in force)");
  CHECK(flags_of(*db, 20) == "1:0 2:1 3:0 ");
  CHECK(archive.latest(20).value()->usage_json == "{\"second\": true}");
  flaky.failing = false;
  job.usage_json = "{\"fourth\": true}";
  REQUIRE(archive.store(job).value() == 4);
  CHECK(flags_of(*db, 20) == "1:0 2:0 3:0 4:1 ");
  CHECK(archive.latest(20).value()->usage_json == "{\"fourth\": true}");
}

// Archive schema: a rule keeps its bit; past the 63rd rule a finding is kept
// in the record's text but has no bit.
void finding_bits_kept_and_capped(Store& store) {
  auto db = store.fresh();
  REQUIRE(migrate_archive(*db));
  for (int i = 0; i < kFindingBits; ++i) REQUIRE(finding_bit(*db, "rule_" + std::to_string(i)).value() == i);
  CHECK(finding_bit(*db, "rule_7").value() == 7);
  CHECK(finding_bit(*db, "one_too_many").value() == std::nullopt);
  CHECK(finding_bit(*db, std::string(65, 'x')).value() == std::nullopt);
  JobArchive archive(*db, "c1");
  model::ArchivedJob job = finished("30", "ivan", 1'700'000'000);
  job.findings = {{"one_too_many", "warning"}, {"rule_62", "info"}};
  REQUIRE(archive.store(job));
  CHECK(archive.latest(30).value()->findings == job.findings);
  auto mask = db->run("SELECT finding_mask FROM archived_jobs WHERE job_id = 30");
  REQUIRE(mask);
  CHECK(mask->rows[0][0] == std::to_string(std::int64_t{1} << 62));
  CHECK(finding_bits(*db)->size() == static_cast<std::size_t>(kFindingBits));
}

void every_scenario(Store& store) {
  SECTION("archive schema: an empty file is brought to the last version, once") schema_brought_up_once(store);
  SECTION("archive schema: a later version migrates an archive and keeps its records")
  schema_migrates_keeping_records(store);
  SECTION("archive schema: an archive newer than this petricore is refused, not written") schema_newer_refused(store);
  SECTION("job archive: a record is stored whole and read back the same") record_read_back_the_same(store);
  SECTION("job archive: storing a job again writes its next version; the first stays as it was")
  store_again_next_version(store);
  SECTION("job archive: a writer that lost the race for a version takes the next one") lost_race_next_version(store);
  SECTION("job archive: a job without a numeric id or not ended is refused") refuses_unarchivable_jobs(store);
  SECTION("job archive: a user's jobs in a window, newest first, each at its newest version")
  jobs_of_user_window(store);
  SECTION("job archive: a setting (the archiver's watermark) is kept per cluster") setting_per_cluster(store);
  SECTION("archive schema: version 2 over a version 1 archive keeps its records and puts the newest in force")
  schema_v1_to_v2(store);
  SECTION("job archive: one version of a job is in force, the newest, even after a store that failed half-way")
  one_version_in_force(store);
  SECTION("archive schema: a rule keeps its bit; past the 63rd a finding has none") finding_bits_kept_and_capped(store);
}

}  // namespace

TEST_CASE("job archive on an SQLite file", "[archive]") {
  test::SqliteStore store;
  every_scenario(store);
}

// Run by the mariadb suite (test/integration/mariadb_test.sh), which starts
// the server: the same scenarios on MariaDB.
TEST_CASE("job archive on a real MariaDB", "[.][mariadb]") {
  auto store = test::MariaDbStore::from_env("petricore_archive_test_");
  if (!store) {
    WARN("PETRICORE_TEST_DB_SOCKET is not set: skipped");
    return;
  }
  every_scenario(*store);
}
