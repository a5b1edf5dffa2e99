// summarize(): the §5 aggregates from range-query series, for one node and
// for several nodes whose samples do not all line up.
#include "analysis/usage_summary.hpp"

#include "catch.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

using namespace petricore::analysis;
using namespace petricore::model;

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
  // The mean is seff's: the final CPU time over the runtime (30 s in 605 s).
  CHECK(known(usage.cpu_avg_percent) == Approx(100.0 * 30 / 605));
  CHECK(known(usage.cpu_max_percent) == Approx(300));
  CHECK(known(usage.cpu_time_total) == Approx(30));
  CHECK(known(usage.user_time) == Approx(25));
  CHECK(known(usage.system_time) == Approx(5));
  REQUIRE(usage.cpu_time_core.size() == 3);
  CHECK(usage.cpu_time_core[0].core == "n1_core_2");  // cores in numeric order
  CHECK(usage.cpu_time_core[1].core == "n1_core_3");
  CHECK(usage.cpu_time_core[2].core == "n1_core_10");
  CHECK(usage.cpu_time_core[1].seconds == Approx(15));
  CHECK(usage.cores_used == 2);                           // mean 10: 13 and 15 count, 2 does not
  CHECK(known(usage.memory_resident_mb) == Approx(250));  // the highest jobs_rss sample
  CHECK(known(usage.memory_peak_mb) == Approx(300));      // the cgroup's own high-water mark
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

  // Instants: n1+n3, n1+n2+n3, n1+n2+n3, n1+n3: the max is 300 %. The mean
  // is the four nodes' CPU time over the runtime.
  CHECK(known(usage.cpu_avg_percent) == Approx(100.0 * (40 + 30 + 50 + 20) / 605));
  CHECK(known(usage.cpu_max_percent) == Approx(300));
  CHECK(known(usage.cpu_time_total) == Approx(40 + 30 + 50 + 20));
  CHECK(known(usage.memory_peak_mb) == Approx(1000 + 2000 + 500 + 300));
  CHECK(known(usage.memory_resident_mb) == Approx(900 + 500 + 300));  // n2 has no jobs_rss
  CHECK(usage.resident_peak_by_node == std::map<std::string, double>{{"n1", 900}, {"n3", 500}, {"n4", 300}});
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

  CHECK(known(usage.cpu_avg_percent) == Approx(100.0 * 12 / 605));
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

TEST_CASE("petricore's own GPU series: per GPU mean and max, memory peak and size, mean power", "[usage][gpu]") {
  Metrics metrics;
  auto gpu = [](const char* id) { return node("n1", {{"gpuid", id}}); };
  metrics["jobs_gpus_used"] = {on_grid(gpu("0"), {1, 1, 1}), on_grid(gpu("1"), {1, 1, 1}),
                               on_grid(gpu("10"), {1, 1, 1})};
  metrics["jobs_gpu_utilization_percent"] = {on_grid(gpu("10"), {0, 0, 0}), on_grid(gpu("0"), {10, 20, 30}),
                                             on_grid(gpu("1"), {50, kGap, 70})};
  // A MIG instance has memory but no utilisation of its own.
  metrics["jobs_gpu_memory_used_mb"] = {on_grid(gpu("0"), {1000, 4000, 2000}), on_grid(gpu("1"), {3000, 1000, 1000}),
                                        on_grid(gpu("2/1"), {500, 500, 500})};
  metrics["jobs_gpu_memory_total_mb"] = {on_grid(gpu("0"), {40960, 40960, 40960}),
                                         on_grid(gpu("1"), {40960, 40960, 40960}),
                                         on_grid(gpu("2/1"), {10240, 10240, 10240})};
  metrics["jobs_gpu_power_watts"] = {on_grid(gpu("0"), {100, 200, 300}), on_grid(gpu("1"), {100, 100, 100})};
  JobUsage usage = summarize(finished_job(), metrics, std::nullopt);

  REQUIRE(usage.gpu_devices.size() == 4);
  std::vector<std::string> order;
  for (const GpuUsage& g : usage.gpu_devices) order.push_back(g.node + ":" + g.gpuid);
  CHECK(order == std::vector<std::string>{"n1:0", "n1:1", "n1:2/1", "n1:10"});  // numbers as numbers, MIG after its GPU
  const GpuUsage& first = usage.gpu_devices[0];
  CHECK(known(first.utilization_mean) == Approx(20));
  CHECK(known(first.utilization_max) == Approx(30));
  CHECK(known(first.memory_peak_mb) == Approx(4000));
  CHECK(known(first.memory_total_mb) == Approx(40960));
  CHECK(known(first.power_mean_w) == Approx(200));
  CHECK(known(usage.gpu_devices[1].utilization_mean) == Approx(60));  // over its samples: the gap is no zero
  const GpuUsage& mig = usage.gpu_devices[2];
  CHECK_FALSE(mig.utilization_mean);
  CHECK_FALSE(mig.power_mean_w);
  CHECK(known(mig.memory_peak_mb) == Approx(500));
  CHECK(known(usage.gpu_devices[3].utilization_max) == Approx(0));

  // The mean per GPU: every measured GPU counts alike (20, 60 and 0).
  CHECK(known(usage.gpu_utilization_mean) == Approx(80.0 / 3));
  CHECK(known(usage.gpu_utilization_max) == Approx(70));
  // The peak of the sum at each instant (4500, 5500, 3500), not the sum of the peaks (7500).
  CHECK(known(usage.gpu_memory_peak_mb) == Approx(5500));
  CHECK(known(usage.gpu_memory_total_mb) == Approx(40960 + 40960 + 10240));
  // Summed power 200, 300, 400 W: mean 300 W, over the job's 605 s.
  CHECK(known(usage.gpu_power_mean_w) == Approx(300));
  CHECK(known(usage.gpu_energy_wh) == Approx(300.0 * 605 / 3600));
  CHECK(usage.gpu_utilization_series.empty());
}

