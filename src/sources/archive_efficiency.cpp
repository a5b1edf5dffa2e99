#include "sources/archive_efficiency.hpp"

#include "sources/archive_schema.hpp"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <map>
#include <utility>

namespace petricore::sources {
namespace {

constexpr double kSecondsPerHour = 3600;
constexpr double kMbPerGb = 1024;  // Slurm's MB are MiB

// What jobs add up to, in the units the database sums: seconds and MB.
struct Sums {
  std::int64_t jobs = 0;
  double core_seconds = 0;             // allocated: alloc_cpus x elapsed
  double cpu_seconds = 0;              // used: CPU time, where known
  double core_seconds_known = 0;       // allocated to the jobs whose CPU time is known
  std::int64_t jobs_cpu_known = 0;     // those jobs
  double core_seconds_wasted = 0;      // allocated - used over those jobs, never below 0 a job
  double mb_seconds_requested = 0;     // alloc_mem x elapsed
  double mb_seconds_used = 0;          // resident peak x elapsed
  double gpu_seconds = 0;              // alloc_gpus x elapsed
  double gpu_seconds_idle = 0;         // allocated x (1 - utilisation), where it is known
  std::map<int, std::int64_t> by_bit;  // finding bit -> jobs

  void add(const Sums& o) {
    jobs += o.jobs;
    core_seconds += o.core_seconds;
    cpu_seconds += o.cpu_seconds;
    core_seconds_known += o.core_seconds_known;
    jobs_cpu_known += o.jobs_cpu_known;
    core_seconds_wasted += o.core_seconds_wasted;
    mb_seconds_requested += o.mb_seconds_requested;
    mb_seconds_used += o.mb_seconds_used;
    gpu_seconds += o.gpu_seconds;
    gpu_seconds_idle += o.gpu_seconds_idle;
    for (const auto& [bit, jobs_with_it] : o.by_bit) by_bit[bit] += jobs_with_it;
  }
};

// A column as a number (0 for NULL: a SUM over no known value). strtod: the
// databases print integers, decimals (MariaDB's SUM of integers) and doubles.
double number(const std::optional<std::string>& text) {
  if (!text || text->empty()) return 0;
  return std::strtod(text->c_str(), nullptr);
}

std::int64_t integer(const std::optional<std::string>& text) {
  std::int64_t v = 0;
  if (text) std::from_chars(text->data(), text->data() + text->size(), v);
  return v;
}

std::optional<double> efficiency_percent(double used, double allocated, std::int64_t jobs_known) {
  if (jobs_known == 0 || allocated <= 0) return std::nullopt;
  return used / allocated * 100;
}

model::EfficiencyTotals totals_of(const Sums& s, const std::map<int, std::string>& rule_of_bit) {
  model::EfficiencyTotals t;
  t.jobs = s.jobs;
  t.core_hours_allocated = s.core_seconds / kSecondsPerHour;
  t.core_hours_used = s.cpu_seconds / kSecondsPerHour;
  t.cpu_efficiency_percent = efficiency_percent(s.cpu_seconds, s.core_seconds_known, s.jobs_cpu_known);
  t.core_hours_wasted = s.core_seconds_wasted / kSecondsPerHour;
  t.memory_gb_hours_requested = s.mb_seconds_requested / kMbPerGb / kSecondsPerHour;
  t.memory_gb_hours_used = s.mb_seconds_used / kMbPerGb / kSecondsPerHour;
  t.gpu_hours_allocated = s.gpu_seconds / kSecondsPerHour;
  t.gpu_hours_idle = s.gpu_seconds_idle / kSecondsPerHour;
  for (const auto& [bit, jobs] : s.by_bit)
    if (auto rule = rule_of_bit.find(bit); rule != rule_of_bit.end() && jobs > 0)
      t.jobs_by_finding[rule->second] += jobs;
  return t;
}

// The table, through the covering index for the query, and the conditions
// that pick its jobs (the version in force of each that ended in the
// window), their parameters appended to `params`. MariaDB is told the
// index: it prices reading one by its keys' longest length (four
// VARCHAR(64) here) and takes the primary key instead, at seven times the
// time (efficiency_bench).
std::string window_of(SqlDatabase& db, const std::string& cluster, const EfficiencyQuery& q,
                      std::vector<SqlParam>& params) {
  const char* index = q.user ? "archived_jobs_user_window" : "archived_jobs_window";
  std::string sql = " FROM archived_jobs";
  if (!is_sqlite(db)) sql += std::string(" FORCE INDEX (") + index + ")";
  sql += " WHERE cluster = ? AND latest = 1";
  params.emplace_back(cluster);
  if (q.user) {
    sql += " AND user_name = ?";
    params.emplace_back(*q.user);
  }
  sql += " AND end_time >= ? AND end_time < ?";
  params.emplace_back(q.since);
  params.emplace_back(q.until);
  if (!q.accounts.empty()) {
    sql += " AND account IN (";
    for (std::size_t i = 0; i < q.accounts.size(); ++i) {
      sql += i == 0 ? "?" : ", ?";
      params.emplace_back(q.accounts[i]);
    }
    sql += ")";
  }
  return sql;
}

// The sums of the query's jobs per group and per stretch of time.
struct Breakdown {
  std::map<std::string, Sums> groups;
  std::map<std::int64_t, Sums> points;  // by the stretch's start
};

// One pass over a covering index (archive_schema.hpp) for the figures,
// plain SUMs of the columns each record carries (JobFigures), per stretch
// and group at once: sorting the window's jobs is what costs, so they are
// sorted once, stretch first (they come in the order they ended: a third
// faster than group first); then one more over the jobs with findings (a
// fifth) for the jobs per finding, per stretch, group and mask. Groups and
// stretches are added up here from the rows.
Result<Breakdown> breakdown(SqlDatabase& db, const char* group, const std::string& cluster, const EfficiencyQuery& q) {
  // The stretch's start: end_time >= since, so the remainder is never negative.
  const std::string keys = std::string("SELECT ") + group + " AS g, end_time - ((end_time - ?) % ?) AS p";
  std::vector<SqlParam> params{q.since, q.point_seconds};
  std::string window = window_of(db, cluster, q, params);
  auto sums =
      db.run(keys +
                 ", COUNT(*), SUM(core_s), SUM(cpu_time_s), SUM(core_s_known), COUNT(cpu_time_s),"
                 " SUM(core_s_wasted), SUM(mem_mb_s_requested), SUM(mem_mb_s_used), SUM(gpu_s), SUM(gpu_s_idle)" +
                 window + " GROUP BY p, g",
             params);
  if (!sums) return sums.error();
  Breakdown out;
  for (const SqlRow& row : sums->rows) {
    if (row.size() != 12) continue;
    Sums s;
    s.jobs = static_cast<std::int64_t>(number(row[2]));
    s.core_seconds = number(row[3]);
    s.cpu_seconds = number(row[4]);
    s.core_seconds_known = number(row[5]);
    s.jobs_cpu_known = static_cast<std::int64_t>(number(row[6]));
    s.core_seconds_wasted = number(row[7]);
    s.mb_seconds_requested = number(row[8]);
    s.mb_seconds_used = number(row[9]);
    s.gpu_seconds = number(row[10]);
    s.gpu_seconds_idle = number(row[11]);
    out.groups[row[0].value_or("")].add(s);
    out.points[integer(row[1])].add(s);
  }
  auto masks =
      db.run(keys + ", finding_mask, COUNT(*)" + window + " AND finding_mask <> 0 GROUP BY p, g, finding_mask", params);
  if (!masks) return masks.error();
  for (const SqlRow& row : masks->rows) {
    if (row.size() != 4) continue;
    const std::int64_t mask = integer(row[2]);
    const std::int64_t jobs = integer(row[3]);
    for (int bit = 0; bit < kFindingBits; ++bit) {
      if (((mask >> bit) & 1) == 0) continue;
      out.groups[row[0].value_or("")].by_bit[bit] += jobs;
      out.points[integer(row[1])].by_bit[bit] += jobs;
    }
  }
  return out;
}

const char* group_column(model::EfficiencyGrouping by) {
  switch (by) {
    case model::EfficiencyGrouping::User:
      return "user_name";
    case model::EfficiencyGrouping::Partition:
      return "partition_name";
    case model::EfficiencyGrouping::Account:
      break;
  }
  return "account";
}

// The jobs that wasted most core-hours, most first; on a tie the later end.
Result<std::vector<model::WastefulJob>> worst_jobs(SqlDatabase& db, const std::string& cluster,
                                                   const EfficiencyQuery& q) {
  std::vector<model::WastefulJob> out;
  if (q.worst_jobs == 0) return out;
  std::vector<SqlParam> params;
  const std::string window = window_of(db, cluster, q, params);
  params.emplace_back(static_cast<std::int64_t>(q.worst_jobs));
  auto rows = db.run("SELECT job_id, end_time, core_s, cpu_time_s, core_s_wasted" + window +
                         " AND core_s_wasted > 0 ORDER BY core_s_wasted DESC, end_time DESC, job_id DESC LIMIT ?",
                     params);
  if (!rows) return rows.error();
  if (rows->rows.empty()) return out;
  // Their names and owners: a record each, read by its key (the key, not
  // `latest`, which SQLite would rather take to a scan of the window index).
  std::string sql =
      "SELECT job_id, display_id, name, user_name, account, partition_name, latest FROM archived_jobs"
      " WHERE cluster = ? AND job_id IN (";
  std::vector<SqlParam> ids{cluster};
  for (const SqlRow& row : rows->rows) {
    model::WastefulJob w;
    w.job_id = integer(row[0]);
    w.end = integer(row[1]);
    const double allocated = number(row[2]);
    w.core_hours_allocated = allocated / kSecondsPerHour;
    w.core_hours_wasted = number(row[4]) / kSecondsPerHour;
    w.cpu_efficiency_percent = efficiency_percent(number(row[3]), allocated, 1);
    sql += ids.size() == 1 ? "?" : ", ?";
    ids.emplace_back(w.job_id);
    out.push_back(std::move(w));
  }
  auto names = db.run(sql + ")", ids);
  if (!names) return names.error();
  for (const SqlRow& row : names->rows) {
    const std::int64_t id = integer(row[0]);
    if (integer(row[6]) != 1) continue;
    for (model::WastefulJob& w : out) {
      if (w.job_id != id) continue;
      w.display_id = row[1].value_or("");
      w.name = row[2].value_or("");
      w.user = row[3].value_or("");
      w.account = row[4].value_or("");
      w.partition = row[5].value_or("");
    }
  }
  return out;
}

}  // namespace

Result<model::FleetEfficiency> fleet_efficiency(SqlDatabase& db, const std::string& cluster, const EfficiencyQuery& q) {
  if (q.until < q.since)
    return bad_input("until (" + std::to_string(q.until) + ") is before since (" + std::to_string(q.since) + ")");
  if (q.point_seconds <= 0)
    return bad_input("the stretch of a point must be at least a second, not " + std::to_string(q.point_seconds));
  model::FleetEfficiency f;
  f.by = q.by;
  f.since = q.since;
  f.until = q.until;
  f.user = q.user;
  f.accounts = q.accounts;
  f.point_seconds = q.point_seconds;

  auto rules = finding_bits(db);
  if (!rules) return rules.error();
  std::map<int, std::string> rule_of_bit;
  for (const auto& [rule, bit] : *rules) rule_of_bit[bit] = rule;

  auto sums = breakdown(db, group_column(q.by), cluster, q);
  if (!sums) return sums.error();
  Sums total;
  for (const auto& [name, group] : sums->groups) {
    total.add(group);
    f.groups.push_back({name, totals_of(group, rule_of_bit)});
  }
  f.total = totals_of(total, rule_of_bit);
  // Most wasted first; by name (the map's order) on a tie.
  std::stable_sort(f.groups.begin(), f.groups.end(),
                   [](const model::EfficiencyGroup& a, const model::EfficiencyGroup& b) {
                     return a.totals.core_hours_wasted > b.totals.core_hours_wasted;
                   });
  for (const auto& [start, point] : sums->points) f.over_time.push_back({start, totals_of(point, rule_of_bit)});

  auto worst = worst_jobs(db, cluster, q);
  if (!worst) return worst.error();
  f.worst_jobs = std::move(*worst);
  return f;
}

}  // namespace petricore::sources
