// The serve side without sockets: routing and path validation, the
// authorisation decisions, the result cache, and the handlers over fake
// sources (ARCHITECTURE.md §5: statuses, JSON error shape, who reads what).
#include "serve/router.hpp"
#include "analysis/usage_summary.hpp"
#include "serve/api.hpp"
#include "serve/auth.hpp"
#include "serve/http_server.hpp"
#include "serve/result_cache.hpp"
#include "sources/accounting.hpp"
#include "sources/directory.hpp"

#include "catch.hpp"

#include <algorithm>
#include <atomic>
#include <map>
#include <string>
#include <thread>
#include <vector>

using namespace petricore;
using namespace petricore::serve;

namespace {

HttpRequest get(const std::string& target, const std::string& remote = "127.0.0.1") {
  return make_request("GET", target, remote);
}

HttpRequest as_user(const std::string& target, const std::string& user, const std::string& remote = "127.0.0.1") {
  HttpRequest request = get(target, remote);
  request.headers.push_back({"X-Remote-User", user});
  return request;
}

Router echo_router() {
  Router router;
  router.get({"/", "index", "/", true}, [](const HttpRequest&, const RouteParams&) { return text_response("index"); });
  router.get({"/api/v1/jobs/{jobid}/usage", "usage", "", false},
             [](const HttpRequest&, const RouteParams& p) { return text_response("job " + p.at("jobid")); });
  router.get({"/pie/{jobid}/", "pie", "", false},
             [](const HttpRequest&, const RouteParams& p) { return text_response("pie " + p.at("jobid")); });
  router.get({"/boom", "throws", "", false},
             [](const HttpRequest&, const RouteParams&) -> HttpResponse { throw std::runtime_error("bug"); });
  return router;
}

bool is_json_error(const HttpResponse& response) {
  return response.content_type == "application/json" && response.body.rfind("{\"error\":\"", 0) == 0;
}

model::JobRecord record(const std::string& id, const std::string& user, bool finished) {
  model::JobRecord job;
  job.job_id = id;
  job.raw_id = id;
  job.user = user;
  job.name = "job" + id;
  job.state = finished ? "COMPLETED" : "RUNNING";
  job.start = 1700000000;
  if (finished) job.end = 1700003600;
  job.alloc_cpus = 4;
  job.alloc_mem_mb = 4000;
  if (finished) job.total_cpu_seconds = 7200;
  return job;
}

class FakeAccounting : public sources::AccountingSource {
 public:
  Result<model::JobRecord> job(const model::JobId& id) override {
    ++job_calls;
    if (down) return unavailable("accounting down");
    auto it = jobs.find(id.text());
    if (it == jobs.end()) return not_found("job " + id.text() + " not found");
    return it->second;
  }
  Result<std::vector<model::JobRecord>> jobs_of_user(const std::string& user, std::size_t limit) override {
    if (down) return unavailable("accounting down");
    std::vector<model::JobRecord> out;
    for (auto it = jobs.rbegin(); it != jobs.rend() && out.size() < limit; ++it) {
      if (it->second.user == user) out.push_back(it->second);
    }
    // As the jobs_info listing: no step figures (unless whole_listing).
    if (!whole_listing) {
      for (auto& job : out) job.total_cpu_seconds.reset();
    }
    out.insert(out.end(), listed_again.begin(), listed_again.end());
    return out;
  }
  Result<std::vector<model::JobRecord>> jobs_ended(std::int64_t since, std::int64_t until, std::size_t limit) override {
    if (down) return unavailable("accounting down");
    std::vector<model::JobRecord> out;
    for (const auto& [id, job] : jobs)
      if (job.end && *job.end >= since && *job.end < until) out.push_back(job);
    std::sort(out.begin(), out.end(), sources::ended_earlier);
    if (out.size() > limit) out.resize(limit);
    return out;
  }
  bool lists_whole_records() const override { return whole_listing; }
  std::string name() const override { return "fake"; }

  std::map<std::string, model::JobRecord> jobs;
  std::vector<model::JobRecord> listed_again;  // appended to every listing, as older runs of a requeued job
  bool whole_listing = false;
  bool down = false;
  std::atomic<int> job_calls{0};
};

class FakeDirectory : public sources::Directory {
 public:
  Result<sources::DirectoryUser> user(const std::string& username) override {
    ++calls;
    if (down) return unavailable("ldap down");
    auto it = users.find(username);
    if (it == users.end()) return not_found("no " + username);
    return it->second;
  }
  std::map<std::string, sources::DirectoryUser> users;
  bool down = false;
  int calls = 0;
};

// An Api over fakes: jobs 100 (alice, finished), 101 (bob, finished),
// 102 (alice, running); admins: carol; admin group "hpcstaff" (dave).
struct Fixture {
  explicit Fixture(AuthMode mode = AuthMode::Header, std::size_t cache_entries = 100)
      : authorizer(make_auth(mode), &directory), cache(cache_entries), metrics(&cache) {
    accounting.jobs["100"] = record("100", "alice", true);
    accounting.jobs["101"] = record("101", "bob", true);
    accounting.jobs["102"] = record("102", "alice", false);
    directory.users["alice"] = {"alice", 1001, std::string("alice@example.org"), {"physics", "users"}};
    directory.users["dave"] = {"dave", 1004, std::nullopt, {"hpcstaff"}};
    ApiBackends backends;
    backends.accounting = &accounting;
    backends.directory = &directory;
    backends.analyze = [this](const model::JobRecord& job) -> Result<model::JobReport> {
      ++analyses;
      analysed.push_back(job);
      if (prometheus_down) return unavailable("prometheus down");
      model::JobReport report;
      report.usage.job = job;
      report.usage.cpu_avg_percent = 200;            // 50 % of 4 cores
      report.usage.memory_resident_mb = 1000;        // 0.25 of 4000
      model::compute_ratios(report.usage);           // as the analysis does
      report.settled = report.usage.job.finished();  // analysed well after its end
      report.warning = job.job_id == "100";
      return report;
    };
    backends.render_json = [](const model::JobReport& r) { return "{\"jobid\": " + r.usage.job.job_id + "}"; };
    backends.render_mail = [](const model::JobReport& r, const std::string& pdf) {
      return "mail " + r.usage.job.job_id + " " + pdf + "\nWARNING=false\n";
    };
    backends.uid_of = [](const std::string& user) -> std::optional<unsigned> {
      if (user == "bob") return 1002u;
      return std::nullopt;
    };
    // jobs_info{sluid} in production (sources::SluidLookup).
    backends.resolve_sluid = [this](const std::string& sluid) -> Result<model::JobId> {
      sluids_asked.push_back(sluid);
      if (sluid == "s5K1KKYAYG5D00") return *model::parse_job_id("100");
      if (sluid == "s5K1KKYAYG5D01") return *model::parse_job_id("101");
      return not_found("job " + sluid + " not found in Prometheus");
    };
    ApiOptions options;
    api = std::make_unique<Api>(options, backends, authorizer, cache, metrics);
    api->add_routes(router);
  }

