// `petricore serve`: checks the options, builds the sources, the analyzer,
// the API and the server, then waits for SIGTERM or SIGINT in this thread
// (the signals are blocked before any thread starts, so sigwait() here is
// the only place they arrive) and stops gracefully.
#include "serve/serve_command.hpp"

#include "analysis/analysis_stack.hpp"
#include "archive/archived_report.hpp"
#include "archive/archiver.hpp"
#include "archive/archiver_loop.hpp"
#include "archive/shared_archive.hpp"
#include "core/listen_address.hpp"
#include "core/log.hpp"
#include "core/open_file_limit.hpp"
#include "core/signals.hpp"
#include "core/startup_error.hpp"
#include "core/utf8.hpp"
#include "render/job_render.hpp"
#include "serve/api.hpp"
#include "serve/auth.hpp"
#include "serve/compression.hpp"
#include "serve/http_server.hpp"
#include "serve/result_cache.hpp"
#include "serve/router.hpp"
#include "sources/sluid_lookup.hpp"

#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>

namespace petricore::serve {
namespace {

constexpr std::size_t kMaxThreads = 256;
constexpr std::size_t kMaxWorkers = 1024;
// The soft open-file limit serve asks for (up to the hard one).
constexpr std::size_t kServeOpenFileLimit = 65536;

// The HttpService the server calls: the router, plus the metrics of every
// response.
class RoutedService final : public HttpService {
 public:
  RoutedService(const Router& router, ServerMetrics& metrics) : router_(router), metrics_(metrics) {}
  HttpResponse handle(const HttpRequest& request) override {
    HttpResponse response = router_.dispatch(request);
    gzip_response(request, response, kGzipLevel);
    return response;
  }
  void prepare(HttpRequest& request) const override { router_.attach(request); }
  bool runs_inline(const HttpRequest& request) const override { return router_.runs_inline(request); }
  void observe(const HttpRequest& request, const HttpResponse& response, double seconds) override {
    std::string route = request.path.empty() ? "unmatched" : router_.route_name(request);
    metrics_.observe(route, response.status, seconds);
    if (log::level() <= log::Level::Debug) {
      log::debug(request.remote_address + " " + request.method + " " + valid_utf8(request.target.substr(0, 200)) + " " +
                 std::to_string(response.status) + " " + std::to_string(seconds) + "s");
    }
  }

