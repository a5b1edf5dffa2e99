// JobAnalyzer against fake sources: the range queries it asks the series
// source for, how often it asks the accounting source, how failures and the
// settled flag come out.
#include "analysis/job_analyzer.hpp"

#include "model/job_id.hpp"
#include "sources/accounting.hpp"
#include "sources/series_source.hpp"

#include "catch.hpp"

#include <chrono>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace {

using petricore::Error;
using petricore::Result;
using petricore::model::JobId;
using petricore::model::JobRecord;
using petricore::model::JobReport;
using petricore::model::Series;

struct RangeQuery {
  std::string promql;
  double start = 0;
  double end = 0;
  double step = 0;
};

// Answers each range query with the next canned answer (no series once
// they run out) and keeps what was asked.
class FakeSeries final : public petricore::sources::SeriesSource {
 public:
  Result<std::vector<Series>> query_range(const std::string& promql, double start, double end, double step) override {
    asked.push_back({promql, start, end, step});
    if (answers.empty()) return std::vector<Series>{};
    Result<std::vector<Series>> next = answers.front();
    answers.pop_front();
    return next;
  }
  int requests() const override { return static_cast<int>(asked.size()); }

  std::deque<Result<std::vector<Series>>> answers;
  std::vector<RangeQuery> asked;
};

// Knows one job and counts the look-ups.
class CountingAccounting final : public petricore::sources::AccountingSource {
 public:
  explicit CountingAccounting(JobRecord record) : record_(std::move(record)) {}
  Result<JobRecord> job(const JobId& id) override {
    ++job_calls;
    if (id.text() != record_.job_id) return petricore::not_found("job " + id.text() + " not found");
    return record_;
  }
  Result<std::vector<JobRecord>> jobs_of_user(const std::string&, std::size_t) override {
    ++user_calls;
    return std::vector<JobRecord>{record_};
  }
  Result<std::vector<JobRecord>> jobs_ended(std::int64_t, std::int64_t, std::size_t) override {
    return std::vector<JobRecord>{};
  }
  bool lists_whole_records() const override { return true; }
  std::string name() const override { return "fake"; }

  int job_calls = 0;
  int user_calls = 0;

 private:
  JobRecord record_;
};

std::int64_t now() {
  using namespace std::chrono;
  return duration_cast<seconds>(system_clock::now().time_since_epoch()).count();
}

// A one-hour job that ended long ago: settled.
JobRecord finished_job() {
  JobRecord job;
  job.job_id = "4242";
  job.raw_id = "4242";
  job.user = "alice";
  job.state = "COMPLETED";
  job.start = 1'000'020;
  job.end = job.start.value() + 3600;
  job.alloc_cpus = 4;
  job.alloc_nodes = 1;
  return job;
}

Series series(std::map<std::string, std::string> labels, double time, double value) {
  Series s;
  s.labels = std::move(labels);
  s.samples.push_back({time, value});
  return s;
}

JobId id_of(const std::string& text) {
  auto id = petricore::model::parse_job_id(text);
  REQUIRE(id);
  return *id;
}

}  // namespace

TEST_CASE("one range query over the job's window, matching the job's series", "[job_analyzer]") {
  FakeSeries source;
  CountingAccounting accounting(finished_job());
  petricore::analysis::AnalyzerOptions options;
  options.min_step_seconds = 15;
  options.after_end_seconds = 30;
  petricore::analysis::JobAnalyzer analyzer(accounting, source, options);

  Result<JobReport> report = analyzer.analyze(finished_job());
  REQUIRE(report);
  REQUIRE(source.asked.size() == 1);
  const RangeQuery& q = source.asked.front();
  CHECK(q.promql == R"({__name__=~"jobs_.+",slurm_job="4242"})");
  CHECK(q.end == 1'000'020 + 3600 + 30);  // the after-end stretch past the end
  CHECK(q.start == 1'000'020);            // 3630 s is a whole number of 15 s steps
  CHECK(q.step == 15);
  CHECK(report->usage.no_metrics());
  CHECK(report->settled);
}

