#include "render/job_charts.hpp"
#include "render/job_render.hpp"

#include "sample_jobs.hpp"

#include "catch.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <set>

using namespace petricore;
using petricore::render::ChartLine;
using petricore::render::LineChart;

namespace {

std::vector<std::string> labels_of(const LineChart& chart) {
  std::vector<std::string> out;
  for (const ChartLine& line : chart.lines) out.push_back(line.label);
  return out;
}

double pie_total(const render::PieChart& pie) {
  return std::accumulate(pie.slices.begin(), pie.slices.end(), 0.0,
                         [](double sum, const render::PieSlice& s) { return sum + s.value; });
}

// A one-node job with `count` series of `metric`, series i at the constant i + 1.
model::JobReport job_with_many_series(const std::string& metric, int count) {
  model::JobRecord job;
  job.job_id = job.raw_id = "77";
  job.state = "COMPLETED";
  job.start = test::kSampleStart;
  job.end = test::kSampleStart + 600;
  job.alloc_cpus = count;
  job.alloc_nodes = 1;
  std::map<std::string, std::vector<model::Series>> m;
  for (int i = 0; i < count; ++i)
    m[metric].push_back(test::sample_series({{"instance", "node01"}, {"core", std::to_string(i)}}, 41, 15,
                                            [i](std::size_t) { return i + 1.0; }));
  return test::report_from(std::move(job), std::move(m));
}

}  // namespace

TEST_CASE("chart metrics start with CPU percent, memory, reads and writes, each with a unit", "[job_charts]") {
  const auto& metrics = render::chart_metrics();
  REQUIRE(metrics.size() >= 4);
  CHECK(metrics[0].metric == "jobs_cpu_percent");
  CHECK(metrics[1].metric == "jobs_rss");
  CHECK(metrics[2].metric == "jobs_read_mb");
  CHECK(metrics[3].metric == "jobs_write_mb");
  std::set<std::string> names;
  for (const auto& m : metrics) {
    names.insert(m.metric);
    CHECK((m.metric.rfind("jobs_", 0) == 0 || m.metric == render::kGpuUtilization));
    CHECK_FALSE(m.title.empty());
    INFO(m.metric);
    CHECK(m.y_title.find('(') != std::string::npos);  // the unit
  }
  CHECK(names.size() == metrics.size());
  for (const char* expected :
       {"jobs_cpu_percent_per_core", "jobs_memory_peak_mb", "jobs_read_count", "jobs_write_count", "jobs_opened_files",
        "jobs_spawned_processes", "jobs_thread_count", "jobs_user_time", "jobs_system_time", "jobs_cpu_time_total",
        "jobs_cpu_time_core", "jobs_uses_scratch", "jobs_memory_limit_mb", "jobs_cpus_allocated",
        "jobs_memory_file_mb"})
    CHECK(names.count(expected) == 1);
  CHECK(metrics[1].y_title == "Resident memory (MiB)");
  // The cgroup's peak is not the job's use: its title says the cache is in it.
  for (const auto& m : metrics) {
    INFO(m.metric);
    if (m.metric == "jobs_memory_peak_mb") CHECK(m.title.find("page cache") != std::string::npos);
    if (m.metric == "jobs_memory_file_mb") CHECK(m.title == "Page cache (reclaimable)");
  }
}

TEST_CASE("the page cache chart of a job that streamed a file", "[job_charts]") {
  auto chart = render::metric_chart(test::page_cache_job(), "jobs_memory_file_mb");
  REQUIRE(chart.ok());
  CHECK(chart->title == "Page cache (reclaimable) of job 4300");
  REQUIRE(chart->lines.size() == 1);
  CHECK(chart->lines[0].points.back().value == Approx(510));
  auto peak = render::metric_chart(test::page_cache_job(), "jobs_memory_peak_mb");
  REQUIRE(peak.ok());
  CHECK(peak->title == "Peak memory with page cache of job 4300");
}