 private:
  const Router& router_;
  ServerMetrics& metrics_;
};

std::string url_host(const std::string& host) {
  if (host.find(':') != std::string::npos) return "[" + host + "]";
  return host;
}

ListenAddress check_options(const ServeOptions& o, AuthMode mode) {
  Result<ListenAddress> listen = parse_listen_address(o.listen);
  if (!listen) throw StartupError("--listen must be HOST:PORT, [IPv6]:PORT or :PORT, not '" + o.listen + "'");
  if (mode == AuthMode::None && !is_loopback_host(listen->host)) {
    throw StartupError("--auth none is only allowed on a loopback address (" + o.listen +
                       " is not): use --auth header behind a reverse proxy, or --listen 127.0.0.1:PORT");
  }
  if (mode == AuthMode::Header && o.trusted_proxies.empty()) {
    throw StartupError("--auth header needs at least one --trusted-proxy address");
  }
  if (!o.admin_group.empty() && o.analysis.ldap.uri.empty()) {
    throw StartupError("--admin-group needs a directory: set [ldap] uri");
  }
  if (o.threads < 1 || o.threads > kMaxThreads) {
    throw StartupError("--threads must be 1-" + std::to_string(kMaxThreads));
  }
  if (o.workers < 1 || o.workers > kMaxWorkers) {
    throw StartupError("--workers must be 1-" + std::to_string(kMaxWorkers));
  }
  if (o.max_request_bytes < 1024) throw StartupError("max_request_bytes must be at least 1024");
  if (o.max_header_count < 8) throw StartupError("max_header_count must be at least 8");
  if (!(o.idle_timeout_seconds > 0) || o.idle_timeout_seconds > 86400) {
    throw StartupError("idle_timeout must be between 0 and 86400 seconds");
  }
  if (!o.public_url.empty()) {
    bool scheme = o.public_url.rfind("http://", 0) == 0 || o.public_url.rfind("https://", 0) == 0;
    bool clean = o.public_url.find_first_of(" \t\r\n\"'<>\\") == std::string::npos;
    if (!scheme || !clean) {
      throw StartupError("--public-url must be an http:// or https:// URL, not '" + o.public_url + "'");
    }
  }
  if (o.analysis.prometheus.url.empty()) throw StartupError("--prometheus URL is required");
  return *listen;
}

}  // namespace

int run_serve(const ServeOptions& options) {
  AuthMode mode = parse_auth_mode(options.auth);
  ListenAddress listen = check_options(options, mode);

  // Before any thread exists, so that every thread inherits the mask.
  StopSignals signals;

  analysis::AnalysisStack stack(options.analysis, analysis::AnalysisStack::WithDirectory::Yes);

  AuthConfig auth;
  auth.mode = mode;
  auth.header = options.auth_header;
  auth.trusted_proxies = options.trusted_proxies;
  auth.admins = options.admins;
  auth.admin_group = options.admin_group;
  auth.account_managers = parse_account_managers(options.account_managers);
  Authorizer authorizer(auth, stack.directory.get());

  // The job archive: read by the request threads, filled by the archiver's
  // own thread, each on its own connection. A database that is down or a
  // damaged file does not stop serve: the archiver says so in /healthz and
  // retries, and the routes answer from Prometheus meanwhile.
  sources::ArchiveConnector archive_connector(options.archive.store);
  std::unique_ptr<archive::SharedArchive> shared_archive;
  std::unique_ptr<archive::Archiver> archiver;
  std::unique_ptr<archive::ArchiverLoop> archiver_loop;
  if (archive_connector.enabled()) {
    shared_archive = std::make_unique<archive::SharedArchive>(archive_connector);
    if (options.archive.interval_seconds > 0) {
      archive::ArchiverOptions archiver_options;
      archiver_options.batch = options.archive.batch;
      archiver_options.lookback_seconds = options.archive.lookback_seconds;
      archiver_options.backfill_seconds = options.archive.backfill_seconds;
      archiver_options.settle_seconds =
          static_cast<std::int64_t>(analysis::after_end_seconds(options.analysis.analyzer)) + 1;
      archiver = std::make_unique<archive::Archiver>(
          *stack.accounting,
          [&stack](const std::vector<model::JobRecord>& jobs) { return stack.analyzer.analyze(jobs); },
          [](const model::JobReport& report) { return render::job_json(report); }, archiver_options);
      archiver_loop =
          std::make_unique<archive::ArchiverLoop>(archive_connector, *archiver, options.archive.interval_seconds);
    }
  }

  ResultCache cache(options.cache_entries, 5, options.cache_mb << 20);
  ServerMetrics metrics(&cache);
  if (archiver_loop) metrics.set_archive_health([&archiver_loop] { return archiver_loop->health(); });

  ApiOptions api_options;
  api_options.public_url = options.public_url;
  api_options.user_recent_jobs = options.user_recent_jobs;
  api_options.rendered_cache_bytes = options.rendered_cache_mb << 20;
  ApiBackends backends;
  backends.accounting = stack.accounting.get();
  backends.directory = stack.directory.get();
  backends.analyze = [&stack](const model::JobRecord& job) { return stack.analyzer.analyze(job); };
  sources::SluidLookup sluids(stack.prometheus);
  backends.resolve_sluid = [&sluids](const std::string& sluid) { return sluids.job_id(sluid); };
  backends.render_json = [](const model::JobReport& report) { return render::job_json(report); };
  backends.render_mail = [](const model::JobReport& report, const std::string& pdf_url) {
    return render::mail_text(report, pdf_url);
  };
  if (shared_archive) {
    backends.archive = shared_archive.get();
    const model::RuleThresholds thresholds = options.analysis.analyzer.thresholds;
    archive::SharedArchive& shared = *shared_archive;
    backends.from_archive = [&shared, thresholds](std::int64_t raw_id) -> Result<std::optional<CachedReportPtr>> {
      auto kept =
          shared.with([raw_id](sources::JobArchive& archive, sources::SqlDatabase&) { return archive.latest(raw_id); });
      if (!kept) return kept.error();
      if (!*kept) return std::optional<CachedReportPtr>();
      auto drawn = archive::archived_report(**kept, thresholds);
      if (!drawn) return drawn.error();
      std::string json = std::move(drawn->json);
      return std::optional<CachedReportPtr>(
          ResultCache::make_entry(std::move(drawn->report), [&json](const model::JobReport&) { return json; }));
    };
  }
  if (archiver_loop) backends.archive_health = [&archiver_loop] { return archiver_loop->health(); };
  Api api(api_options, backends, authorizer, cache, metrics);
  Router router;
  api.add_routes(router);
  RoutedService service(router, metrics);

  ServerOptions server_options;
  server_options.host = listen.host;
  server_options.port = listen.port;
  server_options.threads = options.threads;
  server_options.workers = options.workers;
  server_options.max_header_bytes = options.max_request_bytes;
  server_options.max_header_count = options.max_header_count;
  server_options.idle_timeout_seconds = options.idle_timeout_seconds;
  // Every connection holds a descriptor: the customary soft limit of 1024
  // would cap a busy web host long before its memory does.
  const std::size_t fd_limit = raise_open_file_limit(kServeOpenFileLimit);
  server_options.max_connections =
      options.max_connections != 0 ? options.max_connections : max_connections_for(fd_limit);
  HttpServer server(server_options, service);  // throws std::runtime_error when the port is taken
  server.start();
  if (archiver_loop) archiver_loop->start();
  log::info("serving on http://" + url_host(server.host()) + ":" + std::to_string(server.port()) + " (auth " +
            options.auth + ", accounting " + stack.accounting->name() + ", prometheus " + stack.prometheus.url() +
            ", archive " + archive_connector.describe() + ", at most " +
            std::to_string(server_options.max_connections) + " connections)");

  int signal = signals.wait();
  log::info(std::string("received ") + (signal == SIGTERM ? "SIGTERM" : "SIGINT") +
            ": finishing the requests in flight");
  if (archiver_loop) archiver_loop->stop();
  server.stop();
  log::info("stopped");
  return 0;
}

}  // namespace petricore::serve
