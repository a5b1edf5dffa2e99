// The way back from the job JSON (render::job_json) to a JobReport, so that
// a job the archive keeps beyond Prometheus's retention is drawn again by
// the same renderers: page, charts, PDF and mail.
#pragma once

#include "core/result.hpp"
#include "model/job_record.hpp"
#include "model/job_report.hpp"
#include "model/rule_thresholds.hpp"
#include "model/series.hpp"

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace petricore::render {

// The report a job JSON document (render::job_json's) describes, for drawing an archived job again:
// identity and allocation from `record` (the archive's columns: more than the JSON has), the usage
// figures, findings (whole: message, advice, value, threshold, unit), warning and the cpu threshold
// from the JSON, `series` as usage.series (the entry "gpu_utilization", another exporter's GPU
// series, goes to usage.gpu_utilization_series), `thresholds` for what the JSON does not carry.
// BadInput naming the key for a document that is not a job JSON.
//
// job_json of the result equals `json` for every document job_json wrote,
// given the record and series of its report: the figures come back as the
// JSON rounded them (2 decimals, 4 for fractions), the ratios as summarize()
// computes them from those figures (memory_fraction as the JSON has it).
// Keys it does not know (e.g. "source": "archive") are ignored. The result
// is settled: an archived job changes no more.
Result<model::JobReport> report_from_job_json(std::string_view json, model::JobRecord record,
                                              std::map<std::string, std::vector<model::Series>> series,
                                              model::RuleThresholds thresholds);

}  // namespace petricore::render
