// evaluate_rules(): every rule of ARCHITECTURE.md §6 fires on one job and
// stays quiet on another; short jobs and jobs without metrics hear only the
// state rule; thresholds come from the configuration.
#include "analysis/rules.hpp"
#include "analysis/usage_summary.hpp"

#include "catch.hpp"

#include <algorithm>

using namespace petricore::analysis;
using namespace petricore::model;

namespace {

// A one-node job that used what it asked for: no rule has anything to say.
JobUsage healthy_job() {
  JobUsage usage;
  JobRecord& job = usage.job;
  job.job_id = job.raw_id = "777";
  job.user = "alice";
  job.account = "def-alice";
  job.state = "COMPLETED";
  job.start = 1'800'000'000;
  job.end = *job.start + 3600;
  job.time_limit_seconds = 4000;  // 90 % used
  job.alloc_cpus = 4;
  job.alloc_mem_mb = 4000;
  job.alloc_nodes = 1;
  job.node_list = "node01";
  usage.runtime_seconds = 3600;
  usage.cpu_avg_percent = 360;  // 90 % per core
  usage.cpu_max_percent = 400;  // mean / max 0.9
  usage.cpu_time_total = 12000;
  usage.cpu_time_core = {
      {"node01_core_0", 3000}, {"node01_core_1", 3000}, {"node01_core_2", 3000}, {"node01_core_3", 3000}};
  usage.cores_used = 4;
  usage.memory_resident_mb = 3200;  // 80 %
  usage.resident_peak_by_node = {{"node01", 3200}};
  usage.memory_peak_mb = 3600;  // the cgroup's peak, page cache included
  usage.opened_files_avg = 10;
  usage.read_mb = 50;
  usage.write_mb = 20;
  usage.threads_max = {{"python", 4}, {"bash", 1}};
  // no_metrics() looks at the series: one is enough to count as measured.
  usage.series["jobs_cpu_percent"] = {Series{{{"instance", "node01"}}, {{1'800'000'000, 360}}}};
  return usage;
}

// evaluate_rules() on a usage built or changed by hand, its ratios
// computed first as summarize() computes them.
std::vector<Finding> evaluate(JobUsage usage, const RuleThresholds& thresholds) {
  petricore::model::compute_ratios(usage);
  return evaluate_rules(usage, thresholds);
}

std::vector<Finding> of_rule(const std::vector<Finding>& findings, const std::string& rule) {
  std::vector<Finding> out;
  std::copy_if(findings.begin(), findings.end(), std::back_inserter(out),
               [&](const Finding& f) { return f.rule == rule; });
  return out;
}

// The one finding of `rule`, checked to be the only one.
Finding only(const JobUsage& usage, const std::string& rule, const RuleThresholds& thresholds = {}) {
  auto findings = evaluate(usage, thresholds);
  auto of = of_rule(findings, rule);
  INFO("findings: " << findings.size());
  REQUIRE(of.size() == 1);
  CHECK_FALSE(of[0].message.empty());
  CHECK_FALSE(of[0].advice.empty());
  return of[0];
}

bool fires(const JobUsage& usage, const std::string& rule, const RuleThresholds& thresholds = {}) {
  return !of_rule(evaluate(usage, thresholds), rule).empty();
}

}  // namespace

TEST_CASE("a job that used what it asked for has no findings", "[rules]") {
  auto findings = evaluate(healthy_job(), {});
  for (const auto& f : findings) INFO(f.rule);
  CHECK(findings.empty());
  CHECK_FALSE(has_warning(findings));
}

TEST_CASE("job_state: failed states are critical, each with its own advice", "[rules]") {
  JobUsage job = healthy_job();
  job.job.state = "OUT_OF_MEMORY";
  job.memory_peak_mb = 3999;
  job.memory_resident_mb = 12;  // the cgroup peak hit the limit; jobacct's MaxRSS may show little
  Finding oom = only(job, "job_state");
  CHECK(oom.severity == Severity::Critical);
  CHECK(oom.unit == "MB");
  CHECK(oom.value == Approx(3999));
  CHECK(oom.threshold == Approx(4000));
  CHECK_THAT(oom.advice, Catch::Contains("--mem=6000M"));
  CHECK_FALSE(fires(job, "memory_near_limit"));  // the state finding says it already
  // One memory advice only: never "request less" next to "request more".
  CHECK_FALSE(fires(job, "memory_overallocated"));

  job.job.state = "TIMEOUT";
  Finding timeout = only(job, "job_state");
  CHECK_THAT(timeout.advice, Catch::Contains("--time"));
  CHECK(timeout.unit == "s");
  CHECK(timeout.threshold == Approx(4000));

  job.job.state = "NODE_FAIL";
  CHECK_THAT(only(job, "job_state").advice, Catch::Contains("resubmit"));
  job.job.state = "FAILED";
  CHECK_THAT(only(job, "job_state").advice, Catch::Contains("output"));

  for (const char* state : {"COMPLETED", "CANCELLED", "RUNNING"}) {
    job.job.state = state;
    CHECK_FALSE(fires(job, "job_state"));
  }
}

TEST_CASE("cpu_efficiency: critical below 65 %, warning below 80 % per core", "[rules]") {
  JobUsage job = healthy_job();
  job.cpu_avg_percent = 200;  // 50 % of 4 cores
  job.cpu_max_percent = 220;
  Finding critical = only(job, "cpu_efficiency");
  CHECK(critical.severity == Severity::Critical);
  CHECK(critical.value == Approx(50));
  CHECK(critical.threshold == Approx(65));
  CHECK(critical.unit == "%");
  CHECK_THAT(critical.advice, Catch::Contains("about 2 would"));

  job.cpu_avg_percent = 288;  // 72 %
  job.cpu_max_percent = 300;
  Finding warning = only(job, "cpu_efficiency");
  CHECK(warning.severity == Severity::Warning);
  CHECK(warning.threshold == Approx(80));

  CHECK_FALSE(fires(healthy_job(), "cpu_efficiency"));
}

TEST_CASE("cpu_efficiency on one core advises about waiting, not parallelism", "[rules]") {
  JobUsage job = healthy_job();
  job.job.alloc_cpus = 1;
  job.cpu_avg_percent = 48;
  job.cpu_max_percent = 50;
  Finding f = only(job, "cpu_efficiency");
  CHECK(f.severity == Severity::Critical);
  CHECK(f.value == Approx(48));
  CHECK_THAT(f.advice, Catch::Contains("waiting"));
  CHECK_THAT(f.advice, !Catch::Contains("parallel") && !Catch::Contains("fewer cores"));
}

TEST_CASE("cpu_stability: mean / max below 0.75 is info", "[rules]") {
  JobUsage job = healthy_job();
  job.cpu_max_percent = 600;  // 360 / 600 = 0.6
  Finding f = only(job, "cpu_stability");
  CHECK(f.severity == Severity::Info);
  CHECK(f.value == Approx(0.6));
  CHECK(f.threshold == Approx(0.75));
  CHECK(f.unit == "ratio");
  CHECK_FALSE(fires(healthy_job(), "cpu_stability"));
  job.cpu_max_percent = 0;  // no division by zero
  CHECK_FALSE(fires(job, "cpu_stability"));
}

TEST_CASE("core_imbalance: a core below 0.9 x the mean per-core time", "[rules]") {
  JobUsage job = healthy_job();
  job.cpu_time_core[3].seconds = 2000;  // mean 2750, 2000 / 2750 = 0.727
  Finding f = only(job, "core_imbalance");
  CHECK(f.severity == Severity::Warning);
  CHECK(f.value == Approx(2000.0 / 2750));
  CHECK(f.threshold == Approx(0.9));
  CHECK_THAT(f.message, Catch::Contains("node01_core_3"));
  CHECK_FALSE(fires(healthy_job(), "core_imbalance"));
  for (auto& core : job.cpu_time_core) core.seconds = 0;  // mean 0: nothing to compare with
  CHECK_FALSE(fires(job, "core_imbalance"));
}

TEST_CASE("serial_on_many_cores: several cores, about one busy", "[rules]") {
  JobUsage job = healthy_job();
  job.cpu_avg_percent = 98;  // 0.98 cores' worth of 4
  job.cpu_max_percent = 100;
  Finding f = only(job, "serial_on_many_cores");
  CHECK(f.severity == Severity::Warning);
  CHECK(f.value == Approx(0.98));
  CHECK(f.threshold == Approx(0.85));
  // No numbered step: the record cannot tell -n 4 from -c 4.
  CHECK_THAT(f.advice, Catch::Contains("--ntasks=1 --cpus-per-task=1"));

  job.cpu_avg_percent = 200;  // two cores' worth: inefficient, not serial
  CHECK_FALSE(fires(job, "serial_on_many_cores"));
  job.cpu_avg_percent = 98;
  job.job.alloc_cpus = 1;  // one core asked for: serial is right
  CHECK_FALSE(fires(job, "serial_on_many_cores"));
}

TEST_CASE("serial_on_many_cores advises on tasks or cores per task as the job was laid out", "[rules]") {
  JobUsage job = healthy_job();
  job.job.alloc_cpus = 2;
  job.cpu_avg_percent = 99;
  job.cpu_max_percent = 100;
  job.cpu_time_core.resize(2);
  SECTION("-n 2 -c 1: fewer tasks, not --cpus-per-task=1, which it had") {
    job.job.tasks = 2;
    job.job.cpus_per_task = 1;
    Finding f = only(job, "serial_on_many_cores");
    CHECK_THAT(f.advice, Catch::Contains("--ntasks=1") && !Catch::Contains("--cpus-per-task"));
    CHECK_THAT(f.message, Catch::Contains("2 tasks of 1 core"));
  }
  SECTION("-n 1 -c 2: one core per task") {
    job.job.tasks = 1;
    job.job.cpus_per_task = 2;
    Finding f = only(job, "serial_on_many_cores");
    CHECK_THAT(f.advice, Catch::Contains("--cpus-per-task=1") && !Catch::Contains("--ntasks"));
  }
  SECTION("several nodes: one node as well") {
    job.job.alloc_nodes = 2;
    job.job.tasks = 2;
    job.job.cpus_per_task = 1;
    CHECK_THAT(only(job, "serial_on_many_cores").advice, Catch::Contains("--nodes=1 --ntasks=1"));
  }
}

TEST_CASE("memory_overallocated: resident peak below 70 % of the allocation", "[rules]") {
  JobUsage job = healthy_job();
  job.memory_resident_mb = 1000;
  job.resident_peak_by_node = {{"node01", 1000}};
  Finding f = only(job, "memory_overallocated");
  CHECK(f.severity == Severity::Warning);
  CHECK(f.value == Approx(25));
  CHECK(f.threshold == Approx(70));
  CHECK(f.unit == "%");
  CHECK_THAT(f.message, Catch::Contains("resident memory peaked at 1000 MB"));
  CHECK_THAT(f.advice, Catch::Contains("--mem=1200M"));

  CHECK_FALSE(fires(healthy_job(), "memory_overallocated"));
  job.job.alloc_mem_mb.reset();  // unknown allocation: no ratio
  CHECK_FALSE(fires(job, "memory_overallocated"));
}

TEST_CASE("memory_overallocated judges resident memory, not the page cache", "[rules]") {
  // Writes and re-reads 500 MB: the cgroup peak holds the page cache.
  JobUsage job = healthy_job();
  job.job.alloc_mem_mb = 620;
  job.memory_resident_mb = 0.4;
  job.resident_peak_by_node = {{"node01", 0.4}};
  job.memory_peak_mb = 516;
  Finding f = only(job, "memory_overallocated");
  CHECK(f.value == Approx(100 * 0.4 / 620));
  CHECK_THAT(f.message, Catch::Contains("resident memory peaked at 0.4 MB") && Catch::Contains("page cache"));
  // 1.2 x 0.4 MB, raised to the 64 MB floor (slurmstepd and the libraries need room).
  CHECK_THAT(f.advice, Catch::Contains("--mem=64M") && !Catch::Contains("620"));
  RuleThresholds no_floor;
  no_floor.memory_request_min_mb = 0;
  CHECK_THAT(only(job, "memory_overallocated", no_floor).advice, Catch::Contains("--mem=1M"));
}

TEST_CASE("memory advice takes the form the job asked in", "[rules]") {
  JobUsage job = healthy_job();
  job.job.alloc_nodes = 2;
  job.job.alloc_cpus = 8;
  job.job.alloc_mem_mb = 16000;  // --mem=8000M on each of 2 nodes
  job.memory_resident_mb = 3000;
  job.resident_peak_by_node = {{"node01", 2000}, {"node02", 1000}};
  SECTION("per node (--mem): from the fullest node's peak") {
    CHECK_THAT(only(job, "memory_overallocated").advice, Catch::Contains("--mem=2400M"));
  }
  SECTION("per CPU only when the record says so: the fullest node's peak over its CPUs") {
    job.job.mem_per_cpu = true;
    CHECK_THAT(only(job, "memory_overallocated").advice, Catch::Contains("--mem-per-cpu=600M"));
  }
  SECTION("the OOM advice keeps the form too: 1.5 x the per-node limit") {
    job.job.state = "OUT_OF_MEMORY";
    CHECK_THAT(only(job, "job_state").advice, Catch::Contains("--mem=12000M") && Catch::Contains("per node"));
    job.job.mem_per_cpu = true;
    CHECK_THAT(only(job, "job_state").advice, Catch::Contains("--mem-per-cpu=3000M"));
  }
}

TEST_CASE("memory_overallocated waits for the end of a running job", "[rules]") {
  JobUsage job = healthy_job();
  job.memory_resident_mb = 1000;  // 25 % so far
  job.job.state = "RUNNING";
  job.job.end.reset();
  CHECK_FALSE(fires(job, "memory_overallocated"));
  job.job.state = "COMPLETED";
  job.job.end = *job.job.start + 3600;
  CHECK(fires(job, "memory_overallocated"));
}

TEST_CASE("memory_near_limit: resident plus kernel memory above 95 % of the allocation is info", "[rules]") {
  JobUsage job = healthy_job();
  job.memory_resident_mb = 3900;
  job.resident_peak_by_node = {{"node01", 3900}};
  Finding f = only(job, "memory_near_limit");
  CHECK(f.severity == Severity::Info);
  CHECK(f.value == Approx(97.5));
  CHECK(f.threshold == Approx(95));
  CHECK_THAT(f.advice, Catch::Contains("--mem=4680M"));
  CHECK_FALSE(fires(healthy_job(), "memory_near_limit"));

  // 3700 MB resident is not near the limit alone; with 150 MB of kernel memory it is.
  job.memory_resident_mb = 3700;
  job.resident_peak_by_node = {{"node01", 3700}};
  CHECK_FALSE(fires(job, "memory_near_limit"));
  job.memory_at_peak.kernel = 150;
  Finding with_kernel = only(job, "memory_near_limit");
  CHECK(with_kernel.value == Approx(96.25));
  CHECK_THAT(with_kernel.message, Catch::Contains("kernel"));
  // The page cache never counts.
  job.memory_at_peak.kernel.reset();
  job.memory_at_peak.file = 2000;
  job.memory_peak_mb = 4000;
  CHECK_FALSE(fires(job, "memory_near_limit"));
}

TEST_CASE("scratch_unused: more than 100 MiB of I/O outside scratch", "[rules]") {
  JobUsage job = healthy_job();
  job.read_mb = 250;
  job.write_mb = 50;
  Finding f = only(job, "scratch_unused");
  CHECK(f.severity == Severity::Info);
  CHECK(f.value == Approx(300));
  CHECK(f.threshold == Approx(100));
  CHECK(f.unit == "MB");
  CHECK_THAT(f.advice, Catch::Contains("/scratch"));
  job.uses_scratch = true;
  CHECK_FALSE(fires(job, "scratch_unused"));
  CHECK_FALSE(fires(healthy_job(), "scratch_unused"));  // 70 MB only
}

TEST_CASE("small_io_many_files: under 5 MB per file with 1000 files open", "[rules]") {
  JobUsage job = healthy_job();
  job.uses_scratch = true;
  job.opened_files_avg = 2000;
  job.read_mb = 900;
  job.write_mb = 100;
  Finding f = only(job, "small_io_many_files");
  CHECK(f.severity == Severity::Warning);
  CHECK(f.value == Approx(0.5));
  CHECK(f.threshold == Approx(5));
  CHECK(f.unit == "MB");

  job.opened_files_avg = 500;  // few files: fine
  CHECK_FALSE(fires(job, "small_io_many_files"));
  job.opened_files_avg = 2000;
  job.read_mb = 20000;  // 10 MB per file
  CHECK_FALSE(fires(job, "small_io_many_files"));
  // A threshold of 0 files must not divide by an average of 0.
  RuleThresholds any_files;
  any_files.small_io_min_files = 0;
  job.opened_files_avg = 0;
  CHECK_FALSE(fires(job, "small_io_many_files", any_files));
}

TEST_CASE("too_many_threads: one process name above 2 x the allocated CPUs", "[rules]") {
  JobUsage job = healthy_job();
  job.threads_max["java"] = 9;  // limit 8
  Finding f = only(job, "too_many_threads");
  CHECK(f.severity == Severity::Warning);
  CHECK(f.value == Approx(9));
  CHECK(f.threshold == Approx(8));
  CHECK(f.unit == "count");
  CHECK_THAT(f.message, Catch::Contains("'java'"));
  CHECK_THAT(f.advice, Catch::Contains("OMP_NUM_THREADS"));

  job.threads_max["java"] = 8;
  CHECK_FALSE(fires(job, "too_many_threads"));
  job.threads_max["other"] = 100;  // the collector's bucket of many programs
  CHECK_FALSE(fires(job, "too_many_threads"));
}

TEST_CASE("too_many_threads leaves Slurm's launchers alone, and the list is configurable", "[rules]") {
  JobUsage job = healthy_job();
  job.job.alloc_cpus = 2;
  job.cpu_time_core.resize(2);
  job.cpu_avg_percent = 180;
  job.threads_max = {{"srun", 7}, {"slurmstepd", 9}, {"sleep", 5}, {"stress", 2}};
  CHECK_FALSE(fires(job, "too_many_threads"));
  RuleThresholds nothing_ignored;
  nothing_ignored.threads_ignore.clear();
  auto findings = evaluate(job, nothing_ignored);
  CHECK(of_rule(findings, "too_many_threads").size() == 3);
}

namespace {

// A GPU of node01 with its utilisation (mean and max, %) and its device
// memory (peak and size, MB); a negative utilisation = not measured.
GpuUsage gpu(const std::string& id, double mean, double max, double memory_peak = 20000, double memory_total = 40960) {
  GpuUsage g;
  g.node = "node01";
  g.gpuid = id;
  if (mean >= 0) {
    g.utilization_mean = mean;
    g.utilization_max = max;
  }
  g.memory_peak_mb = memory_peak;
  g.memory_total_mb = memory_total;
  return g;
}

// healthy_job() with these GPUs, the job-wide figures as summarize() makes them.
JobUsage with_gpus(std::vector<GpuUsage> devices) {
  JobUsage usage = healthy_job();
  usage.job.alloc_gpus = static_cast<int>(devices.size());
  double sum = 0;
  int measured = 0;
  for (const GpuUsage& g : devices) {
    usage.gpus[g.node].push_back(g.gpuid);
    if (!g.utilization_mean) continue;
    sum += *g.utilization_mean;
    ++measured;
    usage.gpu_utilization_max = std::max(usage.gpu_utilization_max.value_or(0), *g.utilization_max);
  }
  if (measured > 0) usage.gpu_utilization_mean = sum / measured;
  usage.gpu_devices = std::move(devices);
  return usage;
}

}  // namespace

TEST_CASE("gpu_unused: allocated GPUs at 0 % the whole job, only when measured", "[rules]") {
  JobUsage job = with_gpus({gpu("0", 0, 0), gpu("1", 0, 0)});
  Finding f = only(job, "gpu_unused");
  CHECK(f.severity == Severity::Critical);
  CHECK(f.unit == "%");
  CHECK(f.value == 0);
  CHECK_THAT(f.message, Catch::Contains("2 GPUs but their utilisation stayed at 0 %"));
  CHECK_THAT(only(with_gpus({gpu("0", 0, 0)}), "gpu_unused").message, Catch::Contains("1 GPU but its"));

  CHECK_FALSE(fires(with_gpus({gpu("0", 5, 12), gpu("1", 3, 10)}), "gpu_unused"));
  CHECK_FALSE(fires(with_gpus({gpu("0", -1, -1)}), "gpu_unused"));  // no utilisation series: no opinion
  JobUsage cpu_only = healthy_job();
  cpu_only.gpu_utilization_max = 0;
  CHECK_FALSE(fires(cpu_only, "gpu_unused"));
}

TEST_CASE("gpu_unused names the idle GPUs when others worked", "[rules]") {
  JobUsage job = with_gpus({gpu("0", 80, 100), gpu("1", 0, 0), gpu("2", 75, 99), gpu("3", 0, 0)});
  Finding f = only(job, "gpu_unused");
  CHECK(f.message == "2 of the job's 4 GPUs stayed at 0 % utilisation for the whole job: node01 GPU 1, node01 GPU 3.");
  CHECK_THAT(f.advice, Catch::Contains("request only as many GPUs as it uses"));
}

TEST_CASE("gpu_efficiency: critical below 25 %, warning below 50 % per allocated GPU", "[rules]") {
  Finding warning = only(with_gpus({gpu("0", 40, 90), gpu("1", 20, 60)}), "gpu_efficiency");
  CHECK(warning.severity == Severity::Warning);
  CHECK(warning.value == Approx(30));
  CHECK(warning.threshold == Approx(50));
  CHECK(warning.unit == "%");
  CHECK(warning.message ==
        "The job kept its 2 GPUs busy 30 % of the time on average (node01 GPU 0 40 %, node01 GPU 1 20 %).");
  // Two GPUs at 30 % would fit on one.
  CHECK_THAT(warning.advice, Catch::Contains("DataLoader num_workers"));
  CHECK_THAT(warning.advice, Catch::Contains("larger batch size"));
  CHECK_THAT(warning.advice, Catch::Contains("(the job had 2 per GPU)"));
  CHECK_THAT(warning.advice, Catch::Contains("ask for fewer GPUs: at this use 1 GPU would have been enough"));

  Finding critical = only(with_gpus({gpu("0", 10, 50)}), "gpu_efficiency");
  CHECK(critical.severity == Severity::Critical);
  CHECK(critical.threshold == Approx(25));
  CHECK(critical.message == "The job kept its 1 GPU busy 10 % of the time on average.");
  CHECK_THAT(critical.advice, !Catch::Contains("fewer GPUs"));

  CHECK_FALSE(fires(with_gpus({gpu("0", 50, 100)}), "gpu_efficiency"));
  CHECK_FALSE(fires(with_gpus({gpu("0", -1, -1)}), "gpu_efficiency"));  // not measured
  CHECK_FALSE(fires(healthy_job(), "gpu_efficiency"));
}

TEST_CASE("gpu_efficiency leaves a job whose every GPU idled to gpu_unused", "[rules]") {
  auto idle = evaluate(with_gpus({gpu("0", 0, 0), gpu("1", 0, 0)}), {});
  CHECK(of_rule(idle, "gpu_unused").size() == 1);
  CHECK(of_rule(idle, "gpu_efficiency").empty());
  // One GPU idle, one busy: both findings, the mean counting the idle one.
  auto half = evaluate(with_gpus({gpu("0", 0, 0), gpu("1", 70, 100)}), {});
  CHECK(of_rule(half, "gpu_unused").size() == 1);
  REQUIRE(of_rule(half, "gpu_efficiency").size() == 1);
  CHECK(of_rule(half, "gpu_efficiency")[0].value == Approx(35));
}

TEST_CASE("gpu_memory_low: every GPU's peak below 10 % of its memory is info", "[rules]") {
  JobUsage small = with_gpus({gpu("0", 90, 100, 2000, 81920), gpu("1", 90, 100, 3000, 81920)});
  Finding f = only(small, "gpu_memory_low");
  CHECK(f.severity == Severity::Info);
  CHECK(f.unit == "%");
  CHECK(f.value == Approx(100.0 * 3000 / 81920));
  CHECK(f.threshold == Approx(10));
  CHECK(
      f.message ==
      "The job used at most 3.7 % of the memory of each of its 2 GPUs (the fullest, node01 GPU 1, 3000 of 81920 MB).");
  CHECK_THAT(f.advice, Catch::Contains("MIG slice"));
  CHECK(only(with_gpus({gpu("0", 90, 100, 2000, 81920)}), "gpu_memory_low").message ==
        "The job used at most 2000 MB of its GPU's 81920 MB of memory (2.4 %).");
  CHECK_FALSE(has_warning(evaluate(small, {})));

  // One GPU that needed its memory is enough to keep quiet.
  CHECK_FALSE(fires(with_gpus({gpu("0", 90, 100, 2000, 81920), gpu("1", 90, 100, 9000, 81920)}), "gpu_memory_low"));
  // Device size unknown, or the job still running: no opinion yet.
  JobUsage unknown_size = with_gpus({gpu("0", 90, 100, 2000, 81920)});
  unknown_size.gpu_devices[0].memory_total_mb.reset();
  CHECK_FALSE(fires(unknown_size, "gpu_memory_low"));
  JobUsage running = small;
  running.job.end.reset();
  running.job.state = "RUNNING";
  CHECK_FALSE(fires(running, "gpu_memory_low"));
}

TEST_CASE("GPU rules on aggregates built by summarize from petricore's own series", "[rules]") {
  JobRecord record = healthy_job().job;
  record.alloc_gpus = 2;
  std::map<std::string, std::vector<Series>> metrics;
  auto at = [&](std::map<std::string, std::string> labels, double value) {
    labels["instance"] = "node01";
    labels["slurm_job"] = "777";
    Series s{labels, {}};
    for (int i = 0; i < 240; ++i) s.samples.push_back({*record.start + 15.0 * i, value});
    return s;
  };
  metrics["jobs_cpu_percent"] = {at({}, 360)};
  metrics["jobs_cpu_time_total"] = {at({}, 3.6 * 3600)};
  metrics["jobs_rss"] = {at({}, 3200)};
  metrics["jobs_gpus_used"] = {at({{"gpuid", "0"}}, 1), at({{"gpuid", "1"}}, 1)};
  metrics["jobs_gpu_utilization_percent"] = {at({{"gpuid", "0"}}, 30), at({{"gpuid", "1"}}, 0)};
  metrics["jobs_gpu_memory_used_mb"] = {at({{"gpuid", "0"}}, 1000), at({{"gpuid", "1"}}, 300)};
  metrics["jobs_gpu_memory_total_mb"] = {at({{"gpuid", "0"}}, 40960), at({{"gpuid", "1"}}, 40960)};
  auto findings = evaluate(summarize(record, metrics, std::nullopt), {});
  REQUIRE(of_rule(findings, "gpu_unused").size() == 1);
  CHECK_THAT(of_rule(findings, "gpu_unused")[0].message, Catch::Contains("node01 GPU 1"));
  REQUIRE(of_rule(findings, "gpu_efficiency").size() == 1);
  CHECK(of_rule(findings, "gpu_efficiency")[0].severity == Severity::Critical);  // 15 % per GPU
  CHECK(of_rule(findings, "gpu_memory_low").size() == 1);

  // Too short a job: no GPU finding either.
  record.end = *record.start + 120;
  CHECK(evaluate(summarize(record, metrics, std::nullopt), {}).empty());
}

TEST_CASE("time_overrequested: a completed job far inside its time limit", "[rules]") {
  JobUsage job = healthy_job();
  job.job.time_limit_seconds = 72000;  // 1 h of 20 h: 5 %
  Finding critical = only(job, "time_overrequested");
  CHECK(critical.severity == Severity::Critical);
  CHECK(critical.value == Approx(5));
  CHECK(critical.threshold == Approx(10));
  CHECK(critical.unit == "%");
  CHECK_THAT(critical.advice, Catch::Contains("--time=01:30:00"));

  job.job.time_limit_seconds = 7200;  // 50 %
  Finding warning = only(job, "time_overrequested");
  CHECK(warning.severity == Severity::Warning);
  CHECK(warning.threshold == Approx(60));

  CHECK_FALSE(fires(healthy_job(), "time_overrequested"));
  job.job.state = "CANCELLED";  // it did not finish its work: the limit may be right
  CHECK_FALSE(fires(job, "time_overrequested"));
  job.job.state = "COMPLETED";
  job.job.time_limit_seconds.reset();  // unlimited
  CHECK_FALSE(fires(job, "time_overrequested"));
}

TEST_CASE("a job shorter than min_runtime hears only the state rule", "[rules]") {
  JobUsage job = healthy_job();
  job.runtime_seconds = 200;
  job.cpu_avg_percent = 10;
  job.memory_resident_mb = 10;
  CHECK(evaluate(job, {}).empty());
  job.job.state = "OUT_OF_MEMORY";
  auto findings = evaluate(job, {});
  REQUIRE(findings.size() == 1);
  CHECK(findings[0].rule == "job_state");
}

TEST_CASE("a job with nothing measured hears only the state rule", "[rules]") {
  JobUsage job = healthy_job();
  job.series.clear();
  job.cpu_time_total.reset();
  job.memory_resident_mb.reset();
  job.cpu_avg_percent = 10;  // whatever the aggregates say
  job.job.time_limit_seconds = 72000;
  CHECK(evaluate(job, {}).empty());
  job.job.state = "FAILED";
  auto findings = evaluate(job, {});
  REQUIRE(findings.size() == 1);
  CHECK(findings[0].rule == "job_state");
  CHECK(has_warning(findings));
}

TEST_CASE("thresholds come from the configuration", "[rules]") {
  RuleThresholds strict;
  strict.cpu_efficiency_warning = 95;
  strict.memory_overallocated_ratio = 0.85;
  strict.time_warning_ratio = 0.95;
  auto findings = evaluate(healthy_job(), strict);
  CHECK(of_rule(findings, "cpu_efficiency").size() == 1);
  CHECK(of_rule(findings, "cpu_efficiency")[0].threshold == Approx(95));
  CHECK(of_rule(findings, "memory_overallocated").size() == 1);
  CHECK(of_rule(findings, "time_overrequested").size() == 1);

  RuleThresholds patient;
  patient.min_runtime_seconds = 7200;
  JobUsage wasteful = healthy_job();
  wasteful.cpu_avg_percent = 40;
  CHECK(evaluate(wasteful, patient).empty());
  CHECK_FALSE(evaluate(wasteful, {}).empty());

  RuleThresholds gpu_strict;
  gpu_strict.gpu_efficiency_warning = 70;
  gpu_strict.gpu_efficiency_critical = 65;
  gpu_strict.gpu_memory_low_ratio = 0.5;
  JobUsage busy_gpu = with_gpus({gpu("0", 60, 100)});
  CHECK_FALSE(fires(busy_gpu, "gpu_efficiency"));
  CHECK_FALSE(fires(busy_gpu, "gpu_memory_low"));
  CHECK(only(busy_gpu, "gpu_efficiency", gpu_strict).threshold == Approx(65));
  CHECK(only(busy_gpu, "gpu_memory_low", gpu_strict).threshold == Approx(50));

  RuleThresholds roomy;
  roomy.memory_request_factor = 1.5;
  JobUsage small = healthy_job();
  small.memory_resident_mb = 1000;
  small.resident_peak_by_node = {{"node01", 1000}};
  CHECK_THAT(only(small, "memory_overallocated", roomy).advice, Catch::Contains("--mem=1500M"));
}

TEST_CASE("findings come most severe first; info alone is no warning", "[rules]") {
  JobUsage job = healthy_job();
  job.cpu_max_percent = 600;      // cpu_stability, info
  job.memory_resident_mb = 1000;  // memory_overallocated, warning
  job.job.state = "TIMEOUT";      // job_state, critical
  auto findings = evaluate(job, {});
  REQUIRE(findings.size() == 3);
  CHECK(findings[0].severity == Severity::Critical);
  CHECK(findings[1].severity == Severity::Warning);
  CHECK(findings[2].severity == Severity::Info);

  CHECK_FALSE(has_warning({findings[2]}));
  CHECK(has_warning({findings[1]}));
  CHECK(has_warning({findings[0]}));
  CHECK_FALSE(has_warning({}));
}

TEST_CASE("severity names", "[rules]") {
  CHECK(std::string(severity_name(Severity::Critical)) == "critical");
  CHECK(std::string(severity_name(Severity::Warning)) == "warning");
  CHECK(std::string(severity_name(Severity::Info)) == "info");
}

TEST_CASE("rules on aggregates built by summarize from series", "[rules]") {
  // A serial program on four cores of one node, an hour long.
  JobRecord record = healthy_job().job;
  std::map<std::string, std::vector<Series>> metrics;
  auto at = [&](double value) {
    Series s{{{"instance", "node01"}, {"slurm_job", "777"}}, {}};
    for (int i = 0; i < 240; ++i) s.samples.push_back({*record.start + 15.0 * i, value});
    return s;
  };
  metrics["jobs_cpu_percent"] = {at(99)};
  metrics["jobs_cpu_time_total"] = {at(0.99 * 3600)};
  metrics["jobs_rss"] = {at(3200)};
  JobUsage usage = summarize(record, metrics, std::nullopt);
  auto findings = evaluate(usage, {});
  CHECK(of_rule(findings, "serial_on_many_cores").size() == 1);
  CHECK(of_rule(findings, "cpu_efficiency").size() == 1);
  CHECK(of_rule(findings, "memory_overallocated").empty());
  CHECK(has_warning(findings));
}

TEST_CASE("figures from Slurm accounting are judged like measured ones", "[rules]") {
  // A 10-minute job the collector never sampled: TotalCPU and MaxRSS stand in.
  JobRecord record = healthy_job().job;
  record.end = *record.start + 600;
  record.time_limit_seconds = 700;
  record.total_cpu_seconds = 600;  // one core's worth of four
  record.max_rss_mb = 100;         // of 4000 MB
  JobUsage usage = summarize(record, {}, std::nullopt);
  auto findings = evaluate(usage, {});
  CHECK(of_rule(findings, "cpu_efficiency").size() == 1);
  CHECK(of_rule(findings, "serial_on_many_cores").size() == 1);
  REQUIRE(of_rule(findings, "memory_overallocated").size() == 1);
  CHECK_THAT(of_rule(findings, "memory_overallocated")[0].message, Catch::Contains("from Slurm accounting"));
  CHECK_THAT(of_rule(findings, "memory_overallocated")[0].advice, Catch::Contains("--mem=120M"));
}
