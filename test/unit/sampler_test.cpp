// The sampler's behaviour across passes. Each test copies a fixture tree
// (test/fixtures/<case>) into a temp dir and mutates the copy between passes:
// CPU time grows, processes exit, pids are reused, jobs end, files break.
#include "collect/sampler.hpp"
#include "collect/error_counter.hpp"
#include "collect/exported_jobs.hpp"
#include "collect/exposition.hpp"
#include "collect/layout.hpp"
#include "collect/metrics.hpp"
#include "collect/textfile_sink.hpp"

#include "catch.hpp"

#include "real_cgroup2.hpp"
#include "test_fixtures.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <numeric>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

using namespace petricore::collect;
namespace fs = std::filesystem;
using petricore::test::fixtures_dir;
using petricore::test::total_errors;

namespace {

constexpr double kMiB = 1024.0 * 1024.0;

// A private copy of one fixture case, removed at the end of the test.
class FixtureCopy {
 public:
  explicit FixtureCopy(const std::string& fixture_case) {
    std::string templ = (fs::temp_directory_path() / "petricore-sampler-XXXXXX").string();
    REQUIRE(::mkdtemp(templ.data()) != nullptr);
    dir_ = templ;
    fs::copy(fixtures_dir() / fixture_case, dir_ / "case",
             fs::copy_options::recursive | fs::copy_options::copy_symlinks);
  }
  ~FixtureCopy() {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  FixtureCopy(const FixtureCopy&) = delete;
  FixtureCopy& operator=(const FixtureCopy&) = delete;

  fs::path cgroup(const std::string& rel = {}) const {
    return rel.empty() ? dir_ / "case/cgroup" : dir_ / "case/cgroup" / rel;
  }
  fs::path proc(const std::string& rel = {}) const {
    return rel.empty() ? dir_ / "case/proc" : dir_ / "case/proc" / rel;
  }

  void write(const fs::path& file, const std::string& text) const {
    fs::create_directories(file.parent_path());
    std::ofstream out(file, std::ios::trunc);
    out << text;
    REQUIRE(out.good());
  }
  void relink(const fs::path& link, const std::string& target) const {
    fs::remove(link);
    fs::create_symlink(target, link);
  }

 private:
  fs::path dir_;
};

// A /proc/<pid>/stat line in the kernel's layout (52 fields; the sampler uses
// comm, utime, stime, num_threads, starttime and processor).
std::string stat_line(int pid, const std::string& comm, std::uint64_t utime, std::uint64_t stime, int threads,
                      std::uint64_t starttime, int processor) {
  std::ostringstream s;
  s << pid << " (" << comm << ") R 1 " << pid << ' ' << pid << " 0 -1 4194560 1200 0 0 0 " << utime << ' ' << stime
    << " 0 0 20 0 " << threads << " 0 " << starttime << " 1756782592 142634 18446744073709551615 "
    << "94000004145152 94000004227072 140720008290304 0 0 0 0 0 16386 0 0 0 17 " << processor
    << " 0 0 0 0 0 94000004243456 94000004245152 94000005144576 140720008293304 140720008293344 "
    << "140720008293344 140720008294376 0\n";
  return s.str();
}

std::string io_text(std::uint64_t syscr, std::uint64_t syscw, std::uint64_t read_bytes, std::uint64_t write_bytes) {
  std::ostringstream s;
  s << "rchar: " << read_bytes << "\nwchar: " << write_bytes << "\nsyscr: " << syscr << "\nsyscw: " << syscw
    << "\nread_bytes: " << read_bytes << "\nwrite_bytes: " << write_bytes << "\ncancelled_write_bytes: 0\n";
  return s.str();
}

// /proc/stat with the given per-CPU user ticks (system 1000, idle 400000).
std::string proc_stat_text(const std::vector<std::uint64_t>& user_ticks) {
  std::ostringstream s;
  std::uint64_t total = std::accumulate(user_ticks.begin(), user_ticks.end(), std::uint64_t{0});
  s << "cpu  " << total << " 0 " << 1000 * user_ticks.size() << ' ' << 400000 * user_ticks.size() << " 0 0 0 0 0 0\n";
  for (std::size_t i = 0; i < user_ticks.size(); ++i)
    s << "cpu" << i << ' ' << user_ticks[i] << " 0 1000 400000 0 0 0 0 0 0\n";
  s << "intr 0\nctxt 0\nbtime 1796000000\nprocesses 1\nprocs_running 1\nprocs_blocked 0\n";
  return s.str();
}

std::string cpu_stat_text(std::uint64_t usage_usec, std::uint64_t user_usec, std::uint64_t system_usec) {
  std::ostringstream s;
  s << "usage_usec " << usage_usec << "\nuser_usec " << user_usec << "\nsystem_usec " << system_usec
    << "\nnr_periods 0\nnr_throttled 0\nthrottled_usec 0\n";
  return s.str();
}

struct Harness {
  explicit Harness(const FixtureCopy& copy, SamplerOptions options = {})
      : sampler(copy.cgroup().string(), copy.proc().string(), make_layout(LayoutKind::Auto), std::move(options),
                errors) {}
  ErrorCounter errors;
  Sampler sampler;
};

// id is a C string: a temporary std::string argument would look to GCC 14's
// -Wdangling-reference like what the returned reference points into.
const JobSample& job(const std::vector<JobSample>& samples, const char* id) {
  for (const auto& s : samples)
    if (s.job_id == id) return s;
  FAIL("job " << id << " not sampled");
  return samples.front();
}

bool has_job(const std::vector<JobSample>& samples, const std::string& id) {
  for (const auto& s : samples)
    if (s.job_id == id) return true;
  return false;
}

double core_sum(const JobSample& s) {
  double sum = 0;
  for (const auto& [cpu, seconds] : s.cpu_time_core) sum += seconds;
  return sum;
}

double core_seconds(const JobSample& s, int cpu) {
  for (const auto& [c, seconds] : s.cpu_time_core)
    if (c == cpu) return seconds;
  FAIL("no cpu_time_core for cpu " << cpu);
  return 0;
}

const char* const kJob101Cpuacct = "cpuacct/slurm/uid_0/job_101";
const char* const kJob101Freezer = "freezer/slurm/uid_0/job_101";
const std::uint64_t kJob101UsageNs = 270005000000;  // cpuacct.usage in the fixture

}  // namespace

TEST_CASE("cpu percent is the cgroup cpu time delta over the wall time delta, absent on the first pass", "[sampler]") {
  FixtureCopy copy("slurm-v1");
  Harness h(copy);
  auto first = h.sampler.sample(1000.0);
  CHECK_FALSE(job(first, "101").cpu_percent);
  CHECK(job(first, "101").cpu_time_total == Approx(270.005));

  // 15 s of CPU time in 10 s of wall time: one and a half CPUs.
  copy.write(copy.cgroup(kJob101Cpuacct) / "cpuacct.usage", std::to_string(kJob101UsageNs + 15'000'000'000) + "\n");
  auto second = h.sampler.sample(1010.0);
  REQUIRE(job(second, "101").cpu_percent);
  CHECK(*job(second, "101").cpu_percent == Approx(150.0));
  CHECK(job(second, "101").cpu_time_total == Approx(285.005));
  REQUIRE(job(second, "102").cpu_percent);
  CHECK(*job(second, "102").cpu_percent == Approx(0.0));

  // The next rate is over the next interval only.
  copy.write(copy.cgroup(kJob101Cpuacct) / "cpuacct.usage", std::to_string(kJob101UsageNs + 20'000'000'000) + "\n");
  auto third = h.sampler.sample(1030.0);
  REQUIRE(job(third, "101").cpu_percent);
  CHECK(*job(third, "101").cpu_percent == Approx(25.0));
}

TEST_CASE("v1 per-core cpu time covers only the cpus of the job's cpuset", "[sampler]") {
  FixtureCopy copy("slurm-v1");
  Harness h(copy);
  auto samples = h.sampler.sample(1.0);
  const JobSample& s = job(samples, "101");
  CHECK(s.cpus == std::vector<int>{0, 1});
  REQUIRE(s.cpu_time_core.size() == 2);  // cpuacct.usage_percpu also has 5 ms on cpu 2, outside the cpuset
  CHECK(core_seconds(s, 0) == Approx(150.0));
  CHECK(core_seconds(s, 1) == Approx(120.0));
  REQUIRE(s.user_time);
  CHECK(*s.user_time == Approx(265.0));  // 26500 USER_HZ ticks
  REQUIRE(s.system_time);
  CHECK(*s.system_time == Approx(4.5));
}

TEST_CASE("all steps and tasks are merged and slurmstepd is not counted", "[sampler]") {
  FixtureCopy copy("slurm-v1");
  Harness h(copy);
  auto samples = h.sampler.sample(1.0);
  // 101: sleep (extern), bash + python3 (batch), 2 x stress (step 0); 3 slurmstepd at job level.
  CHECK(job(samples, "101").processes == 5);
  // 102: sleep, bash, 2 x gmx_mpi; its slurmstepds sit in the step dirs.
  CHECK(job(samples, "102").processes == 4);
  CHECK(job(samples, "102").opened_files == 6);
  CHECK(total_errors(h.errors) == 0);
}

TEST_CASE("static facts come from a job process's environment: account and GPUs split on commas", "[sampler]") {
  FixtureCopy copy("slurm-v1");
  Harness h(copy);
  auto samples = h.sampler.sample(1.0);
  const JobSample& gpu_job = job(samples, "102");
  CHECK(gpu_job.user == "nobody");
  REQUIRE(gpu_job.uid);
  CHECK(*gpu_job.uid == 65534);
  CHECK(gpu_job.account == "chemistry");
  CHECK(gpu_job.gpus == std::vector<std::string>{"0", "1"});
  CHECK(job(samples, "101").gpus.empty());
  CHECK(job(samples, "101").account == "physics");
}

TEST_CASE("io totals never go down when a process exits", "[sampler]") {
  FixtureCopy copy("slurm-v1");
  Harness h(copy);
  auto first = h.sampler.sample(1.0);
  const JobSample before = job(first, "101");
  CHECK(before.read_mib == Approx(104861696 / kMiB));
  CHECK(before.write_mib == Approx(10.0));

  // python3 (pid 1012, 100 MiB read, 10 MiB written) exits.
  fs::remove_all(copy.proc("1012"));
  copy.write(copy.cgroup(kJob101Freezer) / "step_batch/cgroup.procs", "1011\n");
  auto second = h.sampler.sample(2.0);
  const JobSample& after = job(second, "101");
  CHECK(after.processes == before.processes - 1);
  CHECK(after.read_mib == Approx(before.read_mib));
  CHECK(after.write_mib == Approx(before.write_mib));
  CHECK(after.read_count == before.read_count);
  CHECK(after.write_count == before.write_count);

  auto third = h.sampler.sample(3.0);
  CHECK(job(third, "101").read_mib == Approx(before.read_mib));
  CHECK(total_errors(h.errors) == 0);
}

TEST_CASE("a reused pid keeps the old process's io and adds the new one's", "[sampler]") {
  FixtureCopy copy("slurm-v1");
  Harness h(copy);
  const JobSample before = job(h.sampler.sample(1.0), "101");

  // The old python3 (pid 1012, child of the job's bash 1011) was reaped by
  // bash, so the kernel added its I/O to bash's /proc/1011/io; pid 1012 now
  // belongs to a new process (other start time) that read 1 MiB.
  copy.write(copy.proc("1011/io"), io_text(30 + 2500, 5 + 800, 4096 + 104857600, 10485760));
  copy.write(copy.proc("1012/stat"), stat_line(1012, "python3", 5, 1, 1, 999999, 0));
  copy.write(copy.proc("1012/io"), io_text(10, 0, 1048576, 0));
  const JobSample after = job(h.sampler.sample(2.0), "101");
  CHECK(after.processes == before.processes);
  CHECK(after.read_mib == Approx(before.read_mib + 1.0));
  CHECK(after.write_mib == Approx(before.write_mib));  // the old process's 10 MiB, now in bash's counters
  CHECK(after.read_count == before.read_count + 10);
  CHECK(after.write_count == before.write_count);
}

TEST_CASE("a child reaped inside the job is counted once, through its parent", "[sampler]") {
  FixtureCopy copy("slurm-v1");
  Harness h(copy);
  const JobSample before = job(h.sampler.sample(1.0), "101");

  // python3 (1012) exits and its parent bash (1011) reaps it: the kernel
  // moves the child's I/O into the parent's counters.
  fs::remove_all(copy.proc("1012"));
  copy.write(copy.cgroup(kJob101Freezer) / "step_batch/cgroup.procs", "1011\n");
  copy.write(copy.proc("1011/io"), io_text(30 + 2500, 5 + 800, 4096 + 104857600, 10485760));
  const JobSample after = job(h.sampler.sample(2.0), "101");
  CHECK(after.read_mib == Approx(before.read_mib));
  CHECK(after.write_mib == Approx(before.write_mib));
  CHECK(after.read_count == before.read_count);
  CHECK(after.write_count == before.write_count);
}

TEST_CASE("a process whose parent is outside the job keeps its io in the job after it exits", "[sampler]") {
  FixtureCopy copy("slurm-v1");
  Harness h(copy);
  // bash (1011) is a child of slurmstepd (1010), which is not part of the job's
  // processes: when bash exits, its I/O leaves with it.
  const JobSample before = job(h.sampler.sample(1.0), "101");
  fs::remove_all(copy.proc("1011"));
  copy.write(copy.cgroup(kJob101Freezer) / "step_batch/cgroup.procs", "1012\n");
  // python3 (1012), re-parented, goes on reading: 10 more reads, 1 MiB more.
  copy.write(copy.proc("1012/io"), io_text(2500 + 10, 800, 104857600 + 1048576, 10485760));
  const JobSample after = job(h.sampler.sample(2.0), "101");
  // bash's 30 reads and 4096 bytes stay in the job beside python3's growth.
  CHECK(after.read_count == before.read_count + 10);
  CHECK(after.read_mib == Approx(before.read_mib + 1.0));
  // and they are not added a second time on the next pass
  const JobSample later = job(h.sampler.sample(3.0), "101");
  CHECK(later.read_count == before.read_count + 10);
}

TEST_CASE("uses_scratch stays 1 after the job's processes leave scratch", "[sampler]") {
  FixtureCopy copy("slurm-v1");
  Harness h(copy);
  CHECK(job(h.sampler.sample(1.0), "101").uses_scratch);

  // python3 moves out of /scratch and closes its scratch files.
  copy.relink(copy.proc("1012/cwd"), "/root/jobs");
  copy.relink(copy.proc("1012/fd/3"), "/root/jobs/input.h5");
  copy.relink(copy.proc("1012/fd/8"), "/root/jobs/input.h5");
  CHECK(job(h.sampler.sample(2.0), "101").uses_scratch);

  // A sampler that never saw the scratch use reports 0 for the same tree.
  Harness fresh(copy);
  CHECK_FALSE(job(fresh.sampler.sample(3.0), "101").uses_scratch);
}

TEST_CASE("an ended job disappears from the next pass and its state is dropped", "[sampler]") {
  FixtureCopy copy("slurm-v1");
  Harness h(copy);
  auto first = h.sampler.sample(1.0);
  CHECK(first.size() == 2);
  CHECK(h.sampler.tracked_jobs() == 2);

  for (const char* ctrl : {"cpuacct", "memory", "cpuset", "freezer"})
    fs::remove_all(copy.cgroup(ctrl) / "slurm/uid_65534/job_102");
  auto second = h.sampler.sample(2.0);
  CHECK(second.size() == 1);
  CHECK_FALSE(has_job(second, "102"));
  CHECK(h.sampler.tracked_jobs() == 1);
  CHECK(total_errors(h.errors) == 0);
}

TEST_CASE("a leftover job cgroup without processes is neither sampled nor tracked", "[sampler]") {
  FixtureCopy copy("leftover-empty");
  Harness h(copy);
  auto samples = h.sampler.sample(1.0);
  REQUIRE(samples.size() == 1);
  CHECK(samples[0].job_id == "602");
  CHECK(h.sampler.tracked_jobs() == 1);
  CHECK(total_errors(h.errors) == 0);
}

TEST_CASE("a pid listed in cgroup.procs without a /proc entry is skipped and not counted as an error", "[sampler]") {
  FixtureCopy copy("slurm-v1");
  copy.write(copy.cgroup(kJob101Freezer) / "step_batch/cgroup.procs", "1011\n1012\n4242\n");
  Harness h(copy);
  auto samples = h.sampler.sample(1.0);
  CHECK(job(samples, "101").processes == 5);
  CHECK(total_errors(h.errors) == 0);
}

TEST_CASE("a malformed memory.stat counts one cgroup error and every job is still sampled", "[sampler]") {
  FixtureCopy copy("slurm-v1");
  copy.write(copy.cgroup("memory/slurm/uid_0/job_101/memory.stat"), "total_rss 53687x912\ntotal_shmem 0\n");
  Harness h(copy);
  auto samples = h.sampler.sample(1.0);
  REQUIRE(samples.size() == 2);
  auto totals = h.errors.totals();
  CHECK(totals["cgroup"] == 1);
  CHECK(total_errors(h.errors) == 1);
  CHECK_FALSE(job(samples, "101").rss_mib);
  CHECK(job(samples, "101").cpu_time_total == Approx(270.005));  // the job's other sources still count
  REQUIRE(job(samples, "102").rss_mib);
  CHECK(*job(samples, "102").rss_mib == Approx(2176.0));
}

TEST_CASE("a garbage /proc/<pid>/stat counts one proc error and only that process is skipped", "[sampler]") {
  FixtureCopy copy("slurm-v1");
  copy.write(copy.proc("2022/stat"), "2022 (gmx_mpi) R 2020 garbage\n");
  Harness h(copy);
  auto samples = h.sampler.sample(1.0);
  REQUIRE(samples.size() == 2);
  CHECK(h.errors.totals()["proc"] == 1);
  CHECK(total_errors(h.errors) == 1);
  CHECK(job(samples, "102").processes == 3);
  CHECK(job(samples, "101").processes == 5);
}

TEST_CASE("a live job without cpuacct.usage counts one cgroup error and keeps its other metrics", "[sampler]") {
  FixtureCopy copy("slurm-v1");
  fs::remove(copy.cgroup(kJob101Cpuacct) / "cpuacct.usage");
  Harness h(copy);
  auto samples = h.sampler.sample(1.0);
  CHECK(h.errors.totals()["cgroup"] == 1);
  CHECK_FALSE(job(samples, "101").cpu_time_total);
  CHECK(job(samples, "101").rss_mib);
  CHECK(job(samples, "102").cpu_time_total == Approx(380.0));
}

TEST_CASE("jobs of excluded uids are skipped", "[sampler]") {
  SECTION("uid from the v1 path") {
    FixtureCopy copy("slurm-v1");
    SamplerOptions options;
    options.excluded_uids = {65534};
    Harness h(copy, options);
    auto samples = h.sampler.sample(1.0);
    REQUIRE(samples.size() == 1);
    CHECK(samples[0].job_id == "101");
  }
  SECTION("uid from the owner of /proc/<pid> (v2 has no uid in the path)") {
    FixtureCopy copy("slurm-v2");  // the copy belongs to this test's user
    SamplerOptions options;
    options.excluded_uids = {static_cast<unsigned>(::geteuid())};
    Harness h(copy, options);
    CHECK(h.sampler.sample(1.0).empty());
  }
}

TEST_CASE("without a peak file the memory peak is the high-water mark of the samples", "[sampler]") {
  FixtureCopy copy("slurm-v2-multi");  // kernel without memory.peak
  const fs::path stat = copy.cgroup("system.slice/node01_slurmstepd.scope/job_401/memory.stat");
  Harness h(copy);
  const JobSample first = job(h.sampler.sample(1.0), "401");
  REQUIRE(first.rss_mib);
  CHECK(*first.rss_mib == Approx(1056.0));
  REQUIRE(first.memory_peak_mib);
  CHECK(*first.memory_peak_mib == Approx(1056.0));

  copy.write(stat, "anon 536870912\nfile 0\nshmem 0\n");  // 512 MiB
  const JobSample lower = job(h.sampler.sample(2.0), "401");
  CHECK(*lower.rss_mib == Approx(512.0));
  CHECK(*lower.memory_peak_mib == Approx(1056.0));

  copy.write(stat, "anon 2147483648\nfile 0\nshmem 67108864\n");  // 2048 + 64 MiB
  const JobSample higher = job(h.sampler.sample(3.0), "401");
  CHECK(*higher.memory_peak_mib == Approx(2112.0));
}

TEST_CASE("with a peak file the memory peak is the kernel's", "[sampler]") {
  FixtureCopy copy("slurm-v2");
  Harness h(copy);
  const JobSample s = job(h.sampler.sample(1.0), "301");
  REQUIRE(s.memory_peak_mib);
  CHECK(*s.memory_peak_mib == Approx(1200.0));  // memory.peak, above the current 1056 MiB
  REQUIRE(s.memory_limit_mib);
  CHECK(*s.memory_limit_mib == Approx(2048.0));
  CHECK_FALSE(job(h.sampler.sample(2.0), "302").memory_limit_mib);  // memory.max is "max"
}

TEST_CASE("v2 per-core seconds follow /proc/stat on an exclusive cpuset and sum to the cpu.stat total", "[sampler]") {
  FixtureCopy copy("slurm-v2");  // 301 has cpus 0-1, 302 has 2-3: exclusive
  const fs::path cpu_stat = copy.cgroup("system.slice/slurmstepd.scope/job_301/cpu.stat");
  copy.write(copy.proc("stat"), proc_stat_text({1000, 1000, 1000, 1000}));
  Harness h(copy);
  const JobSample first = job(h.sampler.sample(100.0), "301");
  REQUIRE(first.cpu_time_total);
  CHECK(core_sum(first) == Approx(*first.cpu_time_total));

  // 10 s more CPU time; cpu 0 was 3x as busy as cpu 1 meanwhile.
  copy.write(cpu_stat, cpu_stat_text(130'000'000, 108'000'000, 22'000'000));
  copy.write(copy.proc("stat"), proc_stat_text({1750, 1250, 1000, 1000}));
  const JobSample second = job(h.sampler.sample(110.0), "301");
  REQUIRE(second.cpu_time_total);
  CHECK(*second.cpu_time_total == Approx(130.0));
  CHECK(core_sum(second) == Approx(130.0));
  CHECK(core_seconds(second, 0) - core_seconds(first, 0) == Approx(7.5));
  CHECK(core_seconds(second, 1) - core_seconds(first, 1) == Approx(2.5));
  REQUIRE(second.cpu_percent);
  CHECK(*second.cpu_percent == Approx(100.0));

  // And again: the sum keeps tracking the total.
  copy.write(cpu_stat, cpu_stat_text(131'000'000, 109'000'000, 22'000'000));
  copy.write(copy.proc("stat"), proc_stat_text({1800, 1300, 1000, 1000}));
  const JobSample third = job(h.sampler.sample(120.0), "301");
  CHECK(core_sum(third) == Approx(131.0));
}

TEST_CASE("v2 per-core seconds on a shared cpuset follow where the job's threads ran", "[sampler]") {
  FixtureCopy copy("slurm-v2-multi");  // 401 has cpus 0-3, 402 has 2-5: shared
  Harness h(copy);
  const JobSample first = job(h.sampler.sample(100.0), "401");
  REQUIRE(first.cpu_time_total);
  CHECK(core_sum(first) == Approx(120.0));

  // 8 s more CPU time: python3 (13012) ran 300 ticks on cpu 2, a.out (13021) 100 ticks on cpu 3.
  copy.write(copy.cgroup("system.slice/node01_slurmstepd.scope/job_401/cpu.stat"),
             cpu_stat_text(128'000'000, 107'000'000, 21'000'000));
  copy.write(copy.proc("13012/stat"), stat_line(13012, "python3", 9000 + 300, 1500, 6, 700100, 2));
  copy.write(copy.proc("13021/stat"), stat_line(13021, "a.out", 1000 + 100, 500, 1, 700210, 3));
  const JobSample second = job(h.sampler.sample(110.0), "401");
  CHECK(core_sum(second) == Approx(128.0));
  CHECK(core_seconds(second, 0) - core_seconds(first, 0) == Approx(0.0));
  CHECK(core_seconds(second, 1) - core_seconds(first, 1) == Approx(0.0));
  CHECK(core_seconds(second, 2) - core_seconds(first, 2) == Approx(6.0));
  CHECK(core_seconds(second, 3) - core_seconds(first, 3) == Approx(2.0));
}

// ---------------------------------------------------------------------------
// Regression tests for collector bugs found while writing this suite.

TEST_CASE("a malformed cpuacct.stat leaves user and system time unknown, not zero", "[sampler]") {
  FixtureCopy copy("slurm-v1");
  copy.write(copy.cgroup(kJob101Cpuacct) / "cpuacct.stat", "user 26500\nsystem\n");
  Harness h(copy);
  const JobSample s = job(h.sampler.sample(1.0), "101");
  CHECK(h.errors.totals()["cgroup"] == 1);
  CHECK_FALSE(s.user_time);
  CHECK_FALSE(s.system_time);
}

TEST_CASE("a process missing from one pass is not counted twice when it is seen again", "[sampler]") {
  FixtureCopy copy("slurm-v1");
  Harness h(copy);
  const JobSample before = job(h.sampler.sample(1.0), "101");
  const std::string stat = stat_line(1012, "python3", 12000, 300, 4, 500100, 1);
  copy.write(copy.proc("1012/stat"), "1012 (python3) R garbage\n");  // one unreadable pass
  h.sampler.sample(2.0);
  copy.write(copy.proc("1012/stat"), stat);
  const JobSample after = job(h.sampler.sample(3.0), "101");
  CHECK(after.read_mib == Approx(before.read_mib));
}

TEST_CASE("a v2 job's owner is known even when its first listed pid has vanished", "[sampler]") {
  FixtureCopy copy("slurm-v2");
  // pid 2999 is listed first and has no /proc entry.
  copy.write(copy.cgroup("system.slice/slurmstepd.scope/job_301/step_batch/slurm/cgroup.procs"), "2999\n3010\n");
  Harness h(copy);
  h.sampler.sample(1.0);
  const JobSample s = job(h.sampler.sample(2.0), "301");
  CHECK(s.uid);
}

TEST_CASE("the job environment is found past the first three processes in later passes", "[sampler]") {
  FixtureCopy copy("slurm-v1");
  // 101's non-extern processes by pid: 1000 and 1010 (slurmstepd), 1011 (bash,
  // here with an emptied environment), 1012 (python3, with SLURM_JOB_ID).
  copy.write(copy.proc("1011/environ"), std::string("PATH=/usr/bin:/bin") + '\0');
  Harness h(copy);
  std::string account;
  for (int pass = 0; pass < 10; ++pass) account = job(h.sampler.sample(1.0 + pass), "101").account;
  CHECK(account == "physics");
}

TEST_CASE("a v2 job's owner is the user running it, not root-owned slurmstepd", "[sampler]") {
  // Needs root to give the copy's /proc/<pid> dirs their real owners.
  if (::geteuid() != 0) {
    WARN("skipped: needs root to chown the fixture copy");
    return;
  }
  FixtureCopy copy("slurm-v2");
  // slurmstepd (4000, 4010) runs as root; the job's own processes as nobody.
  for (const char* pid : {"4001", "4011", "4012"}) REQUIRE(::chown(copy.proc(pid).c_str(), 65534, 65534) == 0);
  for (const char* pid : {"4000", "4010"}) REQUIRE(::chown(copy.proc(pid).c_str(), 0, 0) == 0);
  Harness h(copy);
  const JobSample s = job(h.sampler.sample(1.0), "302");
  REQUIRE(s.uid);
  CHECK(*s.uid == 65534);
  CHECK(s.user == "nobody");
}

TEST_CASE("a cpuset that could not be read is read again in a later pass", "[sampler]") {
  FixtureCopy copy("slurm-v1");
  const fs::path cpus = copy.cgroup("cpuset/slurm/uid_0/job_101/cpuset.cpus");
  copy.write(cpus, "0-x\n");
  Harness h(copy);
  h.sampler.sample(1.0);
  copy.write(cpus, "0-1\n");
  const JobSample s = job(h.sampler.sample(2.0), "101");
  CHECK(s.cpus == std::vector<int>{0, 1});
}

// ---------------------------------------------------------------- the watch

namespace {

// Empties every cgroup.procs of job 101 in the hierarchies that list its
// processes: the job's last process has exited, the cgroups are still there.
void empty_job_101(const FixtureCopy& copy) {
  for (const char* hierarchy : {kJob101Cpuacct, kJob101Freezer})
    for (const auto& entry : fs::recursive_directory_iterator(copy.cgroup(hierarchy)))
      if (entry.path().filename() == "cgroup.procs") copy.write(entry.path(), "");
}

void remove_job(const FixtureCopy& copy, const std::string& job_dir) {
  for (const char* ctrl : {"cpuacct", "memory", "cpuset", "freezer"}) fs::remove_all(copy.cgroup(ctrl) / job_dir);
}

}  // namespace

TEST_CASE("the watch takes a full sample of a job it sees for the first time", "[sampler][watch]") {
  FixtureCopy copy("slurm-v1");
  Harness h(copy);
  auto started = h.sampler.watch(1.0);
  REQUIRE(started.size() == 2);
  const JobSample& s = job(started, "101");
  CHECK(s.processes == 5);  // from /proc, as in a full pass
  CHECK(s.user == "root");
  CHECK(s.account == "physics");
  CHECK(s.cpus.size() == 2);
  // Known from then on: the next watch starts nothing and ends nothing.
  CHECK(h.sampler.watch(2.0).empty());
  CHECK(h.sampler.take_ended().empty());
  CHECK(h.sampler.tracked_jobs() == 2);
}

TEST_CASE("the watch reads the job cgroups only, no /proc", "[sampler][watch]") {
  FixtureCopy copy("slurm-v1");
  Harness h(copy);
  h.sampler.sample(1.0);
  fs::remove_all(copy.proc());  // every /proc read would now fail or miss
  fs::create_directories(copy.proc());
  CHECK(h.sampler.watch(2.0).empty());
  CHECK(h.sampler.take_ended().empty());
  CHECK(total_errors(h.errors) == 0);
}

TEST_CASE("a job whose cgroups are removed ends with the last readings the watch took", "[sampler][watch]") {
  FixtureCopy copy("slurm-v1");
  Harness h(copy);
  h.sampler.sample(100.0);
  // 3 s of CPU in the second after the full pass, then the cgroups vanish.
  copy.write(copy.cgroup(kJob101Cpuacct) / "cpuacct.usage", std::to_string(kJob101UsageNs + 3'000'000'000) + "\n");
  copy.write(copy.cgroup("memory/slurm/uid_0/job_101/memory.usage_in_bytes"), "1073741824\n");
  h.sampler.watch(101.0);
  CHECK(h.sampler.take_ended().empty());
  remove_job(copy, "slurm/uid_0/job_101");
  h.sampler.watch(102.0);
  auto ended = h.sampler.take_ended();
  REQUIRE(ended.size() == 1);
  const JobSample& last = ended[0];
  CHECK(last.job_id == "101");
  CHECK(last.cpu_time_total == Approx(273.005));  // the watch's reading at 101 s, not the full pass's 270.005
  REQUIRE(last.cpu_percent);
  CHECK(*last.cpu_percent == Approx(300.0));  // 3 s over the 1 s since the full pass
  CHECK(last.usage_mib == Approx(1024.0));
  CHECK(last.processes == 5);  // as the last full pass counted them
  CHECK(last.user == "root");
  CHECK(h.sampler.tracked_jobs() == 1);
  CHECK(h.sampler.take_ended().empty());  // handed out once
  CHECK(total_errors(h.errors) == 0);
}

TEST_CASE("a job whose cgroups hold no process ends at once, with counters read after its last process left",
          "[sampler][watch]") {
  FixtureCopy copy("slurm-v1");
  Harness h(copy);
  h.sampler.sample(100.0);
  empty_job_101(copy);
  copy.write(copy.cgroup(kJob101Cpuacct) / "cpuacct.usage", std::to_string(kJob101UsageNs + 1'000'000'000) + "\n");
  h.sampler.watch(101.0);
  auto ended = h.sampler.take_ended();
  REQUIRE(ended.size() == 1);
  CHECK(ended[0].job_id == "101");
  CHECK(ended[0].cpu_time_total == Approx(271.005));
  // The empty cgroup is not a job: neither the watch nor a full pass takes it
  // for a new one, and it ends only once.
  CHECK(h.sampler.watch(102.0).empty());
  auto running = h.sampler.sample(103.0);
  CHECK_FALSE(has_job(running, "101"));
  CHECK(h.sampler.take_ended().empty());
  CHECK(h.sampler.tracked_jobs() == 1);
}

TEST_CASE("a job whose cgroups vanish one by one ends with the readings taken before, none made up",
          "[sampler][watch]") {
  FixtureCopy copy("slurm-v1");
  Harness h(copy);
  h.sampler.sample(100.0);
  copy.write(copy.cgroup(kJob101Cpuacct) / "cpuacct.usage", std::to_string(kJob101UsageNs + 2'000'000'000) + "\n");
  h.sampler.watch(101.0);
  // Slurm removes one hierarchy after the other: cpuacct is gone, the
  // freezer still lists the job's processes, then all are gone.
  fs::remove_all(copy.cgroup(kJob101Cpuacct));
  h.sampler.watch(102.0);
  CHECK(h.sampler.take_ended().empty());
  remove_job(copy, "slurm/uid_0/job_101");
  h.sampler.watch(103.0);
  auto ended = h.sampler.take_ended();
  REQUIRE(ended.size() == 1);
  CHECK(ended[0].cpu_time_total == Approx(272.005));  // the 101 s reading; cpuacct was gone at 102 s
  CHECK(total_errors(h.errors) == 0);
}

TEST_CASE("without the watch a full pass ends a job whose cgroups are gone", "[sampler][watch]") {
  FixtureCopy copy("slurm-v1");
  Harness h(copy);
  h.sampler.sample(100.0);
  copy.write(copy.cgroup(kJob101Cpuacct) / "cpuacct.usage", std::to_string(kJob101UsageNs + 5'000'000'000) + "\n");
  h.sampler.sample(110.0);
  remove_job(copy, "slurm/uid_0/job_101");
  auto running = h.sampler.sample(125.0);
  CHECK_FALSE(has_job(running, "101"));
  auto ended = h.sampler.take_ended();
  REQUIRE(ended.size() == 1);
  CHECK(ended[0].cpu_time_total == Approx(275.005));
}

TEST_CASE("with the watch running, a job gone at a full pass is ended by the next watch", "[sampler][watch]") {
  FixtureCopy copy("slurm-v1");
  Harness h(copy);
  h.sampler.sample(100.0);
  copy.write(copy.cgroup(kJob101Cpuacct) / "cpuacct.usage", std::to_string(kJob101UsageNs + 5'000'000'000) + "\n");
  h.sampler.watch(101.0);
  remove_job(copy, "slurm/uid_0/job_101");
  // Until then it stays as the watch last read it: its series do not blink out.
  auto running = h.sampler.sample(115.0);
  REQUIRE(has_job(running, "101"));
  CHECK(job(running, "101").cpu_time_total == Approx(275.005));
  CHECK(h.sampler.take_ended().empty());
  h.sampler.watch(116.0);
  auto ended = h.sampler.take_ended();
  REQUIRE(ended.size() == 1);
  CHECK(ended[0].cpu_time_total == Approx(275.005));
}

namespace {

// The v1 cpuacct files of one cgroup directory: total and per-CPU in ns,
// user and system in USER_HZ ticks.
void write_cpuacct(const FixtureCopy& copy, const fs::path& dir, std::uint64_t total_ns,
                   const std::vector<std::uint64_t>& per_cpu_ns, std::uint64_t user_ticks, std::uint64_t system_ticks) {
  copy.write(dir / "cpuacct.usage", std::to_string(total_ns) + "\n");
  std::string per_cpu;
  for (auto ns : per_cpu_ns) per_cpu += std::to_string(ns) + " ";
  copy.write(dir / "cpuacct.usage_percpu", per_cpu + "\n");
  copy.write(dir / "cpuacct.stat",
             "user " + std::to_string(user_ticks) + "\nsystem " + std::to_string(system_ticks) + "\n");
}

}  // namespace

TEST_CASE("a job whose cgroups vanish between two watches gets the CPU its parent shows it used after the last read",
          "[sampler][watch]") {
  FixtureCopy copy("slurm-v1");
  const fs::path parent = copy.cgroup("cpuacct/slurm/uid_0");
  const fs::path job = copy.cgroup(kJob101Cpuacct);
  // A second job of the same user beside job 101 (same processes' files).
  fs::copy(job, parent / "job_103", fs::copy_options::recursive);
  for (const auto& entry : fs::recursive_directory_iterator(parent / "job_103"))
    if (entry.path().filename() == "cgroup.procs") copy.write(entry.path(), "");
  copy.write(parent / "job_103/step_batch/task_0/cgroup.procs", "1011\n");
  write_cpuacct(copy, job, 270'000'000'000, {150'000'000'000, 120'000'000'000}, 26500, 450);
  write_cpuacct(copy, parent / "job_103", 10'000'000'000, {5'000'000'000, 5'000'000'000}, 900, 100);
  write_cpuacct(copy, parent, 280'000'000'000, {155'000'000'000, 125'000'000'000}, 27400, 550);
  Harness h(copy);
  h.sampler.sample(100.0);
  h.sampler.watch(101.0);

  // Job 101 runs 0.7 s more (0.5 s on CPU 0, 0.2 s on CPU 1) and is gone
  // before the next watch; job 103 runs 0.5 s on CPU 1 meanwhile.
  remove_job(copy, "slurm/uid_0/job_101");
  write_cpuacct(copy, parent / "job_103", 10'500'000'000, {5'000'000'000, 5'500'000'000}, 945, 105);
  write_cpuacct(copy, parent, 281'200'000'000, {155'500'000'000, 125'700'000'000}, 27510, 562);
  h.sampler.watch(102.0);
  auto ended = h.sampler.take_ended();
  REQUIRE(ended.size() == 1);
  const JobSample& last = ended[0];
  CHECK(last.job_id == "101");
  CHECK(last.cpu_time_total == Approx(270.7));
  CHECK(last.user_time == Approx(265.65));  // (26500 + 110 - 45) ticks
  CHECK(last.system_time == Approx(4.57));  // (450 + 12 - 5) ticks
  CHECK(core_seconds(last, 0) == Approx(150.5));
  CHECK(core_seconds(last, 1) == Approx(120.2));
  CHECK(total_errors(h.errors) == 0);
}

TEST_CASE("two jobs of one parent gone at once share its time by their cpusets", "[sampler][watch]") {
  FixtureCopy copy("slurm-v1");
  const fs::path parent = copy.cgroup("cpuacct/slurm/uid_0");
  // Job 103 beside job 101 on CPUs 2-3 (101 has 0-1), both gone at once.
  for (const char* ctrl : {"cpuacct", "memory", "cpuset", "freezer"})
    fs::copy(copy.cgroup(ctrl) / "slurm/uid_0/job_101", copy.cgroup(ctrl) / "slurm/uid_0/job_103",
             fs::copy_options::recursive);
  copy.write(copy.cgroup("cpuset/slurm/uid_0/job_103/cpuset.cpus"), "2-3\n");
  write_cpuacct(copy, copy.cgroup(kJob101Cpuacct), 270'000'000'000, {150'000'000'000, 120'000'000'000, 0, 0}, 26500,
                450);
  write_cpuacct(copy, parent / "job_103", 10'000'000'000, {0, 0, 5'000'000'000, 5'000'000'000}, 900, 100);
  write_cpuacct(copy, parent, 280'000'000'000, {150'000'000'000, 120'000'000'000, 5'000'000'000, 5'000'000'000}, 27400,
                550);
  Harness h(copy);
  h.sampler.watch(101.0);
  remove_job(copy, "slurm/uid_0/job_101");
  remove_job(copy, "slurm/uid_0/job_103");
  // 0.6 s on CPUs 0-1 (job 101's), 0.3 s on CPU 3 (job 103's).
  write_cpuacct(copy, parent, 280'900'000'000, {150'400'000'000, 120'200'000'000, 5'000'000'000, 5'300'000'000}, 27490,
                550);
  h.sampler.watch(102.0);
  auto ended = h.sampler.take_ended();
  REQUIRE(ended.size() == 2);
  CHECK(job(ended, "101").cpu_time_total == Approx(270.6));
  CHECK(job(ended, "103").cpu_time_total == Approx(10.3));
  CHECK(core_seconds(job(ended, "103"), 3) == Approx(5.3));
  CHECK(job(ended, "101").user_time == Approx(265.0));  // user and system are not split: the last reading
}

TEST_CASE("two jobs of one parent gone at once keep their last readings when nothing tells them apart",
          "[sampler][watch]") {
  FixtureCopy copy("slurm-v1");
  const fs::path parent = copy.cgroup("cpuacct/slurm/uid_0");
  fs::copy(copy.cgroup(kJob101Cpuacct), parent / "job_103", fs::copy_options::recursive);
  write_cpuacct(copy, copy.cgroup(kJob101Cpuacct), 270'000'000'000, {150'000'000'000, 120'000'000'000}, 26500, 450);
  write_cpuacct(copy, parent, 540'000'000'000, {300'000'000'000, 240'000'000'000}, 53000, 900);
  Harness h(copy);
  h.sampler.watch(101.0);
  remove_job(copy, "slurm/uid_0/job_101");
  fs::remove_all(parent / "job_103");
  write_cpuacct(copy, parent, 542'000'000'000, {301'000'000'000, 241'000'000'000}, 53200, 900);
  h.sampler.watch(102.0);
  auto ended = h.sampler.take_ended();
  REQUIRE(has_job(ended, "101"));
  CHECK(job(ended, "101").cpu_time_total == Approx(270.0));
}

TEST_CASE("a job whose cgroup CPU time goes down is sampled as a new job", "[sampler][watch]") {
  FixtureCopy copy("slurm-v1");
  Harness h(copy);
  h.sampler.sample(100.0);
  copy.write(copy.cgroup(kJob101Cpuacct) / "cpuacct.usage", std::to_string(kJob101UsageNs + 10'000'000'000) + "\n");
  REQUIRE(job(h.sampler.sample(110.0), "101").cpu_percent);

  SECTION("seen by the watch: a new start, no end") {
    copy.write(copy.cgroup(kJob101Cpuacct) / "cpuacct.usage", "1000000000\n");
    auto started = h.sampler.watch(111.0);
    REQUIRE(has_job(started, "101"));
    CHECK(job(started, "101").cpu_time_total == Approx(1.0));
    CHECK_FALSE(job(started, "101").cpu_percent);  // a first sample has no rate
    CHECK(h.sampler.take_ended().empty());
  }
  SECTION("seen by a full pass: no rate against the old job's counter") {
    copy.write(copy.cgroup(kJob101Cpuacct) / "cpuacct.usage", "1000000000\n");
    const JobSample again = job(h.sampler.sample(120.0), "101");
    CHECK(again.cpu_time_total == Approx(1.0));
    CHECK_FALSE(again.cpu_percent);
    CHECK(h.sampler.take_ended().empty());
  }
}

TEST_CASE("a v2 job's cgroup with only slurmstepd left in its slurm/ leaves has ended", "[sampler][watch]") {
  FixtureCopy copy("slurm-v2");
  Harness h(copy);
  h.sampler.sample(100.0);
  const fs::path job = copy.cgroup("system.slice/slurmstepd.scope/job_301");
  for (const auto& entry : fs::recursive_directory_iterator(job)) {
    if (entry.path().filename() != "cgroup.procs") continue;
    bool slurmstepd_leaf = entry.path().parent_path().filename() == "slurm";
    if (!slurmstepd_leaf) copy.write(entry.path(), "");
  }
  h.sampler.watch(101.0);
  auto ended = h.sampler.take_ended();
  REQUIRE(has_job(ended, "301"));
  CHECK(ended.size() == 1);
}

TEST_CASE("a job first seen with only slurmstepd is starting: the watch samples it once its processes are in",
          "[sampler][watch]") {
  // Slurm makes the cgroups first: a short job taken for a leftover at that
  // moment would wait for the next full pass, and could end before it.
  FixtureCopy copy("slurm-v2");
  const fs::path job_dir = copy.cgroup("system.slice/slurmstepd.scope/job_301");
  std::map<fs::path, std::string> procs;
  for (const auto& entry : fs::recursive_directory_iterator(job_dir)) {
    if (entry.path().filename() != "cgroup.procs" || entry.path().parent_path().filename() == "slurm") continue;
    std::ifstream in(entry.path());
    procs[entry.path()] = std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  }
  auto only_slurmstepd = [&] {
    for (const auto& [path, text] : procs) copy.write(path, "");
  };
  auto processes_in = [&] {
    for (const auto& [path, text] : procs) copy.write(path, text);
  };
  only_slurmstepd();
  Harness h(copy);
  CHECK_FALSE(has_job(h.sampler.watch(1.0), "301"));
  processes_in();
  auto started = h.sampler.watch(2.0);
  REQUIRE(has_job(started, "301"));
  CHECK(job(started, "301").processes > 0);
  CHECK(h.sampler.take_ended().empty());

  // Empty for longer than the grace: a leftover, left to the full passes.
  FixtureCopy later("slurm-v2");
  const fs::path other = later.cgroup("system.slice/slurmstepd.scope/job_301");
  std::map<fs::path, std::string> saved;
  for (const auto& [path, text] : procs) {
    const fs::path moved = other / fs::relative(path, job_dir);
    saved[moved] = text;
    later.write(moved, "");
  }
  Harness g(later);
  CHECK_FALSE(has_job(g.sampler.watch(1.0), "301"));
  CHECK_FALSE(has_job(g.sampler.watch(12.0), "301"));
  for (const auto& [path, text] : saved) later.write(path, text);
  CHECK_FALSE(has_job(g.sampler.watch(13.0), "301"));  // the watch skips leftovers
  CHECK(has_job(g.sampler.sample(14.0), "301"));       // a full pass looks again
}

TEST_CASE("v1 memory breakdown: page cache without shmem, kernel memory as usage beyond cache + rss",
          "[sampler][memory]") {
  FixtureCopy copy("slurm-v1");
  // 512 MiB anon, 64 MiB shmem, 214 MiB cache (shmem included), usage 800 MiB.
  copy.write(copy.cgroup("memory/slurm/uid_0/job_101/memory.usage_in_bytes"), "838860800\n");
  Harness h(copy);
  const JobSample s = job(h.sampler.sample(1.0), "101");
  CHECK(s.rss_mib == Approx(576));
  CHECK(s.anon_mib == Approx(512));
  CHECK(s.shmem_mib == Approx(64));
  CHECK(s.file_mib == Approx(150));   // 214 - 64
  CHECK(s.kernel_mib == Approx(74));  // 800 - 214 - 512
  CHECK(s.usage_mib == Approx(800));
  CHECK(s.swap_mib == Approx(0));  // total_swap 0
  CHECK(s.memory_peak_mib == Approx(700));
}

TEST_CASE("v2 memory breakdown from memory.stat, memory.current and memory.swap.current", "[sampler][memory]") {
  FixtureCopy copy("slurm-v2");
  const fs::path job_dir = copy.cgroup("system.slice/slurmstepd.scope/job_301");
  Harness h(copy);
  const JobSample s = job(h.sampler.sample(1.0), "301");
  CHECK(s.anon_mib == Approx(1024));
  CHECK(s.shmem_mib == Approx(32));
  CHECK(s.file_mib == Approx(545 - 32));  // file 545 MiB holds the 32 MiB of shmem
  CHECK(s.kernel_mib == Approx(9));       // the kernel key, not its parts
  CHECK(s.usage_mib == Approx(1578));     // memory.current: anon + file + kernel
  CHECK_FALSE(s.swap_mib);                // no memory.swap.current: no swap controller
  copy.write(job_dir / "memory.swap.current", "1048576\n");
  CHECK(job(h.sampler.sample(2.0), "301").swap_mib == Approx(1));
  CHECK(total_errors(h.errors) == 0);
}

namespace {

// Counters for two users' jobs on 4 CPUs: job 101 of uid 0 on CPUs 0-1,
// job 102 of uid 65534 on CPUs 2-3, each parent holding just its job.
void write_two_users(const FixtureCopy& copy, const fs::path& root) {
  write_cpuacct(copy, copy.cgroup(kJob101Cpuacct), 270'000'000'000, {150'000'000'000, 120'000'000'000, 0, 0}, 26500,
                450);
  write_cpuacct(copy, root / "uid_0", 270'000'000'000, {150'000'000'000, 120'000'000'000, 0, 0}, 26500, 450);
  write_cpuacct(copy, root / "uid_65534/job_102", 380'000'000'000, {0, 0, 190'000'000'000, 190'000'000'000}, 37000,
                1000);
  write_cpuacct(copy, root / "uid_65534", 380'000'000'000, {0, 0, 190'000'000'000, 190'000'000'000}, 37000, 1000);
  write_cpuacct(copy, root, 650'000'000'000, {150'000'000'000, 120'000'000'000, 190'000'000'000, 190'000'000'000},
                63500, 1450);
}

// Job 102 and its parent uid_65534 removed, as Slurm does with a user's last job.
void remove_user_65534(const FixtureCopy& copy) {
  remove_job(copy, "slurm/uid_65534/job_102");
  for (const char* ctrl : {"cpuacct", "memory", "cpuset", "freezer"})
    fs::remove_all(copy.cgroup(ctrl) / "slurm/uid_65534");
}

}  // namespace

TEST_CASE("a user's last job, whose uid_U cgroup goes with it, gets its time after the last read from the root",
          "[sampler][watch]") {
  FixtureCopy copy("slurm-v1");
  const fs::path root = copy.cgroup("cpuacct/slurm");
  write_two_users(copy, root);
  Harness h(copy);
  h.sampler.watch(101.0);

  // Job 102 runs 0.4 s more on CPU 3, then its cgroups and uid_65534 are
  // removed; job 101 runs 1 s on CPU 0 meanwhile.
  remove_user_65534(copy);
  write_cpuacct(copy, copy.cgroup(kJob101Cpuacct), 271'000'000'000, {151'000'000'000, 120'000'000'000, 0, 0}, 26600,
                450);
  write_cpuacct(copy, root / "uid_0", 271'000'000'000, {151'000'000'000, 120'000'000'000, 0, 0}, 26600, 450);
  write_cpuacct(copy, root, 651'400'000'000, {151'000'000'000, 120'000'000'000, 190'000'000'000, 190'400'000'000},
                63640, 1450);
  h.sampler.watch(102.0);
  auto ended = h.sampler.take_ended();
  REQUIRE(ended.size() == 1);
  CHECK(ended[0].job_id == "102");
  CHECK(ended[0].cpu_time_total == Approx(380.4));
  CHECK(ended[0].user_time == Approx(370.4));
  CHECK(core_seconds(ended[0], 3) == Approx(190.4));
}

TEST_CASE("a user's last job, whose uid_U cgroup is made anew for the user's next job, still gets its final time",
          "[sampler][watch]") {
  FixtureCopy copy("slurm-v1");
  const fs::path root = copy.cgroup("cpuacct/slurm");
  write_two_users(copy, root);
  Harness h(copy);
  h.sampler.watch(101.0);

  // Job 102 runs 0.4 s more; Slurm removes it with uid_65534, then makes
  // uid_65534 again for the user's next job, which has used 0.1 s so far.
  remove_user_65534(copy);
  write_cpuacct(copy, root / "uid_65534", 100'000'000, {0, 0, 100'000'000, 0}, 10, 0);
  write_cpuacct(copy, root, 650'500'000'000, {150'000'000'000, 120'000'000'000, 190'100'000'000, 190'400'000'000},
                63550, 1450);
  h.sampler.watch(102.0);
  auto ended = h.sampler.take_ended();
  REQUIRE(ended.size() == 1);
  CHECK(ended[0].job_id == "102");
  CHECK(ended[0].cpu_time_total == Approx(380.4));
  CHECK(core_seconds(ended[0], 2) == Approx(190.0));
  CHECK(core_seconds(ended[0], 3) == Approx(190.4));
}

TEST_CASE("a SLUID job is exported under its SLUID until an environment gives SLURM_JOB_ID, then under that only",
          "[sampler][sluid]") {
  FixtureCopy copy("slurm-v2-sluid");
  Harness h(copy);
  ExportedJobs exported(0);
  const std::string textfile = (copy.cgroup().parent_path() / "jobs.prom").string();
  auto sink = make_textfile_sink(textfile, h.errors);
  // One pass as the daemon runs it: sample, export, every sink gets the
  // whole snapshot (the pull endpoint and the Pushgateway PUT the same text).
  auto pass = [&](double now) {
    exported.set_running(h.sampler.sample(now));
    SelfMetrics self;
    self.errors_by_source = h.errors.totals();
    // As the daemon publishes: the text rendered from the samples, which
    // is what prometheus-cpp's families of them give.
    Exposition exposition(exported.current(now), "node1", self);
    REQUIRE(sink->publish(exposition));
    std::ifstream in(textfile);
    std::string written((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    CHECK(written == serialize_text(build_snapshot(exported.current(now), "node1", self)));
    CHECK(written == serialize_text(exposition.families()->build()));
    return written;
  };
  auto has = [](const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; };

  // 811's environment is readable; the other job's processes give none
  // (two unreadable environ files and the extern step's sleep).
  std::string first = pass(100);
  CHECK(has(first, R"(jobs_info{instance="node1",slurm_job="811",)"));
  CHECK(has(first, R"(account="physics",sluid="s5K1KKYAYG5D00"} 1)"));
  CHECK(has(first, R"(jobs_rss{instance="node1",slurm_job="s5K1KKYAYG5D0Z"} 350)"));
  CHECK(has(first, R"(account="",sluid="s5K1KKYAYG5D0Z"} 1)"));
  CHECK(h.errors.totals().at("environ") == 3);  // two unreadable files, one job without its number

  // Each pass without the number counts the job again.
  std::string second = pass(110);
  CHECK(has(second, R"(slurm_job="s5K1KKYAYG5D0Z")"));
  CHECK(h.errors.totals().at("environ") == 4);

  // A new step starts: its process carries the job's environment.
  copy.write(copy.cgroup("system.slice/slurmstepd.scope/s5k1kkyayg5d0z/step_0/user/task_0/cgroup.procs"), "4021\n");
  copy.write(copy.proc("4021/stat"), stat_line(4021, "train", 100, 10, 2, 900000, 2));
  copy.write(copy.proc("4021/io"), io_text(10, 10, 4096, 4096));
  std::string env = "SLURM_JOB_ID=812";
  env += '\0';
  env += "SLURM_JOB_ACCOUNT=chemistry";
  env += '\0';
  copy.write(copy.proc("4021/environ"), env);
  std::string third = pass(120);
  CHECK(has(third, R"(jobs_rss{instance="node1",slurm_job="812"} 350)"));
  CHECK(has(third, R"(jobs_info{instance="node1",slurm_job="812",)"));
  CHECK(has(third, R"(account="chemistry",sluid="s5K1KKYAYG5D0Z"} 1)"));
  CHECK_FALSE(has(third, R"(slurm_job="s5K1KKYAYG5D0Z")"));  // no series of the SLUID is left behind
  CHECK(has(third, R"(slurm_job="811")"));
  CHECK(h.errors.totals().at("environ") == 4);  // the number is known: no new error
  CHECK(h.sampler.tracked_jobs() == 2);
}

TEST_CASE("on a real cgroup v2 hierarchy, a job's cgroups made anew under the same name show its new processes",
          "[sampler][cgroup2]") {
  // The cgroup directories the sampler keeps open between passes
  // (held_files.hpp) must not show the removed ones: a requeued job's
  // cgroups are removed and made anew with the same names.
  petricore::test::Cgroup2Mount cg2;
  if (cg2.top.empty()) {
    WARN("cannot mount cgroup2 and make a cgroup in it (not root, or not allowed here): skipped");
    return;
  }
  const fs::path job = cg2.top / "system.slice" / "node_slurmstepd.scope" / "job_7";
  auto make_job = [&](int tasks) {
    fs::create_directories(job / "step_batch" / "slurm");
    for (int t = 0; t < tasks; ++t) fs::create_directories(job / "step_batch" / "user" / ("task_" + std::to_string(t)));
  };
  auto remove_job = [&] {
    std::vector<fs::path> dirs{job};
    for (const auto& entry : fs::recursive_directory_iterator(job))
      if (entry.is_directory()) dirs.push_back(entry.path());
    std::sort(dirs.begin(), dirs.end(),
              [](const fs::path& a, const fs::path& b) { return a.native().size() > b.native().size(); });
    for (const auto& d : dirs) REQUIRE(::rmdir(d.c_str()) == 0);
  };
  make_job(1);
  petricore::test::SleepingChild first;
  petricore::test::move_process(first.pid, job / "step_batch" / "user" / "task_0");
  ErrorCounter errors;
  Sampler sampler(cg2.top.string(), "/proc", make_layout(LayoutKind::Auto), {}, errors);
  for (double now : {100.0, 101.0}) {
    auto samples = sampler.sample(now);
    REQUIRE(samples.size() == 1);
    CHECK(samples[0].job_id == "7");
    CHECK(samples[0].processes == 1);
  }
  sampler.watch(101.5);
  CHECK(sampler.take_ended().empty());

  petricore::test::move_process(first.pid, cg2.parking);
  remove_job();
  make_job(2);
  petricore::test::SleepingChild second, third;
  petricore::test::move_process(second.pid, job / "step_batch" / "user" / "task_0");
  petricore::test::move_process(third.pid, job / "step_batch" / "user" / "task_1");
  auto samples = sampler.sample(102.0);
  REQUIRE(samples.size() == 1);
  CHECK(samples[0].processes == 2);
  sampler.watch(102.5);
  CHECK(sampler.take_ended().empty());

  // Its processes leave: the watch ends it.
  petricore::test::move_process(second.pid, cg2.parking);
  petricore::test::move_process(third.pid, cg2.parking);
  sampler.watch(103.0);
  auto ended = sampler.take_ended();
  REQUIRE(ended.size() == 1);
  CHECK(ended[0].job_id == "7");
  remove_job();
}

TEST_CASE("a job whose process reads hang keeps its cgroup numbers, and the pass ends within its timeout",
          "[sampler]") {
  FixtureCopy copy("slurm-v1");
  SamplerOptions options;
  options.pass_timeout = 0.4;  // 0.1 s a process, 0.32 s for all of them
  Harness h(copy, options);
  // Reading process 1012's stat blocks, as it does for a process whose
  // execve hangs on a dead file system (test/integration/hang_test.sh): a
  // FIFO keeps the reader in open(2) until a writer comes.
  fs::path stat = copy.proc("1012/stat");
  fs::remove(stat);
  REQUIRE(::mkfifo(stat.c_str(), 0600) == 0);
  auto seconds_since = [](std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  auto start = std::chrono::steady_clock::now();
  auto samples = h.sampler.sample(100.0);
  CHECK(seconds_since(start) < 0.4);
  const JobSample& hung = job(samples, "101");
  CHECK(hung.cpu_time_total);
  CHECK(hung.rss_mib);
  CHECK(hung.processes >= 1);
  CHECK(has_job(samples, "102"));
  CHECK(h.sampler.skipped().at("timeout") == 1);
  CHECK(h.sampler.stuck_readers() == 1);

  // The next pass does not wait for it again.
  start = std::chrono::steady_clock::now();
  samples = h.sampler.sample(110.0);
  CHECK(seconds_since(start) < 0.1);
  CHECK(job(samples, "101").cpu_time_total);
  CHECK(h.sampler.skipped().at("timeout") == 2);

  int writer = ::open(stat.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
  if (writer >= 0) ::close(writer);
  for (int i = 0; i < 500 && h.sampler.stuck_readers() > 0; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  CHECK(h.sampler.stuck_readers() == 0);
}