TEST_CASE("CPU chart of a four-node job: one line per node and the per-node reference line", "[job_charts]") {
  auto report = test::four_node_job();
  auto chart = render::metric_chart(report, "jobs_cpu_percent");
  REQUIRE(chart.ok());
  CHECK(chart->title == "CPU use of job 4242");
  CHECK(chart->y_title == "CPU (% of one CPU)");
  CHECK(labels_of(*chart) == std::vector<std::string>{"node01", "node02", "node03", "node04"});
  CHECK(chart->lines[0].points.size() == 241);
  CHECK(chart->lines[2].points[10].value == Approx(400));
  CHECK(chart->lines[0].points[0].time == Approx(test::kSampleStart));
  REQUIRE(chart->reference.has_value());
  CHECK(*chart->reference == Approx(80.0 * 32 / 4));  // 640
  CHECK(chart->reference_label == "lowest expected: 80 % of 8 CPUs per node");
  CHECK(chart->start == Approx(test::kSampleStart));
  CHECK(chart->end == Approx(test::kSampleStart + 3600));
  CHECK(chart->omitted_lines == 0);
}

TEST_CASE("configured thresholds move the CPU reference line", "[job_charts]") {
  model::RuleThresholds thresholds;
  thresholds.cpu_efficiency_warning = 50;
  auto chart = render::metric_chart(test::four_node_job(), "jobs_cpu_percent", thresholds);
  REQUIRE(chart.ok());
  CHECK(*chart->reference == Approx(400));
}

TEST_CASE("only the CPU percent chart has a reference line", "[job_charts]") {
  auto chart = render::metric_chart(test::four_node_job(), "jobs_rss");
  REQUIRE(chart.ok());
  CHECK_FALSE(chart->reference.has_value());
  CHECK(chart->title == "Resident memory of job 4242");
}

TEST_CASE("core lines are labelled by node and core and sorted numerically", "[job_charts]") {
  auto report = test::four_node_job();
  // Core 10 of node01 sorts after core 7, not after core 1.
  report.usage.series["jobs_cpu_time_core"].push_back(
      test::sample_series({{"instance", "node01"}, {"core", "10"}}, 5, 15, [](std::size_t) { return 1.0; }));
  auto chart = render::metric_chart(report, "jobs_cpu_time_core");
  REQUIRE(chart.ok());
  auto labels = labels_of(*chart);
  REQUIRE(labels.size() == 33);
  CHECK(labels[0] == "node01 core 0");
  CHECK(labels[7] == "node01 core 7");
  CHECK(labels[8] == "node01 core 10");
  CHECK(labels[9] == "node02 core 0");
  CHECK(labels[32] == "node04 core 7");
}

TEST_CASE("thread lines are labelled by process name, with the node when the job has several", "[job_charts]") {
  auto chart = render::metric_chart(test::four_node_job(), "jobs_thread_count");
  REQUIRE(chart.ok());
  auto labels = labels_of(*chart);
  REQUIRE(labels.size() == 8);
  CHECK(labels[0] == "bash on node01");
  CHECK(labels[1] == "solver on node01");
  CHECK(labels[7] == "solver on node04");

  auto single = job_with_many_series("jobs_cpu_percent", 1);
  single.usage.series["jobs_thread_count"] = {
      test::sample_series({{"instance", "node01"}, {"proc_name", "solver"}}, 3, 15, [](std::size_t) { return 4.0; })};
  auto one = render::metric_chart(single, "jobs_thread_count");
  REQUIRE(one.ok());
  CHECK(labels_of(*one) == std::vector<std::string>{"solver"});
}

TEST_CASE("more series than a chart holds: the largest kept, the rest summed into others", "[job_charts]") {
  auto report = job_with_many_series("jobs_cpu_time_core", 100);
  auto chart = render::metric_chart(report, "jobs_cpu_time_core");
  REQUIRE(chart.ok());
  REQUIRE(chart->lines.size() == render::kMaxChartLines);
  CHECK(chart->omitted_lines == 0);  // the "others" line shows them
  // The 63 largest (values 38..100) in core order, then the sum of 1..37.
  CHECK(chart->lines[0].label == "node01 core 37");
  CHECK(chart->lines[0].points[0].value == Approx(38));
  CHECK(chart->lines[62].label == "node01 core 99");
  CHECK(chart->lines[63].label == "others (37 series)");
  CHECK(chart->lines[63].points.size() == 41);
  CHECK(chart->lines[63].points[5].value == Approx(37 * 38 / 2));
}

