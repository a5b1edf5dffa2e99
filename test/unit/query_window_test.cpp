// The range-query window a job's analysis asks Prometheus for
// (analysis::query_window): its step, and that it ends at the job's end.
#include "analysis/job_analyzer.hpp"

#include "catch.hpp"

#include <cmath>

using Catch::Matchers::WithinAbs;
using petricore::analysis::query_window;

TEST_CASE("a short job gets the configured smallest step", "[query_window]") {
  // 25 s job, collectors every 2 s: 13 steps of 2 s, ending at the end.
  auto w = query_window(1000, 1025.0, 5000, 2);
  CHECK(w.step == 2);
  CHECK(w.end == 1025);
  CHECK(w.start == 999);  // at or before the start, a whole number of steps from the end
  CHECK(std::fmod(w.end - w.start, w.step) == 0);

  // The default 15 s gives the same job two steps.
  w = query_window(1000, 1025.0, 5000, 15);
  CHECK(w.step == 15);
  CHECK(w.start == 995);
}

TEST_CASE("a long job gets a coarser step: at most 10,000 steps", "[query_window]") {
  const double three_days = 3 * 86400;
  auto w = query_window(0, three_days, three_days + 10, 2);
  CHECK(w.step == 26);  // ceil(259200 / 10000)
  CHECK((w.end - w.start) / w.step <= 10000);
  CHECK(w.start <= 0);
  CHECK(w.end == three_days);
}

TEST_CASE("a running job's window ends now", "[query_window]") {
  auto w = query_window(1000, std::nullopt, 1100, 15);
  CHECK(w.end == 1100);
  CHECK(w.start <= 1000);
  CHECK_THAT(w.end - w.start, WithinAbs(105, 1e-9));  // 7 steps of 15 s
}

TEST_CASE("an end before the start (clock skew) gives a one-point window", "[query_window]") {
  auto w = query_window(1000, 990.0, 5000, 15);
  CHECK(w.end == 990);
  CHECK(w.start == 990);
  CHECK(w.step == 15);
}

TEST_CASE("a finished job's window reaches past its end, to catch the final sample", "[query_window]") {
  // Ended at 1025; the final readings are scraped up to 30 s later.
  auto w = query_window(1000, 1025.0, 5000, 15, 30);
  CHECK(w.end == 1055);
  CHECK(w.start <= 1000);
  CHECK(std::fmod(w.end - w.start, w.step) == 0);
  // Right after the end the window stops at now: the future holds nothing yet.
  w = query_window(1000, 1025.0, 1030, 15, 30);
  CHECK(w.end == 1030);
  // ... and never before the end.
  w = query_window(1000, 1025.0, 1020, 15, 30);
  CHECK(w.end == 1025);
}

TEST_CASE("the after-end stretch defaults to 2 steps, at least 30 s", "[query_window]") {
  petricore::analysis::AnalyzerOptions options;
  CHECK(petricore::analysis::after_end_seconds(options) == 30);
  options.min_step_seconds = 60;
  CHECK(petricore::analysis::after_end_seconds(options) == 120);
  options.after_end_seconds = 5;
  CHECK(petricore::analysis::after_end_seconds(options) == 5);
}
