// The job JSON read back (render/job_json_read.hpp): for every report the
// tests build, job_json of the read-back report is the JSON it was read from,
// byte for byte, and the mail and the terminal text are the original's; bad
// documents are refused naming the key.
#include "render/job_json_read.hpp"

#include "analysis/archive_record.hpp"
#include "archive_stores.hpp"
#include "golden_jobs.hpp"
#include "model/series_codec.hpp"
#include "render/job_charts.hpp"
#include "render/job_html.hpp"
#include "render/job_render.hpp"
#include "sample_jobs.hpp"
#include "sources/archive_schema.hpp"
#include "sources/job_archive.hpp"
#include "test_fixtures.hpp"

#include "catch.hpp"

#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <regex>
#include <sstream>

using namespace petricore;
using model::JobRecord;
using model::JobReport;
using model::Series;

namespace {

using namespace petricore::test::golden;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// job_charts_test.cpp's one-node job with `count` series of `metric`.
JobReport many_series_job(const std::string& metric, int count) {
  JobRecord job;
  job.job_id = job.raw_id = "77";
  job.state = "COMPLETED";
  job.start = kStart;
  job.end = kStart + 600;
  job.alloc_cpus = count;
  job.alloc_nodes = 1;
  Metrics m;
  for (int i = 0; i < count; ++i)
    m[metric].push_back(test::sample_series({{"instance", "node01"}, {"core", std::to_string(i)}}, 41, 15,
                                            [i](std::size_t) { return i + 1.0; }));
  return test::report_from(std::move(job), std::move(m));
}

// router_test.cpp's report built by hand: no series, a mean and a resident
// peak, the ratios as the analysis computes them.
JobReport hand_built_job() {
  JobReport report;
  JobRecord& job = report.usage.job;
  job.job_id = job.raw_id = "100";
  job.user = "alice";
  job.name = "job100";
  job.state = "COMPLETED";
  job.start = 1700000000;
  job.end = 1700003600;
  job.alloc_cpus = 4;
  job.alloc_mem_mb = 4000;
  job.total_cpu_seconds = 7200;
  report.usage.cpu_avg_percent = 200;
  report.usage.memory_resident_mb = 1000;
  model::compute_ratios(report.usage);
  report.settled = true;
  report.warning = true;
  return report;
}

// Figures that were not finite (null in the JSON), an odd GPU id, a MIG
// instance, an id Slurm prints with a suffix and no JobIDRaw, a runtime of
// days and a finding of every severity.
JobReport odd_figures_job() {
  JobReport report = test::gpu_training_job();
  model::JobUsage& usage = report.usage;
  usage.job.raw_id.clear();
  usage.job.job_id = "4400_12";
  usage.job.end = *usage.job.start + 3 * 86400 + 59;
  usage.job.time_limit_seconds = 4 * 86400;
  usage.runtime_seconds = 3 * 86400 + 59;
  usage.threads_max["python"] = kNaN;
  usage.gpus["gpu03"].push_back("1/2");
  usage.gpu_devices.push_back({"gpu03", "1/2", std::nullopt, std::nullopt, 4864, 5120, std::nullopt});
  usage.memory_at_peak.swap = 0.004;
  model::compute_ratios(usage);
  report.findings.push_back({"info_rule", model::Severity::Info, "A \"quoted\" message\nover two lines.",
                             "Advice with UTF-8: 1.5 \xC3\x97 the peak.", kNaN, 0.123456, "ratio"});
  report.findings.push_back({"crit_rule", model::Severity::Critical, "", "", -2.5, 1e12, "MB"});
  report.warning = true;
  return report;
}

// A job that ended before it started (a clock that stepped back): the JSON
// says 00:00:00, the record knows better.
JobReport clock_skew_job() {
  JobReport report = test::page_cache_job();
  report.usage.job.end = *report.usage.job.start - 5;
  report.usage.runtime_seconds = -5;
  model::compute_ratios(report.usage);
  return report;
}

struct Case {
  std::string name;
  JobReport report;
};

std::vector<Case> all_reports() {
  std::vector<Case> cases;
  auto add = [&](std::string name, JobReport report) { cases.push_back({std::move(name), std::move(report)}); };
  add("four_node", test::four_node_job());
  add("page_cache", test::page_cache_job());
  add("accounting_only", test::accounting_only_job());
  add("no_usage", test::no_usage_job());
  add("gpu_training", test::gpu_training_job());
  add("serial", serial_job());
  add("gpu_other_exporter", gpu_job());
  add("oom_no_metrics", oom_without_metrics());
  add("running", running_job());
  add("pdf_no_metrics", test::oom_before_samples_job());
  add("many_core_series", many_series_job("jobs_cpu_time_core", 5));
  add("many_cpu_percent_series", many_series_job("jobs_cpu_percent", 70));
  add("hand_built", hand_built_job());
  add("odd_figures", odd_figures_job());
  add("clock_skew", clock_skew_job());

  // The variants the render, HTML and PDF tests make of them.
  JobReport serial = serial_job();
  serial.usage.memory_peak_mb = 1500.5;
  add("serial_small_page_cache", serial);

  JobReport four = test::four_node_job();
  four.usage.job.name = "<script>alert(1)</script>";
  four.usage.job.user = "al\"ice";
  four.usage.job.account = "<b>acct</b>";
  four.findings.front().message = "<img src=x onerror=alert(2)>";
  add("four_node_hostile_text", four);

  four = test::four_node_job();
  four.findings.clear();
  four.warning = false;
  add("four_node_no_findings", four);

  four = test::four_node_job();
  four.usage = analysis::summarize(four.usage.job, {}, std::nullopt);
  four.findings = analysis::evaluate_rules(four.usage, {});
  four.warning = model::has_warning(four.findings);
  add("four_node_nothing_known", four);

  four = test::four_node_job();
  four.usage.series.erase("jobs_cpu_time_total");
  four.usage = analysis::summarize(four.usage.job, four.usage.series, std::nullopt);
  add("four_node_missing_cpu_time", four);

  four = test::four_node_job();
  four.usage.job.end.reset();
  add("four_node_no_end", four);

  four = test::four_node_job();
  four.usage.job.job_id = "4242+1";
  add("four_node_het", four);

  // Judged by other levels than the defaults: the JSON carries the CPU one.
  model::RuleThresholds strict;
  strict.cpu_efficiency_warning = 72.5;
  strict.cpu_efficiency_critical = 50;
  four = test::four_node_job();
  add("four_node_strict", test::report_from(four.usage.job, four.usage.series, std::nullopt, strict));
  model::RuleThresholds thirds;
  thirds.cpu_efficiency_warning = 100.0 / 3;
  JobReport gpu = test::gpu_training_job();
  add("gpu_training_thirds", test::report_from(gpu.usage.job, gpu.usage.series, std::nullopt, thirds));
  return cases;
}

// The series as the archive keeps them: another exporter's GPU utilisation
// beside the jobs_* series (analysis/archive_record.cpp).
Metrics archive_series(const JobReport& report) {
  Metrics series = report.usage.series;
  if (!report.usage.gpu_utilization_series.empty()) series["gpu_utilization"] = report.usage.gpu_utilization_series;
  return series;
}

JobReport read_back(const JobReport& report) {
  auto read = render::report_from_job_json(render::job_json(report), report.usage.job, archive_series(report),
                                           report.thresholds);
  INFO((read ? std::string() : read.error().message));
  REQUIRE(read.ok());
  return *read;
}

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

// "" for equal texts, else the first line where they part: a failure shows
// the difference, not two pages.
std::string difference(const std::string& read_back, const std::string& original) {
  if (read_back == original) return "";
  std::istringstream a(read_back), b(original);
  std::string line_a, line_b;
  for (int line = 1;; ++line) {
    bool more_a = static_cast<bool>(std::getline(a, line_a)), more_b = static_cast<bool>(std::getline(b, line_b));
    if (!more_a && !more_b) return "differ at the end (final newline)";
    if (line_a != line_b || more_a != more_b)
      return "line " + std::to_string(line) + ": read back \"" + (more_a ? line_a : "<end>") + "\", original \"" +
             (more_b ? line_b : "<end>") + "\"";
  }
}

std::string base64_decoded(std::string_view text) {
  std::string out;
  unsigned bits = 0;
  int count = 0;
  for (char ch : text) {
    const char* alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const char* at = std::strchr(alphabet, ch);
    if (ch == '=' || !at) break;
    bits = (bits << 6) | static_cast<unsigned>(at - alphabet);
    if ((count += 6) >= 8) out += static_cast<char>((bits >> (count -= 8)) & 0xFF);
  }
  return out;
}

// The job page with its inline SVG charts decoded and cairo's surface
// numbers taken out: cairo counts its surfaces over the process, so the same
// chart drawn twice reads <g id="surface1"> and then <g id="surface21">
// (and gets another id prefix, hashed from the file).
std::string comparable_page(const std::string& html) {
  static const std::string kData = "data:image/svg+xml;base64,";
  static const std::regex kSurface(R"(c[0-9a-f]{8}-|surface[0-9]+)");
  std::string out;
  std::size_t from = 0;
  for (std::size_t at = html.find(kData); at != std::string::npos; at = html.find(kData, from)) {
    std::size_t end = html.find('"', at);
    REQUIRE(end != std::string::npos);
    out += html.substr(from, at - from);
    std::string svg = base64_decoded(std::string_view(html).substr(at + kData.size(), end - at - kData.size()));
    REQUIRE(svg.find("<svg") != std::string::npos);
    out += std::regex_replace(svg, kSurface, "");
    from = end;
  }
  return out + html.substr(from);
}

// A job JSON with its first `from` replaced by `to`.
std::string edited(const std::string& json, const std::string& from, const std::string& to) {
  std::string out = json;
  std::size_t at = out.find(from);
  INFO("not in the JSON: " << from);
  REQUIRE(at != std::string::npos);
  return out.replace(at, from.size(), to);
}

Error refusal_of(const std::string& json) {
  JobReport report = test::four_node_job();
  auto read = render::report_from_job_json(json, report.usage.job, report.usage.series, {});
  REQUIRE_FALSE(read.ok());
  return read.error();
}

}  // namespace

