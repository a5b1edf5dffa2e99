// One job's analysis from its sources: the accounting record, then its jobs_*
// series in as few Prometheus requests as possible (one range query over all
// jobs_* series of the job, one for another exporter's GPU utilisation when
// it has GPUs but no jobs_gpu_utilization_percent of petricore's own), then
// the aggregates and the findings. serve and report both call this.
#pragma once

#include "core/result.hpp"
#include "model/job_id.hpp"
#include "model/job_record.hpp"
#include "model/job_report.hpp"
#include "model/rule_thresholds.hpp"

#include <optional>
#include <string>
#include <vector>

namespace petricore::sources {
class AccountingSource;
class SeriesSource;
}  // namespace petricore::sources

namespace petricore::analysis {

struct AnalyzerOptions {
  model::RuleThresholds thresholds;
  // The smallest range-query step ([prometheus] step): the collectors'
  // interval, since a finer step only repeats samples. Jobs longer than
  // 10,000 steps get a coarser one.
  double min_step_seconds = 15;
  // How far past a job's end the range query reads ([prometheus] after_end),
  // to catch the final sample the collector publishes when it sees the job
  // end, scraped up to one scrape interval later. Negative: the default,
  // 2 x min_step_seconds and at least 30 s.
  double after_end_seconds = -1;
  // Another exporter's GPU utilisation series, read for jobs without
  // petricore's own jobs_gpu_utilization_percent: metric name and the labels
  // that carry the node and the GPU index (the original's nvidia exporter;
  // DCGM also accepted).
  std::string gpu_utilization_metric = "utilization_gpu";
  std::string gpu_instance_label = "instance";
  std::string gpu_index_label = "gpu";
};

// The range-query window of a job: steps end exactly `after_end` seconds
// past its end (not later than `now`, not before the end), or at `now`
// while it runs, and the first lies at or before its start; step is
// min_step, or coarser so that the window has at most 10,000 steps.
struct QueryWindow {
  double start = 0;
  double end = 0;
  double step = 0;
};
QueryWindow query_window(double job_start, std::optional<double> job_end, double now, double min_step,
                         double after_end = 0);

// The after-end stretch `options` asks for (its default resolved).
double after_end_seconds(const AnalyzerOptions& options);

class JobAnalyzer {
 public:
  // Throws StartupError, naming the setting, for a GPU label that is
  // not a Prometheus label name, a step outside 1..3600 s or an after_end
  // above 3600 s.
  // Both sources must outlive the analyzer.
  JobAnalyzer(sources::AccountingSource& accounting, sources::SeriesSource& series, AnalyzerOptions options);
  // Looks the job up, then analyses it. NotFound for an unknown job;
  // Unavailable when a source failed.
  Result<model::JobReport> analyze(const model::JobId& id);
  // Analyses the job whose record the caller already has (no accounting
  // lookup). Unavailable when the series source failed.
  Result<model::JobReport> analyze(const model::JobRecord& job);
  // The analyses of records the caller already has (the archiver's
  // batches), one result each, in order.
  std::vector<Result<model::JobReport>> analyze(const std::vector<model::JobRecord>& jobs);

 private:
  struct Start;  // when the analysis began, and the requests made by then
  Result<model::JobReport> analyze(const model::JobRecord& job, const Start& start, int accounting_requests);

  sources::AccountingSource& accounting_;
  sources::SeriesSource& series_;
  AnalyzerOptions options_;
};

}  // namespace petricore::analysis
