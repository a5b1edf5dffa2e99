// Job discovery over the committed fixture trees (test/fixtures/<case>/cgroup),
// one case per layout the collector recognises without configuration, plus the
// pattern layout for other schedulers.
#include "collect/layout.hpp"
#include "collect/cgroup_reader.hpp"
#include "collect/error_counter.hpp"
#include "collect/file_reader.hpp"

#include "catch.hpp"

#include "test_fixtures.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

using namespace petricore::collect;
namespace fs = std::filesystem;
using petricore::test::fixtures_dir;
using petricore::test::total_errors;

namespace {

std::vector<JobCgroups> discover_in(const fs::path& cgroup_root, LayoutKind kind = LayoutKind::Auto,
                                    const std::string& pattern = {}, ErrorCounter* counter = nullptr) {
  ErrorCounter local;
  ErrorCounter& errors = counter != nullptr ? *counter : local;
  auto root = open_directory(cgroup_root.string());
  REQUIRE(root);
  auto jobs = make_layout(kind, pattern)->discover(root->get(), errors);
  if (counter == nullptr) CHECK(total_errors(local) == 0);
  return jobs;
}

std::vector<JobCgroups> discover(const std::string& fixture_case, LayoutKind kind = LayoutKind::Auto,
                                 const std::string& pattern = {}) {
  return discover_in(fixtures_dir() / fixture_case / "cgroup", kind, pattern);
}

std::vector<std::string> ids(const std::vector<JobCgroups>& jobs) {
  std::vector<std::string> out;
  for (const auto& j : jobs) out.push_back(j.job_id);
  return out;
}

// A scratch directory removed at the end of the test.
class TempDir {
 public:
  TempDir() {
    std::string templ = (fs::temp_directory_path() / "petricore-layout-XXXXXX").string();
    REQUIRE(::mkdtemp(templ.data()) != nullptr);
    path_ = templ;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

void copy_case(const std::string& fixture_case, const fs::path& to) {
  fs::copy(fixtures_dir() / fixture_case, to, fs::copy_options::recursive | fs::copy_options::copy_symlinks);
}

void touch(const fs::path& file) {
  fs::create_directories(file.parent_path());
  std::ofstream{file};
}

}  // namespace

TEST_CASE("slurm v1: jobs under <ctrl>/slurm/uid_U/job_J with their uid and one dir per controller", "[layout]") {
  auto jobs = discover("slurm-v1");
  REQUIRE(ids(jobs) == std::vector<std::string>{"101", "102"});
  const JobCgroups& root_job = jobs[0];
  CHECK(root_job.version == CgroupVersion::V1);
  REQUIRE(root_job.uid);
  CHECK(*root_job.uid == 0);
  CHECK(root_job.cpu_dir == "cpuacct/slurm/uid_0/job_101");
  CHECK(root_job.memory_dir == "memory/slurm/uid_0/job_101");
  CHECK(root_job.cpuset_dir == "cpuset/slurm/uid_0/job_101");
  // freezer (proctrack/cgroup) lists every process of the job, slurmstepd included
  CHECK(root_job.process_dir == "freezer/slurm/uid_0/job_101");
  REQUIRE(jobs[1].uid);
  CHECK(*jobs[1].uid == 65534);
  CHECK(jobs[1].cpu_dir == "cpuacct/slurm/uid_65534/job_102");
  CHECK(jobs[1].process_dir == "freezer/slurm/uid_65534/job_102");
}

TEST_CASE("slurm v1 with multiple slurmd: jobs under every slurm_<node> root, cpuacct through the cpu,cpuacct symlink",
          "[layout]") {
  auto jobs = discover("slurm-v1-multi");
  REQUIRE(ids(jobs) == std::vector<std::string>{"201", "202"});
  CHECK(jobs[0].version == CgroupVersion::V1);
  REQUIRE(jobs[0].uid);
  CHECK(*jobs[0].uid == 0);
  CHECK(jobs[0].cpu_dir == "cpuacct/slurm_node01/uid_0/job_201");
  CHECK(jobs[0].memory_dir == "memory/slurm_node01/uid_0/job_201");
  CHECK(jobs[0].cpuset_dir == "cpuset/slurm_node01/uid_0/job_201");
  CHECK(jobs[0].process_dir == "freezer/slurm_node01/uid_0/job_201");
  REQUIRE(jobs[1].uid);
  CHECK(*jobs[1].uid == 65534);
  CHECK(jobs[1].cpu_dir == "cpuacct/slurm_node02/uid_65534/job_202");
  CHECK(jobs[1].process_dir == "freezer/slurm_node02/uid_65534/job_202");
}

TEST_CASE("slurm v2: one dir per job under system.slice/slurmstepd.scope, no uid in the path", "[layout]") {
  auto jobs = discover("slurm-v2");
  REQUIRE(ids(jobs) == std::vector<std::string>{"301", "302"});
  for (const auto& job : jobs) {
    std::string dir = "system.slice/slurmstepd.scope/job_" + job.job_id;
    CHECK(job.version == CgroupVersion::V2);
    CHECK_FALSE(job.uid);
    CHECK(job.cpu_dir == dir);
    CHECK(job.memory_dir == dir);
    CHECK(job.cpuset_dir == dir);
    CHECK(job.process_dir == dir);
  }
}

TEST_CASE("slurm v2 with multiple slurmd: jobs under every <node>_slurmstepd.scope", "[layout]") {
  auto jobs = discover("slurm-v2-multi");
  REQUIRE(ids(jobs) == std::vector<std::string>{"401", "402"});
  CHECK(jobs[0].version == CgroupVersion::V2);
  CHECK(jobs[0].cpu_dir == "system.slice/node01_slurmstepd.scope/job_401");
  CHECK(jobs[0].process_dir == "system.slice/node01_slurmstepd.scope/job_401");
  CHECK(jobs[1].cpu_dir == "system.slice/node02_slurmstepd.scope/job_402");
  CHECK(jobs[1].memory_dir == "system.slice/node02_slurmstepd.scope/job_402");
}

TEST_CASE("slurm 26.05: job dirs named by SLUID, any case, kept canonical; system/ and bad SLUIDs are no job",
          "[layout]") {
  auto jobs = discover("slurm-v2-sluid");
  // s5K1KKYAYG5DOI (O and I are not Crockford base32) is skipped, and so is
  // the scope's system/ waiting area.
  REQUIRE(ids(jobs) == std::vector<std::string>{"s5K1KKYAYG5D00", "s5K1KKYAYG5D0Z"});
  CHECK(jobs[0].sluid == "s5K1KKYAYG5D00");
  CHECK(jobs[0].version == CgroupVersion::V2);
  CHECK(jobs[0].cpu_dir == "system.slice/slurmstepd.scope/s5K1KKYAYG5D00");
  CHECK(jobs[0].process_dir == "system.slice/slurmstepd.scope/s5K1KKYAYG5D00");
  // The directory keeps its own spelling; the id is the canonical SLUID.
  CHECK(jobs[1].sluid == "s5K1KKYAYG5D0Z");
  CHECK(jobs[1].memory_dir == "system.slice/slurmstepd.scope/s5k1kkyayg5d0z");
}

TEST_CASE("job_J directories have no SLUID", "[layout]") {
  for (const auto& job : discover("slurm-v2")) CHECK(job.sluid.empty());
}

TEST_CASE("slurm 25.11 CgroupSlice: scopes in any top-level slice, several slurmd, system/ never a job", "[layout]") {
  auto jobs = discover("slurm-v2-slice");
  REQUIRE(ids(jobs) == std::vector<std::string>{"451", "452"});
  CHECK(jobs[0].cpu_dir == "slurm.slice/node01_slurmstepd.scope/job_451");
  CHECK(jobs[1].cpu_dir == "slurm.slice/node02_slurmstepd.scope/job_452");
  CHECK(ids(discover("slurm-v2-slice", LayoutKind::SlurmV2)) == std::vector<std::string>{"451", "452"});
}

TEST_CASE("v2 job processes: task_special, het step_0+1 and step_interactive are the job's; slurm/ leaves are not",
          "[layout]") {
  ErrorCounter errors;
  auto root = open_directory((fixtures_dir() / "slurm-v2-slice/cgroup").string());
  REQUIRE(root);
  auto jobs = make_layout(LayoutKind::Auto)->discover(root->get(), errors);
  REQUIRE(jobs.size() == 2);
  CgroupReader cgroups(std::move(*root), errors);
  auto pids_of = [&](const JobCgroups& job) {
    std::vector<ProcessRef> refs;
    REQUIRE(cgroups.processes(job, refs));
    std::vector<std::pair<int, bool>> out;
    for (const auto& r : refs) out.emplace_back(r.pid, r.in_extern_step);
    return out;
  };
  // 451: batch bash + python3, step_0+1's two tasks, the extern sleep; its
  // slurmstepds (13000, 13010, 13020) sit in slurm/ leaves and are not listed.
  CHECK(pids_of(jobs[0]) == std::vector<std::pair<int, bool>>{
                                {13011, false}, {13012, false}, {13021, false}, {13022, false}, {13001, true}});
  // 452: batch, step_interactive's shell, and in the extern step's
  // task_special the sleep and the ssh session pam_slurm_adopt adopted.
  CHECK(pids_of(jobs[1]) == std::vector<std::pair<int, bool>>{
                                {14011, false}, {14012, false}, {14031, false}, {14001, true}, {14002, true}});
  CHECK(total_errors(errors) == 0);
}

TEST_CASE("a SLUID-named job and a job_J one side by side in a custom slice", "[layout]") {
  TempDir tmp;
  fs::path scope = tmp.path() / "cgroup/batch.slice/slurmstepd.scope";
  touch(scope / "s0123456789ABC/cgroup.procs");
  touch(scope / "job_77/cgroup.procs");
  touch(scope / "system/cgroup.procs");
  touch(scope / "s0123456789AB/cgroup.procs");    // 12 characters: too short
  touch(scope / "s0123456789ABCD/cgroup.procs");  // 14: too long
  touch(scope / "x0123456789ABC/cgroup.procs");   // not an s
  touch(tmp.path() / "cgroup/system.slice/cron.service/cgroup.procs");
  touch(tmp.path() / "cgroup/user.slice/slurmstepd.scope.d/cgroup.procs");
  auto jobs = discover_in(tmp.path() / "cgroup");
  REQUIRE(ids(jobs) == std::vector<std::string>{"77", "s0123456789ABC"});
  CHECK(jobs[1].sluid == "s0123456789ABC");
  CHECK(jobs[1].cpu_dir == "batch.slice/slurmstepd.scope/s0123456789ABC");
}

TEST_CASE("hybrid host: v1 jobs from the controllers and v2 jobs from the unified mount", "[layout]") {
  auto jobs = discover("hybrid");
  REQUIRE(ids(jobs) == std::vector<std::string>{"501", "502"});
  CHECK(jobs[0].version == CgroupVersion::V1);
  CHECK(jobs[0].cpu_dir == "cpuacct/slurm/uid_0/job_501");
  CHECK(jobs[0].process_dir == "freezer/slurm/uid_0/job_501");
  CHECK(jobs[1].version == CgroupVersion::V2);
  CHECK(jobs[1].cpu_dir == "unified/system.slice/slurmstepd.scope/job_502");
  CHECK(jobs[1].process_dir == "unified/system.slice/slurmstepd.scope/job_502");
}

TEST_CASE("explicit slurm-v1 and slurm-v2 layouts see only their own hierarchy on a hybrid host", "[layout]") {
  CHECK(ids(discover("hybrid", LayoutKind::SlurmV1)) == std::vector<std::string>{"501"});
  CHECK(ids(discover("hybrid", LayoutKind::SlurmV2)) == std::vector<std::string>{"502"});
  CHECK(discover("slurm-v1", LayoutKind::SlurmV2).empty());
  CHECK(discover("slurm-v2", LayoutKind::SlurmV1).empty());
}

TEST_CASE("a job in both the v1 controllers and the unified mount is found once, as v1", "[layout]") {
  TempDir tmp;
  copy_case("hybrid", tmp.path() / "hybrid");
  fs::path scope = tmp.path() / "hybrid/cgroup/unified/system.slice/slurmstepd.scope";
  fs::copy(scope / "job_502", scope / "job_501", fs::copy_options::recursive | fs::copy_options::copy_symlinks);
  auto jobs = discover_in(tmp.path() / "hybrid/cgroup");
  REQUIRE(ids(jobs) == std::vector<std::string>{"501", "502"});
  CHECK(jobs[0].version == CgroupVersion::V1);
  CHECK(jobs[0].cpu_dir == "cpuacct/slurm/uid_0/job_501");
}

TEST_CASE("leftover empty job cgroups are still discovered; an empty uid dir yields no job", "[layout]") {
  // The sampler, not discovery, drops jobs without processes (see sampler_test).
  auto jobs = discover("leftover-empty");
  CHECK(ids(jobs) == std::vector<std::string>{"601", "602"});
}

TEST_CASE("without a freezer hierarchy the job's processes are listed from cpuacct", "[layout]") {
  TempDir tmp;
  copy_case("slurm-v1", tmp.path() / "v1");
  fs::remove_all(tmp.path() / "v1/cgroup/freezer");
  auto jobs = discover_in(tmp.path() / "v1/cgroup");
  REQUIRE(ids(jobs) == std::vector<std::string>{"101", "102"});
  CHECK(jobs[0].process_dir == "cpuacct/slurm/uid_0/job_101");
  CHECK(jobs[0].memory_dir == "memory/slurm/uid_0/job_101");
}

TEST_CASE("a job with only a memory cgroup has no cpu or cpuset dir", "[layout]") {
  TempDir tmp;
  copy_case("slurm-v1", tmp.path() / "v1");
  for (const char* ctrl : {"cpuacct", "cpuset", "freezer"}) fs::remove_all(tmp.path() / "v1/cgroup" / ctrl);
  auto jobs = discover_in(tmp.path() / "v1/cgroup");
  REQUIRE(ids(jobs) == std::vector<std::string>{"101", "102"});
  CHECK(jobs[0].cpu_dir.empty());
  CHECK(jobs[0].cpuset_dir.empty());
  CHECK(jobs[0].memory_dir == "memory/slurm/uid_0/job_101");
  CHECK(jobs[0].process_dir == "memory/slurm/uid_0/job_101");
}

TEST_CASE("jobs come sorted by numeric job id; names that are not job_<digits> are ignored", "[layout]") {
  TempDir tmp;
  fs::path uid = tmp.path() / "cpuacct/slurm/uid_1000";
  for (const char* name : {"job_100", "job_9", "job_10", "job_", "job_12a", "jobs_11", "step_batch"})
    touch(uid / name / "cgroup.procs");
  touch(tmp.path() / "cpuacct/slurm/uid_x/job_13/cgroup.procs");     // not a uid dir
  touch(tmp.path() / "cpuacct/other/uid_1000/job_14/cgroup.procs");  // not a slurm root
  auto jobs = discover_in(tmp.path());
  CHECK(ids(jobs) == std::vector<std::string>{"9", "10", "100"});
}

TEST_CASE("a cgroup root without any scheduler tree has no jobs and no errors", "[layout]") {
  TempDir tmp;
  touch(tmp.path() / "cpuacct/system.slice/ssh.service/cgroup.procs");
  touch(tmp.path() / "system.slice/cron.service/cgroup.procs");
  CHECK(discover_in(tmp.path()).empty());
}

TEST_CASE("v2: jobs in a known scope are found every pass; a scope made or moved is looked for at once", "[layout]") {
  for (LayoutKind kind : {LayoutKind::Auto, LayoutKind::SlurmV2}) {
    TempDir tmp;
    touch(tmp.path() / "system.slice/cron.service/cgroup.procs");
    auto layout = make_layout(kind);
    auto root = open_directory(tmp.path().string());
    REQUIRE(root);
    ErrorCounter errors;
    // No scope yet (slurmd not started): the root is looked into each pass.
    CHECK(layout->discover(root->get(), errors).empty());
    touch(tmp.path() / "system.slice/slurmstepd.scope/job_1/cgroup.procs");
    CHECK(ids(layout->discover(root->get(), errors)) == std::vector<std::string>{"1"});
    // Jobs come and go in the scope, listed every pass.
    touch(tmp.path() / "system.slice/slurmstepd.scope/job_2/cgroup.procs");
    CHECK(ids(layout->discover(root->get(), errors)) == std::vector<std::string>{"1", "2"});
    fs::remove_all(tmp.path() / "system.slice/slurmstepd.scope/job_1");
    CHECK(ids(layout->discover(root->get(), errors)) == std::vector<std::string>{"2"});
    // The scope gone (slurmd restarted with another CgroupSlice): that pass
    // finds none there, the next one the scope in its new slice.
    fs::create_directories(tmp.path() / "batch.slice");
    fs::rename(tmp.path() / "system.slice/slurmstepd.scope", tmp.path() / "batch.slice/node1_slurmstepd.scope");
    CHECK(layout->discover(root->get(), errors).empty());
    auto moved = layout->discover(root->get(), errors);
    REQUIRE(ids(moved) == std::vector<std::string>{"2"});
    CHECK(moved[0].process_dir == "batch.slice/node1_slurmstepd.scope/job_2");
    CHECK(total_errors(errors) == 0);
  }
}

TEST_CASE("pattern layout: cpuacct and memory matches of one job id make one job", "[layout]") {
  auto jobs = discover("pattern", LayoutKind::Pattern, "(cpuacct|memory)/torque/(?<job>[0-9]+)");
  REQUIRE(ids(jobs) == std::vector<std::string>{"9001", "9002"});
  const JobCgroups& both = jobs[0];
  CHECK(both.version == CgroupVersion::V1);
  CHECK_FALSE(both.uid);
  CHECK(both.cpu_dir == "cpuacct/torque/9001");
  CHECK(both.memory_dir == "memory/torque/9001");
  CHECK(both.cpuset_dir.empty());
  // No freezer: the first hierarchy matched lists the processes.
  CHECK((both.process_dir == "cpuacct/torque/9001" || both.process_dir == "memory/torque/9001"));
  const JobCgroups& cpu_only = jobs[1];
  CHECK(cpu_only.cpu_dir == "cpuacct/torque/9002");
  CHECK(cpu_only.memory_dir.empty());
  CHECK(cpu_only.process_dir == "cpuacct/torque/9002");
}

TEST_CASE("pattern layout: a named uid group gives the uid; (?P<name>) is accepted too", "[layout]") {
  auto jobs = discover("slurm-v1", LayoutKind::Pattern,
                       "(cpuacct|memory|cpuset|freezer)/slurm/uid_(?P<uid>[0-9]+)/job_(?P<job>[0-9]+)");
  REQUIRE(ids(jobs) == std::vector<std::string>{"101", "102"});
  REQUIRE(jobs[0].uid);
  CHECK(*jobs[0].uid == 0);
  REQUIRE(jobs[1].uid);
  CHECK(*jobs[1].uid == 65534);
  CHECK(jobs[1].cpu_dir == "cpuacct/slurm/uid_65534/job_102");
  CHECK(jobs[1].memory_dir == "memory/slurm/uid_65534/job_102");
  CHECK(jobs[1].cpuset_dir == "cpuset/slurm/uid_65534/job_102");
  CHECK(jobs[1].process_dir == "freezer/slurm/uid_65534/job_102");
}

TEST_CASE("pattern layout: a match outside the v1 controllers is a v2 job dir", "[layout]") {
  auto jobs = discover("slurm-v2", LayoutKind::Pattern, R"(system\.slice/slurmstepd\.scope/job_(?<job>[0-9]+))");
  REQUIRE(ids(jobs) == std::vector<std::string>{"301", "302"});
  CHECK(jobs[0].version == CgroupVersion::V2);
  CHECK(jobs[0].cpu_dir == "system.slice/slurmstepd.scope/job_301");
  CHECK(jobs[0].process_dir == "system.slice/slurmstepd.scope/job_301");
}

TEST_CASE("pattern layout: a bad pattern is std::invalid_argument", "[layout]") {
  using Catch::Contains;  // the string matcher (catch.hpp)
  SECTION("invalid regular expression") {
    CHECK_THROWS_AS(make_layout(LayoutKind::Pattern, "cpuacct/torque/(?<job>[0-9]+"), std::invalid_argument);
    CHECK_THROWS_AS(make_layout(LayoutKind::Pattern, "cpuacct/torque/(?<job>[0-9"), std::invalid_argument);
  }
  SECTION("no named group for the job id") {
    CHECK_THROWS_WITH(make_layout(LayoutKind::Pattern, "cpuacct/torque/([0-9]+)"), Contains("job"));
    CHECK_THROWS_AS(make_layout(LayoutKind::Pattern, "cpuacct/torque/([0-9]+)"), std::invalid_argument);
    CHECK_THROWS_AS(make_layout(LayoutKind::Pattern, "uid_(?<uid>[0-9]+)/([0-9]+)"), std::invalid_argument);
  }
  SECTION("unterminated group name") {
    CHECK_THROWS_AS(make_layout(LayoutKind::Pattern, "cpuacct/torque/(?<job[0-9]+)"), std::invalid_argument);
  }
  SECTION("empty pattern") {
    CHECK_THROWS_AS(make_layout(LayoutKind::Pattern, ""), std::invalid_argument);
  }
  SECTION("a valid pattern builds") {
    CHECK(make_layout(LayoutKind::Pattern, "(cpuacct|memory)/torque/(?<job>[0-9]+)") != nullptr);
  }
}

TEST_CASE("layout names parse; unknown ones do not", "[layout]") {
  CHECK(parse_layout_kind("auto") == LayoutKind::Auto);
  CHECK(parse_layout_kind("slurm-v1") == LayoutKind::SlurmV1);
  CHECK(parse_layout_kind("slurm-v2") == LayoutKind::SlurmV2);
  CHECK(parse_layout_kind("pattern") == LayoutKind::Pattern);
  CHECK_FALSE(parse_layout_kind("slurm"));
  CHECK_FALSE(parse_layout_kind("Auto"));
  CHECK_FALSE(parse_layout_kind(""));
}