TEST_CASE("every report's job JSON reads back to the same JSON, mail and terminal text", "[json_read]") {
  std::vector<Case> cases = all_reports();
  CHECK(cases.size() == 24);
  for (const Case& c : cases) {
    INFO(c.name);
    const std::string json = render::job_json(c.report);
    JobReport back = read_back(c.report);
    CHECK(difference(render::job_json(back), json) == "");
    const std::string pdf = "https://petricore.example.org/pdf/";
    CHECK(difference(render::mail_text(back, pdf), render::mail_text(c.report, pdf)) == "");
    CHECK(difference(render::terminal_text(back, false), render::terminal_text(c.report, false)) == "");
    CHECK(difference(render::terminal_text(back, true), render::terminal_text(c.report, true)) == "");
    CHECK(back.settled);
    CHECK(back.usage.no_usage() == c.report.usage.no_usage());
  }
}

TEST_CASE("the read-back report draws the same job page", "[json_read]") {
  for (const Case& c : all_reports()) {
    INFO(c.name);
    CHECK(difference(comparable_page(render::job_page_html(read_back(c.report), {})),
                     comparable_page(render::job_page_html(c.report, {}))) == "");
  }
}

TEST_CASE("a job stored in a real archive and read back gives the same JSON, mail and page", "[json_read]") {
  // Through an SQLite archive file, as serve answers an archived job: the
  // record read back has only what the archive's columns and JSON keep.
  test::TempDir dir;
  auto db = test::open_new(dir.file("archive.db"));
  REQUIRE(sources::migrate_archive(*db));
  sources::JobArchive archive(*db, "test");
  for (const Case& c : all_reports()) {
    INFO(c.name);
    // Only finished jobs with a numeric id are archived.
    if (!c.report.usage.job.finished() || c.report.usage.job.raw_id.empty()) continue;
    const std::string json = render::job_json(c.report);
    REQUIRE(archive.store(analysis::archive_record(c.report, json, kStart + 86400)));
    auto stored = archive.latest(std::stoll(c.report.usage.job.raw_id));
    REQUIRE(stored);
    REQUIRE(stored->has_value());
    const model::ArchivedJob& archived = **stored;
    CHECK(archived.usage_json == json);
    Metrics series;
    if (!archived.series.empty()) {
      auto decoded = model::decode_series(archived.series);
      REQUIRE(decoded);
      series = std::move(*decoded);
    }
    auto read = render::report_from_job_json(archived.usage_json, archived.job, series, {});
    INFO((read ? std::string() : read.error().message));
    REQUIRE(read.ok());
    CHECK(difference(render::job_json(*read), json) == "");
    CHECK(difference(render::mail_text(*read, ""), render::mail_text(c.report, "")) == "");
    // The charts are drawn from the series as archived (downsampled).
    JobReport expected = c.report;
    expected.usage.gpu_utilization_series.clear();
    if (auto gpu = series.find(render::kGpuUtilization); gpu != series.end()) {
      expected.usage.gpu_utilization_series = gpu->second;
      series.erase(gpu);
    }
    expected.usage.series = series;
    CHECK(difference(comparable_page(render::job_page_html(*read, {})),
                     comparable_page(render::job_page_html(expected, {}))) == "");
  }
}

