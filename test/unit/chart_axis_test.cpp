// render/chart_axis: the tick steps, tick labels and numbers the charts
// print, without cairo.
#include "render/chart_axis.hpp"
#include "utc_zone.hpp"

#include "catch.hpp"

#include <cmath>
#include <cstdlib>
#include <ctime>
#include <limits>
#include <optional>
#include <string>

using namespace petricore::render;

namespace {

constexpr double kStart = 1'795'975'755;  // 2026-11-29T18:09:15Z, a Sunday

// Every label as wide as its characters: 7 units each.
double seven_per_char(const std::string& s) {
  return 7.0 * static_cast<double>(s.size());
}

}  // namespace

TEST_CASE("nice steps are 1, 2, 2.5 or 5 times a power of ten, at least the rough step", "[chart_axis]") {
  CHECK(nice_step(1) == 1);
  CHECK(nice_step(1.2) == 2);
  CHECK(nice_step(2.1) == 2.5);
  CHECK(nice_step(3) == 5);
  CHECK(nice_step(7) == 10);
  CHECK(nice_step(42) == 50);
  CHECK(nice_step(0.03) == Approx(0.05));
  CHECK(nice_step(1800) == 2000);
  CHECK(nice_step(2.5e9) == Approx(2.5e9));
}

TEST_CASE("a rough step that is not positive and finite gets the step 1", "[chart_axis]") {
  CHECK(nice_step(0) == 1);
  CHECK(nice_step(-5) == 1);
  CHECK(nice_step(std::nan("")) == 1);
  CHECK(nice_step(std::numeric_limits<double>::infinity()) == 1);
}

TEST_CASE("a step equal to a nice one up to rounding stays that step", "[chart_axis]") {
  CHECK(nice_step(0.1 + 0.2 - 0.1) == Approx(0.2));  // 0.20000000000000004
  CHECK(nice_step(5 * (1 + 1e-13)) == Approx(5));
}

TEST_CASE("value ticks run from a multiple of the step below the data to one above", "[chart_axis]") {
  ValueTicks t = value_ticks(0, 105, 5);  // rough step 21 -> 25
  CHECK(t.v0 == 0);
  CHECK(t.v1 == 125);
  REQUIRE(t.ticks.size() == 6);
  CHECK(t.ticks[1] == 25);
  CHECK(t.labels[0] == "0");
  CHECK(t.labels[1] == "25");
  CHECK(t.labels[5] == "125");
}

TEST_CASE("value ticks of a range that ends on a step do not gain one", "[chart_axis]") {
  ValueTicks t = value_ticks(0, 100, 5);
  CHECK(t.v1 == 100);
  CHECK(t.ticks.size() == 6);
  ValueTicks negative = value_ticks(-40, 0, 4);
  CHECK(negative.v0 == -40);
  CHECK(negative.labels.front() == "-40");
  CHECK(negative.labels.back() == "0");
}

TEST_CASE("tick labels share one number of decimals, enough for the step", "[chart_axis]") {
  ValueTicks t = value_ticks(0, 1, 4);  // step 0.25
  REQUIRE(t.labels.size() == 5);
  CHECK(t.labels[0] == "0");  // zero is always plain "0"
  CHECK(t.labels[1] == "0.25");
  CHECK(t.labels[2] == "0.50");
  CHECK(t.labels[4] == "1.00");
}

TEST_CASE("tick labels of large values carry one unit suffix", "[chart_axis]") {
  AxisNumbers n = axis_numbers(2.5e6, 5e5);
  CHECK(n.unit.divisor == 1e6);
  CHECK(std::string(n.unit.suffix) == "M");
  CHECK(n.decimals == 1);
  CHECK(axis_label(1.5e6, n) == "1.5M");
  CHECK(axis_label(0, n) == "0");
  // Below 10,000 values are written out.
  AxisNumbers small = axis_numbers(8000, 2000);
  CHECK(std::string(small.unit.suffix).empty());
  CHECK(axis_label(6000, small) == "6000");
  AxisNumbers kilo = axis_numbers(40000, 10000);
  CHECK(axis_label(30000, kilo) == "30k");
}

TEST_CASE("tick labels never read -0", "[chart_axis]") {
  AxisNumbers n = axis_numbers(1, 0.5);
  CHECK(axis_label(-0.0, n) == "0");
  CHECK(axis_label(-1e-12, n) == "0");
  CHECK(axis_label(-0.5, n) == "-0.5");
}

TEST_CASE("huge values and tiny steps get scientific tick labels", "[chart_axis]") {
  CHECK(axis_numbers(1e22, 1e21).scientific);
  CHECK(axis_numbers(1e-8, 1e-10).scientific);
  AxisNumbers n = axis_numbers(3e22, 1e22);
  CHECK(axis_label(2e22, n) == "2e+22");
  CHECK_FALSE(axis_numbers(100, 20).scientific);
}

