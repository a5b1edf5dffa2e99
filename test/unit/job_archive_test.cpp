// The job archive on a real SQLite file (sources/sqlite_library.hpp,
// archive_schema.hpp, job_archive.hpp): the SQL layer's types, the schema's
// versions and migrations, immutable records stored as versions, the reads
// the archive answers, and the faults (a corrupt file, a newer schema, a
// directory that is not there).
#include "sources/job_archive.hpp"

#include "catch.hpp"

#include "sources/archive_schema.hpp"
#include "sources/mariadb_library.hpp"
#include "sources/sqlite_library.hpp"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

using namespace petricore;
using namespace petricore::sources;
namespace fs = std::filesystem;

namespace {

// A temp directory for one test's database files, removed after it.
class TempDir {
 public:
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "petricore-archive.XXXXXX").string();
    path_ = ::mkdtemp(pattern.data());
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  std::string file(const std::string& name) const { return (path_ / name).string(); }

 private:
  fs::path path_;
};

std::unique_ptr<SqliteDatabase> open_new(const std::string& path) {
  auto db = SqliteDatabase::open(path, true);
  REQUIRE(db);
  return std::move(db.value());
}

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

namespace {

// Where the store scenarios below run: a fresh SQLite file, or a fresh
// database on the MariaDB server the mariadb suite starts.
class Store {
 public:
  virtual ~Store() = default;
  virtual std::unique_ptr<SqlDatabase> fresh() = 0;
  virtual bool transactional_ddl() const = 0;
};

class SqliteStore final : public Store {
 public:
  std::unique_ptr<SqlDatabase> fresh() override { return open_new(dir_.file("a" + std::to_string(++files_) + ".db")); }
  bool transactional_ddl() const override { return true; }

 private:
  TempDir dir_;
  int files_ = 0;
};

std::string env(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr ? value : "";
}

// As root over the server's socket (PETRICORE_TEST_DB_SOCKET), each fresh
// database a new petricore_archive_test_<n>, dropped first.
class MariaDbStore final : public Store {
 public:
  static std::unique_ptr<MariaDbStore> from_env() {
    if (env("PETRICORE_TEST_DB_SOCKET").empty()) return nullptr;
    return std::make_unique<MariaDbStore>();
  }
  std::unique_ptr<SqlDatabase> fresh() override {
    MariaDbTarget target;
    target.socket = env("PETRICORE_TEST_DB_SOCKET");
    target.user = "root";
    auto admin = MariaDbConnection::connect(target);
    REQUIRE(admin);
    const std::string name = "petricore_archive_test_" + std::to_string(++databases_);
    REQUIRE(admin->run("DROP DATABASE IF EXISTS " + name));
    REQUIRE(admin->run("CREATE DATABASE " + name));
    target.database = name;
    auto db = MariaDbConnection::connect(target);
    REQUIRE(db);
    return std::make_unique<MariaDbConnection>(std::move(db.value()));
  }
  bool transactional_ddl() const override { return false; }

 private:
  int databases_ = 0;
};

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
}

}  // namespace

TEST_CASE("job archive on an SQLite file", "[archive]") {
  SqliteStore store;
  every_scenario(store);
}

// Run by the mariadb suite (test/integration/mariadb_test.sh), which starts
// the server: the same scenarios on MariaDB.
TEST_CASE("job archive on a real MariaDB", "[.][mariadb]") {
  auto store = MariaDbStore::from_env();
  if (!store) {
    WARN("PETRICORE_TEST_DB_SOCKET is not set: skipped");
    return;
  }
  every_scenario(*store);
}
