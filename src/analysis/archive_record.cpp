#include "analysis/archive_record.hpp"

#include "model/series_codec.hpp"

#include <utility>

namespace petricore::analysis {
namespace {

// The other exporter's GPU utilisation, kept beside the jobs_* series under
// the name the charts give it (render/job_charts.hpp's kGpuUtilization).
constexpr const char* kExternalGpuUtilization = "gpu_utilization";

}  // namespace

model::ArchivedJob archive_record(const model::JobReport& report, std::string usage_json, std::int64_t archived_at) {
  const model::JobUsage& usage = report.usage;
  model::ArchivedJob a;
  a.job = usage.job;
  a.archived_at = archived_at;
  a.from_metrics = !usage.no_metrics();
  a.cpu_time_seconds = usage.cpu_time_total;
  a.memory_resident_mb = usage.memory_resident_mb;
  a.gpu_utilization_mean = usage.gpu_utilization_mean;
  for (const model::Finding& f : report.findings) a.findings.emplace_back(f.rule, model::severity_name(f.severity));
  a.warning = report.warning;
  a.usage_json = std::move(usage_json);

  std::map<std::string, std::vector<model::Series>> series = usage.series;
  if (!usage.gpu_utilization_series.empty()) series[kExternalGpuUtilization] = usage.gpu_utilization_series;
  for (auto& [name, of_metric] : series) {
    for (model::Series& s : of_metric) {
      if (name == "jobs_cpu_time_core") {
        if (s.samples.size() > 1) s.samples.erase(s.samples.begin(), s.samples.end() - 1);
      } else {
        model::downsample(s.samples, kArchiveSeriesPoints);
      }
    }
  }
  if (!series.empty()) a.series = model::encode_series(series);
  return a;
}

}  // namespace petricore::analysis
