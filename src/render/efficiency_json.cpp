// The JSON of /api/v1/efficiency (keys in efficiency_render.hpp), built as a
// boost::json::value and written pretty by render::json_text. Numbers are
// rounded as the job JSON rounds its amounts (json_number(): 2 decimals,
// integers when whole, null when unknown or not finite).
#include "render/efficiency_render.hpp"
#include "render/json_writer.hpp"
#include "render/text_format.hpp"

#include <boost/json.hpp>

namespace petricore::render {
namespace {

namespace json = boost::json;

constexpr int kDecimals = 2;

json::value number(const std::optional<double>& value) {
  return json_number(value, kDecimals);
}

// The members of <totals>, appended to `out` (a group's and a point's come
// after their name or start).
void totals(json::object& out, const model::EfficiencyTotals& t) {
  json::object findings;
  for (const auto& [rule, jobs] : t.jobs_by_finding) findings[rule] = jobs;
  out["jobs"] = t.jobs;
  out["core_hours"] = {{"allocated", number(t.core_hours_allocated)},
                       {"used", number(t.core_hours_used)},
                       {"wasted", number(t.core_hours_wasted)}};
  out["cpu_efficiency"] = number(t.cpu_efficiency_percent);
  out["memory_gb_hours"] = {{"requested", number(t.memory_gb_hours_requested)},
                            {"used", number(t.memory_gb_hours_used)}};
  out["gpu_hours"] = {{"allocated", number(t.gpu_hours_allocated)}, {"idle", number(t.gpu_hours_idle)}};
  out["findings"] = std::move(findings);
}

json::object worst_job(const model::WastefulJob& job) {
  return {
      {"jobid", job.job_id},
      {"display_id", job.display_id},
      {"name", job.name},
      {"user", job.user},
      {"account", job.account},
      {"partition", job.partition},
      {"end", text::iso8601_utc(job.end)},
      {"core_hours_allocated", number(job.core_hours_allocated)},
      {"core_hours_wasted", number(job.core_hours_wasted)},
      {"cpu_efficiency", number(job.cpu_efficiency_percent)},
  };
}

json::object document(const model::FleetEfficiency& e) {
  json::object doc{
      {"by", model::grouping_name(e.by)},
      {"since", text::iso8601_utc(e.since)},
      {"until", text::iso8601_utc(e.until)},
  };
  if (e.user) doc["user"] = *e.user;
  if (!e.accounts.empty()) {
    json::array accounts;
    for (const std::string& account : e.accounts) accounts.push_back(json::value(account));
    doc["accounts"] = std::move(accounts);
  }
  doc["point_seconds"] = e.point_seconds;
  json::object total;
  totals(total, e.total);
  doc["total"] = std::move(total);
  json::array groups;
  for (const model::EfficiencyGroup& g : e.groups) {
    json::object group{{"name", g.name}};
    totals(group, g.totals);
    groups.push_back(std::move(group));
  }
  doc["groups"] = std::move(groups);
  json::array worst;
  for (const model::WastefulJob& job : e.worst_jobs) worst.push_back(worst_job(job));
  doc["worst_jobs"] = std::move(worst);
  json::array over_time;
  for (const model::EfficiencyPoint& p : e.over_time) {
    json::object point{{"start", text::iso8601_utc(p.start)}};
    totals(point, p.totals);
    over_time.push_back(std::move(point));
  }
  doc["over_time"] = std::move(over_time);
  return doc;
}

}  // namespace

std::string efficiency_json(const model::FleetEfficiency& efficiency) {
  return json_text(document(efficiency), JsonLayout::Pretty) + "\n";
}

}  // namespace petricore::render