TEST_CASE("more series than a chart holds of a metric that does not add up: the rest left out", "[job_charts]") {
  auto chart = render::metric_chart(job_with_many_series("jobs_cpu_percent_per_core", 70), "jobs_cpu_percent_per_core");
  REQUIRE(chart.ok());
  CHECK(chart->lines.size() == render::kMaxChartLines);
  CHECK(chart->omitted_lines == 6);
  for (const auto& line : chart->lines) CHECK(line.label.find("others") == std::string::npos);
}

TEST_CASE("a metric petricore does not plot is bad input", "[job_charts]") {
  auto chart = render::metric_chart(test::four_node_job(), "node_load1");
  REQUIRE_FALSE(chart.ok());
  CHECK(chart.error().kind == Error::Kind::BadInput);
  CHECK(chart.error().message.find("node_load1") != std::string::npos);
}

TEST_CASE("a metric the job has no series of is not found", "[job_charts]") {
  auto chart = render::metric_chart(test::four_node_job(), "jobs_memory_peak_mb");
  REQUIRE_FALSE(chart.ok());
  CHECK(chart.error().kind == Error::Kind::NotFound);
}

TEST_CASE("series whose samples were dropped (a cached report) are not found", "[job_charts]") {
  auto report = test::four_node_job();
  for (auto& s : report.usage.series["jobs_rss"]) s.samples.clear();
  auto chart = render::metric_chart(report, "jobs_rss");
  REQUIRE_FALSE(chart.ok());
  CHECK(chart.error().kind == Error::Kind::NotFound);
}

TEST_CASE("a running job's chart ends at its latest sample", "[job_charts]") {
  auto report = test::four_node_job();
  report.usage.job.end.reset();
  auto chart = render::metric_chart(report, "jobs_rss");
  REQUIRE(chart.ok());
  CHECK(chart->end == Approx(test::kSampleStart + 240 * 15));
}

TEST_CASE("non-finite samples become gaps in the line", "[job_charts]") {
  auto report = test::four_node_job();
  report.usage.series["jobs_rss"][0].samples[3].value = std::numeric_limits<double>::infinity();
  auto chart = render::metric_chart(report, "jobs_rss");
  REQUIRE(chart.ok());
  CHECK(std::isnan(chart->lines[0].points[3].value));
}

TEST_CASE("the user vs system pie adds up to the job's user and system time", "[job_charts]") {
  auto report = test::four_node_job();
  auto pie = render::cpu_mode_pie(report);
  REQUIRE(pie.ok());
  REQUIRE(pie->slices.size() == 2);
  CHECK(pie->slices[0].label == "User");
  CHECK(pie->slices[1].label == "System");
  CHECK(pie->unit == "s");
  CHECK(pie->slices[0].value == Approx(*report.usage.user_time));
  CHECK(pie_total(*pie) == Approx(*report.usage.user_time + *report.usage.system_time));
}

TEST_CASE("the per-core pie has one slice per core that add up to the core times", "[job_charts]") {
  auto report = test::four_node_job();
  auto pie = render::cpu_core_pie(report);
  REQUIRE(pie.ok());
  REQUIRE(pie->slices.size() == report.usage.cpu_time_core.size());
  CHECK(pie->slices.size() == 32);
  CHECK(pie->slices[0].label == "node01 core 0");
  CHECK(pie->slices[31].label == "node04 core 7");
  double total = 0;
  for (const auto& c : report.usage.cpu_time_core) total += c.seconds;
  CHECK(pie_total(*pie) == Approx(total));
}