TEST_CASE("a job without GPU series has no GPU figures", "[usage][gpu]") {
  Metrics metrics;
  metrics["jobs_cpu_percent"] = {on_grid(node("n1"), {100, 100})};
  JobUsage usage = summarize(finished_job(), metrics, std::nullopt);
  CHECK(usage.gpu_devices.empty());
  for (const auto* figure : {&usage.gpu_utilization_mean, &usage.gpu_utilization_max, &usage.gpu_memory_peak_mb,
                             &usage.gpu_memory_total_mb, &usage.gpu_power_mean_w, &usage.gpu_energy_wh})
    CHECK_FALSE(figure->has_value());
}

TEST_CASE("petricore's own utilisation wins over another exporter's series", "[usage][gpu]") {
  Metrics metrics;
  metrics["jobs_gpu_utilization_percent"] = {on_grid(node("n1", {{"gpuid", "0"}}), {40, 60})};
  std::vector<Series> exporter = {on_grid({{"instance", "n1"}, {"gpu", "0"}}, {0, 0})};
  JobUsage usage = summarize(finished_job(), metrics, exporter);
  CHECK(known(usage.gpu_utilization_mean) == Approx(50));
  CHECK(known(usage.gpu_utilization_max) == Approx(60));
  REQUIRE(usage.gpu_devices.size() == 1);
  CHECK(usage.gpu_devices[0].gpuid == "0");
  CHECK(usage.gpu_utilization_series.empty());  // the charts draw petricore's series
}

TEST_CASE("another exporter's series give each GPU's utilisation, without memory or power", "[usage][gpu]") {
  std::vector<Series> exporter = {on_grid({{"instance", "n2"}, {"gpu", "1"}}, {10, 30}),
                                  on_grid({{"instance", "n1"}, {"gpu", "3"}}, {0, 0})};
  JobUsage usage = summarize(finished_job(), {}, exporter);
  REQUIRE(usage.gpu_devices.size() == 2);
  CHECK(usage.gpu_devices[0].node == "n1");
  CHECK(usage.gpu_devices[0].gpuid == "3");
  CHECK(known(usage.gpu_devices[1].utilization_mean) == Approx(20));
  CHECK_FALSE(usage.gpu_devices[1].memory_peak_mb);
  CHECK(known(usage.gpu_utilization_mean) == Approx(10));
  CHECK(known(usage.gpu_utilization_max) == Approx(30));
  CHECK_FALSE(usage.gpu_memory_peak_mb);
  CHECK_FALSE(usage.gpu_power_mean_w);
  CHECK(usage.gpu_utilization_series.size() == 2);
}

