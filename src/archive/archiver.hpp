// Fills the job archive (sources/job_archive.hpp): asks the accounting source
// for the jobs that ended in a window, analyses those the archive does not
// have yet, batch by batch, and stores each one's record. Serve's archiver
// thread runs catch_up() every interval; `petricore archive --since` runs
// archive_window() once.
//
// Idempotent: a job the archive has is never analysed or stored again (a
// re-analysis is a deliberate new version, not the archiver's business), so
// a pass interrupted anywhere is simply run again. A job whose samples are
// gone from Prometheus is stored from accounting alone (from_metrics false).
#pragma once

#include "core/result.hpp"
#include "model/job_record.hpp"
#include "model/job_report.hpp"
#include "sources/job_archive.hpp"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace petricore::sources {
class AccountingSource;
}  // namespace petricore::sources

namespace petricore::archive {

struct ArchiverOptions {
  std::size_t batch = 100;  // jobs asked of accounting, analysed and stored at a time
  // A job is archived once it ended this long ago, so that its final
  // samples are in Prometheus (at least the analysis's after-end stretch).
  std::int64_t settle_seconds = 60;
  // Each catch_up looks this far behind its watermark again, for jobs that
  // accounting recorded late (slurmdbd down for a while); the archive's
  // "has it" answers skip the ones done.
  std::int64_t lookback_seconds = 3600;
  // Where a new archive's watermark starts, before its first catch_up:
  // this long before now. Older jobs: `petricore archive --since`.
  std::int64_t backfill_seconds = 86400;
};

struct ArchiveCounts {
  std::size_t listed = 0;           // ended jobs accounting listed
  std::size_t archived = 0;         // analysed and stored now
  std::size_t from_accounting = 0;  // of those, stored from accounting alone (no samples left)
  std::size_t already = 0;          // in the archive before
  std::size_t skipped = 0;          // not archivable: no numeric job id, or an analysis that refused the record
};

// What a run did, and why it stopped early when it did (a source or the
// store failed): what was stored stays stored.
struct ArchiveRun {
  ArchiveCounts counts;
  std::optional<Error> error;
  // Every job that ended before this instant is in the archive (or was
  // skipped): where the next run may start.
  std::int64_t done_until = 0;
};

class Archiver {
 public:
  // The analyses of a batch of records, one result each, in order
  // (JobAnalyzer in production, which may share range queries).
  using Analyze = std::function<std::vector<Result<model::JobReport>>(const std::vector<model::JobRecord>&)>;
  // render::job_json in production.
  using RenderJson = std::function<std::string(const model::JobReport&)>;
  using Clock = std::function<std::int64_t()>;  // epoch seconds

  // The references must outlive the archiver.
  Archiver(sources::AccountingSource& accounting, Analyze analyze, RenderJson render_json, ArchiverOptions options,
           Clock clock = {});

  // Archives the jobs that ended in [since, until) and are not in
  // `archive`. `stop` (optional) is asked between batches; `progress`
  // (optional) hears the counts after each batch.
  ArchiveRun archive_window(sources::JobArchive& archive, std::int64_t since, std::int64_t until,
                            const std::function<bool()>& stop = {},
                            const std::function<void(const ArchiveCounts&)>& progress = {});

  // One pass of serve's archiver: from the archive's watermark (less the
  // lookback) to now less the settle time; then the watermark moves to
  // where the run got. A new archive starts backfill_seconds ago.
  ArchiveRun catch_up(sources::JobArchive& archive, const std::function<bool()>& stop = {});

  // The name of the watermark setting in the archive.
  static constexpr const char* kWatermark = "archiver_watermark";

 private:
  sources::AccountingSource& accounting_;
  Analyze analyze_;
  RenderJson render_json_;
  ArchiverOptions options_;
  Clock clock_;
};

}  // namespace petricore::archive