TEST_CASE("the golden job JSON files read back to themselves", "[json_read]") {
  const std::pair<const char*, JobReport> goldens[] = {
      {"serial", serial_job()},
      {"gpu", gpu_job()},
      {"oom_no_metrics", oom_without_metrics()},
      {"running", running_job()},
      {"page_cache", test::page_cache_job()},
      {"accounting_only", test::accounting_only_job()},
      {"gpu_own", test::gpu_training_job()},
  };
  for (const auto& [name, report] : goldens) {
    INFO(name);
    std::string json = read_file(test::fixtures_dir() / "render" / (std::string("job_") + name + ".json"));
    REQUIRE_FALSE(json.empty());
    auto read = render::report_from_job_json(json, report.usage.job, archive_series(report), {});
    REQUIRE(read.ok());
    CHECK(render::job_json(*read) == json);
  }
}

TEST_CASE("a figure that was not finite reads back as unknown", "[json_read]") {
  JobReport report = test::four_node_job();
  report.usage.cpu_max_percent = std::numeric_limits<double>::infinity();
  report.usage.gpu_utilization_mean = kNaN;
  JobReport back = read_back(report);
  CHECK_FALSE(back.usage.cpu_max_percent);
  CHECK_FALSE(back.usage.gpu_utilization_mean);
  CHECK(render::job_json(back) == render::job_json(report));
}

