#include "serve/api.hpp"

#include "core/log.hpp"
#include "core/number_text.hpp"
#include "core/passwd.hpp"
#include "model/job_id.hpp"
#include "render/job_html.hpp"
#include "render/json_writer.hpp"
#include "render/text_format.hpp"
#include "sources/accounting.hpp"
#include "sources/directory.hpp"

#include <prometheus/counter.h>
#include <prometheus/histogram.h>
#include <prometheus/metric_family.h>
#include <prometheus/registry.h>
#include <prometheus/text_serializer.h>

#include <boost/json.hpp>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace petricore::serve {

// ---- ServerMetrics ----

struct ServerMetrics::Impl {
  explicit Impl(const ResultCache* c)
      : cache(c),
        requests(prometheus::BuildCounter()
                     .Name("petricore_http_requests_total")
                     .Help("HTTP requests answered, by route pattern and status")
                     .Register(registry)),
        durations(prometheus::BuildHistogram()
                      .Name("petricore_http_request_duration_seconds")
                      .Help("Seconds from a complete request to its response being ready, by route pattern")
                      .Register(registry)) {}

  const ResultCache* cache;
  std::function<archive::ArchiveHealth()> archive_health;
  prometheus::Registry registry;
  prometheus::Family<prometheus::Counter>& requests;
  prometheus::Family<prometheus::Histogram>& durations;
};

ServerMetrics::ServerMetrics(const ResultCache* cache) : impl_(std::make_unique<Impl>(cache)) {}
ServerMetrics::~ServerMetrics() = default;

void ServerMetrics::set_archive_health(std::function<archive::ArchiveHealth()> health) {
  impl_->archive_health = std::move(health);
}

void ServerMetrics::observe(const std::string& route, int status, double seconds) {
  // Family::Add is thread-safe and returns the existing child for known labels.
  impl_->requests.Add({{"route", route}, {"status", std::to_string(status)}}).Increment();
  static const prometheus::Histogram::BucketBoundaries buckets{0.005, 0.01, 0.025, 0.05, 0.1, 0.25,
                                                               0.5,   1,    2.5,   5,    10,  30};
  impl_->durations.Add({{"route", route}}, buckets).Observe(seconds);
}

namespace {

prometheus::MetricFamily single(const char* name, const char* help, prometheus::MetricType type, double value) {
  prometheus::MetricFamily family;
  family.name = name;
  family.help = help;
  family.type = type;
  prometheus::ClientMetric metric;
  if (type == prometheus::MetricType::Counter) {
    metric.counter.value = value;
  } else {
    metric.gauge.value = value;
  }
  family.metric.push_back(metric);
  return family;
}

}  // namespace

std::string ServerMetrics::render() const {
  std::vector<prometheus::MetricFamily> families = impl_->registry.Collect();
  if (impl_->cache != nullptr) {
    CacheStats stats = impl_->cache->stats();
    using prometheus::MetricType;
    families.push_back(single("petricore_cache_hits_total", "Job analyses answered from the result cache",
                              MetricType::Counter, static_cast<double>(stats.hits)));
    families.push_back(single("petricore_cache_misses_total", "Job analyses that had to query the sources",
                              MetricType::Counter, static_cast<double>(stats.misses)));
    families.push_back(single("petricore_cache_evictions_total", "Cached job analyses evicted to make room",
                              MetricType::Counter, static_cast<double>(stats.evictions)));
    families.push_back(single("petricore_cache_entries", "Job analyses in the result cache", MetricType::Gauge,
                              static_cast<double>(stats.entries)));
    families.push_back(single("petricore_cache_bytes", "Approximate bytes held by the result cache's analyses",
                              MetricType::Gauge, static_cast<double>(stats.bytes)));
  }
  if (impl_->archive_health) {
    archive::ArchiveHealth health = impl_->archive_health();
    using prometheus::MetricType;
    families.push_back(single("petricore_archive_errors_total",
                              "Archiver passes that failed (a source or the archive): see /healthz for the last reason",
                              MetricType::Counter, static_cast<double>(health.errors)));
    families.push_back(single("petricore_archive_jobs_total", "Finished jobs the archiver stored since start",
                              MetricType::Counter, static_cast<double>(health.archived)));
    families.push_back(single("petricore_archive_healthy", "1 when the archiver's last pass succeeded",
                              MetricType::Gauge, health.ok ? 1 : 0));
  }
  return prometheus::TextSerializer().Serialize(families);
}

