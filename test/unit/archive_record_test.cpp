// The archive's record of a report (analysis/archive_record.hpp) and its
// series' encoding (model/series_codec.hpp): what a record keeps, and that
// the series come back as they were cut, to a float's precision.
#include "analysis/archive_record.hpp"

#include "catch.hpp"

#include "core/deflate.hpp"
#include "model/series_codec.hpp"
#include "sample_jobs.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

using namespace petricore;
using model::Series;

namespace {

// Each sample equal to within a float's precision (times to the millisecond).
bool same_series(const Series& a, const Series& b) {
  if (a.labels != b.labels || a.samples.size() != b.samples.size()) return false;
  for (std::size_t i = 0; i < a.samples.size(); ++i) {
    const auto& x = a.samples[i];
    const auto& y = b.samples[i];
    if (std::abs(x.time - y.time) > 0.0005) return false;
    if (std::isnan(x.value) != std::isnan(y.value)) return false;
    if (!std::isnan(x.value) && x.value != static_cast<double>(static_cast<float>(y.value)) &&
        std::abs(x.value - y.value) > std::abs(y.value) * 1e-6)
      return false;
  }
  return true;
}

}  // namespace

TEST_CASE("series codec: labels, times and values come back; a steady series costs little", "[archive]") {
  std::map<std::string, std::vector<Series>> in;
  in["jobs_cpu_percent"] = {test::sample_series({{"instance", "n1"}, {"slurm_job", "7"}}, 240, 15,
                                                [](std::size_t i) { return 50 + 49.5 * std::sin(i / 9.0); })};
  in["jobs_rss"] = {test::sample_series({{"instance", "n1"}}, 240, 15, [](std::size_t) { return 1024.0; }),
                    test::sample_series({{"instance", "n2"}}, 3, 0.25, [](std::size_t i) {
                      return i == 1 ? std::numeric_limits<double>::quiet_NaN() : -1e30 * i;
                    })};
  in["empty"] = {};
  std::string bytes = model::encode_series(in);
  auto out = model::decode_series(bytes);
  REQUIRE(out);
  REQUIRE(out->size() == 3);
  CHECK(out->at("empty").empty());
  REQUIRE(out->at("jobs_rss").size() == 2);
  CHECK(same_series(out->at("jobs_cpu_percent")[0], in["jobs_cpu_percent"][0]));
  CHECK(same_series(out->at("jobs_rss")[0], in["jobs_rss"][0]));
  CHECK(same_series(out->at("jobs_rss")[1], in["jobs_rss"][1]));

  // 240 equal values every 15 s: a few bytes, not 240 x 5.
  std::map<std::string, std::vector<Series>> steady{{"jobs_rss", {in["jobs_rss"][0]}}};
  CHECK(model::encode_series(steady).size() < 100);
}

TEST_CASE("series codec: bytes that are no encoding are refused, never read past", "[archive]") {
  std::map<std::string, std::vector<Series>> in{
      {"jobs_rss", {test::sample_series({{"instance", "n1"}}, 10, 15, [](std::size_t i) { return i * 1.5; })}}};
  const std::string bytes = model::encode_series(in);
  CHECK_FALSE(model::decode_series(""));
  CHECK_FALSE(model::decode_series("not zlib"));
  CHECK_FALSE(model::decode_series(bytes.substr(0, bytes.size() / 2)));
  CHECK_FALSE(model::decode_series(deflate_bytes("PCS2", 6, DeflateWrapper::Zlib)));
  // The right header, then counts that promise more than there is.
  CHECK_FALSE(model::decode_series(deflate_bytes(std::string("PCS1\x05\x03"
                                                             "abc\xff\xff\xff\x0f",
                                                             12),
                                                 6, DeflateWrapper::Zlib)));
  // Trailing bytes after a whole encoding.
  std::string raw = *inflate_bytes(bytes, 1 << 20);
  CHECK_FALSE(model::decode_series(deflate_bytes(raw + "x", 6, DeflateWrapper::Zlib)));
  CHECK(model::decode_series(deflate_bytes(raw, 6, DeflateWrapper::Zlib)));
}

