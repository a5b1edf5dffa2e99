// summarize(): the §5 aggregates from range-query series, for one node and
// for several nodes whose samples do not all line up.
#include "analysis/job_usage.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

using namespace petricore::analysis;

namespace {

using Labels = std::map<std::string, std::string>;
using Metrics = std::map<std::string, std::vector<Series>>;

constexpr double kT0 = 1'800'000'000;  // the range query's first instant
constexpr double kStep = 15;

// A series of one node with values at kT0, kT0 + step, ...; NaN marks an
// instant the node has no sample for (a gap in the range query's answer).
Series on_grid(Labels labels, std::vector<double> values) {
  Series s;
  s.labels = std::move(labels);
  for (std::size_t i = 0; i < values.size(); ++i)
    if (!std::isnan(values[i])) s.samples.push_back({kT0 + kStep * static_cast<double>(i), values[i]});
  return s;
}

Labels node(const std::string& instance, Labels extra = {}) {
  extra["instance"] = instance;
  extra["slurm_job"] = "4242";
  return extra;
}

JobRecord finished_job() {
  JobRecord job;
  job.job_id = job.raw_id = "4242";
  job.state = "COMPLETED";
  job.start = static_cast<std::int64_t>(kT0) - 5;
  job.end = static_cast<std::int64_t>(kT0) + 600;
  job.alloc_cpus = 4;
  return job;
}

const double kGap = std::numeric_limits<double>::quiet_NaN();

// An aggregate's value, NaN when absent: a failed comparison then prints nan.
double known(const std::optional<double>& value) {
  return value.value_or(std::nan(""));
}

}  // namespace

TEST_CASE("one node: means and maxima over time, last values of counters", "[usage]") {
  Metrics metrics;
  metrics["jobs_cpu_percent"] = {on_grid(node("n1"), {100, 200, 300})};
  metrics["jobs_cpu_time_total"] = {on_grid(node("n1"), {10, 20, 30})};
  metrics["jobs_user_time"] = {on_grid(node("n1"), {8, 16, 25})};
  metrics["jobs_system_time"] = {on_grid(node("n1"), {2, 4, 5})};
  metrics["jobs_cpu_time_core"] = {on_grid(node("n1", {{"core", "3"}}), {5, 10, 15}),
                                   on_grid(node("n1", {{"core", "10"}}), {1, 2, 2}),
                                   on_grid(node("n1", {{"core", "2"}}), {5, 10, 13})};
  metrics["jobs_memory_peak_mb"] = {on_grid(node("n1"), {100, 300, 300})};
  metrics["jobs_rss"] = {on_grid(node("n1"), {50, 250, 120})};
  metrics["jobs_opened_files"] = {on_grid(node("n1"), {10, 20, 30})};
  metrics["jobs_read_mb"] = {on_grid(node("n1"), {1, 5, 7.5})};
  metrics["jobs_write_mb"] = {on_grid(node("n1"), {0, 2, 3})};
  metrics["jobs_read_count"] = {on_grid(node("n1"), {10, 50, 75})};
  metrics["jobs_write_count"] = {on_grid(node("n1"), {0, 20, 30})};
  metrics["jobs_uses_scratch"] = {on_grid(node("n1"), {0, 0, 1})};
  metrics["jobs_thread_count"] = {on_grid(node("n1", {{"proc_name", "python"}}), {4, 8, 6}),
                                  on_grid(node("n1", {{"proc_name", "bash"}}), {1, 1, 1})};
  metrics["jobs_gpus_used"] = {on_grid(node("n1", {{"gpuid", "10"}}), {1, 1, 1}),
                               on_grid(node("n1", {{"gpuid", "2"}}), {1, 1, 1}),
                               on_grid(node("n1", {{"gpuid", "1"}}), {1, 1, 1})};

  JobUsage usage = summarize(finished_job(), metrics, std::nullopt);

  CHECK_FALSE(usage.no_metrics());
  CHECK(usage.runtime_seconds == 605);
  CHECK(known(usage.cpu_avg_percent) == Approx(200));
  CHECK(known(usage.cpu_max_percent) == Approx(300));
  CHECK(known(usage.cpu_time_total) == Approx(30));
  CHECK(known(usage.user_time) == Approx(25));
  CHECK(known(usage.system_time) == Approx(5));
  REQUIRE(usage.cpu_time_core.size() == 3);
  CHECK(usage.cpu_time_core[0].core == "n1_core_2");  // cores in numeric order
  CHECK(usage.cpu_time_core[1].core == "n1_core_3");
  CHECK(usage.cpu_time_core[2].core == "n1_core_10");
  CHECK(usage.cpu_time_core[1].seconds == Approx(15));
  CHECK(usage.cores_used == 2);                       // mean 10: 13 and 15 count, 2 does not
  CHECK(known(usage.memory_peak_mb) == Approx(300));  // the cgroup peak wins over the RSS samples
  CHECK(known(usage.opened_files_avg) == Approx(20));
  CHECK(usage.read_mb == Approx(7.5));
  CHECK(usage.write_mb == Approx(3));
  CHECK(usage.read_count == Approx(75));
  CHECK(usage.write_count == Approx(30));
  CHECK(usage.uses_scratch);
  CHECK(usage.threads_max == std::map<std::string, double>{{"bash", 1}, {"python", 8}});
  CHECK(usage.gpus == std::map<std::string, std::vector<std::string>>{{"n1", {"1", "2", "10"}}});
  CHECK_FALSE(usage.gpu_utilization_max.has_value());
  CHECK(usage.series.size() == metrics.size());
}

