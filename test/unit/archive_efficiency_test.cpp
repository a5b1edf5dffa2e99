// The fleet view's sums (sources/archive_efficiency.hpp) over a known set of
// archived jobs in a real SQLite file (and, run by the mariadb suite, a real
// MariaDB), checked against sums computed by hand: the figures each job adds
// are written next to it, each expected total says which jobs make it.
#include "sources/archive_efficiency.hpp"

#include "catch.hpp"

#include "archive_stores.hpp"
#include "sources/archive_schema.hpp"
#include "sources/job_archive.hpp"

#include <map>
#include <optional>
#include <string>
#include <vector>

using namespace petricore;
using namespace petricore::sources;

namespace {

// The window: three days from S.
constexpr std::int64_t S = 1'699'920'000;
constexpr std::int64_t U = S + 3 * 86'400;
constexpr std::int64_t kHour = 3600;

struct JobFacts {
  std::string raw_id;
  std::string user, account, partition;
  int cpus = 1;
  std::optional<std::int64_t> start;
  std::int64_t end = 0;
  std::optional<double> cpu_time_s;
  std::optional<double> mem_mb, rss_mb;
  int gpus = 0;
  std::optional<double> gpu_util;
  std::vector<std::pair<std::string, std::string>> findings;
  std::string display_id = {};  // empty: the raw id
};

model::ArchivedJob archived(const JobFacts& f) {
  model::ArchivedJob a;
  a.job.raw_id = f.raw_id;
  a.job.job_id = f.display_id.empty() ? f.raw_id : f.display_id;
  a.job.name = "job" + f.raw_id;
  a.job.user = f.user;
  a.job.account = f.account;
  a.job.partition = f.partition;
  a.job.state = f.start ? "COMPLETED" : "CANCELLED";
  a.job.start = f.start;
  a.job.end = f.end;
  a.job.alloc_cpus = f.cpus;
  a.job.alloc_mem_mb = f.mem_mb;
  a.job.alloc_nodes = 1;
  a.job.node_list = "n1";
  a.job.alloc_gpus = f.gpus;
  a.cpu_time_seconds = f.cpu_time_s;
  a.memory_resident_mb = f.rss_mb;
  a.gpu_utilization_mean = f.gpu_util;
  a.findings = f.findings;
  a.archived_at = f.end + 60;
  a.usage_json = "{}";
  return a;
}

// The known job set. Per job: core-hours allocated (cpus x elapsed h), used
// (CPU time / 3600), wasted; memory GB-hours requested and used (MB / 1024
// x h); GPU-hours allocated and idle.
void fill(SqlDatabase& db) {
  REQUIRE(migrate_archive(db));
  JobArchive c1(db, "c1");
  const std::vector<JobFacts> jobs = {
      // J1: 4 cpus x 2 h = 8 ch, used 4, wasted 4; mem 8 GB x 2 h = 16, rss 2 GB x 2 h = 4. Ends at S: counted.
      {"1",
       "alice",
       "physics",
       "cpu",
       4,
       S - 2 * kHour,
       S,
       14'400,
       8192,
       2048,
       0,
       {},
       {{"memory_overallocated", "warning"}, {"cpu_efficiency", "warning"}}},
      // J3: never started: 0 h, so 0 everywhere; its CPU time is known (0 s) on 0 ch allocated.
      {"3", "bob", "physics", "cpu", 8, {}, S + 90'000, 0, 1000, {}, 0, {}, {}},
      // J4: 16 cpus x 1 h = 16 ch; CPU time unknown: used 0, not in efficiency, wasted 0; no memory figures.
      {"4", "bob", "chemistry", "cpu", 16, S + 96'400, S + 100'000, {}, {}, {}, 0, {}, {}},
      // J5: 8 cpus x 3 h = 24 ch, used 12, wasted 12; mem 16 GB x 3 h = 48, rss 4 GB x 3 h = 12;
      //     2 GPUs x 3 h = 6 GPU-h, 25 % used: idle 6 x 0.75 = 4.5.
      {"5",
       "carol",
       "chemistry",
       "gpu",
       8,
       S + 169'200,
       S + 180'000,
       43'200,
       16'384,
       4096,
       2,
       25.0,
       {{"gpu_efficiency", "warning"}}},
      // J6: 4 cpus x 2 h = 8 ch, used 8, wasted 0; mem 8 GB x 2 h = 16, rss 16; 1 GPU x 2 h = 2 GPU-h,
      //     utilisation unknown: idle 0.
      {"6",
       "carol",
       "chemistry",
       "gpu",
       4,
       S + 192'800,
       S + 200'000,
       28'800,
       8192,
       8192,
       1,
       {},
       {{"gpu_memory_low", "info"}}},
      // J7: 1 cpu x 1 h = 1 ch, used 1.5 (more than allocated): wasted 0, not -0.5; mem 1 GB x 1 h = 1, rss 0.5.
      {"7", "dave", "biology", "cpu", 1, S + 246'400, S + 250'000, 5400, 1024, 512, 0, {}, {}},
      // J8: ends at U: not counted.
      {"8", "alice", "physics", "cpu", 100, U - kHour, U, 0, {}, {}, 0, {}, {{"time_overrequested", "warning"}}},
      // J9: ends a second before S: not counted.
      {"9",
       "alice",
       "physics",
       "cpu",
       100,
       S - 1 - kHour,
       S - 1,
       0,
       {},
       {},
       0,
       {},
       {{"time_overrequested", "warning"}}},
      // J11: 2 cpus x 0.5 h = 1 ch, used 0.5, wasted 0.5; mem 2 GB x 0.5 h = 1, rss 0.5 GB x 0.5 h = 0.25;
      //      4 GPUs x 0.5 h = 2 GPU-h, 100 % used: idle 0. Ends at S + 1 day: the second day's first second.
      {"11",
       "alice",
       "biology",
       "gpu",
       2,
       S + 84'600,
       S + 86'400,
       1800,
       2048,
       512,
       4,
       100.0,
       {{"memory_overallocated", "info"}}},
  };
  for (const JobFacts& f : jobs) REQUIRE(c1.store(archived(f)));
  // J2 (1000_2), analysed twice. The first analysis (CPU time 360 s, a
  // cpu_efficiency finding) is superseded: only the second counts.
  // 2 cpus x 1 h = 2 ch, used 1.5, wasted 0.5; mem 4 GB x 1 h = 4, rss 1 GB x 1 h = 1.
  JobFacts j2{
      "1002",  "alice", "physics", "cpu", 2, S, S + kHour, 360, 4096, 1024, 0, {}, {{"cpu_efficiency", "critical"}},
      "1000_2"};
  REQUIRE(c1.store(archived(j2)).value() == 1);
  j2.cpu_time_s = 5400;
  j2.findings.clear();
  REQUIRE(c1.store(archived(j2)).value() == 2);
  // Another cluster's job in the window: not counted.
  JobFacts other{"10", "alice", "physics", "cpu", 100, S, S + kHour, 0, {}, {}, 0, {}, {}};
  REQUIRE(JobArchive(db, "c2").store(archived(other)));
}

struct Expected {
  std::int64_t jobs;
  double allocated, used;
  std::optional<double> efficiency;
  double wasted, mem_requested, mem_used, gpu, gpu_idle;
  std::map<std::string, std::int64_t> findings;
};

void check_totals(const model::EfficiencyTotals& t, const Expected& e) {
  CHECK(t.jobs == e.jobs);
  CHECK(t.core_hours_allocated == Approx(e.allocated).margin(1e-9));
  CHECK(t.core_hours_used == Approx(e.used).margin(1e-9));
  REQUIRE(t.cpu_efficiency_percent.has_value() == e.efficiency.has_value());
  if (e.efficiency) CHECK(*t.cpu_efficiency_percent == Approx(*e.efficiency).margin(1e-9));
  CHECK(t.core_hours_wasted == Approx(e.wasted).margin(1e-9));
  CHECK(t.memory_gb_hours_requested == Approx(e.mem_requested).margin(1e-9));
  CHECK(t.memory_gb_hours_used == Approx(e.mem_used).margin(1e-9));
  CHECK(t.gpu_hours_allocated == Approx(e.gpu).margin(1e-9));
  CHECK(t.gpu_hours_idle == Approx(e.gpu_idle).margin(1e-9));
  CHECK(t.jobs_by_finding == e.findings);
}

std::vector<std::string> names(const model::FleetEfficiency& f) {
  std::vector<std::string> out;
  for (const auto& g : f.groups) out.push_back(g.name);
  return out;
}

model::FleetEfficiency query(SqlDatabase& db, EfficiencyQuery q) {
  auto f = fleet_efficiency(db, "c1", q);
  REQUIRE(f);
  return std::move(*f);
}

EfficiencyQuery window(model::EfficiencyGrouping by) {
  EfficiencyQuery q;
  q.by = by;
  q.since = S;
  q.until = U;
  return q;
}

// Counted in [S, U): J1, J2 (second version), J3, J4, J5, J6, J7, J11.
// The whole: jobs 8; allocated 8 + 2 + 0 + 16 + 24 + 8 + 1 + 1 = 60; used
// 4 + 1.5 + 0 + 0 + 12 + 8 + 1.5 + 0.5 = 27.5; efficiency over the jobs
// with a known CPU time (all but J4): 27.5 / (60 - 16 = 44) = 62.5 %; wasted
// 4 + 0.5 + 12 + 0.5 = 17; memory requested 16 + 4 + 48 + 16 + 1 + 1 = 86,
// used 4 + 1 + 12 + 16 + 0.5 + 0.25 = 33.75; GPU-hours 6 + 2 + 2 = 10, idle
// 4.5; findings: memory_overallocated J1, J11; cpu_efficiency J1 (J2's was
// superseded); gpu_efficiency J5; gpu_memory_low J6 (not time_overrequested:
// J8 and J9 are outside).
const Expected kWhole{
    8,     60,
    27.5,  62.5,
    17,    86,
    33.75, 10,
    4.5,   {{"memory_overallocated", 2}, {"cpu_efficiency", 1}, {"gpu_efficiency", 1}, {"gpu_memory_low", 1}}};

void by_account(SqlDatabase& db) {
  auto f = query(db, window(model::EfficiencyGrouping::Account));
  CHECK(f.by == model::EfficiencyGrouping::Account);
  CHECK(f.since == S);
  CHECK(f.until == U);
  check_totals(f.total, kWhole);
  // Most wasted first: chemistry 12, physics 4.5, biology 0.5.
  REQUIRE(names(f) == std::vector<std::string>{"chemistry", "physics", "biology"});
  // chemistry: J4, J5, J6: allocated 16 + 24 + 8 = 48, used 0 + 12 + 8 = 20, efficiency 20 / 32 = 62.5 %
  // (J4 unknown), wasted 12; memory 0 + 48 + 16 = 64, used 12 + 16 = 28; GPU 6 + 2 = 8, idle 4.5.
  check_totals(f.groups[0].totals,
               {3, 48, 20, 62.5, 12, 64, 28, 8, 4.5, {{"gpu_efficiency", 1}, {"gpu_memory_low", 1}}});
  // physics: J1, J2, J3: allocated 8 + 2 + 0 = 10, used 4 + 1.5 + 0 = 5.5, 55 %, wasted 4.5; memory 16 + 4 = 20, used 4
  // + 1 = 5.
  check_totals(f.groups[1].totals,
               {3, 10, 5.5, 55, 4.5, 20, 5, 0, 0, {{"memory_overallocated", 1}, {"cpu_efficiency", 1}}});
  // biology: J7, J11: allocated 1 + 1 = 2, used 1.5 + 0.5 = 2, 100 %, wasted 0 + 0.5; memory 1 + 1 = 2, used 0.5 +
  // 0.25; GPU 2, idle 0.
  check_totals(f.groups[2].totals, {2, 2, 2, 100, 0.5, 2, 0.75, 2, 0, {{"memory_overallocated", 1}}});
}

void by_user(SqlDatabase& db) {
  auto f = query(db, window(model::EfficiencyGrouping::User));
  check_totals(f.total, kWhole);
  // carol 12, alice 5, then bob and dave with 0 each, by name.
  REQUIRE(names(f) == std::vector<std::string>{"carol", "alice", "bob", "dave"});
  // carol: J5, J6: 24 + 8 = 32, used 12 + 8 = 20, 62.5 %, wasted 12; memory 48 + 16 = 64, used 12 + 16 = 28; GPU 8,
  // idle 4.5.
  check_totals(f.groups[0].totals,
               {2, 32, 20, 62.5, 12, 64, 28, 8, 4.5, {{"gpu_efficiency", 1}, {"gpu_memory_low", 1}}});
  // alice: J1, J2, J11: 8 + 2 + 1 = 11, used 4 + 1.5 + 0.5 = 6, 6 / 11 = 54.5454... %, wasted 4 + 0.5 + 0.5 = 5;
  // memory 16 + 4 + 1 = 21, used 4 + 1 + 0.25 = 5.25; GPU 2, idle 0.
  check_totals(f.groups[1].totals,
               {3, 11, 6, 600.0 / 11, 5, 21, 5.25, 2, 0, {{"memory_overallocated", 2}, {"cpu_efficiency", 1}}});
  // bob: J3, J4: 0 + 16 = 16, used 0; the one job with a known CPU time (J3) had 0 ch: no efficiency.
  check_totals(f.groups[2].totals, {2, 16, 0, std::nullopt, 0, 0, 0, 0, 0, {}});
  // dave: J7: 1, used 1.5, 150 %, wasted 0; memory 1, used 0.5.
  check_totals(f.groups[3].totals, {1, 1, 1.5, 150, 0, 1, 0.5, 0, 0, {}});
}

void by_partition(SqlDatabase& db) {
  auto f = query(db, window(model::EfficiencyGrouping::Partition));
  check_totals(f.total, kWhole);
  REQUIRE(names(f) == std::vector<std::string>{"gpu", "cpu"});
  // gpu: J5, J6, J11: 24 + 8 + 1 = 33, used 12 + 8 + 0.5 = 20.5, 20.5 / 33 = 62.1212... %, wasted 12 + 0.5 = 12.5;
  // memory 48 + 16 + 1 = 65, used 12 + 16 + 0.25 = 28.25; GPU 6 + 2 + 2 = 10, idle 4.5.
  check_totals(f.groups[0].totals, {3,
                                    33,
                                    20.5,
                                    2050.0 / 33,
                                    12.5,
                                    65,
                                    28.25,
                                    10,
                                    4.5,
                                    {{"gpu_efficiency", 1}, {"gpu_memory_low", 1}, {"memory_overallocated", 1}}});
  // cpu: J1, J2, J3, J4, J7: 8 + 2 + 0 + 16 + 1 = 27, used 4 + 1.5 + 1.5 = 7, 7 / (27 - 16 = 11) = 63.6363... %,
  // wasted 4 + 0.5 = 4.5; memory 16 + 4 + 1 = 21, used 4 + 1 + 0.5 = 5.5.
  check_totals(f.groups[1].totals,
               {5, 27, 7, 700.0 / 11, 4.5, 21, 5.5, 0, 0, {{"memory_overallocated", 1}, {"cpu_efficiency", 1}}});
}

void user_filter(SqlDatabase& db) {
  EfficiencyQuery q = window(model::EfficiencyGrouping::Account);
  q.user = "alice";
  auto f = query(db, q);
  CHECK(f.user == "alice");
  // alice's J1, J2, J11 (her J8 ends at U, J9 before S, job 10 is c2's).
  check_totals(f.total,
               {3, 11, 6, 600.0 / 11, 5, 21, 5.25, 2, 0, {{"memory_overallocated", 2}, {"cpu_efficiency", 1}}});
  REQUIRE(names(f) == std::vector<std::string>{"physics", "biology"});
  // physics: J1, J2: 8 + 2 = 10, used 5.5, 55 %, wasted 4.5; memory 20, used 5.
  check_totals(f.groups[0].totals,
               {2, 10, 5.5, 55, 4.5, 20, 5, 0, 0, {{"memory_overallocated", 1}, {"cpu_efficiency", 1}}});
  // biology: J11: 1, used 0.5, 50 %, wasted 0.5; memory 1, used 0.25; GPU 2, idle 0.
  check_totals(f.groups[1].totals, {1, 1, 0.5, 50, 0.5, 1, 0.25, 2, 0, {{"memory_overallocated", 1}}});
  REQUIRE(f.worst_jobs.size() == 3);
  CHECK(f.worst_jobs[0].job_id == 1);
  CHECK(f.worst_jobs[1].job_id == 11);
  CHECK(f.worst_jobs[2].job_id == 1002);
}

void accounts_filter(SqlDatabase& db) {
  EfficiencyQuery q = window(model::EfficiencyGrouping::User);
  q.accounts = {"chemistry", "biology"};
  auto f = query(db, q);
  CHECK(f.accounts == q.accounts);
  // J4, J5, J6, J7, J11: 16 + 24 + 8 + 1 + 1 = 50, used 0 + 12 + 8 + 1.5 + 0.5 = 22, 22 / (50 - 16 = 34)
  // = 64.7058... %, wasted 12 + 0.5 = 12.5; memory 0 + 48 + 16 + 1 + 1 = 66, used 12 + 16 + 0.5 + 0.25 = 28.75;
  // GPU 6 + 2 + 2 = 10, idle 4.5.
  check_totals(f.total, {5,
                         50,
                         22,
                         2200.0 / 34,
                         12.5,
                         66,
                         28.75,
                         10,
                         4.5,
                         {{"gpu_efficiency", 1}, {"gpu_memory_low", 1}, {"memory_overallocated", 1}}});
  REQUIRE(names(f) == std::vector<std::string>{"carol", "alice", "bob", "dave"});
  // alice here is J11 alone; bob J4 alone: no known CPU time, no efficiency.
  check_totals(f.groups[1].totals, {1, 1, 0.5, 50, 0.5, 1, 0.25, 2, 0, {{"memory_overallocated", 1}}});
  check_totals(f.groups[2].totals, {1, 16, 0, std::nullopt, 0, 0, 0, 0, 0, {}});
  // Both filters: alice has no chemistry job.
  q.user = "alice";
  q.accounts = {"chemistry"};
  auto none = query(db, q);
  CHECK(none.groups.empty());
  CHECK(none.over_time.empty());
  CHECK(none.worst_jobs.empty());
  check_totals(none.total, {0, 0, 0, std::nullopt, 0, 0, 0, 0, 0, {}});
}

void points_over_time(SqlDatabase& db) {
  auto f = query(db, window(model::EfficiencyGrouping::Account));
  CHECK(f.point_seconds == 86'400);
  REQUIRE(f.over_time.size() == 3);
  CHECK(f.over_time[0].start == S);
  CHECK(f.over_time[1].start == S + 86'400);
  CHECK(f.over_time[2].start == S + 2 * 86'400);
  // Day 1: J1, J2: 10, used 5.5, 55 %, wasted 4.5; memory 20, used 5.
  check_totals(f.over_time[0].totals,
               {2, 10, 5.5, 55, 4.5, 20, 5, 0, 0, {{"memory_overallocated", 1}, {"cpu_efficiency", 1}}});
  // Day 2: J11 (its first second), J3, J4: 1 + 0 + 16 = 17, used 0.5, 0.5 / (1 + 0) = 50 %, wasted 0.5;
  // memory 1, used 0.25; GPU 2, idle 0.
  check_totals(f.over_time[1].totals, {3, 17, 0.5, 50, 0.5, 1, 0.25, 2, 0, {{"memory_overallocated", 1}}});
  // Day 3: J5, J6, J7: 24 + 8 + 1 = 33, used 12 + 8 + 1.5 = 21.5, 21.5 / 33 = 65.1515... %, wasted 12;
  // memory 48 + 16 + 1 = 65, used 12 + 16 + 0.5 = 28.5; GPU 8, idle 4.5.
  check_totals(f.over_time[2].totals,
               {3, 33, 21.5, 2150.0 / 33, 12, 65, 28.5, 8, 4.5, {{"gpu_efficiency", 1}, {"gpu_memory_low", 1}}});

  // Half days: the second and fourth have no job and are left out.
  EfficiencyQuery q = window(model::EfficiencyGrouping::Account);
  q.point_seconds = 43'200;
  auto halves = query(db, q);
  std::vector<std::pair<std::int64_t, std::int64_t>> starts;
  for (const auto& p : halves.over_time) starts.emplace_back(p.start - S, p.totals.jobs);
  CHECK(starts == std::vector<std::pair<std::int64_t, std::int64_t>>{{0, 2}, {86'400, 3}, {172'800, 2}, {216'000, 1}});
}

void worst_jobs(SqlDatabase& db) {
  auto f = query(db, window(model::EfficiencyGrouping::Account));
  // J5 12, J1 4, then J11 and J2 0.5 each, the later end first; the jobs that wasted nothing are left out.
  REQUIRE(f.worst_jobs.size() == 4);
  const model::WastefulJob& j5 = f.worst_jobs[0];
  CHECK(j5.job_id == 5);
  CHECK(j5.display_id == "5");
  CHECK(j5.name == "job5");
  CHECK(j5.user == "carol");
  CHECK(j5.account == "chemistry");
  CHECK(j5.partition == "gpu");
  CHECK(j5.end == S + 180'000);
  CHECK(j5.core_hours_allocated == Approx(24));
  CHECK(j5.core_hours_wasted == Approx(12));
  REQUIRE(j5.cpu_efficiency_percent);
  CHECK(*j5.cpu_efficiency_percent == Approx(50));
  CHECK(f.worst_jobs[1].job_id == 1);
  CHECK(f.worst_jobs[1].core_hours_wasted == Approx(4));
  CHECK(f.worst_jobs[2].job_id == 11);
  const model::WastefulJob& j2 = f.worst_jobs[3];
  CHECK(j2.job_id == 1002);
  CHECK(j2.display_id == "1000_2");
  CHECK(j2.core_hours_allocated == Approx(2));
  CHECK(j2.core_hours_wasted == Approx(0.5));
  REQUIRE(j2.cpu_efficiency_percent);
  CHECK(*j2.cpu_efficiency_percent == Approx(75));  // the second analysis, not the first's 5 %

  EfficiencyQuery q = window(model::EfficiencyGrouping::Account);
  q.worst_jobs = 2;
  auto two = query(db, q);
  REQUIRE(two.worst_jobs.size() == 2);
  CHECK(two.worst_jobs[1].job_id == 1);
  q.worst_jobs = 0;
  CHECK(query(db, q).worst_jobs.empty());
}

void window_edges_and_bad_queries(SqlDatabase& db) {
  // [S, S + 1): J1 alone (it ends at S); [S - 1, S): J9 alone.
  EfficiencyQuery q = window(model::EfficiencyGrouping::User);
  q.until = S + 1;
  CHECK(query(db, q).total.jobs == 1);
  q.since = S - 1;
  q.until = S;
  auto before = query(db, q);
  REQUIRE(names(before) == std::vector<std::string>{"alice"});
  CHECK(before.total.jobs_by_finding == std::map<std::string, std::int64_t>{{"time_overrequested", 1}});
  // [U, U + 1): J8 alone.
  q.since = U;
  q.until = U + 1;
  CHECK(query(db, q).total.core_hours_allocated == Approx(100));
  q.until = q.since;
  CHECK(query(db, q).total.jobs == 0);
  q.until = q.since - 1;
  auto backwards = fleet_efficiency(db, "c1", q);
  REQUIRE_FALSE(backwards);
  CHECK(backwards.error().kind == Error::Kind::BadInput);
  q = window(model::EfficiencyGrouping::User);
  q.point_seconds = 0;
  auto no_stretch = fleet_efficiency(db, "c1", q);
  REQUIRE_FALSE(no_stretch);
  CHECK(no_stretch.error().kind == Error::Kind::BadInput);
  // Another cluster sees its own job only.
  auto c2 = fleet_efficiency(db, "c2", window(model::EfficiencyGrouping::User));
  REQUIRE(c2);
  CHECK(c2->total.jobs == 1);
}

void every_scenario(test::Store& store) {
  auto db = store.fresh();
  fill(*db);
  SECTION("by account: every figure of every group, the re-analysed job counted once, at its newest") by_account(*db);
  SECTION("by user: an efficiency is absent where no started job has a known CPU time") by_user(*db);
  SECTION("by partition") by_partition(*db);
  SECTION("one user's jobs") user_filter(*db);
  SECTION("some accounts' jobs, and a filter nothing passes") accounts_filter(*db);
  SECTION("over time: a point per stretch with jobs, from since") points_over_time(*db);
  SECTION("the worst jobs: most core-hours wasted first, with what a link needs") worst_jobs(*db);
  SECTION("window edges: a job ending at since counts, one ending at until does not; bad queries")
  window_edges_and_bad_queries(*db);
}

}  // namespace

TEST_CASE("fleet efficiency sums over an SQLite archive, against hand-computed figures", "[efficiency]") {
  test::SqliteStore store;
  every_scenario(store);
}

// Run by the mariadb suite (test/integration/mariadb_test.sh), which starts
// the server: the same scenarios on MariaDB.
TEST_CASE("fleet efficiency sums over a MariaDB archive, against hand-computed figures", "[.][mariadb]") {
  auto store = test::MariaDbStore::from_env("petricore_efficiency_test_");
  if (!store) {
    WARN("PETRICORE_TEST_DB_SOCKET is not set: skipped");
    return;
  }
  every_scenario(*store);
}
