// The job archive's record of a finished job's report (model/archived_job.hpp):
// its accounting facts, the figures the fleet view sums, its findings, the
// job JSON as rendered (the caller renders it: the renderers are a room
// above), and its series cut for charts: each to at most
// kArchiveSeriesPoints with every stretch's lowest and highest sample kept,
// the per-core CPU times to their final values (their pie needs no more),
// then encoded (model/series_codec.hpp).
#pragma once

#include "model/archived_job.hpp"
#include "model/job_report.hpp"

#include <cstddef>
#include <cstdint>
#include <string>

namespace petricore::analysis {

inline constexpr std::size_t kArchiveSeriesPoints = 300;

model::ArchivedJob archive_record(const model::JobReport& report, std::string usage_json, std::int64_t archived_at);

}  // namespace petricore::analysis