TEST_CASE("archive record: the report's facts, figures, findings, JSON and cut series", "[archive]") {
  model::JobReport report = test::four_node_job();
  const std::string json = "{\"jobid\": 4242}";
  model::ArchivedJob a = analysis::archive_record(report, json, 1'800'000'000);
  CHECK(a.job.job_id == report.usage.job.job_id);
  CHECK(a.job.user == report.usage.job.user);
  CHECK(a.archived_at == 1'800'000'000);
  CHECK(a.from_metrics);
  CHECK(a.cpu_time_seconds == report.usage.cpu_time_total);
  CHECK(a.memory_resident_mb == report.usage.memory_resident_mb);
  CHECK(a.usage_json == json);
  CHECK(a.warning == report.warning);
  REQUIRE(a.findings.size() == report.findings.size());
  for (std::size_t i = 0; i < a.findings.size(); ++i) {
    CHECK(a.findings[i].first == report.findings[i].rule);
    CHECK(a.findings[i].second == model::severity_name(report.findings[i].severity));
  }

  auto series = model::decode_series(a.series);
  REQUIRE(series);
  CHECK(series->size() == report.usage.series.size());
  for (const auto& [name, of_metric] : report.usage.series) {
    REQUIRE(series->count(name) == 1);
    REQUIRE(series->at(name).size() == of_metric.size());
    for (std::size_t i = 0; i < of_metric.size(); ++i) {
      const Series& kept = series->at(name)[i];
      CHECK(kept.labels == of_metric[i].labels);
      if (name == "jobs_cpu_time_core") {
        // The final value only: the per-core pie's.
        REQUIRE(kept.samples.size() == 1);
        CHECK(kept.samples[0].value == Approx(of_metric[i].samples.back().value).epsilon(1e-6));
      } else {
        Series cut = of_metric[i];
        model::downsample(cut.samples, analysis::kArchiveSeriesPoints);
        CHECK(kept.samples.size() <= analysis::kArchiveSeriesPoints);
        CHECK(same_series(kept, cut));
      }
    }
  }
}

TEST_CASE("archive record: a job known from accounting alone has no series", "[archive]") {
  model::ArchivedJob a = analysis::archive_record(test::accounting_only_job(), "{}", 1);
  CHECK_FALSE(a.from_metrics);
  CHECK(a.series.empty());
  CHECK(a.cpu_time_seconds);  // TotalCPU stands in
}

TEST_CASE("archive record: a long job's series are cut to 300 points, keeping peaks and dips", "[archive]") {
  model::JobRecord job;
  job.job_id = job.raw_id = "9";
  job.state = "COMPLETED";
  job.start = test::kSampleStart;
  job.end = test::kSampleStart + 2000 * 15;
  job.alloc_cpus = 1;
  // 2000 samples of a saw with one spike and one dip.
  auto value = [](std::size_t i) { return i == 777 ? 900.0 : i == 1333 ? -5.0 : static_cast<double>(i % 50); };
  std::map<std::string, std::vector<Series>> metrics;
  metrics["jobs_cpu_percent"] = {test::sample_series({{"instance", "n1"}}, 2000, 15, value)};
  model::ArchivedJob a = analysis::archive_record(test::report_from(job, metrics), "{}", 1);
  auto series = model::decode_series(a.series);
  REQUIRE(series);
  const Series& kept = series->at("jobs_cpu_percent").at(0);
  CHECK(kept.samples.size() <= analysis::kArchiveSeriesPoints);
  CHECK(kept.samples.size() >= analysis::kArchiveSeriesPoints - 2);
  double highest = -1e9, lowest = 1e9;
  for (const auto& s : kept.samples) {
    highest = std::max(highest, s.value);
    lowest = std::min(lowest, s.value);
  }
  CHECK(highest == 900.0);
  CHECK(lowest == -5.0);
  CHECK(kept.samples.front().time >= static_cast<double>(test::kSampleStart));
}