TEST_CASE("a job with GPUs gets a second query for their utilisation", "[job_analyzer]") {
  FakeSeries source;
  const double t = 1'000'100;
  source.answers.push_back(std::vector<Series>{
      series({{"__name__", "jobs_gpus_used"}, {"instance", "gpu1"}, {"gpuid", "1"}, {"slurm_job", "4242"}}, t, 1),
      series({{"__name__", "jobs_cpu_percent"}, {"instance", "gpu1"}, {"slurm_job", "4242"}}, t, 100)});
  source.answers.push_back(std::vector<Series>{
      series({{"__name__", "utilization_gpu"}, {"instance", "gpu1.cluster:9445"}, {"gpu", "1"}}, t, 80),
      // Not the job's GPU: dropped.
      series({{"__name__", "utilization_gpu"}, {"instance", "gpu1.cluster:9445"}, {"gpu", "0"}}, t, 5)});
  JobRecord job = finished_job();
  job.alloc_gpus = 1;
  CountingAccounting accounting(job);
  petricore::analysis::JobAnalyzer analyzer(accounting, source, {});

  Result<JobReport> report = analyzer.analyze(job);
  REQUIRE(report);
  REQUIRE(source.asked.size() == 2);
  CHECK(source.asked[1].promql == R"({__name__="utilization_gpu",instance=~"(gpu1)([.:].*)?",gpu=~"1"})");
  CHECK(source.asked[1].start == source.asked[0].start);
  CHECK(source.asked[1].end == source.asked[0].end);
  REQUIRE(report->usage.gpu_utilization_series.size() == 1);
  CHECK(report->usage.gpu_utilization_series[0].label("instance") == "gpu1");  // as the collector names nodes
  CHECK(report->usage.gpu_utilization_series[0].label("gpu") == "1");
}

TEST_CASE("a job with petricore's own GPU utilisation makes one query only", "[job_analyzer]") {
  FakeSeries source;
  const double t = 1'000'100;
  source.answers.push_back(std::vector<Series>{
      series({{"__name__", "jobs_gpus_used"}, {"instance", "gpu1"}, {"gpuid", "1"}, {"slurm_job", "4242"}}, t, 1),
      series(
          {{"__name__", "jobs_gpu_utilization_percent"}, {"instance", "gpu1"}, {"gpuid", "1"}, {"slurm_job", "4242"}},
          t, 65)});
  JobRecord job = finished_job();
  job.alloc_gpus = 1;
  CountingAccounting accounting(job);
  petricore::analysis::JobAnalyzer analyzer(accounting, source, {});

  Result<JobReport> report = analyzer.analyze(job);
  REQUIRE(report);
  CHECK(source.asked.size() == 1);
  CHECK(report->usage.gpu_utilization_series.empty());
  REQUIRE(report->usage.gpu_utilization_mean);
  CHECK(*report->usage.gpu_utilization_mean == Approx(65));
}

TEST_CASE("a job without GPUs makes one query only", "[job_analyzer]") {
  FakeSeries source;
  source.answers.push_back(std::vector<Series>{
      series({{"__name__", "jobs_cpu_percent"}, {"instance", "node1"}, {"slurm_job", "4242"}}, 1'000'100, 100)});
  CountingAccounting accounting(finished_job());
  petricore::analysis::JobAnalyzer analyzer(accounting, source, {});

  Result<JobReport> report = analyzer.analyze(finished_job());
  REQUIRE(report);
  CHECK(source.asked.size() == 1);
  CHECK_FALSE(report->usage.no_metrics());
}

