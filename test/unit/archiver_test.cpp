// The archiver (archive/archiver.hpp) over a real SQLite archive: what a
// window stores, that nothing is stored twice, batches whose jobs share an
// end, a pass that stops where Prometheus failed and the next that carries
// on, the watermark, late accounting records, and the jobs it must skip.
#include "archive/archiver.hpp"

#include "catch.hpp"

#include "analysis/usage_summary.hpp"
#include "render/job_render.hpp"
#include "sources/accounting.hpp"
#include "sources/archive_schema.hpp"
#include "sources/sqlite_library.hpp"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <set>
#include <string>
#include <vector>

using namespace petricore;
namespace fs = std::filesystem;

namespace {

constexpr std::int64_t kNow = 1764547200;

// Accounting as a list of finished jobs, answering jobs_ended as the
// interface says (order, window, limit) and counting the calls.
class ListedAccounting final : public sources::AccountingSource {
 public:
  std::vector<model::JobRecord> jobs;
  int calls = 0;
  bool down = false;

  Result<model::JobRecord> job(const model::JobId& id) override {
    for (const auto& j : jobs)
      if (j.job_id == id.text()) return j;
    return not_found("no job " + id.text());
  }
  Result<std::vector<model::JobRecord>> jobs_of_user(const std::string&, std::size_t) override {
    return std::vector<model::JobRecord>{};
  }
  Result<std::vector<model::JobRecord>> jobs_ended(std::int64_t since, std::int64_t until, std::size_t limit) override {
    ++calls;
    if (down) return unavailable("sacct: timed out");
    std::vector<model::JobRecord> out;
    for (const auto& j : jobs)
      if (j.end && *j.end >= since && *j.end < until) out.push_back(j);
    std::sort(out.begin(), out.end(), sources::ended_earlier);
    if (out.size() > limit) out.resize(limit);
    return out;
  }
  bool lists_whole_records() const override { return true; }
  std::string name() const override { return "listed"; }
};

model::JobRecord ended(int id, std::int64_t end) {
  model::JobRecord j;
  j.job_id = j.raw_id = std::to_string(id);
  j.name = "job" + std::to_string(id);
  j.user = id % 2 == 0 ? "alice" : "bob";
  j.account = "physics";
  j.partition = "cpu";
  j.state = "COMPLETED";
  j.start = end - 600;
  j.end = end;
  j.alloc_cpus = 4;
  j.alloc_nodes = 1;
  j.node_list = "node1";
  j.total_cpu_seconds = 1200;
  return j;
}

// The analysis: jobs with an even id have samples, odd ones none (Prometheus
// lost them); ids in `failing` fail as Prometheus down does.
struct FakeAnalysis {
  std::set<std::string> failing;
  std::set<std::string> refused;
  std::vector<std::string> analysed;