  static AuthConfig make_auth(AuthMode mode) {
    AuthConfig config;
    config.mode = mode;
    config.trusted_proxies = {"127.0.0.1", "::1"};
    config.admins = {"carol"};
    config.admin_group = "hpcstaff";
    return config;
  }

  std::vector<std::string> sluids_asked;  // canonical SLUIDs, as the resolver got them
  FakeAccounting accounting;
  FakeDirectory directory;
  Authorizer authorizer;
  ResultCache cache;
  ServerMetrics metrics;
  std::unique_ptr<Api> api;
  Router router;
  int analyses = 0;
  std::vector<model::JobRecord> analysed;  // the records the analyses were given
  bool prometheus_down = false;
};

}  // namespace

// ---- paths and routing ----

TEST_CASE("paths are split into decoded segments", "[serve]") {
  auto p = split_path("/api/v1/jobs/12%33/usage");
  REQUIRE(p.error.empty());
  CHECK(p.segments == std::vector<std::string>{"api", "v1", "jobs", "123", "usage"});
  CHECK(split_path("/").segments == std::vector<std::string>{""});
  CHECK(split_path("/pie/5/").segments == std::vector<std::string>{"pie", "5", ""});
}

TEST_CASE("paths that could leave the route tree are refused", "[serve]") {
  for (const char* bad :
       {"/api/../etc/passwd", "/api/%2e%2e/x", "/api/%2E%2e/x", "/./healthz", "/mail/%2e", "/mail/1%2f2", "/mail/1%2F2",
        "/mail/1%5c2", "/mail/1%00", "/mail/%zz", "/mail/%4", "relative", ""}) {
    INFO(bad);
    CHECK_FALSE(split_path(bad).error.empty());
  }
}

TEST_CASE("percent-decoding", "[serve]") {
  CHECK(percent_decode("a%20b", false) == "a b");
  CHECK(percent_decode("a+b", false) == "a+b");
  CHECK(percent_decode("a+b", true) == "a b");
  CHECK_FALSE(percent_decode("%", false));
  CHECK_FALSE(percent_decode("%g0", false));
  CHECK_FALSE(percent_decode("abc%2", false));
}

TEST_CASE("targets split into path and query", "[serve]") {
  HttpRequest r = make_request("GET", "/x/y?a=1&b=two%20words&c&=z");
  CHECK(r.path == "/x/y");
  REQUIRE(r.query_param("b") != nullptr);
  CHECK(*r.query_param("b") == "two words");
  CHECK(*r.query_param("c") == "");
  CHECK(make_request("GET", "http://example.org:8080/healthz?x=1").path == "/healthz");
  CHECK(make_request("GET", "http://example.org").path == "/");
  std::string path;
  std::vector<std::pair<std::string, std::string>> query;
  CHECK_FALSE(split_target("/x?a=%zz", path, query));
}

TEST_CASE("routes match segment by segment and capture parameters", "[serve]") {
  Router router = echo_router();
  CHECK(router.dispatch(get("/")).body == "index");
  CHECK(router.dispatch(get("/api/v1/jobs/42/usage")).body == "job 42");
  CHECK(router.dispatch(get("/api/v1/jobs/4%32/usage?x=1")).body == "job 42");
  CHECK(router.dispatch(get("/pie/7/")).body == "pie 7");
  CHECK(router.route_name(get("/api/v1/jobs/42/usage")) == "/api/v1/jobs/{jobid}/usage");
  CHECK(router.route_name(get("/nope")) == "unmatched");
  CHECK(router.runs_inline(get("/")));
  CHECK_FALSE(router.runs_inline(get("/api/v1/jobs/1/usage")));
}