TEST_CASE("a failing series source gives Unavailable with its reason", "[job_analyzer]") {
  CountingAccounting accounting(finished_job());

  FakeSeries down;
  down.answers.push_back(petricore::unavailable("prometheus http://p:9090: connection refused"));
  Result<JobReport> first = petricore::analysis::JobAnalyzer(accounting, down, {}).analyze(finished_job());
  REQUIRE_FALSE(first);
  CHECK(first.error().kind == Error::Kind::Unavailable);
  CHECK(first.error().message == "prometheus http://p:9090: connection refused");

  // The GPU query failing fails the analysis too.
  FakeSeries gpu_down;
  gpu_down.answers.push_back(std::vector<Series>{
      series({{"__name__", "jobs_gpus_used"}, {"instance", "gpu1"}, {"gpuid", "0"}}, 1'000'100, 1)});
  gpu_down.answers.push_back(petricore::unavailable("prometheus: timeout"));
  Result<JobReport> second = petricore::analysis::JobAnalyzer(accounting, gpu_down, {}).analyze(finished_job());
  REQUIRE_FALSE(second);
  CHECK(second.error().kind == Error::Kind::Unavailable);
  CHECK(gpu_down.asked.size() == 2);
}

TEST_CASE("analyze(id) looks the job up once; analyze(record) not at all", "[job_analyzer]") {
  FakeSeries source;
  CountingAccounting accounting(finished_job());
  petricore::analysis::JobAnalyzer analyzer(accounting, source, {});

  REQUIRE(analyzer.analyze(finished_job()));
  CHECK(accounting.job_calls == 0);
  CHECK(source.asked.size() == 1);

  Result<JobReport> by_id = analyzer.analyze(id_of("4242"));
  REQUIRE(by_id);
  CHECK(accounting.job_calls == 1);
  CHECK(by_id->usage.job.user == "alice");
  CHECK(source.asked.size() == 2);
  CHECK(accounting.user_calls == 0);
}

TEST_CASE("an unknown job is NotFound and costs no series query", "[job_analyzer]") {
  FakeSeries source;
  CountingAccounting accounting(finished_job());
  petricore::analysis::JobAnalyzer analyzer(accounting, source, {});

  Result<JobReport> report = analyzer.analyze(id_of("77"));
  REQUIRE_FALSE(report);
  CHECK(report.error().kind == Error::Kind::NotFound);
  CHECK(accounting.job_calls == 1);
  CHECK(source.asked.empty());
}

TEST_CASE("a record without a numeric id is Unavailable before any query", "[job_analyzer]") {
  FakeSeries source;
  JobRecord job = finished_job();
  job.raw_id.clear();  // slurm_job="" would match every series without the label
  CountingAccounting accounting(job);
  Result<JobReport> report = petricore::analysis::JobAnalyzer(accounting, source, {}).analyze(job);
  REQUIRE_FALSE(report);
  CHECK(report.error().kind == Error::Kind::Unavailable);
  CHECK(report.error().message == "accounting source fake gave no numeric job id for job 4242");
  CHECK(source.asked.empty());
}

TEST_CASE("settled only once the after-end stretch has passed", "[job_analyzer]") {
  FakeSeries source;
  CountingAccounting accounting(finished_job());
  petricore::analysis::AnalyzerOptions options;
  options.after_end_seconds = 600;
  petricore::analysis::JobAnalyzer analyzer(accounting, source, options);

  JobRecord just_ended = finished_job();
  just_ended.end = now() - 10;
  just_ended.start = *just_ended.end - 3600;
  Result<JobReport> early = analyzer.analyze(just_ended);
  REQUIRE(early);
  CHECK_FALSE(early->settled);
  CHECK(source.asked.back().end < *just_ended.end + 600);  // up to now, not into the future

  JobRecord running = just_ended;
  running.end.reset();
  running.state = "RUNNING";
  Result<JobReport> live = analyzer.analyze(running);
  REQUIRE(live);
  CHECK_FALSE(live->settled);

  REQUIRE(analyzer.analyze(finished_job()));
  CHECK(analyzer.analyze(finished_job())->settled);
}

TEST_CASE("a pending job is reported without a query", "[job_analyzer]") {
  FakeSeries source;
  JobRecord pending = finished_job();
  pending.start.reset();
  pending.end.reset();
  pending.state = "PENDING";
  CountingAccounting accounting(pending);
  Result<JobReport> report = petricore::analysis::JobAnalyzer(accounting, source, {}).analyze(pending);
  REQUIRE(report);
  CHECK(source.asked.empty());
  CHECK_FALSE(report->settled);
  CHECK(report->usage.no_metrics());
}