  std::vector<Result<model::JobReport>> operator()(const std::vector<model::JobRecord>& jobs) {
    std::vector<Result<model::JobReport>> out;
    for (const auto& job : jobs) {
      if (failing.count(job.job_id) > 0) {
        out.push_back(unavailable("prometheus at http://127.0.0.1:9: connection refused"));
        continue;
      }
      if (refused.count(job.job_id) > 0) {
        out.push_back(bad_input("not a job the analysis reads"));
        continue;
      }
      analysed.push_back(job.job_id);
      std::map<std::string, std::vector<model::Series>> series;
      if (std::stoi(job.job_id) % 2 == 0) {
        model::Series s;
        s.labels = {{"instance", "node1"}, {"slurm_job", job.raw_id}};
        for (int i = 0; i <= 10; ++i) s.samples.push_back({static_cast<double>(*job.start + 60 * i), 2.0 * i});
        series["jobs_cpu_time"].push_back(s);
      }
      model::JobReport report;
      report.usage = analysis::summarize(job, std::move(series), std::nullopt);
      report.settled = true;
      out.push_back(std::move(report));
    }
    return out;
  }
};

class TempArchive {
 public:
  TempArchive() {
    std::string pattern = (fs::temp_directory_path() / "petricore-archiver.XXXXXX").string();
    dir_ = ::mkdtemp(pattern.data());
    auto opened = sources::SqliteDatabase::open((dir_ / "archive.db").string(), true);
    REQUIRE(opened);
    db_ = std::move(*opened);
    REQUIRE(sources::migrate_archive(*db_));
    archive = std::make_unique<sources::JobArchive>(*db_, "test");
  }
  ~TempArchive() {
    archive.reset();
    db_.reset();
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  std::unique_ptr<sources::JobArchive> archive;

 private:
  fs::path dir_;
  std::unique_ptr<sources::SqliteDatabase> db_;
};

archive::Archiver make_archiver(ListedAccounting& accounting, FakeAnalysis& analysis, std::size_t batch,
                                std::int64_t* now = nullptr) {
  archive::ArchiverOptions options;
  options.batch = batch;
  options.settle_seconds = 60;
  options.lookback_seconds = 3600;
  options.backfill_seconds = 86400;
  return archive::Archiver(
      accounting, [&analysis](const std::vector<model::JobRecord>& jobs) { return analysis(jobs); },
      [](const model::JobReport& report) { return render::job_json(report); }, options,
      [now] { return now != nullptr ? *now : kNow; });
}

}  // namespace

TEST_CASE("a window's jobs are archived once, from metrics or from accounting alone", "[archiver]") {
  TempArchive t;
  ListedAccounting accounting;
  for (int id = 1; id <= 7; ++id) accounting.jobs.push_back(ended(id, kNow - 5000 + 100 * id));
  accounting.jobs.push_back(ended(50, kNow - 100000));  // before the window
  FakeAnalysis analysis;
  archive::Archiver archiver = make_archiver(accounting, analysis, 3);

  archive::ArchiveRun run = archiver.archive_window(*t.archive, kNow - 6000, kNow - 1000);
  CHECK_FALSE(run.error);
  CHECK(run.counts.listed == 7);
  CHECK(run.counts.archived == 7);
  CHECK(run.counts.from_accounting == 4);  // the odd ids had no samples
  CHECK(run.counts.already == 0);
  CHECK(run.done_until == kNow - 1000);
  CHECK(analysis.analysed.size() == 7);

  auto two = t.archive->latest(2);
  REQUIRE(two);
  REQUIRE(*two);
  CHECK((*two)->from_metrics);
  CHECK((*two)->version == 1);
  CHECK((*two)->usage_json.find("\"jobid\": 2") != std::string::npos);
  CHECK_FALSE((*two)->series.empty());
  auto three = t.archive->latest(3);
  REQUIRE(three);
  REQUIRE(*three);
  CHECK_FALSE((*three)->from_metrics);
  CHECK((*three)->cpu_time_seconds == Approx(1200));  // TotalCPU stood in
  auto outside = t.archive->has(50);
  REQUIRE(outside);
  CHECK_FALSE(*outside);

  // Run again: nothing analysed, nothing stored twice.
  analysis.analysed.clear();
  run = archiver.archive_window(*t.archive, kNow - 6000, kNow - 1000);
  CHECK_FALSE(run.error);
  CHECK(run.counts.archived == 0);
  CHECK(run.counts.already == 7);
  CHECK(analysis.analysed.empty());
  auto versions = t.archive->versions(2);
  REQUIRE(versions);
  CHECK(versions->size() == 1);
}

TEST_CASE("jobs that share an end are all archived however the batches cut them", "[archiver]") {
  TempArchive t;
  ListedAccounting accounting;
  for (int id = 10; id < 17; ++id) accounting.jobs.push_back(ended(id, kNow - 2000));  // 7 jobs, one second
  accounting.jobs.push_back(ended(20, kNow - 1500));
  FakeAnalysis analysis;
  archive::Archiver archiver = make_archiver(accounting, analysis, 2);

  archive::ArchiveRun run = archiver.archive_window(*t.archive, kNow - 3000, kNow - 1000);
  CHECK_FALSE(run.error);
  CHECK(run.counts.archived == 8);
  CHECK(run.counts.listed == 8);
  CHECK(analysis.analysed.size() == 8);
  for (int id : {10, 13, 16, 20}) {
    auto has = t.archive->has(id);
    REQUIRE(has);
    CHECK(*has);
  }
}

TEST_CASE("a pass stops where Prometheus failed and the next carries on", "[archiver]") {
  TempArchive t;
  ListedAccounting accounting;
  for (int id = 1; id <= 6; ++id) accounting.jobs.push_back(ended(id, kNow - 5000 + 100 * id));
  FakeAnalysis analysis;
  analysis.failing = {"4"};
  archive::Archiver archiver = make_archiver(accounting, analysis, 10);

  archive::ArchiveRun run = archiver.archive_window(*t.archive, kNow - 6000, kNow - 1000);
  REQUIRE(run.error);
  CHECK(run.error->kind == Error::Kind::Unavailable);
  CHECK(run.error->message.find("connection refused") != std::string::npos);
  CHECK(run.counts.archived == 3);
  CHECK(run.done_until == kNow - 5000 + 400);  // job 4's end: everything before it is in
  auto five = t.archive->has(5);
  REQUIRE(five);
  CHECK_FALSE(*five);

  analysis.failing.clear();
  run = archiver.archive_window(*t.archive, run.done_until, kNow - 1000);
  CHECK_FALSE(run.error);
  CHECK(run.counts.archived == 3);
  for (int id = 1; id <= 6; ++id) {
    auto versions = t.archive->versions(id);
    REQUIRE(versions);
    CHECK(versions->size() == 1);
  }

  // Accounting down: an error, nothing stored, nothing lost.
  accounting.down = true;
  run = archiver.archive_window(*t.archive, kNow - 6000, kNow - 1000);
  REQUIRE(run.error);
  CHECK(run.error->message == "sacct: timed out");
  CHECK(run.done_until == kNow - 6000);
}

TEST_CASE("jobs without a numeric id, or that the analysis refuses, are skipped, not retried forever", "[archiver]") {
  TempArchive t;
  ListedAccounting accounting;
  accounting.jobs.push_back(ended(1, kNow - 3000));
  model::JobRecord no_id = ended(2, kNow - 2900);
  no_id.raw_id.clear();
  accounting.jobs.push_back(no_id);
  accounting.jobs.push_back(ended(3, kNow - 2800));
  FakeAnalysis analysis;
  analysis.refused = {"3"};
  archive::Archiver archiver = make_archiver(accounting, analysis, 10);
  archive::ArchiveRun run = archiver.archive_window(*t.archive, kNow - 6000, kNow - 1000);
  CHECK_FALSE(run.error);
  CHECK(run.counts.archived == 1);
  CHECK(run.counts.skipped == 2);
  CHECK(run.done_until == kNow - 1000);
}

TEST_CASE("catch_up starts a new archive a backfill ago, keeps a watermark and finds late records", "[archiver]") {
  TempArchive t;
  ListedAccounting accounting;
  accounting.jobs.push_back(ended(1, kNow - 2 * 86400));  // before the backfill: left to `archive --since`
  accounting.jobs.push_back(ended(2, kNow - 80000));
  accounting.jobs.push_back(ended(3, kNow - 30));  // still settling
  FakeAnalysis analysis;
  std::int64_t now = kNow;
  archive::Archiver archiver = make_archiver(accounting, analysis, 10, &now);

  archive::ArchiveRun run = archiver.catch_up(*t.archive);
  CHECK_FALSE(run.error);
  CHECK(run.counts.archived == 1);
  auto watermark = t.archive->setting(archive::Archiver::kWatermark);
  REQUIRE(watermark);
  REQUIRE(*watermark);
  CHECK(**watermark == std::to_string(kNow - 60));

  // Ten minutes later: job 3 has settled; job 4 reached accounting late,
  // with an end before the watermark but within the lookback.
  now = kNow + 600;
  accounting.jobs.push_back(ended(4, kNow - 1200));
  run = archiver.catch_up(*t.archive);
  CHECK_FALSE(run.error);
  CHECK(run.counts.archived == 2);
  for (int id : {3, 4}) {
    auto has = t.archive->has(id);
    REQUIRE(has);
    CHECK(*has);
  }
  auto old = t.archive->has(1);
  REQUIRE(old);
  CHECK_FALSE(*old);
  watermark = t.archive->setting(archive::Archiver::kWatermark);
  REQUIRE(watermark);
  CHECK(**watermark == std::to_string(kNow + 600 - 60));

  // A failing pass never moves the watermark back.
  accounting.down = true;
  now = kNow + 1200;
  run = archiver.catch_up(*t.archive);
  CHECK(run.error);
  watermark = t.archive->setting(archive::Archiver::kWatermark);
  REQUIRE(watermark);
  CHECK(**watermark == std::to_string(kNow + 600 - 60));
}

TEST_CASE("a job another archiver stored meanwhile is not stored again", "[archiver]") {
  TempArchive t;
  ListedAccounting accounting;
  accounting.jobs.push_back(ended(8, kNow - 3000));
  FakeAnalysis analysis;
  archive::Archiver archiver = make_archiver(accounting, analysis, 10);
  // The other serve instance stores job 8 between this one's "has it?"
  // and its store: store_first finds the first version there.
  model::ArchivedJob other;
  other.job = accounting.jobs[0];
  other.usage_json = "{}";
  REQUIRE(t.archive->store_first(other).value() == 1);
  CHECK(t.archive->store_first(other).value() == 0);
  auto versions = t.archive->versions(8);
  REQUIRE(versions);
  CHECK(versions->size() == 1);
  // The archiver's own pass then finds it archived.
  archive::ArchiveRun run = archiver.archive_window(*t.archive, kNow - 6000, kNow - 1000);
  CHECK_FALSE(run.error);
  CHECK(run.counts.archived == 0);
  CHECK(run.counts.already == 1);
}
