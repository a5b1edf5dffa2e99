#include "archive/archived_report.hpp"

#include "model/series_codec.hpp"
#include "render/job_json_read.hpp"
#include "render/json_writer.hpp"

#include <boost/json.hpp>

namespace petricore::archive {

std::string with_source(const std::string& json, const std::string& source) {
  boost::system::error_code error;
  boost::json::value doc = boost::json::parse(json, error);
  if (error || !doc.is_object()) return json;
  doc.as_object()["source"] = source;
  return render::json_text(doc, render::JsonLayout::Pretty) + "\n";
}

Result<ArchivedReport> archived_report(const model::ArchivedJob& job, const model::RuleThresholds& thresholds) {
  std::map<std::string, std::vector<model::Series>> series;
  if (!job.series.empty()) {
    auto decoded = model::decode_series(job.series);
    if (!decoded) return bad_input("the archive's series of job " + job.job.job_id + " do not decode");
    series = std::move(*decoded);
  }
  auto report = render::report_from_job_json(job.usage_json, job.job, std::move(series), thresholds);
  if (!report) return bad_input("the archive's record of job " + job.job.job_id + ": " + report.error().message);
  ArchivedReport out;
  out.report = std::move(*report);
  out.report.settled = true;
  out.json = with_source(job.usage_json, "archive");
  return out;
}

}  // namespace petricore::archive