TEST_CASE("a path resolves to its route, parameters, metrics label and inline flag", "[serve]") {
  Router router = echo_router();
  ResolvedRoute usage = router.resolve("/api/v1/jobs/4%32/usage");
  CHECK(usage.error.empty());
  REQUIRE(usage.route.has_value());
  CHECK(router.routes()[*usage.route].pattern == "/api/v1/jobs/{jobid}/usage");
  CHECK(usage.params == RouteParams{{"jobid", "42"}});
  CHECK(usage.label == "/api/v1/jobs/{jobid}/usage");
  CHECK_FALSE(usage.runs_inline);
  ResolvedRoute index = router.resolve("/");
  CHECK(index.label == "/");
  CHECK(index.runs_inline);
  // No route, or a refused path: "unmatched", answered inline (404, 400).
  ResolvedRoute unknown = router.resolve("/nope");
  CHECK(unknown.error.empty());
  CHECK_FALSE(unknown.route.has_value());
  CHECK(unknown.label == "unmatched");
  CHECK(unknown.runs_inline);
  ResolvedRoute traversal = router.resolve("/api/v1/jobs/../usage");
  CHECK(traversal.error == "'.' and '..' are not allowed in the path");
  CHECK_FALSE(traversal.route.has_value());
  CHECK(traversal.label == "unmatched");
  CHECK(traversal.runs_inline);
}

TEST_CASE("one request is resolved once for the inline check, the dispatch and the label", "[serve]") {
  Router router = echo_router();
  HttpRequest request = get("/api/v1/jobs/7/usage");
  router.attach(request);
  std::shared_ptr<const ResolvedRoute> first = request.route;
  REQUIRE(first);
  CHECK(router.resolved(request) == first);
  CHECK_FALSE(router.runs_inline(request));
  CHECK(router.dispatch(request).body == "job 7");
  CHECK(router.route_name(request) == "/api/v1/jobs/{jobid}/usage");
  CHECK(router.resolved(request) == first);
  // A changed path, or another router, is resolved afresh.
  request.path = "/pie/7/";
  CHECK(router.resolved(request) != first);
  CHECK(router.dispatch(request).body == "pie 7");
  Router other;
  CHECK(other.dispatch(request).status == 404);
  CHECK(other.route_name(request) == "unmatched");
}

TEST_CASE("unknown routes are 404 in the JSON error shape", "[serve]") {
  Router router = echo_router();
  for (const char* path : {"/nope", "/api/v1/jobs/42", "/api/v1/jobs//usage", "/pie/7", "/api/v1/jobs/42/usage/"}) {
    INFO(path);
    HttpResponse r = router.dispatch(get(path));
    CHECK(r.status == 404);
    CHECK(is_json_error(r));
  }
}

TEST_CASE("traversal and bad escapes are 400 before any handler", "[serve]") {
  Router router = echo_router();
  for (const char* path :
       {"/api/v1/jobs/../usage", "/api/v1/jobs/%2e%2e/usage", "/api/v1/jobs/1%2f2/usage", "/api/v1/jobs/%/usage"}) {
    INFO(path);
    HttpResponse r = router.dispatch(get(path));
    CHECK(r.status == 400);
    CHECK(is_json_error(r));
  }
}

TEST_CASE("methods other than GET and HEAD are 405 with Allow", "[serve]") {
  Router router = echo_router();
  for (const char* method : {"POST", "PUT", "DELETE", "OPTIONS", "get"}) {
    INFO(method);
    HttpResponse r = router.dispatch(make_request(method, "/api/v1/jobs/1/usage"));
    CHECK(r.status == 405);
    REQUIRE(r.header("allow") != nullptr);
    CHECK(*r.header("Allow") == "GET, HEAD");
  }
  CHECK(router.dispatch(make_request("HEAD", "/")).status == 200);
  CHECK(router.dispatch(make_request("POST", "/nope")).status == 404);
}

TEST_CASE("a handler that throws answers 500, not a crash", "[serve]") {
  Router router = echo_router();
  HttpResponse r = router.dispatch(get("/boom"));
  CHECK(r.status == 500);
  CHECK(is_json_error(r));
}

TEST_CASE("JSON errors escape their message and stay valid UTF-8", "[serve]") {
  CHECK(json_error(400, "a \"b\" \\ c\n").body == "{\"error\":\"a \\\"b\\\" \\\\ c\\u000a\"}\n");
  CHECK(json_error(400, "bad \xff byte").body == "{\"error\":\"bad \\ufffd byte\"}\n");
  CHECK(json_error(400, "caf\xc3\xa9").body == "{\"error\":\"caf\xc3\xa9\"}\n");
  CHECK(json_error(400, "del \x7f tab\t").body == "{\"error\":\"del \\u007f tab\\u0009\"}\n");
}

TEST_CASE("header lookups ignore case", "[serve]") {
  HttpRequest r = get("/");
  r.headers.push_back({"X-Remote-User", "alice"});
  REQUIRE(r.header("x-remote-user") != nullptr);
  CHECK(*r.header("X-REMOTE-USER") == "alice");
  CHECK(r.header("X-Remote-Use") == nullptr);
}

TEST_CASE("listen addresses", "[serve]") {
  auto a = parse_listen_address("127.0.0.1:8080");
  REQUIRE(a);
  CHECK(a->host == "127.0.0.1");
  CHECK(a->port == 8080);
  auto b = parse_listen_address("[::1]:0");
  REQUIRE(b);
  CHECK(b->host == "::1");
  CHECK(b->port == 0);
  auto c = parse_listen_address(":9000");
  REQUIRE(c);
  CHECK(c->host.empty());
  for (const char* bad : {"127.0.0.1", "127.0.0.1:", "127.0.0.1:65536", "::1:80", "[]:80", "[::1]80", "h:-1", "h:8o"}) {
    INFO(bad);
    CHECK_FALSE(parse_listen_address(bad));
  }
}

// ---- authorisation ----

