// The job collectors one by one, each against the slurm-v1 fixture tree
// (read only), and their pure reading functions. The sampler's behaviour
// across passes, with all of them, is sampler_test.cpp's.
#include "collect/job_collectors.hpp"
#include "collect/cgroup_cpu_collector.hpp"
#include "collect/cgroup_memory_collector.hpp"
#include "collect/cgroup_reader.hpp"
#include "collect/cpuset_collector.hpp"
#include "collect/environ_collector.hpp"
#include "collect/error_counter.hpp"
#include "collect/file_reader.hpp"
#include "collect/gpu_collector.hpp"
#include "collect/layout.hpp"
#include "collect/process_collector.hpp"
#include "collect/procfs_reader.hpp"
#include "collect/sampler.hpp"
#include "collect/skip_counter.hpp"
#include "collect/slow_reads.hpp"

#include "catch.hpp"

#include "test_fixtures.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <memory>
#include <string>
#include <vector>

using namespace petricore::collect;
using petricore::test::fixtures_dir;
using petricore::test::total_errors;

namespace {

constexpr double kMiB = 1024.0 * 1024.0;

// The readers over one fixture case and one of its jobs, with the state a
// collector would get from the sampler.
struct OneJob {
  explicit OneJob(const std::string& fixture_case, const std::string& job_id)
      : cgroups(*open_directory((fixtures_dir() / fixture_case / "cgroup").string()), errors),
        procfs(*open_directory((fixtures_dir() / fixture_case / "proc").string()), errors),
        slow(procfs.root_fd(), 15, errors, skips) {
    for (JobCgroups& found : make_layout(LayoutKind::Auto)->discover(cgroups.root_fd(), errors))
      if (found.job_id == job_id) cg = found;
    REQUIRE(cg.job_id == job_id);
  }
  JobContext context() { return JobContext{cg, 1.0, facts, rate, false, nullptr, &findings}; }
  // Runs a collector the way the sampler does: a fresh state, prepare, collect.
  JobSample collect(JobCollector& collector) {
    if (!state) state = collector.new_job();
    JobContext job = context();
    collector.prepare(job, state.get());
    JobSample out;
    collector.collect(job, state.get(), out);
    return out;
  }

  ErrorCounter errors;
  CgroupReader cgroups;
  ProcfsReader procfs;
  SkipCounter skips;
  SlowReads slow;
  JobCgroups cg;
  JobFacts facts;
  CpuRate rate;
  ProcessFindings findings;
  std::unique_ptr<JobCollectorState> state;
};

}  // namespace

TEST_CASE("the cpuset collector reads the job's CPUs once, before the pass", "[collectors]") {
  OneJob j("slurm-v1", "101");
  CpusetCollector cpuset(j.cgroups);
  j.collect(cpuset);
  REQUIRE(j.facts.cpus);
  CHECK(*j.facts.cpus == std::vector<int>{0, 1});
}

TEST_CASE("the process collector walks the job's processes and hands on what later sources need", "[collectors]") {
  OneJob j("slurm-v1", "102");
  ProcessCollector processes(j.cgroups, j.slow, {"/scratch"}, 16);
  JobSample out = j.collect(processes);
  CHECK(out.processes == 4);  // slurmstepd left out
  CHECK(out.opened_files == 6);
  CHECK(j.findings.pids.size() == 4);
  CHECK_FALSE(j.findings.resident_bytes);  // the job has a memory cgroup
  CHECK(total_errors(j.errors) == 0);
}

TEST_CASE("the environ collector finds account, GPUs and owner in the walked processes", "[collectors]") {
  OneJob j("slurm-v1", "102");
  ProcessCollector processes(j.cgroups, j.slow, {}, 16);
  auto process_state = processes.new_job();
  JobContext job = j.context();
  JobSample out;
  processes.collect(job, process_state.get(), out);
  REQUIRE_FALSE(j.findings.pids.empty());
  EnvironCollector environ(j.procfs, j.slow);
  SECTION("the uid from the path, as the sampler sets it, is kept and named") {
    j.facts.uid = j.cg.uid;
    j.collect(environ);
    CHECK(j.facts.account == "chemistry");
    CHECK(j.facts.gpus == std::vector<std::string>{"0", "1"});
    REQUIRE(j.facts.uid);
    CHECK(*j.facts.uid == 65534);
    CHECK(j.facts.user == "nobody");
  }
  SECTION("without one, the owner of the first walked process's /proc entry") {
    j.collect(environ);
    struct stat st;
    std::string first = (fixtures_dir() / "slurm-v1" / "proc" / std::to_string(j.findings.pids.front())).string();
    REQUIRE(::stat(first.c_str(), &st) == 0);
    REQUIRE(j.facts.uid);
    CHECK(*j.facts.uid == st.st_uid);
    CHECK_FALSE(j.facts.user.empty());
  }
}

