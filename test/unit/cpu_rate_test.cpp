// CpuRate: jobs_cpu_percent between full passes, and the final sample's.
#include "collect/cpu_rate.hpp"

#include "catch.hpp"

using namespace petricore::collect;

TEST_CASE("no rate on the first reading, then cpu time over wall time since the last", "[cpu_rate]") {
  CpuRate rate;
  CHECK_FALSE(rate.next(100.0, 1000.0));
  auto second = rate.next(115.0, 1010.0);
  REQUIRE(second);
  CHECK(*second == Approx(150.0));
  auto third = rate.next(120.0, 1030.0);
  REQUIRE(third);
  CHECK(*third == Approx(25.0));
}

TEST_CASE("a counter that went down gives 0 and no time passed gives no rate", "[cpu_rate]") {
  CpuRate rate;
  rate.next(100.0, 10.0);
  auto down = rate.next(90.0, 20.0);
  REQUIRE(down);
  CHECK(*down == 0.0);
  CHECK_FALSE(rate.next(95.0, 20.0));
}

TEST_CASE("the final rate is since the base and does not move it", "[cpu_rate]") {
  CpuRate rate;
  CHECK_FALSE(rate.since_base(10.0, 5.0, 0.2));  // no base yet
  rate.next(100.0, 10.0);
  auto final_rate = rate.since_base(102.0, 14.0, 0.2);
  REQUIRE(final_rate);
  CHECK(*final_rate == Approx(50.0));
  CHECK_FALSE(rate.since_base(102.0, 10.1, 0.2));  // too short a stretch
  auto next = rate.next(110.0, 20.0);
  REQUIRE(next);
  CHECK(*next == Approx(100.0));
}
