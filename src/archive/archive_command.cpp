#include "archive/archive_command.hpp"

#include "analysis/analysis_stack.hpp"
#include "archive/archiver.hpp"
#include "core/startup_error.hpp"
#include "core/time_text.hpp"
#include "render/job_render.hpp"

#include <chrono>
#include <cstdio>

namespace petricore::archive {
namespace {

constexpr int kExitFailure = 1;
constexpr int kExitUsage = 2;

std::string counts_line(const ArchiveCounts& c) {
  return std::to_string(c.archived) + " jobs archived (" + std::to_string(c.from_accounting) +
         " from accounting alone), " + std::to_string(c.already) + " archived before, " + std::to_string(c.skipped) +
         " skipped";
}

}  // namespace

int run_archive(const ArchiveCommandOptions& options) {
  sources::ArchiveConnector connector(options.settings.store);
  if (!connector.enabled()) throw StartupError("[archive] store is none: there is no archive to fill");
  const std::int64_t now = epoch_seconds();
  std::optional<std::int64_t> since;
  if (!options.since.empty()) since = time_point_option("--since", options.since, now);
  // Without --since a pass runs from the watermark to now, as serve's does:
  // an end of its own would leave the watermark short of it.
  if (!since && !options.until.empty()) throw StartupError("--until needs --since (a backfill window)");

  analysis::AnalysisStack stack(options.analysis, analysis::AnalysisStack::WithDirectory::No);
  ArchiverOptions archiver_options;
  archiver_options.batch = options.settings.batch;
  archiver_options.lookback_seconds = options.settings.lookback_seconds;
  archiver_options.backfill_seconds = options.settings.backfill_seconds;
  archiver_options.settle_seconds =
      static_cast<std::int64_t>(analysis::after_end_seconds(options.analysis.analyzer)) + 1;
  std::int64_t until = now - archiver_options.settle_seconds;
  if (!options.until.empty()) until = std::min(until, time_point_option("--until", options.until, now));
  if (since && *since >= until) {
    std::fprintf(stderr, "petricore: --since must be before --until (and before jobs still settling)\n");
    return kExitUsage;
  }

  auto db = connector.connect();
  if (!db) {
    std::fprintf(stderr, "petricore: %s\n", db.error().message.c_str());
    return db.error().kind == Error::Kind::BadInput ? kExitUsage : kExitFailure;
  }
  sources::JobArchive archive(**db, connector.cluster());
  Archiver archiver(
      *stack.accounting, [&stack](const std::vector<model::JobRecord>& jobs) { return stack.analyzer.analyze(jobs); },
      [](const model::JobReport& report) { return render::job_json(report); }, archiver_options);

  auto progress = [&options](const ArchiveCounts& counts) {
    if (!options.quiet) std::fprintf(stderr, "petricore: %s so far\n", counts_line(counts).c_str());
  };
  ArchiveRun run = since ? archiver.archive_window(archive, *since, until, {}, progress) : archiver.catch_up(archive);
  std::printf("%s into %s (cluster %s)\n", counts_line(run.counts).c_str(), connector.describe().c_str(),
              connector.cluster().c_str());
  if (run.error) {
    std::fprintf(stderr, "petricore: %s\n", run.error->message.c_str());
    return run.error->kind == Error::Kind::BadInput ? kExitUsage : kExitFailure;
  }
  return 0;
}

}  // namespace petricore::archive
