#include "core/time_text.hpp"

#include "catch.hpp"

using petricore::parse_time_point;

namespace {
constexpr std::int64_t kNow = 1764547200;  // 2025-12-01T00:00:00Z
}

TEST_CASE("dates are read as UTC", "[time_text]") {
  CHECK(parse_time_point("1970-01-01", kNow) == 0);
  CHECK(parse_time_point("2025-12-01", kNow) == kNow);
  CHECK(parse_time_point("2024-02-29", kNow) == 1709164800);
  CHECK(parse_time_point("2025-12-01T12:30", kNow) == kNow + 12 * 3600 + 30 * 60);
  CHECK(parse_time_point("2025-12-01T12:30:45Z", kNow) == kNow + 12 * 3600 + 30 * 60 + 45);
  CHECK(parse_time_point("2025-12-01 00:00:01", kNow) == kNow + 1);
}

TEST_CASE("ages count back from now", "[time_text]") {
  CHECK(parse_time_point("now", kNow) == kNow);
  CHECK(parse_time_point("30d", kNow) == kNow - 30 * 86400);
  CHECK(parse_time_point("12h", kNow) == kNow - 12 * 3600);
  CHECK(parse_time_point("90m", kNow) == kNow - 90 * 60);
  CHECK(parse_time_point("3600s", kNow) == kNow - 3600);
  CHECK(parse_time_point("2w", kNow) == kNow - 14 * 86400);
  CHECK(parse_time_point("0d", kNow) == kNow);
}

TEST_CASE("anything else is refused", "[time_text]") {
  for (const char* bad : {"",
                          "d",
                          "-3d",
                          "3x",
                          "3.5d",
                          "2023-02-29",
                          "2025-13-01",
                          "2025-00-10",
                          "2025-12-32",
                          "1969-12-31",
                          "2025-12-01T24:00",
                          "2025-12-01T12:60",
                          "2025-12-01T12:30:61",
                          "2025-12-01T12:30+02:00",
                          "2025/12/01",
                          "20251201",
                          "99999999999999999999d",
                          "40000w",
                          "2025-12-01T",
                          "yesterday"}) {
    INFO(bad);
    CHECK_FALSE(parse_time_point(bad, kNow).has_value());
  }
}