TEST_CASE("four nodes: job-wide values sum the nodes present at each instant", "[usage]") {
  Metrics metrics;
  // n2 starts late and stops early; n3's timestamps carry the noise of
  // decoding "1800000000.000" into a double; n4 exported no CPU percent.
  Series jittered = on_grid(node("n3"), {100, 100, 100, 100});
  for (Sample& sample : jittered.samples) sample.time += 0.0004;
  metrics["jobs_cpu_percent"] = {on_grid(node("n1"), {100, 100, 100, 100}), on_grid(node("n2"), {kGap, 100, 100, kGap}),
                                 jittered};
  metrics["jobs_cpu_time_total"] = {on_grid(node("n1"), {10, 40}), on_grid(node("n2"), {kGap, 5, 30}),
                                    on_grid(node("n3"), {50}), on_grid(node("n4"), {20, kGap})};
  metrics["jobs_memory_peak_mb"] = {on_grid(node("n1"), {1000}), on_grid(node("n2"), {500, 2000})};
  // n3 and n4 have no peak metric: their highest RSS sample stands in.
  metrics["jobs_rss"] = {on_grid(node("n1"), {900}), on_grid(node("n3"), {100, 500, 200}), on_grid(node("n4"), {300})};
  metrics["jobs_thread_count"] = {on_grid(node("n1", {{"proc_name", "python"}}), {4, 4, 4, 4}),
                                  on_grid(node("n2", {{"proc_name", "python"}}), {kGap, 8, 8, kGap}),
                                  on_grid(node("n3", {{"proc_name", "bash"}}), {1})};
  metrics["jobs_opened_files"] = {on_grid(node("n1"), {10, 10, 10, 10}), on_grid(node("n2"), {kGap, 20, 20, kGap})};
  metrics["jobs_read_mb"] = {on_grid(node("n1"), {1, 2}), on_grid(node("n2"), {3, 4}), on_grid(node("n3"), {5}),
                             on_grid(node("n4"), {6, 7})};
  metrics["jobs_cpu_time_core"] = {on_grid(node("n2", {{"core", "1"}}), {30}),
                                   on_grid(node("n1", {{"core", "10"}}), {20}),
                                   on_grid(node("n1", {{"core", "2"}}), {20})};
  metrics["jobs_gpus_used"] = {on_grid(node("n2", {{"gpuid", "1"}}), {1}), on_grid(node("n2", {{"gpuid", "0"}}), {1}),
                               on_grid(node("n4", {{"gpuid", "3"}}), {1})};
  metrics["jobs_uses_scratch"] = {on_grid(node("n1"), {0, 0}), on_grid(node("n2"), {0, 0})};

  JobUsage usage = summarize(finished_job(), metrics, std::vector<Series>{});

  // Instants: n1+n3, n1+n2+n3, n1+n2+n3, n1+n3.
  CHECK(known(usage.cpu_avg_percent) == Approx(250));
  CHECK(known(usage.cpu_max_percent) == Approx(300));
  CHECK(known(usage.cpu_time_total) == Approx(40 + 30 + 50 + 20));
  CHECK(known(usage.memory_peak_mb) == Approx(1000 + 2000 + 500 + 300));
  CHECK(usage.threads_max.at("python") == Approx(12));
  CHECK(usage.threads_max.at("bash") == Approx(1));
  CHECK(known(usage.opened_files_avg) == Approx(20));  // 10, 30, 30, 10
  CHECK(usage.read_mb == Approx(2 + 4 + 5 + 7));
  CHECK(usage.write_mb == 0);  // no series: zero, as the contract says
  REQUIRE(usage.cpu_time_core.size() == 3);
  CHECK(usage.cpu_time_core[0].core == "n1_core_2");
  CHECK(usage.cpu_time_core[1].core == "n1_core_10");
  CHECK(usage.cpu_time_core[2].core == "n2_core_1");
  CHECK(usage.cores_used == 3);
  CHECK(usage.gpus == std::map<std::string, std::vector<std::string>>{{"n2", {"0", "1"}}, {"n4", {"3"}}});
  CHECK_FALSE(usage.uses_scratch);
  // Utilisation asked for, but no series came back: still unknown.
  CHECK_FALSE(usage.gpu_utilization_max.has_value());
}

