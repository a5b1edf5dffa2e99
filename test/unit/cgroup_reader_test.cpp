// CgroupReader on a private cgroup2 mount: a v2 job's processes through its
// held cgroups while the subtree stands, and a walk whenever it changed.
#include "collect/cgroup_reader.hpp"

#include "catch.hpp"

#include "collect/error_counter.hpp"
#include "real_cgroup2.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <utility>
#include <vector>

using namespace petricore::collect;
namespace fs = std::filesystem;
using petricore::test::Cgroup2Mount;
using petricore::test::move_process;
using petricore::test::SleepingChild;

namespace {

// (pid, in the extern step), as processes() orders them.
std::vector<std::pair<int, bool>> processes_of(CgroupReader& reader, const JobCgroups& job) {
  std::vector<ProcessRef> refs;
  REQUIRE(reader.processes(job, refs));
  reader.end_pass();
  std::vector<std::pair<int, bool>> out;
  for (const ProcessRef& ref : refs) out.emplace_back(ref.pid, ref.in_extern_step);
  return out;
}

}  // namespace

TEST_CASE("a v2 job's subtree is walked again only when a cgroup of it went or came", "[cgroup_reader][cgroup2]") {
  Cgroup2Mount cg2;
  if (cg2.top.empty()) {
    WARN("cannot mount cgroup2 and make a cgroup in it (not root, or not allowed here): skipped");
    return;
  }
  const fs::path job_dir = cg2.top / "job_7";
  for (const char* step : {"step_extern", "step_batch"}) {
    fs::create_directories(job_dir / step / "slurm");
    fs::create_directories(job_dir / step / "user" / "task_0");
  }
  SleepingChild batch, external, slurmstepd;
  move_process(batch.pid, job_dir / "step_batch" / "user" / "task_0");
  move_process(external.pid, job_dir / "step_extern" / "user" / "task_0");
  move_process(slurmstepd.pid, job_dir / "step_batch" / "slurm");  // never one of the job's

  petricore::UniqueFd root{::open(cg2.top.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)};
  REQUIRE(root.valid());
  ErrorCounter errors;
  CgroupReader reader(std::move(root), errors);
  JobCgroups job;
  job.job_id = "7";
  job.version = CgroupVersion::V2;
  job.cpu_dir = job.memory_dir = job.cpuset_dir = job.process_dir = "job_7";
  const std::vector<std::pair<int, bool>> both{{batch.pid, false}, {external.pid, true}};

  CHECK(processes_of(reader, job) == both);
  CHECK(reader.subtree_walks() == 1);
  // It stands: read through the held cgroups, not listed.
  CHECK(processes_of(reader, job) == both);
  CHECK(processes_of(reader, job) == both);
  CHECK(reader.subtree_walks() == 1);

  // A process moving between known cgroups is seen without a walk.
  move_process(external.pid, job_dir / "step_batch" / "user" / "task_0");
  CHECK(processes_of(reader, job) == (std::vector<std::pair<int, bool>>{{batch.pid, false}, {external.pid, false}}));
  CHECK(reader.subtree_walks() == 1);
  move_process(external.pid, job_dir / "step_extern" / "user" / "task_0");

  // A new step: one more descendant than found.
  fs::create_directories(job_dir / "step_0" / "user" / "task_0");
  SleepingChild step0;
  move_process(step0.pid, job_dir / "step_0" / "user" / "task_0");
  CHECK(processes_of(reader, job) ==
        (std::vector<std::pair<int, bool>>{{batch.pid, false}, {step0.pid, false}, {external.pid, true}}));
  CHECK(reader.subtree_walks() == 2);
  CHECK(processes_of(reader, job).size() == 3);
  CHECK(reader.subtree_walks() == 2);

  // One gone and one made in the same interval, the count unchanged: the
  // removed one is a `slurm/` leaf, whose processes are never counted, yet
  // it is seen gone and the new task cgroup is found.
  move_process(slurmstepd.pid, cg2.parking);
  REQUIRE(::rmdir((job_dir / "step_batch" / "slurm").c_str()) == 0);
  fs::create_directories(job_dir / "step_batch" / "user" / "task_1");
  SleepingChild task1;
  move_process(task1.pid, job_dir / "step_batch" / "user" / "task_1");
  auto after_swap = processes_of(reader, job);
  CHECK(reader.subtree_walks() == 3);
  CHECK(after_swap.size() == 4);
  CHECK(std::count(after_swap.begin(), after_swap.end(), std::make_pair(int{task1.pid}, false)) == 1);

  // A cgroup made anew under a known name (its process moved to it): read
  // afresh, its process found.
  move_process(step0.pid, cg2.parking);
  REQUIRE(::rmdir((job_dir / "step_0" / "user" / "task_0").c_str()) == 0);
  fs::create_directories(job_dir / "step_0" / "user" / "task_0");
  move_process(step0.pid, job_dir / "step_0" / "user" / "task_0");
  CHECK(processes_of(reader, job) == after_swap);
  CHECK(reader.subtree_walks() == 4);
  for (const auto& [source, count] : errors.totals()) CHECK(count == 0);

  // Before the mount goes: the test's processes leave its cgroups.
  for (pid_t pid : {batch.pid, external.pid, step0.pid, task1.pid}) move_process(pid, cg2.parking);
}
