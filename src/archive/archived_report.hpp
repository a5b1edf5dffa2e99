// An archived job drawn again: its report rebuilt from the record the
// archive kept (render/job_json_read.hpp reads the job JSON back; the series
// are decoded), and its JSON as it was stored, marked "source": "archive" so
// that a reader knows Prometheus no longer had the job. The job page, the
// charts, the PDF and the mail then draw it as they draw a fresh analysis.
#pragma once

#include "core/result.hpp"
#include "model/archived_job.hpp"
#include "model/job_report.hpp"
#include "model/rule_thresholds.hpp"

#include <string>

namespace petricore::archive {

struct ArchivedReport {
  model::JobReport report;
  std::string json;  // the stored job JSON with "source": "archive"
};

// BadInput naming the job for a record whose JSON or series do not decode
// (a damaged row): the caller answers as if the archive had nothing.
Result<ArchivedReport> archived_report(const model::ArchivedJob& job, const model::RuleThresholds& thresholds);

// The job JSON `json` with "source": `source` added (after "warning", last).
// The text unchanged when it is not a JSON object.
std::string with_source(const std::string& json, const std::string& source);

}  // namespace petricore::archive