TEST_CASE("the figures come back as the JSON has them", "[json_read]") {
  JobReport original = gpu_job();
  JobReport back = read_back(original);
  const model::JobUsage& usage = back.usage;
  CHECK(usage.job.job_id == "51240");
  CHECK(usage.job.name == "train");  // from the record: the JSON has no name
  CHECK(usage.runtime_seconds == 7200);
  CHECK(usage.cpu_time_total == 23000);
  CHECK(usage.cpu_avg_percent == 319.44);  // rounded as the JSON has it
  CHECK(usage.cpu_efficiency_percent == 319.44 / 4);
  CHECK(usage.memory_fraction == 0.8063);
  CHECK(usage.time_limit_fraction == 0.25);
  CHECK(usage.cores_used == 3);
  REQUIRE(usage.cpu_time_core.size() == 4);
  CHECK(usage.cpu_time_core[3].core == "gpu02_core_1");
  CHECK(usage.cpu_time_core[3].seconds == 2000);
  CHECK(usage.gpus == std::map<std::string, std::vector<std::string>>{{"gpu01", {"0"}}, {"gpu02", {"1"}}});
  CHECK(usage.threads_max == std::map<std::string, double>{{"python", 13}});
  CHECK(usage.read_mb == 40);
  CHECK(usage.uses_scratch);
  REQUIRE(back.findings.size() == original.findings.size());
  for (std::size_t i = 0; i < back.findings.size(); ++i) {
    CHECK(back.findings[i].rule == original.findings[i].rule);
    CHECK(back.findings[i].severity == original.findings[i].severity);
    CHECK(back.findings[i].message == original.findings[i].message);
    CHECK(back.findings[i].advice == original.findings[i].advice);
    CHECK(back.findings[i].unit == original.findings[i].unit);
  }
  CHECK(back.warning);
  // Another exporter's GPU series is the charts' "gpu_utilization", not a jobs_* series.
  CHECK(usage.gpu_utilization_series.size() == 2);
  CHECK(usage.series.count("gpu_utilization") == 0);
  CHECK(usage.series.size() == original.usage.series.size());
}