TEST_CASE("address patterns: exact, CIDR, IPv4-mapped", "[serve]") {
  CHECK(address_matches("127.0.0.1", "127.0.0.1"));
  CHECK_FALSE(address_matches("127.0.0.2", "127.0.0.1"));
  CHECK(address_matches("10.1.2.3", "10.1.0.0/16"));
  CHECK_FALSE(address_matches("10.2.0.1", "10.1.0.0/16"));
  CHECK(address_matches("10.1.2.3", "10.1.2.0/25"));
  CHECK_FALSE(address_matches("10.1.2.200", "10.1.2.0/25"));
  CHECK(address_matches("::ffff:127.0.0.1", "127.0.0.1"));
  CHECK(address_matches("fd00::5", "fd00::/64"));
  CHECK_FALSE(address_matches("127.0.0.1", "::1"));
  CHECK_FALSE(address_matches("garbage", "127.0.0.1"));
  CHECK(valid_address_pattern("0.0.0.0/0"));
  CHECK_FALSE(valid_address_pattern("10.0.0.0/33"));
  CHECK_FALSE(valid_address_pattern("host.example.org"));
  CHECK(is_loopback_host("127.0.0.1"));
  CHECK(is_loopback_host("127.1.2.3"));
  CHECK(is_loopback_host("::1"));
  CHECK(is_loopback_host("localhost"));
  CHECK_FALSE(is_loopback_host(""));
  CHECK_FALSE(is_loopback_host("0.0.0.0"));
  CHECK_FALSE(is_loopback_host("10.0.0.1"));
}

TEST_CASE("auth none: everyone reads everything", "[serve]") {
  Authorizer auth(Fixture::make_auth(AuthMode::None), nullptr);
  Identity who;
  CHECK(auth.identify(get("/", "10.0.0.9"), who).allowed());
  CHECK_FALSE(who.authenticated);
  CHECK(auth.may_read(who, "bob").allowed());
  CHECK(parse_auth_mode("header") == AuthMode::Header);
  CHECK_THROWS_AS(parse_auth_mode("basic"), std::invalid_argument);
}

TEST_CASE("auth header: the header counts only from a trusted proxy", "[serve]") {
  FakeDirectory directory;
  Authorizer auth(Fixture::make_auth(AuthMode::Header), &directory);
  Identity who;
  CHECK(auth.identify(as_user("/", "alice"), who).allowed());
  CHECK(who.authenticated);
  CHECK(who.user == "alice");
  CHECK(auth.identify(as_user("/", "alice", "10.0.0.9"), who).access == Access::Unauthenticated);
  CHECK(auth.identify(get("/"), who).access == Access::Unauthenticated);
  CHECK(auth.identify(as_user("/", "  "), who).access == Access::Unauthenticated);
  CHECK(auth.identify(as_user("/", "-rf"), who).access == Access::Unauthenticated);
  CHECK(auth.identify(as_user("/", "a b"), who).access == Access::Unauthenticated);
  HttpRequest twice = as_user("/", "alice");
  twice.headers.push_back({"x-remote-user", "carol"});
  CHECK(auth.identify(twice, who).access == Access::Unauthenticated);
  CHECK(access_status(Access::Unauthenticated) == 401);
}

TEST_CASE("auth header: owners, admins and the admin group", "[serve]") {
  FakeDirectory directory;
  directory.users["dave"] = {"dave", 1004, std::nullopt, {"hpcstaff", "users"}};
  directory.users["erin"] = {"erin", 1005, std::nullopt, {"users"}};
  Authorizer auth(Fixture::make_auth(AuthMode::Header), &directory);
  auto who = [](const std::string& user) { return Identity{true, user}; };
  CHECK(auth.may_read(who("alice"), "alice").allowed());
  CHECK(auth.may_read(who("alice"), "bob").access == Access::Forbidden);
  CHECK(auth.may_read(who("carol"), "bob").allowed());  // in admins
  CHECK(auth.may_read(who("dave"), "bob").allowed());   // in the admin group
  CHECK(auth.may_read(who("erin"), "bob").access == Access::Forbidden);
  CHECK(auth.may_read(who("nobody"), "bob").access == Access::Forbidden);  // not in the directory
  CHECK(auth.may_read(Identity{}, "bob").access == Access::Unauthenticated);
  // Group lookups are remembered: a second question costs no directory call.
  int calls = directory.calls;
  CHECK(auth.may_read(who("dave"), "alice").allowed());
  CHECK(directory.calls == calls);
  // A directory failure is 502, not a silent "no".
  directory.down = true;
  auto decision = auth.may_read(who("frank"), "bob");
  CHECK(decision.access == Access::Unavailable);
  CHECK(access_status(decision.access) == 502);
}

TEST_CASE("bad auth configuration is refused at start", "[serve]") {
  AuthConfig config = Fixture::make_auth(AuthMode::Header);
  config.header = "X Remote";
  CHECK_THROWS_AS(Authorizer(config, nullptr), std::invalid_argument);
  config = Fixture::make_auth(AuthMode::Header);
  config.trusted_proxies = {"proxy.example.org"};
  CHECK_THROWS_AS(Authorizer(config, nullptr), std::invalid_argument);
}

// ---- the result cache ----

namespace {
CachedReportPtr entry(const std::string& id, bool finished) {
  model::JobReport report;
  report.usage.job = record(id, "alice", finished);
  model::Series series;
  series.labels["instance"] = "n1";
  series.samples = {{1, 2}, {3, 4}};
  report.usage.series["jobs_rss"] = {series};
  return ResultCache::make_entry(report, [](const model::JobReport& r) {
    return "json " + r.usage.job.job_id + " samples " + std::to_string(r.usage.series.at("jobs_rss")[0].samples.size());
  });
}
}  // namespace

