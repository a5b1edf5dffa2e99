#include "archive/archiver.hpp"

#include "analysis/archive_record.hpp"
#include "core/log.hpp"
#include "core/number_text.hpp"
#include "core/time_text.hpp"
#include "model/job_id.hpp"
#include "sources/accounting.hpp"

#include <algorithm>
#include <chrono>
#include <set>
#include <utility>

namespace petricore::archive {
Archiver::Archiver(sources::AccountingSource& accounting, Analyze analyze, RenderJson render_json,
                   ArchiverOptions options, Clock clock)
    : accounting_(accounting),
      analyze_(std::move(analyze)),
      render_json_(std::move(render_json)),
      options_(options),
      clock_(clock ? std::move(clock) : Clock(epoch_seconds)) {
  options_.batch = std::max<std::size_t>(options_.batch, 1);
}

ArchiveRun Archiver::archive_window(sources::JobArchive& archive, std::int64_t since, std::int64_t until,
                                    const std::function<bool()>& stop,
                                    const std::function<void(const ArchiveCounts&)>& progress) {
  ArchiveRun run;
  run.done_until = since;
  std::int64_t from = since;
  std::size_t limit = options_.batch;
  // The jobs of this run that ended at `from`: the next batch lists them
  // again (it starts at their end), and they are not counted twice.
  std::set<std::int64_t> handled_at_from;

  while (from < until) {
    if (stop && stop()) return run;
    auto listed = accounting_.jobs_ended(from, until, limit);
    if (!listed) {
      run.error = listed.error();
      return run;
    }
    const std::vector<model::JobRecord>& jobs = *listed;
    const bool full = jobs.size() >= limit;
    if (full && jobs.front().end == jobs.back().end && limit < (std::size_t{1} << 20)) {
      // More jobs ended in that one second than a batch holds: ask for more
      // at once, or the next batch would list the same jobs again.
      limit *= 2;
      continue;
    }

    // Those to analyse: numeric ids the archive does not have yet.
    std::vector<model::JobRecord> fresh;
    for (const model::JobRecord& job : jobs) {
      const std::optional<std::int64_t> id = job.numeric_raw_id();
      if (id && job.end == from && handled_at_from.count(*id) > 0) continue;
      ++run.counts.listed;
      if (!id || !job.end) {
        ++run.counts.skipped;
        log::warning("archive: job " + job.job_id + " skipped: the accounting source gave no numeric job id or end");
        continue;
      }
      auto has = archive.has(*id);
      if (!has) {
        run.error = has.error();
        run.done_until = *job.end;
        return run;
      }
      if (*has) {
        ++run.counts.already;
        continue;
      }
      if (accounting_.lists_whole_records()) {
        fresh.push_back(job);
      } else {
        // A listing that knows a job only in part (jobs_info): the whole
        // record, as job() gives it, is what the analysis must read.
        auto parsed = model::parse_job_id(job.job_id);
        auto whole = parsed ? accounting_.job(*parsed) : Result<model::JobRecord>(not_found("no job id"));
        if (!whole) {
          if (whole.error().kind == Error::Kind::Unavailable) {
            run.error = whole.error();
            run.done_until = *job.end;
            return run;
          }
          ++run.counts.skipped;
          log::warning("archive: job " + job.job_id + " skipped: " + whole.error().message);
          continue;
        }
        if (!whole->finished()) {
          // jobs_info lists a series that paused as if its job had ended;
          // the whole record says it runs: not archived (yet).
          ++run.counts.skipped;
          log::debug("archive: job " + job.job_id + " skipped: it has not ended");
          continue;
        }
        fresh.push_back(std::move(*whole));
      }
    }

    std::vector<Result<model::JobReport>> reports =
        fresh.empty() ? std::vector<Result<model::JobReport>>{} : analyze_(fresh);
    for (std::size_t i = 0; i < fresh.size(); ++i) {
      const model::JobRecord& job = fresh[i];
      if (i >= reports.size()) {
        run.error = unavailable("archive: the analysis gave no result for job " + job.job_id);
        run.done_until = *job.end;
        return run;
      }
      Result<model::JobReport>& report = reports[i];
      if (!report) {
        if (report.error().kind == Error::Kind::Unavailable) {
          // Prometheus is down or slow: stop here and try again later.
          run.error = report.error();
          run.done_until = *job.end;
          return run;
        }
        ++run.counts.skipped;
        log::warning("archive: job " + job.job_id + " skipped: " + report.error().message);
        continue;
      }
      model::ArchivedJob record = analysis::archive_record(*report, render_json_(*report), clock_());
      auto stored = archive.store_first(record);
      if (!stored) {
        run.error = stored.error();
        run.done_until = *job.end;
        return run;
      }
      if (*stored == 0) {  // another archiver (serve instance) was first
        ++run.counts.already;
        continue;
      }
      ++run.counts.archived;
      if (!record.from_metrics) ++run.counts.from_accounting;
    }

    if (progress) progress(run.counts);
    if (!full) {
      run.done_until = until;
      return run;
    }
    const std::int64_t last_end = *jobs.back().end;
    if (last_end != from) handled_at_from.clear();
    for (const model::JobRecord& job : jobs) {
      const std::optional<std::int64_t> id = job.numeric_raw_id();
      if (id && job.end == last_end) handled_at_from.insert(*id);
    }
    from = last_end;
    run.done_until = last_end;
    limit = options_.batch;
  }
  run.done_until = std::max(run.done_until, until);
  return run;
}

ArchiveRun Archiver::catch_up(sources::JobArchive& archive, const std::function<bool()>& stop) {
  const std::int64_t now = clock_();
  ArchiveRun run;
  auto setting = archive.setting(kWatermark);
  if (!setting) {
    run.error = setting.error();
    return run;
  }
  std::int64_t watermark = now - options_.backfill_seconds;
  if (*setting) {
    if (auto saved = parse_whole_number(**setting)) {
      watermark = *saved;
    } else {
      log::warning("archive: the watermark '" + **setting + "' is not a time; starting from " +
                   std::to_string(watermark));
    }
  }
  const std::int64_t until = now - options_.settle_seconds;
  run = archive_window(archive, watermark - options_.lookback_seconds, until, stop);
  if (run.done_until > watermark) {
    auto saved = archive.set_setting(kWatermark, std::to_string(run.done_until));
    if (!saved && !run.error) run.error = saved.error();
  }
  return run;
}

}  // namespace petricore::archive
