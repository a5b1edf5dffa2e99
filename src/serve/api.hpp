// The handlers of `petricore serve` (ARCHITECTURE.md §5): plain functions of
// a request that unit tests call directly. Where the data comes from (the
// accounting source, the analysis, the renderers, the directory, the passwd
// database) is passed in, so tests give fakes and no handler sees a socket.
//
// Every error is {"error": "..."} with its real status: 400 invalid id or
// name, 401/403 authorisation, 404 unknown job or user, 409 a mail for a job
// that has not finished, 502 a dependency failed.
#pragma once

#include "analysis/job_analyzer.hpp"
#include "archive/archiver_loop.hpp"
#include "archive/shared_archive.hpp"
#include "core/result.hpp"
#include "serve/auth.hpp"
#include "serve/efficiency_cache.hpp"
#include "serve/http_types.hpp"
#include "serve/job_service.hpp"
#include "serve/rendered_cache.hpp"
#include "serve/result_cache.hpp"
#include "serve/router.hpp"

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace petricore::sources {
class AccountingSource;
class Directory;
}  // namespace petricore::sources

namespace petricore::serve {

// The server's own metrics (/metrics): requests by route and status, their
// durations, and the result cache's hits, misses, evictions and size.
class ServerMetrics {
 public:
  explicit ServerMetrics(const ResultCache* cache);
  ~ServerMetrics();
  ServerMetrics(const ServerMetrics&) = delete;
  ServerMetrics& operator=(const ServerMetrics&) = delete;

  // `route` is a route pattern or "unmatched" (bounded label values).
  void observe(const std::string& route, int status, double seconds);
  // The Prometheus text exposition format.
  std::string render() const;
  // Where the archiver's counts come from (petricore_archive_*); unset:
  // no archiver, no such metrics.
  void set_archive_health(std::function<archive::ArchiveHealth()> health);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

struct ApiOptions {
  std::string public_url;             // base of links; "" = from the Host header
  std::size_t user_job_list = 100;    // jobs listed by /api/v1/users/<u>
  std::size_t user_recent_jobs = 20;  // finished jobs in its efficiency summary
  // Analyses a user summary may start in one request are stopped after this
  // long (the rest come from the cache on later requests).
  double user_summary_budget_seconds = 10;
  // Finished jobs' charts, PDFs and pages kept after drawing (bytes).
  std::size_t rendered_cache_bytes = std::size_t{64} << 20;
};

struct ApiBackends {
  sources::AccountingSource* accounting = nullptr;  // required
  sources::Directory* directory = nullptr;          // optional
  // JobAnalyzer::analyze(record) in production: the handlers look the
  // record up themselves (JobService), so the analysis need not again.
  JobService::Analyze analyze;
  // render::job_json and render::mail_text in production.
  JobService::RenderJson render_json;
  std::function<std::string(const model::JobReport&, const std::string& pdf_url)> render_mail;
  // The job id of a SLUID (sources::SluidLookup in production); optional:
  // without it a SLUID is an invalid job id.
  JobService::ResolveSluid resolve_sluid;
  // The passwd database's uid of a user (getpwnam_r by default).
  std::function<std::optional<unsigned>(const std::string&)> uid_of;
  // The job archive; null without one (no fleet view, no archived answers).
  archive::SharedArchive* archive = nullptr;
  // An archived job drawn again (JobService::FromArchive); unset without
  // an archive.
  JobService::FromArchive from_archive;
  // The archiver's health (/healthz); unset when no archiver runs.
  std::function<archive::ArchiveHealth()> archive_health;
};

// getpwnam_r's uid, or nullopt.
std::optional<unsigned> system_uid(const std::string& user);

class Api {
 public:
  // The references must outlive the Api.
  Api(ApiOptions options, ApiBackends backends, Authorizer& authorizer, ResultCache& cache, ServerMetrics& metrics);

  // Registers every route below on `router`. The handlers keep `this` and
  // `router` (the index lists its routes): both must outlive their use.
  void add_routes(Router& router);

  HttpResponse index(const HttpRequest& request, const Router& router);
  HttpResponse job_usage(const HttpRequest& request, const std::string& job_id);
  HttpResponse user(const HttpRequest& request, const std::string& user_name);
  HttpResponse mail(const HttpRequest& request, const std::string& job_id);
  // api_pages.cpp: the drawn and HTML faces of a job.
  // ?format=png|svg (default png), ?width=200..4000 and ?height=150..3000
  // pixels (default 900 x 450).
  HttpResponse plot(const HttpRequest& request, const std::string& job_id, const std::string& metric);
  // ?of=mode (user vs system time, the default) | cores (CPU time per core).
  HttpResponse pie(const HttpRequest& request, const std::string& job_id);
  HttpResponse pdf(const HttpRequest& request, const std::string& job_id);
  HttpResponse job_page(const HttpRequest& request, const std::string& job_id);
  // /jobs/?id=123: the index page's form; a 303 to /jobs/123.
  HttpResponse job_form(const HttpRequest& request);
  HttpResponse metrics(const HttpRequest& request);
  // "ok", or "degraded: <why>" while the archiver fails (200 both: the
  // server still answers from Prometheus).
  HttpResponse healthz(const HttpRequest& request);
  // api_efficiency.cpp: the fleet view over the archive.
  // ?by=user|account|partition (default account), ?since= and ?until=
  // (core/time_text.hpp forms; default 30d and now), ?user=, ?account=.
  // Admins read everything; an account's managers read their account
  // (?account=); anyone else reads their own jobs' figures only.
  HttpResponse efficiency(const HttpRequest& request);
  HttpResponse efficiency_page(const HttpRequest& request);

  // The base of absolute links: public_url, else http://<Host> when the
  // Host header is a plausible host[:port], else "" (relative links).
  std::string base_url(const HttpRequest& request) const;

 private:
  // The analysed job, after the caller was identified and authorised against
  // the job's owner, or the refusal to answer with (JobService::load).
  // `finished_only` refuses a job that has not ended with 409 before any
  // Prometheus query.
  JobAnswer load_job(const HttpRequest& request, const std::string& job_id, bool finished_only);
  // The answer with the job's file under `key`: from the rendered cache, else
  // draw() it (and keep it when the job has finished). A finished job's
  // gzip form is kept too, for clients that accept it. A drawing failure
  // (cairo missing or broken) is a 500 that says so.
  HttpResponse drawn(const HttpRequest& request, const CachedReport& entry, const std::string& key,
                     const std::string& content_type, const std::function<std::string()>& draw);

  ApiOptions options_;
  ApiBackends backends_;
  Authorizer& authorizer_;
  ResultCache& cache_;
  ServerMetrics& metrics_;
  // The fleet view for the request, or the response that refuses it.
  struct FleetAnswer;
  FleetAnswer fleet(const HttpRequest& request);

  JobService jobs_;
  RenderedCache rendered_;
  EfficiencyCache efficiency_cache_;
};

}  // namespace petricore::serve