// ---- helpers ----

std::optional<unsigned> system_uid(const std::string& user) {
  if (auto uid = uid_of_user_name(user)) return static_cast<unsigned>(*uid);
  return std::nullopt;
}

namespace {

namespace json = boost::json;

bool plausible_host(std::string_view host) {
  if (host.empty() || host.size() > 255) return false;
  return std::all_of(host.begin(), host.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '-' ||
           c == ':' || c == '[' || c == ']';
  });
}

// The numeric id of a listed job: JobIDRaw, else the id's leading number
// (the job JSON's `jobid` is the same number).
json::value job_number(const model::JobRecord& job) {
  const std::string& raw = job.raw_id;
  if (!raw.empty() && raw.size() <= 10 && raw.find_first_not_of("0123456789") == std::string::npos) {
    return std::stoull(raw);
  }
  if (auto id = model::parse_job_id(job.job_id)) return id->job;
  return nullptr;
}

// Unknown (empty) text is null, not "".
json::value optional_text(const std::string& text) {
  return text.empty() ? json::value(nullptr) : json::value(text);
}

json::value optional_instant(const std::optional<std::int64_t>& epoch) {
  return epoch ? json::value(render::text::iso8601_utc(*epoch)) : json::value(nullptr);
}

// A mean rounded as printf's %.Nf rounds it, without trailing zeros ("50",
// "0.25"): what this record has always shown, so not the job JSON's
// half-away-from-zero rounding.
json::value mean(double sum, std::size_t count, int decimals) {
  if (count == 0) return nullptr;
  double value = sum / static_cast<double>(count);
  if (!std::isfinite(value)) return nullptr;
  // number_text sizes the digits to the value: a 64-byte buffer cut 1.3164e64 to a number 100 times smaller.
  double rounded = std::strtod(number_text(value, decimals).c_str(), nullptr);
  if (rounded == 0) return 0;  // no "-0"
  if (std::trunc(rounded) == rounded && std::fabs(rounded) < 9.0e15) return static_cast<std::int64_t>(rounded);
  return rounded;
}

}  // namespace

// ---- Api ----

Api::Api(ApiOptions options, ApiBackends backends, Authorizer& authorizer, ResultCache& cache, ServerMetrics& metrics)
    : options_(std::move(options)),
      backends_(std::move(backends)),
      authorizer_(authorizer),
      cache_(cache),
      metrics_(metrics),
      jobs_(*backends_.accounting, backends_.analyze, backends_.render_json, authorizer_, cache_,
            backends_.resolve_sluid, backends_.from_archive),
      rendered_(options_.rendered_cache_bytes) {
  while (!options_.public_url.empty() && options_.public_url.back() == '/') options_.public_url.pop_back();
  if (!backends_.uid_of) backends_.uid_of = system_uid;
}