TEST_CASE("compact numbers have three significant digits and a unit suffix", "[chart_axis]") {
  CHECK(compact_number(0) == "0");
  CHECK(compact_number(0.75) == "0.75");
  CHECK(compact_number(250) == "250");
  CHECK(compact_number(999) == "999");
  CHECK(compact_number(1000) == "1k");
  CHECK(compact_number(12345) == "12.3k");
  CHECK(compact_number(41234) == "41.2k");
  CHECK(compact_number(3.5e9) == "3.5G");
  CHECK(compact_number(-2500) == "-2.5k");
  CHECK(compact_number(1e18) == "1E");
}

TEST_CASE("compact numbers outside 0.01 to 1e21 are in %g form, non-finite ones are ?", "[chart_axis]") {
  CHECK(compact_number(0.004) == "0.004");
  CHECK(compact_number(0.0012345) == "0.0012");
  CHECK(compact_number(2e21) == "2e+21");
  CHECK(compact_number(std::nan("")) == "?");
  CHECK(compact_number(-std::numeric_limits<double>::infinity()) == "?");
}

TEST_CASE("trailing zeros and a trailing point are trimmed, integers kept", "[chart_axis]") {
  CHECK(trim_zeros("12.50") == "12.5");
  CHECK(trim_zeros("3.00") == "3");
  CHECK(trim_zeros("300") == "300");
  CHECK(trim_zeros("0.0") == "0");
}

TEST_CASE("units are the largest power of a thousand not above the magnitude", "[chart_axis]") {
  CHECK(std::string(unit_for(999).suffix).empty());
  CHECK(unit_for(999).divisor == 1);
  CHECK(std::string(unit_for(1000).suffix) == "k");
  CHECK(std::string(unit_for(5e12).suffix) == "T");
  CHECK(std::string(unit_for(1e30).suffix) == "E");
}

TEST_CASE("times are formatted in the local time zone", "[chart_axis]") {
  petricore::test::UtcZone utc;
  CHECK(format_time(kStart, TimeFormat::Seconds) == "18:09:15");
  CHECK(format_time(kStart, TimeFormat::Minutes) == "18:09");
  CHECK(format_time(kStart, TimeFormat::DateMinutes) == "Nov 29 18:09");
  CHECK(format_time(kStart, TimeFormat::Date) == "Nov 29");
  CHECK(format_time(kStart, TimeFormat::Year) == "2026");
  CHECK(time_zone_name(kStart) == "UTC");
}

TEST_CASE("only finite times within 1e11 s of the epoch are usable", "[chart_axis]") {
  CHECK(usable_time(kStart));
  CHECK(usable_time(-1e11));
  CHECK_FALSE(usable_time(2e11));
  CHECK_FALSE(usable_time(std::nan("")));
}

TEST_CASE("an hour's time ticks fall on round minutes, as many as the width allows", "[chart_axis]") {
  petricore::test::UtcZone utc;
  // 18:09:15 to 19:09:15; "18:09" is 35 units wide, a tick needs 35 + 15.
  TimeTicks t = time_ticks(kStart, kStart + 3600, 700, 10, seven_per_char);
  // 700 / 50 = 14 ticks at most: 5-minute steps (13 over the span) fit, 2-minute ones (31) do not.
  REQUIRE(t.ticks.size() == 12);
  CHECK(t.labels.front() == "18:10");
  CHECK(t.labels[1] == "18:15");
  CHECK(t.labels.back() == "19:05");
  for (double tick : t.ticks) CHECK(std::fmod(tick, 300) == 0);
}

TEST_CASE("time ticks across midnight carry the date, those of days only the date", "[chart_axis]") {
  petricore::test::UtcZone utc;
  TimeTicks evening = time_ticks(kStart, kStart + 8 * 3600, 900, 10, seven_per_char);
  REQUIRE_FALSE(evening.labels.empty());
  CHECK(evening.labels.front().rfind("Nov 29 ", 0) == 0);
  CHECK(evening.labels.back().rfind("Nov 30 ", 0) == 0);
  TimeTicks week = time_ticks(kStart, kStart + 7 * 86400, 900, 10, seven_per_char);
  REQUIRE_FALSE(week.labels.empty());
  CHECK(week.labels.front() == "Nov 30");  // local midnight after the start
  CHECK(std::fmod(week.ticks.front(), 86400) == 0);
}

TEST_CASE("a narrow time axis still gets ticks, never more than 100", "[chart_axis]") {
  petricore::test::UtcZone utc;
  TimeTicks narrow = time_ticks(kStart, kStart + 3600, 10, 10, seven_per_char);
  CHECK_FALSE(narrow.ticks.empty());
  CHECK(narrow.ticks.size() <= 3);
  TimeTicks wide = time_ticks(kStart, kStart + 3600, 1e9, 10, seven_per_char);
  CHECK(wide.ticks.size() <= 100);
}