TEST_CASE("a job without samples has no aggregates and divides by nothing", "[usage]") {
  Metrics metrics;
  metrics["jobs_cpu_percent"] = {};                // the range query found no series
  metrics["jobs_rss"] = {Series{node("n1"), {}}};  // a series without samples
  JobUsage usage = summarize(finished_job(), metrics, std::nullopt);

  CHECK(usage.no_metrics());
  CHECK(usage.series.empty());
  CHECK_FALSE(usage.cpu_avg_percent.has_value());
  CHECK_FALSE(usage.cpu_max_percent.has_value());
  CHECK_FALSE(usage.cpu_time_total.has_value());
  CHECK_FALSE(usage.memory_peak_mb.has_value());
  CHECK_FALSE(usage.opened_files_avg.has_value());
  CHECK(usage.cores_used == 0);
  CHECK(usage.read_mb == 0);
  CHECK(usage.threads_max.empty());
  CHECK(usage.gpus.empty());
  CHECK(usage.runtime_seconds == 605);
}

TEST_CASE("NaN and infinite samples are ignored, never averaged", "[usage]") {
  const double inf = std::numeric_limits<double>::infinity();
  Metrics metrics;
  metrics["jobs_cpu_percent"] = {on_grid(node("n1"), {100, kGap, 300}),
                                 Series{node("n2"), {{kT0, inf}, {kT0 + kStep, std::nan("")}}}};
  metrics["jobs_cpu_time_total"] = {Series{node("n1"), {{kT0, 12}, {kT0 + kStep, std::nan("")}}}};
  JobUsage usage = summarize(finished_job(), metrics, std::vector<Series>{Series{node("n1"), {{kT0, std::nan("")}}}});

  CHECK(known(usage.cpu_avg_percent) == Approx(200));
  CHECK(known(usage.cpu_max_percent) == Approx(300));
  CHECK(known(usage.cpu_time_total) == Approx(12));  // the last finite sample
  CHECK_FALSE(usage.gpu_utilization_max.has_value());
}

