// The two renderings of a pass's metrics (metrics.hpp): the text written
// straight from the samples must be, byte for byte, what prometheus-cpp's
// families give through serialize_text, for every family, label and value.
#include "collect/metrics.hpp"
#include "collect/exposition.hpp"

#include "catch.hpp"

#include <cmath>
#include <limits>
#include <string>
#include <vector>

using namespace petricore::collect;

namespace {

JobSample full_job() {
  JobSample j;
  j.job_id = "4242";
  j.uid = 1001;
  j.user = "alice";
  j.account = "physics";
  j.gpus = {"0", "3"};
  j.cpus = {0, 1, 2, 3};
  j.cpu_percent = 387.25;
  j.cpu_time_total = 12345.678;
  j.user_time = 12000.5;
  j.system_time = 345.178;
  j.cpu_time_core = {{0, 3000.1}, {1, 3100}, {2, 3050.25}, {3, 3195.328}};
  j.rss_mib = 2048;
  j.anon_mib = 2000.5;
  j.shmem_mib = 47.5;
  j.file_mib = 1.0 / 3;
  j.kernel_mib = 12.0625;
  j.swap_mib = 0;
  j.usage_mib = 2100;
  j.memory_limit_mib = 8192;
  j.memory_peak_mib = 4100.75;
  j.processes = 9;
  j.opened_files = 1500;
  j.threads_by_name = {{"python", 64}, {"bash", 1}, {"other", 3}};
  j.uses_scratch = true;
  j.read_mib = 1e6 + 0.5;
  j.write_mib = 123456789012345.0;
  j.read_count = 18446744073709551615u;
  j.write_count = 7;
  return j;
}

// What the first pass knows of a job: no rate yet, nothing optional.
JobSample sparse_job() {
  JobSample j;
  j.job_id = "s5K1KKYAYG5D00";
  j.sluid = "s5K1KKYAYG5D00";
  return j;
}

// Label values that need escaping, values that are not numbers.
JobSample odd_job() {
  JobSample j;
  j.job_id = "7\"\\\n";
  j.user = "we\"ird\\name\nx";
  j.account = std::string(40, 'a') + "\\\"";  // long: the memchr path
  j.gpus = {"GPU-\"x\""};
  j.cpus = {5};
  j.cpu_percent = std::numeric_limits<double>::quiet_NaN();
  j.cpu_time_total = std::numeric_limits<double>::infinity();
  j.user_time = -std::numeric_limits<double>::infinity();
  j.system_time = -0.0;
  j.cpu_time_core = {{5, 1e-7}};
  j.rss_mib = 1e15;
  j.memory_peak_mib = 1e21;
  j.threads_by_name = {{"a b\"c", 2}};
  return j;
}

SelfMetrics self_metrics() {
  SelfMetrics self;
  self.collect_duration_seconds = 0.0123;
  self.errors_by_source = {{"cgroup", 3}, {"proc", 0}, {"environ\"x", 1}};
  self.running_jobs = 2;
  return self;
}

void check_same(const std::vector<JobSample>& jobs, const std::string& instance, const SelfMetrics& self) {
  std::string reference = serialize_text(build_snapshot(jobs, instance, self));
  std::string direct = render_text(jobs, instance, self);
  CHECK(direct == reference);
  Exposition pass(jobs, instance, self);
  CHECK(pass.text() == reference);
  CHECK(serialize_text(pass.families()->build()) == reference);
}

}  // namespace

TEST_CASE("render_text writes the bytes serialize_text(build_snapshot()) writes", "[metrics]") {
  check_same({full_job()}, "node01", self_metrics());
  check_same({full_job(), sparse_job(), odd_job()}, "node01", self_metrics());
  check_same({odd_job()}, "a \"node\" \\ with\nnewline and a long name past the short-string loop", SelfMetrics{});
  check_same({}, "node01", SelfMetrics{});
  check_same({}, "node01", self_metrics());
  check_same({sparse_job()}, "", SelfMetrics{});
}

TEST_CASE("render_text: what a pass exports for a full job", "[metrics]") {
  std::string text = render_text({full_job()}, "node01", self_metrics());
  CHECK(text.find("# HELP jobs_cpu_percent CPU use of the job in percent of one CPU") == 0);
  CHECK(text.find("jobs_cpu_time_core{instance=\"node01\",slurm_job=\"4242\",core=\"2\"} 3050.25\n") !=
        std::string::npos);
  CHECK(text.find("jobs_info{instance=\"node01\",slurm_job=\"4242\",user=\"alice\",uid=\"1001\",account=\"physics\"} "
                  "1\n") != std::string::npos);
  CHECK(text.find("jobs_read_count{instance=\"node01\",slurm_job=\"4242\"} 1.844674407370955e+19\n") !=
        std::string::npos);
  CHECK(text.find("# TYPE petricore_collect_errors_total counter\n"
                  "petricore_collect_errors_total{instance=\"node01\",source=\"cgroup\"} 3\n") != std::string::npos);
  CHECK(text.find("petricore_jobs{instance=\"node01\"} 2\n") != std::string::npos);
  // A family without series (no job has one) is left out, HELP and all.
  std::string sparse = render_text({sparse_job()}, "node01", SelfMetrics{});
  CHECK(sparse.find("jobs_cpu_percent") == std::string::npos);
  CHECK(sparse.find("jobs_info{instance=\"node01\",slurm_job=\"s5K1KKYAYG5D00\",user=\"\",uid=\"\",account=\"\","
                    "sluid=\"s5K1KKYAYG5D00\"} 1\n") != std::string::npos);
  CHECK(sparse.find("petricore_collect_errors_total") == std::string::npos);
}

TEST_CASE("an Exposition of ready families writes them as serialize_text does", "[metrics]") {
  Snapshot families = build_snapshot({full_job()}, "n1", self_metrics());
  Exposition pass(families);
  CHECK(pass.text() == serialize_text(families));
  CHECK(serialize_text(pass.families()->build()) == serialize_text(families));
}