TEST_CASE("GPU energy is the mean power over the job's whole runtime, however few its samples", "[usage][gpu]") {
  JobRecord job = finished_job();
  job.end = static_cast<std::int64_t>(kT0) + 30;  // 35 s from its start
  Metrics metrics;
  // Samples at 0, 15, 30 s and one scraped 15 s after the end.
  metrics["jobs_gpu_power_watts"] = {on_grid(node("n1", {{"gpuid", "0"}}), {100, 100, 100, 100})};
  JobUsage usage = summarize(job, metrics, std::nullopt);
  CHECK(known(usage.gpu_power_mean_w) == Approx(100));
  CHECK(known(usage.gpu_energy_wh) == Approx(100.0 * 35 / 3600));

  // One reading, in a job shorter than a step: still the mean over the job.
  metrics["jobs_gpu_power_watts"] = {on_grid(node("n1", {{"gpuid", "0"}}), {150})};
  CHECK(known(summarize(job, metrics, std::nullopt).gpu_energy_wh) == Approx(150.0 * 35 / 3600));
  // Without a runtime, no energy.
  job.start.reset();
  CHECK_FALSE(summarize(job, metrics, std::nullopt).gpu_energy_wh);
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

// ---------------------------------------------------------------- honest numbers

TEST_CASE("after the end only each series' last sample counts: counters end at their final values", "[usage][end]") {
  JobRecord job = finished_job();  // ends at kT0 + 600
  Metrics metrics;
  // Samples at kT0 + 15 k: the range query reaches past the end. The final
  // reading (published when the collector saw the end) comes at +615 and is
  // repeated while it lingers; the job stopped growing at its end.
  Series cpu{node("n1"), {{kT0 + 585, 580}, {kT0 + 600, 590}, {kT0 + 615, 596}, {kT0 + 630, 596}, {kT0 + 645, 596}}};
  Series open_files{node("n1"), {{kT0 + 585, 10}, {kT0 + 600, 10}, {kT0 + 615, 0}, {kT0 + 630, 0}, {kT0 + 645, 0}}};
  metrics["jobs_cpu_time_total"] = {cpu};
  metrics["jobs_opened_files"] = {open_files};
  JobUsage usage = summarize(job, metrics, std::nullopt);
  CHECK(known(usage.cpu_time_total) == Approx(596));  // the final reading, not the last in-window 590
  CHECK(known(usage.cpu_avg_percent) == Approx(100.0 * 596 / 605));
  // One sample past the end, not three: means are not dragged by the repeats.
  CHECK(usage.series.at("jobs_opened_files")[0].samples.size() == 3);
  CHECK(known(usage.opened_files_avg) == Approx(20.0 / 3));
}

TEST_CASE("mean CPU is the CPU time over the runtime; the max is never below it", "[usage][end]") {
  JobRecord job = finished_job();
  job.start = static_cast<std::int64_t>(kT0);
  job.end = job.start.value() + 10;  // a 10 s job
  Metrics metrics;
  // One full sample at +1 s without a rate, the final one at +10 s with 150 %.
  metrics["jobs_cpu_time_total"] = {Series{node("n1"), {{kT0 + 1, 1.5}, {kT0 + 11, 15}}}};
  metrics["jobs_cpu_percent"] = {Series{node("n1"), {{kT0 + 11, 135}}}};
  JobUsage usage = summarize(job, metrics, std::nullopt);
  CHECK(known(usage.cpu_avg_percent) == Approx(150));  // 15 s in 10 s, the first second included
  CHECK(known(usage.cpu_max_percent) == Approx(150));  // the sampled 135 % missed the first second
  CHECK(usage.cpu_time_source == FigureSource::Metrics);
}

TEST_CASE("resident peak per node, summed; the breakdown at that peak; the cgroup peak apart", "[usage][memory]") {
  Metrics metrics;
  metrics["jobs_rss"] = {on_grid(node("n1"), {100, 400, 200}), on_grid(node("n2"), {50, 60, 70})};
  metrics["jobs_memory_anon_mb"] = {on_grid(node("n1"), {90, 390, 190}), on_grid(node("n2"), {50, 60, 70})};
  metrics["jobs_memory_shmem_mb"] = {on_grid(node("n1"), {10, 10, 10}), on_grid(node("n2"), {0, 0, 0})};
  metrics["jobs_memory_file_mb"] = {on_grid(node("n1"), {500, 20, 900}), on_grid(node("n2"), {1, 2, 3})};
  metrics["jobs_memory_kernel_mb"] = {on_grid(node("n1"), {5, 6, 7})};
  metrics["jobs_memory_peak_mb"] = {on_grid(node("n1"), {600, 600, 1100}), on_grid(node("n2"), {80, 80, 80})};
  JobUsage usage = summarize(finished_job(), metrics, std::nullopt);
  CHECK(known(usage.memory_resident_mb) == Approx(400 + 70));
  CHECK(usage.memory_resident_source == FigureSource::Metrics);
  CHECK(usage.resident_peak_by_node == std::map<std::string, double>{{"n1", 400}, {"n2", 70}});
  // n1 peaked at the 2nd instant, n2 at the 3rd.
  CHECK(known(usage.memory_at_peak.anon) == Approx(390 + 70));
  CHECK(known(usage.memory_at_peak.shmem) == Approx(10 + 0));
  CHECK(known(usage.memory_at_peak.file) == Approx(20 + 3));
  CHECK(known(usage.memory_at_peak.kernel) == Approx(6));  // n2 exported none
  CHECK_FALSE(usage.memory_at_peak.swap);
  CHECK(known(usage.memory_peak_mb) == Approx(1100 + 80));  // page cache included
}

TEST_CASE("a finished job without samples takes TotalCPU and MaxRSS from accounting, marked so", "[usage][end]") {
  JobRecord job = finished_job();
  job.total_cpu_seconds = 4.2;
  job.max_rss_mb = 3.5;
  JobUsage usage = summarize(job, {}, std::nullopt);
  CHECK(usage.no_metrics());
  CHECK_FALSE(usage.no_usage());
  CHECK(known(usage.cpu_time_total) == Approx(4.2));
  CHECK(usage.cpu_time_source == FigureSource::Accounting);
  CHECK(known(usage.cpu_avg_percent) == Approx(100 * 4.2 / 605));
  CHECK_FALSE(usage.cpu_max_percent);  // no sampled rate
  CHECK(known(usage.memory_resident_mb) == Approx(3.5));
  CHECK(usage.memory_resident_source == FigureSource::Accounting);
  CHECK(usage.missing.empty());

  // Samples win where they exist: CPU from the metrics, memory still from MaxRSS.
  Metrics cpu_only;
  cpu_only["jobs_cpu_time_total"] = {on_grid(node("n1"), {5})};
  JobUsage mixed = summarize(job, cpu_only, std::nullopt);
  CHECK(known(mixed.cpu_time_total) == Approx(5));
  CHECK(mixed.cpu_time_source == FigureSource::Metrics);
  CHECK(mixed.memory_resident_source == FigureSource::Accounting);

  // A running job's TotalCPU counts only the steps that ended: not a stand-in.
  job.end.reset();
  job.state = "RUNNING";
  JobUsage running = summarize(job, cpu_only, std::nullopt);
  CHECK_FALSE(running.memory_resident_mb);
  REQUIRE(running.missing.size() == 1);
  CHECK_THAT(running.missing[0], Catch::Contains("resident memory") && Catch::Contains("still running"));
}

TEST_CASE("a job with nothing anywhere says so in one sentence", "[usage][end]") {
  JobRecord job = finished_job();
  JobUsage usage = summarize(job, {}, std::nullopt);
  CHECK(usage.no_usage());
  REQUIRE(usage.missing.size() == 1);
  CHECK_THAT(usage.missing[0], Catch::Contains("No samples") && Catch::Contains("TotalCPU"));
  job.start.reset();
  job.end.reset();
  job.state = "PENDING";
  JobUsage pending = summarize(job, {}, std::nullopt);
  REQUIRE(pending.missing.size() == 1);
  CHECK_THAT(pending.missing[0], Catch::Contains("not started"));
}