void Api::add_routes(Router& router) {
  const Router* r = &router;
  router.get({"/", "This page.", "/", true},
             [this, r](const HttpRequest& request, const RouteParams&) { return index(request, *r); });
  router.get({"/api/v1/jobs/{jobid}/usage",
              "A job's usage as JSON: allocation, CPU, memory, I/O, threads, GPUs, findings with advice.",
              "/api/v1/jobs/12345/usage", false},
             [this](const HttpRequest& request, const RouteParams& p) { return job_usage(request, p.at("jobid")); });
  router.get({"/api/v1/users/{username}",
              "A user as JSON: uid, mail, groups, their jobs (newest first) and the efficiency of the recent ones.",
              "/api/v1/users/{user}", false},
             [this](const HttpRequest& request, const RouteParams& p) { return user(request, p.at("username")); });
  router.get(
      {"/mail/{jobid}", "The job-end mail of a finished job, as text (409 while it runs).", "/mail/12345", false},
      [this](const HttpRequest& request, const RouteParams& p) { return mail(request, p.at("jobid")); });
  router.get({"/jobs/{jobid}", "A job's page: summary, findings with advice, the charts (HTML).", "/jobs/12345", false},
             [this](const HttpRequest& request, const RouteParams& p) { return job_page(request, p.at("jobid")); });
  router.get({"/jobs/", "The index page's job form: ?id=JOBID redirects to /jobs/JOBID.", "", true},
             [this](const HttpRequest& request, const RouteParams&) { return job_form(request); });
  router.get({"/plot/{jobid}/{metric}",
              "A line chart of one jobs_* metric over the job's life, one line per series (PNG; ?format=svg, "
              "?width=, ?height=).",
              "/plot/12345/jobs_cpu_percent", false},
             [this](const HttpRequest& request, const RouteParams& p) {
               return plot(request, p.at("jobid"), p.at("metric"));
             });
  router.get({"/pie/{jobid}/", "A pie of user vs system CPU time (PNG; ?of=cores: CPU time per core; ?format=svg).",
              "/pie/12345/", false},
             [this](const HttpRequest& request, const RouteParams& p) { return pie(request, p.at("jobid")); });
  router.get({"/pdf/{jobid}", "The job's PDF report: summary, findings, charts and pies (A4).", "/pdf/12345", false},
             [this](const HttpRequest& request, const RouteParams& p) { return pdf(request, p.at("jobid")); });
  router.get({"/api/v1/efficiency",
              "Fleet efficiency from the job archive as JSON: per user, account or partition (?by=), over a period "
              "(?since=30d&until=now): core-hours, CPU efficiency, waste, memory, GPU-hours, findings, worst jobs.",
              "/api/v1/efficiency?by=account&since=30d", false},
             [this](const HttpRequest& request, const RouteParams&) { return efficiency(request); });
  router.get(
      {"/efficiency", "The fleet-efficiency page (HTML): the same figures, the worst jobs, efficiency over time.",
       "/efficiency?by=account&since=30d", false},
      [this](const HttpRequest& request, const RouteParams&) { return efficiency_page(request); });
  router.get({"/metrics", "This server's own metrics (Prometheus text format).", "/metrics", true},
             [this](const HttpRequest& request, const RouteParams&) { return metrics(request); });
  router.get({"/healthz", "Liveness: 200 \"ok\".", "/healthz", true},
             [this](const HttpRequest& request, const RouteParams&) { return healthz(request); });
}

std::string Api::base_url(const HttpRequest& request) const {
  if (!options_.public_url.empty()) return options_.public_url;
  const std::string* host = request.header("Host");
  if (host != nullptr && plausible_host(*host)) return "http://" + *host;
  return "";
}

JobAnswer Api::load_job(const HttpRequest& request, const std::string& job_id, bool finished_only) {
  return jobs_.load(request, job_id, finished_only);
}

HttpResponse Api::job_usage(const HttpRequest& request, const std::string& job_id) {
  JobAnswer entry = load_job(request, job_id, false);
  if (!entry) return entry.take_refusal();
  HttpResponse response = json_response(entry->json);
  // Per user (authorisation), so never in a shared cache.
  response.headers.push_back({"Cache-Control", entry->settled() ? "private, max-age=300" : "no-store"});
  return response;
}

