// One job's way through serve, always in this order: the result cache, else
// the accounting record, the caller's authorisation against the job's owner,
// the analysis of that same record and its JSON (kept in the cache). A cache
// miss costs one accounting lookup; a job the caller may not read, or one
// that has not finished where a finished one is needed, costs no Prometheus
// query. Every refusal is the JSON error the handler answers with.
//
// With a job archive, a finished job is answered from it when Prometheus no
// longer has its samples (or fails), and when accounting no longer knows the
// job (purged) or fails: the archived record then says who owns it.
#pragma once

#include "core/result.hpp"
#include "model/job_id.hpp"
#include "model/job_record.hpp"
#include "model/job_report.hpp"
#include "serve/auth.hpp"
#include "serve/http_types.hpp"
#include "serve/result_cache.hpp"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>

namespace petricore::sources {
class AccountingSource;
}  // namespace petricore::sources

namespace petricore::serve {

// The HTTP status of an Error kind (BadInput 400, NotFound 404,
// NotFinished 409, Forbidden 403, Unavailable 502).
int error_status(Error::Kind kind);
// The JSON error of a failed source or bad input; an Unavailable one is
// logged as a warning (the server's problem, not the caller's).
HttpResponse error_response(const Error& error);
// The 400 message of a path or form value that is neither a job id nor a SLUID.
extern const char* const kInvalidJobId;
// The JSON error of an authorisation that did not allow (401/403/502).
HttpResponse refusal_response(const AccessDecision& decision);

// An analysed job, or the response that refuses it.
class JobAnswer {
 public:
  JobAnswer(CachedReportPtr job) : job_(std::move(job)) {}           // NOLINT: implicit by design
  JobAnswer(HttpResponse refusal) : refusal_(std::move(refusal)) {}  // NOLINT

  explicit operator bool() const { return job_ != nullptr; }
  const CachedReport& operator*() const { return *job_; }
  const CachedReport* operator->() const { return job_.get(); }
  // Only when !*this.
  HttpResponse take_refusal() { return std::move(*refusal_); }

 private:
  CachedReportPtr job_;
  std::optional<HttpResponse> refusal_;
};

class JobService {
 public:
  // JobAnalyzer::analyze(record) in production.
  using Analyze = std::function<Result<model::JobReport>(const model::JobRecord&)>;
  // render::job_json in production: rendered once per analysis, kept with it.
  using RenderJson = std::function<std::string(const model::JobReport&)>;
  // The job id of a canonical SLUID (sources::SluidLookup in production):
  // NotFound when unknown. Without one, a SLUID is an invalid id.
  using ResolveSluid = std::function<Result<model::JobId>(const std::string& sluid)>;
  // The job archive's entry for a numeric job id (JobIDRaw), drawn again
  // (archive/archived_report.hpp), or nullopt when the archive does not have
  // it. Without one, there is no archive.
  using FromArchive = std::function<Result<std::optional<CachedReportPtr>>(std::int64_t raw_id)>;

  // The references must outlive the service.
  JobService(sources::AccountingSource& accounting, Analyze analyze, RenderJson render_json, Authorizer& authorizer,
             ResultCache& cache, ResolveSluid resolve_sluid = {}, FromArchive from_archive = {});

  // The job `job_id` (as the request's path gave it: a job id, or a SLUID
  // that stands for one) for the caller of `request`: 401/403 unless
  // identified and allowed to read the owner's jobs, 400 for an invalid id,
  // 404 for an unknown job or SLUID, 502 for a failed source.
  // `finished_only` refuses a job that has not ended with 409.
  JobAnswer load(const HttpRequest& request, const std::string& job_id, bool finished_only);

  // The cached analysis of `id`, or nullptr (counts a cache hit when found).
  CachedReportPtr cached(const model::JobId& id);
  // The analysis of `id` without an authorisation check, for a caller that
  // already knows it may read the job: from the cache, else looked up and
  // analysed, and cached.
  Result<CachedReportPtr> analysed(const model::JobId& id);
  // The same for a record the caller already holds whole (a listing of a
  // source whose lists_whole_records()), cached under its job id: no lookup.
  // BadInput when the record's job id does not parse.
  Result<CachedReportPtr> analysed(const model::JobRecord& record);

 private:
  // The analysis of `record` with its JSON, as the cache keeps it; the
  // archive's when the job finished and Prometheus had nothing or failed.
  Result<CachedReportPtr> analyse(const model::JobRecord& record);
  // The archive's entry for `id` when the archive has it and `id` names one
  // numeric job (a job, not an array task or a het component, whose numeric
  // ids only accounting knows).
  std::optional<CachedReportPtr> archived(const model::JobId& id);

  sources::AccountingSource& accounting_;
  Analyze analyze_;
  RenderJson render_json_;
  Authorizer& authorizer_;
  ResultCache& cache_;
  ResolveSluid resolve_sluid_;
  FromArchive from_archive_;
};

}  // namespace petricore::serve