TEST_CASE("I/O without its metric reads back as not measured, with it as measured", "[json_read]") {
  JobReport report = running_job();  // no I/O series: the JSON's amounts are null
  JobReport back = read_back(report);
  CHECK(back.usage.read_mb == 0);
  CHECK(back.usage.write_count == 0);
  CHECK(render::job_json(back).find("\"amount\": null,\n      \"unit\": \"MB\",\n      \"count\": null") !=
        std::string::npos);
  JobReport serial = read_back(serial_job());
  CHECK(serial.usage.read_mb == 812.4);
  CHECK(serial.usage.read_count == 1800);
}

TEST_CASE("the CPU threshold comes from the JSON, the others from the caller", "[json_read]") {
  JobReport report = test::four_node_job();  // 32 CPUs
  model::RuleThresholds strict;
  strict.cpu_efficiency_warning = 72.5;
  report.thresholds = strict;
  std::string json = render::job_json(report);
  REQUIRE(json.find("\"lowest_expected_usage\": 2320") != std::string::npos);

  model::RuleThresholds config;  // the site's [rules] now: warning 80, another memory level
  config.memory_near_limit_ratio = 0.9;
  auto read = render::report_from_job_json(json, report.usage.job, report.usage.series, config);
  REQUIRE(read.ok());
  CHECK(read->thresholds.cpu_efficiency_warning == 72.5);  // 2320 / 32
  CHECK(read->thresholds.memory_near_limit_ratio == 0.9);
  CHECK(read->thresholds.cpu_efficiency_critical == config.cpu_efficiency_critical);

  // A level that the JSON's rounding reads the same keeps the caller's exact value.
  model::RuleThresholds thirds;
  thirds.cpu_efficiency_warning = 100.0 / 3;
  report.thresholds = thirds;
  read = render::report_from_job_json(render::job_json(report), report.usage.job, report.usage.series, thirds);
  REQUIRE(read.ok());
  CHECK(read->thresholds.cpu_efficiency_warning == 100.0 / 3);
  read = render::report_from_job_json(render::job_json(report), report.usage.job, report.usage.series, {});
  REQUIRE(read.ok());
  CHECK(read->thresholds.cpu_efficiency_warning == Approx(100.0 / 3).epsilon(1e-4));
  CHECK(render::job_json(*read) == render::job_json(report));
}

TEST_CASE("a job of which nothing is known reads back with its one sentence", "[json_read]") {
  JobReport report = test::no_usage_job();
  REQUIRE(report.usage.no_usage());
  JobReport back = read_back(report);
  CHECK(back.usage.no_usage());
  CHECK(back.usage.missing == std::vector<std::string>{report.usage.missing.front()});
  CHECK(back.findings.size() == report.findings.size());

  // Without a reason, the sentence that says nothing is known.
  report.usage.missing.clear();
  back = read_back(report);
  CHECK(back.usage.missing.empty());
  CHECK(render::job_json(back) == render::job_json(report));
}