HttpResponse Api::mail(const HttpRequest& request, const std::string& job_id) {
  JobAnswer entry = load_job(request, job_id, true);
  if (!entry) return entry.take_refusal();
  // A mail is read elsewhere: its link must be absolute, or absent.
  std::string base = base_url(request);
  // The link names the job by its id, also when it was asked for by SLUID.
  auto id = model::parse_job_id(job_id);
  std::string pdf_url = base.empty() ? "" : base + "/pdf/" + (id ? id->text() : entry->report.usage.job.job_id);
  HttpResponse response = text_response(backends_.render_mail(entry->report, pdf_url));
  response.headers.push_back({"Cache-Control", entry->settled() ? "private, max-age=300" : "no-store"});
  return response;
}

HttpResponse Api::user(const HttpRequest& request, const std::string& user_name) {
  Identity who;
  if (auto decision = authorizer_.identify(request, who); !decision.allowed()) return refusal_response(decision);
  if (!model::valid_user_name(user_name)) {
    return json_error(400, "invalid user name: 1-32 of A-Z a-z 0-9 . _ -, not starting with '-'");
  }
  if (auto decision = authorizer_.may_read(who, user_name); !decision.allowed()) return refusal_response(decision);

  std::optional<sources::DirectoryUser> entry;
  if (backends_.directory != nullptr) {
    auto found = backends_.directory->user(user_name);
    if (found) {
      entry = std::move(found.value());
    } else if (found.error().kind != Error::Kind::NotFound) {
      return error_response(found.error());
    }
  }
  std::optional<unsigned> uid = entry && entry->uid ? entry->uid : backends_.uid_of(user_name);

  auto listed = backends_.accounting->jobs_of_user(user_name, options_.user_job_list);
  std::vector<model::JobRecord> jobs;
  if (listed) {
    jobs = std::move(listed.value());
  } else if (listed.error().kind != Error::Kind::NotFound) {
    return error_response(listed.error());
  }
  if (!uid) {
    for (const auto& job : jobs) {
      if (job.uid) {
        uid = job.uid;
        break;
      }
    }
  }
  // The archive keeps jobs beyond accounting's and Prometheus's retention.
  json::array archived_list;
  if (backends_.archive != nullptr) {
    auto archived = backends_.archive->with([&](sources::JobArchive& archive, sources::SqlDatabase&) {
      return archive.jobs_of_user(user_name, 0, std::numeric_limits<std::int64_t>::max(), options_.user_job_list);
    });
    if (archived) {
      for (const model::ArchivedJob& a : *archived) {
        archived_list.push_back(json::object{{"jobid", job_number(a.job)},
                                             {"id", a.job.job_id},
                                             {"name", optional_text(a.job.name)},
                                             {"state", optional_text(a.job.state)},
                                             {"start", optional_instant(a.job.start)},
                                             {"end", optional_instant(a.job.end)}});
      }
    } else {
      log::warning("user " + user_name + ": " + archived.error().message);
    }
  }
  if (!entry && !uid && jobs.empty() && archived_list.empty())
    return json_error(404, "user " + user_name + " not found");

  // The efficiency summary: the newest finished jobs, from the result cache;
  // the ones not cached yet are analysed now (and cached), within a time
  // budget and stopping at the first unavailable source, so one slow
  // Prometheus costs one timeout, not twenty. Later requests complete it.
  // A source that lists whole records (sacct, the DB view) is not asked
  // again: the listed record is analysed. A job listed twice (requeued, in
  // the DB) counts once, as its newest run, the one job() would give.
  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                           std::chrono::duration<double>(options_.user_summary_budget_seconds));
  std::size_t considered = 0, analysed = 0, warnings = 0, cpu_jobs = 0, memory_jobs = 0;
  double cpu_sum = 0, memory_sum = 0;
  bool complete = true;
  bool may_analyse = true;
  const bool listing_is_whole = backends_.accounting->lists_whole_records();
  std::set<std::string> seen;
  for (const auto& job : jobs) {
    if (considered >= options_.user_recent_jobs) break;
    if (!job.finished()) continue;
    auto id = model::parse_job_id(job.job_id);
    if (id && !seen.insert(id->text()).second) continue;
    ++considered;
    if (!id) {
      complete = false;
      continue;
    }
    CachedReportPtr report = jobs_.cached(*id);
    if (!report) {
      if (!may_analyse || Clock::now() >= deadline) {
        complete = false;
        continue;
      }
      auto computed = listing_is_whole ? jobs_.analysed(job) : jobs_.analysed(*id);
      if (!computed) {
        complete = false;
        if (computed.error().kind == Error::Kind::Unavailable) may_analyse = false;
        continue;
      }
      report = computed.value();
    }
    ++analysed;
    const auto& usage = report->report.usage;
    if (auto cpu = usage.cpu_efficiency_percent) {
      cpu_sum += *cpu;
      ++cpu_jobs;
    }
    if (auto memory = usage.memory_fraction) {
      memory_sum += *memory;
      ++memory_jobs;
    }
    if (report->report.warning) ++warnings;
  }

  json::array groups;
  if (entry) {
    for (const auto& group : entry->groups) groups.emplace_back(group);
  }
  json::array job_list;
  for (const auto& job : jobs) {
    job_list.push_back(json::object{{"jobid", job_number(job)},
                                    {"id", job.job_id},
                                    {"name", optional_text(job.name)},
                                    {"state", optional_text(job.state)},
                                    {"start", optional_instant(job.start)},
                                    {"end", optional_instant(job.end)}});
  }
  json::object document{
      {"user",
       {{"username", user_name},
        {"uid", uid ? json::value(*uid) : json::value(nullptr)},
        {"email", entry && entry->email ? json::value(*entry->email) : json::value(nullptr)}}},
      {"groups", std::move(groups)},
      {"jobs", std::move(job_list)},
      {"archived_jobs", std::move(archived_list)},
      {"summary",
       {{"jobs_considered", considered},
        {"jobs_analysed", analysed},
        {"complete", complete},
        {"cpu_efficiency", {{"mean", mean(cpu_sum, cpu_jobs, 2)}, {"unit", "%"}, {"jobs", cpu_jobs}}},
        {"memory_usage", {{"mean", mean(memory_sum, memory_jobs, 4)}, {"unit", "ratio"}, {"jobs", memory_jobs}}},
        {"jobs_with_warnings", warnings}}},
  };
  std::string body = render::json_text(document, render::JsonLayout::Records) + "\n";
  HttpResponse response = json_response(std::move(body));
  response.headers.push_back({"Cache-Control", "no-store"});
  return response;
}