TEST_CASE("the environ collector reads nothing without walked processes", "[collectors]") {
  OneJob j("slurm-v1", "102");
  EnvironCollector environ(j.procfs, j.slow);
  j.collect(environ);
  CHECK(j.facts.account.empty());
  CHECK_FALSE(j.facts.uid);
}

TEST_CASE("the cgroup cpu collector reads time, a rate base and v1 per-core time of the cpuset", "[collectors]") {
  OneJob j("slurm-v1", "101");
  j.facts.cpus = std::vector<int>{0, 1};
  CgroupCpuCollector cpu(j.cgroups);
  JobSample out = j.collect(cpu);
  REQUIRE(out.cpu_time_total);
  CHECK(*out.cpu_time_total == Approx(270.005));
  CHECK_FALSE(out.cpu_percent);  // the first reading only sets the base
  REQUIRE(out.cpu_time_core.size() == 2);
  CHECK(out.cpu_time_core[0].second == Approx(150.0));
  CHECK(out.cpu_time_core[1].second == Approx(120.0));
  CHECK(j.rate.since_base(271.005, 11.0, 0.2) == Approx(10.0));
}

TEST_CASE("the cgroup memory collector reads the memory cgroup in MiB", "[collectors]") {
  OneJob j("slurm-v1", "101");
  CgroupMemoryCollector memory(j.cgroups);
  JobSample out = j.collect(memory);
  CHECK(out.rss_mib);
  CHECK(out.usage_mib);
  CHECK(out.memory_peak_mib);
  CHECK(total_errors(j.errors) == 0);
}

TEST_CASE("every source is listed once, the process walk before the sources that use it", "[collectors]") {
  ErrorCounter errors;
  CgroupReader cgroups(*open_directory((fixtures_dir() / "slurm-v1" / "cgroup").string()), errors);
  ProcfsReader procfs(*open_directory((fixtures_dir() / "slurm-v1" / "proc").string()), errors);
  SkipCounter skips;
  SlowReads slow(procfs.root_fd(), 15, errors, skips);
  SamplerOptions options;
  const bool with_gpus = GENERATE(false, true);
  if (with_gpus) {
    options.nvml_library = "/nonexistent/libnvidia-ml.so.1";
    options.rocm_smi_libraries = {"/nonexistent/librocm_smi64.so.6"};
  }
  auto collectors = make_job_collectors(cgroups, procfs, slow, options, errors);
  auto position = [&](auto* probe) -> int {
    using T = std::remove_pointer_t<decltype(probe)>;
    int found = -1;
    for (std::size_t i = 0; i < collectors.size(); ++i)
      if (dynamic_cast<T*>(collectors[i].get()) != nullptr) {
        CHECK(found == -1);
        found = static_cast<int>(i);
      }
    return found;
  };
  int walk = position(static_cast<ProcessCollector*>(nullptr));
  int environ = position(static_cast<EnvironCollector*>(nullptr));
  int cpu = position(static_cast<CgroupCpuCollector*>(nullptr));
  int memory = position(static_cast<CgroupMemoryCollector*>(nullptr));
  int cpuset = position(static_cast<CpusetCollector*>(nullptr));
  CHECK(collectors.size() == (with_gpus ? 7u : 5u));
  // The GPU sources match GPUs to the job's processes and its GPU ids.
  for (std::size_t i = 0; i < collectors.size(); ++i)
    if (dynamic_cast<GpuCollector*>(collectors[i].get()) != nullptr) {
      CHECK(static_cast<int>(i) > walk);
      CHECK(static_cast<int>(i) > environ);
    }
  CHECK(cpuset >= 0);
  CHECK(walk >= 0);
  CHECK(walk < environ);
  // The owner is known before the cgroup files are read.
  CHECK(environ < cpu);
  CHECK(environ < memory);
}

TEST_CASE("apply_memory: the cgroup's values in MiB and the kernel's peak", "[collectors]") {
  CgroupMemory memory;
  memory.rss_bytes = 300 * 1024 * 1024;
  memory.anon_bytes = 200 * 1024 * 1024;
  memory.usage_bytes = 512 * 1024 * 1024;
  memory.peak_bytes = 1024 * 1024 * 1024;
  std::uint64_t high_water = 0;
  JobSample out;
  apply_memory(memory, std::uint64_t{1}, high_water, out);
  CHECK(out.rss_mib == Approx(300.0));
  CHECK(out.anon_mib == Approx(200.0));
  CHECK(out.usage_mib == Approx(512.0));
  CHECK(out.memory_peak_mib == Approx(1024.0));
  CHECK_FALSE(out.memory_limit_mib);  // unlimited
  CHECK(high_water == 300 * 1024 * 1024);
}