TEST_CASE("pies of a job without CPU times are not found", "[job_charts]") {
  model::JobReport report;
  report.usage.job.job_id = "5";
  CHECK(render::cpu_mode_pie(report).error().kind == Error::Kind::NotFound);
  CHECK(render::cpu_core_pie(report).error().kind == Error::Kind::NotFound);
}

TEST_CASE("a hole in a series breaks its line instead of bridging it", "[job_charts]") {
  auto report = job_with_many_series("jobs_rss", 1);
  auto& samples = report.usage.series["jobs_rss"][0].samples;
  samples.erase(samples.begin() + 10, samples.begin() + 20);  // 150 s without samples, step 15 s
  auto chart = render::metric_chart(report, "jobs_rss");
  REQUIRE(chart.ok());
  const auto& points = chart->lines[0].points;
  REQUIRE(points.size() == 32);
  CHECK(std::isnan(points[10].value));
  CHECK(std::count_if(points.begin(), points.end(), [](const render::ChartPoint& p) { return std::isnan(p.value); }) ==
        1);
}

TEST_CASE("GPU utilisation is charted per GPU from the GPU exporter's series", "[job_charts]") {
  auto report = job_with_many_series("jobs_rss", 1);
  CHECK(render::metric_chart(report, render::kGpuUtilization).error().kind == Error::Kind::NotFound);
  report.usage.gpu_utilization_series = {
      test::sample_series({{"instance", "gpu10.cluster:9445"}, {"gpu", "1"}}, 5, 15, [](std::size_t) { return 0.0; }),
      test::sample_series({{"instance", "gpu2.cluster:9445"}, {"gpu", "0"}}, 5, 15, [](std::size_t) { return 50.0; })};
  auto chart = render::metric_chart(report, render::kGpuUtilization);
  REQUIRE(chart.ok());
  CHECK(labels_of(*chart) == std::vector<std::string>{"gpu2 GPU 0", "gpu10 GPU 1"});
  CHECK(chart->y_top_at_least == 100);  // a percentage of each GPU
  CHECK(chart->y_title == "GPU utilisation (%)");
  CHECK_FALSE(chart->reference);
}

TEST_CASE("petricore's GPU series are charted one line per GPU, labelled by node and GPU", "[job_charts]") {
  auto report = test::gpu_training_job();
  auto busy = render::metric_chart(report, "jobs_gpu_utilization_percent");
  REQUIRE(busy.ok());
  CHECK(labels_of(*busy) == std::vector<std::string>{"gpu03 GPU 0", "gpu03 GPU 1"});
  CHECK(busy->y_top_at_least == 100);
  CHECK(busy->title == "GPU utilisation of job 4400");
  CHECK_FALSE(busy->reference);
  auto memory = render::metric_chart(report, "jobs_gpu_memory_used_mb");
  REQUIRE(memory.ok());
  CHECK(labels_of(*memory) == std::vector<std::string>{"gpu03 GPU 0", "gpu03 GPU 1"});
  CHECK(memory->y_top_at_least == 40960);  // the device's memory
  CHECK(memory->y_title == "GPU memory used (MiB)");
  auto power = render::metric_chart(report, "jobs_gpu_power_watts");
  REQUIRE(power.ok());
  CHECK(labels_of(*power) == std::vector<std::string>{"gpu03 GPU 0", "gpu03 GPU 1"});
  // A job without them: not found, as any metric without series.
  CHECK(render::metric_chart(test::four_node_job(), "jobs_gpu_utilization_percent").error().kind ==
        Error::Kind::NotFound);
}

TEST_CASE("the configured cpu_efficiency level sets the dashed line and the JSON's lowest expected use",
          "[job_charts]") {
  auto report = test::four_node_job();
  report.thresholds.cpu_efficiency_warning = 50;
  auto chart = render::metric_chart(report, "jobs_cpu_percent");
  REQUIRE(chart.ok());
  REQUIRE(chart->reference);
  CHECK(*chart->reference == Approx(50 * 8));
  CHECK(render::job_json(report).find("\"lowest_expected_usage\": 1600") != std::string::npos);
}