TEST_CASE("cores_used counts cores with at least 0.8 x the mean per-core time", "[usage]") {
  auto cores_used = [](std::vector<double> seconds) {
    Metrics metrics;
    for (std::size_t i = 0; i < seconds.size(); ++i)
      metrics["jobs_cpu_time_core"].push_back(on_grid(node("n1", {{"core", std::to_string(i)}}), {seconds[i]}));
    return summarize(finished_job(), metrics, std::nullopt).cores_used;
  };
  CHECK(cores_used({100, 100, 100, 100}) == 4);
  CHECK(cores_used({100, 100, 100, 60}) == 3);  // mean 90, bar 72
  CHECK(cores_used({100, 100, 100, 76}) == 4);  // mean 94, bar 75.2
  CHECK(cores_used({400, 0, 0, 0}) == 1);       // a serial job
  CHECK(cores_used({0, 0, 0, 0}) == 0);         // no CPU at all: no core used, not all of them
  CHECK(cores_used({}) == 0);
}

TEST_CASE("GPU utilisation is the highest sample of any of the job's GPUs", "[usage]") {
  std::vector<Series> utilisation = {on_grid({{"instance", "n1"}, {"gpu", "0"}}, {0, 0, 0}),
                                     on_grid({{"instance", "n1"}, {"gpu", "1"}}, {0, 35, 10})};
  CHECK(known(summarize(finished_job(), {}, utilisation).gpu_utilization_max) == Approx(35));
  utilisation.pop_back();
  CHECK(known(summarize(finished_job(), {}, utilisation).gpu_utilization_max) == Approx(0));
}

TEST_CASE("a running job's runtime reaches its latest sample", "[usage]") {
  JobRecord job = finished_job();
  job.end.reset();
  job.state = "RUNNING";
  Metrics metrics;
  metrics["jobs_cpu_percent"] = {on_grid(node("n1"), {100, 100, 100})};
  CHECK(summarize(job, metrics, std::nullopt).runtime_seconds == 35);  // 5 s before kT0, 30 s after
  job.start.reset();
  CHECK_FALSE(summarize(job, metrics, std::nullopt).runtime_seconds.has_value());
}

TEST_CASE("downsampling keeps each run's lowest and highest sample in time order", "[usage]") {
  std::vector<Sample> samples;
  for (int i = 0; i < 100; ++i) samples.push_back({double(i), i == 37 ? -5.0 : i == 62 ? 500.0 : 1.0});
  samples.push_back({100, std::nan("")});
  std::vector<Sample> few = {{0, 1}, {1, std::nan("")}, {2, 3}};
  downsample(few, 10);
  CHECK(few.size() == 2);  // NaN dropped, nothing else to do

  downsample(samples, 10);
  CHECK(samples.size() <= 10);
  CHECK(samples.front().time == 0);
  auto has = [&](double value) {
    return std::any_of(samples.begin(), samples.end(), [&](const Sample& s) { return s.value == value; });
  };
  CHECK(has(-5.0));
  CHECK(has(500.0));
  for (std::size_t i = 1; i < samples.size(); ++i) CHECK(samples[i - 1].time < samples[i].time);
}

TEST_CASE("the node behind an instance label: short name, addresses whole", "[usage]") {
  CHECK(short_node_name("gpu1.cluster:9445") == "gpu1");
  CHECK(short_node_name("gpu1:9445") == "gpu1");
  CHECK(short_node_name("node01") == "node01");
  CHECK(short_node_name("10.0.0.5:9445") == "10.0.0.5");
  CHECK(short_node_name("[fe80::1]:9445") == "fe80::1");
  CHECK(short_node_name("") == "");
}
