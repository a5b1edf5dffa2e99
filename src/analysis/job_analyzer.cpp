#include "analysis/job_analyzer.hpp"

#include "analysis/rules.hpp"
#include "analysis/usage_summary.hpp"

#include "core/log.hpp"
#include "core/startup_error.hpp"
#include "sources/accounting.hpp"
#include "sources/promql.hpp"
#include "sources/series_source.hpp"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <set>
#include <sstream>
#include <stdexcept>
#include <utility>

// Requests per job: the accounting source's (none for sacct and the DB view,
// two for Prometheus's jobs_info), one range query for every jobs_* series
// of the job, and one more for another exporter's GPU utilisation only when
// the job had GPUs and petricore's own jobs_gpu_utilization_percent is
// missing (nodes whose collector has no GPU library, older collectors).

namespace petricore::analysis {

using model::has_warning;
using model::JobId;
using model::JobRecord;
using model::JobReport;
using model::Series;
using model::short_node_name;
namespace {

// The API refuses more than 11,000 points per series; 10,000 steps leave a
// margin for the alignment below.
constexpr double kMaxSteps = 10000;

double now_seconds() {
  using namespace std::chrono;
  return duration<double>(system_clock::now().time_since_epoch()).count();
}

bool valid_label_name(const std::string& name) {
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) return false;
  return std::all_of(name.begin(), name.end(),
                     [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

// A literal for an RE2 alternative: every punctuation character escaped.
std::string regex_literal(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && !(static_cast<unsigned char>(c) & 0x80))
      out += '\\';
    out += c;
  }
  return out;
}

template <typename Strings>
std::string alternatives(const Strings& values) {
  std::string out;
  for (const std::string& v : values) out += (out.empty() ? "" : "|") + regex_literal(v);
  return out;
}

}  // namespace

// Steps end `after_end` past the job's end: the collector publishes a job's
// final readings when it sees the job end (within a second) and keeps them
// exported a while, so they are scraped at or shortly after the end.
// summarize() keeps one sample per series from past the end: the final one.
QueryWindow query_window(double job_start, std::optional<double> job_end, double now, double min_step,
                         double after_end) {
  QueryWindow w;
  w.end = job_end ? std::max(*job_end, std::min(*job_end + after_end, now)) : now;
  const double begin = std::min(job_start, job_end ? *job_end : w.end);
  w.step = std::max(min_step, std::ceil((w.end - begin) / kMaxSteps));
  w.start = w.end - std::ceil((w.end - begin) / w.step) * w.step;
  return w;
}

double after_end_seconds(const AnalyzerOptions& options) {
  if (options.after_end_seconds >= 0) return options.after_end_seconds;
  return std::max(30.0, 2 * options.min_step_seconds);
}

namespace {

// The job's GPUs by node, from its jobs_gpus_used series.
std::map<std::string, std::set<std::string>> gpus_of(const std::vector<Series>& gpus_used) {
  std::map<std::string, std::set<std::string>> out;
  for (const Series& s : gpus_used) {
    if (!s.label("gpuid").empty()) out[short_node_name(s.label("instance"))].insert(s.label("gpuid"));
  }
  return out;
}

// The utilisation series of the job's GPUs over the job's window: one query
// for the nodes' GPUs, then only the (node, GPU index) pairs the job held,
// with `instance` and `gpu` set to the short node name and the index so the
// series read like the collector's. nullopt when no series matched: then
// nothing is known about the GPUs' use.
Result<std::optional<std::vector<Series>>> gpu_series(sources::SeriesSource& source, const AnalyzerOptions& options,
                                                      const std::map<std::string, std::set<std::string>>& gpus,
                                                      const QueryWindow& w) {
  const std::string& instance_label = options.gpu_instance_label;
  const std::string& index_label = options.gpu_index_label;
  if (gpus.empty()) return std::optional<std::vector<Series>>();
  std::set<std::string> nodes;
  std::set<std::string> indexes;
  for (const auto& [node, ids] : gpus) {
    nodes.insert(node);
    indexes.insert(ids.begin(), ids.end());
  }
  // The exporter's instance may carry a port and a domain: "gpu1.x:9445".
  const std::string query = "{__name__=" + sources::promql_string(options.gpu_utilization_metric) + "," +
                            instance_label + "=~" + sources::promql_string("(" + alternatives(nodes) + ")([.:].*)?") +
                            "," + index_label + "=~" + sources::promql_string(alternatives(indexes)) + "}";
  auto found = source.query_range(query, w.start, w.end, w.step);
  if (!found) return found.error();
  std::vector<Series> kept;
  for (Series& s : *found) {
    const std::string node = short_node_name(s.label(instance_label));
    const std::string index = s.label(index_label);
    auto held = gpus.find(node);
    if (held == gpus.end() || held->second.count(index) == 0) continue;
    s.labels["instance"] = node;
    s.labels["gpu"] = index;
    kept.push_back(std::move(s));
  }
  if (kept.empty()) return std::optional<std::vector<Series>>();
  return std::optional<std::vector<Series>>(std::move(kept));
}

}  // namespace

JobAnalyzer::JobAnalyzer(sources::AccountingSource& accounting, sources::SeriesSource& series, AnalyzerOptions options)
    : accounting_(accounting), series_(series), options_(std::move(options)) {
  // Checked here, at start-up, so that serve refuses to start rather than
  // fail every GPU job's request.
  for (const std::string* label : {&options_.gpu_instance_label, &options_.gpu_index_label}) {
    if (!valid_label_name(*label))
      throw StartupError("[rules] GPU label '" + *label + "' is not a Prometheus label name");
  }
  if (!(options_.min_step_seconds >= 1 && options_.min_step_seconds <= 3600)) {
    std::ostringstream given;
    given << options_.min_step_seconds;
    throw StartupError("[prometheus] step must be between 1 and 3600 seconds, not " + given.str());
  }
  if (!(options_.after_end_seconds <= 3600) || std::isnan(options_.after_end_seconds)) {
    std::ostringstream given;
    given << options_.after_end_seconds;
    throw StartupError("[prometheus] after_end must be between 0 and 3600 seconds, not " + given.str());
  }
}

struct JobAnalyzer::Start {
  std::chrono::steady_clock::time_point time;
  int requests = 0;
};

Result<JobReport> JobAnalyzer::analyze(const JobId& id) {
  // The debug line counts the lookup too: the Prometheus accounting source
  // queries the same store.
  const Start start{std::chrono::steady_clock::now(), series_.requests()};
  Result<JobRecord> record = accounting_.job(id);
  if (!record) return record.error();
  return analyze(record.value(), start, series_.requests() - start.requests);
}

Result<JobReport> JobAnalyzer::analyze(const JobRecord& job) {
  return analyze(job, Start{std::chrono::steady_clock::now(), series_.requests()}, 0);
}

// One range query each: a query shared by jobs whose windows differ would
// sample each job on another grid than its own query does, and the archive
// keeps what /api/v1/jobs/<id>/usage showed.
std::vector<Result<JobReport>> JobAnalyzer::analyze(const std::vector<JobRecord>& jobs) {
  std::vector<Result<JobReport>> reports;
  reports.reserve(jobs.size());
  for (const JobRecord& job : jobs) reports.push_back(analyze(job));
  return reports;
}

Result<JobReport> JobAnalyzer::analyze(const JobRecord& job, const Start& start, int accounting_requests) {
  std::map<std::string, std::vector<Series>> by_metric;
  std::optional<std::vector<Series>> gpu_utilization;
  if (job.raw_id.empty()) {
    // slurm_job="" would select every jobs_* series without the label.
    return unavailable("accounting source " + accounting_.name() + " gave no numeric job id for job " + job.job_id);
  }
  const double now = now_seconds();
  const double after_end = after_end_seconds(options_);
  if (job.start) {  // a pending job has no series yet
    const QueryWindow w = query_window(static_cast<double>(*job.start),
                                       job.end ? std::optional<double>(static_cast<double>(*job.end)) : std::nullopt,
                                       now, options_.min_step_seconds, after_end);
    const std::string job_match = "slurm_job=" + sources::promql_string(job.raw_id);
    auto all = series_.query_range("{__name__=~\"jobs_.+\"," + job_match + "}", w.start, w.end, w.step);
    if (!all) return all.error();
    for (Series& s : *all) {
      std::string name = s.label("__name__");
      if (!name.empty()) by_metric[name].push_back(std::move(s));
    }

    auto gpus = by_metric.find("jobs_gpus_used");
    if (gpus != by_metric.end() && by_metric.count("jobs_gpu_utilization_percent") == 0) {
      auto utilization = gpu_series(series_, options_, gpus_of(gpus->second), w);
      if (!utilization) return utilization.error();
      gpu_utilization = std::move(utilization.value());
    }
  }

  JobReport report;
  report.settled = job.end && now >= static_cast<double>(*job.end) + after_end;
  report.usage = summarize(job, std::move(by_metric), std::move(gpu_utilization));
  report.thresholds = options_.thresholds;
  report.findings = evaluate_rules(report.usage, options_.thresholds);
  report.warning = has_warning(report.findings);

  if (log::level() <= log::Level::Debug) {
    std::size_t series = 0;
    for (const auto& [name, of_name] : report.usage.series) series += of_name.size();
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start.time).count();
    // Under serve the source is shared, so this difference may include other
    // threads' requests; it is exact for one `report`.
    char line[256];
    std::snprintf(line, sizeof line,
                  "job %s analysed in %.1f ms: %d Prometheus requests (%d for accounting), %zu series",
                  job.job_id.c_str(), ms, series_.requests() - start.requests, accounting_requests, series);
    log::debug(line);
  }
  return report;
}

}  // namespace petricore::analysis
