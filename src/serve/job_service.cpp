#include "serve/job_service.hpp"

#include "core/log.hpp"
#include "model/sluid.hpp"
#include "sources/accounting.hpp"

#include <utility>

namespace petricore::serve {

int error_status(Error::Kind kind) {
  switch (kind) {
    case Error::Kind::BadInput:
      return 400;
    case Error::Kind::NotFound:
      return 404;
    case Error::Kind::NotFinished:
      return 409;
    case Error::Kind::Forbidden:
      return 403;
    case Error::Kind::Unavailable:
      return 502;
  }
  return 500;
}

HttpResponse error_response(const Error& error) {
  if (error.kind == Error::Kind::Unavailable) log::warning(error.message);
  return json_error(error_status(error.kind), error.message);
}

const char* const kInvalidJobId =
    "invalid job id: expected a Slurm job id such as 123, 123_4 or 123+1, or a SLUID such as s5K1KKYAYG5D00";

HttpResponse refusal_response(const AccessDecision& decision) {
  if (decision.access == Access::Unavailable) log::warning(decision.message);
  return json_error(access_status(decision.access), decision.message);
}

namespace {

HttpResponse not_finished(const std::string& id, const std::string& state) {
  return json_error(409, "job " + id + " has not finished" + (state.empty() ? "" : " (state " + state + ")") +
                             "; its mail exists once it ends");
}

}  // namespace

JobService::JobService(sources::AccountingSource& accounting, Analyze analyze, RenderJson render_json,
                       Authorizer& authorizer, ResultCache& cache, ResolveSluid resolve_sluid, FromArchive from_archive)
    : accounting_(accounting),
      analyze_(std::move(analyze)),
      render_json_(std::move(render_json)),
      authorizer_(authorizer),
      cache_(cache),
      resolve_sluid_(std::move(resolve_sluid)),
      from_archive_(std::move(from_archive)) {}

JobAnswer JobService::load(const HttpRequest& request, const std::string& job_id, bool finished_only) {
  Identity who;
  if (auto decision = authorizer_.identify(request, who); !decision.allowed()) return refusal_response(decision);
  auto id = model::parse_job_id(job_id);
  if (!id) {
    // A SLUID (Slurm 26.05) stands for its numeric job id; the id is then
    // what is cached, authorised and analysed.
    auto sluid = model::parse_sluid(job_id);
    if (!sluid || !resolve_sluid_) return json_error(400, kInvalidJobId);
    auto resolved = resolve_sluid_(*sluid);
    if (!resolved) return error_response(resolved.error());
    id = resolved.value();
  }
  const std::string key = id->text();

  if (CachedReportPtr hit = cache_.find(key)) {
    if (auto decision = authorizer_.may_read_job(who, hit->report.usage.job.user, hit->report.usage.job.account);
        !decision.allowed()) {
      return refusal_response(decision);
    }
    if (finished_only && !hit->finished()) return not_finished(key, hit->report.usage.job.state);
    return hit;
  }

  // The accounting record first: who owns the job and whether it ended are
  // known before any Prometheus query is spent on it, and the analysis
  // reads the same record instead of looking the job up again.
  auto record = accounting_.job(*id);
  if (!record) {
    // Purged from accounting, or accounting down: the archive may know it.
    if (record.error().kind == Error::Kind::NotFound || record.error().kind == Error::Kind::Unavailable) {
      if (std::optional<CachedReportPtr> kept = archived(*id)) {
        if (auto decision =
                authorizer_.may_read_job(who, (*kept)->report.usage.job.user, (*kept)->report.usage.job.account);
            !decision.allowed()) {
          return refusal_response(decision);
        }
        cache_.put(key, *kept);
        return *kept;
      }
    }
    return error_response(record.error());
  }
  if (auto decision = authorizer_.may_read_job(who, record->user, record->account); !decision.allowed()) {
    return refusal_response(decision);
  }
  if (finished_only && !record->finished()) return not_finished(key, record->state);
  auto entry = cache_.get_or_compute(key, [&] { return analyse(*record); });
  if (!entry) return error_response(entry.error());
  // A concurrent request's analysis may have answered for this one.
  if (finished_only && !entry.value()->finished()) return not_finished(key, entry.value()->report.usage.job.state);
  return entry.value();
}

CachedReportPtr JobService::cached(const model::JobId& id) {
  return cache_.find(id.text());
}

Result<CachedReportPtr> JobService::analysed(const model::JobId& id) {
  return cache_.get_or_compute(id.text(), [&]() -> Result<CachedReportPtr> {
    auto record = accounting_.job(id);
    if (!record) return record.error();
    return analyse(*record);
  });
}

Result<CachedReportPtr> JobService::analysed(const model::JobRecord& record) {
  auto id = model::parse_job_id(record.job_id);
  if (!id) return bad_input("not a Slurm job id: '" + record.job_id + "'");
  return cache_.get_or_compute(id->text(), [&] { return analyse(record); });
}

Result<CachedReportPtr> JobService::analyse(const model::JobRecord& record) {
  auto report = analyze_(record);
  const bool nothing = !report || report->usage.no_metrics();
  if (nothing && record.finished() && from_archive_) {
    if (const std::optional<std::int64_t> raw_id = record.numeric_raw_id()) {
      auto kept = from_archive_(*raw_id);
      if (!kept) log::warning("job " + record.job_id + ": " + kept.error().message);
      // The archive's record when it has samples, or when Prometheus failed.
      if (kept && *kept && (!report || !(**kept)->report.usage.no_metrics())) return **kept;
    }
  }
  if (!report) return report.error();
  return ResultCache::make_entry(std::move(report.value()), render_json_);
}

std::optional<CachedReportPtr> JobService::archived(const model::JobId& id) {
  if (!from_archive_ || id.array_task || id.het_component) return std::nullopt;
  auto kept = from_archive_(id.job);
  if (!kept) {
    log::warning("job " + id.text() + ": " + kept.error().message);
    return std::nullopt;
  }
  return *kept;
}

}  // namespace petricore::serve