TEST_CASE("a document that is not a job JSON is refused naming the key", "[json_read]") {
  const std::string json = render::job_json(test::four_node_job());
  struct Bad {
    std::string document;
    std::string named;
  };
  const Bad bad[] = {
      {"not json", "not a job JSON"},
      {"", "not a job JSON"},
      {"[1, 2]", "an array"},
      {"\"text\"", "a string"},
      {"{}", "\"jobid\" is missing"},
      {edited(json, "\"jobid\": 4242,\n", ""), "\"jobid\" is missing"},
      {edited(json, "\"jobid\": 4242", "\"jobid\": \"4242\""), "\"jobid\" is a string, not a number or null"},
      {edited(json, "\"runtime\": \"01:00:00\"", "\"runtime\": \"1 hour\""), "\"runtime\" is \"1 hour\""},
      {edited(json, "\"runtime\": \"01:00:00\"", "\"runtime\": \"01:60:00\""), "\"runtime\""},
      {edited(json, "\"uses_scratch\": false", "\"uses_scratch\": 0"), "\"uses_scratch\" is a number"},
      {edited(json, "\"threads\": {", "\"threads\": [0], \"x\": {"), "\"threads\" is an array, not an object"},
      {edited(json, "\"bash\": 4", "\"bash\": \"4\""), "\"threads.bash\" is a string"},
      {edited(json, "\"time\": 50400,\n      \"unit\": \"s\",\n      \"source\"",
              "\"time\": \"50400\",\n      \"unit\": \"s\",\n      \"source\""),
       "\"cpu.time_total.time\" is a string, not a number or null"},
      {edited(json, "\"source\": \"metrics\"", "\"source\": \"guess\""), "\"cpu.time_total.source\" is \"guess\""},
      {edited(json, "\"core\": \"node01_core_0\"", "\"core\": 0"), "\"cpu.time_core[0].core\" is a number"},
      {edited(json, "\"amount\": 24,\n      \"unit\"", "\"amount\": 3.5,\n      \"unit\""),
       "\"cpu.used.amount\" is not a whole number"},
      {edited(json, "\"ram\": {", "\"ram\": null, \"x\": {"), "\"ram\" is null, not an object"},
      {edited(json, "\"alloc_gpu\": {}", "\"alloc_gpu\": {\"gpu01\": [true]}"), "\"gpu.alloc_gpu.gpu01[0]\" is true"},
      {edited(json, "\"per_gpu\": []", "\"per_gpu\": [{}]"), "\"gpu.utilization.per_gpu[0].node\" is missing"},
      {edited(json, "\"opened_files\": 48", "\"opened_files\": [48]"), "\"io.opened_files\" is an array"},
      {edited(json, "\"missing\": []", "\"missing\": [1]"), "\"missing[0]\" is a number, not a string"},
      {edited(json, "\"severity\": \"critical\"", "\"severity\": \"fatal\""), "\"findings[0].severity\" is \"fatal\""},
      {edited(json, "\"warning\": true", "\"warning\": \"yes\""), "\"warning\" is a string, not true or false"},
  };
  for (const Bad& b : bad) {
    INFO(b.document.substr(0, 200));
    Error error = refusal_of(b.document);
    CHECK(error.kind == Error::Kind::BadInput);
    INFO(error.message);
    CHECK(error.message.find(b.named) != std::string::npos);
  }
  CHECK(refusal_of(edited(json, "\"cpu\": {", "\"cpu\": 1, \"x\": {")).message.find("\"cpu\" is a number") !=
        std::string::npos);
  CHECK(refusal_of(edited(json, "\"findings\": [", "\"findings\": 7, \"x\": [")).message ==
        "not a job JSON: \"findings\" is a number, not an array");
}

TEST_CASE("a job JSON with keys it does not know is read all the same", "[json_read]") {
  JobReport report = test::page_cache_job();
  const std::string json = render::job_json(report);
  std::string marked =
      edited(json, "{\n", "{\n  \"source\": \"archive\",\n  \"archived_at\": \"2026-12-01T00:00:00Z\",\n");
  marked = edited(marked, "\"peak\": {", "\"peak\": {\"note\": [1, {\"x\": null}], ");
  marked = edited(marked, "\"rule\":", "\"links\": {\"pdf\": \"/pdf/4300\"}, \"rule\":");
  auto read = render::report_from_job_json(marked, report.usage.job, report.usage.series, {});
  INFO((read ? std::string() : read.error().message));
  REQUIRE(read.ok());
  CHECK(render::job_json(*read) == json);
  // Compact, as another tool may have rewritten it.
  std::string compact;
  for (char ch : json)
    if (ch != '\n') compact += ch;
  read = render::report_from_job_json(compact, report.usage.job, report.usage.series, {});
  REQUIRE(read.ok());
  CHECK(render::job_json(*read) == json);
}

TEST_CASE("a core's CPU time with more places than job_json prints writes back stable shares", "[json_read]") {
  // Found by the job_json_read fuzz harness (test/fuzz/regressions/
  // job_json_read/percent-of-total-drifts): 5.0625 s was printed 5.06, and
  // the shares written from 5.0625 moved by 0.01 on the next reading.
  const std::string doc = read_file(test::fixtures_dir().parent_path() / "fuzz" / "regressions" / "job_json_read" /
                                    "percent-of-total-drifts");
  REQUIRE_FALSE(doc.empty());
  JobReport report = test::four_node_job();
  auto first = render::report_from_job_json(doc, report.usage.job, {}, {});
  REQUIRE(first.ok());
  const std::string written = render::job_json(*first);
  auto second = render::report_from_job_json(written, report.usage.job, {}, {});
  REQUIRE(second.ok());
  CHECK(difference(render::job_json(*second), written) == "");
}
