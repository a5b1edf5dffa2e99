// cpu_after_last_reading(): a vanished child's CPU time from its parent's.
#include "collect/cpu_after_end.hpp"

#include <catch2/catch.hpp>

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

}  // namespace

TEST_CASE("the parent's growth less the other children's is the vanished child's", "[cpu_after_end]") {
  CpuReadings before{cpu(100, 80, 20, {60, 40}),
                     {{"job_1", cpu(70, 60, 10, {40, 30})}, {"job_2", cpu(30, 20, 10, {20, 10})}}};
  CpuReadings now{cpu(103, 82, 21, {61.5, 41.5}),
                  {{"job_2", cpu(31, 20.5, 10.5, {20, 11})}, {"job_3", cpu(0.5, 0.5, 0, {0.5, 0})}}};
  auto spent = cpu_after_last_reading(before, now, "job_1");
  REQUIRE(spent);
  CHECK(*spent->total_seconds == Approx(1.5));  // 3 - 1 (job_2) - 0.5 (job_3, new)
  CHECK(*spent->user_seconds == Approx(1.0));
  CHECK(*spent->system_seconds == Approx(0.5));
  REQUIRE(spent->per_cpu_seconds);
  CHECK((*spent->per_cpu_seconds)[0] == Approx(1.0));
  CHECK((*spent->per_cpu_seconds)[1] == Approx(0.5));
}

TEST_CASE("what cannot be told is not guessed", "[cpu_after_end]") {
  CpuReadings before{cpu(100, 80, 20), {{"job_1", cpu(70, 60, 10)}, {"job_2", cpu(30, 20, 10)}}};
  SECTION("two children vanished") {
    CpuReadings now{cpu(101, 81, 20), {}};
    CHECK_FALSE(cpu_after_last_reading(before, now, "job_1"));
  }
  SECTION("the child is still there, or was never read") {
    CpuReadings now{cpu(101, 81, 20), {{"job_1", cpu(70.5, 60.5, 10)}, {"job_2", cpu(30.5, 20.5, 10)}}};
    CHECK_FALSE(cpu_after_last_reading(before, now, "job_2"));
    CHECK_FALSE(cpu_after_last_reading(before, now, "job_9"));
  }
  SECTION("the parent's counters are missing") {
    CpuReadings now{CgroupCpu{}, {{"job_2", cpu(30, 20, 10)}}};
    CHECK_FALSE(cpu_after_last_reading(before, now, "job_1"));
  }
  SECTION("counters that went back (a recreated parent)") {
    CpuReadings now{cpu(5, 4, 1), {{"job_2", cpu(30, 20, 10)}}};
    CHECK_FALSE(cpu_after_last_reading(before, now, "job_1"));
  }
}

TEST_CASE("rounding a hair below zero is zero; per-CPU needs the same CPUs everywhere", "[cpu_after_end]") {
  CpuReadings before{cpu(100, 80, 20, {50, 50}), {{"job_1", cpu(70, 60, 10, {35, 35})}, {"job_2", cpu(30, 20, 10)}}};
  CpuReadings now{cpu(100.5, 80.5, 20, {50.25, 50.25}), {{"job_2", cpu(30.51, 20.5, 10.01)}}};
  auto spent = cpu_after_last_reading(before, now, "job_1");
  REQUIRE(spent);
  CHECK(*spent->total_seconds == 0);
  CHECK(*spent->system_seconds == 0);
  CHECK_FALSE(spent->per_cpu_seconds);  // job_2 has no per-CPU counters
}
