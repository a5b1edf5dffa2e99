// cpu_of_vanished() and share_of(): vanished children's CPU time from their
// parent's counters.
#include "collect/cpu_after_end.hpp"

#include "catch.hpp"

using namespace petricore::collect;

namespace {

CgroupCpu cpu(double total, double user, double system, std::vector<double> per_cpu = {}) {
  CgroupCpu c;
  c.total_seconds = total;
  c.user_seconds = user;
  c.system_seconds = system;
  if (!per_cpu.empty()) c.per_cpu_seconds = std::move(per_cpu);
  return c;
}

using Cpus = std::map<std::string, std::vector<int>>;

}  // namespace

TEST_CASE("the parent's growth less the other children's is the vanished child's", "[cpu_after_end]") {
  CpuReadings before{cpu(100, 80, 20, {60, 40}),
                     {{"job_1", cpu(70, 60, 10, {40, 30})}, {"job_2", cpu(30, 20, 10, {20, 10})}}};
  CpuReadings now{cpu(103, 82, 21, {61.5, 41.5}),
                  {{"job_2", cpu(31, 20.5, 10.5, {20, 11})}, {"job_3", cpu(0.5, 0.5, 0, {0.5, 0})}}};
  auto vanished = cpu_of_vanished(before, now);
  REQUIRE(vanished);
  CHECK(vanished->children == std::vector<std::string>{"job_1"});
  auto spent = share_of(*vanished, "job_1", {});
  REQUIRE(spent);
  CHECK(*spent->total_seconds == Approx(1.5));  // 3 - 1 (job_2) - 0.5 (job_3, new)
  CHECK(*spent->user_seconds == Approx(1.0));
  CHECK(*spent->system_seconds == Approx(0.5));
  REQUIRE(spent->per_cpu_seconds);
  CHECK((*spent->per_cpu_seconds)[0] == Approx(1.0));
  CHECK((*spent->per_cpu_seconds)[1] == Approx(0.5));
  CHECK_FALSE(share_of(*vanished, "job_2", {}));  // still there
}

TEST_CASE("children that went together share by the CPUs each held alone", "[cpu_after_end]") {
  CpuReadings before{cpu(100, 80, 20, {25, 25, 25, 25}),
                     {{"job_1", cpu(50, 40, 10, {25, 25, 0, 0})}, {"job_2", cpu(50, 40, 10, {0, 0, 25, 25})}}};
  CpuReadings now{cpu(101.5, 81, 20.5, {25.5, 25.5, 25.5, 25}), {}};
  auto vanished = cpu_of_vanished(before, now);
  REQUIRE(vanished);
  CHECK(vanished->children == std::vector<std::string>{"job_1", "job_2"});
  CHECK(*vanished->spent.total_seconds == Approx(1.5));
  Cpus cpus{{"job_1", {0, 1}}, {"job_2", {2, 3}}};
  auto one = share_of(*vanished, "job_1", cpus);
  auto two = share_of(*vanished, "job_2", cpus);
  REQUIRE(one);
  REQUIRE(two);
  CHECK(*one->total_seconds == Approx(1.0));
  CHECK(*two->total_seconds == Approx(0.5));
  CHECK_FALSE(one->user_seconds);  // user and system cannot be split
  CHECK((*one->per_cpu_seconds)[1] == Approx(0.5));
  CHECK((*one->per_cpu_seconds)[2] == Approx(0));
  SECTION("overlapping cpusets: no split") {
    CHECK_FALSE(share_of(*vanished, "job_1", Cpus{{"job_1", {0, 1, 2}}, {"job_2", {2, 3}}}));
  }
  SECTION("a cpuset unknown: no split") {
    CHECK_FALSE(share_of(*vanished, "job_1", Cpus{{"job_1", {0, 1}}}));
  }
  SECTION("time outside both cpusets: no split") {
    CHECK_FALSE(share_of(*vanished, "job_1", Cpus{{"job_1", {0}}, {"job_2", {3}}}));
  }
}

TEST_CASE("what cannot be told is not guessed", "[cpu_after_end]") {
  CpuReadings before{cpu(100, 80, 20), {{"job_1", cpu(70, 60, 10)}, {"job_2", cpu(30, 20, 10)}}};
  SECTION("nothing vanished") {
    CpuReadings now{cpu(101, 81, 20), {{"job_1", cpu(70.5, 60.5, 10)}, {"job_2", cpu(30.5, 20.5, 10)}}};
    CHECK_FALSE(cpu_of_vanished(before, now));
  }
  SECTION("the parent's counters are missing") {
    CpuReadings now{CgroupCpu{}, {{"job_2", cpu(30, 20, 10)}}};
    CHECK_FALSE(cpu_of_vanished(before, now));
  }
  SECTION("counters that went back (a recreated parent)") {
    CpuReadings now{cpu(5, 4, 1), {{"job_2", cpu(30, 20, 10)}}};
    CHECK_FALSE(cpu_of_vanished(before, now));
  }
  SECTION("two went, no per-CPU counters to split by") {
    CpuReadings now{cpu(101, 81, 20), {}};
    auto vanished = cpu_of_vanished(before, now);
    REQUIRE(vanished);
    CHECK_FALSE(share_of(*vanished, "job_1", Cpus{{"job_1", {0}}, {"job_2", {1}}}));
  }
}

TEST_CASE("rounding a hair below zero is zero; per-CPU needs the same CPUs everywhere", "[cpu_after_end]") {
  CpuReadings before{cpu(100, 80, 20, {50, 50}), {{"job_1", cpu(70, 60, 10, {35, 35})}, {"job_2", cpu(30, 20, 10)}}};
  CpuReadings now{cpu(100.5, 80.5, 20, {50.25, 50.25}), {{"job_2", cpu(30.51, 20.5, 10.01)}}};
  auto vanished = cpu_of_vanished(before, now);
  REQUIRE(vanished);
  CHECK(*vanished->spent.total_seconds == 0);
  CHECK(*vanished->spent.system_seconds == 0);
  CHECK_FALSE(vanished->spent.per_cpu_seconds);  // job_2 has no per-CPU counters
}

TEST_CASE("a child created anew under the vanished one's name counts as new", "[cpu_after_end]") {
  // uid_1001 held only the ended job; Slurm removed it and made it again for
  // the user's next job before the second reading.
  CpuReadings before{cpu(100, 80, 20), {{"uid_1001", cpu(60, 50, 10)}, {"uid_1002", cpu(40, 30, 10)}}};
  CpuReadings now{cpu(102, 81.5, 20.5), {{"uid_1001", cpu(0.25, 0.25, 0)}, {"uid_1002", cpu(41, 30.5, 10.5)}}};
  auto vanished = cpu_of_vanished(before, now);
  REQUIRE(vanished);
  CHECK(vanished->children == std::vector<std::string>{"uid_1001"});
  CHECK(*vanished->spent.total_seconds == Approx(0.75));  // 2 - 1 (uid_1002) - 0.25 (the new uid_1001)
  CHECK(*vanished->spent.user_seconds == Approx(0.75));
  CHECK(*vanished->spent.system_seconds == Approx(0));
}
