// Which samples the sinks export: running jobs, and ended ones for a while.
#include "collect/exported_jobs.hpp"

#include "catch.hpp"

#include <algorithm>

using namespace petricore::collect;

namespace {

JobSample sample(const std::string& id, double cpu_seconds) {
  JobSample s;
  s.job_id = id;
  s.cpu_time_total = cpu_seconds;
  return s;
}

std::vector<std::string> ids(const std::vector<JobSample>& samples) {
  std::vector<std::string> out;
  for (const auto& s : samples) out.push_back(s.job_id);
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

TEST_CASE("an ended job's final sample stays exported for the linger time, then goes", "[exported]") {
  ExportedJobs exported(30);
  exported.set_running({sample("1", 10), sample("2", 20)});
  exported.end(sample("1", 12.5), 100);
  CHECK(exported.running() == 1);
  auto now = exported.current(100);
  CHECK(ids(now) == std::vector<std::string>{"1", "2"});
  for (const auto& s : now)
    if (s.job_id == "1") CHECK(s.cpu_time_total == Approx(12.5));  // the final reading, not the running one
  // A full pass that no longer lists it does not cut its linger short.
  exported.set_running({sample("2", 21)});
  CHECK(ids(exported.current(129.9)) == std::vector<std::string>{"1", "2"});
  CHECK(ids(exported.current(130)) == std::vector<std::string>{"2"});
  CHECK(exported.lingering() == 0);
}

TEST_CASE("a job that runs again under its id is exported as running, not as its ended self", "[exported]") {
  ExportedJobs exported(30);
  exported.end(sample("7", 5), 100);
  SECTION("seen by the watch") {
    exported.start(sample("7", 0.5));
  }
  SECTION("seen by a full pass") {
    exported.set_running({sample("7", 0.5)});
  }
  auto now = exported.current(101);
  REQUIRE(now.size() == 1);
  CHECK(now[0].cpu_time_total == Approx(0.5));
  CHECK(exported.lingering() == 0);
}

TEST_CASE("a job started by the watch joins the running jobs until the next full pass", "[exported]") {
  ExportedJobs exported(0);
  exported.set_running({sample("1", 1)});
  exported.start(sample("2", 0));
  CHECK(exported.running() == 2);
  CHECK(ids(exported.current(0)) == std::vector<std::string>{"1", "2"});
  // Without linger an ended job is gone from the next export.
  exported.end(sample("2", 3), 10);
  CHECK(ids(exported.current(10)) == std::vector<std::string>{"1"});
}