TEST_CASE("apply_memory without a memory cgroup: rss from the processes, the peak their high-water mark",
          "[collectors]") {
  std::uint64_t high_water = 0;
  JobSample out;
  apply_memory(std::nullopt, std::uint64_t{64 * 1024 * 1024}, high_water, out);
  apply_memory(std::nullopt, std::uint64_t{16 * 1024 * 1024}, high_water, out);
  CHECK(out.rss_mib == Approx(16.0));
  CHECK(out.memory_peak_mib == Approx(64.0));
  CHECK_FALSE(out.usage_mib);
  CHECK(high_water == 64 * kMiB);
}

TEST_CASE("apply_cpu_reading: v1 per-core from its counters, v2 cores scaled to the new total", "[collectors]") {
  JobSample latest;
  latest.cpu_time_total = 10.0;
  latest.user_time = 9.0;
  latest.cpu_time_core = {{0, 6.0}, {2, 4.0}};
  SECTION("v1") {
    CgroupCpu cpu;
    cpu.total_seconds = 20.0;
    cpu.per_cpu_seconds = std::vector<double>{11.0, 0.5, 9.0};
    apply_cpu_reading(cpu, latest);
    CHECK(latest.cpu_time_total == Approx(20.0));
    CHECK(latest.cpu_time_core[0].second == Approx(11.0));
    CHECK(latest.cpu_time_core[1].second == Approx(9.0));
    CHECK(latest.user_time == Approx(9.0));  // not read: kept
  }
  SECTION("v2") {
    CgroupCpu cpu;
    cpu.total_seconds = 15.0;
    cpu.user_seconds = 13.0;
    apply_cpu_reading(cpu, latest);
    CHECK(latest.cpu_time_core[0].second == Approx(9.0));
    CHECK(latest.cpu_time_core[1].second == Approx(6.0));
    CHECK(latest.user_time == Approx(13.0));
  }
  SECTION("nothing read") {
    apply_cpu_reading(CgroupCpu{}, latest);
    CHECK(latest.cpu_time_total == Approx(10.0));
    CHECK(latest.cpu_time_core[0].second == Approx(6.0));
  }
}

TEST_CASE("a job's own SLURM_JOB_UID never beats the owner of its processes", "[collectors]") {
  if (::geteuid() != 0) {
    WARN("not root: cannot give a copied /proc entry another owner; not tested");
    return;
  }
  // The slurm-v1 tree copied, job 102's processes claiming uid 4321 in
  // their environments.
  char pattern[] = "/tmp/petricore-owner.XXXXXX";
  const std::filesystem::path dir = ::mkdtemp(pattern);
  std::filesystem::copy(fixtures_dir() / "slurm-v1", dir,
                        std::filesystem::copy_options::recursive | std::filesystem::copy_options::copy_symlinks);
  OneJob probe("slurm-v1", "102");
  ProcessCollector walk(probe.cgroups, probe.slow, {}, 16);
  probe.collect(walk);
  REQUIRE_FALSE(probe.findings.pids.empty());
  for (int pid : probe.findings.pids) {
    std::ofstream(dir / "proc" / std::to_string(pid) / "environ", std::ios::app | std::ios::binary)
        << std::string("SLURM_JOB_UID=4321\0", 19);
  }
  auto owned_by = [&](unsigned uid) {
    for (int pid : probe.findings.pids) REQUIRE(::chown((dir / "proc" / std::to_string(pid)).c_str(), uid, uid) == 0);
    ErrorCounter errors;
    CgroupReader cgroups(*open_directory((dir / "cgroup").string()), errors);
    ProcfsReader procfs(*open_directory((dir / "proc").string()), errors);
    SkipCounter skips;
    SlowReads slow(procfs.root_fd(), 15, errors, skips);
    JobCgroups cg;
    for (JobCgroups& found : make_layout(LayoutKind::Auto)->discover(cgroups.root_fd(), errors))
      if (found.job_id == "102") cg = found;
    JobFacts facts;
    CpuRate rate;
    ProcessFindings findings;
    JobContext job{cg, 1.0, facts, rate, false, nullptr, &findings};
    ProcessCollector processes(cgroups, slow, {}, 16);
    EnvironCollector environ(procfs, slow);
    for (JobCollector* c : std::initializer_list<JobCollector*>{&processes, &environ}) {
      auto state = c->new_job();
      c->prepare(job, state.get());
      JobSample out;
      c->collect(job, state.get(), out);
    }
    return facts.uid;
  };
  // A user's processes: their owner, whatever they claim.
  CHECK(owned_by(1234) == std::optional<unsigned>(1234));
  // Root's (slurmstepd's): the claim is believed.
  CHECK(owned_by(0) == std::optional<unsigned>(4321));
  std::filesystem::remove_all(dir);
}
