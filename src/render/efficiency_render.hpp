// The faces of the fleet view (model/fleet_efficiency.hpp): the JSON of
// /api/v1/efficiency, the /efficiency page, the terminal report of
// `report --user/--account`, a user's periodic digest (mail text and a small
// PDF). Pure functions: they read the value and return text or bytes.
//
// Every face writes numbers as the job's faces do (text_format.hpp): an
// unknown CPU efficiency is null in the JSON and "unknown" in text, and no
// face divides by zero: a share whose whole is 0 is unknown, never NaN.
#pragma once

#include "model/fleet_efficiency.hpp"
#include "render/chart.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace petricore::render {

// The JSON document (pretty, ends in a newline). Keys, in this order:
//   by           "user" | "account" | "partition"
//   since, until ISO 8601 UTC ("2026-11-01T00:00:00Z"): jobs that ended in [since, until)
//   user         only when the view is one user's: that user
//   accounts     only when the view is limited to accounts: their names
//   point_seconds the stretch each over_time point covers (s)
//   total        totals over every job counted (below)
//   groups       [{name, <totals>}], most core-hours wasted first
//   worst_jobs   [{jobid (number), display_id ("123_4"), name, user, account,
//                  partition, end (ISO 8601), core_hours_allocated,
//                  core_hours_wasted, cpu_efficiency (%, null when unknown)}]
//   over_time    [{start (ISO 8601), <totals>}], oldest first
// where <totals> is
//   jobs, core_hours {allocated, used, wasted},
//   cpu_efficiency (%, null when no job had a known CPU time),
//   memory_gb_hours {requested, used}, gpu_hours {allocated, idle},
//   findings {<rule>: jobs with that finding}
// Amounts are rounded to 2 decimals and written as integers when whole.
std::string efficiency_json(const model::FleetEfficiency& efficiency);

// What the /efficiency page links to and shows in its form.
struct EfficiencyPageLinks {
  std::string base_url;  // "" = relative links ("/jobs/123", "/efficiency")
  // The request's query values as the user gave them (shown again in the
  // form, carried into the JSON link); "" = not given.
  std::string by;
  std::string since;
  std::string until;
};

// The /efficiency page: one self-contained document like the job page (one
// inline <style>, no script, charts as <img> data:image/svg+xml URIs). The
// period and filters, a form (GET <base>/efficiency: by, since, until), the
// totals, one table row per group (jobs, core-hours allocated and used, CPU
// efficiency with a <meter>, wasted core-hours, memory GB-hours requested
// and used, GPU-hours allocated and idle, top findings), the worst jobs
// linking <base>/jobs/<jobid>, and the charts over time (CPU efficiency,
// memory used of requested, and the GPU idle share when GPUs were
// allocated). Every name is escaped. A period without jobs says so in one
// sentence instead of empty tables. Throws std::runtime_error when cairo
// cannot be loaded (as job_page_html does).
std::string efficiency_html(const model::FleetEfficiency& efficiency, const EfficiencyPageLinks& links);

// The terminal report of `report --user U | --account A`: the period, the
// totals, the groups table, the worst jobs and the jobs per finding; `tty`
// adds efficiency bars and colour (piped, not a single escape code).
std::string efficiency_text(const model::FleetEfficiency& efficiency, bool tty);

// A user's periodic digest, plain text in 76 columns: their totals in
// figures and in plain words, the findings of their jobs with one line of
// advice each, their worst jobs with links to <page_url>/jobs/<jobid>, and
// the page <page_url>/efficiency. `efficiency` holds that user's jobs
// (FleetEfficiency::user); worst jobs of anyone else are left out.
std::string digest_mail_text(const model::FleetEfficiency& efficiency, const std::string& user,
                             const std::string& page_url);

// The digest's PDF (A4, one or two pages): the totals, the groups table (at
// most kPdfGroups rows), the worst jobs (at most kPdfWorstJobs) and the CPU
// efficiency over time; "page N of M" footers. Throws std::runtime_error when
// cairo cannot be loaded or fails (as pdf_report does).
constexpr std::size_t kPdfGroups = 25;
constexpr std::size_t kPdfWorstJobs = 10;
std::string efficiency_pdf(const model::FleetEfficiency& efficiency);

// ---- Shared by the faces above (efficiency_words.cpp) ----

// used / requested memory GB-hours in %; nullopt when nothing was requested.
std::optional<double> memory_used_percent(const model::EfficiencyTotals& totals);
// idle / allocated GPU-hours in %; nullopt when no GPU-hour was allocated.
std::optional<double> gpu_idle_percent(const model::EfficiencyTotals& totals);

// The period in words: "2026-11-01 to 2026-12-01" (dates when both ends
// are midnight UTC, ISO 8601 instants otherwise).
std::string efficiency_period(const model::FleetEfficiency& efficiency);
// The filters in words: "user alice", "accounts def-a, def-b", "all jobs".
std::string efficiency_filters(const model::FleetEfficiency& efficiency);

// A rule's finding in a few words for people ("low CPU efficiency"); the
// rule's name for a rule these faces do not know.
std::string finding_title(const std::string& rule);
// One generic line of advice for jobs with that finding; "" for a rule these
// faces do not know. (The rules' own advice, in analysis/rules.cpp, is
// written for one job's figures; render may not use analysis.)
std::string finding_advice(const std::string& rule);
// The `most` findings with the most jobs, most first (ties by rule name).
std::vector<std::pair<std::string, std::int64_t>> top_findings(const model::EfficiencyTotals& totals, std::size_t most);

// The charts over time: one line, one point per stretch, at its middle; a
// stretch without jobs (or without the figure) breaks the line. The x range
// is [since, until], the y axis reaches 100 %.
enum class EfficiencyChart {
  Cpu,      // CPU efficiency (%)
  Memory,   // memory GB-hours used of requested (%)
  GpuIdle,  // GPU-hours idle of allocated (%)
};
LineChart efficiency_chart(const model::FleetEfficiency& efficiency, EfficiencyChart which);

}  // namespace petricore::render