TEST_CASE("cache entries keep their samples for the charts, at most kChartSamples per series", "[serve]") {
  CachedReportPtr e = entry("1", true);
  CHECK(e->json == "json 1 samples 2");
  REQUIRE(e->report.usage.series.count("jobs_rss") == 1);
  CHECK(e->report.usage.series.at("jobs_rss")[0].samples.size() == 2);
  CHECK(e->report.usage.series.at("jobs_rss")[0].label("instance") == "n1");
  CHECK(e->bytes > 2 * sizeof(model::Sample));

  model::JobReport big;
  big.usage.job = record("2", "alice", true);
  model::Series series;
  for (int i = 0; i < 10'000; ++i) series.samples.push_back({double(i), i == 4321 ? 1e6 : double(i % 7)});
  big.usage.series["jobs_cpu_percent"] = {series};
  CachedReportPtr b = ResultCache::make_entry(big, [](const model::JobReport&) { return std::string("{}"); });
  const auto& kept = b->report.usage.series.at("jobs_cpu_percent")[0].samples;
  CHECK(kept.size() <= kChartSamples);
  CHECK(std::any_of(kept.begin(), kept.end(), [](const model::Sample& s) { return s.value == 1e6; }));
  CHECK(std::is_sorted(kept.begin(), kept.end(),
                       [](const model::Sample& x, const model::Sample& y) { return x.time < y.time; }));
}

TEST_CASE("the cache keeps within its byte bound, evicting the least recently used", "[serve]") {
  CachedReportPtr one = entry("1", true);
  ResultCache cache(100, 5, one->bytes * 2 + one->bytes / 2);  // room for two
  cache.put("1", one);
  cache.put("2", entry("2", true));
  CHECK(cache.stats().bytes == 2 * one->bytes);
  CHECK(cache.find("1"));
  cache.put("3", entry("3", true));
  CHECK(cache.stats().entries == 2);
  CHECK(cache.stats().evictions == 1);
  CHECK(cache.find("1"));
  CHECK_FALSE(cache.find("2"));

  ResultCache tiny(100, 5, one->bytes - 1);  // an entry larger than the bound is not kept
  tiny.put("1", one);
  CHECK(tiny.stats().entries == 0);
  CHECK(tiny.stats().bytes == 0);
}

TEST_CASE("the cache evicts the least recently used finished job", "[serve]") {
  ResultCache cache(2);
  cache.put("1", entry("1", true));
  cache.put("2", entry("2", true));
  CHECK(cache.find("1"));  // 1 is now the most recent
  cache.put("3", entry("3", true));
  CHECK(cache.find("1"));
  CHECK_FALSE(cache.find("2"));
  CHECK(cache.find("3"));
  CacheStats stats = cache.stats();
  CHECK(stats.entries == 2);
  CHECK(stats.evictions == 1);
  CHECK(stats.hits == 3);
}

TEST_CASE("running jobs are kept only for their TTL; capacity 0 keeps nothing", "[serve]") {
  ResultCache no_ttl(10, 0);
  no_ttl.put("1", entry("1", false));
  CHECK_FALSE(no_ttl.find("1"));
  ResultCache short_ttl(10, 0.05);
  short_ttl.put("1", entry("1", false));
  CHECK(short_ttl.find("1"));
  std::this_thread::sleep_for(std::chrono::milliseconds(80));
  CHECK_FALSE(short_ttl.find("1"));
  ResultCache off(0);
  off.put("1", entry("1", true));
  CHECK_FALSE(off.find("1"));
}

TEST_CASE("get_or_compute analyses once, keeps successes, not failures", "[serve]") {
  ResultCache cache(10);
  int computed = 0;
  auto ok = [&]() -> Result<CachedReportPtr> {
    ++computed;
    return entry("1", true);
  };
  CHECK(cache.get_or_compute("1", ok).ok());
  CHECK(cache.get_or_compute("1", ok).ok());
  CHECK(computed == 1);
  auto fail = [&]() -> Result<CachedReportPtr> {
    ++computed;
    return unavailable("down");
  };
  CHECK_FALSE(cache.get_or_compute("2", fail).ok());
  CHECK_FALSE(cache.get_or_compute("2", fail).ok());
  CHECK(computed == 3);
  CHECK(cache.stats().misses == 3);
}

TEST_CASE("concurrent requests for one job share one analysis", "[serve]") {
  ResultCache cache(10);
  std::atomic<int> computed{0};
  auto slow = [&]() -> Result<CachedReportPtr> {
    ++computed;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    return entry("1", true);
  };
  std::vector<std::thread> threads;
  std::atomic<int> ok{0};
  for (int i = 0; i < 8; ++i) {
    threads.emplace_back([&] {
      if (cache.get_or_compute("1", slow).ok()) ++ok;
    });
  }
  for (auto& t : threads) t.join();
  CHECK(ok == 8);
  CHECK(computed == 1);
}

TEST_CASE("an exception in an analysis reaches its caller and frees the waiters", "[serve]") {
  ResultCache cache(10);
  auto throws = []() -> Result<CachedReportPtr> { throw std::runtime_error("bug"); };
  CHECK_THROWS_AS(cache.get_or_compute("1", throws), std::runtime_error);
  CHECK(cache.get_or_compute("1", [] { return Result<CachedReportPtr>(entry("1", true)); }).ok());
}

// ---- the handlers ----

TEST_CASE("job usage: the authorisation matrix", "[serve]") {
  Fixture f;
  auto status = [&](const HttpRequest& r) { return f.router.dispatch(r).status; };
  CHECK(status(get("/api/v1/jobs/100/usage")) == 401);                           // anonymous
  CHECK(status(as_user("/api/v1/jobs/100/usage", "alice")) == 200);              // owner
  CHECK(status(as_user("/api/v1/jobs/100/usage", "bob")) == 403);                // another user
  CHECK(status(as_user("/api/v1/jobs/100/usage", "carol")) == 200);              // admin (list)
  CHECK(status(as_user("/api/v1/jobs/100/usage", "dave")) == 200);               // admin (group)
  CHECK(status(as_user("/api/v1/jobs/100/usage", "alice", "10.9.9.9")) == 401);  // untrusted peer
  // From the cache as well: the owner check does not depend on a miss.
  CHECK(status(as_user("/api/v1/jobs/100/usage", "bob")) == 403);
  HttpResponse ok = f.router.dispatch(as_user("/api/v1/jobs/100/usage", "alice"));
  CHECK(ok.body == "{\"jobid\": 100}");
  CHECK(ok.content_type == "application/json");
}

TEST_CASE("job usage: bad ids, unknown jobs and failing sources", "[serve]") {
  Fixture f;
  auto carol = [](const std::string& target) { return as_user(target, "carol"); };
  for (const char* bad : {"abc", "-1", "1.5", "12345678901", "99999999999999999999", "4294967295", "1_", "%20"}) {
    INFO(bad);
    HttpResponse r = f.router.dispatch(carol(std::string("/api/v1/jobs/") + bad + "/usage"));
    CHECK(r.status == 400);
    CHECK(is_json_error(r));
  }
  CHECK(f.accounting.job_calls == 0);  // no query for an invalid id
  HttpResponse unknown = f.router.dispatch(carol("/api/v1/jobs/999/usage"));
  CHECK(unknown.status == 404);
  CHECK(is_json_error(unknown));
  f.prometheus_down = true;
  HttpResponse down = f.router.dispatch(carol("/api/v1/jobs/101/usage"));
  CHECK(down.status == 502);
  CHECK(is_json_error(down));
  f.prometheus_down = false;
  CHECK(f.router.dispatch(carol("/api/v1/jobs/101/usage")).status == 200);  // failures are not cached
  f.accounting.down = true;
  CHECK(f.router.dispatch(carol("/api/v1/jobs/100/usage")).status == 502);
}

TEST_CASE("job routes accept a SLUID for its job id: same answers, cache and authorisation", "[serve][sluid]") {
  Fixture f;
  HttpResponse by_sluid = f.router.dispatch(as_user("/api/v1/jobs/s5k1kkyayg5d00/usage", "alice"));
  CHECK(by_sluid.status == 200);
  CHECK(by_sluid.body == "{\"jobid\": 100}");
  CHECK(f.sluids_asked == std::vector<std::string>{"s5K1KKYAYG5D00"});  // canonical, whatever the case asked
  // The id is what is cached: the job by number is a hit.
  CHECK(f.router.dispatch(as_user("/api/v1/jobs/100/usage", "alice")).status == 200);
  CHECK(f.analyses == 1);
  // bob's job by SLUID: 403 as by number; anonymous: 401 before any lookup.
  CHECK(f.router.dispatch(as_user("/api/v1/jobs/s5K1KKYAYG5D01/usage", "alice")).status == 403);
  std::size_t asked = f.sluids_asked.size();
  CHECK(f.router.dispatch(get("/api/v1/jobs/s5K1KKYAYG5D00/usage")).status == 401);
  CHECK(f.sluids_asked.size() == asked);
  // The mail's PDF link names the job by its id.
  HttpRequest mail = as_user("/mail/s5K1KKYAYG5D00", "alice");
  mail.headers.push_back({"Host", "web.example.org"});
  HttpResponse text = f.router.dispatch(mail);
  CHECK(text.status == 200);
  CHECK(text.body == "mail 100 http://web.example.org/pdf/100\nWARNING=false\n");
  // The job form sends a SLUID on to its page.
  HttpResponse form = f.router.dispatch(get("/jobs/?id=%20s5k1kkyayg5d00%20"));
  CHECK(form.status == 303);
  REQUIRE(form.header("Location") != nullptr);
  CHECK(form.header("Location")->find("/jobs/s5K1KKYAYG5D00") != std::string::npos);
}

TEST_CASE("an unknown SLUID is a 404 as an unknown job id; a malformed one a 400 with no lookup", "[serve][sluid]") {
  Fixture f;
  HttpResponse unknown = f.router.dispatch(as_user("/api/v1/jobs/s0000000000000/usage", "carol"));
  CHECK(unknown.status == 404);
  CHECK(is_json_error(unknown));
  CHECK(unknown.body.find("s0000000000000") != std::string::npos);
  for (const char* bad : {"s5K1KKYAYG5D0", "s5K1KKYAYG5D000", "s5K1KKYAYG5DOI", "x5K1KKYAYG5D00"}) {
    INFO(bad);
    HttpResponse r = f.router.dispatch(as_user(std::string("/api/v1/jobs/") + bad + "/usage", "carol"));
    CHECK(r.status == 400);
    CHECK(is_json_error(r));
    CHECK(f.router.dispatch(get(std::string("/jobs/?id=") + bad)).status == 400);
  }
  CHECK(f.sluids_asked == std::vector<std::string>{"s0000000000000"});
  CHECK(f.accounting.job_calls == 0);
}

TEST_CASE("job usage: a finished job is analysed once", "[serve]") {
  Fixture f;
  for (int i = 0; i < 3; ++i) CHECK(f.router.dispatch(as_user("/api/v1/jobs/100/usage", "alice")).status == 200);
  CHECK(f.analyses == 1);
  CHECK(f.cache.stats().hits == 2);
  // A running one is analysed again once its few seconds are over (TTL 5 s):
  // within them it is served from the cache too.
  CHECK(f.router.dispatch(as_user("/api/v1/jobs/102/usage", "alice")).status == 200);
  CHECK(f.analyses == 2);
  auto r = f.router.dispatch(as_user("/api/v1/jobs/102/usage", "alice"));
  REQUIRE(r.header("Cache-Control") != nullptr);
  CHECK(*r.header("Cache-Control") == "no-store");
}

TEST_CASE("job usage: one accounting lookup per cache miss, none on a hit", "[serve]") {
  Fixture f;
  CHECK(f.router.dispatch(as_user("/api/v1/jobs/100/usage", "alice")).status == 200);
  CHECK(f.accounting.job_calls == 1);
  REQUIRE(f.analysed.size() == 1);
  CHECK(f.analysed[0].job_id == "100");
  CHECK(f.analysed[0].total_cpu_seconds == 7200);  // the looked-up record itself
  CHECK(f.router.dispatch(as_user("/api/v1/jobs/100/usage", "alice")).status == 200);
  CHECK(f.accounting.job_calls == 1);
  // Another user's job: the lookup that tells the owner, then no analysis.
  CHECK(f.router.dispatch(as_user("/api/v1/jobs/101/usage", "alice")).status == 403);
  CHECK(f.accounting.job_calls == 2);
  CHECK(f.analyses == 1);
}

TEST_CASE("mail: text for a finished job, 409 while it runs", "[serve]") {
  Fixture f;
  HttpRequest request = as_user("/mail/100", "alice");
  request.headers.push_back({"Host", "web.example.org:8080"});
  HttpResponse r = f.router.dispatch(request);
  CHECK(r.status == 200);
  CHECK(r.content_type.rfind("text/plain", 0) == 0);
  CHECK(r.body == "mail 100 http://web.example.org:8080/pdf/100\nWARNING=false\n");
  int analyses = f.analyses;
  HttpResponse running = f.router.dispatch(as_user("/mail/102", "alice"));
  CHECK(running.status == 409);
  CHECK(is_json_error(running));
  CHECK(f.analyses == analyses);  // refused before any Prometheus query
  CHECK(f.router.dispatch(as_user("/mail/101", "alice")).status == 403);
  CHECK(f.router.dispatch(get("/mail/101")).status == 401);
  CHECK(f.router.dispatch(as_user("/mail/x", "alice")).status == 400);
}

TEST_CASE("user record: who may read it and what it holds", "[serve]") {
  Fixture f;
  CHECK(f.router.dispatch(get("/api/v1/users/alice")).status == 401);
  CHECK(f.router.dispatch(as_user("/api/v1/users/alice", "bob")).status == 403);
  CHECK(f.router.dispatch(as_user("/api/v1/users/alice", "carol")).status == 200);
  HttpResponse r = f.router.dispatch(as_user("/api/v1/users/alice", "alice"));
  REQUIRE(r.status == 200);
  CHECK(r.body.find("\"user\": {\"username\": \"alice\", \"uid\": 1001, \"email\": \"alice@example.org\"}") !=
        std::string::npos);
  CHECK(r.body.find("\"groups\": [\"physics\", \"users\"]") != std::string::npos);
  // Newest first: 102 before 100; bob's 101 not listed.
  auto p102 = r.body.find("\"jobid\": 102");
  auto p100 = r.body.find("\"jobid\": 100");
  CHECK(p102 != std::string::npos);
  CHECK(p100 != std::string::npos);
  CHECK(p102 < p100);
  CHECK(r.body.find("\"jobid\": 101") == std::string::npos);
  CHECK(r.body.find("\"start\": \"2023-11-14T22:13:20Z\"") != std::string::npos);
  // Summary over the finished job only: 50 % CPU, 0.25 memory, 1 warning.
  CHECK(r.body.find("\"jobs_considered\": 1, \"jobs_analysed\": 1, \"complete\": true") != std::string::npos);
  CHECK(r.body.find("\"cpu_efficiency\": {\"mean\": 50, \"unit\": \"%\", \"jobs\": 1}") != std::string::npos);
  CHECK(r.body.find("\"memory_usage\": {\"mean\": 0.25, \"unit\": \"ratio\", \"jobs\": 1}") != std::string::npos);
  CHECK(r.body.find("\"jobs_with_warnings\": 1") != std::string::npos);
}

TEST_CASE("user summary: a whole listing's records are analysed as listed, no lookup", "[serve]") {
  // sacct and the DB view list each job as job() gives it.
  Fixture f;
  f.accounting.whole_listing = true;
  // An older run of 100 (requeued) after the newest: it counts once, as the newest.
  f.accounting.listed_again.push_back(record("100", "alice", true));
  f.accounting.listed_again.back().total_cpu_seconds = 1;
  HttpResponse r = f.router.dispatch(as_user("/api/v1/users/alice", "alice"));
  REQUIRE(r.status == 200);
  CHECK(f.accounting.job_calls == 0);
  REQUIRE(f.analysed.size() == 1);
  CHECK(f.analysed[0].job_id == "100");
  CHECK(f.analysed[0].total_cpu_seconds == 7200);
  CHECK(r.body.find("\"jobs_considered\": 1, \"jobs_analysed\": 1, \"complete\": true") != std::string::npos);
  // Cached under the job's id: its own route needs no lookup either.
  CHECK(f.router.dispatch(as_user("/api/v1/jobs/100/usage", "alice")).status == 200);
  CHECK(f.accounting.job_calls == 0);
  CHECK(f.analyses == 1);
}

TEST_CASE("user summary: a coarse listing's jobs are analysed from their full record", "[serve]") {
  // The jobs_info listing lacks the step figures (TotalCPU, MaxRSS, the task
  // layout) and knows times only roughly, so each job not cached yet is looked up.
  Fixture f;
  CHECK(f.router.dispatch(as_user("/api/v1/users/alice", "alice")).status == 200);
  REQUIRE(f.analysed.size() == 1);
  CHECK(f.analysed[0].job_id == "100");
  CHECK(f.analysed[0].total_cpu_seconds == 7200);
  CHECK(f.accounting.job_calls == 1);
  // Cached now: a second summary and the job's own route look nothing up.
  CHECK(f.router.dispatch(as_user("/api/v1/users/alice", "alice")).status == 200);
  CHECK(f.router.dispatch(as_user("/api/v1/jobs/100/usage", "alice")).status == 200);
  CHECK(f.accounting.job_calls == 1);
  CHECK(f.analyses == 1);
}

TEST_CASE("user record: unknown users, bad names, failing sources", "[serve]") {
  Fixture f;
  HttpResponse unknown = f.router.dispatch(as_user("/api/v1/users/nosuchuser", "carol"));
  CHECK(unknown.status == 404);
  CHECK(is_json_error(unknown));
  // Known from passwd only, without jobs or a directory entry.
  HttpResponse bob = f.router.dispatch(as_user("/api/v1/users/bob", "bob"));
  CHECK(bob.status == 200);
  CHECK(bob.body.find("\"uid\": 1002, \"email\": null") != std::string::npos);
  CHECK(f.router.dispatch(as_user("/api/v1/users/-x", "carol")).status == 400);
  CHECK(f.router.dispatch(as_user("/api/v1/users/a%20b", "carol")).status == 400);
  CHECK(f.router.dispatch(as_user("/api/v1/users/" + std::string(40, 'a'), "carol")).status == 400);
  f.prometheus_down = true;
  HttpResponse partial = f.router.dispatch(as_user("/api/v1/users/alice", "alice"));
  CHECK(partial.status == 200);  // the summary is marked incomplete instead
  CHECK(partial.body.find("\"complete\": false") != std::string::npos);
  f.accounting.down = true;
  CHECK(f.router.dispatch(as_user("/api/v1/users/alice", "alice")).status == 502);
  f.accounting.down = false;
  f.directory.down = true;
  CHECK(f.router.dispatch(as_user("/api/v1/users/alice", "alice")).status == 502);
}

TEST_CASE("auth none serves everyone on loopback", "[serve]") {
  Fixture f(AuthMode::None);
  CHECK(f.router.dispatch(get("/api/v1/jobs/101/usage")).status == 200);
  CHECK(f.router.dispatch(get("/api/v1/users/alice")).status == 200);
  CHECK(f.router.dispatch(get("/mail/100")).status == 200);
}

TEST_CASE("the index escapes the Host header and lists every route", "[serve]") {
  Fixture f;
  HttpRequest request = get("/");
  request.headers.push_back({"Host", "web.example.org:8080"});
  HttpResponse r = f.router.dispatch(request);
  CHECK(r.status == 200);
  CHECK(r.content_type == "text/html; charset=utf-8");
  CHECK(r.body.find("href=\"http://web.example.org:8080/api/v1/jobs/12345/usage\"") != std::string::npos);
  CHECK(r.body.find("/healthz") != std::string::npos);
  CHECK(r.body.find("/metrics") != std::string::npos);
  CHECK(r.body.find("/mail/12345") != std::string::npos);
  HttpRequest evil = get("/");
  evil.headers.push_back({"Host", "\"><script>alert(1)</script>"});
  HttpResponse e = f.router.dispatch(evil);
  CHECK(e.body.find("<script>") == std::string::npos);
  CHECK(e.body.find("href=\"/api/v1/jobs/12345/usage\"") != std::string::npos);  // relative links instead
  HttpResponse mine = f.router.dispatch(as_user("/", "alice"));
  CHECK(mine.body.find("/api/v1/users/alice") != std::string::npos);
}

TEST_CASE("healthz and the server's metrics", "[serve]") {
  Fixture f;
  CHECK(f.router.dispatch(get("/healthz")).body == "ok\n");
  f.metrics.observe("/healthz", 200, 0.001);
  f.metrics.observe("unmatched", 404, 0.002);
  f.router.dispatch(as_user("/api/v1/jobs/100/usage", "alice"));
  f.router.dispatch(as_user("/api/v1/jobs/100/usage", "alice"));
  HttpResponse m = f.router.dispatch(get("/metrics"));
  CHECK(m.status == 200);
  CHECK(m.content_type.rfind("text/plain; version=0.0.4", 0) == 0);
  CHECK(m.body.find("petricore_http_requests_total{route=\"/healthz\",status=\"200\"} 1") != std::string::npos);
  CHECK(m.body.find("petricore_http_requests_total{route=\"unmatched\",status=\"404\"} 1") != std::string::npos);
  CHECK(m.body.find("petricore_http_request_duration_seconds_bucket{route=\"/healthz\",le=\"0.005\"} 1") !=
        std::string::npos);
  CHECK(m.body.find("petricore_cache_hits_total 1") != std::string::npos);
  CHECK(m.body.find("petricore_cache_misses_total 1") != std::string::npos);
  CHECK(m.body.find("petricore_cache_entries 1") != std::string::npos);
}