HttpResponse Api::index(const HttpRequest& request, const Router& router) {
  Identity who;
  authorizer_.identify(request, who);  // only to fill in the example user
  const std::string example_user = who.authenticated ? who.user : "alice";
  // A job this server has analysed makes the examples work here.
  std::string example_job = cache_.recent_finished_key();
  if (example_job.empty()) example_job = "12345";
  render::IndexPage page;
  page.base_url = base_url(request);
  for (const auto& route : router.routes()) {
    std::string example = route.example;
    if (auto at = example.find("{user}"); at != std::string::npos) example.replace(at, 6, example_user);
    if (auto at = example.find("12345"); at != std::string::npos) example.replace(at, 5, example_job);
    page.routes.push_back({route.pattern, route.description, example.empty() ? "" : page.base_url + example});
  }
  HttpResponse response;
  response.content_type = "text/html; charset=utf-8";
  response.body = render::index_html(page);
  response.headers.push_back({"Cache-Control", "no-store"});
  return response;
}

HttpResponse Api::metrics(const HttpRequest&) {
  HttpResponse response;
  response.content_type = "text/plain; version=0.0.4; charset=utf-8";
  response.body = metrics_.render();
  return response;
}

HttpResponse Api::healthz(const HttpRequest&) {
  if (backends_.archive_health) {
    archive::ArchiveHealth health = backends_.archive_health();
    if (!health.ok) return text_response("degraded: archive: " + health.reason + "\n");
  }
  return text_response("ok\n");
}

}  // namespace petricore::serve
